"""`bot.faces.github.publish`: what is posted for a verify report (pure), and posting it through the
real gateway to the fake GitHub: check runs in batches of 50, the sticky comment, labels."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.app.api import VerifyReport
from bot.edges.github.gateway import GitHubGateway
from bot.faces.github.publish import (
    MARKER,
    PULL_REQUEST_RUN,
    append_step_summary,
    build_publication,
    publish,
    read_verdict_header,
)
from bot.rules.verdict import AttemptVerdict
from bot.vocab.findings import Code, Finding
from tests.github import reports
from tests.github.fakehub import FakeHub

HEAD = reports.HEAD
RUN = f"registry: {reports.ATTEMPT}"


def _pr(hub: FakeHub) -> None:
    hub.repo.add_pull(7, "alice", HEAD)


def test_conclusions_titles_and_annotations() -> None:
    runs = {
        name: build_publication(report, HEAD).check_runs
        for name, report in {
            "invalid": reports.invalid(2),
            "qualifying": reports.qualifying(),
            "not": reports.not_qualifying(),
            "pr": reports.with_pr_problem(),
        }.items()
    }
    # the pull request's run, the one branch protection requires, fails with any attempt
    assert [(r.name, r.conclusion) for r in runs["invalid"]] == [
        (RUN, "failure"),
        (PULL_REQUEST_RUN, "failure"),
    ]
    assert runs["invalid"][1].title == "evidence invalid in 1 attempt(s)"
    assert [(r.name, r.conclusion) for r in runs["qualifying"]][1] == (PULL_REQUEST_RUN, "success")
    assert [(r.name, r.conclusion) for r in runs["not"]][1] == (PULL_REQUEST_RUN, "success")
    assert runs["invalid"][0].title == "evidence invalid: 2 problem(s)"
    assert [(a.path, a.start_line, a.level, a.title) for a in runs["invalid"][0].annotations] == [
        (f"{reports.ATTEMPT}/trials.jsonl", 1, "failure", "duplicate-trial"),
        (f"{reports.ATTEMPT}/trials.jsonl", 2, "failure", "duplicate-trial"),
    ]
    assert runs["qualifying"][0].conclusion == "success"
    # a reason without a line annotates line 1; one without a file is in the summary only
    (size,) = runs["not"][0].annotations
    assert (size.path, size.start_line, size.level) == (
        f"{reports.ATTEMPT}/attempt.yaml",
        1,
        "warning",
    )
    assert runs["not"][0].conclusion == "neutral" and "systems-floor" in runs["not"][0].summary
    attempt, pull = runs["pr"]
    assert (attempt.conclusion, pull.conclusion) == ("failure", "failure")
    assert [a.path for a in pull.annotations] == ["bot/faces/cli.py"]
    assert "path-outside-attempt" in pull.summary and "snapshot-late" in pull.summary


def test_labels_follow_evidence_and_status() -> None:
    assert build_publication(reports.invalid(), HEAD).labels == {"evidence:invalid"}
    assert build_publication(reports.qualifying(), HEAD).labels == {
        "evidence:valid",
        "verdict:qualifying",
    }


def test_report_text_is_inert_in_the_comment() -> None:
    report = reports.invalid(message="@octocat <img src=x onerror=alert(1)> [x](http://evil)")
    publication = build_publication(
        report, HEAD, "https://example.org/run/1", "https://example.org/att/2"
    )
    body = publication.comment
    assert "@octocat" not in body and "@\u2060octocat" in body
    assert not re.search(r"(?<!\\)<img", body) and "](http://evil)" not in body
    assert body.startswith(MARKER) and "[full report](https://example.org/run/1)" in body
    assert "[attestation of the report](https://example.org/att/2)" in body


def test_a_hundred_and_twenty_annotations(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    _pr(fakehub)
    publish(gateway, build_publication(reports.invalid(120, files=10), HEAD), 7, HEAD)
    (run,) = fakehub.repo.runs_named(RUN)
    assert (len(run.annotations), run.conclusion) == (120, "failure")
    path = rf".*/check-runs/{run.id}"
    posts = [r for r in fakehub.calls("POST", r".*/check-runs") if r.json["name"] == RUN]
    patches = fakehub.calls("PATCH", path)
    assert len(posts) == 1 and len(patches) == 3
    batches = [posts[0].json, *(p.json for p in patches)]
    assert [len(b["output"]["annotations"]) for b in batches] == [50, 50, 20, 0]
    assert all(b["output"]["title"] and b["output"]["summary"] for b in batches)
    assert [b.get("conclusion") for b in batches] == [None, None, None, "failure"]


def test_sticky_comment_edited_then_new_when_the_verdict_changes(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    _pr(fakehub)
    fakehub.repo.add_comment(7, f"{MARKER} pasted by a person", "mallory", "User")
    first = publish(gateway, build_publication(reports.invalid(1), HEAD), 7, HEAD)
    assert first.comment is not None
    # same verdict (still invalid), other problems: edited in place
    second = publish(gateway, build_publication(reports.invalid(3), HEAD), 7, HEAD)
    assert second.comment is None and second.edited_comment == first.comment.id
    bot = [c for c in fakehub.repo.comments_on(7) if c.user_type == "Bot"]
    assert len(bot) == 1 and "got X 2" in bot[0].body
    # the verdict changes: a new comment, the old one stays as history
    third = publish(gateway, build_publication(reports.qualifying(), HEAD), 7, HEAD)
    assert third.comment is not None and third.comment.id != first.comment.id
    bodies = [c.body for c in fakehub.repo.comments_on(7) if c.user_type == "Bot"]
    assert len(bodies) == 2 and "Evidence invalid" in bodies[0] and "valid" in bodies[1]
    assert fakehub.repo.comments_on(7)[0].body == f"{MARKER} pasted by a person"


def test_a_run_for_an_older_head_does_not_overwrite_the_pr_verdict(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Attack: push a valid head X, then an invalid head Y. Verify runs per head SHA in
    parallel; when Y's run posts first and X's last, X's comment and `evidence:valid` label
    overwrote Y's on the pull request. X's check runs still go on X (they are X's)."""
    old = "b" * 40
    _pr(fakehub)  # the PR's head is HEAD now
    fakehub.repo.labels[7] = ["evidence:invalid"]
    posted = publish(gateway, build_publication(reports.qualifying(), old), 7, old)
    (run,) = fakehub.repo.runs_named(RUN)
    assert (run.head_sha, run.conclusion) == (old, "success")
    assert fakehub.repo.comments_on(7) == []
    assert fakehub.repo.labels[7] == ["evidence:invalid"]
    assert (posted.comment, posted.edited_comment, posted.moved_to) == (None, None, HEAD)


def test_labels_kept_in_sync(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    _pr(fakehub)
    fakehub.repo.labels[7] = ["evidence:valid", "verdict:qualifying", "help wanted"]
    # someone removes a stale label at the same moment: the 404 is no error
    fakehub.fail_next("DELETE", r".*/labels/verdict:qualifying", 404, body={"message": "x"})
    posted = publish(gateway, build_publication(reports.invalid(), HEAD), 7, HEAD)
    assert posted.labels_added == ("evidence:invalid",)
    assert posted.labels_removed == ("evidence:valid", "verdict:qualifying")
    assert set(fakehub.repo.labels[7]) == {"help wanted", "evidence:invalid", "verdict:qualifying"}
    publish(gateway, build_publication(reports.qualifying(), HEAD), 7, HEAD)
    assert set(fakehub.repo.labels[7]) == {"help wanted", "evidence:valid", "verdict:qualifying"}


def test_lost_answers_make_no_duplicates(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    _pr(fakehub)
    fakehub.fail_next("POST", r".*/check-runs", 502, apply=True)
    fakehub.fail_next("POST", r".*/issues/7/comments", 502, apply=True)
    fakehub.fail_next("PATCH", r".*/check-runs/\d+", 503)
    publish(gateway, build_publication(reports.invalid(3), HEAD), 7, HEAD)
    assert len(fakehub.repo.runs_named(RUN)) == 1
    assert len(fakehub.repo.runs_named(PULL_REQUEST_RUN)) == 1
    assert all(r.conclusion for r in fakehub.repo.check_runs.values())
    assert len(fakehub.repo.comments_on(7)) == 1


def test_a_lost_patch_of_annotations_is_not_applied_twice(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    _pr(fakehub)
    fakehub.fail_next("PATCH", r".*/check-runs/\d+", 502, apply=True)
    fakehub.fail_next("PATCH", r".*/check-runs/\d+", 0, apply=True)
    publish(gateway, build_publication(reports.invalid(120, files=10), HEAD), 7, HEAD)
    (run,) = fakehub.repo.runs_named(RUN)
    assert (len(run.annotations), run.conclusion) == (120, "failure")
    messages = [a["message"] for a in run.annotations]
    assert messages == [f"got X {i}" for i in range(120)]


def test_step_summary_appended(tmp_path: Path) -> None:
    summary = tmp_path / "summary.md"
    summary.write_text("earlier step\n")
    append_step_summary(summary, build_publication(reports.invalid(), HEAD))
    text = summary.read_text()
    assert text.startswith("earlier step\n") and "Evidence invalid" in text


def _report(messages: list[str], files: list[str]) -> VerifyReport:
    verdicts = []
    for index, message in enumerate(messages):
        folder = f"attempts/market-03/{files[index % len(files)]}"
        findings = tuple(
            Finding(Code.SCHEMA, message * (1 + i), f"{folder}/trials.jsonl", i + 1)
            for i in range(60)
        )
        verdicts.append(AttemptVerdict(folder, 3, "run", findings=findings))
    return VerifyReport(tuple(verdicts))


def test_a_huge_report_still_posts_its_check_runs(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    """Attack (held): an attempt with thousands of findings; the fake refuses a summary over
    GitHub's 65,535 characters as GitHub does, and the Markdown report stays under it (50
    findings a table, 60,000 characters in all), while every finding the JSON report lists
    (20 per code and file: here all of them) is an annotation."""
    _pr(fakehub)
    publication = build_publication(reports.invalid(3000, message="x" * 400, files=150), HEAD)
    assert all(len(run.summary) <= 65_535 for run in publication.check_runs)
    publish(gateway, publication, 7, HEAD)
    (run,) = fakehub.repo.runs_named(RUN)
    assert (len(run.annotations), run.conclusion) == (3000, "failure")


@settings(max_examples=30, deadline=None)
@given(
    st.lists(st.text(min_size=1, max_size=400), min_size=1, max_size=8),
    st.lists(st.from_regex(r"[a-z0-9@<>\[\]`*_-]{1,60}", fullmatch=True), min_size=1),
)
def test_comment_is_capped_and_keeps_its_marker(messages: list[str], files: list[str]) -> None:
    publication = build_publication(_report(messages, files), HEAD, "https://example.org/r")
    assert len(publication.comment) <= 65_536
    assert publication.comment.startswith(MARKER)
    assert re.search(r"<!-- claims-bot:verdict-key [0-9a-f]{16} -->", publication.comment)
    for run in publication.check_runs:
        assert len(run.summary) <= 65_535 and len(run.name) <= 200


def test_the_verdict_header_reads_back() -> None:
    """The header `build_publication` writes is what `read_verdict_header` reads: the key and
    every digest shown, and nothing from the report below it."""
    publication = build_publication(reports.qualifying(), HEAD)
    header = read_verdict_header(publication.comment)
    assert header is not None and header.key == publication.verdict_key
    digests = {v.digest for v in reports.qualifying().attempts}
    assert header.digests == digests and len(next(iter(digests))) == 64
    crlf = read_verdict_header(publication.comment.replace("\n", "\r\n"))
    assert crlf == header
    assert read_verdict_header("x\n" + publication.comment) is None


def test_a_bot_reply_holding_the_marker_is_not_taken_for_the_verdict_comment(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Item 14 of issue 21, on the publishing side: a reply by the bot that quotes a filer's
    folder name holding the marker and the verdict key was the "latest verdict comment", so
    publishing edited that reply in place. Only a comment opening with the header counts."""
    _pr(fakehub)
    publication = build_publication(reports.qualifying(), HEAD)
    key = publication.verdict_key
    reply = (
        f"@maint: nothing was recorded: found `attempts/market-03/a/{MARKER}`,"
        f" `attempts/market-03/b/<!-- claims-bot:verdict-key {key} -->`"
    )
    reply_id = fakehub.repo.add_comment(7, reply)
    posted = publish(gateway, publication, 7, HEAD)
    assert posted.comment is not None and posted.edited_comment is None
    assert fakehub.repo.comments[reply_id].body == reply
    # the verdict comment it made is the one edited next time
    again = publish(gateway, publication, 7, HEAD)
    assert again.edited_comment == posted.comment.id


def _required(hub: FakeHub) -> tuple[str | None, str | None]:
    """The conclusion and title of the required check as GitHub reads it on HEAD: the latest
    `registry: pull request` run of the commit."""
    runs = [r for r in hub.repo.runs_named(PULL_REQUEST_RUN) if r.head_sha == HEAD]
    return runs[-1].conclusion, runs[-1].title


def _open(hub: FakeHub, number: int, author: str) -> None:
    hub.repo.add_pull(number, author, HEAD, head_repo=f"{author}/registry", head_branch="x")


def test_an_intruders_pull_request_on_the_same_head_commit_never_flips_the_first(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Item 13 of issue 21: check runs belong to a commit. Mallory opens #8 from her fork on
    the head commit of Alice's honest #7, filing under Alice's slug; the bot posted #8's
    `not-submitter` failure under the required check's name on that commit, turning #7 red.
    Now #8 gets no required check on the shared commit: it is closed, saying why, and #7 is
    verified again; each PR's attempt runs and comment stay its own."""
    reverified: list[int] = []
    _open(fakehub, 7, "alice")
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert _required(fakehub) == ("success", "changes only what a pull request may")

    _open(fakehub, 8, "mallory")
    intruder = build_publication(reports.not_submitter(), HEAD, pr=8)
    posted = publish(gateway, intruder, 8, HEAD, reverified.append)
    assert (posted.shared, posted.closed, reverified) == ({7}, True, [7])
    assert _required(fakehub) == ("success", "changes only what a pull request may")
    assert fakehub.repo.pulls[8].state == "closed" and fakehub.repo.pulls[7].state == "open"
    (eight,) = fakehub.repo.comments_on(8)
    assert "**Closed: this pull request's head commit is also the head of #7" in eight.body
    assert "not-submitter" in eight.body and read_verdict_header(eight.body) is not None
    assert [r.conclusion for r in fakehub.repo.runs_named(f"registry: #7 {reports.ATTEMPT}")] == [
        "success"
    ]
    assert len(fakehub.repo.runs_named(f"registry: #8 {reports.ATTEMPT}")) == 1
    assert fakehub.repo.runs_named(RUN) == []
    (seven,) = fakehub.repo.comments_on(7)
    assert "not-submitter" not in seven.body and "#8" not in seven.body


def test_a_verdict_posted_while_an_intruder_was_open_is_posted_again_once_it_is_closed(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """#7 is verified while Mallory's #8 is open on its head (her run is slower): #7's
    required check fails, naming #8. #8's own run closes it and asks for #7 again, which
    then passes."""
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    first = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert first.shared == {8}
    conclusion, title = _required(fakehub)
    assert conclusion == "failure" and title == (
        "head commit shared with #8: no pull request on it passes"
    )
    reverified: list[int] = []
    intruder = build_publication(reports.not_submitter(), HEAD, pr=8)
    publish(gateway, intruder, 8, HEAD, reverified.append)
    assert reverified == [7] and _required(fakehub)[0] == "failure"  # not green by #8's run
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert _required(fakehub) == ("success", "changes only what a pull request may")
    (seven,) = fakehub.repo.comments_on(7)
    assert "Another open pull request" not in seven.body  # the notice went with the edit


def test_two_owners_pull_requests_on_one_head_commit_both_fail_until_one_is_left(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """When neither PR is refused as `not-submitter` (a new slug: its first filer claims
    it), neither can be told apart from the other: while both are open, the required check
    fails on the commit for both, each naming the other (on 611a91f re-verifying #7 showed
    #8's required check green), and no PR is closed."""
    _open(fakehub, 7, "alice")
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    _open(fakehub, 8, "mallory")
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD)
    assert (posted.shared, posted.closed) == ({7}, False)
    assert _required(fakehub) == (
        "failure",
        "head commit shared with #7: no pull request on it passes",
    )
    again = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert again.shared == {8}
    assert _required(fakehub) == (
        "failure",
        "head commit shared with #8: no pull request on it passes",
    )
    (run,) = [
        r for r in fakehub.repo.runs_named(PULL_REQUEST_RUN) if r.id == again.check_runs[-1].id
    ]
    assert "own verdict: **success**" in (run.summary or "")
    (seven,) = fakehub.repo.comments_on(7)
    assert "Another open pull request (#8)" in seven.body
    assert read_verdict_header(seven.body) is not None  # the notice comes after the header
    assert {p.state for p in fakehub.repo.pulls.values()} == {"open"}
    # a maintainer closes one; the other's next verdict passes
    fakehub.repo.pulls[8].state = "closed"
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert _required(fakehub) == ("success", "changes only what a pull request may")


def test_a_pull_request_into_another_branch_on_the_same_head_changes_nothing(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """A PR on the head commit into another branch gets no verdict (locate refuses it), so it
    must not fail the default branch's PR: its own run would never close it. Retargeted, it
    is checked again (check.yml runs on `edited`)."""
    _open(fakehub, 7, "alice")
    fakehub.repo.add_pull(
        8, "mallory", HEAD, head_repo="mallory/registry", head_branch="x", base_branch="legacy"
    )
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert posted.shared == frozenset()
    assert _required(fakehub) == ("success", "changes only what a pull request may")
    fakehub.repo.pulls[8].base_branch = "main"  # retargeted
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert posted.shared == {8} and _required(fakehub)[0] == "failure"


class _OpensAPullRequestMidway:
    """The gateway, but a second PR on HEAD is opened right after the first listing."""

    def __init__(self, gateway: GitHubGateway, hub: FakeHub) -> None:
        self._gateway, self._hub, self._opened = gateway, hub, False

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gateway, name)

    def open_pull_requests(self) -> Any:
        found = self._gateway.open_pull_requests()
        if not self._opened:
            self._opened = True
            self._hub.repo.add_pull(8, "mallory", HEAD, head_repo="mallory/registry")
        return found


def test_a_pull_request_opened_while_the_verdict_posts_still_fails_the_commit(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """The race: #8 opens on #7's head after #7's publish listed the open PRs and before it
    posted; #8's own run may already be done, so #7's green would be the commit's last word.
    The listing is read again after posting, and the failure posted when it grew."""
    fakehub.repo.add_pull(7, "alice", HEAD, head_repo="alice/registry")
    port = _OpensAPullRequestMidway(gateway, fakehub)
    posted = publish(port, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert posted.shared == {8}
    assert [r.conclusion for r in fakehub.repo.runs_named(PULL_REQUEST_RUN)] == [
        "success",
        "failure",
    ]
    assert _required(fakehub)[0] == "failure"


CHALLENGE_RUN = f"registry: #7 {reports.RUN_FOLDER}"


def test_a_challenge_run_gets_a_check_run_of_its_own() -> None:
    """Issue 22: a challenge run's findings had no check run; it gets one named after the PR
    and the run's folder, as an attempt's is, failing when it has an error."""
    bad = build_publication(reports.challenge_run(2, warnings=1), HEAD, pr=7)
    assert [(r.name, r.conclusion) for r in bad.check_runs] == [
        (CHALLENGE_RUN, "failure"),
        (PULL_REQUEST_RUN, "failure"),  # the required check fails with it
    ]
    run, pull = bad.check_runs
    assert run.title == "challenge run invalid: 2 problem(s)"
    assert pull.title == "evidence invalid in 1 challenge run(s)"
    assert [(a.path, a.start_line, a.level, a.title) for a in run.annotations] == [
        (f"{reports.RUN_FOLDER}/results.jsonl", 1, "failure", "challenge-case-mismatch"),
        (f"{reports.RUN_FOLDER}/results.jsonl", 2, "failure", "challenge-case-mismatch"),
        (f"{reports.RUN_FOLDER}/results.jsonl", 3, "warning", "snapshot-late"),
    ]
    assert run.summary.startswith(f"#### Challenge run {reports.RUN_FOLDER}: invalid")
    assert "challenge-case-mismatch" in run.summary and "got X 1" in run.summary
    assert "4 hash-only cases" in run.summary and f"head `{HEAD[:12]}`" in run.summary
    # only warnings: valid, a success that still shows them
    (run, pull) = build_publication(reports.challenge_run(0, warnings=1), HEAD, pr=7).check_runs
    assert (run.name, run.conclusion, pull.conclusion) == (CHALLENGE_RUN, "success", "success")
    assert run.title == "challenge run valid: 4 case(s), 0 attempt(s) scored"
    assert [a.level for a in run.annotations] == ["warning"]
    # without a PR number (tests of the text) the name is the folder's, as an attempt's is
    (run, _) = build_publication(reports.challenge_run(), HEAD).check_runs
    assert run.name == f"registry: {reports.RUN_FOLDER}"


def test_a_challenge_run_beside_an_attempt_gets_its_own_check_run() -> None:
    runs = build_publication(reports.challenge_run(1, attempt_problems=2), HEAD, pr=7).check_runs
    assert [(r.name, r.conclusion) for r in runs] == [
        (f"registry: #7 {reports.ATTEMPT}", "failure"),
        (CHALLENGE_RUN, "failure"),
        (PULL_REQUEST_RUN, "failure"),
    ]
    assert runs[2].title == "evidence invalid in 1 attempt(s) and 1 challenge run(s)"
    # the attempt's run shows only the attempt, the challenge run's only the run
    assert reports.RUN_FOLDER not in runs[0].summary
    assert reports.ATTEMPT not in runs[1].summary


def test_a_challenge_runs_text_is_inert_in_its_check_run() -> None:
    report = reports.challenge_run(1, message="@octocat <img src=x> [x](http://evil)")
    run, _ = build_publication(report, HEAD, pr=7).check_runs
    assert "@octocat" not in run.summary and "@\u2060octocat" in run.summary
    assert not re.search(r"(?<!\\)<img", run.summary) and "](http://evil)" not in run.summary


def test_a_challenge_runs_check_run_is_posted_with_its_annotations(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    _pr(fakehub)
    report = reports.challenge_run(60)
    posted = publish(gateway, build_publication(report, HEAD, pr=7), 7, HEAD)
    assert len(posted.check_runs) == 2
    (run,) = fakehub.repo.runs_named(CHALLENGE_RUN)
    # annotations capped per code and file as the JSON report lists them; the title counts all
    assert (run.head_sha, run.conclusion, len(run.annotations)) == (HEAD, "failure", 20)
    assert run.title == "challenge run invalid: 60 problem(s)"
    (required,) = fakehub.repo.runs_named(PULL_REQUEST_RUN)
    assert required.conclusion == "failure"
    assert fakehub.repo.labels[7] == ["evidence:invalid"]

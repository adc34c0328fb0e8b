"""The /judge responder against an in-memory port: who may judge, what judgments.yaml
becomes, where it is committed, the branch-moved retry, /help and unknown commands."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from bot.app.registry import load_registry
from bot.edges.github.port import CommentRef, GitHubError
from bot.edges.tree import FolderTree
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.github.commands import parse_comment
from bot.faces.github.publish import MARKER, read_verdict_header
from bot.faces.github.responder import (
    PUT_TRIES,
    AttemptAtHead,
    git_attempt_reader,
    merge_judgments,
    respond,
    sanitise_reply,
)
from bot.rules.evidence.hashing import evidence_digest
from bot.vocab.errors import ClaimsError
from tests.support import RegistryFactory
from tests.unit.faces.github.judge_setup import (
    BOT,
    COMMENT_ID,
    DIGEST,
    FOLDER,
    HEAD,
    NOW,
    PATH,
    REPO,
    REQUIRED,
    Recorder,
    event,
    port,
    pull,
    run,
    verdict_comment,
    written,
)


def test_a_maintainer_judges_on_the_default_branch_and_the_verdict_is_reposted() -> None:
    memory = port()
    body = "/judge reconstructible pass rerun matches\n/judge not-toy-only fail only gridworlds"
    outcome, recorder = run(memory, event(body))
    assert written(memory) == {
        "checks": {
            "reconstructible": {
                "verdict": "pass",
                "by": "maint",
                "at": "2027-03-04T05:06:07Z",
                "evidence_digest": DIGEST,
                "note": "rerun matches",
            },
            "not-toy-only": {
                "verdict": "fail",
                "by": "maint",
                "at": "2027-03-04T05:06:07Z",
                "evidence_digest": DIGEST,
                "note": "only gridworlds",
            },
        }
    }
    assert [c[:2] for c in memory.commits] == [("main", PATH)]
    assert memory.commits[0][3] == (
        f"/judge by maint on #7: {FOLDER} (reconstructible, not-toy-only)"
    )
    assert memory.files["main"][PATH][0].startswith(b"# yaml-language-server: $schema=")
    assert outcome.commit and outcome.branch == "main" and outcome.reposted
    assert recorder.read == [HEAD]
    assert [pr.number for pr in recorder.reposted] == [7]
    ((number, reply),) = memory.comments_posted
    assert number == 7
    assert reply.startswith("@maint recorded 2 judgment(s) for")
    assert f"`{DIGEST}`" in reply
    assert "| `not-toy-only` | fail | `only gridworlds` |" in reply
    # role asked once, before anything is read; the comment posted before the re-post
    assert memory.calls[0] == "role maint"
    assert memory.calls.index("create_comment 7") < len(memory.calls) - 1


def test_existing_judgments_are_merged_judged_checks_replaced() -> None:
    memory = port()
    old = merge_judgments(
        None,
        PATH,
        parse_comment("/judge reconstructible fail old\n/judge broadly-capable pass").judgments,
        "earlier",
        datetime(2027, 2, 1, tzinfo=UTC),
        "e" * 64,
    )
    memory.seed("main", PATH, old)
    run(memory, event("/judge reconstructible pass now it reruns", login="boss"))
    checks = written(memory)["checks"]
    assert checks["broadly-capable"] == {
        "verdict": "pass",
        "by": "earlier",
        "at": "2027-02-01T00:00:00Z",
        "evidence_digest": "e" * 64,
    }
    assert checks["reconstructible"]["by"] == "boss"
    assert checks["reconstructible"]["evidence_digest"] == DIGEST
    assert list(checks) == ["reconstructible", "broadly-capable"]


def test_a_pull_request_in_the_registry_repository_is_judged_on_the_default_branch() -> None:
    # verify reads judgments from the base branch only: a commit on the PR's own branch would
    # not count and would make the PR change judgments.yaml (maintainer-file).
    memory = port(head_repo=REPO, head_branch="alice-attempt")
    outcome, recorder = run(memory, event("/judge reconstructible pass"))
    assert [c[:2] for c in memory.commits] == [("main", PATH)]
    assert "alice-attempt" not in memory.files
    assert outcome.branch == "main"
    assert [pr.number for pr in recorder.reposted] == [7]


@pytest.mark.parametrize("status", [409, 422])
def test_the_branch_moved_once_is_retried_after_reading_again(status: int) -> None:
    memory = port()
    memory.moved, memory.moved_status = 1, status
    outcome, _ = run(memory, event("/judge reconstructible pass"))
    assert [c for c in memory.calls if c.startswith(("file", "put_file"))] == [
        f"file {PATH}@main",
        f"put_file {PATH}@main",
        f"file {PATH}@main",
        f"put_file {PATH}@main",
    ]
    assert len(memory.commits) == 1 and outcome.commit


def test_concurrent_judge_runs_on_one_attempt_all_land() -> None:
    """Item 8 of issue 21: /judge runs are no longer queued per PR (a shared group let any
    later comment cancel a pending one), so several maintainers' /judge runs on one attempt
    may commit at once: each re-reads judgments.yaml and merges into what landed first."""
    memory = port()
    memory.moved = 3  # three other runs committed between this run's reads and its writes
    outcome, _ = run(memory, event("/judge reconstructible pass"))
    assert len(memory.commits) == 1 and outcome.commit
    assert [c for c in memory.calls if c.startswith("put_file")] == [f"put_file {PATH}@main"] * 4


def test_a_branch_moving_on_every_try_is_an_error_and_nothing_is_replied() -> None:
    memory = port()
    memory.moved = PUT_TRIES
    recorder = Recorder()
    with pytest.raises(GitHubError):
        respond(
            memory,
            event("/judge reconstructible pass"),
            recorder.read_attempt,
            recorder.repost,
            NOW,
        )
    assert memory.commits == [] and memory.comments_posted == [] and recorder.reposted == []


def test_another_error_is_not_retried() -> None:
    memory = port()
    memory.moved, memory.moved_status = 1, 500
    with pytest.raises(GitHubError):
        run(memory, event("/judge reconstructible pass"))
    assert [c for c in memory.calls if c.startswith("put_file")] == [f"put_file {PATH}@main"]


@pytest.mark.parametrize("role", ["write", "triage", "read", "none", "custom-reviewer"])
def test_others_get_a_polite_reply_naming_who_may_judge(role: str) -> None:
    memory = port()
    memory.roles["alice"] = role
    outcome, recorder = run(memory, event("/judge reconstructible pass", login="alice"))
    ((_, reply),) = memory.comments_posted
    assert reply.startswith("Thanks for looking, @alice. Only users with the admin or maintain")
    assert REPO in reply and "nothing was recorded" in reply
    assert memory.commits == [] and recorder.read == [] and recorder.reposted == []
    assert not outcome.commit


def test_the_bots_own_comments_are_ignored() -> None:
    memory = port()
    outcome, _ = run(
        memory, event("/judge reconstructible pass", login="github-actions[bot]", user_type="Bot")
    )
    assert outcome.ignored.startswith("a comment by the bot")
    assert memory.calls == []


@pytest.mark.parametrize(
    ("changes", "why"),
    [
        ({"action": "edited"}, "a comment edited, not created"),
        ({"action": "deleted"}, "a comment deleted, not created"),
        ({"is_pull_request": False}, "#7 is an issue, not a pull request"),
        ({"body": "LGTM, thanks!\n```\n/judge reconstructible pass\n```"}, "no command"),
    ],
)
def test_comments_that_are_not_for_the_bot_get_no_reply(changes: dict[str, Any], why: str) -> None:
    memory = port()
    comment = event("/judge reconstructible pass")
    outcome, _ = run(memory, replace(comment, **changes))
    assert why in outcome.ignored
    assert memory.calls == []


def test_help_lists_the_commands_for_anyone() -> None:
    memory = port()
    run(memory, event("/help", login="stranger"))
    ((_, reply),) = memory.comments_posted
    assert "`/judge <check-id> pass|fail|unsettled <note>`" in reply
    assert "maintainers (admin or maintain role)" in reply
    assert "`/help`" in reply
    assert memory.calls == ["create_comment 7"]  # no role asked for /help


def test_an_unknown_command_points_to_help() -> None:
    memory = port()
    run(memory, event("/approve\n/merge now", login="stranger"))
    ((_, reply),) = memory.comments_posted
    assert reply == "Unknown command `/approve`, `/merge`: see `/help` for the commands."


def test_a_check_the_attempt_does_not_need_records_nothing() -> None:
    memory = port()
    run(memory, event("/judge reconstructible pass\n/judge wrapping-within-rules pass"))
    ((_, reply),) = memory.comments_posted
    assert "`wrapping-within-rules` is not a check this attempt needs" in reply
    assert "`reconstructible`, `per-instance-certificate`" in reply
    assert memory.commits == []


def test_a_bad_line_records_nothing_from_the_comment() -> None:
    memory = port()
    outcome, recorder = run(
        memory, event("/judge reconstructible pass\n/judge not-toy-only maybe so")
    )
    ((_, reply),) = memory.comments_posted
    assert "nothing was recorded: some /judge lines do not parse" in reply
    assert "- line 2: `maybe` is not a verdict" in reply
    assert memory.commits == [] and recorder.read == [] and not outcome.commit


@pytest.mark.parametrize(
    ("pr", "attempt", "expected"),
    [
        ({"state": "closed"}, None, "the pull request is closed"),
        ({"base_branch": "other"}, None, "targets `other`, not the default branch `main`"),
        ({}, AttemptAtHead(()), "exactly one attempt folder (found none)"),
        ({}, AttemptAtHead((FOLDER, FOLDER + "2")), "exactly one attempt folder (found `"),
        (
            {},
            AttemptAtHead((FOLDER,), problem="the folder could not be read in full"),
            "could not be read in full",
        ),
    ],
)
def test_pull_requests_that_cannot_be_judged(
    pr: dict[str, Any], attempt: AttemptAtHead | None, expected: str
) -> None:
    memory = port(**pr)
    run(memory, event("/judge reconstructible pass"), Recorder(attempt))
    ((_, reply),) = memory.comments_posted
    assert reply.startswith("@maint: nothing was recorded: ")
    assert expected in reply
    assert memory.commits == []


def test_an_invalid_existing_file_is_not_overwritten() -> None:
    memory = port()
    memory.seed("main", PATH, b"checks: [not, a, mapping]\n")
    with pytest.raises(ClaimsError, match=r"judgments\.yaml on the target branch is not valid"):
        run(memory, event("/judge reconstructible pass"))
    assert memory.commits == []


def test_replies_mention_only_the_commenter_and_carry_no_html() -> None:
    memory = port()
    run(memory, event("/judge reconstructible pass thanks @octocat <img src=x> `rm`"))
    ((_, reply),) = memory.comments_posted
    assert (
        "| `reconstructible` | pass | `thanks @octocat \u2039img src=x\u203a \u2018rm\u2018` |"
        in reply
    )
    assert sanitise_reply("@maint and @other <b>x</b> `@kept <i>`", "maint") == (
        "@maint and @\N{WORD JOINER}other &lt;b&gt;x&lt;/b&gt; `@kept <i>`"
    )


def test_the_reader_gives_the_digest_claims_verify_prints(
    make_registry: RegistryFactory, run_claims: Callable[..., Any]
) -> None:
    """git_attempt_reader over a real registry whose attempt PR is open: the folder, the
    evidence digest of the head's files (judgments.yaml left out) and the required checks."""
    built = make_registry(AttemptSpec(), run="open")
    head = built.repo.head.commit.hexsha
    reader = git_attempt_reader(built.root, "main")
    found = reader(pull(head_sha=head))
    files = {name: hashlib.sha256(data).hexdigest() for name, data in built.files.items()}
    assert found == AttemptAtHead((FOLDER,), evidence_digest(files), REQUIRED)
    rules = load_registry(FolderTree(built.root)).rules
    assert set(REQUIRED) == set(rules.checks_all)
    verified = run_claims("verify", "--registry", built.root, "--base-ref", "main", "--head", head)
    assert verified.attempt()["evidence_digest"] == found.digest


def test_the_reader_says_how_to_fetch_a_missing_head(make_registry: RegistryFactory) -> None:
    built = make_registry(AttemptSpec(), run="open")
    reader = git_attempt_reader(built.root, "main")
    with pytest.raises(ClaimsError) as raised:
        reader(pull(head_sha="b" * 40))
    assert (
        raised.value.hint
        == "fetch the pull request's head first: git fetch origin refs/pull/7/head"
    )


@pytest.mark.parametrize(
    ("shown", "why"),
    [
        ([], "no verdict before the comment"),
        ([verdict_comment("e" * 64)], "the head was pushed after the verdict the maintainer saw"),
        (
            [verdict_comment("e" * 64), verdict_comment(DIGEST, COMMENT_ID + 1)],
            "the head's verdict came only after the comment",
        ),
        ([verdict_comment(DIGEST, author="mallory", kind="User")], "a person copied the comment"),
    ],
)
def test_a_judgment_binds_only_evidence_the_verdict_before_the_comment_showed(
    shown: list[CommentRef], why: str
) -> None:
    """Attack: the filer watches the PR and, as soon as a maintainer comments /judge on what
    the bot's verdict showed, pushes other evidence; the judge job then read the new head and
    recorded the maintainer's judgment bound to evidence they never saw."""
    memory = port()
    memory.existing = [(7, comment) for comment in shown]
    outcome, recorder = run(memory, event("/judge reconstructible pass"))
    assert memory.commits == [] and not outcome.commit and recorder.reposted == [], why
    ((_, reply),) = memory.comments_posted
    assert reply.startswith("@maint: nothing was recorded: the evidence at the pull request's")
    assert f"`{DIGEST}`" in reply


def test_a_flood_of_unknown_commands_gets_a_short_reply() -> None:
    """Attack (anyone): a comment of 65,536 characters of distinct `/word` lines made a reply
    longer than GitHub takes (65,536 characters): the POST was refused and the job failed."""
    words = [f"/w{i}" for i in range(12_000)]
    body = "\n".join(words)[:65_536]
    memory = port()
    run(memory, event(body, login="stranger"))
    ((_, reply),) = memory.comments_posted
    assert len(reply) < 2_000
    assert reply.startswith("Unknown command `/w0`, `/w1`,")
    listed = len(parse_comment(body).unknown)
    assert listed > 9_000
    assert reply.endswith(f"`/w9` and {listed - 10} more: see `/help` for the commands.")


PLANTED = "e" * 64  # the digest of evidence no verdict showed, which the filer will push
# Folder names a filer chose (printable ASCII, so the reader lists them): one holds the verdict
# marker, the other an evidence line with the planted digest.
PLANTING = (
    f"attempts/market-03/x1/{MARKER}",
    f"attempts/market-03/y1/<!-- claims-bot:evidence {PLANTED} -->",
)


def test_a_refusal_quoting_planted_folder_names_is_no_verdict_comment() -> None:
    """Item 14 of issue 21: the /judge refusal, posted by the same bot, quoted the folder
    names raw in code spans; as the newest bot comment holding the marker it became "the
    latest verdict", and a maintainer's retried /judge bound to the planted digest. Now only
    a comment opening with the verdict header counts, and replies neutralise `<` `>`."""
    # 1. The head files two folders; a maintainer's /judge is refused, quoting their names.
    memory = port()
    run(memory, event("/judge reconstructible pass"), Recorder(AttemptAtHead(PLANTING)))
    ((_, refusal),) = memory.comments_posted
    assert refusal.startswith("@maint: nothing was recorded: /judge needs a pull request")
    assert "claims-bot:verdict" in refusal and PLANTED in refusal  # the names are quoted
    assert "<" not in refusal and ">" not in refusal
    # 2. The refusal stands on the PR after the true verdict (id 400); the filer pushes the
    # evidence whose digest was planted, and the maintainer judges again: nothing is recorded.
    refusal_comment = CommentRef(450, BOT, "Bot", refusal)
    memory = port()
    memory.existing.append((7, refusal_comment))
    planted_head = Recorder(AttemptAtHead((FOLDER,), PLANTED, REQUIRED))
    outcome, _ = run(memory, event("/judge reconstructible pass"), planted_head)
    assert memory.commits == [] and not outcome.commit
    # 3. With the evidence the verdict showed at the head, the judgment binds to its digest.
    memory = port()
    memory.existing.append((7, refusal_comment))
    outcome, _ = run(memory, event("/judge reconstructible pass"))
    assert outcome.commit
    assert written(memory)["checks"]["reconstructible"]["evidence_digest"] == DIGEST


@pytest.mark.parametrize(
    "body",
    [
        # the old reply, quoting the names raw (what a bot echoing filer text would post)
        f"@maint: nothing was recorded: found `{PLANTING[0]}`, `{PLANTING[1]}`",
        # the marker and a header, but not as the comment's first lines
        f"Unknown command\n{MARKER}\n<!-- claims-bot:verdict-key {'0' * 16} -->\n"
        f"<!-- claims-bot:evidence {PLANTED} -->\n",
        # the marker first, but no verdict-key line after it
        f"{MARKER}\n<!-- claims-bot:evidence {PLANTED} -->\n",
    ],
)
def test_only_the_verdict_header_is_read_as_a_verdict(body: str) -> None:
    """Decided once, read from one place: a bot comment holding the marker anywhere but as
    the verdict header (first line the marker, second the key, then evidence lines) is no
    verdict, however new."""
    memory = port()
    memory.existing.append((7, CommentRef(450, BOT, "Bot", body)))
    outcome, _ = run(memory, event("/judge reconstructible pass"))
    assert written(memory)["checks"]["reconstructible"]["evidence_digest"] == DIGEST
    memory = port()
    memory.existing.append((7, CommentRef(450, BOT, "Bot", body)))
    planted_head = Recorder(AttemptAtHead((FOLDER,), PLANTED, REQUIRED))
    outcome, _ = run(memory, event("/judge reconstructible pass"), planted_head)
    assert memory.commits == [] and not outcome.commit


@settings(max_examples=200, deadline=None)
@example(list(PLANTING), f"{MARKER} x", f"{MARKER}")
@given(
    st.lists(st.text(max_size=140), min_size=2, max_size=3),
    st.text(max_size=300),
    st.text(max_size=100),
)
def test_no_reply_can_carry_a_marker_whatever_the_filer_names(
    folders: list[str], note: str, problem: str
) -> None:
    """Whatever folder names, problem text or note reach a reply, it holds no `<!--` and
    never reads as a verdict comment: the refusal quoting the folders, the refusal quoting a
    problem, and the record quoting the note."""
    bodies = []
    memory = port()
    run(memory, event("/judge reconstructible pass"), Recorder(AttemptAtHead(tuple(folders))))
    memory_problem = port()
    run(
        memory_problem,
        event("/judge reconstructible pass"),
        Recorder(AttemptAtHead((folders[0],), DIGEST, REQUIRED, problem=problem or "x")),
    )
    memory_note = port()
    line = " ".join(note.split()) or "n"
    run(memory_note, event(f"/judge reconstructible fail {line}"))
    for used in (memory, memory_problem, memory_note):
        bodies += [body for _, body in used.comments_posted]
    assert len(bodies) == 3
    for body in bodies:
        assert "<!--" not in body, body
        assert read_verdict_header(body) is None

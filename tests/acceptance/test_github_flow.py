"""The GitHub flow end to end, over HTTP (issue 9's acceptance).

GitHub's own event payloads (the octokit/webhooks examples in tests/github/events/) drive the
entry points the workflows call, in the order the workflows call them; the real PyGithub
gateway talks to the fake GitHub of tests/github/fakehub.py; git is a real registry repository
the test builds; wrapped attempts are rerun in the real sandbox.

    check.yml    claims verify --base-ref main --head SHA      (the PR's own, untrusted run)
    verify.yml   locate (workflow_run of a fork) -> plan -> rerun (no token) -> github verify
                 -> publish (the report read back with verify_report_from_json)
    judge.yml    /judge from a maintainer -> judgments.yaml on main -> verify.yml dispatched
    verify.yml   again, for the dispatched PR: the verdict re-posted
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import git
import pytest

import bot.edges.sandbox
from bot.app.api import VerifyReport
from bot.app.report_json import read_report, verify_report_from_json
from bot.faces.cli import main
from bot.faces.demo.git_registry import WEB_FLOW_COMMITTER
from bot.faces.demo.specimen import AttemptSpec
from tests.github.fakehub import FakeHub
from tests.support import (
    Built,
    RegistryFactory,
    command_token,
    connect_without_waits,
    freeze_landed_by,
    rewrite_alices_attempt,
    seed_released,
)

EVENTS = Path(__file__).resolve().parents[1] / "github" / "events"
MAINTAINER = "maint"
FILER = "alice"  # the fork's owner, and the author of alice-lab's merged pull requests


@pytest.fixture
def hub(fakehub: FakeHub, monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> FakeHub:
    """The fake GitHub as the workflows' environment names it; the gateway without pauses."""
    monkeypatch.setenv("GITHUB_API_URL", fakehub.base_url)
    monkeypatch.setenv("GITHUB_REPOSITORY", fakehub.repository)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(tmp_path / "step-summary.md"))
    connect_without_waits(monkeypatch)
    fakehub.repo.roles[MAINTAINER] = "maintain"
    fakehub.repo.roles[FILER] = "read"
    return fakehub


@pytest.fixture
def claims(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> Callable[..., tuple[int, str]]:
    """Run one `claims` command in-process as a workflow step would: with the job's token, or
    (token=False) in a job holding none. The token holds the permissions of the job that runs
    the command (`command_token`): the fake refuses a call outside them. Returns the exit code
    and stdout."""

    def run(*argv: object, token: bool = True) -> tuple[int, str]:
        if token:
            monkeypatch.setenv("GITHUB_TOKEN", command_token(argv))
        else:
            monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        code = main([str(arg) for arg in argv])
        out = capsys.readouterr()
        return code, out.out + out.err

    return run


def iso(seconds: int) -> str:
    return datetime.fromtimestamp(seconds, UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def merged_pulls_on_github(hub: FakeHub, repo: git.Repo, author: str = FILER) -> None:
    """GitHub's view of main's history: every merge commit GitHub made (its web flow is the
    committer) on main's first-parent line is the merge of a pull request by `author`, merged
    when the commit was made. A merge commit someone else made merged no pull request."""
    for number, commit in enumerate(repo.iter_commits("main", first_parent=True), start=100):
        if len(commit.parents) == 2 and commit.committer.email == "noreply@github.com":
            hub.repo.add_pull(
                number,
                author,
                commit.parents[1].hexsha,
                state="closed",
                merged_at=iso(commit.committed_date),
                merge_commit_sha=commit.hexsha,
            )
            hub.repo.commit_pulls[commit.hexsha] = [number]


def land_on_main(repo: git.Repo, scratch: Path) -> Callable[[dict[str, Any]], None]:
    """What GitHub does with a contents-API commit, mirrored into the registry's git
    repository: a commit on main by GitHub's web flow (the checked-out branch is untouched)."""

    def land(commit: dict[str, Any]) -> None:
        index = scratch / "index"
        index.unlink(missing_ok=True)
        with repo.git.custom_environment(GIT_INDEX_FILE=str(index), **WEB_FLOW_COMMITTER):
            repo.git.read_tree("main")
            for path, content in commit["files"].items():
                blob = scratch / "blob"
                blob.write_bytes(content)
                sha = repo.git.hash_object("-w", str(blob))
                repo.git.update_index("--add", "--cacheinfo", f"100644,{sha},{path}")
            tree = repo.git.write_tree()
            made = repo.git.commit_tree(tree, "-p", "main", "-m", commit["message"])
        repo.git.update_ref("refs/heads/main", made)

    return land


def workflow_run_event(tmp_path: Path, hub: FakeHub, head: str, fork: str, branch: str) -> Path:
    """octokit's workflow_run example (a fork's run of `check`), for this repository and head."""
    event = json.loads((EVENTS / "workflow_run.completed.fork.json").read_text())
    run = event["workflow_run"]
    run.update(head_sha=head, head_branch=branch)
    run["head_repository"].update(full_name=fork)
    run["head_repository"]["owner"].update(login=fork.split("/")[0])
    run["repository"].update(full_name=hub.repository)
    event["repository"].update(full_name=hub.repository, default_branch="main")
    path = tmp_path / "workflow_run.json"
    path.write_text(json.dumps(event))
    return path


def comment_event(tmp_path: Path, hub: FakeHub, number: int, login: str, body: str) -> Path:
    """octokit's issue_comment example, on pull request `number`, by `login`."""
    event = json.loads((EVENTS / "issue_comment.created.pull_request.json").read_text())
    event["issue"].update(number=number)
    event["comment"].update(body=body)
    event["comment"]["user"].update(login=login, type="User")
    event["repository"].update(full_name=hub.repository, default_branch="main")
    path = tmp_path / f"comment-{login}.json"
    path.write_text(json.dumps(event))
    return path


def located(output: str) -> dict[str, str]:
    return dict(line.split("=", 1) for line in output.splitlines() if "=" in line)


def verify_and_publish(
    claims: Callable[..., tuple[int, str]],
    built: Built,
    tmp_path: Path,
    found: dict[str, str],
    rerun_cache: Path | None = None,
) -> VerifyReport:
    """verify.yml's `verify` job, then its `publish` job (the report read back from JSON)."""
    report = tmp_path / "report.json"
    report.unlink(missing_ok=True)
    pr, head = found["pr"], found["head_sha"]
    argv: list[object] = ["github", "verify", "--pr", pr, "--head", head]
    argv += ["--base-ref", found["base_ref"], "--registry", built.root, "--json", report]
    if rerun_cache is not None:
        argv += ["--rerun-cache", rerun_cache]
    code, out = claims(*argv)
    assert code in (0, 1), out
    posted = verify_report_from_json(read_report(report.read_bytes()))
    code, out = claims("github", "publish", report, "--pr", pr, "--head", head)
    assert code == 0, out
    return posted


@pytest.mark.skipif(
    bot.edges.sandbox.isolation() is not None,
    reason=f"no network isolation here: {bot.edges.sandbox.isolation()}",
)
def test_a_forks_pull_request_from_check_to_judgment(
    make_registry: RegistryFactory,
    hub: FakeHub,
    claims: Callable[..., tuple[int, str]],
    tmp_path: Path,
) -> None:
    built = make_registry(AttemptSpec(kind="wrapped"), run="open")
    repo: git.Repo = built.repo
    head = repo.head.commit.hexsha
    folder = built.attempt.relative_to(built.root).as_posix()
    merged_pulls_on_github(hub, repo)
    hub.repo.commit_files("main", {})  # the default branch the contents API writes to
    hub.repo.on_commit = land_on_main(repo, tmp_path)
    hub.repo.add_pull(7, FILER, head, head_branch="attempt", head_repo=f"{FILER}/registry")

    # check.yml: the PR's own run. Its artifact names a PR; nothing downstream reads it.
    code, out = claims("verify", "--registry", built.root, "--base-ref", "main", "--head", head)
    assert code in (0, 1), out
    (tmp_path / "pr.json").write_text(json.dumps({"pr": 99, "head_sha": "0" * 40}))

    # verify.yml, locate: the PR from the API, by the fork's owner, branch and head SHA.
    event = workflow_run_event(tmp_path, hub, head, f"{FILER}/registry", "attempt")
    code, out = claims("github", "locate", "--event", event)
    assert code == 0, out
    found = located(out)
    assert found == {"found": "true", "pr": "7", "head_sha": head, "base_ref": "main"}
    lookup = hub.calls("GET", r"/repos/acme/registry/pulls")[-1]
    assert lookup.query["head"] == f"{FILER}:attempt"

    # plan: one rerun job for the wrapped attempt.
    code, out = claims(
        "github", "plan", "--base-ref", "main", "--head", head, "--registry", built.root
    )
    assert code == 0, out
    assert json.loads(out) == {"include": [{"attempt": folder}]}

    # rerun: a job without a token; the adapter runs in the sandbox; only records come out.
    released, reruns = tmp_path / "released", tmp_path / "reruns"
    seed_released(released, built.files)
    code, out = claims(
        "verify", "--registry", built.root, "--base-ref", "main", "--head", head,
        "--rerun-adapters", "--rerun-cache", reruns, "--released-cache", released,
        built.root / folder, token=False,
    )  # fmt: skip
    assert code == 0, out
    assert any(reruns.iterdir())

    # verify + publish: the verdict, posted on the fake GitHub.
    first = verify_and_publish(claims, built, tmp_path, found, reruns)
    (verdict,) = first.attempts
    assert verdict.evidence == "valid" and not first.pr_problems
    assert verdict.status == "pending-judgment", [
        (r.code, r.message) for r in verdict.qualification
    ]
    assert "adapter-not-rerun" not in {r.code for r in verdict.findings}
    runs = {run.name: run for run in hub.repo.check_runs.values()}
    assert runs[f"registry: #7 {folder}"].head_sha == head
    assert runs[f"registry: #7 {folder}"].conclusion == "neutral"
    assert runs["registry: pull request"].conclusion == "success"
    (comment,) = hub.repo.comments_on(7)
    assert "<!-- claims-bot:verdict -->" in comment.body
    assert sorted(hub.repo.labels[7]) == ["evidence:valid", "verdict:pending-judgment"]

    # judge.yml: someone else's /judge is refused; a maintainer's is recorded on main.
    code, out = claims(
        "github", "judge", "--registry", built.root,
        "--event", comment_event(tmp_path, hub, 7, FILER, "/judge reconstructible pass mine"),
    )  # fmt: skip
    assert code == 0, out
    assert "Only users with the admin or maintain role" in hub.repo.comments_on(7)[-1].body
    assert hub.repo.commits[-1]["files"] == {}  # nothing written: the seed commit only
    checks = verdict.checks
    body = "Reviewed the rerun.\r\n" + "".join(
        f"/judge {check} pass looked at it\r\n" for check in checks
    )
    code, out = claims(
        "github", "judge", "--registry", built.root,
        "--event", comment_event(tmp_path, hub, 7, MAINTAINER, body),
    )  # fmt: skip
    assert code == 0, out
    written = hub.repo.commits[-1]
    assert list(written["files"]) == [f"{folder}/judgments.yaml"]
    assert (
        repo.git.show(f"main:{folder}/judgments.yaml").encode() + b"\n"
        == (written["files"][f"{folder}/judgments.yaml"])
    )
    assert f"@{MAINTAINER} recorded {len(checks)} judgment(s)" in hub.repo.comments_on(7)[-1].body
    assert hub.repo.dispatches == [
        {"workflow": "verify.yml", "ref": "main", "inputs": {"pr": "7"}},
        {"workflow": "pages.yml", "ref": "main", "inputs": {}},  # the site, with the judgment
    ]

    # verify.yml again, dispatched with the PR's number only: the verdict re-posted.
    code, out = claims("github", "locate", "--pr", "7", "--default-branch", "main")
    assert code == 0, out
    assert located(out) == found
    second = verify_and_publish(claims, built, tmp_path, found, reruns)
    (judged,) = second.attempts
    assert judged.evidence == "valid"
    assert judged.status == "qualifying", [r.code for r in judged.qualification]
    verdict_comments = [c for c in hub.repo.comments_on(7) if "claims-bot:verdict" in c.body]
    assert len(verdict_comments) == 2  # the verdict changed: a new comment, history kept
    latest = hub.repo.runs_named(f"registry: #7 {folder}")[-1]
    assert latest.conclusion == "success"
    assert sorted(hub.repo.labels[7]) == ["evidence:valid", "verdict:qualifying"]


def test_a_pr_rewriting_another_filers_merged_attempt_is_refused_over_http(
    make_registry: RegistryFactory,
    hub: FakeHub,
    claims: Callable[..., tuple[int, str]],
    tmp_path: Path,
) -> None:
    built = make_registry()
    head = rewrite_alices_attempt(built)  # a verdict flipped, the score table recomputed
    merged_pulls_on_github(hub, built.repo)
    hub.repo.add_pull(40, "mallory", head, head_branch="rewrite", head_repo="mallory/registry")
    event = workflow_run_event(tmp_path, hub, head, "mallory/registry", "rewrite")
    code, out = claims("github", "locate", "--event", event)
    assert code == 0, out
    report = verify_and_publish(claims, built, tmp_path, located(out))
    codes = {p.code for p in report.pr_problems if p.severity != "notice"}
    assert codes == {"not-submitter", "merged-evidence-changed"}
    (verdict,) = report.attempts
    assert verdict.evidence == "invalid"
    folder = built.attempt.relative_to(built.root).as_posix()
    assert hub.repo.runs_named(f"registry: #40 {folder}")[-1].conclusion == "failure"
    assert hub.repo.runs_named("registry: pull request")[-1].conclusion == "failure"
    assert "evidence:invalid" in hub.repo.labels[40]


def test_a_fast_forwarded_filer_merge_carrying_a_freeze_is_refused_over_http(
    make_registry: RegistryFactory,
    hub: FakeHub,
    claims: Callable[..., tuple[int, str]],
    tmp_path: Path,
) -> None:
    built, landing, head = freeze_landed_by(make_registry, "filer-merge")
    merged_pulls_on_github(hub, built.repo)
    assert landing not in hub.repo.commit_pulls  # GitHub merged no PR into that commit
    hub.repo.add_pull(48, FILER, head, head_branch="run", head_repo=f"{FILER}/registry")
    event = workflow_run_event(tmp_path, hub, head, f"{FILER}/registry", "run")
    code, out = claims("github", "locate", "--event", event)
    assert code == 0, out
    report = verify_and_publish(claims, built, tmp_path, located(out))
    (verdict,) = report.attempts
    assert {r.code for r in verdict.findings if r.severity != "notice"} == {"freeze-order"}
    assert verdict.evidence == "invalid"
    asked = [r.path for r in hub.calls("GET", r"/repos/acme/registry/commits/.*/pulls")]
    assert f"/repos/acme/registry/commits/{landing}/pulls" in asked


# ---- pins: fetched by a job without a token, counted by the verify job (issue 22) ----------------

MB = 1_000_000


def _invented_raw_log(url: str) -> Callable[[dict[str, bytes]], None]:
    """The issue's filing: a "5 MB" raw log pinned by an invented sha256, with 1 MB of `a` and
    1 MB of `b` as its excerpts. Valid and qualifying while nobody fetched the pin."""

    def change(files: dict[str, bytes]) -> None:
        del files["raw-log/harness.log"]
        files["raw-log/head"], files["raw-log/tail"] = b"a" * MB, b"b" * MB
        text = files["attempt.yaml"].decode()
        block = text.split("raw_log:\n", 1)[1].split("assumed_access:", 1)[0]
        invented = f"  sha256: {'e' * 64}\n  url: {url}\n  bytes: {5 * MB}\n"
        files["attempt.yaml"] = text.replace(block, invented).encode()

    return change


def test_an_invented_raw_log_hash_fails_the_pull_requests_check_naming_the_pin(
    make_registry: RegistryFactory,
    hub: FakeHub,
    claims: Callable[..., tuple[int, str]],
    tmp_path: Path,
    httpserver: Any,
    local_fetches: Any,
) -> None:
    served = b"a" * MB + b"x" * (3 * MB) + b"b" * MB  # the excerpts agree; the hash cannot
    httpserver.expect_request("/harness.log").respond_with_data(served)
    url = httpserver.url_for("/harness.log")
    built = make_registry(change_in_run=_invented_raw_log(url), run="open")
    head = built.repo.head.commit.hexsha
    folder = built.attempt.relative_to(built.root).as_posix()
    merged_pulls_on_github(hub, built.repo)
    hub.repo.add_pull(8, FILER, head, head_branch="attempt", head_repo=f"{FILER}/registry")
    verify = ["github", "verify", "--pr", "8", "--head", head, "--base-ref", "main"]
    verify += ["--registry", built.root, "--json", tmp_path / "report.json"]

    # Without the pins fetched, the invented hash passes (what the issue found).
    code, out = claims(*verify)
    assert code == 0, out

    # verify.yml's pins job: no token; it fetches the pin and records what was served.
    pins = tmp_path / "pins"
    code, out = claims(
        "verify", "--registry", built.root, "--base-ref", "main", "--head", head,
        "--fetch-raw-logs", "--pin-results", pins, "--quiet", token=False,
    )  # fmt: skip
    assert code == 1, out
    assert len(httpserver.log) == 1
    (record,) = pins.glob("*.json")
    assert json.loads(record.read_text())["served_sha256"] == hashlib.sha256(served).hexdigest()

    # The verify job counts the record, fetching nothing; publish posts the failing check.
    code, out = claims(*verify, "--pin-results", pins)
    assert code == 1, out
    assert len(httpserver.log) == 1
    report = verify_report_from_json(read_report((tmp_path / "report.json").read_bytes()))
    (verdict,) = report.attempts
    assert verdict.evidence == "invalid"
    # The merge-moment notices (docs/spec.md §10.4) come with any pull request this registry's
    # dates put ahead of the clock; the pin's finding and notice are what this test is about.
    merge_notices = {"merge-by-window-close", "merge-after-clock"}
    codes = {f.code for f in verdict.findings} - merge_notices
    assert codes == {"raw-log-hash-mismatch", "pin-fetched"}
    code, out = claims("github", "publish", tmp_path / "report.json", "--pr", 8, "--head", head)
    assert code == 0, out
    run = hub.repo.runs_named(f"registry: #8 {folder}")[-1]
    assert run.conclusion == "failure"
    assert hub.repo.runs_named("registry: pull request")[-1].conclusion == "failure"
    summary = (run.summary or "").replace("\\", "")  # Markdown's escapes
    assert f"raw_log.url has sha256 {hashlib.sha256(served).hexdigest()}" in summary
    assert f"raw_log.url {url} fetched: {5 * MB} bytes" in summary
    assert any(a["title"] == "raw-log-hash-mismatch" for a in run.annotations)


def test_a_pin_the_pins_job_did_not_record_fails_the_check_naming_it(
    make_registry: RegistryFactory,
    hub: FakeHub,
    claims: Callable[..., tuple[int, str]],
    tmp_path: Path,
) -> None:
    """The pins job failed (no artifact): the verify job counts nothing, and the check fails
    with pin-not-fetched for the pin, never a silent pass."""
    built = make_registry(run="open")
    head = built.repo.head.commit.hexsha
    folder = built.attempt.relative_to(built.root).as_posix()
    merged_pulls_on_github(hub, built.repo)
    hub.repo.add_pull(9, FILER, head, head_branch="attempt", head_repo=f"{FILER}/registry")
    empty = tmp_path / "pin-results"
    empty.mkdir()
    report = tmp_path / "report.json"
    code, out = claims(
        "github", "verify", "--pr", 9, "--head", head, "--base-ref", "main",
        "--registry", built.root, "--json", report, "--pin-results", empty,
    )  # fmt: skip
    assert code == 1, out
    (verdict,) = verify_report_from_json(read_report(report.read_bytes())).attempts
    (finding,) = [f for f in verdict.findings if f.severity == "error"]
    assert finding.code == "pin-not-fetched"
    assert finding.message.startswith(
        "raw_log.url https://evidence.example.org/alice-lab/monitor-v1/harness.log was not"
        " fetched: the pin job recorded nothing for it"
    )
    code, out = claims("github", "publish", report, "--pr", 9, "--head", head)
    assert code == 0, out
    run = hub.repo.runs_named(f"registry: #9 {folder}")[-1]
    assert run.conclusion == "failure"
    assert any(a["title"] == "pin-not-fetched" for a in run.annotations)

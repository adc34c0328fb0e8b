"""`claims github locate | plan | judge` end to end, driven by the octokit-derived event
fixtures (tests/github/events/), with an in-memory port standing in for GitHub (the HTTP
gateway's own end-to-end tests run against the fake server)."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.app.report_json import verify_report_from_json
from bot.edges.github.port import CommentRef, PullRequestInfo
from bot.faces.cli import main
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.github.publish import build_publication
from tests.support import RegistryFactory
from tests.unit.faces.github.memory_port import MemoryPort

EVENTS = Path(__file__).resolve().parents[1] / "github" / "events"
FORK_SHA = "3484a3fb816e0859fd6e1cea078d76385ff50625"
FOLDER = "attempts/market-03/alice-lab/monitor-v1"


@pytest.fixture(autouse=True)
def _no_token(monkeypatch: pytest.MonkeyPatch) -> None:
    for name in ("GITHUB_TOKEN", "GITHUB_REPOSITORY", "GITHUB_EVENT_PATH", "GITHUB_API_URL"):
        monkeypatch.delenv(name, raising=False)


def _pr(number: int, head_sha: str, **changes: Any) -> PullRequestInfo:
    pr = PullRequestInfo(
        number,
        "Codertocat",
        head_sha,
        "Codertocat/octo-repo",
        "changes",
        "main",
        "open",
        False,
        None,
        None,
    )
    return replace(pr, **changes)


def _connect_to(monkeypatch: pytest.MonkeyPatch, memory: MemoryPort) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "t")
    monkeypatch.setattr("bot.faces.github.cli._connect", lambda repository: memory)


def test_locate_prints_the_github_output_lines(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = MemoryPort(repository="octo-org/octo-repo")
    memory.pulls[5] = _pr(5, FORK_SHA, base_branch="master")  # octokit's default branch
    _connect_to(monkeypatch, memory)
    code = main(["github", "locate", "--event", str(EVENTS / "workflow_run.completed.fork.json")])
    assert (code, capsys.readouterr().out) == (
        0,
        f"found=true\npr=5\nhead_sha={FORK_SHA}\nbase_ref=master\n",
    )


def test_locate_a_pull_request_into_another_branch_prints_found_false(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """The event's repository names its default branch (master); a PR into main is not
    posted to (attack: open against another branch, get a green check, retarget)."""
    memory = MemoryPort(repository="octo-org/octo-repo")
    memory.pulls[5] = _pr(5, FORK_SHA)
    _connect_to(monkeypatch, memory)
    code = main(["github", "locate", "--event", str(EVENTS / "workflow_run.completed.fork.json")])
    captured = capsys.readouterr()
    assert (code, captured.out) == (0, "found=false\n")  # a normal outcome: the later steps skip
    assert "no open pull request into master has the head Codertocat:changes" in captured.err


def test_locate_by_number_needs_the_default_branch(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = MemoryPort(repository="octo-org/octo-repo")
    memory.pulls[5] = _pr(5, FORK_SHA, base_branch="legacy")
    _connect_to(monkeypatch, memory)
    monkeypatch.setenv("GITHUB_REPOSITORY", "octo-org/octo-repo")
    assert main(["github", "locate", "--pr", "5"]) == 2
    assert "--pr needs --default-branch" in capsys.readouterr().err
    assert main(["github", "locate", "--pr", "5", "--default-branch", "main"]) == 0
    captured = capsys.readouterr()
    assert captured.out == "found=false\n"
    assert "targets legacy, not the default branch main" in captured.err
    memory.pulls[5] = _pr(5, FORK_SHA)
    assert main(["github", "locate", "--pr", "5", "--default-branch", "main"]) == 0
    assert capsys.readouterr().out == f"found=true\npr=5\nhead_sha={FORK_SHA}\nbase_ref=main\n"


def test_locate_finds_nothing_for_a_stale_head(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = MemoryPort(repository="octo-org/octo-repo")
    memory.pulls[5] = _pr(5, "0" * 40)
    _connect_to(monkeypatch, memory)
    code = main(["github", "locate", "--event", str(EVENTS / "workflow_run.completed.fork.json")])
    captured = capsys.readouterr()
    assert (code, captured.out) == (0, "found=false\n")
    assert "no pull request to post to: no open pull request" in captured.err


def test_locate_without_a_token_says_what_it_would_do(capsys: pytest.CaptureFixture[str]) -> None:
    code = main(["github", "locate", "--event", str(EVENTS / "workflow_run.completed.fork.json")])
    captured = capsys.readouterr()
    assert (code, captured.out) == (1, "")
    assert captured.err.startswith(
        "no GITHUB_TOKEN: would look up the open pull request of octo-org/octo-repo with head"
        f" Codertocat:changes at {FORK_SHA}"
    )


def test_locate_refuses_a_bad_payload(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    data = json.loads((EVENTS / "workflow_run.completed.fork.json").read_text())
    data["workflow_run"]["head_branch"] = "x\n::set-output name=pr::1"
    event = tmp_path / "event.json"
    event.write_text(json.dumps(data))
    assert main(["github", "locate", "--event", str(event)]) == 2
    err = capsys.readouterr().err
    assert err.startswith("error: event payload: workflow_run.head_branch: not a valid branch")
    assert "Traceback" not in err


def test_locate_refuses_an_event_of_another_repository(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    monkeypatch.setenv("GITHUB_REPOSITORY", "other/repo")
    code = main(["github", "locate", "--event", str(EVENTS / "workflow_run.completed.fork.json")])
    assert code == 2
    assert "the event is for octo-org/octo-repo, not for other/repo" in capsys.readouterr().err


def test_plan_prints_the_matrix(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    spec = AttemptSpec(kind="wrapped")
    built = make_registry(spec, run="open")
    head = built.repo.head.commit.hexsha
    code = main(
        ["github", "plan", "--registry", str(built.root), "--base-ref", "main", "--head", head]
    )
    assert code == 0
    assert capsys.readouterr().out == (
        '{"include":[{"attempt":"attempts/market-03/alice-lab/monitor-v1"}]}\n'
    )
    code = main(
        ["github", "plan", "--registry", str(built.root), "--base-ref", "main", "--head", "main"]
    )
    assert (code, capsys.readouterr().out) == (0, '{"include":[]}\n')


def _comment_event(tmp_path: Path, **changes: Any) -> Path:
    data = json.loads((EVENTS / "issue_comment.created.pull_request.json").read_text())
    data["repository"]["default_branch"] = "main"
    for key, value in changes.items():
        data["comment"][key] = value
    event = tmp_path / "comment.json"
    event.write_text(json.dumps(data))
    return event


def test_judge_from_a_maintainer_end_to_end(
    make_registry: RegistryFactory,
    monkeypatch: pytest.MonkeyPatch,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    built = make_registry(AttemptSpec(), run="open")
    head = built.repo.head.commit.hexsha
    memory = MemoryPort(repository="Codertocat/Hello-World", roles={"Codertocat": "admin"})
    memory.pulls[1] = _pr(1, head, head_repo="alice/Hello-World")
    argv = ["--registry", str(built.root), "--base-ref", "main", "--head", head]
    assert main(["verify", *argv, "--json", str(tmp_path / "r.json")]) in (0, 1)
    report = json.loads((tmp_path / "r.json").read_text())
    digest = report["attempts"][0]["evidence_digest"]
    # the bot's verdict for this head, posted before the /judge comment (a smaller id)
    shown = build_publication(verify_report_from_json(report), head).comment
    memory.existing.append((1, CommentRef(1, "github-actions[bot]", "Bot", shown)))
    _connect_to(monkeypatch, memory)
    code = main(
        ["github", "judge", "--event", str(_comment_event(tmp_path)), "--registry", str(built.root)]
    )
    assert code == 0
    ((branch, path, content, _),) = memory.commits
    assert (branch, path) == ("main", f"{FOLDER}/judgments.yaml")
    checks = yaml.safe_load(content)["checks"]
    assert {k: v["verdict"] for k, v in checks.items()} == {
        "reconstructible": "pass",
        "not-toy-only": "fail",
    }
    assert {v["evidence_digest"] for v in checks.values()} == {digest}
    ((number, reply),) = memory.comments_posted
    assert number == 1 and reply.startswith("@Codertocat recorded 2 judgment(s)")
    # the verdict is re-posted by the verify workflow, started for this pull request; then the
    # site is rebuilt (the commit, made with the job's token, starts no push workflow)
    assert memory.dispatches == [("verify.yml", "main", {"pr": "1"}), ("pages.yml", "main", {})]
    out = capsys.readouterr().out
    assert "re-post: started verify.yml for #1 on main" in out
    assert "site: started pages.yml on main" in out


def test_judge_from_someone_else_is_refused(
    make_registry: RegistryFactory, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    memory = MemoryPort(repository="Codertocat/Hello-World", roles={"Codertocat": "write"})
    memory.pulls[1] = _pr(1, "a" * 40)
    _connect_to(monkeypatch, memory)
    assert main(["github", "judge", "--event", str(_comment_event(tmp_path))]) == 0
    assert memory.commits == []
    ((_, reply),) = memory.comments_posted
    assert "Only users with the admin or maintain role on Codertocat/Hello-World" in reply


def test_judge_without_a_token_prints_what_it_would_write_and_reply(
    make_registry: RegistryFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry(AttemptSpec(), run="open")
    head = built.repo.head.commit.hexsha
    code = main(
        [
            "github",
            "judge",
            "--event",
            str(_comment_event(tmp_path)),
            "--registry",
            str(built.root),
            "--head",
            head,
        ]
    )
    out = capsys.readouterr().out
    assert code == 0
    assert "no GITHUB_TOKEN: Codertocat's role is not asked; assumed maintain" in out
    assert f"no GITHUB_TOKEN: would commit {FOLDER}/judgments.yaml on main" in out
    assert "not-toy-only:\n    verdict: fail" in out
    assert "no GITHUB_TOKEN: would reply on #1:\n@Codertocat recorded 2 judgment(s)" in out


@pytest.mark.parametrize(
    ("fixture", "changes", "expected"),
    [
        ("issue_comment.created.json", {}, "ignored: #1 is an issue, not a pull request"),
        (
            "issue_comment.created.pull_request.json",
            {"action": "edited"},
            "ignored: a comment edited, not created",
        ),
    ],
)
def test_judge_ignores_issues_and_edits(
    fixture: str,
    changes: dict[str, Any],
    expected: str,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    data = json.loads((EVENTS / fixture).read_text())
    data.update(changes)
    event = tmp_path / "event.json"
    event.write_text(json.dumps(data))
    assert main(["github", "judge", "--event", str(event)]) == 0
    assert capsys.readouterr().out.strip() == expected


def test_judge_ignores_the_bots_own_comment(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    memory = MemoryPort(repository="Codertocat/Hello-World")
    _connect_to(monkeypatch, memory)
    event = _comment_event(tmp_path, user={"login": "github-actions[bot]", "id": 1, "type": "Bot"})
    assert main(["github", "judge", "--event", str(event)]) == 0
    assert capsys.readouterr().out.startswith("ignored: a comment by the bot github-actions[bot]")
    assert memory.calls == []

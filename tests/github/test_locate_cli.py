"""`claims github locate` through the real gateway against the fake GitHub: "no pull request
to post to" (its head moved, it was closed, it targets another branch, the run was not for a
pull request) is a normal outcome, exit 0 and `found=false` with why in the job summary, so
verify.yml's locate step stays green and every later step skips; an API failure is exit 2."""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from bot.faces.cli import main
from bot.faces.report.markdown import escape
from tests.github.fakehub import FakeHub
from tests.support import connect_without_waits, job_token

EVENTS = Path(__file__).resolve().parent / "events"
FORK_EVENT = EVENTS / "workflow_run.completed.fork.json"
SHA = "3484a3fb816e0859fd6e1cea078d76385ff50625"  # the fork event's head_sha
FOUND = f"found=true\npr=5\nhead_sha={SHA}\nbase_ref=master\n"


@pytest.fixture
def hub() -> Iterator[FakeHub]:
    hub = FakeHub("octo-org/octo-repo").start()  # the event's repository (default: master)
    hub.repo.branches["master"] = "1" * 40
    try:
        yield hub
    finally:
        hub.stop()


@pytest.fixture
def summary(monkeypatch: pytest.MonkeyPatch, hub: FakeHub, tmp_path: Path) -> Path:
    """The Actions environment with a token, pointed at the fake; the job summary file."""
    path = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_TOKEN", job_token("verify.yml", "locate"))
    monkeypatch.setenv("GITHUB_API_URL", hub.base_url)
    monkeypatch.setenv("GITHUB_REPOSITORY", hub.repository)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(path))
    monkeypatch.delenv("GITHUB_EVENT_PATH", raising=False)
    connect_without_waits(monkeypatch)
    return path


def _fork_pull(hub: FakeHub, **fields: object) -> None:
    fields.setdefault("head_branch", "changes")
    fields.setdefault("head_repo", "Codertocat/octo-repo")
    fields.setdefault("base_branch", "master")
    hub.repo.add_pull(5, "Codertocat", fields.pop("head_sha", SHA), **fields)  # type: ignore[arg-type]


def _locate(*argv: str) -> list[str]:
    return ["github", "locate", *argv]


BY_EVENT = _locate("--event", str(FORK_EVENT))
BY_NUMBER = _locate("--pr", "5", "--default-branch", "master")


def test_found_prints_found_true_first_and_writes_no_summary(
    hub: FakeHub, summary: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fork_pull(hub)
    assert main(BY_EVENT) == 0
    assert capsys.readouterr().out == FOUND
    assert main(BY_NUMBER) == 0
    assert capsys.readouterr().out == FOUND
    assert not summary.exists()


def _closed(hub: FakeHub) -> None:
    _fork_pull(hub, state="closed")


def _moved(hub: FakeHub) -> None:
    _fork_pull(hub, head_sha="9" * 40)


def _other_base(hub: FakeHub) -> None:
    _fork_pull(hub, base_branch="legacy")


def _none(hub: FakeHub) -> None:
    pass


# (case, what the fake holds, argv, the reason's words)
NOT_FOUND: list[tuple[str, Callable[[FakeHub], None], list[str], str]] = [
    ("closed", _closed, BY_EVENT, "no open pull request into master has the head"),
    ("head moved", _moved, BY_EVENT, "no open pull request into master has the head"),
    ("other base", _other_base, BY_EVENT, "no open pull request into master has the head"),
    ("no pull request", _none, BY_EVENT, "(closed, or pushed again since the run)"),
    ("dispatch: closed", _closed, BY_NUMBER, "pull request #5 is closed"),
    ("dispatch: other base", _other_base, BY_NUMBER, "targets legacy, not the default branch"),
]


@pytest.mark.parametrize(
    ("seed", "argv", "why"), [case[1:] for case in NOT_FOUND], ids=[case[0] for case in NOT_FOUND]
)
def test_no_pull_request_to_post_to_is_exit_0_and_found_false(
    hub: FakeHub,
    summary: Path,
    capsys: pytest.CaptureFixture[str],
    seed: Callable[[FakeHub], None],
    argv: list[str],
    why: str,
) -> None:
    seed(hub)
    assert main(argv) == 0
    captured = capsys.readouterr()
    assert captured.out == "found=false\n"  # the only line: no pr/head_sha/base_ref
    assert "no pull request to post to: " in captured.err and why in captured.err
    written = summary.read_text(encoding="utf-8")
    assert written.startswith("**Nothing posted**: ") and written.count("\n") == 1
    assert escape(why) in written  # Markdown-escaped: the branch names are the fork's
    assert hub.calls("POST", r".*") == []  # nothing posted anywhere


def test_a_run_not_started_by_a_pull_request_is_found_false(
    hub: FakeHub, summary: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = json.loads(FORK_EVENT.read_text(encoding="utf-8"))
    data["workflow_run"]["event"] = "push"
    event = tmp_path / "event.json"
    event.write_text(json.dumps(data), encoding="utf-8")
    assert main(_locate("--event", str(event))) == 0
    assert capsys.readouterr().out == "found=false\n"
    assert "started by 'push', not by a pull request" in summary.read_text(encoding="utf-8")
    assert hub.requests == []  # decided from the event: no API call


def test_untrusted_text_in_the_reason_is_inert_in_the_summary(
    hub: FakeHub, summary: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """The branch names in the reason are the fork's: no Markdown or HTML from them."""
    data = json.loads(FORK_EVENT.read_text(encoding="utf-8"))
    data["workflow_run"]["head_branch"] = "<b>hi</b>_x_"
    event = tmp_path / "event.json"
    event.write_text(json.dumps(data), encoding="utf-8")
    assert main(_locate("--event", str(event))) == 0
    assert capsys.readouterr().out == "found=false\n"
    written = summary.read_text(encoding="utf-8")
    assert "\\<b\\>hi\\</b\\>\\_x\\_" in written and "<b>" not in written


def test_an_api_failure_is_exit_2_and_prints_no_output_line(
    hub: FakeHub, summary: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    _fork_pull(hub)
    hub.fail_next("GET", r".*/pulls", 403, body={"message": "Resource not accessible"})
    assert main(BY_EVENT) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and "Resource not accessible" in captured.err
    hub.fail_next("GET", r".*/pulls/5", 404, body={"message": "Not Found"})
    assert main(BY_NUMBER) == 2
    assert capsys.readouterr().out == ""
    assert not summary.exists()


def test_without_a_token_nothing_is_looked_up_and_the_step_fails(
    monkeypatch: pytest.MonkeyPatch, hub: FakeHub, summary: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """An Actions job always has a token: without one nothing is known, so no found=false
    (which would skip the verdict as if there were no PR): exit 1, nothing printed."""
    monkeypatch.delenv("GITHUB_TOKEN")
    assert main(BY_EVENT) == 1
    assert capsys.readouterr().out == ""
    assert hub.requests == []

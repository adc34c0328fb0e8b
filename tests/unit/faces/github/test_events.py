"""Event payload readers: the octokit-derived fixtures read into records; anything else is an
`EventError` naming the field, never a traceback (hypothesis fuzzes each reader)."""

from __future__ import annotations

import contextlib
import copy
import json
import subprocess
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.faces.github.events import (
    MAX_EVENT_BYTES,
    EventError,
    IssueCommentEvent,
    PullRequestEvent,
    WorkflowRunEvent,
    is_branch_name,
    issue_comment_event,
    load_event,
    pull_request_event,
    workflow_run_event,
)

EVENTS = Path(__file__).resolve().parents[3] / "github" / "events"
OCTOKIT = Path("/work/.mirror/octokit+webhooks/repo")


def fixture(name: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((EVENTS / name).read_text())
    return data


def test_pull_request_opened() -> None:
    assert pull_request_event(fixture("pull_request.opened.json")) == PullRequestEvent(
        action="opened",
        number=2,
        head_sha="ec26c3e57ca3a959ca5aad62de7213c562f8c821",
        head_repo="Codertocat/Hello-World",
        head_branch="changes",
        base_ref="master",
        author="Codertocat",
        repository="Codertocat/Hello-World",
    )


def test_workflow_run_of_a_fork_has_no_pull_requests() -> None:
    run = workflow_run_event(fixture("workflow_run.completed.fork.json"))
    assert run == WorkflowRunEvent(
        id=289782451,
        name="check",
        event="pull_request",
        conclusion="success",
        head_sha="3484a3fb816e0859fd6e1cea078d76385ff50625",
        head_branch="changes",
        head_repo="Codertocat/octo-repo",
        head_owner="Codertocat",
        repository="octo-org/octo-repo",
        pull_requests=(),
        default_branch="master",
    )


def test_workflow_run_completed_as_octokit_gives_it() -> None:
    run = workflow_run_event(fixture("workflow_run.completed.json"))
    assert (run.event, run.head_repo, run.head_owner) == (
        "repository_dispatch",
        "octo-org/octo-repo",
        "octo-org",
    )


def test_issue_comment_on_an_issue_and_on_a_pull_request() -> None:
    plain = issue_comment_event(fixture("issue_comment.created.json"))
    on_pr = issue_comment_event(fixture("issue_comment.created.pull_request.json"))
    assert plain.is_pull_request is False
    assert on_pr == IssueCommentEvent(
        action="created",
        comment_id=492700400,
        body=on_pr.body,
        user_login="Codertocat",
        user_type="User",
        issue_number=1,
        is_pull_request=True,
        repository="Codertocat/Hello-World",
        default_branch="master",
    )
    assert "/judge reconstructible pass" in on_pr.body


def _set(data: dict[str, Any], path: str, value: object) -> dict[str, Any]:
    changed = copy.deepcopy(data)
    *parents, last = path.split(".")
    target = changed
    for part in parents:
        target = target[part]
    if value is _DELETE:
        del target[last]
    else:
        target[last] = value
    return changed


_DELETE = object()


@pytest.mark.parametrize(
    ("name", "path", "value", "field"),
    [
        ("workflow_run.completed.fork.json", "workflow_run.head_sha", "abc", "head_sha"),
        ("workflow_run.completed.fork.json", "workflow_run.head_sha", "A" * 40, "head_sha"),
        ("workflow_run.completed.fork.json", "workflow_run.head_branch", "a\nb", "head_branch"),
        ("workflow_run.completed.fork.json", "workflow_run.head_branch", "a\x1bb", "head_branch"),
        ("workflow_run.completed.fork.json", "workflow_run.head_branch", "-x", "head_branch"),
        ("workflow_run.completed.fork.json", "workflow_run.id", "1", "workflow_run.id"),
        ("workflow_run.completed.fork.json", "workflow_run.id", True, "workflow_run.id"),
        ("workflow_run.completed.fork.json", "workflow_run.pull_requests", {}, "pull_requests"),
        ("workflow_run.completed.fork.json", "workflow_run.head_repository", None, "head_rep"),
        ("workflow_run.completed.fork.json", "workflow_run.event", _DELETE, "workflow_run.event"),
        ("pull_request.opened.json", "pull_request.head.sha", 5, "pull_request.head.sha"),
        ("pull_request.opened.json", "number", 3, "pull_request.number"),
        ("pull_request.opened.json", "pull_request.user.login", "a b", "user.login"),
        ("pull_request.opened.json", "pull_request.base.ref", "main\r", "base.ref"),
        ("issue_comment.created.json", "comment.body", 7, "comment.body"),
        ("issue_comment.created.json", "comment.body", "x" * 70_000, "comment.body"),
        ("issue_comment.created.json", "comment.user.type", "Robot", "comment.user.type"),
        ("issue_comment.created.json", "issue.pull_request", "yes", "issue.pull_request"),
        ("issue_comment.created.json", "repository", _DELETE, "repository"),
        ("issue_comment.created.json", "repository.full_name", "a/b/c", "full_name"),
    ],
)
def test_bad_fields_are_named(name: str, path: str, value: object, field: str) -> None:
    reader = _READERS[name.split(".")[0]]
    with pytest.raises(EventError) as raised:
        reader(_set(fixture(name), path, value))
    assert field in raised.value.field
    assert raised.value.diagnostics().startswith("error: event payload: ")


def test_the_pull_requests_of_a_same_repository_run_are_read() -> None:
    data = _set(
        fixture("workflow_run.completed.json"), "workflow_run.pull_requests", [{"number": 2}]
    )
    assert workflow_run_event(data).pull_requests == (2,)


def test_a_comment_without_body_reads_as_empty() -> None:
    data = _set(fixture("issue_comment.created.json"), "comment.body", None)
    assert issue_comment_event(data).body == ""


def test_load_event_refuses_oversize_and_non_json(tmp_path: Path) -> None:
    big = tmp_path / "big.json"
    big.write_bytes(b" " * (MAX_EVENT_BYTES + 1))
    with pytest.raises(EventError, match="larger than"):
        load_event(big)
    for raw in (b"{", b"\xff\xfe", b'{"a": NaN}', b"[" * 100_000):
        bad = tmp_path / "bad.json"
        bad.write_bytes(raw)
        with pytest.raises(EventError, match="not JSON"):
            load_event(bad)
    with pytest.raises(EventError, match="cannot be read"):
        load_event(tmp_path / "missing.json")


@pytest.mark.parametrize("name", ["main", "feature/x", "changes", "a-b_c.d", "release/2027.1"])
def test_branch_names_git_accepts(name: str) -> None:
    assert is_branch_name(name)


@pytest.mark.parametrize(
    "name",
    [
        "",
        "-x",
        "a..b",
        "a b",
        "a\tb",
        "x.lock",
        ".x",
        "a/.b",
        "a/",
        "a.",
        "@",
        "a@{b",
        "a~1",
        "a^",
        "a:b",
        "a?",
        "a*",
        "a[b",
        "a\\b",
        "a//b",
        "/a",
        "x" * 256,
    ],
)
def test_branch_names_git_refuses(name: str) -> None:
    assert not is_branch_name(name)
    if name and name != "@":  # agrees with git itself (which takes "@" as a branch; we don't)
        answer = subprocess.run(
            ["git", "check-ref-format", "--branch", name], capture_output=True, cwd="/"
        )
        assert answer.returncode != 0 or len(name) > 255


_READERS: dict[str, Callable[[object], object]] = {
    "pull_request": pull_request_event,
    "workflow_run": workflow_run_event,
    "issue_comment": issue_comment_event,
}
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=50),
    lambda children: (
        st.lists(children, max_size=4) | st.dictionaries(st.text(max_size=10), children, max_size=4)
    ),
    max_leaves=20,
)


def _paths_of(data: object, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found: list[tuple[Any, ...]] = []
    if isinstance(data, dict):
        for key, value in data.items():
            found.append((*prefix, key))
            found += _paths_of(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found.append((*prefix, index))
            found += _paths_of(value, (*prefix, index))
    return found


_FIXTURES = {
    "pull_request": "pull_request.opened.json",
    "workflow_run": "workflow_run.completed.fork.json",
    "issue_comment": "issue_comment.created.pull_request.json",
}


@pytest.mark.parametrize("kind", sorted(_READERS))
@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.data())
def test_fuzzed_payloads_give_a_record_or_an_event_error(kind: str, data: st.DataObject) -> None:
    """A fixture with one field replaced by arbitrary JSON (or removed), or arbitrary JSON
    altogether: the reader returns its record or raises EventError, nothing else."""
    payload: Any = fixture(_FIXTURES[kind])
    mode = data.draw(st.sampled_from(["replace", "delete", "whole"]))
    if mode == "whole":
        payload = data.draw(_JSON)
    else:
        path = data.draw(st.sampled_from(_paths_of(payload)))
        target = payload
        for part in path[:-1]:
            target = target[part]
        if mode == "delete" and isinstance(target, dict):
            del target[path[-1]]
        else:
            target[path[-1]] = data.draw(_JSON)
    with contextlib.suppress(EventError):
        _READERS[kind](payload)


@pytest.mark.skipif(not OCTOKIT.is_dir(), reason="no octokit/webhooks mirror here")
def test_committed_fixtures_are_what_the_script_writes() -> None:
    from tests.github.make_event_fixtures import build

    built = build(str(OCTOKIT))
    assert sorted(built) == sorted(p.name for p in EVENTS.glob("*.json"))
    for name, data in built.items():
        assert fixture(name) == data, name

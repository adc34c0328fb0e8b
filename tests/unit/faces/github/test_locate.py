"""`locate`: a workflow_run's pull request from the API, by head owner, branch and SHA."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.edges.github.port import PullRequestInfo
from bot.faces.github.events import workflow_run_event
from bot.faces.github.locate import Located, is_safe_branch, locate_by_number, locate_pull_request
from bot.vocab.errors import Refusal
from tests.unit.faces.github.memory_port import MemoryPort

EVENTS = Path(__file__).resolve().parents[3] / "github" / "events"
SHA = "3484a3fb816e0859fd6e1cea078d76385ff50625"
FORK = workflow_run_event(json.loads((EVENTS / "workflow_run.completed.fork.json").read_text()))
BASE = FORK.default_branch  # "master" in octokit's example


def fork_pr(**changes: Any) -> PullRequestInfo:
    pr = PullRequestInfo(
        number=12,
        author="Codertocat",
        head_sha=SHA,
        head_repo="Codertocat/octo-repo",
        head_branch="changes",
        base_branch=BASE,
        state="open",
        merged=False,
        merge_commit_sha=None,
        merged_at=None,
    )
    return replace(pr, **changes)


def port(*pulls: PullRequestInfo) -> MemoryPort:
    memory = MemoryPort(repository="octo-org/octo-repo")
    for pr in pulls:
        memory.pulls[pr.number] = pr
    return memory


def test_a_forks_pull_request_is_found_by_head_owner_branch_and_sha() -> None:
    memory = port(fork_pr(), fork_pr(number=13, head_repo="someone/octo-repo"))
    located = locate_pull_request(memory, FORK)
    assert located == Located(12, SHA, BASE)
    assert located.output() == f"found=true\npr=12\nhead_sha={SHA}\nbase_ref={BASE}\n"
    assert memory.calls == [f"find_pull_request Codertocat:changes {SHA}"]


def test_a_head_pushed_again_since_the_run_is_not_posted_to() -> None:
    located = locate_pull_request(port(fork_pr(head_sha="f" * 40)), FORK)
    assert isinstance(located, Refusal) and "no open pull request" in located.reason


class _Lying(MemoryPort):
    """A port answering a PR whose head differs (the check is made again, not trusted)."""

    def find_pull_request(
        self, head_owner: str, head_branch: str, head_sha: str, base: str | None = None
    ) -> Any:
        return fork_pr(head_sha="e" * 40)


def test_the_head_sha_is_checked_again() -> None:
    located = locate_pull_request(_Lying(repository="octo-org/octo-repo"), FORK)
    assert located == Refusal(f"pull request #12's head is {'e' * 40}, not {SHA}")


@pytest.mark.parametrize(
    ("run", "expected"),
    [
        (replace(FORK, event="push"), "started by 'push', not by a pull request"),
        (replace(FORK, repository="evil/octo-repo"), "belongs to evil/octo-repo"),
    ],
)
def test_runs_not_of_a_pull_request_here(run: Any, expected: str) -> None:
    memory = port(fork_pr())
    assert expected in str(locate_pull_request(memory, run))
    assert memory.calls == []


def test_the_pull_requests_list_is_never_used() -> None:
    """A same-repository run lists its PR, but the PR still comes from the API lookup."""
    run = replace(FORK, pull_requests=(99,))
    assert locate_pull_request(port(fork_pr()), run) == Located(12, SHA, BASE)


@pytest.mark.parametrize("base", ["main\nx=1", "-main", "a b", "a..b", "r\u00e9sum\u00e9", ""])
def test_a_base_branch_unsafe_for_github_output_is_refused(base: str) -> None:
    located = locate_pull_request(
        port(fork_pr(base_branch=base)), replace(FORK, default_branch=base)
    )
    assert isinstance(located, Refusal) and "base branch" in located.reason


@pytest.mark.parametrize("name", ["main", "release/2027", "feature/x-1"])
def test_safe_branches(name: str) -> None:
    assert is_safe_branch(name)


def test_a_dispatched_run_takes_the_pull_request_as_the_api_has_it_now() -> None:
    # /judge starts the verify workflow with the PR's number only: the head is the API's
    memory = port(fork_pr())
    assert locate_by_number(memory, 12, BASE) == Located(12, SHA, BASE)
    closed = port(fork_pr(state="closed"))
    assert locate_by_number(closed, 12, BASE) == Refusal("pull request #12 is closed")
    unsafe = port(fork_pr(base_branch="main\nhead_sha=0"))
    assert "refused" in str(locate_by_number(unsafe, 12, "main\nhead_sha=0"))


def test_a_pull_request_into_another_branch_gets_no_verdict() -> None:
    """Attack: a filer opens the PR against some other branch of the registry (its markets,
    judgments and submitters differ, or it is simply unprotected), gets a green check run on
    the head commit, then retargets the PR to the default branch: GitHub starts no new `check`
    run for an edited base, so the green check run of that commit would stand."""
    memory = port(fork_pr(base_branch="legacy"))
    located = locate_pull_request(memory, replace(FORK, default_branch="main"))
    assert isinstance(located, Refusal)
    assert located.reason.startswith(
        "no open pull request into main has the head Codertocat:changes"
    )
    assert locate_by_number(memory, 12, "main") == Refusal(
        "pull request #12 targets legacy, not the default branch main: only pull requests"
        " into the default branch get a verdict"
    )


def test_a_pull_request_from_the_same_fork_branch_into_another_branch_hides_nothing() -> None:
    """Attack: anyone may open a PR from the filer's fork branch into another branch of the
    registry. Listed first (the newest), it was the PR `locate` found for the filer's
    `check` run, refused as not into the default branch: the filer's own PR got no verdict."""
    memory = port(fork_pr(), fork_pr(number=99, base_branch="legacy"))
    memory.pulls = {99: memory.pulls[99], 12: memory.pulls[12]}  # the newest first
    assert locate_pull_request(memory, FORK) == Located(12, SHA, BASE)

"""`claims github locate`: the pull request a `workflow_run` of the `check` workflow ran for.

docs/spec.md §10.1: the PR is found from the API, never from an artifact (the `check` run is
the PR's own code and proves nothing). For a fork's PR `workflow_run.pull_requests` is empty,
so the lookup goes by the head repository's owner and branch (`GET /pulls?head=owner:branch`)
and the PR's head must be exactly `workflow_run.head_sha`: a push after the run started
makes the run stale, and nothing is posted for it.

The answer is printed as `key=value` lines the workflow appends to $GITHUB_OUTPUT, so each
value is validated first: digits, 40 hex digits, and a branch name
`git check-ref-format --branch` accepts, in printable ASCII. `found=true` comes first; when
there is no pull request to post to, `found=false` is the only line (bot/faces/github/cli.py), and
the workflow's later steps and jobs run only on `found == 'true'`.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass

from bot.edges.github.port import GitHubPort, PullRequestInfo
from bot.faces.github.events import WorkflowRunEvent
from bot.vocab.errors import Refusal

__all__ = ["Located", "is_safe_branch", "locate_by_number", "locate_pull_request"]

_SHA = re.compile(r"\A[0-9a-f]{40}\Z")
_PRINTABLE = re.compile(r"\A[\x21-\x7e]{1,255}\Z")


@dataclass(frozen=True, slots=True)
class Located:
    pr: int
    head_sha: str
    base_ref: str

    def output(self) -> str:
        """The $GITHUB_OUTPUT lines."""
        return f"found=true\npr={self.pr}\nhead_sha={self.head_sha}\nbase_ref={self.base_ref}\n"


def is_safe_branch(name: str) -> bool:
    """True when `git check-ref-format --branch` accepts `name` as it is, and it is printable
    ASCII (no newline can reach $GITHUB_OUTPUT) not starting with "-"."""
    if not _PRINTABLE.match(name) or name.startswith("-"):
        return False
    try:
        answer = subprocess.run(
            ["git", "check-ref-format", "--branch", name],
            capture_output=True,
            text=True,
            timeout=30,
            check=False,
            cwd="/",  # outside any repository: "@{-1}" is not expanded
        )
    except (OSError, subprocess.TimeoutExpired):
        return False
    return answer.returncode == 0 and answer.stdout.strip() == name


def locate_pull_request(port: GitHubPort, run: WorkflowRunEvent) -> Located | Refusal:
    """The open PR `run` was for, or why there is none to post to.

    Raises `GitHubError` when the API fails.
    """
    if run.event != "pull_request":
        return Refusal(f"the workflow run was started by {run.event!r}, not by a pull request")
    if run.repository != port.repository:
        return Refusal(f"the workflow run belongs to {run.repository}, not to {port.repository}")
    # Into the default branch only: anyone may open a PR from this fork's branch into another
    # branch, and that PR, listed first, hid the one into the default branch (no verdict).
    pr = port.find_pull_request(
        run.head_owner, run.head_branch, run.head_sha, base=run.default_branch
    )
    if pr is None:
        return Refusal(
            f"no open pull request into {run.default_branch} has the head"
            f" {run.head_owner}:{run.head_branch} at"
            f" {run.head_sha} (closed, or pushed again since the run)"
        )
    if pr.head_sha != run.head_sha:
        return Refusal(f"pull request #{pr.number}'s head is {pr.head_sha}, not {run.head_sha}")
    if pr.head_repo and pr.head_repo != run.head_repo:
        return Refusal(
            f"pull request #{pr.number}'s head is in {pr.head_repo}, not {run.head_repo}"
        )
    return _located(pr, run.default_branch)


def locate_by_number(port: GitHubPort, number: int, default_branch: str) -> Located | Refusal:
    """Pull request `number` as the API has it now, for a `workflow_dispatch` run of the
    verify workflow (the /judge responder starts one to re-post a verdict): it must be open
    and target `default_branch`; its head is the API's, never an input's.

    Raises `GitHubError` when the API fails.
    """
    pr = port.pull_request(number)
    if pr.state != "open":
        return Refusal(f"pull request #{number} is {pr.state}")
    return _located(pr, default_branch)


def _located(pr: PullRequestInfo, default_branch: str) -> Located | Refusal:
    """`pr` as printed, if it targets the default branch: a pull request into any other
    branch gets no verdict (that branch's markets, judgments and submitters are not the
    registry's, and a PR retargeted later starts no new check run, so a verdict posted on
    its head commit would stand for the default branch)."""
    if not _SHA.match(pr.head_sha) or not 0 < pr.number < 2**63:
        return Refusal(
            f"the API answered an unexpected pull request ({pr.number}, {pr.head_sha!r})"
        )
    if not is_safe_branch(pr.base_branch):
        return Refusal(f"pull request #{pr.number}'s base branch {pr.base_branch!r} is refused")
    if pr.base_branch != default_branch:
        return Refusal(
            f"pull request #{pr.number} targets {pr.base_branch}, not the default branch"
            f" {default_branch}: only pull requests into the default branch get a verdict"
        )
    return Located(pr.number, pr.head_sha, pr.base_branch)

"""`claims github ...`: the entry points the Actions workflows call (SPEC 10).

Each handler parses, builds a `GitHubPort` (`bot.github.gateway.connect`, only with
GITHUB_TOKEN), runs one function and returns an exit code. Without GITHUB_TOKEN every command
prints what it would do and posts nothing.

Environment (set by Actions): GITHUB_TOKEN, GITHUB_REPOSITORY (owner/name), GITHUB_API_URL,
GITHUB_EVENT_PATH.
"""

from __future__ import annotations

import argparse
import importlib
import json
import os
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.errors import ClaimsError
from bot.github.port import (
    Annotation,
    CheckRunRef,
    CommentRef,
    FileAtRef,
    GitHubPort,
    PullRequestInfo,
    Review,
    Role,
)
from bot.report.text import printable

__all__ = ["add_github_parser", "run_github"]

EXIT_OK, EXIT_NOTHING, EXIT_ERROR = 0, 1, 2


def add_github_parser(commands: Any) -> None:
    """Add `claims github` and its subcommands to the `claims` parser's subparsers."""
    github = commands.add_parser(
        "github",
        help="the GitHub Actions entry points",
        description="Entry points of the registry's workflows (SPEC 10). Without GITHUB_TOKEN"
        " each prints what it would do and posts nothing.",
    )
    sub = github.add_subparsers(dest="github_command", required=True, metavar="COMMAND")

    locate = sub.add_parser(
        "locate",
        help="find the pull request of a workflow_run event",
        description="For a workflow_run of the check workflow, find its open pull request"
        " from the API (head owner, branch and SHA; never from an artifact) and print"
        " pr=N, head_sha=SHA and base_ref=BRANCH lines for $GITHUB_OUTPUT. Exit 1 when there"
        " is none.",
    )
    locate.add_argument("--event", type=Path, metavar="FILE", help="default: $GITHUB_EVENT_PATH")
    locate.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    locate.set_defaults(github_handler=_locate)

    plan = sub.add_parser(
        "plan",
        help="print the job matrix of the wrapped attempts a pull request touches",
        description='Print {"include": [{"attempt": FOLDER}, ...]} for the wrapped attempt'
        " folders the head commit changes against the base branch, read from git objects.",
    )
    plan.add_argument("--base-ref", required=True, metavar="REF")
    plan.add_argument("--head", required=True, metavar="SHA")
    plan.add_argument("--registry", type=Path, metavar="ROOT", help="default: found above here")
    plan.set_defaults(github_handler=_plan)

    judge = sub.add_parser(
        "judge",
        help="answer /judge and /help comments (issue_comment events)",
        description="Record maintainers' /judge commands in the attempt's judgments.yaml and"
        " re-post the verdict; answer /help and unknown commands.",
    )
    judge.add_argument("--event", type=Path, metavar="FILE", help="default: $GITHUB_EVENT_PATH")
    judge.add_argument("--repo", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    judge.add_argument(
        "--registry",
        type=Path,
        metavar="ROOT",
        help="the default branch's checkout, holding the PR head's objects (default: here)",
    )
    judge.add_argument(
        "--head",
        metavar="SHA",
        help="without GITHUB_TOKEN: the pull request's head commit, to show what would be written",
    )
    judge.set_defaults(github_handler=_judge)


def run_github(args: argparse.Namespace) -> int:
    """Run the `claims github` subcommand `args` names; `ClaimsError`s reach bot/cli.py."""
    handler: Callable[[argparse.Namespace], int] = args.github_handler
    return handler(args)


def _event_path(given: Path | None) -> Path:
    if given is not None:
        return given
    configured = os.environ.get("GITHUB_EVENT_PATH")
    if not configured:
        raise ClaimsError("no event: pass --event FILE or set GITHUB_EVENT_PATH")
    return Path(configured)


def _repository(given: str | None, from_event: str) -> str:
    repository = given or os.environ.get("GITHUB_REPOSITORY") or from_event
    if repository != from_event:
        raise ClaimsError(
            f"the event is for {from_event}, not for {repository}",
            "run the command in the repository the event came from",
        )
    return repository


def _connect(repository: str) -> GitHubPort | None:
    """The gateway for `repository`, or None without GITHUB_TOKEN."""
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        return None
    gateway = importlib.import_module("bot.github.gateway")
    connect: Callable[..., GitHubPort] = gateway.connect
    return connect(token, repository, os.environ.get("GITHUB_API_URL") or None)


def _locate(args: argparse.Namespace) -> int:
    from bot.github.events import load_event, workflow_run_event
    from bot.github.locate import locate_pull_request

    run = workflow_run_event(load_event(_event_path(args.event)))
    repository = _repository(args.repo, run.repository)
    port = _connect(repository)
    if port is None:
        print(
            f"no GITHUB_TOKEN: would look up the open pull request of {repository} with head"
            f" {run.head_owner}:{run.head_branch} at {run.head_sha}",
            file=sys.stderr,
        )
        return EXIT_NOTHING
    located = locate_pull_request(port, run)
    if isinstance(located, str):
        print(printable(f"no pull request to post to: {located}"), file=sys.stderr)
        return EXIT_NOTHING
    print(located.output(), end="")
    return EXIT_OK


def _registry_root(given: Path | None) -> Path:
    from bot.registry import RULES_PATH, find_root

    root = given.resolve() if given is not None else find_root(Path.cwd())
    if root is None:
        raise ClaimsError(
            f"no registry found: {RULES_PATH} is missing at or above {Path.cwd()}",
            "run inside the registry's checkout or pass --registry ROOT",
        )
    return root


def _plan(args: argparse.Namespace) -> int:
    from bot.app import open_workspace
    from bot.github.plan import plan_matrix

    with open_workspace(_registry_root(args.registry), args.base_ref, args.head) as workspace:
        matrix = plan_matrix(workspace)
    print(json.dumps(matrix, separators=(",", ":")))
    return EXIT_OK


def _judge(args: argparse.Namespace) -> int:
    from bot.github.events import issue_comment_event, load_event
    from bot.github.responder import git_attempt_reader, respond

    event = issue_comment_event(load_event(_event_path(args.event)))
    if event.action != "created":
        print(f"ignored: a comment {event.action}, not created")
        return EXIT_OK
    if not event.is_pull_request:
        print(f"ignored: #{event.issue_number} is an issue, not a pull request")
        return EXIT_OK
    repository = _repository(args.repo, event.repository)
    root = args.registry.resolve() if args.registry is not None else Path.cwd()
    port = _connect(repository)
    if port is None:
        port = _DryRunPort(repository, root, event.default_branch, event.issue_number, args.head)
    outcome = respond(
        port,
        event,
        git_attempt_reader(root, event.default_branch),
        _repost_not_wired,
        datetime.now(UTC),
    )
    if outcome.ignored:
        print(printable(f"ignored: {outcome.ignored}"))
    return EXIT_OK


def _repost_not_wired(pr: PullRequestInfo) -> None:
    """Stands in for bot/github/publish.py's re-post until it lands (verify at the PR's
    head, then publish); the next `verify` run posts the verdict meanwhile."""
    print(f"re-post: the verdict of #{pr.number} at {pr.head_sha} is to be re-posted")


class _DryRunPort:
    """A `GitHubPort` without a token: reads what it can from the local repository, prints
    every write. The commenter is assumed to be a maintainer (their role cannot be asked)."""

    def __init__(
        self, repository: str, root: Path, default_branch: str, number: int, head: str | None
    ) -> None:
        self._repository = repository
        self.root = root
        self.default_branch = default_branch
        self.number = number
        self.head = head

    @property
    def repository(self) -> str:
        return self._repository

    def _offline(self, what: str) -> ClaimsError:
        return ClaimsError(f"no GITHUB_TOKEN: cannot {what}", "set GITHUB_TOKEN")

    def role(self, login: str) -> Role:
        print(f"no GITHUB_TOKEN: {login}'s role is not asked; assumed maintain")
        return "maintain"

    def pull_request(self, number: int) -> PullRequestInfo:
        if number != self.number or self.head is None:
            raise self._offline(f"read pull request #{number}: pass --head SHA")
        return PullRequestInfo(
            number, "", self.head, "", "", self.default_branch, "open", False, None, None
        )

    def file(self, path: str, ref: str) -> FileAtRef | None:
        import git
        from gitdb.exc import BadName  # type: ignore[import-untyped]

        from bot.history import open_repo
        from bot.tree import GitTree, read_limited

        opened = open_repo(self.root)
        if isinstance(opened, str):
            return None
        repo, prefix = opened
        try:
            tree = GitTree(repo, ref, prefix)
            entry = tree.entry(path)
            if entry is None or entry.kind != "file" or entry.blob_id is None:
                return None
            return FileAtRef(path, read_limited(tree, path, 1 << 20), entry.blob_id)
        except (BadName, ValueError, OSError, git.GitCommandError):
            return None  # no such branch here: as if the file were absent
        finally:
            repo.close()

    def put_file(
        self, path: str, content: bytes, message: str, branch: str, sha: str | None
    ) -> str:
        print(f"no GITHUB_TOKEN: would commit {path} on {branch} ({message}):")
        print(printable(content.decode("utf-8")), end="")
        return "0" * 40

    def create_comment(self, number: int, body: str) -> CommentRef:
        print(f"no GITHUB_TOKEN: would reply on #{number}:")
        print(printable(body))
        return CommentRef(0, "", "Bot", body)

    # Not used by the responder.
    def find_pull_request(
        self, head_owner: str, head_branch: str, head_sha: str
    ) -> PullRequestInfo | None:
        raise self._offline("find pull requests")

    def pulls_of_commit(self, sha: str) -> Sequence[PullRequestInfo]:
        raise self._offline("list pull requests")

    def reviews(self, number: int) -> Sequence[Review]:
        raise self._offline("read reviews")

    def check_runs(self, head_sha: str, name: str) -> Sequence[CheckRunRef]:
        raise self._offline("read check runs")

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        title: str,
        summary: str,
        annotations: Sequence[Annotation],
        external_id: str = "",
    ) -> CheckRunRef:
        raise self._offline("create check runs")

    def update_check_run(
        self,
        run_id: int,
        title: str,
        summary: str,
        annotations: Sequence[Annotation] = (),
        conclusion: str | None = None,
    ) -> None:
        raise self._offline("update check runs")

    def comments(self, number: int) -> Sequence[CommentRef]:
        raise self._offline("read comments")

    def edit_comment(self, comment_id: int, body: str) -> None:
        raise self._offline("edit comments")

    def labels(self, number: int) -> Sequence[str]:
        raise self._offline("read labels")

    def add_labels(self, number: int, names: Sequence[str]) -> None:
        raise self._offline("add labels")

    def remove_label(self, number: int, name: str) -> None:
        raise self._offline("remove labels")

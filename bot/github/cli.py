"""`claims github ...`: the entry points the Actions workflows call (one handler each).

`add_github_parser(commands)` adds the `github` command and its subcommands to the CLI's
parser; `run_github(args, verify)` runs the one named. `verify` is the CLI's own verify runner
(`bot.cli._verify`), handed in so that `claims github verify` writes exactly what `claims
verify` writes, plus what the GitHub API says of the pull request's author and of each
freeze's landing commit.

No PyGithub here: the port comes from `bot.github.gateway.connect`, imported where used.
"""

from __future__ import annotations

import argparse
import os
from collections.abc import Callable
from datetime import date
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.errors import ClaimsError

if TYPE_CHECKING:
    from bot.app import Workspace
    from bot.gather import LandingConfirmer
    from bot.github.identity import Filer
    from bot.github.port import GitHubPort

__all__ = ["GitHubFacts", "VerifyRunner", "add_github_parser", "run_github", "verify_pull_request"]

# (workspace) -> what GitHub says of the PR's author, and the landing confirmer.
GitHubFacts = Callable[["Workspace"], tuple["Filer", "LandingConfirmer"]]
# The CLI's verify runner: (args, facts or None) -> exit code.
VerifyRunner = Callable[[argparse.Namespace, GitHubFacts | None], int]


def add_github_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `github` and its subcommands (dest: `github_command`) to the CLI's sub-parsers."""
    github = commands.add_parser(
        "github",
        help="the GitHub Actions entry points (verify a pull request, ...)",
        description="What the registry's workflows run. Each reads GITHUB_TOKEN and"
        " GITHUB_REPOSITORY (and GITHUB_API_URL); without a token it does only what needs none.",
    )
    subcommands = github.add_subparsers(dest="github_command", required=True, metavar="SUBCOMMAND")
    _add_verify(subcommands)


def _add_verify(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    verify = subcommands.add_parser(
        "verify",
        help="verify a pull request with what the GitHub API says of its author",
        description="`claims verify --base-ref REF --head SHA`, plus the rules that need the"
        " GitHub API: who owns the submitter slug (not-submitter), maintainers' approval of"
        " changes to merged evidence, and each freeze's landing commit confirmed as a merged"
        " pull request's merge commit. Without GITHUB_TOKEN the offline rules apply.",
    )
    verify.add_argument("--pr", type=int, required=True, metavar="N", help="the pull request")
    verify.add_argument(
        "--head", required=True, metavar="SHA", help="its head commit (must be the PR's head)"
    )
    verify.add_argument("--base-ref", required=True, metavar="REF", help="its base branch")
    verify.add_argument("--registry", type=Path, metavar="ROOT", help="the registry root")
    verify.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    verify.add_argument("--markdown", type=Path, metavar="FILE", help="write Markdown here")
    verify.add_argument(
        "--rerun-adapters",
        action="store_true",
        help="rerun wrapped attempts' adapters in the sandbox and compare",
    )
    verify.add_argument(
        "--rerun-cache", type=Path, metavar="DIR", help="trusted cache of rerun results"
    )
    verify.add_argument(
        "--released-cache", type=Path, metavar="DIR", help="cache of released data, by sha256"
    )
    verify.add_argument("--as-of", type=date.fromisoformat, metavar="DATE", help="YYYY-MM-DD")
    verify.add_argument("-q", "--quiet", action="store_true", help="print only the total line")
    verify.set_defaults(paths=[], fetch_raw_logs=False, allow_unisolated=False)


def run_github(args: argparse.Namespace, verify: VerifyRunner) -> int:
    """Run the `claims github` subcommand `args.github_command`; return the exit code."""
    if args.github_command == "verify":
        return _verify(args, verify)
    raise AssertionError(f"unhandled github command {args.github_command}")  # pragma: no cover


def _verify(args: argparse.Namespace, verify: VerifyRunner) -> int:
    """`claims github verify`: with GITHUB_TOKEN and GITHUB_REPOSITORY, ask the API; without,
    say so and apply the offline rules."""
    token = os.environ.get("GITHUB_TOKEN", "")
    repository = os.environ.get("GITHUB_REPOSITORY", "")
    if not token or not repository:
        print(
            "claims github verify: no GITHUB_TOKEN and GITHUB_REPOSITORY, so the GitHub API is"
            f" not asked about pull request #{args.pr}: the offline rules apply (identity"
            " unchecked, freeze dates unconfirmed)\n"
        )
        return verify(args, None)
    from bot.github.gateway import connect  # type: ignore[import-not-found, unused-ignore]

    port = connect(token, repository, os.environ.get("GITHUB_API_URL") or None)
    return verify_pull_request(args, port, verify)


def verify_pull_request(args: argparse.Namespace, port: GitHubPort, verify: VerifyRunner) -> int:
    """Verify pull request `args.pr` at `args.head` with what `port` says.

    Raises `ClaimsError` (exit 2) when the PR's head is no longer `args.head`: a report on
    another commit than the one checked must never be posted.
    """
    from bot.github.facts import gather_filer, landing_confirmer
    from bot.history import GitHistory
    from bot.review import changed_attempt_folders

    pull = port.pull_request(args.pr)
    if pull.head_sha != args.head:
        raise ClaimsError(
            f"pull request #{pull.number}'s head is {pull.head_sha[:12]}, not --head"
            f" {args.head[:12]}: it moved since the run started",
            "verify the PR's current head (the next run will)",
        )

    def facts(workspace: Workspace) -> tuple[Filer, LandingConfirmer]:
        history: Any = workspace.history
        if not isinstance(history, GitHistory) or workspace.changes is None:
            raise ClaimsError("claims github verify needs the base branch's git history")
        folders = changed_attempt_folders(workspace.changes)
        registry = workspace.registry
        filer = gather_filer(port, pull, history, registry.contracts, folders, registry.limits)
        return filer, landing_confirmer(port)

    return verify(args, facts)

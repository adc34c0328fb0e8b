"""`claims github ...`: the entry points the Actions workflows call.

`add_github_parser` adds the `github` command with one sub-command each; each sub-command's
parser names its handler (`set_defaults(handler=...)`), and `run_github` calls it. Without
GITHUB_TOKEN every sub-command prints what it would do and posts nothing.
"""

from __future__ import annotations

import argparse
import os
import re
import sys
from pathlib import Path

from bot.errors import ClaimsError
from bot.report.text import printable

__all__ = ["add_github_parser", "run_github"]

# A report read back is untrusted data (the check workflow that made it ran a PR's code).
MAX_REPORT = 32 * 1024 * 1024
_SHA = re.compile(r"[0-9a-f]{40}")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def add_github_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `github` and its sub-commands to the CLI's sub-parsers."""
    github = commands.add_parser(
        "github",
        help="the GitHub entry points the workflows call",
        description="Post verdicts on pull requests and answer commands (SPEC 10). Without "
        "GITHUB_TOKEN each prints what it would post.",
    )
    subcommands = github.add_subparsers(dest="github_command", required=True, metavar="COMMAND")

    publish = subcommands.add_parser(
        "publish",
        help="post a verify report on its pull request",
        description="Post a `claims verify --json` report on pull request N at head SHA: a "
        "check run per attempt and one for the pull request, the sticky comment, the "
        "evidence:/verdict: labels, and $GITHUB_STEP_SUMMARY.",
    )
    publish.add_argument("report", type=Path, metavar="REPORT", help="the JSON report")
    publish.add_argument("--pr", type=_number, required=True, metavar="N")
    publish.add_argument("--head", type=_sha, required=True, metavar="SHA")
    publish.add_argument(
        "--repo", metavar="OWNER/NAME", help="the repository (default: $GITHUB_REPOSITORY)"
    )
    publish.add_argument("--details-url", type=_url, metavar="URL", help="the full report")
    publish.add_argument(
        "--attestation-url", type=_url, metavar="URL", help="the report's attestation"
    )
    publish.set_defaults(handler=_publish)


def run_github(args: argparse.Namespace) -> int:
    """Run the `github` sub-command `args` names; return the exit code."""
    code: int = args.handler(args)
    return code


def _number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a pull request number")
    return int(text)


def _sha(text: str) -> str:
    if not _SHA.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a commit sha (40 hex digits)")
    return text


def _url(text: str) -> str:
    from bot.github.publish import check_url

    try:
        return check_url(text)
    except ClaimsError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def _repository(args: argparse.Namespace) -> str:
    repository: str = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not _REPOSITORY.fullmatch(repository):
        raise ClaimsError(
            f"no repository: got {repository!r}, expected owner/name",
            "pass --repo OWNER/NAME or set GITHUB_REPOSITORY",
        )
    return repository


def _read_report(path: Path) -> bytes:
    try:
        with path.open("rb") as report:
            data = report.read(MAX_REPORT + 1)
    except OSError as error:
        raise ClaimsError(f"cannot read the report {path}: {error.strerror}") from None
    if len(data) > MAX_REPORT:
        raise ClaimsError(f"the report {path} is larger than {MAX_REPORT} bytes")
    return data


def _publish(args: argparse.Namespace) -> int:
    from bot.app import VerifyReport
    from bot.github.publish import (
        append_step_summary,
        build_publication,
        publish,
        render_publication,
    )
    from bot.report.json_ import read_report

    report = VerifyReport.from_json(read_report(_read_report(args.report)))
    publication = build_publication(report, args.head, args.details_url, args.attestation_url)
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        append_step_summary(Path(summary), publication)
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        repository = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
        print(printable(render_publication(publication, repository, args.pr)), end="")
        print("no GITHUB_TOKEN: nothing posted", file=sys.stderr)
        return 0
    from bot.github import gateway

    port = gateway.connect(token, _repository(args))
    posted = publish(port, publication, args.pr, args.head)
    comment = (
        f"comment {posted.comment.id} created"
        if posted.comment
        else f"comment {posted.edited_comment} edited"
    )
    print(
        f"posted on {port.repository} #{args.pr}: {len(posted.check_runs)} check run(s),"
        f" {comment}, labels +{list(posted.labels_added)} -{list(posted.labels_removed)}"
    )
    return 0

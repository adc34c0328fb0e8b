"""`claims github ...`: the entry points the Actions workflows call (docs/spec.md §10).

Each handler parses, builds a `GitHubPort` (`bot.edges.github.gateway.connect`, only with
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
import re
import sys
from collections.abc import Callable, Mapping, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Any

from bot.faces.report.text import printable
from bot.vocab.errors import ClaimsError, Refusal

if TYPE_CHECKING:
    # Types; the three records `_DryRunPort` makes are imported where it makes them: building
    # the CLI's parser imports this module, and the port's ~5 ms is for `claims github` only.
    from bot.app.api import VerifyReport, Workspace
    from bot.app.identity import Filer
    from bot.app.options import LandingConfirmer
    from bot.edges.github.port import (
        Annotation,
        CheckRunRef,
        CommentRef,
        FileAtRef,
        GitHubPort,
        IssueRef,
        PullRequestInfo,
        Review,
        Role,
    )
    from bot.faces.github.locate import Located

__all__ = ["GitHubFacts", "VerifyRunner", "add_github_parser", "run_github", "verify_pull_request"]

# (workspace) -> what GitHub says of the PR's author, and the landing confirmer.
GitHubFacts = Callable[["Workspace"], tuple["Filer", "LandingConfirmer"]]
# The CLI's verify runner (`bot.faces.cli._verify`): (args, facts or None) -> exit code. Handed in
# so
# that `claims github verify` writes exactly what `claims verify` writes.
VerifyRunner = Callable[[argparse.Namespace, GitHubFacts | None], int]

EXIT_OK, EXIT_NOTHING, EXIT_ERROR = 0, 1, 2
# A report read back is untrusted data (the check workflow that made it ran a PR's code).
MAX_REPORT = 32 * 1024 * 1024
_SHA = re.compile(r"[0-9a-f]{40}")
_REPOSITORY = re.compile(r"[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+")


def add_github_parser(commands: Any) -> None:
    """Add `claims github` and its subcommands to the `claims` parser's subparsers."""
    github = commands.add_parser(
        "github",
        help="the GitHub Actions entry points",
        description="Entry points of the registry's workflows (docs/spec.md §10). Without"
        " GITHUB_TOKEN each prints what it would do and posts nothing.",
    )
    sub = github.add_subparsers(dest="github_command", required=True, metavar="COMMAND")

    publish = sub.add_parser(
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
    publish.add_argument(
        "--default-branch",
        metavar="BRANCH",
        help="the default branch: when the PR is closed for filing under another's slug on a"
        " head commit other open PRs share, the verify workflow is started on it for each of"
        " them (their verdict may be the shared-head failure)",
    )
    publish.set_defaults(github_handler=_publish)

    _add_verify(sub)

    locate = sub.add_parser(
        "locate",
        help="find the pull request of a workflow_run event",
        description="For a workflow_run of the check workflow, find its open pull request"
        " from the API (head owner, branch and SHA; never from an artifact) and print"
        " found=true, pr=N, head_sha=SHA and base_ref=BRANCH lines for $GITHUB_OUTPUT. When"
        " there is no pull request to post to (its head moved, it was closed, it targets"
        " another branch) print found=false, say why on stderr and in $GITHUB_STEP_SUMMARY,"
        " and exit 0: the later steps skip. Exit 2 on an error (the API failed, a bad event).",
    )
    locate.add_argument("--event", type=Path, metavar="FILE", help="default: $GITHUB_EVENT_PATH")
    locate.add_argument(
        "--pr",
        type=_number,
        metavar="N",
        help="instead of a workflow_run event: pull request N as the API has it now (a"
        " workflow_dispatch run, as /judge starts to re-post a verdict)",
    )
    locate.add_argument(
        "--default-branch",
        metavar="BRANCH",
        help="with --pr: the repository's default branch, the only base that gets a verdict"
        " (a workflow_run event names it itself)",
    )
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

    doctor = sub.add_parser(
        "doctor",
        help="check a repository's GitHub settings against docs/running-on-github.md",
        description="Read the repository's settings through the API (GITHUB_TOKEN; an admin's"
        " token sees them all) and print, for each requirement of docs/running-on-github.md,"
        " ok or what to change and where. Exit 0 when all hold, 1 when one needs a change or"
        " cannot be checked with this token, 2 without a token or repository.",
    )
    doctor.add_argument("--repository", metavar="OWNER/NAME", help="default: $GITHUB_REPOSITORY")
    doctor.set_defaults(github_handler=_doctor)


def run_github(args: argparse.Namespace, verify: VerifyRunner) -> int:
    """Run the `claims github` subcommand `args` names; `ClaimsError`s reach bot/faces/cli.py."""
    if args.github_command == "verify":
        return _verify(args, verify)
    handler: Callable[[argparse.Namespace], int] = args.github_handler
    return handler(args)


def _add_verify(subcommands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    verify = subcommands.add_parser(
        "verify",
        help="verify a pull request with what the GitHub API says of its author",
        description="`claims verify --base-ref REF --head SHA`, plus the rules that need the"
        " GitHub API: who owns the submitter slug (not-submitter), maintainers' approval of"
        " changes to merged evidence, and each freeze's landing commit confirmed as a merged"
        " pull request's merge commit. Without GITHUB_TOKEN the offline rules apply.",
    )
    verify.add_argument("--pr", type=_number, required=True, metavar="N", help="the pull request")
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
    verify.add_argument(
        "--pin-results",
        type=Path,
        metavar="DIR",
        help="the pins the token-less pin job fetched and recorded (claims verify"
        " --fetch-raw-logs --pin-results DIR): counted, nothing fetched",
    )
    verify.add_argument("--as-of", type=date.fromisoformat, metavar="DATE", help="YYYY-MM-DD")
    verify.add_argument("-q", "--quiet", action="store_true", help="print only the total line")
    verify.set_defaults(
        paths=[],
        fetch_raw_logs=False,
        keep_pins=None,
        keep_released=False,
        allow_unisolated=False,
        github_handler=None,
    )


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


def _number(text: str) -> int:
    if not text.isdigit() or int(text) < 1:
        raise argparse.ArgumentTypeError(f"{text!r} is not a pull request number")
    return int(text)


def _sha(text: str) -> str:
    if not _SHA.fullmatch(text):
        raise argparse.ArgumentTypeError(f"{text!r} is not a commit sha (40 hex digits)")
    return text


def _url(text: str) -> str:
    from bot.faces.github.publish import check_url

    try:
        return check_url(text)
    except ClaimsError as error:
        raise argparse.ArgumentTypeError(error.message) from None


def _publish_repository(args: argparse.Namespace) -> str:
    repository: str = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
    if not _REPOSITORY.fullmatch(repository):
        raise ClaimsError(
            f"no repository: got {repository!r}, expected owner/name",
            "pass --repo OWNER/NAME or set GITHUB_REPOSITORY",
        )
    return repository


def _read_report(path: Path) -> bytes:
    from bot.edges.writes import read_capped

    return read_capped(path, MAX_REPORT, f"the report {path}")


def _publish(args: argparse.Namespace) -> int:
    from bot.app.report_json import read_report
    from bot.faces.github.publish import (
        append_step_summary,
        build_publication,
        publish,
        render_publication,
    )

    report = _readable_report(read_report(_read_report(args.report)))
    publication = build_publication(
        report, args.head, args.details_url, args.attestation_url, pr=args.pr
    )
    summary = os.environ.get("GITHUB_STEP_SUMMARY")
    if summary:
        append_step_summary(Path(summary), publication)
    port = _connect(_publish_repository(args)) if os.environ.get("GITHUB_TOKEN") else None
    if port is None:
        repository = args.repo or os.environ.get("GITHUB_REPOSITORY", "")
        print(printable(render_publication(publication, repository, args.pr)), end="")
        print("no GITHUB_TOKEN: nothing posted", file=sys.stderr)
        return 0
    posted = publish(port, publication, args.pr, args.head, _reverify(port, args.default_branch))
    if posted.moved_to is not None:
        print(
            f"posted on {port.repository} {args.head[:12]}: {len(posted.check_runs)} check"
            f" run(s); no comment or labels: #{args.pr}'s head moved to {posted.moved_to[:12]}"
        )
        return 0
    comment = (
        f"comment {posted.comment.id} created"
        if posted.comment
        else f"comment {posted.edited_comment} edited"
    )
    print(
        f"posted on {port.repository} #{args.pr}: {len(posted.check_runs)} check run(s),"
        f" {comment}, labels +{list(posted.labels_added)} -{list(posted.labels_removed)}"
    )
    if posted.others_closed:
        closed = ", ".join(f"#{n}" for n in sorted(posted.others_closed))
        print(f"closed {closed}: on this head commit, whose author opened #{args.pr}")
    if posted.shared:
        shared = ", ".join(f"#{n}" for n in sorted(posted.shared))
        if posted.closed:
            print(f"closed #{args.pr}: it is not the filer's pull request on the head of {shared}")
        else:
            print(f"the required check failed: the head commit is also the head of {shared}")
    return 0


def _reverify(port: GitHubPort, default_branch: str | None) -> Callable[[int], None] | None:
    """Start the verify workflow for pull request N (its verdict is posted again)."""
    if not default_branch:
        return None

    def reverify(number: int) -> None:
        port.dispatch_workflow(VERIFY_WORKFLOW, default_branch, {"pr": str(number)})
        print(f"re-post: started {VERIFY_WORKFLOW} for #{number} on {default_branch}")

    return reverify


def _readable_report(data: object) -> VerifyReport:
    """The verify report, an entry its reader refuses kept as an error of its own: an attempt
    as invalid evidence (`report-entry-refused`), a challenge run as a problem of the pull
    request, so the check fails closed and the rest of the verdict is still posted. A report
    whose frame is refused raises `ReportError` (bot/faces/report/entries.py)."""
    from dataclasses import replace

    from bot.faces.report.entries import verify_report_entries
    from bot.rules.verdict import AttemptVerdict
    from bot.vocab.findings import Code, Finding

    report, _, refused = verify_report_entries(data)
    if not refused:
        return report
    attempts, problems = list(report.attempts), list(report.pr_problems)
    for entry in refused:
        finding = Finding(Code.REPORT_ENTRY_REFUSED, entry.message, entry.name)
        if entry.section == "attempts":
            attempts.append(AttemptVerdict(entry.name, entry.market, None, (finding,)))
        else:
            problems.append(finding)
    return replace(report, attempts=tuple(attempts), pr_problems=tuple(problems))


def _connect(repository: str) -> GitHubPort | None:
    """The gateway for `repository`, or None without GITHUB_TOKEN."""
    token = os.environ.get("GITHUB_TOKEN")
    if not token:
        return None
    gateway = importlib.import_module("bot.edges.github.gateway")
    connect: Callable[..., GitHubPort] = gateway.connect
    return connect(token, repository, os.environ.get("GITHUB_API_URL") or None)


def _locate(args: argparse.Namespace) -> int:
    from bot.faces.github.events import load_event, workflow_run_event
    from bot.faces.github.locate import locate_by_number, locate_pull_request

    if args.pr is not None:
        if args.event is not None:
            raise ClaimsError("give --event or --pr, not both")
        if not args.default_branch:
            raise ClaimsError(
                "--pr needs --default-branch BRANCH",
                "only pull requests into the default branch get a verdict",
            )
        port = _connect(_publish_repository(args))
        if port is None:  # nothing was looked up: exit 1 (an Actions job always has a token)
            print(f"no GITHUB_TOKEN: would read pull request #{args.pr}", file=sys.stderr)
            return EXIT_NOTHING
        return _located(locate_by_number(port, args.pr, args.default_branch))
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
    return _located(locate_pull_request(port, run))


# What `claims github locate` prints when there is no pull request to post to: the verify
# workflow's later steps and jobs run only on `found=true` (a stale or closed PR is a normal
# outcome, not a failed run).
NOT_FOUND = "found=false\n"


def _located(located: Located | Refusal) -> int:
    """Print what `locate` found for $GITHUB_OUTPUT; exit 0 either way (no PR to post to is
    a normal outcome: `found=false`, and why on stderr and in the job summary)."""
    if isinstance(located, Refusal):
        why = f"no pull request to post to: {located.reason}"
        print(printable(why), file=sys.stderr)
        print(NOT_FOUND, end="")
        summary = os.environ.get("GITHUB_STEP_SUMMARY")
        if summary:
            from bot.faces.report.markdown import escape

            line = printable(f"**Nothing posted**: {escape(located.reason, 2_000)}.\n")
            try:
                with Path(summary).open("a", encoding="utf-8") as out:
                    out.write(line)
            except OSError as error:
                raise ClaimsError(
                    f"cannot write the job summary {summary}: {error.strerror}"
                ) from None
        return EXIT_OK
    print(located.output(), end="")
    return EXIT_OK


def _doctor(args: argparse.Namespace) -> int:
    from bot.faces.github.doctor import probe_setup, read_setup, render_probes

    repository = args.repository or os.environ.get("GITHUB_REPOSITORY", "")
    if not _REPOSITORY.fullmatch(repository):
        raise ClaimsError(
            f"no repository: got {repository!r}, expected OWNER/NAME",
            "pass --repository OWNER/NAME or set GITHUB_REPOSITORY",
        )
    if not os.environ.get("GITHUB_TOKEN"):
        raise ClaimsError(
            f"no GITHUB_TOKEN: cannot read {repository}'s settings",
            "set GITHUB_TOKEN to a token of a repository admin (e.g. `GITHUB_TOKEN=$(gh auth"
            " token)`); without admin rights some requirements cannot be checked",
        )
    gateway = importlib.import_module("bot.edges.github.gateway")
    reader = gateway.connect(
        os.environ["GITHUB_TOKEN"], repository, os.environ.get("GITHUB_API_URL") or None
    )
    web = os.environ.get("GITHUB_SERVER_URL") or "https://github.com"
    facts = read_setup(reader, repository, web)
    probes = probe_setup(facts)
    print(printable(render_probes(facts, probes)), end="")
    return EXIT_OK if all(probe.ok for probe in probes) else EXIT_NOTHING


def _registry_root(given: Path | None) -> Path:
    from bot.app.registry import RULES_PATH, find_root

    root = given.resolve() if given is not None else find_root(Path.cwd())
    if root is None:
        raise ClaimsError(
            f"no registry found: {RULES_PATH} is missing at or above {Path.cwd()}",
            "run inside the registry's checkout or pass --registry ROOT",
        )
    return root


def _plan(args: argparse.Namespace) -> int:
    from bot.app.api import open_workspace
    from bot.app.matrix import plan_matrix

    with open_workspace(_registry_root(args.registry), args.base_ref, args.head) as workspace:
        matrix = plan_matrix(workspace)
    print(json.dumps(matrix, separators=(",", ":")))
    return EXIT_OK


def _judge(args: argparse.Namespace) -> int:
    from bot.faces.github.events import issue_comment_event, load_event
    from bot.faces.github.responder import PAGES_WORKFLOW, git_attempt_reader, respond

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
    dry_run = port is None
    if port is None:
        port = _DryRunPort(repository, root, event.default_branch, event.issue_number, args.head)
        print(
            "no GITHUB_TOKEN: the bot's verdict comments are not read (with a token, /judge"
            " records only evidence the latest verdict before the comment showed)"
        )
    outcome = respond(
        port,
        event,
        git_attempt_reader(root, event.default_branch),
        _repost(port, event.default_branch),
        datetime.now(UTC),
        require_shown=not dry_run,
    )
    if outcome.ignored:
        print(printable(f"ignored: {outcome.ignored}"))
    if outcome.site_rebuilt:
        print(f"site: started {PAGES_WORKFLOW} on {outcome.branch}")
    return EXIT_OK


# The workflow the responder starts to re-post a verdict (its `workflow_dispatch` input `pr`).
VERIFY_WORKFLOW = "verify.yml"


def _repost(port: GitHubPort, default_branch: str) -> Callable[[PullRequestInfo], None]:
    """Re-post a verdict by starting the verify workflow for the PR: the whole verdict path
    (adapter reruns in their sandbox job without scopes, then the posting job) runs again with
    the new judgments. The judge job itself never runs an adapter: it holds write scopes."""

    def repost(pr: PullRequestInfo) -> None:
        port.dispatch_workflow(VERIFY_WORKFLOW, default_branch, {"pr": str(pr.number)})
        print(f"re-post: started {VERIFY_WORKFLOW} for #{pr.number} on {default_branch}")

    return repost


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
        from bot.edges.github.port import PullRequestInfo

        return PullRequestInfo(
            number, "", self.head, "", "", self.default_branch, "open", False, None, None
        )

    def file(self, path: str, ref: str) -> FileAtRef | None:
        import git
        from gitdb.exc import BadName  # type: ignore[import-untyped]

        from bot.edges.github.port import FileAtRef
        from bot.edges.history import open_repo
        from bot.edges.tree import GitTree, read_limited

        opened = open_repo(self.root)
        if isinstance(opened, Refusal):
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

    def dispatch_workflow(self, workflow: str, ref: str, inputs: Mapping[str, str]) -> None:
        print(f"no GITHUB_TOKEN: would start {workflow} on {ref} with {dict(inputs)}")

    def create_comment(self, number: int, body: str) -> CommentRef:
        print(f"no GITHUB_TOKEN: would reply on #{number}:")
        print(printable(body))
        from bot.edges.github.port import CommentRef

        return CommentRef(0, "", "Bot", body)

    # Not used by the responder.
    def find_pull_request(
        self, head_owner: str, head_branch: str, head_sha: str, base: str | None = None
    ) -> PullRequestInfo | None:
        raise self._offline("find pull requests")

    def pulls_of_commit(self, sha: str) -> Sequence[PullRequestInfo]:
        raise self._offline("list pull requests")

    def open_pull_requests(self) -> Sequence[PullRequestInfo]:
        raise self._offline("list pull requests")

    def close_pull_request(self, number: int) -> None:
        raise self._offline("close pull requests")

    def commit_author(self, sha: str) -> str | None:
        raise self._offline("read a commit's author")

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

    def issues(self, label: str) -> Sequence[IssueRef]:
        raise self._offline("read issues")

    def create_issue(self, title: str, body: str, labels: Sequence[str]) -> IssueRef:
        raise self._offline("open issues")

    def add_labels(self, number: int, names: Sequence[str]) -> None:
        raise self._offline("add labels")

    def remove_label(self, number: int, name: str) -> None:
        raise self._offline("remove labels")


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
    port = _connect(repository)
    if port is None:  # pragma: no cover - the token was checked above
        return verify(args, None)
    return verify_pull_request(args, port, verify)


def verify_pull_request(args: argparse.Namespace, port: GitHubPort, verify: VerifyRunner) -> int:
    """Verify pull request `args.pr` at `args.head` with what `port` says.

    Raises `ClaimsError` (exit 2) when the PR's head is no longer `args.head`: a report on
    another commit than the one checked must never be posted.
    """
    from bot.edges.history import GitHistory
    from bot.faces.github.facts import gather_filer, landing_confirmer
    from bot.rules.review import changed_attempt_folders

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
        return filer, landing_confirmer(port, pull.base_branch)

    return verify(args, facts)

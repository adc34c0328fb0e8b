"""`claims`: parse arguments, build the objects a command needs, run it, return an exit code.

Exit codes (docs/spec.md §12): 0 all evidence valid, 1 some evidence invalid, 2 usage or environment
error (including problems in the registry's own files, which a maintainer must fix).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import os
import sys
from collections.abc import Callable, Sequence
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot import __version__
from bot.faces.report.text import printable
from bot.vocab.errors import ClaimsError

if TYPE_CHECKING:
    # Types only: the app is imported when a command runs, not at start-up.
    from bot.app.cache import VerificationCache
    from bot.app.options import Ports
    from bot.app.pins import KeepPlan, PinFetch
    from bot.app.rerun import AdapterRerun
    from bot.faces.github.cli import GitHubFacts

__all__ = ["BASE_REF_DEFAULT", "main"]

# How every command's help says what --base-ref defaults to (docs say it the same way).
BASE_REF_DEFAULT = "default: main, else origin/main"

EXIT_VALID, EXIT_INVALID, EXIT_ERROR = 0, 1, 2


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(
        prog="claims", description="The AI Safety Claims registry bot."
    )
    parser.add_argument("--version", action="version", version=f"claims {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    verify = commands.add_parser(
        "verify",
        help="check attempt folders' evidence",
        description="Check every evidence rule of docs/spec.md §4 on attempt folders and report "
        "each problem with its reason code, file and line.",
    )
    verify.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="attempt folders, or folders holding them (default: attempts/, "
        "or with --base-ref the attempt folders the branch changes)",
    )
    verify.add_argument(
        "--registry",
        type=Path,
        metavar="ROOT",
        help="the registry root (default: found above PATH or here)",
    )
    verify.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="write the JSON report to FILE; with - print it instead of the text",
    )
    verify.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="write a Markdown report (for a PR comment) here",
    )
    verify.add_argument(
        "--base-ref",
        metavar="REF",
        help=f"the base branch: freeze order is read from its history ({BASE_REF_DEFAULT});"
        " naming it also checks the checked-out branch as a pull request against it (it may"
        " change only its attempt folder)",
    )
    verify.add_argument(
        "--head",
        metavar="SHA",
        help="with --base-ref: read the pull request's files from this commit's git objects "
        "(no checkout, no working tree)",
    )
    _check_options(verify, rerun_by_default=False)
    verify.add_argument(
        "--keep-rerun-failures",
        action="store_true",
        help="with --rerun-cache DIR holding one run's results (the scheduled workflow's rerun"
        " jobs): record an adapter's own failure there too, so the close job counts it",
    )
    verify.add_argument(
        "--as-of",
        type=_date,
        metavar="DATE",
        help="judge qualification as of this date, YYYY-MM-DD (default: today, UTC)",
    )
    verify.add_argument("-q", "--quiet", action="store_true", help="print only the total line")

    resolve = commands.add_parser(
        "resolve",
        help="resolve markets by the Three Way Rule",
        description="Verify every attempt of each market as of a date and resolve the market "
        "YES / NO / OTHER (or ANNULLED when its snapshot is missing past the annulment date).",
    )
    resolve.add_argument(
        "--registry",
        type=Path,
        metavar="ROOT",
        help="the registry root (default: found above here)",
    )
    resolve.add_argument("--market", type=int, metavar="N", help="only market N")
    resolve.add_argument(
        "--as-of",
        type=_date,
        metavar="DATE",
        help="resolve as of this date, YYYY-MM-DD (default: today, UTC)",
    )
    resolve.add_argument(
        "--base-ref",
        metavar="REF",
        help=f"the branch whose history counts ({BASE_REF_DEFAULT})",
    )
    resolve.add_argument(
        "--archive-store",
        type=Path,
        metavar="DIR",
        help="local archive records (default: ROOT/.claims/archive)",
    )
    resolve.add_argument(
        "--json",
        type=Path,
        metavar="FILE",
        help="write the JSON report to FILE; with - print it instead of the text",
    )
    resolve.add_argument("-q", "--quiet", action="store_true", help="print one line per market")
    _check_options(resolve, rerun_by_default=True)

    close = commands.add_parser(
        "close-windows",
        help="the scheduled job: tag, archive, resolve and record markets whose window closed",
        description="For every market whose filing window has closed: tag snapshot-R (annotated,"
        " on main's commit at the close), archive it (Zenodo with ZENODO_TOKEN, else a local"
        " folder), resolve it from the tag's tree, commit resolutions/market-NN.yaml and open"
        " an issue; watch the copies until the annulment date, and annul a market whose tag"
        " and copy are both missing then. Safe to rerun after a crash.",
    )
    close.add_argument(
        "--registry",
        type=Path,
        metavar="ROOT",
        help="the registry root (default: found above here)",
    )
    close.add_argument(
        "--as-of",
        type=_date,
        metavar="DATE",
        help="the date to close as of, YYYY-MM-DD (default: today, UTC; another date only"
        " with --dry-run, since tags and records are dated when they are made)",
    )
    close.add_argument("--dry-run", action="store_true", help="print the plan, change nothing")
    close.add_argument(
        "--archive",
        metavar="zenodo|local:DIR",
        help="where copies go (default: zenodo when ZENODO_TOKEN is set, else"
        " local:ROOT/.claims/archive)",
    )
    close.add_argument(
        "--reopen",
        type=int,
        metavar="N",
        help="maintainers only: move market N's final record to resolutions/reopened/ and"
        " resolve it again (its tag and archive copy are kept)",
    )
    close.add_argument(
        "--issues",
        type=Path,
        metavar="DIR",
        help="without GITHUB_TOKEN, where issues are written (default: ROOT/.claims/issues)",
    )
    close.add_argument(
        "--tarballs",
        type=Path,
        metavar="DIR",
        help="keep each archive tarball this run uploads here (the workflow attests them);"
        " its sha256 is recorded either way",
    )
    close.add_argument(
        "--plan-reruns",
        action="store_true",
        help="print the rerun plan of the wrapped attempts this run would resolve, batched"
        ' for the workflow\'s rerun jobs, {"batches": [[{"attempt": FOLDER, "commit": SHA},'
        ' ...], ...], "seconds_per_attempt": N, "seconds_per_job": N, "waiting": [{"market":'
        ' N, "attempts": N}]}, and change nothing',
    )
    close.add_argument(
        "--plan-pins",
        action="store_true",
        help="print the pin plan: every attempt this run would resolve, batched for the"
        " workflow's pin jobs (the --plan-reruns format), and change nothing",
    )
    _check_options(
        close,
        rerun_by_default=True,
        rerun_help="rerun wrapped attempts' adapters in the sandbox (the default);"
        " --no-rerun-adapters with --rerun-cache DIR counts only the rerun results recorded"
        " there and runs nothing (the scheduled workflow's close job). Either way a market"
        " with a wrapped attempt that has no rerun result is not recorded (blocked this run)",
    )

    demo = commands.add_parser(
        "demo",
        help="build the demo registry in a temporary git repository and verify it",
        description="Build examples/ into a fresh git repository with dated commits "
        "(freezes merged before the runs), then run verify on it and print the results.",
    )
    demo.add_argument(
        "--keep",
        type=Path,
        metavar="DIR",
        help="build the demo registry here and keep it (default: a temp folder)",
    )
    demo.add_argument(
        "--today",
        action="store_true",
        help="move every date of the demo (history, files, the scheduled job's runs) by whole"
        " days so that its last date is yesterday: a kept registry where a freeze merged now"
        " and trials run now come after all of main's history; then commit market 7, open for"
        " filing (resolve-by 180 days from today), to practise on",
    )
    # Filer tools: claims init, hash-cases, pin-log, scores.
    from bot.faces.tools.cli import (
        add_hash_cases_parser,
        add_init_parser,
        add_pin_log_parser,
        add_scores_parser,
    )

    add_init_parser(commands)
    add_hash_cases_parser(commands)
    add_pin_log_parser(commands)
    add_scores_parser(commands)
    # Built-in operator scorers: claims score weirdml-v3.
    from bot.faces.tools.score import add_score_parser

    add_score_parser(commands)
    _add_explain_parser(commands)
    from bot.faces.tools.adapters import add_adapt_parser

    add_adapt_parser(commands)
    from bot.faces.github.cli import add_github_parser

    add_github_parser(commands)
    from bot.faces.site.cli import add_site_parser

    add_site_parser(commands, _date)
    from bot.faces.help import add_epilogs

    add_epilogs(parser)
    return parser


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text) if len(text) == 10 else _bad_date(text)
    except ValueError:
        return _bad_date(text)


def _bad_date(text: str) -> date:
    raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD")


def _byte_count(text: str) -> int:
    if text.isascii() and text.isdigit() and len(text) <= 20:
        return int(text)
    raise argparse.ArgumentTypeError(f"{text!r} is not a number of bytes (0 or more)")


def _cache_folder() -> Path:
    """Where released data is cached: $CLAIMS_CACHE, else ~/.cache/claims/released."""
    configured = os.environ.get("CLAIMS_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "claims" / "released"


def _now() -> datetime:
    """The one place the bot reads the clock."""
    return datetime.now(UTC)


def _today() -> date:
    return _now().date()


def main(argv: Sequence[str] | None = None) -> int:
    """Run `claims` with `argv`; return the exit code."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "verify":
            return _verify(args)
        if args.command == "resolve":
            return _resolve(args)
        if args.command == "close-windows":
            return _close_windows(args)
        if args.command == "explain":
            return _explain(args)
        if args.command == "adapt":
            from bot.faces.tools.adapters import run_adapt

            return run_adapt(args)
        if args.command == "demo":
            from bot.faces.demo.run import run_demo

            return run_demo(args.keep, _today() if args.today else None)
        if args.command in ("init", "hash-cases", "pin-log", "scores"):
            from bot.faces.tools.cli import run_tool

            quiet = args.quiet and (args.command != "scores" or args.write)
            return _quietly(lambda: run_tool(args), quiet)
        if args.command == "score":
            from bot.faces.tools.score import run_score

            return run_score(args)
        if args.command == "github":
            from bot.faces.github.cli import run_github

            return run_github(args, _verify)
        if args.command == "site":
            from bot.faces.site.cli import run_site

            return run_site(args, _registry_root(args.registry, Path.cwd()), _today())
    except ClaimsError as error:
        print(printable(error.diagnostics()), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:  # pragma: no cover
        return EXIT_ERROR
    raise AssertionError(f"unhandled command {args.command}")  # pragma: no cover


def _quietly(run: Callable[[], int], quiet: bool) -> int:
    """`run`, printing only the last line it prints with `quiet` (-q: the outcome)."""
    if not quiet:
        return run()
    buffer = io.StringIO()
    try:
        with contextlib.redirect_stdout(buffer):
            return run()
    finally:
        printed = [line for line in buffer.getvalue().splitlines() if line.strip()]
        if printed:
            print(printed[-1])


def _registry_root(registry: Path | None, start: Path) -> Path:
    from bot.app.registry import RULES_PATH, find_root

    root = registry.resolve() if registry is not None else find_root(start)
    if root is None:
        raise ClaimsError(
            f"no registry found: {RULES_PATH} is missing at or above {start}",
            "run inside a registry checkout or pass --registry ROOT",
        )
    return root


def _relative(root: Path, paths: Sequence[Path]) -> list[str]:
    """Command-line paths as paths inside the registry."""
    relative = []
    for path in paths:
        if not path.exists() and not path.is_symlink():
            raise ClaimsError(f"{path} does not exist")
        try:
            inside = path.absolute().relative_to(root)
        except ValueError:
            try:
                inside = path.resolve().relative_to(root)
            except ValueError:
                raise ClaimsError(f"{path} is not inside the registry at {root}") from None
        relative.append(inside.as_posix() if str(inside) != "." else "attempts")
    return relative


def _verify(args: argparse.Namespace, github: GitHubFacts | None = None) -> int:
    """`claims verify`, and `claims github verify` with `github`: a callable giving, for the
    opened workspace, what the GitHub API says of the PR's author and the landing confirmer."""
    from dataclasses import replace

    from bot.app.api import open_workspace, verify_registry
    from bot.app.report_json import dumps, report_to_json
    from bot.faces.report.markdown import render_markdown
    from bot.faces.report.text import render_text

    root = _registry_root(args.registry, args.paths[0] if args.paths else Path.cwd())
    paths = _relative(root, args.paths) if args.paths else None
    clock = _now()
    as_of = args.as_of or clock.date()
    # A pull request is judged as merged now: at the run's clock, or, judged as of another
    # day, at that day's end (docs/spec-notes.md, "A green pull request stays green").
    merge_at = clock if as_of == clock.date() else None
    ports = _ports(args)
    with open_workspace(root, args.base_ref, args.head) as workspace:
        filer = None
        if github is not None:
            filer, confirm = github(workspace)
            ports = replace(ports, confirm_landing=confirm)
        report = verify_registry(
            workspace.registry,
            workspace.history,
            as_of,
            paths,
            workspace.changes,
            ports=ports,
            merge_at=merge_at,
            head_paths=workspace.head_paths,
            head_at=workspace.head_at,
            filer=filer,
        )
    to_stdout = args.json is not None and str(args.json) == "-"
    if args.json and not to_stdout:
        _write(args.json, dumps(report_to_json(report)))
    if args.markdown:
        _write(args.markdown, render_markdown(report))
    text = printable(render_text(report))
    if to_stdout:
        print(printable(dumps(report_to_json(report))).rstrip("\n"))
    else:
        print(text.rstrip("\n").rsplit("\n", 1)[-1] if args.quiet else text.rstrip("\n"))
    if report.registry_problems:
        return EXIT_ERROR
    return EXIT_INVALID if report.evidence == "invalid" else EXIT_VALID


def _resolve(args: argparse.Namespace) -> int:
    from bot.app.api import open_workspace, resolve_registry
    from bot.app.report_json import dumps, report_to_json
    from bot.edges.archive.local import LocalArchive
    from bot.faces.report.text import render_resolution

    root = _registry_root(args.registry, Path.cwd())
    archive = LocalArchive(args.archive_store or root / ".claims" / "archive")
    ports = _ports(args)
    with open_workspace(root, args.base_ref) as workspace:
        report = resolve_registry(
            workspace.registry,
            workspace.history,
            archive,
            args.as_of or _today(),
            market=args.market,
            ports=ports,
        )
    if args.json is not None and str(args.json) == "-":
        print(printable(dumps(report_to_json(report))).rstrip("\n"))
    else:
        if args.json:
            _write(args.json, dumps(report_to_json(report)))
        print(printable(render_resolution(report, brief=args.quiet)), end="")
    _cache_summary(ports)
    # A registry error exits 2; a warning (`snapshot-late`) is shown and changes no outcome.
    errors = [f for f in report.registry_problems if f.severity == "error"]
    return EXIT_ERROR if errors else EXIT_VALID


def _close_windows(args: argparse.Namespace) -> int:
    """`claims close-windows`: 0 when every step was done (or nothing was due), 2 when a step
    failed or a market is blocked (the job is safe to rerun)."""
    from bot.faces.jobs.close_windows import Job, close_windows
    from bot.faces.jobs.environment import archive_from, issues_from, repository_url

    root = _registry_root(args.registry, Path.cwd())
    today = _today()
    as_of = args.as_of or today
    if args.plan_reruns or args.plan_pins:
        return _plan_reruns(root, args, as_of)
    if as_of != today and not args.dry_run:
        raise ClaimsError(
            f"--as-of {as_of} is not today ({today}): tags and records are dated when they are"
            " made, so another date is only for --dry-run"
        )
    archive, kind = archive_from(args.archive, root, os.environ)
    job = Job(
        root=root,
        archive=archive,
        archive_kind=kind,
        repository_url=repository_url(root, os.environ),
        issues=issues_from(root, args.issues, os.environ),
        as_of=as_of,
        ports=_ports(args),
        clock=_now,
        # The job's token for git push, in the push process's environment only (gitops.py).
        push_token=os.environ.get("CLAIMS_PUSH_TOKEN", "").strip() or None,
        server_url=os.environ.get("GITHUB_SERVER_URL", "").strip() or "https://github.com",
        tarballs=args.tarballs,
    )
    report = close_windows(job, dry_run=args.dry_run, reopen=args.reopen)
    print(printable(report.render()), end="")
    _cache_summary(job.ports)
    return EXIT_ERROR if report.failed else EXIT_VALID


def _plan_reruns(root: Path, args: argparse.Namespace, as_of: date) -> int:
    """`claims close-windows --plan-reruns`: the rerun plan, as JSON on stdout (a market that
    does not fit is named on stderr)."""
    import json

    from bot.edges.archive.local import LocalArchive
    from bot.faces.jobs.close_windows import Job, pin_matrix, rerun_plan
    from bot.faces.jobs.issues import FileIssues

    job = Job(
        root=root,
        archive=LocalArchive(root / ".claims" / "archive"),  # never asked: see rerun_matrix
        archive_kind="local",
        repository_url=root.as_uri(),
        issues=FileIssues(root / ".claims" / "issues"),
        as_of=as_of,
        clock=_now,
    )
    plan = pin_matrix(job) if args.plan_pins else rerun_plan(job)
    which = (
        "attempts do not fit this run's pin jobs"
        if args.plan_pins
        else ("wrapped attempts do not fit this run's rerun jobs")
    )
    for market, count in plan.waiting:
        print(
            f"market {market}: its {count} {which}"
            " with the markets before it: none is planned, and it is blocked this run"
            " (docs/running-on-github.md, the schedule's limits)",
            file=sys.stderr,
        )
    print(json.dumps(plan.as_json(), separators=(",", ":")))
    return EXIT_VALID


def _ports(args: argparse.Namespace) -> Ports:
    """The ports the flags ask for: the raw-log and paper's-freeze fetchers, adapter reruns,
    the verification cache."""
    from bot.app.options import Ports

    fetcher = paper = None
    pins = _pins(args)
    if pins is not None:
        fetcher, paper = pins.raw_log, pins.paper_freeze
    elif args.fetch_raw_logs:
        from bot.edges.fetch import check_paper_freeze_url, check_raw_log_url

        fetcher, paper = check_raw_log_url, check_paper_freeze_url
    return Ports(
        fetch_raw_log=fetcher,
        rerun_adapter=_rerun(args),
        fetch_paper_freeze=paper,
        records_cache=_verify_cache(args),
    )


def _pins(args: argparse.Namespace) -> PinFetch | None:
    """--pin-results DIR: with --fetch-raw-logs, fetch each pin and record it there (the
    token-less pin job); alone, count the records there and fetch nothing (bot/app/pins.py)."""
    folder = getattr(args, "pin_results", None)
    if folder is None:
        if getattr(args, "keep_pins", False):
            raise ClaimsError(
                "--keep-pins needs --pin-results DIR", "name the folder to keep them in"
            )
        return None
    from bot.app.pins import PinFetch

    if args.fetch_raw_logs:
        plan = getattr(args, "keep_pins", None)
        return PinFetch(results=Path(folder), keep=_keep_plan(Path(plan)) if plan else None)
    if getattr(args, "keep_pins", False):
        raise ClaimsError(
            "--keep-pins keeps what is fetched, so it needs --fetch-raw-logs",
            "add --fetch-raw-logs, or leave out --keep-pins to count the records",
        )
    return PinFetch(results=Path(folder), recorded_only=True)


def _keep_plan(path: Path) -> KeepPlan:
    """--keep-pins PLAN: the files the pin plan keeps (bot/app/pins.py, KeepPlan)."""
    from bot.app.pins import KeepPlan, PinRecordError

    try:
        return KeepPlan.read(path)
    except PinRecordError as error:
        raise ClaimsError(
            f"--keep-pins: {error}",
            "give the pin plan `claims close-windows --plan-pins` printed",
        ) from error


def _verify_cache(args: argparse.Namespace) -> VerificationCache | None:
    """--verify-cache DIR: the verification cache (bot/app/cache.py), or None."""
    folder = getattr(args, "verify_cache", None)
    if folder is None:
        return None
    from bot.app.cache import VerificationCache

    return VerificationCache(Path(folder))


def _cache_summary(ports: Ports) -> None:
    """One line on stderr: what the verification cache did this run."""
    if ports.records_cache is None:
        return
    # Imported only with a cache (then already imported by `_verify_cache`).
    from bot.app.cache import VerificationCache

    cache = ports.records_cache
    if not isinstance(cache, VerificationCache):
        return
    stats = cache.stats
    print(
        f"verify cache {cache.folder}: {stats.hits} attempt(s) from the cache,"
        f" {stats.misses} checked from their files ({stats.stored} kept),"
        f" {stats.invalid} damaged entr{'y' if stats.invalid == 1 else 'ies'} found",
        file=sys.stderr,
    )


def _rerun(args: argparse.Namespace) -> AdapterRerun | None:
    """The adapter rerun when asked for (`resolve`: unless --no-rerun-adapters). Where the
    sandbox cannot run, the first wrapped attempt to rerun stops the command (exit 2)."""
    given = None
    if not args.rerun_adapters:
        # verify --rerun-cache DIR alone: the results recorded there count, nothing is run.
        given = getattr(args, "rerun_cache", None) if args.command != "resolve" else None
        if given is None:
            return None
    # Imported only for a rerun: it brings requests and the sandbox (~70 ms at start-up).
    from bot.app.rerun import AdapterRerun

    if given is not None:
        # close-windows: the same (its close job never runs an adapter).
        return AdapterRerun(cache=_cache_folder(), results=Path(given), recorded_only=True)
    results = args.rerun_cache or os.environ.get("CLAIMS_RERUN_CACHE")
    return AdapterRerun(
        cache=args.released_cache or _cache_folder(),
        results=Path(results) if results else None,
        allow_unisolated=args.allow_unisolated,
        keep_failures=bool(getattr(args, "keep_rerun_failures", False)) and bool(results),
        keep_released=bool(getattr(args, "keep_released", False)) and bool(results),
        keep_released_bytes=getattr(args, "keep_released_bytes", None),
    )


def _check_options(
    parser: argparse.ArgumentParser, rerun_by_default: bool, rerun_help: str | None = None
) -> None:
    """--fetch-raw-logs, --rerun-adapters and their settings, shared by verify and resolve;
    with `rerun_by_default` (resolve, close-windows) also --verify-cache."""
    parser.add_argument(
        "--fetch-raw-logs",
        action="store_true",
        help="also download raw_log.url (and a wrapped attempt's paper_freeze.url) and check"
        " its sha256, size, head, tail",
    )
    if rerun_by_default:
        parser.add_argument(
            "--rerun-adapters",
            action=argparse.BooleanOptionalAction,
            default=True,
            help=rerun_help
            or "rerun wrapped attempts' adapters in the sandbox and compare (the default);"
            " --no-rerun-adapters previews the markets with wrapped attempts left out",
        )
    else:
        parser.add_argument(
            "--rerun-adapters",
            action="store_true",
            help="rerun wrapped attempts' adapters in the sandbox and compare (without it a"
            " wrapped attempt is adapter-not-rerun: not qualifying)",
        )
    parser.add_argument(
        "--released-cache",
        type=Path,
        metavar="DIR",
        help="cache of released data, by sha256 (default: $CLAIMS_CACHE or"
        " ~/.cache/claims/released); it is re-hashed before use, so it may be restored",
    )
    parser.add_argument(
        "--rerun-cache",
        type=Path,
        metavar="DIR",
        help="keep rerun results here and reuse them while nothing they depend on changed"
        " (default: $CLAIMS_RERUN_CACHE, else none); trusted state: only the bot may write it."
        " verify without --rerun-adapters: count the results recorded here, run nothing",
    )
    parser.add_argument(
        "--pin-results",
        type=Path,
        metavar="DIR",
        help="with --fetch-raw-logs: record each pin's fetch here, one JSON file a pin"
        " (raw_log.url, paper_freeze.url); without it: count the records kept here and fetch"
        " nothing (a pin with no record is pin-not-fetched); trusted state: only the bot may"
        " write it",
    )
    parser.add_argument(
        "--keep-pins",
        metavar="PLAN",
        help="with --fetch-raw-logs --pin-results DIR: also keep each fetched file that matches"
        " its pin and that the pin plan PLAN (close-windows --plan-pins) lists in its `keep`,"
        " at most its planned bytes, as DIR/sha256/HEX (the close job's archive carries them)",
    )
    parser.add_argument(
        "--keep-released",
        action="store_true",
        help="with --rerun-adapters --rerun-cache DIR: also keep each released file that"
        " matched its sha256 as DIR/released/sha256/HEX (the close job's archive carries them)",
    )
    parser.add_argument(
        "--keep-released-bytes",
        type=_byte_count,
        metavar="N",
        help="with --keep-released: keep a released file only while all the files kept in"
        " DIR/released (each counted once) stay within N bytes (the rerun plan's"
        " released_bytes: a rerun job's share of what the close job downloads)",
    )
    if rerun_by_default:
        parser.add_argument(
            "--verify-cache",
            type=Path,
            metavar="DIR",
            help="keep each attempt's checked cases, trials and certificates here, by"
            " evidence digest, market contract, shared rules and the bot's code, and reuse"
            " them (default: none); trusted state: only the bot may write it"
            " (docs/performance.md)",
        )
    parser.add_argument(
        "--allow-unisolated",
        action="store_true",
        help="maintainers only: rerun adapters even where the network cannot be isolated",
    )


def _write(path: Path, text: str) -> None:
    """Write atomically: a crash never leaves a half-written report."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(printable(text), encoding="utf-8")
        temporary.replace(path)
    except OSError as error:
        raise ClaimsError(f"cannot write {path}: {error.strerror}") from None


# --- claims explain ------------------------------------------------------------------------


def _add_explain_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    explain = commands.add_parser(
        "explain",
        help="what stands between an attempt and qualifying, one line each",
        description="Judge attempt folders as verify does and print, one line each with a mark"
        " (ok, missing, fails): every bar, floor, adversarial route and red team, human check"
        " and date, and the unit structure, for invalid evidence too. A missed bar is marked"
        " outcome: the result, not something in the way. Exit 0 when nothing is missing or"
        " fails, 1 otherwise.",
    )
    explain.add_argument(
        "paths",
        nargs="*",
        type=Path,
        metavar="PATH",
        help="attempt folders, or folders holding them (default: attempts/)",
    )
    explain.add_argument(
        "--registry",
        type=Path,
        metavar="ROOT",
        help="the registry root (default: found above PATH or here)",
    )
    explain.add_argument(
        "--as-of",
        type=_date,
        metavar="DATE",
        help="judge qualification as of this date, YYYY-MM-DD (default: today, UTC)",
    )
    explain.add_argument(
        "--base-ref",
        metavar="REF",
        help=f"the base branch: freeze order is read from its history ({BASE_REF_DEFAULT});"
        " naming it also counts what the checked-out branch may not change against the folders"
        " it touches",
    )
    explain.add_argument(
        "--json",
        nargs="?",
        const="",  # a bare --json: stdout, as before --json took a FILE
        metavar="FILE",
        help="write the JSON explanation to FILE, or with - print it instead of the text"
        " (a bare --json, deprecated, prints it too)",
    )
    explain.add_argument(
        "--brief",
        action="store_true",
        help=f"list at most {BRIEF_SAME} problems with the same reason code per attempt"
        " (default: every one)",
    )
    explain.add_argument("-q", "--quiet", action="store_true", help="print only the total line")


# `claims explain --brief`: past this many evidence lines with one reason code, a count.
BRIEF_SAME = 5


def _explain(args: argparse.Namespace) -> int:
    from bot.app.api import explain_registry, open_workspace
    from bot.app.report_json import dumps, explanation_to_json
    from bot.faces.report.text import render_explanation

    paths: list[Path] = list(args.paths)
    json_to: str | None = args.json
    if json_to is not None and json_to != "-" and not paths and Path(json_to).is_dir():
        # `claims explain --json FOLDER`, the form before --json took a FILE: the folder is
        # what to explain, and the JSON goes to stdout as it did.
        paths, json_to = [Path(json_to)], "-"
        _deprecated("`claims explain --json PATH` is read as `claims explain PATH --json -`")
    elif json_to == "":
        json_to = "-"
        _deprecated("a bare `claims explain --json` (write `--json -` for stdout)")
    root = _registry_root(args.registry, paths[0] if paths else Path.cwd())
    relative = _relative(root, paths) if paths else ["attempts"]
    clock = _now()
    as_of = args.as_of or clock.date()
    with open_workspace(root, args.base_ref) as workspace:
        explanations, problems = explain_registry(
            workspace.registry,
            workspace.history,
            as_of,
            relative,
            workspace.changes,
            workspace.head_paths,
            workspace.head_at,
            # As verify: a pull request is judged as merged at the run's clock (see `_verify`).
            merge_at=clock if as_of == clock.date() else None,
        )
    text = printable(render_explanation(explanations, BRIEF_SAME if args.brief else None))
    if json_to is not None:
        report = printable(dumps(explanation_to_json(explanations)))
        if json_to == "-":
            print(report.rstrip("\n"))
        else:
            _write(Path(json_to), report)
    if json_to != "-":
        print(text.rstrip("\n").rsplit("\n", 1)[-1] if args.quiet else text.rstrip("\n"))
    if problems:
        for finding in problems:
            print(
                printable(f"registry problem: {finding.code.value}: {finding.message}"),
                file=sys.stderr,
            )
        return EXIT_ERROR
    blocked = any(e.blocking for e in explanations)
    return EXIT_INVALID if blocked else EXIT_VALID


def _deprecated(what: str) -> None:
    """A form the CLI still takes but will not document: say so on stderr."""
    print(f"note: deprecated: {what}; see the README's CLI conventions", file=sys.stderr)

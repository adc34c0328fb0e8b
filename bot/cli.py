"""`claims`: parse arguments, build the objects a command needs, run it, return an exit code.

Exit codes (SPEC 12): 0 all evidence valid, 1 some evidence invalid, 2 usage or environment
error (including problems in the registry's own files, which a maintainer must fix).
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

from bot import __version__
from bot.errors import ClaimsError
from bot.findings import Finding

__all__ = ["main"]

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
        description="Check every evidence rule of SPEC 4 on attempt folders and report "
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
    verify.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    verify.add_argument(
        "--markdown",
        type=Path,
        metavar="FILE",
        help="write a Markdown report (for a PR comment) here",
    )
    verify.add_argument(
        "--base-ref",
        metavar="REF",
        help="the base branch of a pull request (default: main): freeze order is "
        "read from it and the branch may change only its attempt folders",
    )
    _check_options(verify)
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
        "--base-ref", metavar="REF", help="the branch whose history counts (default: main)"
    )
    resolve.add_argument(
        "--archive-store",
        type=Path,
        metavar="DIR",
        help="local archive records (default: ROOT/.claims/archive)",
    )
    resolve.add_argument("--json", type=Path, metavar="FILE", help="write the JSON report here")
    resolve.add_argument("-q", "--quiet", action="store_true", help="print one line per market")
    _check_options(resolve)

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
    from bot.adapters import add_adapt_parser

    add_adapt_parser(commands)
    return parser


def _date(text: str) -> date:
    try:
        return date.fromisoformat(text) if len(text) == 10 else _bad_date(text)
    except ValueError:
        return _bad_date(text)


def _bad_date(text: str) -> date:
    raise argparse.ArgumentTypeError(f"{text!r} is not a date YYYY-MM-DD")


def _cache_folder() -> Path:
    """Where released data is cached: $CLAIMS_CACHE, else ~/.cache/claims/released."""
    configured = os.environ.get("CLAIMS_CACHE")
    return Path(configured) if configured else Path.home() / ".cache" / "claims" / "released"


def _today() -> date:
    """The one place the bot reads the clock."""
    return datetime.now(UTC).date()


def main(argv: Sequence[str] | None = None) -> int:
    """Run `claims` with `argv`; return the exit code."""
    args = _parser().parse_args(argv)
    try:
        if args.command == "verify":
            return _verify(args)
        if args.command == "resolve":
            return _resolve(args)
        if args.command == "adapt":
            from bot.adapters import run_adapt

            return run_adapt(args)
        if args.command == "demo":
            from bot.demo.run import run_demo

            return run_demo(args.keep)
    except ClaimsError as error:
        print(_printable(error.diagnostics()), file=sys.stderr)
        return EXIT_ERROR
    except KeyboardInterrupt:  # pragma: no cover
        return EXIT_ERROR
    raise AssertionError(f"unhandled command {args.command}")  # pragma: no cover


def _verify(args: argparse.Namespace) -> int:
    from bot.history import History, open_history
    from bot.registry import attempt_folders, open_registry
    from bot.report.json_ import render_json
    from bot.report.markdown import render_markdown
    from bot.report.text import render_text
    from bot.verify import VerifyOptions, changed_attempt_folders, check_changes, verify_attempt

    start = args.paths[0] if args.paths else Path.cwd()
    registry = open_registry(args.registry, start)
    history = open_history(registry.root, args.base_ref)
    change_findings: list[Finding] = []
    paths = list(args.paths)
    if args.base_ref and isinstance(history, History):
        changes = history.changes()
        changed = changed_attempt_folders(changes)
        if not paths:
            paths = [registry.root / f for f in changed if (registry.root / f).is_dir()]
            if not paths:
                raise ClaimsError(f"the branch changes no attempt folder against {args.base_ref}")
        change_findings = check_changes(changes, changed)
    folders = attempt_folders(registry.root, paths)
    if not folders:
        raise ClaimsError("no attempt folders found", "name an attempt folder, or attempts/")
    fetcher = _fetcher(args)
    options = VerifyOptions(
        history=history,
        fetch_raw_log=fetcher,
        as_of=args.as_of or _today(),
        rerun_adapter=_rerun(args),
    )
    verdicts = [
        replace(verdict, findings=(*change_findings, *verdict.findings))
        for verdict in (verify_attempt(registry, folder, options) for folder in folders)
    ]
    registry_findings = list(dict.fromkeys(f for v in verdicts for f in v.registry_findings))
    base_ref = history.base_ref if isinstance(history, History) else None
    if args.json:
        _write(args.json, render_json(verdicts, registry_findings, base_ref))
    if args.markdown:
        _write(args.markdown, render_markdown(verdicts, registry_findings))
    text = _printable(render_text(verdicts, registry_findings))
    print(text.rstrip("\n").rsplit("\n", 1)[-1] if args.quiet else text.rstrip("\n"))
    if registry_findings:
        return EXIT_ERROR
    return EXIT_INVALID if any(v.evidence == "invalid" for v in verdicts) else EXIT_VALID


def _resolve(args: argparse.Namespace) -> int:
    from bot.archive.local import LocalArchive
    from bot.dates import MarketDates
    from bot.history import History, open_history
    from bot.registry import attempt_folders, open_registry
    from bot.report.json_ import render_resolution_json
    from bot.report.text import render_resolution
    from bot.resolution import Snapshot, resolve_market
    from bot.verify import VerifyOptions, verify_attempt

    registry = open_registry(args.registry, Path.cwd())
    as_of: date = args.as_of or _today()
    history = open_history(registry.root, args.base_ref)
    markets, problems = registry.markets()
    if args.market is not None:
        markets = [market for market in markets if market.id == args.market]
        if not markets and not problems:
            raise ClaimsError(f"market {args.market} has no contract in this registry")
    archive = LocalArchive(args.archive_store or registry.root / ".claims" / "archive")
    options = VerifyOptions(
        history=history, as_of=as_of, fetch_raw_log=_fetcher(args), rerun_adapter=_rerun(args)
    )
    attempts_root = registry.root / "attempts"
    folders = attempt_folders(registry.root, [attempts_root]) if attempts_root.is_dir() else []
    verdicts = [verify_attempt(registry, folder, options) for folder in folders]
    problems += [finding for verdict in verdicts for finding in verdict.registry_findings]
    resolutions = []
    for market in markets:
        dates = MarketDates.of(
            market.resolve_by, registry.rules.window_days, registry.rules.annul_after_days
        )
        record = archive.record(dates.snapshot_tag)
        snapshot = Snapshot(
            tag=dates.snapshot_tag,
            tag_exists=isinstance(history, History) and history.has_tag(dates.snapshot_tag),
            archived=record is not None,
            archive_ref=_archive_ref(record),
        )
        mine = [verdict for verdict in verdicts if verdict.market == market.id]
        unchecked = [v.attempt for v in mine if v.kind == "wrapped" and not args.rerun_adapters]
        notes = (
            [
                f"{len(unchecked)} wrapped attempt(s) counted without rerunning their adapters"
                " (pass --rerun-adapters)"
            ]
            if unchecked
            else []
        )
        resolutions.append(resolve_market(market, dates, mine, snapshot, as_of, notes))
    problems = list(dict.fromkeys(problems))
    if args.json:
        _write(args.json, render_resolution_json(resolutions, as_of, problems))
    print(_printable(render_resolution(resolutions, as_of, problems, brief=args.quiet)), end="")
    return EXIT_ERROR if problems else EXIT_VALID


def _fetcher(args: argparse.Namespace) -> Any:
    """The raw-log fetcher when --fetch-raw-logs was given."""
    if not args.fetch_raw_logs:
        return None
    from bot.fetch import check_raw_log_url

    return check_raw_log_url


def _rerun(args: argparse.Namespace) -> Any:
    """The adapter rerun when --rerun-adapters was given; exit 2 where it cannot be isolated."""
    if not args.rerun_adapters:
        return None
    from bot.rerun import AdapterRerun
    from bot.sandbox import isolation

    reason = isolation()
    if reason is not None and not args.allow_unisolated:
        raise ClaimsError(
            f"cannot rerun adapters here: {reason}",
            "install bubblewrap (apt-get install bubblewrap), or, as a maintainer who"
            " accepts the risk, pass --allow-unisolated",
        )
    return AdapterRerun(
        cache=args.released_cache or _cache_folder(), allow_unisolated=args.allow_unisolated
    )


def _check_options(parser: argparse.ArgumentParser) -> None:
    """--fetch-raw-logs, --rerun-adapters and their settings, shared by verify and resolve."""
    parser.add_argument(
        "--fetch-raw-logs",
        action="store_true",
        help="also download raw_log.url and check its sha256, size, head, tail",
    )
    parser.add_argument(
        "--rerun-adapters",
        action="store_true",
        help="rerun wrapped attempts' adapters in the sandbox and compare",
    )
    parser.add_argument(
        "--released-cache",
        type=Path,
        metavar="DIR",
        help="content-addressed cache of released data (default: $CLAIMS_CACHE"
        " or ~/.cache/claims/released)",
    )
    parser.add_argument(
        "--allow-unisolated",
        action="store_true",
        help="maintainers only: rerun adapters even where the network cannot be isolated",
    )


def _archive_ref(record: dict[str, object] | None) -> str | None:
    """The DOI (or id) an archive record names, if any."""
    if record is None:
        return None
    value = record.get("doi") or record.get("id")
    return str(value) if value else None


def _printable(text: str) -> str:
    """`text` with lone surrogates as `\\udcXX` escapes, so it can be written as UTF-8.

    File and folder names that are not UTF-8 reach reports as lone surrogates (Python's
    surrogateescape); in JSON output the escape is JSON's own, so the report stays parseable.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def _write(path: Path, text: str) -> None:
    """Write atomically: a crash never leaves a half-written report."""
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(_printable(text), encoding="utf-8")
        temporary.replace(path)
    except OSError as error:
        raise ClaimsError(f"cannot write {path}: {error.strerror}") from None

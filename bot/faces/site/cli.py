"""`claims site --out DIR`: the parser and the command (see bot/faces/site/build.py)."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable
from datetime import date
from pathlib import Path

__all__ = ["add_site_parser", "run_site"]


def add_site_parser(
    commands: argparse._SubParsersAction[argparse.ArgumentParser],
    parse_date: Callable[[str], date],
) -> None:
    site = commands.add_parser(
        "site",
        help="build the registry's static website (markets, attempts, shared rules)",
        description="Build the registry's website into DIR: the shared rules page, a market"
        " index, a page per market and per attempt with charts, and markets.json /"
        " market-NN.json. The verdicts come from report files (--verify-report,"
        " --resolve-report) or, without them, from verify and resolve run here (wrapped"
        " attempts' adapters are not rerun). DIR is replaced whole: the site is built in a"
        " new folder beside it and renamed into place.",
    )
    site.add_argument("--out", type=Path, required=True, metavar="DIR", help="the site folder")
    site.add_argument(
        "--registry",
        type=Path,
        metavar="ROOT",
        help="the registry root (default: found above here)",
    )
    site.add_argument(
        "--verify-report",
        type=Path,
        action="append",
        default=[],
        metavar="FILE",
        help="a `claims verify --json` report to show; repeat it, and a later report's"
        " attempt replaces an earlier one's (e.g. the main report, then the reruns')",
    )
    site.add_argument(
        "--resolve-report",
        type=Path,
        metavar="FILE",
        help="a `claims resolve --json` report: each market's state and outcome where no"
        " resolution record (resolutions/market-NN.yaml) says it finally",
    )
    site.add_argument(
        "--as-of",
        type=parse_date,
        metavar="DATE",
        help="without report files: verify and resolve as of this date (default: today, UTC)",
    )
    site.add_argument(
        "--base-ref",
        metavar="REF",
        help="without report files: the branch whose history counts (default: main, else"
        " origin/main)",
    )


def run_site(args: argparse.Namespace, root: Path, today: date) -> int:
    from bot.faces.site.build import build_site

    built = build_site(
        root,
        args.out,
        today,
        verify_reports=args.verify_report,
        resolve_report=args.resolve_report,
        as_of=args.as_of,
        base_ref=args.base_ref,
    )
    print(
        f"site: {built.files} files, {built.markets} market(s), {built.attempts} attempt"
        f" page(s) in {built.out}"
    )
    for error in built.errors:  # one page each; the rest of the site is built
        print(f"site: {error} (drawn as an error page)", file=sys.stderr)
    return 0

"""Built-in adapters: `claims adapt <harness> LOG --out DIR` turns a harness's log into evidence.

`add_adapt_parser` adds the `adapt` command (with one sub-command per adapter) to the CLI's
sub-parsers; `run_adapt` runs the parsed command. Each adapter raises `ClaimsError` (exit 2)
for a log it cannot read, naming the problem.
"""

from __future__ import annotations

import argparse

from bot.faces.tools.adapters import inspect_

__all__ = ["add_adapt_parser", "run_adapt"]


def add_adapt_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `adapt` and its adapters to the CLI's sub-parsers (dest of the adapter: `adapter`)."""
    adapt = commands.add_parser(
        "adapt",
        help="turn a harness's evaluation log into evidence files",
        description="Write freeze-cases.jsonl, trials.jsonl and a freeze.yaml stub from an "
        "evaluation harness's log, deterministically (docs/spec.md §9).",
    )
    adapters = adapt.add_subparsers(dest="adapter", required=True, metavar="ADAPTER")
    inspect_.add_parser(adapters)


def run_adapt(args: argparse.Namespace) -> int:
    """Run the adapter `args.adapter` names; return the exit code."""
    if args.adapter == "inspect":
        return inspect_.run(args)
    raise AssertionError(f"unhandled adapter {args.adapter}")  # pragma: no cover

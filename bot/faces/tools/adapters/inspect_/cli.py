"""`claims adapt inspect`: its options and its run."""

from __future__ import annotations

import argparse
from pathlib import Path
from typing import Any

from bot.faces.tools.adapters.inspect_.convert import DEFAULT_EPOCHS, EPOCH_MODES, convert
from bot.faces.tools.adapters.inspect_.fields import FieldMap, parse_source, parse_value_map
from bot.faces.tools.adapters.inspect_.files import FILES, write_files
from bot.faces.tools.adapters.inspect_.values import checked_name

__all__ = ["add_parser", "run"]


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inspect` to the `adapt` command's sub-parsers."""
    parser = subparsers.add_parser(
        "inspect",
        help="an Inspect (inspect_ai) evaluation log",
        description="Turn an Inspect evaluation log (.json, or .eval with the inspect extra) "
        "into freeze-cases.jsonl, trials.jsonl and a freeze.yaml stub: one case and one trial "
        "per sample id, sorted by id, the same bytes on every run.",
    )
    parser.add_argument("log", type=Path, metavar="LOG", help="the Inspect log (.json or .eval)")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="write the evidence files here"
    )
    parser.add_argument(
        "--scorer", metavar="NAME", help="the scorer that judges trials (needed if several)"
    )
    parser.add_argument(
        "--epochs",
        choices=EPOCH_MODES,
        default=DEFAULT_EPOCHS,
        help="how epochs reduce to one trial per case: all-must-pass (default: a case fails "
        "if any epoch fails) or first",
    )
    parser.add_argument(
        "--family-field",
        metavar="FIELD",
        help="take each case's family from this sample metadata field (default: the task"
        " name); the same as --family-from metadata.FIELD",
    )
    sources = "SOURCE is metadata.KEY or score.SCORER, optionally :VALUE=NEW,...[,*=NEW]"
    for name, default in (
        ("kind", "metadata.kind when it is a string, else 'task'"),
        ("family", "the task name"),
        ("system", "the eval's model"),
        ("truth", "none: no result.truth"),
    ):
        parser.add_argument(
            f"--{name}-from",
            type=_option(parse_source),
            metavar="SOURCE",
            help=f"each {'trial' if name in ('system', 'truth') else 'case'}'s {name}"
            f" (default: {default}); {sources}",
        )
    parser.add_argument(
        "--verdict-map",
        type=_option(parse_value_map),
        metavar="VALUE=VERDICT,...",
        help="write these verdicts for the scorer's values, e.g. C=caught,I=false_safe"
        " (default: pass, fail or error); errored trials stay 'error'",
    )
    parser.add_argument(
        "--evaluator",
        metavar="NAME",
        help="each trial's evaluator, a unit key (default: null; trials that share an"
        " evaluator join one unit, so name one only when a person or model really judged)",
    )


def _option(parse: Any) -> Any:
    """An argparse type from a parser raising ValueError (argparse shows the message)."""

    def parsed(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parsed.__name__ = parse.__name__
    return parsed


def run(args: argparse.Namespace) -> int:
    """`claims adapt inspect`: write the files and say what they hold. Raises InspectLogError."""
    fields = FieldMap(
        kind=args.kind_from,
        family=args.family_from,
        system=args.system_from,
        truth=args.truth_from,
        verdicts=args.verdict_map,
        evaluator=args.evaluator,
    )
    if args.evaluator is not None:
        checked_name(args.evaluator, "--evaluator")
    adapted = convert(args.log, args.scorer, args.epochs, args.family_field, fields=fields)
    write_files(adapted, args.out)
    counts = ", ".join(f"{count} {verdict}" for verdict, count in adapted.verdicts.items())
    print(f"wrote {args.out / FILES[0]}: {adapted.cases} cases")
    print(f"wrote {args.out / FILES[1]}: {adapted.cases} trials ({counts}; epochs {args.epochs})")
    print(f"wrote {args.out / FILES[2]}: a stub; review method and code_commit before filing")
    return 0

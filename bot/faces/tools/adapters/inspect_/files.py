"""The evidence files: serialised, read back with the verifier's own loader and rules, then
written."""

from __future__ import annotations

import io
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.faces.tools.adapters.inspect_.values import InspectLogError

__all__ = ["FILES", "Adapted", "serialise", "write_files"]


FILES = ("freeze-cases.jsonl", "trials.jsonl", "freeze.yaml")


# Every unit key a market may name (market.schema.json): all present in every trial.
_UNIT_KEYS = ("system", "trajectory", "evaluator", "attack_family")


@dataclass(frozen=True, slots=True)
class Adapted:
    """The evidence files (name -> bytes) and counts for the summary line."""

    files: dict[str, bytes]
    cases: int
    verdicts: dict[str, int] = field(default_factory=dict)


def serialise(
    cases: list[dict[str, Any]],
    trials: list[dict[str, Any]],
    freeze_and_comments: tuple[dict[str, Any], list[str]],
) -> dict[str, bytes]:
    """The three files, read back with the verifier's loader and rules before they are kept."""
    import yaml

    from bot.edges.dump import dump_jsonl, dump_yaml
    from bot.rules.evidence.cases import check_cases
    from bot.rules.evidence.schema import validate
    from bot.rules.evidence.trials import check_trials
    from bot.vocab.findings import Finding
    from bot.vocab.jsonl import parse_jsonl

    freeze, comments = freeze_and_comments
    try:
        case_bytes = dump_jsonl(cases)
        trial_bytes = dump_jsonl(trials)
        header = "".join(f"# {line}\n" for line in comments).encode()
        freeze_bytes = header + dump_yaml(freeze)
    except (UnicodeEncodeError, ValueError, yaml.YAMLError) as error:
        raise InspectLogError(f"the log's text cannot be written as evidence: {error}") from None
    problems: list[Finding] = []
    case_records, found = parse_jsonl(io.BytesIO(case_bytes), "freeze-cases.jsonl")
    problems += found
    checked, found = check_cases(case_records, "freeze-cases.jsonl")
    problems += found
    trial_records, found = parse_jsonl(io.BytesIO(trial_bytes), "trials.jsonl")
    problems += found
    problems += check_trials(trial_records, checked, _UNIT_KEYS, "trials.jsonl")[1]
    problems += validate("freeze", freeze, "freeze.yaml")
    if problems:
        shown = "; ".join(
            f"{p.file}{f':{p.line}' if p.line else ''}: {p.message}" for p in problems[:3]
        )
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise InspectLogError(f"the evidence from this log would be refused: {shown}{more}")
    return {FILES[0]: case_bytes, FILES[1]: trial_bytes, FILES[2]: freeze_bytes}


def write_files(adapted: Adapted, out: Path) -> list[str]:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InspectLogError(f"cannot create {out}: {error.strerror or error}") from None
    for name, data in adapted.files.items():
        target = out / name
        temporary = out / f".{name}.tmp"
        try:
            temporary.write_bytes(data)
            temporary.replace(target)
        except OSError as error:
            raise InspectLogError(f"cannot write {target}: {error.strerror or error}") from None
    return list(adapted.files)

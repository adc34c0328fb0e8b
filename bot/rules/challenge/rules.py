"""Checks of a challenge run and of the attempts that name it (docs/spec.md §11): values in,
findings out, no I/O. docs/challenge-runs.md says what each one guards against."""

from __future__ import annotations

import json
import math
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import lru_cache
from pathlib import PurePosixPath

from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.models import Case, Trial
from bot.rules.evidence.schema import validate
from bot.rules.evidence.withheld import fold_key, fold_text, withheld_key_pattern
from bot.vocab.document import Record
from bot.vocab.findings import Code, Finding
from bot.vocab.values import JSONObject, json_difference, json_equal

__all__ = [
    "ScoredCase",
    "check_run_cases",
    "check_text_leaks",
    "compare_cases",
    "compare_recomputed",
    "compare_trials",
    "same_value",
    "without_repeats",
]


@dataclass(frozen=True, slots=True)
class ScoredCase:
    """What the run's scorer gave one case of one attempt, and where that is written."""

    result: JSONObject
    file: str
    line: int | None


def check_run_cases(
    records: Sequence[Record], file: str, complete: bool = True
) -> tuple[dict[str, Case], list[Finding]]:
    """A run's freeze-cases.jsonl: hash-only cases (no `content`: the seed's Hidden Suites),
    each id once, each content hash once. Returns the cases by id and the findings."""
    findings: list[Finding] = []
    kept = []
    for record in records:
        problems = validate("challenge-case", record.data, file, line=record.line)
        if "content" in record.data:
            problems = [
                Finding(
                    Code.SCHEMA,
                    "content: a hidden suite's case is published as its hash only (case_id,"
                    " sha256, family, kind, public); its content stays with the operator",
                    file,
                    record.line,
                )
            ]
        findings += problems
        if not problems:
            kept.append(record)
    cases, problems = check_cases(kept, file, complete=complete and len(kept) == len(records))
    if not records and complete:
        problems = [f for f in problems if f.code is not Code.FILE_EMPTY]
        findings.append(Finding(Code.FILE_EMPTY, "no frozen cases: the file is empty", file))
    return cases, findings + problems


_COMPARED = ("sha256", "family", "kind", "public", "content")


def compare_cases(
    own: Mapping[str, Case], run: Mapping[str, Case], own_file: str, run_file: str
) -> list[Finding]:
    """A challenge attempt's freeze-cases.jsonl must hold exactly the run's cases, each as the
    run froze it (`challenge-case-mismatch`): no case of its own, none left out, none changed."""
    findings = []
    for case in own.values():
        theirs = run.get(case.case_id)
        if theirs is None:
            message = f"case {case.case_id!r} is not a case of the run ({run_file})"
            findings.append(Finding(Code.CHALLENGE_CASE_MISMATCH, message, own_file, case.line))
            continue
        for name in _COMPARED:
            mine, frozen = getattr(case, name), getattr(theirs, name)
            # By JSON type (bot/vocab/values.py): `true` copied as 1 is another value, and the
            # bars, which select cases by JSON type, would not select it.
            if not json_equal(mine, frozen):
                message = (
                    f"case {case.case_id!r}: {name} differs from the run's ({run_file} line"
                    f" {theirs.line})"
                    + (
                        ": the hidden suite publishes no content"
                        if name == "content"
                        else _shown_difference(name, mine, frozen)
                    )
                )
                findings.append(Finding(Code.CHALLENGE_CASE_MISMATCH, message, own_file, case.line))
                break
    for case in run.values():
        if case.case_id not in own:
            message = (
                f"case {case.case_id!r} of the run ({run_file} line {case.line}) is missing:"
                " a challenge attempt runs every case of its run"
            )
            findings.append(Finding(Code.CHALLENGE_CASE_MISMATCH, message, own_file))
    return findings


def _shown_difference(name: str, mine: object, frozen: object) -> str:
    """The first field where a copied case differs, and what to write, as ": public.hard is 1
    here, true in the run (copy the run's line as it is)"."""
    found = json_difference(mine, frozen, (name,))
    if found is None:  # pragma: no cover - only called when the values differ
        return ""
    field, here, there = found
    return (
        f": {field} is {_json_shown(here)} here, {_json_shown(there)} in the run"
        " (copy the run's line as it is)"
    )


def _json_shown(value: object, limit: int = 60) -> str:
    """A value as JSON writes it (`true`, not Python's `True`), cut at `limit` characters."""
    if not isinstance(value, str | int | float | bool | list | dict) and value is not None:
        return repr(value)  # absent
    text = json.dumps(value, ensure_ascii=True)
    return text if len(text) <= limit else text[: limit - 3] + "..."


def same_value(mine: object, theirs: object, tolerance: float = 1e-9) -> bool:
    """JSON equality, numbers (not booleans) within `tolerance`."""
    numbers = (int, float)
    if isinstance(mine, numbers) and isinstance(theirs, numbers):
        if isinstance(mine, bool) or isinstance(theirs, bool):
            return mine is theirs
        if isinstance(mine, int) and isinstance(theirs, int):
            return mine == theirs  # exactly, however large
        return math.isclose(float(mine), float(theirs), rel_tol=0.0, abs_tol=tolerance)
    if isinstance(mine, dict) and isinstance(theirs, dict):
        return mine.keys() == theirs.keys() and all(
            same_value(mine[key], theirs[key], tolerance) for key in mine
        )
    if isinstance(mine, list) and isinstance(theirs, list):
        return len(mine) == len(theirs) and all(
            same_value(a, b, tolerance) for a, b in zip(mine, theirs, strict=True)
        )
    return json_equal(mine, theirs)


def _differing(mine: JSONObject, theirs: JSONObject, tolerance: float) -> list[str]:
    names = sorted({*mine, *theirs})
    return [
        name
        for name in names
        if name not in mine
        or name not in theirs
        or not same_value(mine[name], theirs[name], tolerance)
    ]


def _shown(value: object) -> str:
    text = repr(value)
    return text if len(text) <= 60 else text[:57] + "..."


def compare_trials(
    trials: Sequence[Trial],
    scored: Mapping[str, ScoredCase] | None,
    trials_file: str,
    where: str,
) -> list[Finding]:
    """Each trial carries exactly the result the run's scorer gave its case.

    `scored` is None when the operator has published no score file for this attempt (`where`
    names the file it would be): `operator-score-missing`, once.
    """
    if scored is None:
        message = (
            f"the operator has published no scores for this attempt ({where}): a challenge"
            " attempt's results come from the run's scorer"
        )
        return [Finding(Code.OPERATOR_SCORE_MISSING, message, where)]
    findings = []
    for trial in trials:
        theirs = scored.get(trial.case_id)
        if theirs is None:
            message = (
                f"case {trial.case_id!r}: the operator's scores ({where}) have no result for it"
            )
            findings.append(Finding(Code.OPERATOR_SCORE_MISSING, message, trials_file, trial.line))
            continue
        # Exactly the operator's numbers (1 and 1.0 are one JSON number): any slack would let
        # a filer break a tie or cross a threshold in its favour.
        fields = _differing(dict(trial.result), theirs.result, 0.0)
        if fields:
            name = fields[0]
            mine = _shown(trial.result.get(name, "absent"))
            message = (
                f"case {trial.case_id!r}: result.{name} is {mine},"
                f" the operator's scorer gave {_shown(theirs.result.get(name, 'nothing'))}"
                f" ({theirs.file} line {theirs.line})"
                + (f"; {len(fields) - 1} more field(s) differ" if len(fields) > 1 else "")
            )
            findings.append(Finding(Code.OPERATOR_SCORE_MISMATCH, message, trials_file, trial.line))
    return findings


def compare_recomputed(
    recomputed: Mapping[str, Mapping[str, float]],
    stated: Mapping[str, ScoredCase],
    fields: Sequence[str],
    tolerance: float,
    scorer: str,
    input_file: str,
    results_file: str,
) -> list[Finding]:
    """The operator's stated results against the scorer's recomputation from its inputs:
    every recomputed field within `tolerance` (`operator-score-mismatch`, naming the line)."""
    findings = []
    for case_id, mine in sorted(recomputed.items()):
        theirs = stated.get(case_id)
        if theirs is None:
            message = (
                f"case {case_id!r}: {input_file} scores it, results.jsonl has no result for it"
            )
            findings.append(Finding(Code.OPERATOR_SCORE_MISMATCH, message, results_file))
            continue
        for name in fields:
            value = theirs.result.get(name)
            if name not in mine:
                continue
            if (
                not isinstance(value, int | float)
                or isinstance(value, bool)
                or not same_value(float(value), mine[name], tolerance)
            ):
                message = (
                    f"case {case_id!r}: result.{name} is {_shown(value)}, {scorer} recomputes"
                    f" {mine[name]:.6f} from {input_file}"
                )
                findings.append(
                    Finding(Code.OPERATOR_SCORE_MISMATCH, message, theirs.file, theirs.line)
                )
    for case_id, theirs in sorted(stated.items()):
        if case_id not in recomputed:
            message = (
                f"case {case_id!r}: results.jsonl states a result, {input_file} holds no event"
                f" for it, so {scorer} cannot recompute it"
            )
            findings.append(
                Finding(Code.OPERATOR_SCORE_MISMATCH, message, theirs.file, theirs.line)
            )
    return findings


_CELL_FILES = (".csv", ".tsv")


@lru_cache(maxsize=256)
def _cell_pattern(name: str) -> re.Pattern[str]:
    """A withholdable field as a cell of a CSV or TSV file (a column's header): its words
    between cell separators (`,`, `;`, tab, `|`) or the line's ends."""
    words = [re.escape(word) for word in re.split(r"[\s_-]+", fold_text(name)) if word]
    joined = r"[\s_-]*".join(words)
    cell = rf"\s*[\"']?{joined}[\"']?\s*"
    return re.compile(rf"(?:^|[,;\t|]){cell}(?:[,;\t|]|$)")


_ESCAPE = re.compile(r"\\u([0-9a-fA-F]{4})")


def _unescaped(text: str) -> str:
    """JSON's `\\uXXXX` escapes read as their characters: a JSON log's
    `"reference\\u005fanswer"` is the key `reference_answer`."""
    if "\\u" not in text:
        return text
    return _ESCAPE.sub(lambda match: chr(int(match.group(1), 16)), text)


def _check_path(file: str, names: Sequence[str]) -> list[Finding]:
    """A folder or file named as a withholdable field (`reference_answer/case-1.txt`,
    `Reference-Answer.json`): the name is the key its content is published under."""
    folded = {fold_key(name): name for name in names if fold_key(name)}
    for part in PurePosixPath(file).parts:
        name = folded.get(fold_key(part.split(".", 1)[0]))
        if name is not None:
            message = (
                f"{part!r} names the withholdable field {name!r}: what the file holds is"
                " published under it; a hidden suite's withheld fields must never be published"
            )
            return [Finding(Code.WITHHELD_FIELD_LEAK, message, file)]
    return []


def check_text_leaks(
    file: str, lines: Iterable[bytes], withholdable: Sequence[str]
) -> list[Finding]:
    """A withholdable field written as a key (`name:` or `name=`, quoted or not, under any
    capitalisation and with nothing or `-`, `_` or spaces between its words) in a file the bot
    does not parse: a raw log, an excerpt, a scorer's input, a README; in a `.csv` or `.tsv`
    file also as a cell, a column's header (`withheld-field-leak`, with the line). One finding
    per line, and one without a line when a folder or the file is named as the field."""
    if not withholdable:
        return []
    names = list(dict.fromkeys(withholdable))
    table = file.casefold().endswith(_CELL_FILES)
    findings = _check_path(file, names)
    for number, raw in enumerate(lines, start=1):
        text = fold_text(_unescaped(raw.decode("utf-8", errors="replace")))
        for name in names:
            if withheld_key_pattern(name).search(text) or (
                table and _cell_pattern(name).search(text)
            ):
                message = (
                    f"the withholdable field {name!r} is written here as a key"
                    + (" or a column" if table else "")
                    + "; a hidden"
                    " suite's withheld fields must never be published"
                )
                findings.append(Finding(Code.WITHHELD_FIELD_LEAK, message, file, number))
                break
    return findings


def without_repeats(text_leaks: Iterable[Finding], found: Iterable[Finding]) -> list[Finding]:
    """The text leak check's findings but those on a line the key check already reported: a
    YAML file is read both ways (its keys, and its comments as text)."""
    seen = {(f.file, f.line) for f in found if f.code is Code.WITHHELD_FIELD_LEAK}
    return [f for f in text_leaks if (f.file, f.line) not in seen]

"""The score table (step 9): scores.yaml must equal the table derived from cases and trials."""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from pathlib import PurePosixPath

from bot.rules.bars import compare_score_tables, differing_fields
from bot.rules.score_table import ScoreTable
from bot.vocab.document import Document
from bot.vocab.findings import Code, Finding
from bot.vocab.values import JSONObject, JSONValue


def check_score_table(scores: Document, claimed: JSONObject, derived: ScoreTable) -> list[Finding]:
    """9. The filer's table must equal the one derived from cases and trials (docs/spec.md §4).

    Each finding names the field that differs and its line, and the command that writes the
    derived table; a bar id the market does not have, close to one of its bars that the table
    lacks, is one finding ("did you mean"), not one for each side."""
    folder = str(PurePosixPath(scores.path).parent)
    fix = f"`claims scores {folder} --write` writes the table the cases and trials give"
    rows = compare_score_tables(claimed, derived)
    claimed_bars = claimed.get("bars")
    claimed_bars = claimed_bars if isinstance(claimed_bars, dict) else {}
    findings = []
    unknown: set[str] = set()
    for section, prefix, what in (
        ("bars", "", "bar id"),
        ("class_conditional", "class_conditional.", "class-conditional key"),
    ):
        theirs_section = claimed.get(section)
        theirs_keys = theirs_section if isinstance(theirs_section, dict) else {}
        mine_keys = derived.bars if section == "bars" else derived.class_conditional
        mine_rows = [row.removeprefix(prefix) for row in rows if row.startswith(prefix)]
        if prefix == "":
            mine_rows = [row for row in rows if not row.startswith("class_conditional.")]
        extra = [key for key in mine_rows if key in theirs_keys and key not in mine_keys]
        lacking = [key for key in mine_rows if key in mine_keys and key not in theirs_keys]
        for key in extra:
            guess = difflib.get_close_matches(key, lacking, n=1, cutoff=0.75)
            if guess:
                lacking.remove(guess[0])
                unknown.add(f"{prefix}{guess[0]}")
            unknown.add(f"{prefix}{key}")
            hint = f" (did you mean {guess[0]!r})" if guess else ""
            known = ", ".join(repr(name) for name in mine_keys) or "none"
            names = "the market's bars are" if prefix == "" else "the counts the trials give are"
            message = f"{section}.{key}: unknown {what} {key!r}{hint}; {names} {known}; {fix}"
            line = scores.line_of((section, key))
            findings.append(Finding(Code.SCORE_TABLE_MISMATCH, message, scores.path, line))
    for row in rows:
        if row in unknown:
            continue
        if row.startswith("class_conditional."):
            key = row.removeprefix("class_conditional.")
            counts = claimed.get("class_conditional")
            theirs = counts.get(key) if isinstance(counts, dict) else None
            mine: JSONValue = derived.class_conditional.get(key)
            where: tuple[str, ...] = ("class_conditional", key)
        else:
            theirs = claimed_bars.get(row)
            mine = derived.row_data(row)
            where = ("bars", row)
        fields: list[str | None] = [*differing_fields(theirs, mine)] or [None]
        for name in fields:
            at = (*where, name) if name is not None else where
            said = _field(theirs, name)
            given = _field(mine, name)
            message = (
                f"{'.'.join(at)}: scores.yaml says {_compact(said)}, the cases and"
                f" trials give {_compact(given)}; {fix}"
            )
            findings.append(
                Finding(Code.SCORE_TABLE_MISMATCH, message, scores.path, scores.line_of(at))
            )
    return findings


def _field(row: JSONValue, name: str | None) -> JSONValue:
    """A row's field `name` (`differing_fields` names only fields of two objects); the row
    itself when no field is named."""
    return row.get(name) if name is not None and isinstance(row, Mapping) else row


def _compact(value: JSONValue) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_compact(item)}" for key, item in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:.6f}"
    return str(value)

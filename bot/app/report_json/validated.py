"""What a report's data must be before anything is built from it: JSON text with no duplicate
key, NaN or lone surrogate, no deeper than the readers go, integers I-JSON carries exactly, and
valid by its schema (`schemas/verify-report.schema.json`, `schemas/resolve-report.schema.json`).
"""

from __future__ import annotations

import math
from typing import Any

from bot.app.report_json.errors import ReportError
from bot.rules.evidence.schema import validate
from bot.vocab.config import Limits
from bot.vocab.jsonl import parse_json
from bot.vocab.values import MAX_SAFE_INTEGER

__all__ = ["read_report", "validated"]

# A report carries values a filer or an operator wrote as they were read (a challenge run's
# task results, at the report's 7th level), which the loaders accept up to their depth cap: the
# report's own levels come on top of that, so every report `verify` writes is read back
# (a result nested near the loaders' cap must not make publish and the site refuse it).
_REPORT_LEVELS = 16
_MAX_DEPTH = max(Limits().max_json_depth, Limits().max_yaml_depth) + _REPORT_LEVELS
_MAX_INTEGER = MAX_SAFE_INTEGER  # what a JSON number carries exactly in every reader (I-JSON)


def read_report(text: str | bytes) -> object:
    """A report's JSON text as data, refusing duplicate keys, NaN and infinities, lone
    surrogates and deep nesting (`ReportError`). Pass the result to `from_json`, which
    refuses an integer outside ±2**53-1 where it is (`_check_values`): in an entry, that
    entry alone (`bot/faces/report/entries.py`)."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    try:
        return parse_json(raw, _MAX_DEPTH, integers=False)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReportError(f"the report is not valid JSON: {error}") from None


def _check_values(data: object, what: str) -> None:
    """Data built in Python may hold what JSON text cannot: refuse it before the schema
    (which recurses) sees it. Walks with an explicit stack."""
    pending: list[tuple[object, int]] = [(data, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > _MAX_DEPTH:
            raise ReportError(f"{what} is nested deeper than {_MAX_DEPTH} levels")
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise ReportError(f"{what} has an object key that is not a string")
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise ReportError(f"{what} holds a number that is not finite ({item})")
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > _MAX_INTEGER:
            raise ReportError(f"{what} holds an integer beyond ±2**53-1 (I-JSON)")


def validated(schema: str, data: object, what: str) -> dict[str, Any]:
    """`data` as a report valid by `schema`; raises `ReportError` naming what is wrong."""
    _check_values(data, what)
    problems = validate(schema, data, what)
    if problems or not isinstance(data, dict):
        details = "; ".join(f.message for f in problems[:5]) or "not a JSON object"
        raise ReportError(f"{what} is not a valid {schema}: {details}")
    return data

"""Names a reader cannot tell apart: `name-invisible-character` in the fields that hold names."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bot.rules.evidence.paths import field_name, file_name
from bot.vocab.document import FieldPath
from bot.vocab.findings import Code, Finding
from bot.vocab.names import hidden_characters

__all__ = ["check_names", "names_in"]

# The names each published file holds, by file name: compared folded wherever they are
# compared (bot/vocab/names.py), so a character a reader cannot see is refused in any of them.
# "*" stands for every item of a list.
_NAME_FIELDS: dict[str, tuple[FieldPath, ...]] = {
    "attempt.yaml": (
        ("submitter",),
        ("adversarial", "red_teams", "*", "name"),
        ("adversarial", "red_teams", "*", "organization"),
    ),
    "freeze-cases.jsonl": (("case_id",), ("family",)),
    "trials.jsonl": (
        ("case_id",),
        ("system",),
        ("trajectory",),
        ("evaluator",),
        ("attack_family",),
    ),
    "certificates.jsonl": (("system",), ("version",)),
}


def _values_at(
    data: object, pattern: FieldPath, where: FieldPath = ()
) -> list[tuple[FieldPath, str]]:
    """The string values at `pattern` in `data` (`*` matches each list item), with their paths."""
    if not pattern:
        return [(where, data)] if isinstance(data, str) else []
    step, rest = pattern[0], pattern[1:]
    if step == "*":
        if not isinstance(data, list):
            return []
        return [
            found
            for index, item in enumerate(data)
            for found in _values_at(item, rest, (*where, index))
        ]
    if not isinstance(data, dict) or step not in data:
        return []
    return _values_at(data[step], rest, (*where, step))


def check_names(
    documents: Iterable[tuple[str, object, Callable[[FieldPath], int | None]]],
) -> list[Finding]:
    """Names holding a character a reader cannot see: `name-invisible-character`
    (`names_in` of each document)."""
    return [finding for document in documents for finding in names_in(*document)]


def names_in(file: str, data: object, line_of: Callable[[FieldPath], int | None]) -> list[Finding]:
    """The names of one YAML document or JSONL record holding a character a reader cannot
    see: `name-invisible-character`.

    Systems, unit-key values, case ids and families, certificates' system and version, the
    submitter and red teams' names and organizations are compared folded (NFKC, case folded,
    white space trimmed); a control, format, private-use, unassigned or separator character
    (or another default-ignorable one) would make two names that look alike differ, so it is
    refused, naming the file, the line and the field.
    """
    findings = []
    for pattern in _NAME_FIELDS.get(file_name(file), ()):
        if len(pattern) == 1:  # a top-level field (every JSONL name): no walk
            value = data.get(pattern[0]) if isinstance(data, dict) else None
            found: list[tuple[FieldPath, str]] = (
                [(pattern, value)] if isinstance(value, str) else []
            )
        else:
            found = _values_at(data, pattern)
        for where, value in found:
            hidden = hidden_characters(value)
            if hidden:
                message = (
                    f"{field_name(where)}: {value!r} holds {', '.join(hidden)}, which a"
                    " reader cannot see; names are compared as they look, so write it"
                    " without"
                )
                findings.append(
                    Finding(Code.NAME_INVISIBLE_CHARACTER, message, file, line_of(where))
                )
    return findings

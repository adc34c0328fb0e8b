"""Adapter outputs against the submitted evidence (docs/spec.md §9): equal line by line,
canonically.

What an adapter writes is untrusted input: it goes through the same safe loaders as evidence.
Each JSONL line is compared in its RFC 8785 canonical form (so key order and number spelling
do not matter, values do); YAML files are compared as canonical JSON of their data. The report
names the first differing lines.

A comparison never passes because it could not be made: a submitted file with a line that has
no RFC 8785 form, or that cannot be read, is a difference (`adapter-mismatch`, naming the
line), never "no differences". The loaders already refuse every value RFC 8785 cannot write
(`bot/vocab/values.py`), so this is the second lock, not the first.
"""

from __future__ import annotations

import io
import json
from collections.abc import Mapping, Sequence
from typing import Any

import rfc8785

from bot.edges.load.yaml_ import parse_yaml
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import loads as json_loads
from bot.vocab.jsonl import parse_jsonl
from bot.vocab.values import json_equal

__all__ = ["compare_outputs"]

_SHOWN = 3
_ABSENT = object()  # a key one side lacks


def _canonical_lines(raw: bytes, name: str) -> tuple[list[bytes], str | None]:
    records, problems = parse_jsonl(io.BytesIO(raw), name)
    if problems:
        first = problems[0]
        return [], f"line {first.line}: {first.message}"
    lines = []
    for record in records:
        try:
            lines.append(rfc8785.dumps(record.data))  # type: ignore[arg-type]
        except (rfc8785.CanonicalizationError, ValueError, TypeError, RecursionError) as error:
            return [], f"line {record.line}: no RFC 8785 form: {str(error)[:200]}"
    return lines, None


def _canonical_yaml(raw: bytes, name: str) -> tuple[bytes | None, str | None]:
    document, problems = parse_yaml(raw, name)
    if document is None:
        return None, problems[0].message if problems else "unreadable"
    try:
        return rfc8785.dumps(document.data), None  # type: ignore[arg-type]
    except (rfc8785.CanonicalizationError, ValueError, TypeError, RecursionError) as error:
        return None, f"no RFC 8785 form: {str(error)[:200]}"


def _not_compared(name: str, problem: str, file: str) -> Finding:
    """A submitted file that cannot be compared: a difference, never a pass (fail closed)."""
    message = (
        f"{name} could not be compared with the adapter's output ({problem}): an attempt is"
        " reproduced only when every line of it is compared"
    )
    return Finding(Code.ADAPTER_MISMATCH, message, file)


def _jsonl(name: str, submitted: bytes, produced: bytes, file: str) -> list[Finding]:
    theirs, problem = _canonical_lines(produced, name)
    if problem is not None:
        return [
            Finding(
                Code.ADAPTER_MISMATCH, f"the adapter's {name} is not valid JSONL: {problem}", file
            )
        ]
    ours, problem = _canonical_lines(submitted, name)
    if problem is not None:  # the evidence check reports the file too; still no pass
        return [_not_compared(name, problem, file)]
    differing = [
        index
        for index in range(max(len(ours), len(theirs)))
        if index >= len(ours) or index >= len(theirs) or ours[index] != theirs[index]
    ]
    if not differing:
        return []
    shown = ", ".join(str(index + 1) for index in differing[:_SHOWN])
    more = f" and {len(differing) - _SHOWN} more" if len(differing) > _SHOWN else ""
    counts = (
        f"; the adapter wrote {len(theirs)} lines, the attempt has {len(ours)}"
        if len(ours) != len(theirs)
        else ""
    )
    first = differing[0]
    detail = ""
    if first < len(ours) and first < len(theirs):
        where, mine, other = _first_difference(json_loads(ours[first]), json_loads(theirs[first]))
        detail = (
            f"; on line {first + 1}, {where or 'the record'}: submitted {_short(mine)},"
            f" the adapter wrote {_short(other)}"
        )
    return [
        Finding(
            Code.ADAPTER_MISMATCH,
            f"{name} differs from the adapter's output at line(s) {shown}{more}{counts}{detail}",
            file,
            first + 1,
        )
    ]


def _first_difference(ours: Any, theirs: Any, where: str = "") -> tuple[str, Any, Any]:
    """The path of the first field where two JSON values differ, and both values there."""
    if isinstance(ours, dict) and isinstance(theirs, dict):
        for key in sorted(set(ours) | set(theirs)):
            mine, other = ours.get(key, _ABSENT), theirs.get(key, _ABSENT)
            if mine is _ABSENT or other is _ABSENT or not json_equal(mine, other):
                path = f"{where}.{key}" if where else key
                return _first_difference(ours.get(key, _ABSENT), theirs.get(key, _ABSENT), path)
    if isinstance(ours, list) and isinstance(theirs, list) and len(ours) == len(theirs):
        for index, (mine, other) in enumerate(zip(ours, theirs, strict=True)):
            if not json_equal(mine, other):
                return _first_difference(mine, other, f"{where}[{index}]")
    return where, ours, theirs


def _short(value: Any) -> str:
    if value is _ABSENT:
        return "nothing"
    text = json.dumps(value, ensure_ascii=False)
    return text if len(text) <= 80 else text[:79] + "…"


def compare_outputs(
    outputs: Sequence[str],
    submitted: Mapping[str, bytes | None],
    produced: Mapping[str, bytes],
    folder: str,
) -> list[Finding]:
    """Compare each declared output the adapter wrote with the attempt's file of that name."""
    findings: list[Finding] = []
    for name in outputs:
        file = f"{folder}/{name}"
        if name not in produced:
            findings.append(
                Finding(Code.ADAPTER_MISMATCH, f"the adapter did not write {name}", file)
            )
            continue
        ours = submitted.get(name)
        if ours is None:
            findings.append(
                Finding(
                    Code.ADAPTER_MISMATCH,
                    f"the adapter wrote {name}, which the attempt does not contain",
                    file,
                )
            )
            continue
        if name.endswith(".jsonl"):
            findings += _jsonl(name, ours, produced[name], file)
            continue
        theirs, problem = _canonical_yaml(produced[name], name)
        mine, unread = _canonical_yaml(ours, name)
        if problem is not None:
            findings.append(
                Finding(
                    Code.ADAPTER_MISMATCH, f"the adapter's {name} is not safe YAML: {problem}", file
                )
            )
        elif mine is None:
            findings.append(_not_compared(name, unread or "unreadable", file))
        elif mine != theirs:
            findings.append(
                Finding(Code.ADAPTER_MISMATCH, f"{name} differs from the adapter's output", file)
            )
    return findings

"""`claims hash-cases`: each frozen case's sha256, computed exactly as the verifier does.

The file is read with the bot's JSONL loader (`parse_jsonl`: the same line numbers, caps and
refusals as `claims verify`), each case's hash is `bot.rules.evidence.hashing.case_hash` (SHA-256 of
the RFC 8785 form of `content`), and the result is checked with `check_cases`, the verifier's
own rule, so what this command reports is what verify will say about the file.

Writing changes only the `sha256` field: a line whose hash is right is kept byte for byte;
a line whose hash changes is written again as compact JSON with its fields in their order
(`sha256` added after `case_id` when it was missing). Values survive that exactly (the hash
covers the parsed `content`, not the text), but the line's spelling may change (spacing,
escapes, number spelling such as 1e3 -> 1000.0).
"""

from __future__ import annotations

import io
import json
from dataclasses import dataclass
from typing import Any

import rfc8785

from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.hashing import case_hash
from bot.vocab.config import Limits
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import parse_jsonl

__all__ = ["CaseLine", "HashResult", "hash_cases"]


@dataclass(frozen=True)
class CaseLine:
    """One case: its line, id, the sha256 the file states and the one its content has."""

    line: int
    case_id: str
    stated: str | None
    computed: str | None  # None: no content (a hidden case, trusted by its hash) or no form

    @property
    def status(self) -> str:
        if self.computed is None:
            return "kept: no content (a hidden case is trusted by its hash)"
        if self.stated == self.computed:
            return "ok"
        if self.stated is None:
            return "missing"
        return f"differs: the file says {self.stated}"


@dataclass(frozen=True)
class HashResult:
    """What hashing found: per case its line, the file's problems (reading, schema, duplicates:
    what verify reports once the hashes are right), and the file with the hashes filled in
    (None when a line could not be read: nothing is written then)."""

    cases: list[CaseLine]
    problems: list[Finding]
    data: bytes | None

    @property
    def changed(self) -> list[CaseLine]:
        return [case for case in self.cases if case.computed and case.stated != case.computed]


def _with_hash(data: dict[str, Any], sha256: str) -> dict[str, Any]:
    """The record with `sha256` set, in place when present, else right after `case_id`."""
    if "sha256" in data:
        return {key: sha256 if key == "sha256" else value for key, value in data.items()}
    fixed: dict[str, Any] = {}
    for key, value in data.items():
        fixed[key] = value
        if key == "case_id":
            fixed["sha256"] = sha256
    fixed.setdefault("sha256", sha256)
    return fixed


def hash_cases(raw: bytes, path: str, limits: Limits = Limits()) -> HashResult:
    """Hash every case of freeze-cases.jsonl (`raw`, shown as `path`). Never raises."""
    records, problems = parse_jsonl(io.BytesIO(raw), path, limits)
    lines = raw.split(b"\n")
    cases: list[CaseLine] = []
    hash_problems: list[Finding] = []
    for record in records:
        data = record.data
        case_id = str(data.get("case_id", f"(line {record.line})"))
        stated = data.get("sha256")
        stated = stated if isinstance(stated, str) else None
        content = data.get("content")
        computed = None
        if isinstance(content, dict):
            try:
                computed = case_hash(content)
            except (rfc8785.CanonicalizationError, ValueError, TypeError) as error:
                message = f"content of case {case_id!r} has no RFC 8785 form: {error}"
                hash_problems.append(Finding(Code.SCHEMA, message, path, record.line))
        elif stated is None:
            message = (
                f"case {case_id!r} has neither content nor sha256: give its content (to hash"
                " it) or, for a hidden case, the sha256 of its content"
            )
            hash_problems.append(Finding(Code.SCHEMA, message, path, record.line))
        cases.append(CaseLine(record.line, case_id, stated, computed))
        if computed is not None and computed != stated:
            index = record.line - 1
            ending = b"\r" if lines[index].endswith(b"\r") else b""
            text = json.dumps(_with_hash(data, computed), ensure_ascii=False, separators=(",", ":"))
            lines[index] = text.encode("utf-8") + ending
    if problems:
        return HashResult(cases, [*problems, *hash_problems], None)
    written = b"\n".join(lines)
    fixed, _ = parse_jsonl(io.BytesIO(written), path, limits)
    _, remaining = check_cases(fixed, path)
    # A line's hashing problem (no RFC 8785 form; neither content nor sha256) says more than
    # the schema error the verifier gives the same line, so it is the one reported.
    mine = {(f.line, f.code) for f in hash_problems}
    rest = [f for f in remaining if (f.line, f.code) not in mine]
    return HashResult(cases, sorted([*hash_problems, *rest], key=lambda f: f.line or 0), written)

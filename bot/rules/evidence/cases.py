"""freeze-cases.jsonl's rules (docs/spec.md §4): schema, content hash, one line per case."""

from __future__ import annotations

from collections.abc import Sequence

import rfc8785
from msgspec import UNSET

from bot.rules.evidence.hashing import case_hash
from bot.rules.evidence.models import Case
from bot.rules.evidence.record_checker import run_checker
from bot.rules.evidence.schema import validate
from bot.vocab.document import Record
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import SharedStrings
from bot.vocab.typed import CaseLine
from bot.vocab.values import JSONObject

__all__ = ["CaseChecker", "check_cases"]


def check_cases(
    records: Sequence[Record], file: str, complete: bool = True
) -> tuple[dict[str, Case], list[Finding]]:
    """Schema, content hash and one line per case. Return cases by id and findings
    (`CaseChecker`, over every record)."""
    check = run_checker(CaseChecker(file), records, complete)
    return check.cases, check.findings


class CaseChecker:
    """freeze-cases.jsonl checked one record at a time: schema, content hash and one line per
    case. `add` each record in file order, then `finish`; `cases` (by id) and `findings` hold
    the result.

    One case frozen twice is `duplicate-case`, whether the second line repeats its `case_id`
    or its content (the same `sha256`) under another id: the seed's "repeated attacks or epochs
    are not scored as extra trials" (One Trial Per Case), so a repeated case is not a new one.
    No records is `file-empty`, unless `complete` is False: some line could not be read (a
    `jsonl-invalid` the loader reported), so the file is not empty and that finding says why.

    `public_fields` (memory, for a caller that never compares contents: docs/performance.md):
    each case is kept without its `content` once its hash is checked, without its `sha256`
    (an empty string: compared with the content's hash and the other cases' as it is read),
    and with only these fields of its `public` (those the market's bars select cases by),
    equal ones shared. None keeps every case whole.
    """

    def __init__(self, file: str, public_fields: frozenset[str] | None = None) -> None:
        self.file = file
        self.public_fields = public_fields
        self.cases: dict[str, Case] = {}
        self.findings: list[Finding] = []
        self.count = 0
        self._by_hash: dict[str, Case] = {}
        self._publics: dict[tuple[object, ...], JSONObject] = {}
        self._strings = SharedStrings()  # a lean case's family and kind, kept once

    def add(self, record: Record) -> None:
        self.count += 1
        problems = validate("freeze-case", record.data, self.file, line=record.line)
        if problems:
            self.findings += problems
            return
        data = record.data
        content = data.get("content")
        self._keep(
            record.line,
            data["case_id"],  # type: ignore[arg-type]  # the schema: strings, objects
            data["sha256"],  # type: ignore[arg-type]
            data["family"],  # type: ignore[arg-type]
            data["kind"],  # type: ignore[arg-type]
            data["public"],  # type: ignore[arg-type]
            content,  # type: ignore[arg-type]
            None,
        )

    def add_typed(self, number: int, line: CaseLine, digest: str | None) -> None:
        """A line `LineDecoder.case` read (so its schema holds), as `add` takes its record;
        `digest`: its content's hash, where the decoder took it."""
        self.count += 1
        content = None if line.content is UNSET else line.content
        self._keep(
            number, line.case_id, line.sha256, line.family, line.kind, line.public, content, digest
        )

    def _keep(
        self,
        number: int,
        case_id: str,
        sha256: str,
        family: str,
        kind: str,
        public: JSONObject,
        content: JSONObject | None,
        digest: str | None,
    ) -> None:
        """One case that passed its schema: kept, unless it repeats a case; its content
        hashed (`digest`, or `case_hash`) and compared with its `sha256`."""
        file, cases = self.file, self.cases
        if self.public_fields is None:
            case = Case(number, case_id, sha256, family, kind, public, content)
        else:  # lean: no content (hashed below), no sha256 (compared below), the public fields
            strings = self._strings
            case = Case(
                number,
                case_id,
                "",
                strings.one("family", family),
                strings.one("kind", kind),
                self._public(public),
                None,
            )
        if case_id in cases:
            first = cases[case_id].line
            message = f"case_id {case_id!r} appears again (first on line {first})"
            self.findings.append(Finding(Code.DUPLICATE_CASE, message, file, number))
            return
        cases[case_id] = case  # kept, so its trial is not also an unknown case
        same = self._by_hash.setdefault(sha256, case)
        if same is not case:
            message = (
                f"case {case_id!r} has the same content (sha256 {sha256}) as case"
                f" {same.case_id!r} on line {same.line}: one case frozen twice is still one case"
            )
            self.findings.append(Finding(Code.DUPLICATE_CASE, message, file, number))
            return
        if content is not None:
            try:
                actual = digest if digest is not None else case_hash(content)
            except (rfc8785.CanonicalizationError, ValueError, TypeError) as error:
                message = f"content of case {case_id!r} has no RFC 8785 form: {error}"
                self.findings.append(Finding(Code.SCHEMA, message, file, number))
                return
            if actual != sha256:
                folder = file.rpartition("/")[0] or "."
                message = (
                    f"case {case_id!r}: sha256 says {sha256}, the RFC 8785 form of"
                    f" its content hashes to {actual}; `claims hash-cases {folder} --write`"
                    " writes the computed hash"
                )
                self.findings.append(Finding(Code.CASE_HASH_MISMATCH, message, file, number))

    def _public(self, public: JSONObject) -> JSONObject:
        """`public` with only `public_fields`, one object for the same plain values (of the
        same types: JSON's `true` is not 1, though Python's `True == 1`)."""
        names = [name for name in sorted(self.public_fields or ()) if name in public]
        kept = {name: public[name] for name in names}
        try:
            key = tuple((name, type(public[name]), public[name]) for name in names)
            return self._publics.setdefault(key, kept)
        except TypeError:  # a list or object among the values: not shared
            return kept

    def finish(self, complete: bool = True) -> None:
        """The file is read: `complete` is False when some line of it could not be."""
        self._by_hash = {}  # what a later case would repeat: no case comes after the last
        if not self.count and complete:
            message = "no frozen cases: the file is empty"
            self.findings.append(Finding(Code.FILE_EMPTY, message, self.file))

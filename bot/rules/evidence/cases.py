"""freeze-cases.jsonl's rules (docs/spec.md §4): schema, content hash, one line per case."""

from __future__ import annotations

import itertools
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

_ABSENT = object()  # a public field a case does not have (`CaseChecker._public`)


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
        self._public_names = sorted(public_fields or ())

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

    def add_typed_lines(
        self, first: int, lines: Sequence[CaseLine], digests: Sequence[str | None]
    ) -> None:
        """Lines `first`, `first + 1`... and their contents' hashes, as `add_typed` takes
        each (`LineDecoder.cases`): by column where every case of the block is simply kept
        (`_add_columns`), else one by one."""
        if not self._add_columns(first, lines, digests):
            for number, line, digest in zip(itertools.count(first), lines, digests):
                self.add_typed(number, line, digest)

    def _add_columns(
        self, first: int, lines: Sequence[CaseLine], digests: Sequence[str | None]
    ) -> bool:
        """`add_typed_lines` by column, for a block where every case is simply kept (no id
        or hash seen before or twice in it, each content's hash taken and equal to its
        `sha256`): each check and step once per column. False (nothing done) otherwise."""
        cases, by_hash = self.cases, self._by_hash
        case_ids = [line.case_id for line in lines]
        hashes = [line.sha256 for line in lines]
        contents = [None if line.content is UNSET else line.content for line in lines]
        if (
            not cases.keys().isdisjoint(case_ids)
            or not by_hash.keys().isdisjoint(hashes)
            or len(set(case_ids)) != len(lines)
            or len(set(hashes)) != len(lines)
            or any(
                content is not None and digest != sha256
                for content, digest, sha256 in zip(contents, digests, hashes, strict=True)
            )
        ):
            return False
        self.count += len(lines)
        families = [line.family for line in lines]
        kinds = [line.kind for line in lines]
        publics: list[JSONObject] = [line.public for line in lines]
        kept_hashes = hashes
        if self.public_fields is not None:  # lean, as `_keep` keeps a case
            families = self._strings.column("family", families)
            kinds = self._strings.column("kind", kinds)
            publics = list(map(self._public, publics))
            contents = [None] * len(lines)
            kept_hashes = [""] * len(lines)
        numbers = range(first, first + len(lines))
        kept = list(map(Case, numbers, case_ids, kept_hashes, families, kinds, publics, contents))
        cases.update(zip(case_ids, kept, strict=True))
        by_hash.update(zip(hashes, kept, strict=True))
        return True

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
        same types: JSON's `true` is not 1, though Python's `True == 1`; an absent field is
        not null)."""
        names = self._public_names
        values = tuple([public.get(name, _ABSENT) for name in names])
        kept = {name: public[name] for name in names if name in public}
        try:
            return self._publics.setdefault(values + tuple(map(type, values)), kept)
        except TypeError:  # a list or object among the values: not shared
            return kept

    def finish(self, complete: bool = True) -> None:
        """The file is read: `complete` is False when some line of it could not be."""
        self._by_hash = {}  # what a later case would repeat: no case comes after the last
        if not self.count and complete:
            message = "no frozen cases: the file is empty"
            self.findings.append(Finding(Code.FILE_EMPTY, message, self.file))

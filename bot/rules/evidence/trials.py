"""trials.jsonl's rules (docs/spec.md §4): schema, one trial per case, known cases, unit keys
present."""

from __future__ import annotations

import difflib
import itertools
from array import array
from collections import deque
from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import datetime
from itertools import repeat
from operator import attrgetter

import msgspec

from bot.rules.evidence.models import Case, FoldedKeys, Trial
from bot.rules.evidence.record_checker import run_checker
from bot.rules.evidence.schema import validate
from bot.vocab.document import Record
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import SharedStrings
from bot.vocab.names import fold_name
from bot.vocab.timestamps import parse_timestamp
from bot.vocab.typed import TrialLine
from bot.vocab.values import JSONValue

__all__ = ["TrialChecker", "check_trials"]

_FOLDED = 4096  # distinct unit-key names whose folded form a `TrialChecker` keeps
_RESULTS = 1 << 14  # distinct results a `TrialChecker` shares (`TrialChecker._result`)
_encode = msgspec.json.Encoder().encode
_new_keys = tuple.__new__


def check_trials(
    records: Sequence[Record],
    cases: Mapping[str, Case] | None,
    unit_keys: Sequence[str],
    file: str,
    complete: bool = True,
) -> tuple[list[Trial], list[Finding]]:
    """Schema, one trial per case, known cases, unit keys present. Return trials and findings
    (`TrialChecker`, over every record)."""
    check = run_checker(TrialChecker(cases, unit_keys, file), records, complete)
    return check.trials, check.findings


_NO_TRIAL = -(2**63)  # in `TrialChecker._firsts`: no trial for the case yet


def _by_case_line(cases: Mapping[str, Case] | None) -> array[int] | None:
    """An array with a slot for each frozen case's line, each `_NO_TRIAL`: where the cases'
    lines are distinct (as read from one file) and not far past their count (a gap is a line
    refused); else None, and each case's first trial is kept by its id."""
    if not cases:
        return None
    count, top = len(cases), int(max(map(_line, cases.values())))
    if min(map(_line, cases.values())) < 0 or top > 4 * count + 65536:
        return None
    seen = bytearray(top + 1)  # distinct lines, counted in C (a set of them: 32 bytes a case)
    deque(map(seen.__setitem__, map(_line, cases.values()), repeat(1)), maxlen=0)
    if top + 1 - seen.count(0) != count:
        return None
    return array("q", [_NO_TRIAL]) * (top + 1)


_line = attrgetter("line")


# How many unknown case ids and frozen cases without a trial are compared to link them.
_LINKED = 100


class TrialChecker:
    """trials.jsonl checked one record at a time: schema, one trial per case, known cases, unit
    keys present. `add` each record in file order, then `finish`; `trials` and `findings` hold
    the result. A trial keeps only the unit keys of its record, names folded (`Trial.keys`,
    as `bars.unit_structure` compares them), and the case's own string as its `case_id`.

    `cases` is None when freeze-cases.jsonl could not be read; unknown-case is then not judged.
    `complete` (to `finish`) is False when some line of trials.jsonl could not be read
    (`jsonl-invalid`): missing trials are then not judged, and no records is not reported as
    `file-empty`.
    """

    def __init__(
        self, cases: Mapping[str, Case] | None, unit_keys: Sequence[str], file: str
    ) -> None:
        self.cases = cases
        self.unit_keys = tuple(unit_keys)
        self.file = file
        self.trials: list[Trial] = []
        self.findings: list[Finding] = []
        self.count = 0
        # The line of each frozen case's first trial, by the case's own line (8 bytes a case,
        # not a dict entry and its key: `_by_case_line`); other case ids in `_first_line`.
        self._firsts = _by_case_line(cases)
        self._first_line: dict[str, int] = {}  # case id -> line of its first trial
        # Only strings can name a case (a list or object there is unhashable, and a schema
        # error): the case ids that refused lines name, for `missing-trial`.
        self._tried: set[str] = set()
        # The first trials naming a case that is not frozen: (case id, line, finding index),
        # to link each with the frozen case left without a trial (a misspelt id is both).
        self._unknown: list[tuple[str, int, int]] = []
        self._folded: dict[str, dict[str, str]] = {}  # per unit key: names folded
        self._positions = FoldedKeys.positions(self.unit_keys)  # one for every trial's keys
        fields = TrialLine.__struct_fields__
        self._unfielded = [key for key in self.unit_keys if key not in fields]  # so missing
        self._strings = SharedStrings()  # the system and the result's strings, kept once
        self._results: dict[bytes, dict[str, JSONValue]] = {}  # by JSON text (`_result`)

    def add(self, record: Record) -> None:
        self.count += 1
        if not self._add(record) and isinstance(named := record.data.get("case_id"), str):
            self._tried.add(named)

    def add_typed(self, number: int, line: TrialLine, started_at: datetime) -> None:
        """A line `LineDecoder.trial` read (so its schema holds), as `add` takes its record."""
        self.count += 1
        if self._unfielded:  # a unit key a trial's schema has no field for: as `_add` says it
            self.findings.append(self._missing(self._unfielded, number))
        elif self._kept(number, line.case_id, line.system, started_at, line, line.result):
            return
        self._tried.add(line.case_id)

    def add_typed_lines(
        self, first: int, lines: Sequence[TrialLine], starts: Sequence[datetime]
    ) -> None:
        """Lines `first`, `first + 1`... and their starts, as `add_typed` takes each
        (`LineDecoder.trials`): by column where every line of the block is simply kept
        (`_add_columns`), else one by one."""
        if self._unfielded or self.cases is None or not self._add_columns(first, lines, starts):
            for number, line, started_at in zip(itertools.count(first), lines, starts):
                self.add_typed(number, line, started_at)

    def _add_columns(
        self, first: int, lines: Sequence[TrialLine], starts: Sequence[datetime]
    ) -> bool:
        """`add_typed_lines` by column, for a block where every line is simply kept (each
        names a frozen case no other trial names, and a system that is not blank): each check
        and each step of `_kept` once per column, not per line. False (nothing done) for
        another block, or where a unit key is the result (an object: not a name to fold)."""
        cases, firsts = self.cases, self._firsts
        assert cases is not None  # `add_typed_lines` takes the general path without cases
        if "result" in self.unit_keys:
            return False
        case_ids = [line.case_id for line in lines]
        found = list(map(cases.get, case_ids))
        if None in found or len(set(case_ids)) != len(case_ids):
            return False
        kept: list[Case] = found  # type: ignore[assignment]  # no None among them
        case_lines = [case.line for case in kept]
        systems = [line.system for line in lines]
        if not all(self._column("system", systems)):
            return False
        if firsts is not None:  # no trial yet for any of the cases (`_kept`)
            if set(map(firsts.__getitem__, case_lines)) != {_NO_TRIAL}:
                return False
        elif not self._first_line.keys().isdisjoint(case_ids):
            return False
        self.count += len(lines)
        # A trial on its case's line keeps the case's int (`_kept`: memory).
        numbers = [
            line if line == number else number
            for line, number in zip(case_lines, range(first, first + len(lines)), strict=True)
        ]
        if firsts is not None:
            deque(map(firsts.__setitem__, case_lines, numbers), maxlen=0)
        else:
            self._first_line.update(zip(case_ids, numbers, strict=True))
        columns = [
            self._column(key, [getattr(line, key) for line in lines]) for key in self.unit_keys
        ]
        rows = zip(repeat(self._positions), *columns)  # `FoldedKeys(positions, values)`
        keys = list(map(_new_keys, repeat(FoldedKeys), rows))
        result = self._result
        self.trials.extend(
            map(
                Trial,
                numbers,
                [case.case_id for case in kept],
                self._strings.column("system", systems),
                starts,
                keys,
                [result(line.result) for line in lines],
            )
        )
        return True

    def _column(self, key: str, values: Sequence[object]) -> list[object]:
        """`_fold` of each of `values` (of unit key `key`) that is a name (a column of names
        all seen before is one `map`)."""
        memo, fold = self._folded.setdefault(key, {}), self._fold
        got: list[object] = list(map(memo.get, values))  # type: ignore[arg-type]
        if None not in got:
            return got
        return [
            value if type(value) is not str else name if name is not None else fold(key, value)
            for name, value in zip(got, values, strict=True)
        ]

    def _fold(self, key: str, name: str) -> str:
        """`fold_name(name)`, one string for a name a unit key repeats (up to _FOLDED)."""
        memo = self._folded.get(key)
        if memo is None:
            memo = self._folded[key] = {}
        folded = memo.get(name)
        if folded is None:
            folded = fold_name(name)
            if len(memo) < _FOLDED:
                memo[name] = folded
        return folded

    def _add(self, record: Record) -> bool:
        """Check one record; True when its case is counted as tried (`_firsts`, `_first_line`)."""
        file, data = self.file, record.data
        problems = validate("trial", data, file, line=record.line)
        missing = [key for key in self.unit_keys if key not in data]
        if missing:
            problems.append(self._missing(missing, record.line))
        if problems:
            self.findings += problems
            return False
        started_at = parse_timestamp(str(data["started_at"]))
        assert started_at is not None  # the schema's date-time format checked it
        return self._kept(
            record.line,
            data["case_id"],  # type: ignore[arg-type]  # the schema: a string
            str(data["system"]),
            started_at,
            data,
            data["result"],  # type: ignore[arg-type]  # the schema: an object
        )

    def _missing(self, missing: Sequence[str], number: int) -> Finding:
        message = (
            f"unit key(s) {', '.join(missing)} missing: every unit key must be present"
            " (null means 'not applicable')"
        )
        return Finding(Code.SCHEMA, message, self.file, number)

    def _kept(
        self,
        number: int,
        case_id: str,
        system: str,
        started_at: datetime,
        values: Mapping[str, object] | TrialLine,
        result: dict[str, JSONValue],
    ) -> bool:
        """One trial that passed its schema (`values`: its record, or its typed line, for the
        unit keys); True when its case is counted as tried (`_firsts`, `_first_line`)."""
        file, cases = self.file, self.cases
        if not self._fold("system", system):  # fold_name, one string per system
            message = (
                f"system: {system!r} is blank once white space is trimmed; every trial names"
                " the system it ran on"
            )
            self.findings.append(Finding(Code.SCHEMA, message, file, number))
            return False
        case = cases.get(case_id) if cases is not None else None
        if case is not None:
            case_id = case.case_id  # one string per id, here and in the trial
            if case.line == number:  # trials written in the cases' order: one int a line
                number = case.line
        firsts = self._firsts
        first: int | None
        if case is not None and firsts is not None:
            first = firsts[case.line]
            if first == _NO_TRIAL:
                firsts[case.line], first = number, None
        elif (first := self._first_line.get(case_id)) is None:
            self._first_line[case_id] = number
        if first is not None:
            message = (
                f"a second trial for case {case_id!r} (first on line"
                f" {first}); the rules allow exactly one trial per case"
            )
            self.findings.append(Finding(Code.DUPLICATE_TRIAL, message, file, number))
            return True
        if cases is not None and case is None:
            message = f"trial names case {case_id!r}, which is not in freeze-cases.jsonl"
            if len(self._unknown) < _LINKED:
                self._unknown.append((case_id, number, len(self.findings)))
            self.findings.append(Finding(Code.UNKNOWN_CASE, message, file, number))
            return True
        typed, fold = isinstance(values, TrialLine), self._fold
        folded: list[object] = [self._positions]
        for key in self.unit_keys:
            value = getattr(values, key) if typed else values[key]  # type: ignore[index]
            folded.append(fold(key, value) if isinstance(value, str) else value)
        keys = _new_keys(FoldedKeys, folded)  # `FoldedKeys(positions, values)`, in C
        self.trials.append(
            Trial(
                number,
                case_id,
                self._strings.one("system", system),
                started_at,
                keys,
                self._result(result),
            )
        )
        return True

    def _result(self, result: dict[str, JSONValue]) -> dict[str, JSONValue]:
        """`result`, or an equal one an earlier trial keeps (up to `_RESULTS` distinct ones):
        a result is read, never changed, so trials with the same share one. Equal means the
        same JSON text, key order and number types included (`true` is not 1, nor 1.0)."""
        try:
            # msgspec, not orjson: orjson's bytes keep a 4 KiB buffer each.
            text = _encode(result)
        except (msgspec.EncodeError, ValueError, TypeError, OverflowError):  # no JSON text:
            text = b""  # not shared (a lone surrogate: no loader lets one in)
        kept = self._results.get(text) if text else None
        # msgspec writes NaN and infinities as null too (the loaders refuse them, a caller's
        # own records may not): where the text has a null, the values decide as well.
        if kept is not None and (b"null" not in text or kept == result):
            return kept
        self._strings.fields(result, "result")
        if kept is None and text and len(self._results) < _RESULTS:
            self._results[text] = result
        return result

    def finish(self, complete: bool = True) -> None:
        """The file is read: `complete` is False when some line of it could not be."""
        if not self.count:
            if complete:  # else every line was refused: jsonl-invalid, not an empty file
                message = "no trials: the file is empty"
                self.findings.append(Finding(Code.FILE_EMPTY, message, self.file))
        elif self.cases is not None and complete:
            # Exactly one trial per frozen case: a case left out is a result withheld. (Not
            # judged while some line could not be read: that line may be the case's trial.)
            firsts, tried = self._firsts, self._tried
            missing = [
                case
                for case in self.cases.values()
                if (
                    firsts[case.line] == _NO_TRIAL
                    if firsts is not None
                    else case.case_id not in self._first_line
                )
                and case.case_id not in tried
            ]
            pairs = self._pairs(missing)
            for case in missing:
                message = (
                    f"frozen case {case.case_id!r} (freeze-cases.jsonl line {case.line})"
                    " has no trial; every frozen case needs exactly one"
                )
                named = pairs.get(case.case_id)
                if named is not None:
                    message += (
                        f"; trials.jsonl line {named[1]} names {named[0]!r}, which is not frozen"
                        " (unknown-case): if that is this case's trial, correct its case_id"
                    )
                self.findings.append(Finding(Code.MISSING_TRIAL, message, self.file))

    def _pairs(self, missing: Sequence[Case]) -> dict[str, tuple[str, int]]:
        """Each unknown case id linked with the frozen case without a trial it most looks
        like (a misspelt id): frozen id -> (unknown id, its line). Each `unknown-case`
        finding is told which frozen case lacks a trial."""
        if not self._unknown or not missing:
            return {}
        ids = [case.case_id for case in missing[:_LINKED]]
        lines = {case.case_id: case.line for case in missing[:_LINKED]}
        pairs: dict[str, tuple[str, int]] = {}
        for named, line, index in self._unknown:
            close = difflib.get_close_matches(named, ids, n=1, cutoff=0.6)
            if not close and len(ids) == 1 and len(self._unknown) == 1:
                close = [ids[0]]  # one trial too many and one too few: the same trial
            if not close:
                continue
            ids.remove(close[0])
            pairs[close[0]] = (named, line)
            old = self.findings[index]
            message = (
                f"{old.message}; frozen case {close[0]!r} (freeze-cases.jsonl line"
                f" {lines[close[0]]}) has no trial (missing-trial): if this is its trial,"
                " correct the case_id"
            )
            self.findings[index] = replace(old, message=message)
        return pairs

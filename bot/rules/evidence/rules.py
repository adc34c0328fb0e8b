"""Cross-record evidence rules (docs/spec.md §4): values in, findings out, no I/O.

Each function checks one rule of the seed's Evidence and Statistics sections and returns the
findings it produced, so a caller can run them all and report every problem at once.
"""

from __future__ import annotations

import contextlib
import difflib
import hashlib
import json
import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import datetime, timedelta
from functools import lru_cache
from pathlib import PurePosixPath
from typing import Any, TypeVar

import rfc8785

from bot.rules.evidence.models import Case, FoldedKeys, Generator, Trial
from bot.rules.evidence.schema import placeholder_message, validate
from bot.vocab.dates import end_of_day
from bot.vocab.document import FieldPath, Record
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import SharedStrings, paused_gc
from bot.vocab.names import fold_name, hidden_characters
from bot.vocab.timestamps import parse_date, parse_timestamp

# What `claims init` writes where the filer must fill in (bot/faces/tools/init.py).
PLACEHOLDER = "FILL-IN"

__all__ = [
    "PLACEHOLDER",
    "CaseCheck",
    "RawLogFile",
    "TrialCheck",
    "WithheldCheck",
    "case_hash",
    "check_cases",
    "check_generator",
    "check_names",
    "check_placeholders",
    "check_raw_log",
    "check_trial_order",
    "check_trials",
    "check_trials_not_after",
    "check_withheld",
    "evidence_digest",
    "fold_key",
    "fold_text",
    "names_in",
    "paper_freeze_time",
    "plain_line",
    "withheld_key_pattern",
]


def case_hash(content: Mapping[str, Any]) -> str:
    """Hex SHA-256 of the RFC 8785 (JCS) canonical form of `content`.

    Raises `rfc8785.CanonicalizationError` for values JCS cannot represent (e.g. integers
    beyond 2**53, which JSON numbers cannot carry exactly).
    """
    if _plain(content):
        text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate: rfc8785 says why
            return hashlib.sha256(text.encode("utf-8")).hexdigest()
    return hashlib.sha256(rfc8785.dumps(content)).hexdigest()


_SAFE_INTEGER = 2**53


def _plain(value: object, depth: int = 0) -> bool:
    """Whether `json.dumps(sort_keys, compact, ensure_ascii=False)` writes `value` exactly as
    RFC 8785 does (~5x faster than the rfc8785 package): objects with ASCII keys (sorted the
    same by code point and by UTF-16 unit), strings of text (both escape `"`, `\\` and
    controls alike, with lower-case hex, and write the rest as UTF-8), booleans, null, and
    integers within +-2**53. Not floats: JCS writes them as ECMAScript does (1e+21, not
    1e21). Anything else takes the rfc8785 package's path."""
    if depth > 64:
        return False
    if isinstance(value, str):
        return True
    if isinstance(value, dict):
        return all(
            isinstance(key, str) and key.isascii() and _plain(item, depth + 1)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return all(_plain(item, depth + 1) for item in value)
    if value is None or isinstance(value, bool):
        return True
    return type(value) is int and -_SAFE_INTEGER < value < _SAFE_INTEGER


def check_cases(
    records: Sequence[Record], file: str, complete: bool = True
) -> tuple[dict[str, Case], list[Finding]]:
    """Schema, content hash and one line per case. Return cases by id and findings
    (`CaseCheck`, over every record)."""
    check = _over(CaseCheck(file), records, complete)
    return check.cases, check.findings


_Check = TypeVar("_Check", "CaseCheck", "TrialCheck")


def _over(check: _Check, records: Sequence[Record], complete: bool) -> _Check:
    """`check` run over every record, then finished."""
    with paused_gc():  # one model per line, all acyclic (bot/vocab/jsonl.py)
        for record in records:
            check.add(record)
    check.finish(complete)
    return check


class CaseCheck:
    """freeze-cases.jsonl checked one record at a time: schema, content hash and one line per
    case. `add` each record in file order, then `finish`; `cases` (by id) and `findings` hold
    the result.

    One case frozen twice is `duplicate-case`, whether the second line repeats its `case_id`
    or its content (the same `sha256`) under another id: the seed's "repeated attacks or epochs
    are not scored as extra trials" (One Trial Per Case), so a repeated case is not a new one.
    No records is `file-empty`, unless `complete` is False: some line could not be read (a
    `jsonl-invalid` the loader reported), so the file is not empty and that finding says why.

    `public_fields` (memory, for a caller that never compares contents: docs/performance.md):
    each case is kept without its `content` once its hash is checked, and with only these
    fields of its `public` (those the market's bars select cases by), equal ones shared.
    None keeps every case whole.
    """

    def __init__(self, file: str, public_fields: frozenset[str] | None = None) -> None:
        self.file = file
        self.public_fields = public_fields
        self.cases: dict[str, Case] = {}
        self.findings: list[Finding] = []
        self.count = 0
        self._by_hash: dict[str, Case] = {}
        self._publics: dict[tuple[object, ...], Mapping[str, Any]] = {}
        self._strings = SharedStrings()  # a lean case's family and kind, kept once

    def add(self, record: Record) -> None:
        file, cases = self.file, self.cases
        self.count += 1
        problems = validate("freeze-case", record.data, file, line=record.line)
        if problems:
            self.findings += problems
            return
        data = record.data
        if self.public_fields is None:
            case = Case.from_data(record.line, data)
        else:  # lean: no content (hashed below, from the record), only the public fields
            strings = self._strings
            case = Case(
                record.line,
                data["case_id"],  # type: ignore[arg-type]  # the schema: strings
                data["sha256"],  # type: ignore[arg-type]
                strings.one("family", data["family"]),  # type: ignore[arg-type]
                strings.one("kind", data["kind"]),  # type: ignore[arg-type]
                self._public(data["public"]),  # type: ignore[arg-type]
                None,
            )
        if case.case_id in cases:
            first = cases[case.case_id].line
            message = f"case_id {case.case_id!r} appears again (first on line {first})"
            self.findings.append(Finding(Code.DUPLICATE_CASE, message, file, record.line))
            return
        cases[case.case_id] = case  # kept, so its trial is not also an unknown case
        same = self._by_hash.setdefault(case.sha256, case)
        if same is not case:
            message = (
                f"case {case.case_id!r} has the same content (sha256 {case.sha256}) as case"
                f" {same.case_id!r} on line {same.line}: one case frozen twice is still one case"
            )
            self.findings.append(Finding(Code.DUPLICATE_CASE, message, file, record.line))
            return
        content = data.get("content")
        if content is not None:
            try:
                actual = case_hash(content)  # type: ignore[arg-type]  # the schema: an object
            except (rfc8785.CanonicalizationError, ValueError, TypeError) as error:
                message = f"content of case {case.case_id!r} has no RFC 8785 form: {error}"
                self.findings.append(Finding(Code.SCHEMA, message, file, record.line))
                return
            if actual != case.sha256:
                folder = file.rpartition("/")[0] or "."
                message = (
                    f"case {case.case_id!r}: sha256 says {case.sha256}, the RFC 8785 form of"
                    f" its content hashes to {actual}; `claims hash-cases {folder} --write`"
                    " writes the computed hash"
                )
                self.findings.append(Finding(Code.CASE_HASH_MISMATCH, message, file, record.line))

    def _public(self, public: Mapping[str, Any]) -> Mapping[str, Any]:
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


_FOLDED = 4096  # distinct unit-key names whose folded form a `TrialCheck` keeps


def check_trials(
    records: Sequence[Record],
    cases: Mapping[str, Case] | None,
    unit_keys: Sequence[str],
    file: str,
    complete: bool = True,
) -> tuple[list[Trial], list[Finding]]:
    """Schema, one trial per case, known cases, unit keys present. Return trials and findings
    (`TrialCheck`, over every record)."""
    check = _over(TrialCheck(cases, unit_keys, file), records, complete)
    return check.trials, check.findings


# How many unknown case ids and frozen cases without a trial are compared to link them.
_LINKED = 100


class TrialCheck:
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
        self._first_line: dict[str, int] = {}  # case id -> line of its first trial
        # Only strings can name a case (a list or object there is unhashable, and a schema
        # error): the case ids that lines name beside `_first_line`'s, for `missing-trial`.
        self._tried: set[str] = set()
        # The first trials naming a case that is not frozen: (case id, line, finding index),
        # to link each with the frozen case left without a trial (a misspelt id is both).
        self._unknown: list[tuple[str, int, int]] = []
        self._folded: dict[str, dict[str, str]] = {}  # per unit key: names folded
        self._strings = SharedStrings()  # the system and the result's strings, kept once

    def add(self, record: Record) -> None:
        self.count += 1
        if not self._add(record) and isinstance(named := record.data.get("case_id"), str):
            self._tried.add(named)

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
        """Check one record; True when its case id is kept in `_first_line`."""
        file, data, cases = self.file, record.data, self.cases
        problems = validate("trial", data, file, line=record.line)
        missing = [key for key in self.unit_keys if key not in data]
        if missing:
            message = (
                f"unit key(s) {', '.join(missing)} missing: every unit key must be present"
                " (null means 'not applicable')"
            )
            problems.append(Finding(Code.SCHEMA, message, file, record.line))
        if problems:
            self.findings += problems
            return False
        system = str(data["system"])
        if not fold_name(system):
            message = (
                f"system: {system!r} is blank once white space is trimmed; every trial names"
                " the system it ran on"
            )
            self.findings.append(Finding(Code.SCHEMA, message, file, record.line))
            return False
        started_at = parse_timestamp(str(data["started_at"]))
        assert started_at is not None  # the schema's date-time format checked it
        case_id: str = data["case_id"]  # type: ignore[assignment]  # the schema: a string
        if case_id in self._first_line:
            message = (
                f"a second trial for case {case_id!r} (first on line"
                f" {self._first_line[case_id]}); the rules allow exactly one trial per case"
            )
            self.findings.append(Finding(Code.DUPLICATE_TRIAL, message, file, record.line))
            return True
        self._first_line[case_id] = record.line
        case = cases.get(case_id) if cases is not None else None
        if cases is not None and case is None:
            message = f"trial names case {case_id!r}, which is not in freeze-cases.jsonl"
            if len(self._unknown) < _LINKED:
                self._unknown.append((case_id, record.line, len(self.findings)))
            self.findings.append(Finding(Code.UNKNOWN_CASE, message, file, record.line))
            return True
        keys = FoldedKeys()
        for key in self.unit_keys:
            value = data[key]
            keys[key] = self._fold(key, value) if isinstance(value, str) else value
        self._strings.fields(data["result"], "result")  # type: ignore[arg-type]  # an object
        self.trials.append(
            Trial.from_data(
                record.line,
                data,
                started_at,
                keys,
                case_id=case.case_id if case is not None else case_id,  # one string per id
                system=self._strings.one("system", data["system"]),  # type: ignore[arg-type]
            )
        )
        return True

    def finish(self, complete: bool = True) -> None:
        """The file is read: `complete` is False when some line of it could not be."""
        if not self.count:
            if complete:  # else every line was refused: jsonl-invalid, not an empty file
                message = "no trials: the file is empty"
                self.findings.append(Finding(Code.FILE_EMPTY, message, self.file))
        elif self.cases is not None and complete:
            # Exactly one trial per frozen case: a case left out is a result withheld. (Not
            # judged while some line could not be read: that line may be the case's trial.)
            missing = [
                case
                for case in self.cases.values()
                if case.case_id not in self._first_line and case.case_id not in self._tried
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


def _field_name(where: FieldPath) -> str:
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@lru_cache(maxsize=256)  # called once per record, for the few files of an attempt
def _file_name(file: str) -> str:
    return PurePosixPath(file).name


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
    for pattern in _NAME_FIELDS.get(_file_name(file), ()):
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
                    f"{_field_name(where)}: {value!r} holds {', '.join(hidden)}, which a"
                    " reader cannot see; names are compared as they look, so write it"
                    " without"
                )
                findings.append(
                    Finding(Code.NAME_INVISIBLE_CHARACTER, message, file, line_of(where))
                )
    return findings


def _strings(data: object, where: FieldPath = ()) -> Iterable[tuple[FieldPath, str]]:
    """Every string value in `data` with its path (bounded depth, like the schemas allow)."""
    if len(where) > 64:
        return
    if isinstance(data, str):
        yield where, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from _strings(value, (*where, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _strings(value, (*where, index))


def _text_keys(data: object, where: FieldPath = ()) -> Iterable[FieldPath]:
    """The path of every string key in `data` that may write a field as text: one holding
    `:` or `=`, or not ASCII (bounded depth, like `_strings`)."""
    if len(where) > 64:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and (not key.isascii() or ":" in key or "=" in key):
                yield (*where, key)
            yield from _text_keys(value, (*where, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _text_keys(value, (*where, index))


def check_placeholders(
    documents: Iterable[tuple[str, object, Callable[[FieldPath], int | None]]],
    already: Iterable[Finding] = (),
) -> list[Finding]:
    """A value `claims init` left for the filer (`FILL-IN: ...`) in attempt.yaml or
    freeze.yaml is `schema`, naming the field: free-text fields would pass their schema with
    the placeholder in them. A line with a schema error already (`already`) is not reported
    twice."""
    reported = {(f.file, f.line) for f in already if f.code is Code.SCHEMA}
    findings = []
    for file, data, line_of in documents:
        if _file_name(file) not in ("attempt.yaml", "freeze.yaml"):
            continue
        for where, value in _strings(data):
            line = line_of(where)
            if value.startswith(PLACEHOLDER) and (file, line) not in reported:
                message = f"{_field_name(where)}: {placeholder_message(value)}"
                findings.append(Finding(Code.SCHEMA, message, file, line))
    return findings


def check_generator(generator: Generator | None, file: str, line: int | None) -> list[Finding]:
    """A generator cannot find more planted vulnerabilities than were planted (`schema`).

    JSON Schema cannot compare two fields, so this rule does: the route's found rate is a
    fraction of the planted ones.
    """
    if generator is None or generator.planted_found <= generator.planted:
        return []
    message = (
        f"adversarial.generator.planted_found: {generator.planted_found} is more than planted"
        f" ({generator.planted}): a generator cannot find more planted vulnerabilities than"
        " were planted"
    )
    return [Finding(Code.SCHEMA, message, file, line)]


def check_trial_order(
    trials: Iterable[Trial], freeze_time: datetime, what: str, file: str
) -> list[Finding]:
    """Every trial must start strictly after `freeze_time` (`trial-before-freeze`)."""
    return [
        Finding(
            Code.TRIAL_BEFORE_FREEZE,
            f"trial of case {trial.case_id!r} started at {trial.started_at.isoformat()},"
            f" not after {what} ({freeze_time.isoformat()})",
            file,
            trial.line,
        )
        for trial in trials
        if trial.started_at <= freeze_time
    ]


def check_trials_not_after(
    trials: Iterable[Trial], filed_at: datetime, what: str, file: str
) -> list[Finding]:
    """No trial starts after `filed_at`, when its record landed (`trial-in-future`). Git
    dates commits in whole seconds, so a trial counts as after only from the next second."""
    next_second = filed_at + timedelta(seconds=1)
    return [
        Finding(
            Code.TRIAL_IN_FUTURE,
            f"trial of case {trial.case_id!r} started at {trial.started_at.isoformat()},"
            f" after {what}: a trial cannot start after its record was filed",
            file,
            trial.line,
        )
        for trial in trials
        if trial.started_at >= next_second
    ]


def paper_freeze_time(text: str) -> datetime | None:
    """The instant a paper's dated freeze ends: a timestamp as given, a date at its last moment.

    A freeze dated only by day is taken to hold until the end of that day anywhere on Earth
    (UTC-12), so no trial of that day can count as after it.
    """
    moment = parse_timestamp(text)
    if moment is not None:
        return moment
    day = parse_date(text)
    return None if day is None else end_of_day(day)


@dataclass(frozen=True, slots=True)
class RawLogFile:
    """A file under raw-log/: its name, size and SHA-256, and its bytes for excerpts."""

    name: str
    size: int
    sha256: str


def check_raw_log(
    files: Sequence[RawLogFile],
    claim: Mapping[str, Any],
    max_local_log_bytes: int,
    excerpt_bytes: int,
    folder: str,
    attempt_file: str,
    claim_line: int | None,
) -> list[Finding]:
    """The raw log is kept whole (hash and size equal `raw_log`) or as exact head/tail excerpts.

    Whole: one file, at most `max_local_log_bytes`, whose sha256 and size equal the claim.
    Excerpts: exactly `head` and `tail`, each exactly `excerpt_bytes`, and the claimed full
    size over `max_local_log_bytes` (a log that fits must be kept whole).
    """
    names = sorted(file.name for file in files)
    claimed_size = int(claim["bytes"])
    attempt = attempt_file.rpartition("/")[0] or "."
    # Each rule below is the shape `claims pin-log` writes: name it as the fix.
    pin = f"; `claims pin-log {attempt} --log FILE` keeps the log as the rules ask and pins it"
    if not files:
        return [Finding(Code.FILE_MISSING, "raw-log/ holds no file", folder)]
    if names == ["head", "tail"]:
        findings = []
        if claimed_size <= max_local_log_bytes:
            message = (
                f"raw_log.bytes is {claimed_size}, within the {max_local_log_bytes}-byte limit:"
                " keep the whole log in raw-log/, not excerpts"
            ) + pin
            findings.append(Finding(Code.RAW_LOG_EXCERPT, message, attempt_file, claim_line))
        for file in files:
            if file.size != excerpt_bytes:
                message = f"got {file.size} bytes, expected exactly {excerpt_bytes}{pin}"
                findings.append(Finding(Code.RAW_LOG_EXCERPT, message, f"{folder}/{file.name}"))
        return findings
    if len(files) != 1 or names[0] in ("head", "tail"):
        message = (
            f"raw-log/ holds {', '.join(names)}: expected the whole log as one file, or"
            " exactly two excerpts named head and tail"
        ) + pin
        return [Finding(Code.RAW_LOG_EXCERPT, message, folder)]
    whole = files[0]
    path = f"{folder}/{whole.name}"
    if whole.size > max_local_log_bytes:
        message = (
            f"{whole.size} bytes, over the {max_local_log_bytes}-byte limit: keep its first"
            f" and last {excerpt_bytes} bytes as raw-log/head and raw-log/tail"
        ) + pin
        return [Finding(Code.RAW_LOG_EXCERPT, message, path)]
    findings = []
    if whole.size != claimed_size:
        message = f"the log has {whole.size} bytes, raw_log.bytes says {claimed_size}{pin}"
        findings.append(Finding(Code.RAW_LOG_HASH_MISMATCH, message, path))
    if whole.sha256 != claim["sha256"]:
        message = f"the log hashes to {whole.sha256}, raw_log.sha256 says {claim['sha256']}{pin}"
        findings.append(Finding(Code.RAW_LOG_HASH_MISMATCH, message, path))
    return findings


def check_withheld(
    documents: Iterable[tuple[str, object, Callable[[FieldPath], int | None]]],
    withholdable: Sequence[str],
) -> list[Finding]:
    """No withholdable field appears, at any depth, in a published file (seed, Hidden Suites).

    `documents` are (file, data, line_of) for every YAML document and JSONL record; each is
    checked by `WithheldCheck`.
    """
    if not withholdable:
        return []
    check = WithheldCheck(withholdable)
    return [finding for document in documents for finding in check(*document)]


class WithheldCheck:
    """One published document or record checked for withholdable fields (seed, Hidden Suites).

    Keys are compared after `fold_key`, so `Reference-Answer` and `referenceAnswer` are the
    field `reference_answer`. A string value that writes the field as a key (a JSON object or a
    `name: value` line kept in a string, `withheld_key_pattern`) publishes it too.
    """

    def __init__(self, withholdable: Sequence[str]) -> None:
        self.hidden = {fold_key(name): name for name in withholdable}
        self.patterns = [(name, withheld_key_pattern(name)) for name in dict.fromkeys(withholdable)]
        self.firsts = tuple({_first_word(name) for name in withholdable})

        # `may_hold`: each first word as bytes (only ASCII ones can be in an ASCII line)
        self._first_bytes = tuple(first.encode() for first in self.firsts)

    def may_hold(self, raw: bytes) -> bool:
        """Whether a JSONL line whose bytes are `plain_line` may hold a withholdable field, as
        a key or written in a string. False means this check finds nothing in its record.

        Every key and string of such a line is in its bytes as written. A key that folds to a
        withholdable field holds the field's first word once its `-`, `_` and white space are
        removed and it is lowered (`fold_key`), and a string that writes it holds the first
        word as it stands (`withheld_key_pattern`): so, lowered and without those bytes, the
        line holds some field's first word.
        """
        if not self.hidden:
            return False
        folded = raw.lower().translate(None, _ASCII_SEPARATORS)
        return any(first in folded for first in self._first_bytes)

    def __call__(
        self, file: str, data: object, line_of: Callable[[FieldPath], int | None]
    ) -> list[Finding]:
        hidden, firsts = self.hidden, self.firsts
        if not hidden or not _may_leak(data, hidden, firsts):
            return []
        findings = []
        for where in _paths_of_keys(data, hidden):
            key = where[-1]
            name = hidden[fold_key(str(key))]
            if key == name:
                message = f"{key}: a withholdable field must never be published"
            else:
                message = (
                    f"{key!r} is the withholdable field {name!r} spelled differently;"
                    " it must never be published"
                )
            findings.append(Finding(Code.WITHHELD_FIELD_LEAK, message, file, line_of(where)))
        # String values, then keys: a key is text too (`{"reference_answer: 42": 1}`).
        for where, text, what in (
            *((where, text, "text") for where, text in _strings(data)),
            *((where, str(where[-1]), "key") for where in _text_keys(data)),
        ):
            if text.isascii() and not _ascii_may_write(text, firsts):
                continue
            folded = fold_text(text)
            for name, pattern in self.patterns:
                if pattern.search(folded):
                    message = (
                        f"{_field_name(where)}: its {what} writes the withholdable field"
                        f" {name!r} as a key; it must never be published"
                    )
                    findings.append(
                        Finding(Code.WITHHELD_FIELD_LEAK, message, file, line_of(where))
                    )
                    break
        return findings


_SEPARATORS = re.compile(r"[\s_-]+")
# What `_SEPARATORS` matches in ASCII: `\s` (str.isspace) is these six and \x1c-\x1f.
_ASCII_SEPARATORS = bytes(code for code in range(128) if chr(code).isspace() or chr(code) in "_-")


def plain_line(raw: bytes) -> bool:
    """A JSONL line in printable ASCII without a backslash: each of its keys and strings is
    in its bytes as written (no escape), and none holds a character a reader cannot see (a
    control character in a string is not JSON: the loader refused it)."""
    return raw.isascii() and b"\\" not in raw and b"\x7f" not in raw


def _first_word(name: str) -> str:
    """The first word of a withholdable field as `withheld_key_pattern` matches it."""
    return next((word for word in _SEPARATORS.split(fold_text(name)) if word), "")


def _ascii_may_write(text: str, firsts: Sequence[str]) -> bool:
    """Whether ASCII `text` may write a withholdable field as a key: the key pattern needs
    its first word (in `fold_text(text)`, which is `text.lower()` for ASCII) and a `:` or
    `=`. False means it certainly does not."""
    if ":" not in text and "=" not in text:
        return False
    lowered = text.lower()
    return any(first in lowered for first in firsts)


def _may_leak(data: object, hidden: Mapping[str, str], firsts: Sequence[str]) -> bool:
    """Whether `data` may hold a withholdable field, as a key or written in a string value:
    one walk without paths, so the common record (nothing to find) is passed over cheaply.
    False means `check_withheld` would find nothing in it."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii() or _ascii_may_write(item, firsts):
                return True
        elif isinstance(item, dict):
            for key, value in item.items():
                if isinstance(key, str) and (
                    fold_key(key) in hidden or not key.isascii() or _ascii_may_write(key, firsts)
                ):
                    return True
                pending.append(value)
        elif isinstance(item, list):
            pending.extend(item)
    return False


@lru_cache(maxsize=4096)  # records repeat the same few keys
def fold_key(key: str) -> str:
    """`key` as the withheld-field check compares it: NFKC, without format characters
    (zero-width spaces and joiners) or surrounding whitespace, case-folded, and every `-`, `_`
    and whitespace removed, so `reference_answer`, `Reference-Answer`, `reference answer`
    and `referenceAnswer` are one field (docs/spec-notes.md)."""
    return _SEPARATORS.sub("", fold_text(key).strip())


def fold_text(text: str) -> str:
    """`text` as the leak check reads it: NFKC, without format characters, case-folded."""
    if text.isascii():  # NFKC and format characters leave ASCII alone; casefold is lower
        return text.lower()
    text = unicodedata.normalize("NFKC", text)
    return "".join(char for char in text if unicodedata.category(char) != "Cf").casefold()


@lru_cache(maxsize=256)
def withheld_key_pattern(name: str) -> re.Pattern[str]:
    """A withholdable field written as a key in text already `fold_text`-ed: its words,
    joined by nothing or any run of `-`, `_` or white space, after any `_` and before any run
    of separators, followed (past an optional quote) by `:` or `=`."""
    words = [re.escape(word) for word in _SEPARATORS.split(fold_text(name)) if word]
    joined = r"[\s_-]*".join(words)
    # A key's `_` and `-` at either end fold away (`fold_key`): `_reference_answer:` and
    # `reference_answer_ =` write the field too. Possessive, so a long run of separators
    # after the name is read once.
    return re.compile(rf"(?<![\w])_*{joined}[\s_-]*+(?![\w])[\"']?\s*[:=]")


def _paths_of_keys(value: object, keys: Mapping[str, str]) -> list[FieldPath]:
    """Paths of every string mapping key whose `fold_key` is in `keys`, found with an explicit
    stack (bounded depth)."""
    found: list[FieldPath] = []
    pending: list[tuple[object, FieldPath]] = [(value, ())]
    while pending:
        item, where = pending.pop()
        if len(where) > 64:
            continue
        if isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and fold_key(key) in keys:
                    found.append((*where, key))
                if isinstance(child, dict | list):  # only containers hold keys
                    pending.append((child, (*where, key)))
        elif isinstance(item, list):
            pending.extend(
                (child, (*where, index))
                for index, child in enumerate(item)
                if isinstance(child, dict | list)
            )
    return sorted(found, key=str)


def evidence_digest(file_hashes: Mapping[str, str]) -> str:
    """SHA-256 of the sorted `path sha256` lines of every file but judgments.yaml (docs/spec.md §8).

    Paths are POSIX, relative to the attempt folder; each line ends with a newline.
    """
    lines = sorted(
        f"{path} {sha}\n" for path, sha in file_hashes.items() if path != "judgments.yaml"
    )
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()

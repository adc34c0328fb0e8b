"""bot/vocab/typed.py: the typed reading of a line says yes only where today's path does.

Today's path is the loader (`parse_jsonl`) and then the schema (`validate`, jsonschema-rs with
jsonschema for the messages). For every line of the adversarial corpus, of the specimen
attempt, of hand-made hostile lines and of Hypothesis's mutations of them, for each kind
(frozen case, trial, certificate):
- a line the typed reading takes is one today's path accepts, with equal values (of equal
  types, in equal order), and the content hash it takes is `case_hash`'s;
- a line today's path accepts is taken by the typed reading wherever it is in its domain
  (ASCII, no escaped surrogate, no 16-digit number, no white space before a key's colon, no
  `":` inside a string), so the two accept and refuse the same lines there.
The Structs are also compared with the schemas keyword by keyword, and the guarded content
hash with `rfc8785` on floats, -0.0, exponents and keys outside the basic plane.
"""

from __future__ import annotations

import hashlib
import io
import json
import re
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import msgspec
import orjson
import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.faces.demo.specimen import AttemptSpec, attempt_files
from bot.rules.evidence.cases import CaseChecker
from bot.rules.evidence.hashing import case_hash
from bot.rules.evidence.schema import _validator, validate
from bot.rules.evidence.trials import TrialChecker
from bot.vocab.config import Limits
from bot.vocab.jsonl import Typed, _over_record_caps, _shape, parse_jsonl
from bot.vocab.timestamps import parse_timestamp
from bot.vocab.typed import (
    _LONG_NUMBER_SCANNED,
    _SCAN,
    CaseLine,
    CertificateLine,
    LineDecoder,
    TrialLine,
    content_sha256,
)
from tests.adversarial.generate import CORPUS, Context
from tests.adversarial.mutate import mutate

KINDS = {
    "freeze-cases.jsonl": "freeze-case",
    "trials.jsonl": "trial",
    "certificates.jsonl": "certificate",
}
STRUCTS: dict[str, type[msgspec.Struct]] = {
    "freeze-case": CaseLine,
    "trial": TrialLine,
    "certificate": CertificateLine,
}

LIMITS = Limits()


def today(kind: str, raw: bytes) -> dict[str, Any] | None:
    """The record today's path accepts for line `raw` of a `kind` file, or None."""
    records, findings = parse_jsonl(io.BytesIO(raw + b"\n"), "f.jsonl")
    if findings or len(records) != 1:
        return None
    data = records[0].data
    return None if validate(kind, data, "f.jsonl", line=1) else data


def typed(kind: str, raw: bytes) -> dict[str, Any] | None:
    """The record the typed reading takes for `raw` (its fields as a dict, in the record's
    order), or None; a case's content hash, where taken, is checked against `case_hash`.

    Offered, as `parse_jsonl` offers it, only a line within the record caps and with no more
    arrays and objects than `Limits.max_json_depth` (so no deeper)."""
    containers, values = _shape(raw, LIMITS)
    if _over_record_caps(containers, values, LIMITS) or containers > LIMITS.max_json_depth:
        return None
    decoder = LineDecoder()
    line: msgspec.Struct | None
    if kind == "freeze-case":
        read = decoder.case(raw)
        line = read[0] if read else None
        if read is not None and read[1] is not None:
            assert read[1] == case_hash(read[0].content)  # type: ignore[arg-type]
    elif kind == "trial":
        trial = decoder.trial(raw)
        line = trial[0] if trial else None
        if trial is not None:
            assert trial[1] == parse_timestamp(trial[0].started_at)
    else:
        line = decoder.certificate(raw)
    if line is None:
        return None
    fields = {
        name: getattr(line, name)
        for name in line.__struct_fields__
        if getattr(line, name) is not msgspec.UNSET
    }
    order = list(json.loads(raw))  # no duplicate key here: the count of `":` said so
    return {name: fields[name] for name in order}


_DIGITS = re.compile(rb"[0-9]{16}")
_LOOSE = re.compile(rb'"\s+:')
_SURROGATE = re.compile(rb"\\u[dD][89a-fA-F]")


def _members(value: object) -> int:
    if isinstance(value, dict):
        return len(value) + sum(_members(item) for item in value.values())
    if isinstance(value, list):
        return sum(_members(item) for item in value)
    return 0


def _utf8(raw: bytes) -> bool:
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


def in_domain(raw: bytes, data: dict[str, Any]) -> bool:
    return (
        raw.count(b"[") + raw.count(b"{") <= LIMITS.max_json_depth
        and _utf8(raw)
        and not _DIGITS.search(raw)
        and not _LOOSE.search(raw)
        and not _SURROGATE.search(raw)
        and raw.count(b'":') == _members(data)
    )


def same(value: object) -> str:
    """Values compared with their types and order: `true` is not 1, nor 1 1.0."""
    return repr(value)


def check_line(kind: str, raw: bytes) -> bool:
    """Both readings of one line agree; True when the typed one took it."""
    expected = today(kind, raw)
    got = typed(kind, raw)
    if got is not None:
        assert expected is not None, raw
        assert same(got) == same(expected), raw
    elif expected is not None:
        assert not in_domain(raw, expected), raw
    return got is not None


# ---- the lines ------------------------------------------------------------------------------


class _Planned(Exception):
    """A corpus entry's plan: the attempt and the edits of its files."""

    def __init__(self, spec: AttemptSpec | None, edits: dict[str, Any]) -> None:
        self.spec, self.edits = spec, edits


class _Recording(Context):
    """A corpus entry's plan, caught before a registry is built: its files are made here."""

    def registry(self, spec: AttemptSpec | None = None, **kwargs: Any) -> Any:
        raise _Planned(spec, kwargs)


def _jsonl_lines(files: dict[str, bytes]) -> Iterator[tuple[str, bytes]]:
    for name, raw in files.items():
        kind = KINDS.get(name.rpartition("/")[2])
        if kind is not None:
            for line in raw.split(b"\n"):
                yield kind, line.removesuffix(b"\r")


ROOT = Path(__file__).resolve().parents[3]
# The registry's own evidence and the demo's (examples/generate.py writes both kinds: honest
# attempts and deliberately broken ones).
DATA = ("examples", "attempts", "challenge-runs")


def corpus_lines() -> list[tuple[str, bytes]]:
    """Every JSONL line of the specimen attempts, of the corpus entries whose trick is an edit
    of an attempt's files, and of the repository's evidence and examples."""
    found: dict[tuple[str, bytes], None] = {}
    for folder in DATA:
        for path in sorted((ROOT / folder).rglob("*.jsonl")):
            found.update(dict.fromkeys(_jsonl_lines({path.name: path.read_bytes()})))
    for spec in (AttemptSpec(), AttemptSpec(kind="wrapped")):
        found.update(dict.fromkeys(_jsonl_lines(attempt_files(spec))))
    for entry in CORPUS:
        try:
            entry.build(_Recording(Path("unused")))
        except _Planned as planned:
            for edit in ("before_scores", "change", "change_in_run"):
                files = attempt_files(planned.spec or AttemptSpec())
                change: Callable[[dict[str, bytes]], None] | None = planned.edits.get(edit)
                if change is None:
                    continue
                try:
                    change(files)
                except KeyError:  # an edit of a file made later (scores.yaml): no JSONL
                    continue
                found.update(dict.fromkeys(_jsonl_lines(files)))
        except Exception:  # an entry built otherwise (git history, servers): not a file edit
            continue
    return list(found)


CORPUS_LINES = corpus_lines()
CASE = json.loads(attempt_files(AttemptSpec()).get("freeze-cases.jsonl", b"").split(b"\n")[0])
TRIAL = json.loads(attempt_files(AttemptSpec()).get("trials.jsonl", b"").split(b"\n")[0])
CERTIFICATE = json.loads(
    attempt_files(AttemptSpec(kind="wrapped"))["certificates.jsonl"].split(b"\n")[0]
)


def _without(base: dict[str, Any], *names: str) -> dict[str, Any]:
    return {key: value for key, value in base.items() if key not in names}


def _line(base: dict[str, Any], **changes: Any) -> bytes:
    return json.dumps({**base, **changes}, separators=(",", ":")).encode()


DUPLICATE = _line(TRIAL)[:-1] + b',"case_id":"other"}'  # a key written twice


def _utf8_line(base: dict[str, Any], **changes: Any) -> bytes:
    return json.dumps({**base, **changes}, separators=(",", ":"), ensure_ascii=False).encode()


HOSTILE: list[tuple[str, bytes]] = [
    ("trial", _utf8_line(TRIAL, system="caf\u00e9 \u2713", result={"\u00e9": "\u2028"})),
    ("trial", _utf8_line(TRIAL, system="\U0001f600")),
    ("trial", _utf8_line(TRIAL, trajectory="\u00e9" * 201)),
    ("trial", _utf8_line(TRIAL, system="x").replace(b'"x"', b'"\xed\xa0\x80"')),
    ("trial", _utf8_line(TRIAL, system="x").replace(b'"x"', b'"\xff"')),
    ("trial", _utf8_line(TRIAL, system="x").replace(b'"x"', b'"\xc0\xaf"')),
    ("trial", _utf8_line(TRIAL, system="x").replace(b'"x"', b'"\xf4\x90\x80\x80"')),
    ("trial", _utf8_line(TRIAL, system="x").replace(b'"x"', b'"a\xef\xbb\xbfb"')),
    ("trial", _utf8_line(TRIAL).replace(b',"result"', b',\xc2\xa0"result"')),
    ("freeze-case", _utf8_line(CASE, content={"\U0001f600": 1, "\ue000": 2})),
    ("freeze-case", _utf8_line(CASE, content={"\u00e9": "\U0001f600", "e": "\u0080\u009f"})),
    ("freeze-case", _utf8_line(CASE, family="\u00e9" * 200)),
    ("trial", DUPLICATE),
    ("trial", _line(TRIAL)[:-1] + b',"case\\u005fid":"other"}'),  # one spelled with an escape
    ("trial", _line(TRIAL, result={"a": 1, "b": {"c": 1}})[:-3] + b',"c":2}}'),  # nested
    ("trial", _line(TRIAL).replace(b'"system":', b'"system" :')),
    ("trial", _line(TRIAL, result={"n": 2**53})),
    ("trial", _line(TRIAL, result={"n": 2**53 - 1, "m": -(2**53 - 1)})),
    ("trial", _line(TRIAL, result={"n": 10**30})),
    ("trial", _line(TRIAL).replace(b'"result":{', b'"result":{"x":1e400,')),
    ("trial", _line(TRIAL).replace(b'"result":{', b'"result":{"x":NaN,')),
    ("trial", _line(TRIAL).replace(b'"result":{', b'"result":{"x":-0,"y":-0.0,"z":1E5,')),
    ("trial", _line(TRIAL, result={"x": "\ud800"}).replace(b"\\\\", b"\\")),
    ("trial", _line(TRIAL, system="caf\u00e9")),
    ("trial", _line(TRIAL, system="\U0001f600")),
    ("trial", _line(TRIAL, system=" ")),
    ("trial", _line(TRIAL, system="")),
    ("trial", _line(TRIAL, system="x" * 200)),
    ("trial", _line(TRIAL, system="x" * 201)),
    ("trial", _line(TRIAL, trajectory="\u00e9" * 200)),
    ("trial", _line(TRIAL, trajectory="\u00e9" * 201)),
    ("trial", _line(TRIAL, trajectory=None, evaluator=None, attack_family=None)),
    ("trial", _line(TRIAL, trajectory=1)),
    ("trial", _line(TRIAL, case_id="a\n")),
    ("trial", _line(TRIAL, case_id="-a")),
    ("trial", _line(TRIAL, case_id="a" * 201)),
    ("trial", _line(TRIAL, started_at="2027-01-20T09:00:00")),
    ("trial", _line(TRIAL, started_at="2027-02-30T09:00:00Z")),
    ("trial", _line(TRIAL, started_at="2027-01-20t09:00:00+01:00")),
    ("trial", _line(TRIAL, result=[])),
    ("trial", _line(TRIAL, result=None)),
    ("trial", _line(TRIAL, extra=1)),
    ("trial", _line({k: v for k, v in TRIAL.items() if k != "evaluator"})),
    ("trial", _line(TRIAL, result={"s": '":'})),
    ("trial", _line(TRIAL, result={"s": 'a\\b"c/\t'})),
    ("trial", _line(TRIAL) + b" "),
    ("trial", b" " + _line(TRIAL)),
    ("trial", _line(TRIAL) + b"x"),
    ("trial", _line(TRIAL, result={"d": [[[[]]]]})),
    ("trial", _line(TRIAL, result={"d": json.loads("[" * 80 + "]" * 80)})),
    ("trial", b"[1]"),
    ("trial", b"{}"),
    ("freeze-case", _line(CASE, content={"b": 1.5, "a": -0.0})),
    ("freeze-case", _line(CASE, content={"b": 1e21, "a": 1e-7})),
    ("freeze-case", _line(CASE, content={"\U0001f600": 1, "\ue000": 2})),
    ("freeze-case", _line(CASE, content={"\u00e9": "\u2028\x7f", "e": "\x01"})),
    ("freeze-case", _line(CASE, content=None)),
    ("freeze-case", _line(CASE, content=[1])),
    ("freeze-case", _line(CASE, content={"n": 2**60})),
    ("freeze-case", _line(CASE, sha256="A" * 64)),
    ("freeze-case", _line(CASE, sha256="a" * 63 + "\n")),
    ("freeze-case", _line(CASE, sha256="1" * 64)),
    ("freeze-case", _line(CASE, public={"hard": True, "level": 1, "score": 1.0})),
    ("freeze-case", _line({k: v for k, v in CASE.items() if k != "content"})),
    ("freeze-case", _line({k: v for k, v in CASE.items() if k != "public"})),
    ("certificate", _line(CERTIFICATE, abstain=True)),
    ("certificate", _line(CERTIFICATE, abstain=True, scope_reason="out of scope")),
    ("certificate", _line(CERTIFICATE, abstain=1)),
    ("certificate", _line(CERTIFICATE, label=None)),
    ("certificate", _line(CERTIFICATE, label=3)),
    ("certificate", _line(CERTIFICATE, measured="")),
    ("certificate", _line({k: v for k, v in CERTIFICATE.items() if k != "system"})),
    ("certificate", _line(_without(CERTIFICATE, "system", "version"))),
]


def test_the_corpus_is_read() -> None:
    kinds = {kind for kind, _ in CORPUS_LINES}
    assert kinds == set(STRUCTS)
    assert len(CORPUS_LINES) > 1000


def test_corpus_lines_are_read_alike() -> None:
    taken = [check_line(kind, raw) for kind, raw in CORPUS_LINES]
    assert sum(taken) > len(taken) // 2  # the typed reading does take most honest lines


@pytest.mark.parametrize(("kind", "raw"), HOSTILE)
def test_hostile_lines_are_read_alike(kind: str, raw: bytes) -> None:
    check_line(kind, raw)


def test_the_typed_reading_takes_and_declines() -> None:
    assert check_line("trial", _line(TRIAL))
    assert check_line("freeze-case", _line(CASE))
    assert check_line("certificate", _line(CERTIFICATE))
    assert check_line("trial", _utf8_line(TRIAL, system="caf\u00e9"))  # UTF-8 text
    assert not check_line("trial", DUPLICATE)  # today's path says why
    assert today("trial", DUPLICATE) is None


class _Draws:
    """mutate()'s choices, drawn by Hypothesis (so a failing example shrinks)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def index(self, count: int, label: str) -> int:
        return self.data.draw(st.integers(0, max(count - 1, 0)), label=label)

    def blob(self, label: str) -> bytes:
        return self.data.draw(st.binary(max_size=8), label=label)


_SEEDS = [(k, r) for k, r in CORPUS_LINES + HOSTILE if r.strip()]


@settings(max_examples=300, deadline=None)
@given(st.data())
def test_mutated_lines_are_read_alike(data: st.DataObject) -> None:
    kind, raw = data.draw(st.sampled_from(_SEEDS), label="line")
    name = next(name for name, of in KINDS.items() if of == kind)
    files = {name: raw}
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        mutate(files, _Draws(data))
    for line in files.get(name, b"").split(b"\n"):
        check_line(kind, line)


_VALUES = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | st.sampled_from([-0.0, 0.0, 1e21, 1e-7, 1e300, 5e-324, 0.1, -1.5, 2.0**53, 123456789.125])
    | st.floats(allow_nan=False, allow_infinity=False)
    | st.text(),
    lambda inner: (
        st.lists(inner, max_size=4)
        | st.dictionaries(
            st.text() | st.sampled_from(["\U0001f600", "\ue000", "\uffff", "a", "\x7f", "\u00e9"]),
            inner,
            max_size=4,
        )
    ),
    max_leaves=12,
)


@settings(max_examples=400, deadline=None)
@given(st.dictionaries(st.text(max_size=4), _VALUES, max_size=5), st.booleans())
def test_the_guarded_hash_is_rfc8785s(content: dict[str, Any], ascii_only: bool) -> None:
    raw = json.dumps(content, ensure_ascii=ascii_only, separators=(",", ":")).encode()
    expected = hashlib.sha256(rfc8785.dumps(content)).hexdigest()
    got = content_sha256(raw)
    assert got is None or got == expected


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(st.text(max_size=4), _VALUES, max_size=5), _VALUES, st.booleans())
def test_the_hash_taken_while_a_case_is_read_is_rfc8785s(
    content: dict[str, Any], public: Any, ascii_only: bool
) -> None:
    """As verify takes it: in the line's one pass (`LineDecoder.case`), with floats and other
    values in `public` too."""
    case = {**CASE, "public": {"p": public}, "content": content}
    raw = json.dumps(case, ensure_ascii=ascii_only, separators=(",", ":")).encode()
    read = LineDecoder().case(raw)
    if read is not None and read[1] is not None:
        assert read[1] == hashlib.sha256(rfc8785.dumps(content)).hexdigest()


_BMP = st.text(st.characters(max_codepoint=0xFFFF, exclude_categories=["Cs"]), max_size=6)
# Integers of up to 15 digits: a 16-digit number is declined whatever its value (typed.py).
_PLAIN = st.recursive(
    st.none() | st.booleans() | st.integers(-(10**15) + 1, 10**15 - 1) | _BMP,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_BMP, inner, max_size=4),
    max_leaves=12,
)


@settings(max_examples=300, deadline=None)
@given(st.dictionaries(_BMP, _PLAIN, max_size=5))
def test_the_hash_is_taken_without_floats_or_astral_keys(content: dict[str, Any]) -> None:
    for ascii_only in (True, False):  # escapes, or UTF-8
        raw = json.dumps(content, separators=(",", ":"), ensure_ascii=ascii_only).encode()
        if b'":' in raw.replace(b'":', b"", _members(content)):  # a `":` inside a string
            return
        assert content_sha256(raw) == hashlib.sha256(rfc8785.dumps(content)).hexdigest()


# What msgspec's sorted encoding writes otherwise than RFC 8785: -0.0 as -0.0 (JCS: 0), 1.0 as
# 1.0 (JCS: 1), 1e21 without the exponent's sign, keys outside the basic plane sorted by code
# point (JCS: by UTF-16 unit, so before U+E000).
DIFFERING = [{"a": -0.0}, {"a": 1.0}, {"a": 1e21}, {"\U0001f600": 1, "\ue000": 2}]


@pytest.mark.parametrize("content", DIFFERING)
def test_the_guard_declines_what_msgspec_writes_otherwise(content: dict[str, Any]) -> None:
    assert msgspec.json.encode(content, order="sorted") != rfc8785.dumps(content)
    for ascii_only in (True, False):
        assert content_sha256(json.dumps(content, ensure_ascii=ascii_only).encode()) is None


@pytest.mark.parametrize("content", [{"a": 1.5}, {"a": 1e-7}, {"a": 2**53}, {"a": -(2**60)}])
def test_the_guard_declines_floats_and_unsafe_integers(content: dict[str, Any]) -> None:
    assert content_sha256(json.dumps(content).encode()) is None


def test_the_hash_is_taken_where_provably_equal() -> None:
    content = {"b": [1, 'x\u00e9\u2028\x7f"\\/\b\f\n\r\t\x01'], "a": {"z": None, "y": True}}
    for ascii_only in (True, False):
        raw = json.dumps(content, ensure_ascii=ascii_only).encode()
        assert content_sha256(raw) == hashlib.sha256(rfc8785.dumps(content)).hexdigest()


# ---- the Structs follow the schemas ---------------------------------------------------------

_CONSTRAINTS = ("pattern", "minLength", "maxLength", "format")
# Keywords the decoder checks after msgspec has read the line (bot/vocab/typed.py).
_AFTER = {"certificate": {"anyOf", "allOf"}}


def _property(schema: dict[str, Any]) -> tuple[frozenset[str], tuple[tuple[str, Any], ...]]:
    """A property's JSON types and constraints, however written (`type: [a, b]` or anyOf)."""
    if "anyOf" in schema:
        parts = [_property(part) for part in schema["anyOf"]]
        types = frozenset().union(*(part[0] for part in parts))
        constraints = tuple(sorted({c for part in parts for c in part[1]}))
        return types, constraints
    kinds = schema.get("type", [])
    types = frozenset([kinds] if isinstance(kinds, str) else kinds)
    return types, tuple(sorted((key, schema[key]) for key in _CONSTRAINTS if key in schema))


def _keywords(schema: dict[str, Any]) -> dict[str, Any]:
    return {
        "type": schema["type"],
        "additionalProperties": schema["additionalProperties"],
        "required": sorted(schema["required"]),
        "properties": {name: _property(p) for name, p in schema["properties"].items()},
    }


@pytest.mark.parametrize("kind", sorted(STRUCTS))
def test_each_struct_equals_its_schema(kind: str) -> None:
    ours = _validator(kind).schema
    generated = msgspec.json.schema(STRUCTS[kind])
    theirs = generated["$defs"][generated["$ref"].rpartition("/")[2]]
    assert _keywords(theirs) == _keywords(ours)
    handled = {"type", "additionalProperties", "required", "properties"}
    described = {"$schema", "$id", "title", "description"}
    assert set(ours) - handled - described == _AFTER.get(kind, set())


# ---- the checks come out the same, read typed or not ----------------------------------------

UNIT_KEYS = ("system", "trajectory", "evaluator", "attack_family")


def _typed(
    one: Callable[[bytes], tuple[Any, Any] | None],
    add_one: Callable[..., None],
    many: Callable[[bytes, list[bytes]], tuple[Any, Any] | None],
    add_many: Callable[..., None],
    block: int,
) -> Typed:
    """The typed readers `RecordsChecker` gives `parse_jsonl`, over one checker: a line's
    reading (`one`) kept by `add_one`, a block's (`many`, offered when `block`) by `add_many`."""

    def line(number: int, raw: bytes) -> bool:
        read = one(raw)
        if read is not None:
            add_one(number, *read)
        return read is not None

    def lines(first: int, raw: bytes, found: list[bytes]) -> bool:
        read = many(raw, found)
        if read is not None:
            add_many(first, *read)
        return read is not None

    return Typed(line, lines if block else None)


def checked(
    files: dict[str, bytes],
    use_typed: bool,
    lean: bool,
    block: int = 0,
    unit_keys: tuple[str, ...] = UNIT_KEYS,
) -> str:
    """freeze-cases.jsonl and trials.jsonl read and checked as `RecordsChecker` does, with the
    typed reading offered each line or not, and (`block`: bytes read at once) each block of
    lines: the cases, trials and findings, as text."""
    decoder = LineDecoder()
    cases = CaseChecker("c.jsonl", frozenset({"title", "probe"}) if lean else None)
    typed = _typed(decoder.case, cases.add_typed, decoder.cases, cases.add_typed_lines, block)
    _, problems = parse_jsonl(
        io.BytesIO(files.get("freeze-cases.jsonl", b"")),
        "c.jsonl",
        sink=lambda record, _: cases.add(record),
        typed=typed if use_typed else None,
        block_bytes=block or 1 << 20,
    )
    cases.finish(not problems)
    trials = TrialChecker(cases.cases, unit_keys, "t.jsonl")
    typed = _typed(decoder.trial, trials.add_typed, decoder.trials, trials.add_typed_lines, block)
    _, more = parse_jsonl(
        io.BytesIO(files.get("trials.jsonl", b"")),
        "t.jsonl",
        sink=lambda record, _: trials.add(record),
        typed=typed if use_typed else None,
        block_bytes=block or 1 << 20,
    )
    trials.finish(not more)
    return repr((cases.cases, cases.findings, problems, trials.trials, trials.findings, more))


def _hostile_files() -> dict[str, bytes]:
    """The specimen's two files with every hostile case and trial line among them."""
    files = attempt_files(AttemptSpec())
    for kind, name in (("freeze-case", "freeze-cases.jsonl"), ("trial", "trials.jsonl")):
        lines = [raw for of, raw in HOSTILE if of == kind]
        files[name] = b"\n".join([files[name].rstrip(b"\n"), *lines]) + b"\n"
    return files


@pytest.mark.parametrize("lean", [False, True])
def test_the_checks_are_the_same_read_typed_or_not(lean: bool) -> None:
    files = _hostile_files()
    assert checked(files, True, lean) == checked(files, False, lean)


# Bytes read at once: less than a line, a few lines, many lines (a block holding a hostile
# line is read line by line; the blocks around it in one call).
BLOCKS = (7, 300, 1500, 1 << 16)


@pytest.mark.parametrize("block", BLOCKS)
@pytest.mark.parametrize("lean", [False, True])
def test_the_checks_are_the_same_read_by_blocks(lean: bool, block: int) -> None:
    files = _hostile_files()
    assert checked(files, True, lean, block) == checked(files, False, lean)


@pytest.mark.parametrize("block", BLOCKS)
def test_a_unit_key_naming_the_result_is_read_by_blocks(block: int) -> None:
    """The shared rules may name any trial field a unit key, `result` too (an object, which
    `bars.unit_structure` leaves out): a block is read as its lines are, without a crash."""
    files = attempt_files(AttemptSpec())
    keys = ("system", "result")
    assert checked(files, True, False, block, keys) == checked(files, False, False, 0, keys)


@settings(max_examples=100, deadline=None)
@given(st.data(), st.booleans())
def test_the_checks_are_the_same_on_mutated_files(data: st.DataObject, lean: bool) -> None:
    files = {
        name: raw
        for name, raw in _hostile_files().items()
        if name in ("freeze-cases.jsonl", "trials.jsonl")
    }
    for _ in range(data.draw(st.integers(1, 4), label="mutations")):
        mutate(files, _Draws(data))
    block = data.draw(st.sampled_from(BLOCKS), label="block")
    untyped = checked(files, False, lean)
    assert checked(files, True, lean) == untyped
    assert checked(files, True, lean, block) == untyped


def _nested(depth: int) -> bytes:
    return b'{"a":' * depth + b"1" + b"}" * depth


@pytest.mark.parametrize("depth", [1_500, 100_000])
def test_nesting_past_msgspecs_own_limit_is_declined_not_raised(depth: int) -> None:
    """msgspec raises RecursionError, not a MsgspecError, on deep nesting: the typed reading
    declines such a line (today's path says how deep is too deep), it never raises."""
    decoder = LineDecoder()
    case = _line(CASE, content={})[: -len(b"{}}")] + _nested(depth) + b"}"
    trial = _line(TRIAL, result={})[: -len(b"{}}")] + _nested(depth) + b"}"
    assert decoder.case(case) is None
    assert decoder.trial(trial) is None
    assert decoder.certificate(_nested(depth)) is None
    assert content_sha256(_nested(depth)) is None


_PREFIXES = [_line(CASE)[:-1], _line(TRIAL)[:-1], _line(CERTIFICATE)[:-1], b"{", b""]


@settings(max_examples=500, deadline=None)
@given(st.sampled_from(_PREFIXES), st.binary(max_size=300), st.binary(max_size=4))
def test_any_bytes_are_read_or_declined_never_raised(
    prefix: bytes, middle: bytes, end: bytes
) -> None:
    """Whatever the bytes, each typed reading gives a value or None (no exception), and a
    line it takes is JSON `orjson` reads too (`RecordsChecker._published_line` reads it so)."""
    raw = prefix + middle + end
    decoder = LineDecoder()
    taken = [decoder.case(raw), decoder.trial(raw), decoder.certificate(raw)]
    content_sha256(raw)
    if any(read is not None for read in taken):
        assert isinstance(orjson.loads(raw), dict)


class _Spelling:
    """One JSON value written out, each choice JSON leaves open drawn by Hypothesis: escapes
    (`\\u0061` for `a`, upper- or lower-case hex, `\\/`), white space around every token (also
    before a key's colon), numbers spelled otherwise (`-0`, `1E2`, `10e-1`), and now and then
    a key written twice, the second spelled with escapes (`"\\u0061"` repeating `"a"`)."""

    _SPACE = st.sampled_from([b"", b"", b"", b" ", b"\t", b"\r", b" \r\t"])

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def space(self) -> bytes:
        return self.data.draw(self._SPACE)

    def string(self, text: str) -> bytes:
        out = b'"'
        for char in text:
            how = self.data.draw(st.integers(0, 7))
            if char in '"\\' or char < " ":
                out += json.dumps(char).encode()[1:-1]
            elif how == 0 and char <= "\uffff":
                out += (b"\\u%04x" if self.data.draw(st.booleans()) else b"\\u%04X") % ord(char)
            elif how == 1 and char == "/":
                out += b"\\/"
            else:
                out += char.encode()
        return out + b'"'

    def number(self, value: float) -> bytes:
        spellings = [json.dumps(value).encode()]
        if type(value) is int and value == 0:
            spellings.append(b"-0")
        if type(value) is float and value.is_integer() and abs(value) < 1e15:
            whole = int(value)
            spellings += [b"%dE0" % whole, b"%d0e-1" % whole, b"%d.0" % whole]
        return self.data.draw(st.sampled_from(spellings))

    def value(self, value: Any) -> bytes:
        if isinstance(value, dict):
            members = [self.string(key) + self.space() + b":" for key in value]
            written = [
                key + self.space() + self.value(item)
                for key, item in zip(members, value.values(), strict=True)
            ]
            if value and self.data.draw(st.integers(0, 4)) == 0:  # a key written twice
                key = self.data.draw(st.sampled_from(list(value)))
                written.append(self.string(key) + b":" + self.value(value[key]))
            return b"{" + b",".join(self.space() + item + self.space() for item in written) + b"}"
        if isinstance(value, list):
            return b"[" + b",".join(self.space() + self.value(item) for item in value) + b"]"
        if isinstance(value, str):
            return self.string(value)
        if value is None or isinstance(value, bool):
            return json.dumps(value).encode()
        return self.number(value)


_SMALL = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(10**15) + 1, 10**15 - 1)
    | st.sampled_from([0.0, -0.0, 100.0, 1.5, 1e21, 5e-324])
    | st.text(st.sampled_from('a/"\\\x00\x7f\u00e9\u2028\ufeff\uffff\U0001f600:'), max_size=4),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab/\u00e9"), inner)
    ),
    max_leaves=8,
)


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(sorted(KINDS.values())), _SMALL)
def test_lines_spelled_every_way_are_read_alike(data: st.DataObject, kind: str, extra: Any) -> None:
    """The same record written with other escapes, spaces, number spellings and repeated
    keys: where the typed reading takes the line, today's path reads it the same."""
    base = {"freeze-case": CASE, "trial": TRIAL, "certificate": CERTIFICATE}[kind]
    record = dict(base)
    if kind == "freeze-case":
        record["public"] = {"p": extra}
        record["content"] = {"c": extra, "/": [extra]}
    elif kind == "trial":
        record["result"] = {"r": extra}
    raw = _Spelling(data).value(record)
    check_line(kind, raw)


# What may start a number of 16 digits (the shortest integer past 2**53 - 1 has 16 digits).
_LONG_NUMBER = re.compile(rb"[:,\[\s]-?[0-9]{16}")


@settings(max_examples=500, deadline=None)
@given(st.binary(max_size=60) | st.text('0123456789-:,[ \t\n\r"a{}', max_size=60).map(str.encode))
def test_the_scan_finds_every_long_number(raw: bytes) -> None:
    """Every 16-digit number `_LONG_NUMBER` finds, `_in_domain`'s scan finds too."""
    if _LONG_NUMBER.search(raw):
        assert _LONG_NUMBER_SCANNED in raw.translate(_SCAN)


def test_the_specimen_s_files_are_read_a_block_at_a_time() -> None:
    """The comparisons above are not vacuous: clean files are taken a block per call."""
    files = attempt_files(AttemptSpec())
    decoder = LineDecoder()
    for name, read in (("freeze-cases.jsonl", decoder.cases), ("trials.jsonl", decoder.trials)):
        block = files[name]
        lines = block.rstrip(b"\n").split(b"\n")
        taken = read(block, lines)
        assert taken is not None, name
        assert len(taken[0]) == len(taken[1]) == len(lines) > 1


# Numbers of 16 digits or more anywhere a number may stand (after `:`, `[`, `,`, white space,
# a minus sign), and digit runs where no number starts (fractions, exponents, strings): the
# typed reading's domain lets the latter in and never an integer outside ±(2**53 - 1).
_LONG_DIGITS = st.recursive(
    st.integers(-(10**22), 10**22)
    | st.sampled_from([2**53 - 1, 2**53, -(2**53), 10**15, 10**16, -(10**16), 0])
    | st.sampled_from([1e16, -1e16, 0.1234567890123456789, 1e-17, 123456789012345.67, -0.0])
    | st.text(st.sampled_from("0123456789-:[ "), max_size=20),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(st.sampled_from("ab"), inner),
    max_leaves=6,
)


def _spaced(value: Any, space: Callable[[], bytes]) -> bytes:
    """`value` as JSON with white space drawn after each `:`, `[` and `,` (where a number may
    start; none before a key's colon, which the typed reading declines whatever follows)."""
    if isinstance(value, dict):
        members = [
            json.dumps(key).encode() + b":" + space() + _spaced(item, space)
            for key, item in value.items()
        ]
        return b"{" + b",".join(space() + member for member in members) + b"}"
    if isinstance(value, list):
        return b"[" + b",".join(space() + _spaced(item, space) for item in value) + b"]"
    return json.dumps(value).encode()


@settings(max_examples=300, deadline=None)
@given(st.data(), st.sampled_from(["freeze-case", "trial"]), _LONG_DIGITS)
def test_long_numbers_anywhere_are_read_alike(data: st.DataObject, kind: str, extra: Any) -> None:
    """Lines with long integers and long digit runs, after spaces and in arrays: the typed
    reading takes none that today's path refuses, and reads alike those it takes."""
    record = dict(CASE if kind == "freeze-case" else TRIAL)
    if kind == "freeze-case":
        record["public"] = {"p": extra}
        record["content"] = {"c": extra}
    else:
        record["result"] = {"r": extra}
    spaces = st.sampled_from([b"", b"", b" ", b"\t", b" \r "])  # no LF: one line
    check_line(kind, _spaced(record, lambda: data.draw(spaces)))

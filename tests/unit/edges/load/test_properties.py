"""Property tests: the loaders, the schema check and the timestamp parser never raise on input."""

from __future__ import annotations

import io
import json
from datetime import datetime, timedelta
from functools import cache
from typing import Any

import yaml
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.edges.load.yaml_ import parse_yaml
from bot.rules.evidence.schema import SCHEMA_NAMES, validate
from bot.vocab.document import Document
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import parse_jsonl
from bot.vocab.timestamps import parse_timestamp
from bot.vocab.values import MAX_SAFE_INTEGER
from tests.support import PROJECT

SETTINGS = settings(max_examples=200, deadline=None, suppress_health_check=[HealthCheck.too_slow])

YAML_CODES = {Code.YAML_UNSAFE, Code.YAML_INVALID, Code.FILE_EMPTY}
JSONL_CODES = {Code.JSONL_INVALID}
SCHEMA_CODES = {Code.SCHEMA, Code.TIMESTAMP_NAIVE}


def check_findings(findings: list[Finding], allowed: set[Code], path: str) -> None:
    for finding in findings:
        assert isinstance(finding, Finding)
        assert finding.code in allowed
        assert finding.file == path
        assert finding.message
        assert finding.line is None or finding.line >= 1


# --- strategies ----------------------------------------------------------------------------

# Characters YAML and JSON give meaning to, so random text reaches the parsers' corners.
SYNTAX = st.text(
    alphabet=st.sampled_from(
        list(":-?[]{},&*!|>'\"#%@`~<= \t\n\r.0123456789aeflnrstuxyNOT\\\x00\x85\ufeff\u2028é")
    ),
    max_size=200,
)
RAW = st.one_of(st.binary(max_size=400), SYNTAX.map(str.encode), st.text().map(str.encode))

json_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),  # what the loaders accept (I-JSON)
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=30),
)
json_value = st.recursive(
    json_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=10,
)
# Flat objects (nesting is covered by `json_value`): cheaper to generate.
json_object = st.dictionaries(st.text(max_size=8), json_leaf, max_size=5)


# --- parse_yaml / parse_jsonl never raise ----------------------------------------------------


@SETTINGS
@given(RAW)
@example(b"a: &x 1\nb: *x\n")
@example(b"\xef\xbb\xbf\xc3\xa9\xff")
@example(b"\xef\xbb")
@example(b"a: 1\n---\n")
@example(b"[" * 3000)
@example(b"a: 0x\n")
@example(b"? !!str\n")
def test_parse_yaml_never_raises(raw: bytes) -> None:
    document, findings = parse_yaml(raw, "f.yaml")
    check_findings(findings, YAML_CODES, "f.yaml")
    if document is None:
        assert findings  # refused: at least one reason
    else:
        assert findings == []
        assert isinstance(document, Document)
        json.dumps(document.data)  # plain JSON-like data (no dates, no sets, no inf)
        for where, line in document.lines.items():
            assert isinstance(where, tuple)
            assert line >= 1


@SETTINGS
@given(RAW)
@example(b"\xef\xbb\xbf")
@example(b"\r\n\r\n")
@example(b'{"a": 1}\r')
@example(b'{"a":"\\ud800"}')
def test_parse_jsonl_never_raises(raw: bytes) -> None:
    records, findings = parse_jsonl(io.BytesIO(raw), "f.jsonl")
    check_findings(findings, JSONL_CODES, "f.jsonl")
    lines = [record.line for record in records]
    for finding in findings:
        assert finding.line is not None
        lines.append(finding.line)
    # Every line is either a record or exactly one refusal, and lines count from 1.
    assert sorted(lines) == list(range(1, len(lines) + 1))
    for record in records:
        assert isinstance(record.data, dict)


# --- round trips -----------------------------------------------------------------------------


@SETTINGS
@given(st.lists(json_value, max_size=8), st.booleans(), st.booleans())
def test_jsonl_round_trip(values: list[Any], ascii_only: bool, crlf: bool) -> None:
    ending = "\r\n" if crlf else "\n"
    raw = "".join(json.dumps(v, ensure_ascii=ascii_only) + ending for v in values).encode()
    records, findings = parse_jsonl(io.BytesIO(raw), "f.jsonl")
    assert [(r.line, r.data) for r in records] == [
        (n, v) for n, v in enumerate(values, 1) if isinstance(v, dict)
    ]
    assert [(f.code, f.line) for f in findings] == [
        (Code.JSONL_INVALID, n) for n, v in enumerate(values, 1) if not isinstance(v, dict)
    ]


@SETTINGS
@given(st.lists(json_object, min_size=1, max_size=6))
def test_jsonl_objects_round_trip_without_a_final_newline(values: list[dict[str, Any]]) -> None:
    raw = "\n".join(json.dumps(v) for v in values).encode()
    records, findings = parse_jsonl(io.BytesIO(raw), "f.jsonl")
    assert findings == []
    assert [(r.line, r.data) for r in records] == list(enumerate(values, 1))


# Text PyYAML's YAML 1.1 dumper writes so a YAML 1.2 core reader gets it back unchanged:
# no digits (so no `1e5` or `0o17`, plain in 1.1 but numbers in 1.2), no syntax characters.
SAFE_TEXT = st.text(
    alphabet=st.sampled_from(list("abcdefghijklmnopqrstuvwxyzNOYTFLSE _-éß")), max_size=20
)
yaml_leaf = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),  # what the loaders accept (I-JSON)
    st.floats(allow_nan=False, allow_infinity=False),
    SAFE_TEXT,
)
yaml_value = st.recursive(
    yaml_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4), st.dictionaries(SAFE_TEXT, inner, max_size=4)
    ),
    max_leaves=12,
)


@SETTINGS
@given(st.dictionaries(SAFE_TEXT, yaml_value, max_size=8), st.booleans())
@example({"a": "NO", "b": "on", "c": "yes", "d": "null", "e": "~"}, False)
@example({"a": ["x", {"b": None}], "c": {}}, True)
def test_yaml_round_trip(data: dict[str, Any], flow: bool) -> None:
    data = json.loads(json.dumps(data))  # no shared objects, so the dumper writes no anchors
    raw = yaml.safe_dump(data, default_flow_style=flow, allow_unicode=not flow).encode()
    document, findings = parse_yaml(raw, "f.yaml")
    assert findings == []
    assert document is not None
    assert document.data == data
    # Every top-level key has a line within the file.
    total = raw.count(b"\n") + 1
    for key in data:
        assert 1 <= document.lines[(key,)] <= total


# --- validate ------------------------------------------------------------------------------


@cache
def _schema_words() -> list[str]:
    """Every property name and enum string in the schemas, to build data that goes deep."""
    words: set[str] = set()

    def walk(node: object) -> None:
        if isinstance(node, dict):
            for key, value in node.items():
                if key == "properties" and isinstance(value, dict):
                    words.update(value)
                if key in ("enum", "const", "required"):
                    items = value if isinstance(value, list) else [value]
                    words.update(item for item in items if isinstance(item, str))
                walk(value)
        elif isinstance(node, list):
            for item in node:
                walk(item)

    for file in sorted((PROJECT / "schemas").glob("*.schema.json")):
        walk(json.loads(file.read_text(encoding="utf-8")))
    return sorted(words)


TIMESTAMPISH = st.builds(
    "{:04d}-{:02d}-{:02d}{}{:02d}:{:02d}:{:02d}{}{}".format,
    st.integers(0, 9999),
    st.integers(0, 13),
    st.integers(0, 32),
    st.sampled_from(["T", "t", " ", "_"]),
    st.integers(0, 25),
    st.integers(0, 61),
    st.integers(0, 61),
    st.sampled_from(["", ".5", ".123456789", ".1234567891"]),
    st.one_of(
        st.sampled_from(["", "Z", "z", "+00:00", "-00:00"]),
        st.builds(
            "{}{:02d}:{:02d}".format,
            st.sampled_from("+-"),
            st.integers(0, 25),
            st.integers(0, 61),
        ),
    ),
)
DATEISH = st.builds(
    "{:04d}-{:02d}-{:02d}".format, st.integers(0, 9999), st.integers(0, 13), st.integers(0, 32)
)
schema_leaf = st.one_of(
    json_leaf,
    TIMESTAMPISH,
    DATEISH,
    st.sampled_from(["a" * 64, "0" * 40, "https://example.org/x", "black-box", "10.1234/x"]),
    st.deferred(lambda: st.sampled_from(_schema_words())),
)
schema_value = st.recursive(
    schema_leaf,
    lambda inner: st.one_of(
        st.lists(inner, max_size=4),
        st.dictionaries(
            st.one_of(st.deferred(lambda: st.sampled_from(_schema_words())), st.text(max_size=8)),
            inner,
            max_size=6,
        ),
    ),
    max_leaves=20,
)


@SETTINGS
@given(st.sampled_from(SCHEMA_NAMES), schema_value, st.none() | st.integers(1, 10**6))
def test_validate_never_raises(name: str, data: Any, line: int | None) -> None:
    findings = validate(name, data, "f", line=line)
    check_findings(findings, SCHEMA_CODES, "f")
    assert all(f.line == line for f in findings)
    assert len(findings) <= 21


@SETTINGS
@given(st.sampled_from(SCHEMA_NAMES), st.dictionaries(SAFE_TEXT, yaml_value, max_size=6))
def test_validate_with_yaml_lines_never_raises(name: str, data: dict[str, Any]) -> None:
    data = json.loads(json.dumps(data))
    raw = yaml.safe_dump(data).encode()
    document, findings = parse_yaml(raw, "f.yaml")
    assert document is not None
    findings = validate(name, document.data, "f.yaml", document.lines)
    check_findings(findings, SCHEMA_CODES, "f.yaml")
    total = raw.count(b"\n") + 1
    assert all(f.line is None or 1 <= f.line <= total for f in findings)


# --- parse_timestamp -----------------------------------------------------------------------


def _check_timestamp(text: str) -> None:
    value = parse_timestamp(text)
    assert value is None or isinstance(value, datetime)
    if value is not None:
        assert value.tzinfo is not None
        assert value.utcoffset() == timedelta(0)


@SETTINGS
@given(st.text(max_size=40))
@example("")
@example("\u0662\u0660\u0662\u0667-01-20T09:00:00Z")
def test_parse_timestamp_never_raises_on_text(text: str) -> None:
    _check_timestamp(text)


@SETTINGS
@given(TIMESTAMPISH)
@example("0001-01-01T00:00:00+01:00")
@example("9999-12-31T23:59:59-01:00")
@example("2027-01-20T09:00:00+23:59")
def test_parse_timestamp_never_raises_on_near_misses(text: str) -> None:
    _check_timestamp(text)
    value = parse_timestamp(text)
    if value is not None and text.endswith(("Z", "z", "+00:00")):
        # A UTC timestamp keeps its wall-clock fields.
        assert value.isoformat(sep=" ")[:19] == f"{text[:10]} {text[11:19]}"

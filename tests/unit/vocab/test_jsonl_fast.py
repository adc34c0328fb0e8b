"""bot/vocab/jsonl.py's orjson fast path reads every line exactly as the strict path does.

Each hostile line is read twice: as parse_jsonl reads it, and with the fast path switched off
(`_fast_decode` returning None); records and findings (messages and lines) must be equal, and
the fast path must have declined the line wherever its reading could differ.
"""

from __future__ import annotations

import io
import json

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.vocab import jsonl
from bot.vocab.jsonl import parse_jsonl

PATH = "trials.jsonl"


def both_ways(raw: bytes) -> tuple[object, object]:
    """(what parse_jsonl reads, what it reads on the strict path alone)."""
    records, findings = parse_jsonl(io.BytesIO(raw), PATH)
    fast = ([(r.line, r.data) for r in records], findings)
    original = jsonl._fast_decode
    jsonl._fast_decode = lambda raw: None  # type: ignore[assignment]
    try:
        records, findings = parse_jsonl(io.BytesIO(raw), PATH)
    finally:
        jsonl._fast_decode = original
    return fast, ([(r.line, r.data) for r in records], findings)


HOSTILE = {
    "duplicate key": b'{"a": 1, "a": 2}',
    "duplicate key, tight": b'{"a":1,"a":2}',
    "duplicate key, white space before the colon": b'{"a" :1,"a":2, "b":3}',
    "duplicate key, tab before the colon": b'{"a"\t:1,"a":2,"b":3}',
    "duplicate key spelled with an escape": b'{"a":1,"\\u0061":2}',
    "duplicate key in a nested object": b'{"r":{"x":1,"x":2},"s":"\\":"}',
    "duplicate key hidden by a colon in a string": b'{"a":1,"a":"\\":"}',
    "duplicate key, a quote escaped as \\u0022 before a colon": b'{"a":1,"a":"\\u0022:"}',
    "duplicate key, an escaped quote before a colon": b'{"a":1,"a":"\\":"}',
    "no duplicate, escaped quotes and colons": b'{"a":"\\":","b":{"c":"\\u0022:x"}}',
    "NaN": b'{"a": NaN}',
    "Infinity": b'{"a": Infinity}',
    "-Infinity": b'{"a": -Infinity}',
    "overflow to infinity": b'{"a": 1e400}',
    "integer past 2**64": b'{"a": 18446744073709551616}',
    "integer past the float range": b'{"a": 1' + b"0" * 400 + b"}",
    "lone high surrogate": b'{"a": "\\ud800"}',
    "lone low surrogate": b'{"a": "\\udc00x"}',
    "surrogate pair": b'{"a": "\\ud83d\\ude00"}',
    "BOM": b'\xef\xbb\xbf{"a": 1}',
    "encoded surrogate (not UTF-8)": b'{"a": "\xed\xa0\x80"}',
    "invalid UTF-8": b'{"a": "\xff"}',
    "UTF-8 text": '{"a": "café ✓"}'.encode(),
    "control character": b'{"a": "x\x01y"}',
    "trailing garbage": b'{"a": 1} x',
    "trailing comma": b'{"a": 1,}',
    "not an object": b"[1, 2]",
    "negative zero": b'{"a": -0, "b": -0.0}',
    "tiny float": b'{"a": 2.5e-324, "b": 1e-400}',
    "max float": b'{"a": 1.7976931348623157e308}',
    "19-digit float": b'{"a": 0.1234567890123456789}',
    "deep nesting": b'{"a":' + b"[" * 70 + b"]" * 70 + b"}",
    "CR inside": b'{"a": 1}\r',
    "empty key": b'{"": 1, "b": {"": 2}}',
    "colon key": b'{":": 1, "b": ":"}',
}


@pytest.mark.parametrize("raw", HOSTILE.values(), ids=HOSTILE.keys())
def test_fast_and_strict_read_the_same(raw: bytes) -> None:
    fast, strict = both_ways(raw + b"\n" + b'{"ok": 1}\n')
    assert fast == strict


@pytest.mark.parametrize(
    "raw",
    [
        HOSTILE["duplicate key"],
        HOSTILE["duplicate key, white space before the colon"],
        HOSTILE["duplicate key spelled with an escape"],
        HOSTILE["duplicate key hidden by a colon in a string"],
        HOSTILE["duplicate key, a quote escaped as \\u0022 before a colon"],
        HOSTILE["duplicate key, an escaped quote before a colon"],
        HOSTILE["integer past 2**64"],
        HOSTILE["NaN"],
        HOSTILE["lone high surrogate"],
        HOSTILE["UTF-8 text"],
    ],
)
def test_fast_path_declines_what_it_cannot_read_exactly(raw: bytes) -> None:
    assert jsonl._fast_decode(raw) is None


def test_fast_path_reads_a_plain_trial() -> None:
    raw = b'{"case_id":"c1","started_at":"2027-01-20T09:00:00Z","result":{"score":0.5,"n":3}}'
    assert jsonl._fast_decode(raw) == json.loads(raw)


def test_refusals_keep_their_messages() -> None:
    _, findings = parse_jsonl(io.BytesIO(HOSTILE["duplicate key, tight"] + b"\n"), PATH)
    assert [f.message for f in findings] == ["duplicate key 'a'"]
    _, findings = parse_jsonl(io.BytesIO(HOSTILE["integer past the float range"] + b"\n"), PATH)
    assert findings[0].message.startswith("number 1000") and "out of range" in findings[0].message


_KEYS = st.sampled_from(["a", "b", "A", "\\u0061", "", ":", "a b", "é"])
_ATOMS = st.sampled_from(
    [
        "0",
        "-0",
        "1",
        "1.5",
        "1e400",
        "-1e400",
        "NaN",
        "Infinity",
        "18446744073709551615",
        "18446744073709551616",
        "1" + "0" * 310,
        "true",
        "null",
        '"x"',
        '":"',
        '"\\":"',
        '"\\ud800"',
        '"\\u0022:"',
        '"\\\\"',
        '"\\ud83d\\ude00"',
        '"caf\u00e9"',
        '"\\u0000"',
        "[]",
        "{}",
    ]
)


@st.composite
def _json_text(draw: st.DrawFn, depth: int = 0) -> str:
    if depth > 2 or draw(st.booleans()):
        return draw(_ATOMS)
    if draw(st.booleans()):
        items = draw(st.lists(_json_text(depth + 1), max_size=3))
        return "[" + ",".join(items) + "]"
    members = draw(
        st.lists(st.tuples(_KEYS, st.sampled_from([":", " :", ": ", "\t:"]), _json_text(depth + 1)))
    )
    return "{" + ",".join(f'"{k}"{sep}{v}' for k, sep, v in members[:4]) + "}"


@settings(max_examples=400, deadline=None)
@given(_json_text(), st.sampled_from([b"", b" ", b"\r", b"x"]))
def test_fast_and_strict_agree_on_generated_lines(text: str, tail: bytes) -> None:
    fast, strict = both_ways(text.encode() + tail + b"\n")
    assert fast == strict

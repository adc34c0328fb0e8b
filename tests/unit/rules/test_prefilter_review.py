"""Hostile review of verify's line prefilters (`plain_line`, `WithheldChecker.may_hold`) and
of the withheld-field check they stand in for.

The prefilters held: on a plain line (ASCII, no backslash, no DEL; the loader refuses raw
control characters in strings) every key and string is in the bytes as written, so a name
holds no hidden character and a withheld field's first word is in the lowered bytes. The
problems found are in the full check itself: a text that writes a withheld field as a key
with a `_` before it or a separator after it, and a key that writes the field as text, are
not reported, though the same spelling as a key is.
"""

from __future__ import annotations

import io
import json
from typing import Any

import pytest

from bot.rules.evidence.names import names_in
from bot.rules.evidence.withheld import WithheldChecker, plain_line
from bot.vocab.jsonl import parse_jsonl

FILE = "markets/m/attempts/a/trials.jsonl"
FIELD = ["reference_answer"]


def _leaks(data: dict[str, Any], withholdable: list[str] = FIELD) -> list[str]:
    return [f.code.value for f in WithheldChecker(withholdable)(FILE, data, lambda where: 1)]


def _read(line: bytes) -> dict[str, Any]:
    records, problems = parse_jsonl(io.BytesIO(line + b"\n"), FILE)
    assert not problems and len(records) == 1
    return records[0].data


# ---- what held: the prefilters skip only lines in which the full check finds nothing -------


@pytest.mark.parametrize(
    ("withholdable", "record"),
    [
        (["\ufb01nal_answer"], {"FINAL-answer": 1}),  # ligature fi: NFKC "fi"
        (["Stra\u00dfe"], {"x": "STRASSE: 1"}),  # casefold: ss
        (["\u212aey"], {"kEY": 1}),  # Kelvin sign: NFKC K
        (["ref\u200berence answer"], {"Reference_Answer": 1}),  # a format character
        (["\u00a0reference\u3000answer"], {"x": "reference  answer = 1"}),
        (["___"], {"-": 1}),  # no first word: every line may hold it
        (["reference_answer"], {"a": {"b": [{"REFERENCE\x1canswer": 1}]}}),
    ],
)
def test_a_plain_line_with_a_leak_is_not_passed_over(
    withholdable: list[str], record: dict[str, Any]
) -> None:
    raw = json.dumps(record).encode()
    data = _read(raw)
    check = WithheldChecker(withholdable)
    assert check(FILE, data, lambda where: 1), "the full check finds the leak"
    assert not plain_line(raw) or check.may_hold(raw)


def test_a_plain_line_holds_no_hidden_character_in_a_name() -> None:
    raw = b'{"case_id": "c1\x7f", "system": "s"}'  # DEL is JSON text: not plain
    assert names_in(FILE, _read(raw), lambda where: 1)
    assert not plain_line(raw)
    for byte in [*range(0x20), 0x7F]:  # raw control characters in strings: refused
        line = b'{"system": "a' + bytes([byte]) + b'b"}'
        records, _ = parse_jsonl(io.BytesIO(line + b"\n"), FILE)
        assert not records or not plain_line(line)


# ---- problems: the full check (both paths) misses these --------------------------------------


@pytest.mark.parametrize(
    "text",
    [
        '{"_reference_answer": "42"}',  # the key `_reference_answer` is reported
        "_reference_answer: 42",
        '{"reference_answer_": "42"}',  # the key `reference_answer_` is reported
        "reference_answer-: 42",
        "__Reference-Answer__ = 42",
    ],
)
def test_text_writing_the_field_with_separators_at_its_ends_is_a_leak(text: str) -> None:
    """`fold_key` drops a `_` or `-` at either end of a key, so these keys are the field;
    written in a string they are not found (`(?<![\\w])`, `(?![\\w])`: `_` is a word
    character)."""
    key = text.split(":")[0].split("=")[0].strip(' {"')
    assert _leaks({key: "42"}) == ["withheld-field-leak"]
    assert _leaks({"note": text}) == ["withheld-field-leak"]


def test_a_key_that_writes_the_field_as_text_is_a_leak() -> None:
    """A string value writing `reference_answer: 42` is a leak; the same text as a key (a
    JSON object's keys are strings too) is not looked at as text."""
    assert _leaks({"note": "reference_answer: 42"}) == ["withheld-field-leak"]
    assert _leaks({"reference_answer: 42": "x"}) == ["withheld-field-leak"]

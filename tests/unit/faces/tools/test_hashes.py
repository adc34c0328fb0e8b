"""bot/faces/tools/hashes.py: the verifier's case hashes, filled in, other fields untouched."""

from __future__ import annotations

import io
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.faces.tools.hashes import hash_cases
from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.hashing import case_hash
from bot.vocab.jsonl import parse_jsonl

_TEXT = st.text(st.characters(codec="utf-8", exclude_categories=("Cs",)), max_size=8)
_VALUE = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-(2**53) + 1, 2**53 - 1)
    | _TEXT
    | st.floats(allow_nan=False, allow_infinity=False),
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=8,
)


@st.composite
def _case(draw: st.DrawFn, index: int) -> dict[str, Any]:
    case: dict[str, Any] = {"case_id": f"case-{index}"}
    content = {**draw(st.dictionaries(_TEXT, _VALUE, max_size=4)), "i": index}
    state = draw(st.sampled_from(["right", "wrong", "missing"]))
    if state == "right":
        case["sha256"] = case_hash(content)
    elif state == "wrong":
        case["sha256"] = "0" * 64
    case.update(family="f", kind="attack", public={}, content=content)
    return case


@st.composite
def _files(draw: st.DrawFn) -> tuple[list[dict[str, Any]], bytes]:
    count = draw(st.integers(1, 5))
    cases = [draw(_case(index)) for index in range(count)]
    spacing = draw(st.sampled_from([(",", ":"), (", ", ": ")]))
    ending = draw(st.sampled_from([b"\n", b"\r\n"]))
    lines = [json.dumps(case, separators=spacing).encode() for case in cases]
    return cases, ending.join(lines) + draw(st.sampled_from([ending, b""]))


@settings(deadline=None)
@given(_files())
def test_written_hashes_are_the_verifier_s_and_nothing_else_changes(
    drawn: tuple[list[dict[str, Any]], bytes],
) -> None:
    cases, raw = drawn
    result = hash_cases(raw, "freeze-cases.jsonl")
    assert result.data is not None
    records, problems = parse_jsonl(io.BytesIO(result.data), "freeze-cases.jsonl")
    assert problems == []
    _, findings = check_cases(records, "freeze-cases.jsonl")
    assert findings == []
    old_lines = raw.split(b"\n")
    for case, record, old, new in zip(
        cases, records, old_lines, result.data.split(b"\n"), strict=False
    ):
        assert {k: v for k, v in record.data.items() if k != "sha256"} == {
            k: v for k, v in case.items() if k != "sha256"
        }
        assert list(record.data)[:2] == ["case_id", "sha256"]
        if case.get("sha256") == record.data["sha256"]:
            assert new == old  # a right line is kept byte for byte
    # Idempotent: hashing the written file changes nothing.
    assert hash_cases(result.data, "freeze-cases.jsonl").data == result.data


def test_a_hidden_case_keeps_its_hash_and_one_with_neither_is_named() -> None:
    hidden = {"case_id": "h-1", "sha256": "a" * 64, "family": "f", "kind": "attack", "public": {}}
    bare = {"case_id": "b-1", "family": "f", "kind": "attack", "public": {}}
    raw = b"\n".join(json.dumps(x).encode() for x in (hidden, bare)) + b"\n"
    result = hash_cases(raw, "cases.jsonl")
    assert result.cases[0].status.startswith("kept: no content")
    assert [(f.code.value, f.line) for f in result.problems] == [("schema", 2)]
    assert "sha256" in result.problems[0].message


def test_content_without_an_rfc_8785_form_is_named() -> None:
    raw = b'{"case_id":"a","family":"f","kind":"k","public":{},"content":{"n":9007199254740993}}\n'
    result = hash_cases(raw, "cases.jsonl")
    # The loader refuses it (bot/vocab/values.py: the integers RFC 8785 can write), by field.
    assert [(f.code.value, f.line) for f in result.problems][:1] == [("jsonl-invalid", 1)]
    assert result.problems[0].message == (
        "content.n: integer 9007199254740993 is outside ±2**53-1 (I-JSON)"
    )

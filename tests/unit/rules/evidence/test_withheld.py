"""bot.rules.evidence.withheld.check_withheld: a withholdable field is found however its key is
spelled.

The seed forbids publishing a withholdable field at any depth. Keys are compared after folding
(NFKC, surrounding whitespace, case, `-`/`_`/space, zero-width characters), so
`Reference_Answer` or `reference-answer` is the same field as `reference_answer`.
"""

from __future__ import annotations

import json
import unicodedata
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.evidence.withheld import (
    WithheldChecker,
    check_withheld,
    fold_text,
    plain_line,
    withheld_key_pattern,
)
from bot.vocab.document import FieldPath
from bot.vocab.findings import Code, Finding

FILE = "freeze-cases.jsonl"
WITHHOLDABLE_SETS = [["reference_answer"], ["reference_answer", "ref"], ["Answer Key"], []]


def _check(data: Any, withholdable: list[str]) -> list[Finding]:
    def line_of(where: FieldPath) -> int:
        return 7

    return check_withheld([(FILE, data, line_of)], withholdable)


@pytest.mark.parametrize(
    "key",
    [
        "reference_answer",
        "Reference_Answer",
        "reference-answer",
        "REFERENCE-ANSWER",
        " reference_answer ",
        "reference answer",
        "reference\u200b_answer",  # a zero-width space inside
        "".join(chr(ord(c) + 0xFEE0) for c in "reference_answer"),  # fullwidth: NFKC folds it
        "referenceAnswer",  # camelCase, as JSON often spells it: the same field
        "ReferenceAnswer",
        "referenceanswer",
    ],
)
def test_every_spelling_of_a_withheld_key_is_a_leak(key: str) -> None:
    findings = _check({"case_id": "c1", "public": {key: "the answer"}}, ["reference_answer"])
    assert [f.code for f in findings] == [Code.WITHHELD_FIELD_LEAK]
    if key == "reference_answer":
        expected = "reference_answer: a withholdable field must never be published"
    else:
        expected = (
            f"{key!r} is the withholdable field 'reference_answer' spelled differently;"
            " it must never be published"
        )
    assert findings[0].message == expected
    assert (findings[0].file, findings[0].line) == (FILE, 7)


def test_nested_spelling_is_found() -> None:
    data = {"public": {"turns": [{"meta": {"Reference-Answer": "x"}}]}}
    (finding,) = _check(data, ["reference_answer"])
    assert finding.code is Code.WITHHELD_FIELD_LEAK
    assert finding.message.startswith("'Reference-Answer' is the withholdable field")


def test_the_withholdable_list_is_folded_too() -> None:
    # A market may write the field name in any of the spellings as well.
    (finding,) = _check({"public": {"reference_answer": "x"}}, ["Reference-Answer"])
    assert finding.code is Code.WITHHELD_FIELD_LEAK


@pytest.mark.parametrize(
    "key", ["reference_answers", "referenceAnswers", "answer", "reference", "ref_answer"]
)
def test_other_keys_are_not_leaks(key: str) -> None:
    assert _check({"public": {key: "x"}}, ["reference_answer"]) == []


@pytest.mark.parametrize(
    "text",
    [
        '{"reference_answer": "42"}',  # a JSON object kept in a string
        "{'ReferenceAnswer': '42'}",
        "grader said\nreference-answer = 42",
    ],
)
def test_a_key_written_inside_a_string_value_is_a_leak(text: str) -> None:
    (finding,) = _check({"public": {"notes": [{"raw": text}]}}, ["reference_answer"])
    assert finding.code is Code.WITHHELD_FIELD_LEAK
    assert finding.message == (
        "public.notes[0].raw: its text writes the withholdable field 'reference_answer' as a"
        " key; it must never be published"
    )


@pytest.mark.parametrize(
    "text",
    ["reference_answer", "the reference answer is withheld", "withheld: reference_answer"],
)
def test_a_string_that_only_names_the_field_is_no_leak(text: str) -> None:
    assert _check({"withholdable": [text], "notes": text}, ["reference_answer"]) == []


def test_values_and_non_string_keys_are_not_keys() -> None:
    assert _check({"public": {"note": "reference_answer", 3: "x"}}, ["reference_answer"]) == []


def _slow_fold(text: str) -> str:
    """fold_text's definition, without its ASCII fast path."""
    text = unicodedata.normalize("NFKC", text)
    return "".join(char for char in text if unicodedata.category(char) != "Cf").casefold()


@given(st.text())
def test_fold_text_fast_path_is_the_definition(text: str) -> None:
    assert fold_text(text) == _slow_fold(text)


_LEAKY = st.sampled_from(
    [
        "reference_answer",
        "Reference-Answer",
        "referenceAnswer",
        "\uff52\uff45\uff46\uff45\uff52\uff45\uff4e\uff43\uff45_answer",  # fullwidth
        "x",
    ]
)
_GLUE = st.sampled_from([":", "=", "\uff1a", "\uff1d", " ", '"', "", "\u200b", "-"])


@given(st.lists(st.one_of(_LEAKY, _GLUE, st.text(max_size=5)), max_size=8).map("".join))
def test_string_values_are_checked_as_without_the_prefilter(text: str) -> None:
    """The ASCII prefilter (no `:` or `=`, nothing to find) skips exactly the strings whose
    folded text the key pattern cannot match."""
    found = bool(_check({"note": text}, ["reference_answer"]))
    pattern = withheld_key_pattern("reference_answer")
    assert found == bool(pattern.search(_slow_fold(text)))


# ---- the line prefilter of verify's streaming (`WithheldChecker.may_hold`) ----------------------

_ASCII_LEAKY = st.sampled_from(
    ["reference_answer", "Reference-Answer", "referenceAnswer", "REF", "ref-erence", "answer"]
)
_ASCII_GLUE = st.sampled_from([":", "=", " ", "-", "_", "\t", "x", "\x1f", "R"])
_PIECE = st.lists(st.one_of(_ASCII_LEAKY, _ASCII_GLUE), max_size=6).map("".join)
_VALUE = st.recursive(
    st.one_of(st.none(), st.booleans(), st.integers(), _PIECE),
    lambda inner: st.one_of(
        st.lists(inner, max_size=3), st.dictionaries(_PIECE, inner, max_size=3)
    ),
    max_leaves=8,
)


@given(st.dictionaries(_PIECE, _VALUE, max_size=4), st.sampled_from(WITHHOLDABLE_SETS))
def test_a_line_the_prefilter_passes_over_holds_no_withheld_field(
    record: dict[str, Any], withholdable: list[str]
) -> None:
    """`may_hold` is False only for lines in which the full check finds nothing."""
    raw = json.dumps(record).encode() + b"\n"
    check = WithheldChecker(withholdable)
    if plain_line(raw) and not check.may_hold(raw):
        assert check(FILE, record, lambda where: 1) == []


def test_the_prefilter_sees_a_key_split_by_separators() -> None:
    raw = b'{"Ref-Erence_answer": 1}\n'
    check = WithheldChecker(["reference_answer"])
    assert plain_line(raw) and check.may_hold(raw)
    assert [f.code for f in check(FILE, {"Ref-Erence_answer": 1}, lambda where: 1)] == [
        Code.WITHHELD_FIELD_LEAK
    ]
    assert not check.may_hold(b'{"answer": "refer: ence"}\n')

"""bot.rules.challenge.rules: the checks of a run and its attempts, values in, findings out."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.challenge.rules import (
    ScoredCase,
    check_run_cases,
    check_text_leaks,
    compare_cases,
    compare_recomputed,
    compare_trials,
    same_value,
)
from bot.rules.evidence.models import Case, Trial
from bot.vocab.document import Record
from bot.vocab.findings import Code

RUN_FILE = "challenge-runs/run-1/freeze-cases.jsonl"
OWN_FILE = "attempts/market-07/a-lab/one/freeze-cases.jsonl"


def _case(line: int, case_id: str, sha: str = "a" * 64, **extra: Any) -> Case:
    data = {"case_id": case_id, "sha256": sha, "family": "f", "kind": "attack", "public": {}}
    return Case.from_data(line, {**data, **extra})


def _trial(line: int, case_id: str, result: dict[str, Any]) -> Trial:
    data = {"case_id": case_id, "system": "s", "result": result}
    return Trial.from_data(line, data, datetime(2027, 1, 2, tzinfo=UTC))


# ---- the run's cases ------------------------------------------------------------------------


def test_run_cases_are_hash_only() -> None:
    good = {"case_id": "c1", "sha256": "b" * 64, "family": "f", "kind": "k", "public": {}}
    records = [Record(1, good), Record(2, {**good, "case_id": "c2", "content": {"p": 1}})]
    cases, findings = check_run_cases(records, RUN_FILE)
    assert list(cases) == ["c1"]
    assert [(f.code, f.line) for f in findings] == [(Code.SCHEMA, 2)]
    assert "hash only" in findings[0].message


def test_run_cases_keep_the_duplicate_rules() -> None:
    good = {"case_id": "c1", "sha256": "b" * 64, "family": "f", "kind": "k", "public": {}}
    _, findings = check_run_cases([Record(1, good), Record(2, good)], RUN_FILE)
    assert [(f.code, f.line) for f in findings] == [(Code.DUPLICATE_CASE, 2)]


def test_an_empty_run_freeze_is_reported_once() -> None:
    _, findings = check_run_cases([], RUN_FILE)
    assert [f.code for f in findings] == [Code.FILE_EMPTY]


# ---- an attempt's cases against the run's ---------------------------------------------------


def test_the_same_cases_agree() -> None:
    run = {"c1": _case(1, "c1"), "c2": _case(2, "c2")}
    assert compare_cases(dict(run), run, OWN_FILE, RUN_FILE) == []


def test_a_case_not_in_the_run_names_its_line() -> None:
    run = {"c1": _case(1, "c1")}
    own = {"c1": _case(1, "c1"), "c9": _case(2, "c9")}
    (finding,) = compare_cases(own, run, OWN_FILE, RUN_FILE)
    assert (finding.code, finding.file, finding.line) == (
        Code.CHALLENGE_CASE_MISMATCH,
        OWN_FILE,
        2,
    )
    assert "'c9' is not a case of the run" in finding.message


def test_a_case_left_out_and_a_case_changed() -> None:
    run = {"c1": _case(1, "c1"), "c2": _case(2, "c2")}
    own = {"c1": _case(1, "c1", public={"title": "other"})}
    findings = compare_cases(own, run, OWN_FILE, RUN_FILE)
    assert [f.line for f in findings] == [1, None]
    assert "public differs" in findings[0].message
    assert "'c2' of the run" in findings[1].message


def test_published_content_differs_from_the_hidden_suite() -> None:
    run = {"c1": _case(1, "c1")}
    own = {"c1": _case(1, "c1", content={"prompt": "p"})}
    (finding,) = compare_cases(own, run, OWN_FILE, RUN_FILE)
    assert "publishes no content" in finding.message


# ---- operator scores ------------------------------------------------------------------------


def test_trials_carry_the_operators_results() -> None:
    scored = {"c1": ScoredCase({"verdict": "caught", "score": 0.5}, "r.jsonl", 1)}
    trials = [_trial(1, "c1", {"verdict": "caught", "score": 0.5})]
    assert compare_trials(trials, scored, "t.jsonl", "r.jsonl") == []


def test_an_extra_or_different_field_is_a_mismatch() -> None:
    scored = {"c1": ScoredCase({"verdict": "caught"}, "r.jsonl", 4)}
    trials = [_trial(3, "c1", {"verdict": "caught", "score": 0.9})]
    (finding,) = compare_trials(trials, scored, "t.jsonl", "r.jsonl")
    assert (finding.code, finding.line) == (Code.OPERATOR_SCORE_MISMATCH, 3)
    assert "result.score is 0.9, the operator's scorer gave 'nothing'" in finding.message


def test_no_score_file_is_one_finding() -> None:
    trials = [_trial(1, "c1", {}), _trial(2, "c2", {})]
    (finding,) = compare_trials(trials, None, "t.jsonl", "r.jsonl")
    assert (finding.code, finding.file) == (Code.OPERATOR_SCORE_MISSING, "r.jsonl")


def test_recomputed_fields_within_the_tolerance() -> None:
    stated = {"c1": ScoredCase({"score": 0.56, "note": "x"}, "r.jsonl", 1)}
    assert (
        compare_recomputed({"c1": {"score": 0.5600004}}, stated, ("score",), 1e-6, "s", "i", "r")
        == []
    )
    (finding,) = compare_recomputed(
        {"c1": {"score": 0.57}}, stated, ("score",), 1e-6, "s", "i", "r"
    )
    assert (finding.code, finding.file, finding.line) == (
        Code.OPERATOR_SCORE_MISMATCH,
        "r.jsonl",
        1,
    )
    assert "s recomputes 0.570000 from i" in finding.message


def test_recomputation_and_statement_must_cover_the_same_cases() -> None:
    stated = {"c2": ScoredCase({"score": 0.1}, "r.jsonl", 2)}
    findings = compare_recomputed({"c1": {"score": 0.5}}, stated, ("score",), 1e-6, "s", "i", "r")
    assert [f.code for f in findings] == [Code.OPERATOR_SCORE_MISMATCH] * 2


def test_same_value_keeps_booleans_apart_from_numbers() -> None:
    assert same_value(1, 1.0)
    assert not same_value(True, 1)
    assert same_value({"a": [1, 2.0]}, {"a": [1.0, 2]})
    assert not same_value({"a": 1}, {"a": 1, "b": 2})


# ---- the text leak check --------------------------------------------------------------------


def test_text_leaks_name_the_line() -> None:
    lines = [b"ok", b'{"case": 1, "Reference-Answer": "x"}', b"reference answer is hidden"]
    (finding,) = check_text_leaks("raw-log/harness.log", lines, ["reference_answer"])
    assert (finding.code, finding.line) == (Code.WITHHELD_FIELD_LEAK, 2)


def test_a_word_that_only_contains_the_name_is_no_leak() -> None:
    lines = [b"my_reference_answers: 3", b"prereference_answer= 2", b"reference_answer_id: 4"]
    assert check_text_leaks("f", lines, ["reference_answer"]) == []


def test_no_withholdable_field_no_finding() -> None:
    assert check_text_leaks("f", [b"reference_answer: 1"], []) == []


_SEPARATORS = st.sampled_from(["_", "-", " ", "__", "- ", "\t"])


@given(
    st.lists(st.binary(max_size=60), max_size=8),
    st.integers(min_value=0, max_value=8),
    _SEPARATORS,
    st.lists(st.booleans(), min_size=15, max_size=15),
    st.sampled_from([":", "=", '":', "' ="]),
)
def test_a_key_written_any_way_is_found_on_its_line(
    noise: list[bytes], at: int, separator: str, upper: list[bool], colon: str
) -> None:
    word = "reference" + separator + "answer"
    word = "".join(c.upper() if flag else c for c, flag in zip(word, upper * 2, strict=False))
    lines = [line.replace(b"\n", b" ") for line in noise]
    position = min(at, len(lines))
    lines.insert(position, f'x "{word}{colon} 42'.encode())
    findings = check_text_leaks("f", lines, ["reference_answer"])
    assert position + 1 in [f.line for f in findings]


@given(st.lists(st.binary(max_size=200), max_size=20), st.lists(st.text(max_size=20), max_size=3))
def test_any_bytes_and_names_never_crash(lines: list[bytes], names: list[str]) -> None:
    findings = check_text_leaks("f", lines, names)
    assert all(f.file == "f" for f in findings)
    # Only the file's own name gives a finding without a line.
    assert all(f.line is not None or "names the withholdable" in f.message for f in findings)


@given(st.dictionaries(st.text(max_size=8), st.integers() | st.floats(allow_nan=False) | st.text()))
def test_same_value_is_reflexive(value: dict[str, Any]) -> None:
    assert same_value(value, json.loads(json.dumps(value)))


# ---- attacks (issue 12 review) --------------------------------------------------------------


@pytest.mark.parametrize(
    "line",
    [b'{"referenceAnswer": "x"}', b"ReferenceAnswer = 42", b"'reference\xe2\x80\x8danswer':"],
)
def test_a_key_without_separators_is_found_in_text(line: bytes) -> None:
    (finding,) = check_text_leaks("raw-log/harness.log", [b"ok", line], ["reference_answer"])
    assert (finding.code, finding.line) == (Code.WITHHELD_FIELD_LEAK, 2)


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("answers.csv", b"case_id,reference_answer,difficulty"),
        ("answers.CSV", b'"case_id";"Reference Answer"'),
        ("answers.tsv", b"case_id\treferenceAnswer"),
        ("answers.csv", b"reference_answer"),
    ],
)
def test_a_column_of_a_table_file_is_a_leak(name: str, line: bytes) -> None:
    (finding,) = check_text_leaks(name, [line, b"c1,42"], ["reference_answer"])
    assert (finding.file, finding.line) == (name, 1)
    assert "as a key or a column" in finding.message


@pytest.mark.parametrize(
    ("name", "line"),
    [
        ("README.md", b"| reference_answer | withheld |"),  # a table documenting the run
        ("README.md", b"reference_answer, as the market says, is withheld"),
        ("answers.csv", b"case_id,my_reference_answer,reference_answers"),
    ],
)
def test_a_cell_is_a_leak_only_in_a_table_file(name: str, line: bytes) -> None:
    assert check_text_leaks(name, [line], ["reference_answer"]) == []


@given(st.lists(st.binary(max_size=200), max_size=20), st.lists(st.text(max_size=20), max_size=3))
def test_any_bytes_in_a_table_file_never_crash(lines: list[bytes], names: list[str]) -> None:
    findings = check_text_leaks("t.csv", lines, names)
    assert all(f.file == "t.csv" for f in findings)
    assert all(f.line is not None or "names the withholdable" in f.message for f in findings)


@pytest.mark.parametrize(
    "file",
    ["raw-log/reference_answer.txt", "raw-log/Reference-Answer/c1.log", "referenceAnswer.json.gz"],
)
def test_a_file_named_as_the_field_is_a_leak(file: str) -> None:
    (finding,) = check_text_leaks(file, [b"42"], ["reference_answer"])
    assert (finding.code, finding.file, finding.line) == (Code.WITHHELD_FIELD_LEAK, file, None)
    assert "names the withholdable field 'reference_answer'" in finding.message


@pytest.mark.parametrize("file", ["raw-log/reference_answers.txt", "docs/no-reference.md"])
def test_a_file_whose_name_only_contains_the_field_is_no_leak(file: str) -> None:
    assert check_text_leaks(file, [b"42"], ["reference_answer"]) == []


def test_same_value_without_tolerance_is_exact() -> None:
    assert same_value(1, 1.0, 0.0) and same_value(0.65, 0.65, 0.0)
    assert not same_value(0.65, 0.65 + 5e-10, 0.0)
    assert not same_value(2**63, 2**63 + 1, 0.0)  # ints exactly, past float precision


@pytest.mark.parametrize(
    "line",
    [rb'{"reference\u005fanswer": 1}', rb'{"\u0052eference_Answer": 1}', rb"\u0072eferenceAnswer:"],
)
def test_a_key_written_with_json_escapes_is_found(line: bytes) -> None:
    (finding,) = check_text_leaks("raw-log/harness.jsonl", [line], ["reference_answer"])
    assert finding.line == 1


def test_a_lone_or_broken_escape_is_no_leak_and_no_crash() -> None:
    lines = [rb"\ud800 reference", rb"\u00zz", rb"path\u"]
    assert check_text_leaks("f", lines, ["reference_answer"]) == []


@pytest.mark.parametrize(
    ("frozen", "copied"),
    [
        ({"hard": True}, {"hard": 1}),
        ({"hard": True}, {"hard": 1.0}),
        ({"hard": False}, {"hard": 0}),
        ({"tags": [True, "x"]}, {"tags": [1, "x"]}),
        ({"meta": {"flag": False}}, {"meta": {"flag": 0}}),
    ],
)
def test_a_public_field_retyped_is_a_mismatch(frozen: Any, copied: Any) -> None:
    """JSON's true is not 1 (issue 21, item 4): Python's `==` said it was, at any depth."""
    run = {"c1": _case(1, "c1", public=frozen)}
    own = {"c1": _case(1, "c1", public=copied)}
    (finding,) = compare_cases(own, run, OWN_FILE, RUN_FILE)
    assert finding.code is Code.CHALLENGE_CASE_MISMATCH
    assert "'c1': public differs from the run's" in finding.message


def test_a_retyped_field_is_named_with_both_values_as_json_writes_them() -> None:
    """The message names the first field that differs and both values in JSON's spelling, so
    the filer knows what to copy (`true`, never Python's `True`)."""
    run = {"c1": _case(1, "c1", public={"level": 2, "meta": {"flag": True, "n": 1}})}
    own = {"c1": _case(1, "c1", public={"level": 2.0, "meta": {"flag": 1, "n": 1}})}
    (finding,) = compare_cases(own, run, OWN_FILE, RUN_FILE)
    assert finding.message.endswith(
        ": public.meta.flag is 1 here, true in the run (copy the run's line as it is)"
    ), finding.message
    run = {"c1": _case(1, "c1", public={"a": 1})}
    own = {"c1": _case(1, "c1", public={"a": 1, "b": [1]})}
    (finding,) = compare_cases(own, run, OWN_FILE, RUN_FILE)
    assert ": public.b is [1] here, absent in the run" in finding.message


def test_one_number_in_another_spelling_is_the_same_case() -> None:
    """1 and 1.0 are one JSON number (RFC 8785 writes both `1`): the bars select both alike."""
    run = {"c1": _case(1, "c1", public={"level": 1, "w": [2.0]})}
    own = {"c1": _case(1, "c1", public={"level": 1.0, "w": [2]})}
    assert compare_cases(own, run, OWN_FILE, RUN_FILE) == []

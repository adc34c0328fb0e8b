"""bot/rules/evidence/cases.py and trials.py: cross-record rules on frozen cases and trials.

One case frozen twice (the same id, or the same content under another id) is `duplicate-case`;
every trial names a system (never null, never blank once trimmed).
"""

from __future__ import annotations

import copy
import io
import math
import pickle
from collections.abc import Mapping
from typing import Any, cast

import orjson
import pytest
from msgspec import structs

from bot.faces.demo.specimen import AttemptSpec, attempt_files
from bot.rules.evidence.cases import CaseChecker, check_cases
from bot.rules.evidence.models import Case, FoldedKeys
from bot.rules.evidence.trials import TrialChecker, check_trials
from bot.vocab.document import Record
from bot.vocab.findings import Code
from bot.vocab.jsonl import parse_jsonl
from tests.support import records, shared_rules

CASES = "attempts/market-03/alice-lab/monitor-v1/freeze-cases.jsonl"
TRIALS = "attempts/market-03/alice-lab/monitor-v1/trials.jsonl"
KEYS = ("system", "trajectory", "evaluator", "attack_family")


def _records(items: list[dict[str, Any]]) -> list[Record]:
    return [Record(line, item) for line, item in enumerate(items, start=1)]


def _honest() -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    files = attempt_files(AttemptSpec())
    return records(files, "freeze-cases.jsonl"), records(files, "trials.jsonl")


# ---- one case frozen twice -------------------------------------------------------------------


def test_the_same_content_under_another_id_is_a_duplicate_case() -> None:
    cases, _ = _honest()
    copy = dict(cases[0], case_id="sabotage-999", family="sabotage")
    checked, findings = check_cases(_records([*cases, copy]), CASES)
    assert [(f.code, f.line) for f in findings] == [(Code.DUPLICATE_CASE, len(cases) + 1)]
    assert findings[0].message == (
        f"case 'sabotage-999' has the same content (sha256 {cases[0]['sha256']}) as case"
        f" '{cases[0]['case_id']}' on line 1: one case frozen twice is still one case"
    )
    assert "sabotage-999" in checked  # refused all the same; its trial is not "unknown" too


def test_hash_only_cases_with_one_hash_are_one_case() -> None:
    # A hidden suite's cases carry no content: the frozen hash alone says they are the same.
    cases, _ = _honest()
    hidden = [{k: v for k, v in case.items() if k != "content"} for case in cases[:2]]
    hidden[1]["sha256"] = hidden[0]["sha256"]
    _, findings = check_cases(_records(hidden), CASES)
    assert [(f.code, f.line) for f in findings] == [(Code.DUPLICATE_CASE, 2)]


def test_twenty_four_cases_of_two_contents_are_refused() -> None:
    cases, _ = _honest()
    for index, case in enumerate(cases):
        model = cases[index % 2]
        case.update(sha256=model["sha256"], content=model["content"])
    _, findings = check_cases(_records(cases), CASES)
    assert {f.code for f in findings} == {Code.DUPLICATE_CASE}
    assert [f.line for f in findings] == list(range(3, len(cases) + 1))


def test_a_repeated_case_id_is_reported_once_per_line() -> None:
    cases, _ = _honest()
    _, findings = check_cases(_records([*cases, dict(cases[0])]), CASES)
    assert [(f.code, f.line) for f in findings] == [(Code.DUPLICATE_CASE, len(cases) + 1)]
    assert findings[0].message == (
        f"case_id '{cases[0]['case_id']}' appears again (first on line 1)"
    )


# ---- every trial names its system -------------------------------------------------------------


def _check_trials(trials: list[dict[str, Any]]) -> list[tuple[Code, int | None, str]]:
    cases, _ = _honest()
    checked, _ = check_cases(_records(cases), CASES)
    _, findings = check_trials(_records(trials), checked, KEYS, TRIALS)
    return [(f.code, f.line, f.message) for f in findings]


def test_a_null_system_is_refused() -> None:
    _, trials = _honest()
    trials[2]["system"] = None
    assert [(code, line) for code, line, _ in _check_trials(trials)] == [(Code.SCHEMA, 3)]


def test_a_blank_system_is_refused() -> None:
    _, trials = _honest()
    blank = " \u3000 "  # an ideographic space folds to a space: blank
    trials[2]["system"] = blank
    (finding,) = _check_trials(trials)
    assert finding[:2] == (Code.SCHEMA, 3)
    assert finding[2] == (
        f"system: {blank!r} is blank once white space is trimmed; every trial names the"
        " system it ran on"
    )


def test_the_shared_unit_keys_are_what_these_tests_check_with() -> None:
    assert shared_rules().unit_keys == KEYS


def test_parse_round_trip_of_the_honest_trials_is_clean() -> None:
    files = attempt_files(AttemptSpec())
    parsed, problems = parse_jsonl(io.BytesIO(files["trials.jsonl"]), TRIALS)
    assert problems == []
    assert _check_trials([record.data for record in parsed]) == []


# ---- lean cases and trials, checked one record at a time (verify's streaming) -----------------


def test_lean_cases_keep_only_the_public_fields_bars_select_by_and_no_content() -> None:
    cases, _ = _honest()
    check = CaseChecker(CASES, public_fields=frozenset({"probe"}))
    for record in _records(cases):
        check.add(record)
    check.finish()
    assert check.findings == []
    for case in check.cases.values():
        assert case.content is None
        assert set(case.public) <= {"probe"}


def test_lean_cases_share_equal_public_fields_but_never_true_with_one() -> None:
    # JSON's true is not 1 (bars.py `_matches`), though Python's True == 1 and hash(True) ==
    # hash(1): shared dicts are keyed by type too.
    cases, _ = _honest()
    publics = [{"probe": 1}, {"probe": True}, {"probe": 1.0}, {"probe": True}, {"probe": [1]}]
    for case, public in zip(cases, publics, strict=False):
        case["public"] = public
    check = CaseChecker(CASES, public_fields=frozenset({"probe"}))
    for record in _records(cases[: len(publics)]):
        check.add(record)
    kept = [check.cases[case["case_id"]].public["probe"] for case in cases[: len(publics)]]
    assert [type(value) for value in kept] == [int, bool, float, bool, list]
    shared = [check.cases[case["case_id"]].public for case in cases[1:4:2]]
    assert shared[0] is shared[1]  # the two {"probe": true} are one object


def test_a_trial_keeps_its_unit_keys_folded_and_its_cases_id_string() -> None:
    cases, trials = _honest()
    trials[0]["evaluator"] = "  Grader-ONE "
    trials[0]["attack_family"] = None
    checked, _ = check_cases(_records(cases), CASES)
    kept, findings = check_trials(_records(trials), checked, KEYS, TRIALS)
    assert findings == []
    first = kept[0]
    assert dict(first.keys) == {
        "system": trials[0]["system"].lower(),
        "trajectory": trials[0]["trajectory"].lower(),
        "evaluator": "grader-one",
        "attack_family": None,
    }
    assert first.case_id is checked[first.case_id].case_id  # one string per case id
    assert first.system == trials[0]["system"]  # shown as written


def test_lean_cases_read_by_blocks_share_as_line_by_line() -> None:
    """The block path (`CaseChecker.add_typed_lines`) keeps what `add` keeps, sharing one
    public object for equal values of equal types only, an absent field apart from null."""
    from bot.vocab.typed import LineDecoder

    cases, _ = _honest()
    publics: list[dict[str, Any]] = [
        {"probe": 1},
        {"probe": True},
        {"probe": 1.0},
        {"probe": True},
        {"probe": None},
        {},
        {"probe": True, "other": 2},
    ]
    chosen = cases[: len(publics)]
    for case, public in zip(chosen, publics, strict=True):
        case["public"] = public
        case.pop("content", None)  # a float in `public` hashes no content here
    block = b"\n".join(orjson.dumps(case) for case in chosen)
    read = LineDecoder().cases(block, block.split(b"\n"))
    assert read is not None  # taken as a block: no float in a content
    by_block = CaseChecker(CASES, public_fields=frozenset({"probe"}))
    by_block.add_typed_lines(1, *read)
    by_line = CaseChecker(CASES, public_fields=frozenset({"probe"}))
    for record in _records(chosen):
        by_line.add(record)
    assert repr(by_block.cases) == repr(by_line.cases)
    assert by_block.findings == by_line.findings == []
    kept = [by_block.cases[case["case_id"]].public for case in chosen]
    assert [type(public.get("probe")) for public in kept] == [
        int,
        bool,
        float,
        bool,
        type(None),
        type(None),
        bool,
    ]
    assert kept[1] is kept[3] is kept[6]  # {"probe": true}, also with a field not kept
    assert kept[4] is not kept[5] and kept[4] == {"probe": None} and kept[5] == {}
    assert kept[0] is not kept[1] and kept[0] is not kept[2]


def test_lean_cases_keep_no_sha256_yet_find_one_content_frozen_twice() -> None:
    # The hash is compared as the line is read (with the content's, with the other cases'),
    # then not kept: nothing after the check reads it.
    cases, _ = _honest()
    copy = dict(cases[0], case_id="sabotage-999")
    wrong = dict(cases[1], sha256="0" * 64)
    check = CaseChecker(CASES, public_fields=frozenset({"probe"}))
    for record in _records([*cases[:1], wrong, *cases[2:], copy]):
        check.add(record)
    check.finish()
    assert {case.sha256 for case in check.cases.values()} == {""}
    assert [(f.code, f.line) for f in check.findings] == [
        (Code.CASE_HASH_MISMATCH, 2),
        (Code.DUPLICATE_CASE, len(cases) + 1),
    ]
    assert f"sha256 says {'0' * 64}, the RFC 8785 form" in check.findings[0].message
    assert check.findings[1].message == (
        f"case 'sabotage-999' has the same content (sha256 {cases[0]['sha256']}) as case"
        f" '{cases[0]['case_id']}' on line 1: one case frozen twice is still one case"
    )


def test_trials_with_one_result_share_it_but_json_types_and_key_order_stay_apart() -> None:
    cases, trials = _honest()
    results: list[dict[str, Any]] = [
        {"verdict": "passed", "score": 1},
        {"verdict": "passed", "score": 1.0},
        {"verdict": "passed", "score": True},
        {"verdict": "passed", "score": 0.0},
        {"verdict": "passed", "score": -0.0},
        {"score": 1, "verdict": "passed"},
        {"verdict": "passed", "score": 1},
        {"verdict": "passed", "score": [1, {"a": None}]},
        {"verdict": "passed", "score": [1, {"a": None}]},
    ]
    for trial, result in zip(trials, results, strict=False):
        trial["result"] = result
    checked, _ = check_cases(_records(cases), CASES)
    kept, findings = check_trials(_records(trials), checked, KEYS, TRIALS)
    assert findings == []
    kept_results = [trial.result for trial in kept[: len(results)]]
    assert kept_results == results
    for one, other in zip(kept_results, results, strict=True):  # JSON types and key order
        assert [(k, type(v), repr(v)) for k, v in one.items()] == [
            (k, type(v), repr(v)) for k, v in other.items()
        ]
    assert kept_results[6] is kept_results[0]
    assert kept_results[8] is kept_results[7]
    assert len({id(result) for result in kept_results}) == 7


def test_a_null_result_is_not_shared_with_a_nan_or_infinite_one() -> None:
    """`check_trials` over records its caller built (an adapter's, not the JSONL loaders',
    which refuse NaN): msgspec writes NaN and infinities as `null`, so their JSON text is not
    enough to share a result."""
    cases, trials = _honest()
    scores = [None, math.nan, None, math.inf, -math.inf, math.inf]
    for trial, score in zip(trials, scores, strict=False):
        trial["result"] = {"score": score}
    checked, _ = check_cases(_records(cases), CASES)
    kept, findings = check_trials(_records(trials), checked, KEYS, TRIALS)
    assert findings == []
    got = [trial.result["score"] for trial in kept[: len(scores)]]
    assert [repr(score) for score in got] == [repr(score) for score in scores]
    assert kept[2].result is kept[0].result  # nulls alike still share one


def _one_trial_per_case(
    cases: Mapping[str, Case], trials: list[dict[str, Any]]
) -> tuple[TrialChecker, list[tuple[Code, int | None, str]]]:
    check = TrialChecker(cases, KEYS, TRIALS)
    for record in _records(trials):
        check.add(record)
    check.finish()
    return check, [(f.code, f.line, f.message) for f in check.findings]


def test_one_trial_per_case_is_judged_alike_by_the_cases_lines_and_by_their_ids() -> None:
    # A frozen case's first trial is kept by the case's line (an array) where the cases'
    # lines are distinct, else by its id (a dict): the findings are the same.
    cases, trials = _honest()
    checked, _ = check_cases(_records(cases), CASES)
    unknown = dict(trials[1], case_id="not-frozen")
    again = dict(trials[0], case_id="".join(trials[0]["case_id"]))  # an equal, other string
    some = [trials[0], unknown, again, *trials[3:], unknown]
    by_line, found = _one_trial_per_case(checked, some)
    assert by_line._firsts is not None and by_line._first_line == {"not-frozen": 2}
    one_line = {case_id: structs.replace(case, line=7) for case_id, case in checked.items()}
    by_id, found_by_id = _one_trial_per_case(one_line, some)
    assert by_id._firsts is None
    (kept,) = (key for key in by_id._first_line if key == trials[0]["case_id"])
    assert kept is checked[kept].case_id  # the case's own string, not the line's
    assert [(code, at) for code, at, _ in found] == [
        (Code.UNKNOWN_CASE, 2),
        (Code.DUPLICATE_TRIAL, 3),
        (Code.DUPLICATE_TRIAL, len(some)),
        (Code.MISSING_TRIAL, None),
        (Code.MISSING_TRIAL, None),
    ]
    assert found[1][2] == (
        f"a second trial for case {trials[0]['case_id']!r} (first on line 1); the rules allow"
        " exactly one trial per case"
    )
    assert found[2][2].startswith("a second trial for case 'not-frozen' (first on line 2)")
    assert f"frozen case {cases[1]['case_id']!r} (freeze-cases.jsonl line 2)" in found[3][2]
    assert f"frozen case {cases[2]['case_id']!r} (freeze-cases.jsonl line 3)" in found[4][2]
    assert found_by_id[:3] == found[:3]
    assert [message.replace("line 7)", "line") for _, _, message in found_by_id[3:]] == [
        message.replace("line 2)", "line").replace("line 3)", "line") for _, _, message in found[3:]
    ]


def test_a_trial_on_its_cases_line_number_shares_the_int() -> None:
    # Trials written in the cases' order: each keeps its case's line object (ints past 256
    # are objects of their own, 28 bytes each).
    cases, trials = _honest()
    case_records = [Record(1000 + index, case) for index, case in enumerate(cases)]
    checked, _ = check_cases(case_records, CASES)
    lines = [1000 + index for index in range(len(trials))]
    lines[1] = 5000  # not its case's line
    trial_records = [
        Record(int(str(line)), trial) for line, trial in zip(lines, trials, strict=True)
    ]
    kept, findings = check_trials(trial_records, checked, KEYS, TRIALS)
    assert findings == []
    assert [trial.line for trial in kept] == lines
    assert [trial.line is checked[trial.case_id].line for trial in kept[:3]] == [True, False, True]


def test_folded_keys_read_as_the_dict_of_their_items() -> None:
    items: dict[str, object] = {"system": "a", "trajectory": "t-1", "evaluator": None, "n": 1}
    keys = FoldedKeys.of(items)
    assert isinstance(keys, Mapping) and not isinstance(keys, dict)
    assert keys == items and (keys != items) is False and keys != {**items, "n": 2}
    assert (len(keys), list(keys), dict(keys), repr(keys)) == (4, list(items), items, repr(items))
    assert ("system" in keys, "a" in keys, keys["n"], keys.get("absent", 7)) == (True, False, 1, 7)
    with pytest.raises(KeyError):
        keys["absent"]
    with pytest.raises(TypeError):
        hash(keys)
    for again in (copy.copy(keys), pickle.loads(pickle.dumps(keys))):
        assert type(again) is FoldedKeys and again == items
    assert not FoldedKeys.of({}) and FoldedKeys.of({}) == {}


def test_folded_keys_differ_from_what_is_no_mapping_as_a_dict_does() -> None:
    """`!=` against a value that is no mapping is True, as a dict's, and warns of nothing
    (`Mapping.__eq__` gives NotImplemented there: `not NotImplemented` is not an answer)."""
    items: dict[str, object] = {"system": "a", "n": 1}
    keys = FoldedKeys.of(items)
    for other in (None, 5, "system", ["system"]):
        assert (keys != other, keys == other) == (items != other, items == other) == (True, False)
        assert (other != keys) is True


def test_every_trial_of_a_file_shares_one_positions_dict() -> None:
    cases, trials = _honest()
    checked, _ = check_cases(_records(cases), CASES)
    kept, _ = check_trials(_records(trials), checked, KEYS, TRIALS)
    assert all(type(trial.keys) is FoldedKeys for trial in kept)
    assert len({id(tuple.__getitem__(cast(FoldedKeys, trial.keys), 0)) for trial in kept}) == 1
    assert [list(trial.keys) for trial in kept[:2]] == [list(KEYS)] * 2

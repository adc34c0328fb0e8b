"""bot.rules.verdict: each verdict type refuses, when built, a combination no judge gives."""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest

from bot.rules.challenge.judge import RunVerdict, ScoredAttempt
from bot.rules.verdict import (
    AttemptVerdict,
    BarResult,
    CheckState,
    Counts,
    ImpossibleVerdict,
    UnitSummary,
)
from bot.vocab.findings import Code, Finding, Severity
from tests.support import small_sample_bar

ERROR = Finding(Code.SCHEMA, "result: not an object", "attempts/x/trials.jsonl", 1)
REASON = Finding(Code.SAMPLE_SIZE, "12 independent units, at least 30 needed", "attempts/x")
MET = BarResult("false-safe", "rate_upper", 0.2, True, 1, 30, 0.1534, met=True)
MISSED = BarResult("false-safe", "rate_upper", 0.2, True, 9, 30, 0.4, met=False)
UNTESTED = BarResult("caught", "rate_lower", 0.5, False, 0, 0, note="never tested")
PASSED = CheckState("pass", "pass", "maintainer", "2027-07-01")
QUALIFYING = AttemptVerdict(
    "attempts/market-03/lab/a",
    3,
    "run",
    status="qualifying",
    outcome="met",
    bars=(MET,),
    checks={"review": PASSED},
)


def _refused(build: Any, match: str) -> None:
    with pytest.raises(ImpossibleVerdict, match=match):
        build()


def test_possible_verdicts_are_built() -> None:
    # The base cases the tests below change one field of.
    assert QUALIFYING.evidence == "valid" and QUALIFYING.outcome == "met"
    assert replace(QUALIFYING, outcome="missed", bars=(MISSED,)).outcome == "missed"
    invalid = AttemptVerdict("a", 3, "run", (ERROR,), bars=(UNTESTED,))
    assert invalid.evidence == "invalid" and invalid.status is None
    assert replace(QUALIFYING, status="not-qualifying", outcome=None, qualification=(REASON,))
    assert small_sample_bar().coverage is not None


# AttemptVerdict ----------------------------------------------------------------------------


def test_invalid_evidence_has_no_status() -> None:
    _refused(lambda: replace(QUALIFYING, findings=(ERROR,)), "invalid evidence has no status")


def test_invalid_through_the_pull_request_has_no_status() -> None:
    _refused(lambda: replace(QUALIFYING, pr_problems=(ERROR,)), "invalid evidence has no status")


def test_invalid_evidence_has_no_outcome() -> None:
    _refused(
        lambda: AttemptVerdict("a", 3, "run", (ERROR,), outcome="met"),
        "invalid evidence has no status or outcome",
    )


def test_an_outcome_needs_status_qualifying() -> None:
    _refused(
        lambda: replace(QUALIFYING, status="not-qualifying", qualification=(REASON,)),
        "an outcome goes with status qualifying",
    )


def test_status_qualifying_needs_an_outcome() -> None:
    _refused(lambda: replace(QUALIFYING, outcome=None), "an outcome goes with status qualifying")


@pytest.mark.parametrize("status", ["qualifying", "pending-judgment"])
def test_qualifying_or_pending_has_no_qualification_reasons(status: str) -> None:
    outcome = "met" if status == "qualifying" else None
    _refused(
        lambda: replace(QUALIFYING, status=status, outcome=outcome, qualification=(REASON,)),
        f"a {status} attempt has no qualification reasons",
    )


def test_not_qualifying_says_why() -> None:
    _refused(
        lambda: replace(QUALIFYING, status="not-qualifying", outcome=None),
        "a not-qualifying attempt has a qualification reason saying why",
    )


def test_pending_judgment_waits_for_a_check_not_passed() -> None:
    def pending(checks: dict[str, CheckState]) -> AttemptVerdict:
        return replace(QUALIFYING, status="pending-judgment", outcome=None, checks=checks)

    _refused(lambda: pending({"review": PASSED}), "waits for a human check not yet passed")
    _refused(lambda: pending({}), "waits for a human check not yet passed")
    stale = CheckState("stale", "pass", "maintainer", "2027-07-01")
    for waiting in (CheckState("missing"), CheckState("unsettled", "unsettled"), stale):
        assert pending({"review": PASSED, "wrapping": waiting}).status == "pending-judgment"


def test_qualifying_passed_every_human_check() -> None:
    waiting = {"review": PASSED, "wrapping": CheckState("missing")}
    _refused(lambda: replace(QUALIFYING, checks=waiting), "passed every human check")


def test_outcome_met_needs_every_bar_met() -> None:
    _refused(lambda: replace(QUALIFYING, bars=(MET, MISSED)), "bar 'false-safe' was not met")
    _refused(lambda: replace(QUALIFYING, bars=(MET, UNTESTED)), "bar 'caught' was not met")


def test_outcome_missed_needs_a_bar_not_met() -> None:
    _refused(lambda: replace(QUALIFYING, outcome="missed"), "outcome missed, but every bar was met")
    _refused(lambda: replace(QUALIFYING, outcome="missed", bars=()), "every bar was met")
    assert replace(QUALIFYING, outcome="missed", bars=(MET, MISSED)).outcome == "missed"


def test_a_warning_does_not_make_evidence_invalid() -> None:
    warning = replace(ERROR, severity=Severity.WARNING)
    assert replace(QUALIFYING, findings=(warning,)).status == "qualifying"


def test_a_verdict_holds_frozen_containers() -> None:
    verdict = AttemptVerdict(
        "a",
        3,
        "run",
        [REASON],  # type: ignore[arg-type]
        bars=[MET],  # type: ignore[arg-type]
        class_conditional={"all": {"safe": {"safe": 3}}},
        checks={"review": PASSED},
    )
    assert verdict.findings == (REASON,) and verdict.bars == (MET,)
    with pytest.raises(TypeError):
        verdict.checks["review"] = CheckState("missing")  # type: ignore[index]
    with pytest.raises(TypeError):
        verdict.class_conditional["all"]["safe"]["safe"] = 4  # type: ignore[index]
    assert verdict == replace(verdict)  # equal after a rebuild


# BarResult ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "change", [{"coverage": 0.9}, {"alt_method": "delong-logit", "alt_bound": 0.1}]
)
def test_coverage_is_for_auroc_bars_only(change: dict[str, Any]) -> None:
    _refused(lambda: replace(MET, **change), "coverage is for AUROC bars only")


@pytest.mark.parametrize("change", [{"alt_method": None}, {"alt_bound": None}])
def test_the_alternative_bound_goes_with_its_method(change: dict[str, Any]) -> None:
    _refused(lambda: small_sample_bar(**change), "alternative bound goes with its method")


def test_an_exercised_bar_is_met_or_missed() -> None:
    _refused(lambda: replace(MET, met=None), "exercised True with met None")


def test_a_bar_not_exercised_is_neither_met_nor_missed() -> None:
    _refused(lambda: replace(UNTESTED, met=False), "exercised False with met False")


def test_only_an_auroc_bar_not_exercised_is_refused() -> None:
    _refused(lambda: small_sample_bar(refused=True), "only an AUROC bar not exercised")
    _refused(lambda: replace(UNTESTED, refused=True), "only an AUROC bar not exercised")
    assert small_sample_bar(exercised=False, met=None, refused=True).refused


@pytest.mark.parametrize("field", ["failures", "units", "positives", "negatives"])
def test_a_bar_count_is_never_negative(field: str) -> None:
    _refused(lambda: replace(MET, **{field: -1}), f"{field} is -1")


# CheckState --------------------------------------------------------------------------------


@pytest.mark.parametrize("state", ["stale", "late", "pass"])
def test_a_recorded_state_has_a_verdict(state: Any) -> None:
    _refused(lambda: CheckState(state), f"state {state} with verdict None")


def test_a_missing_check_has_no_verdict() -> None:
    _refused(lambda: CheckState("missing", "pass", "maintainer"), "state missing with verdict pass")


@pytest.mark.parametrize("state", ["pass", "fail", "unsettled"])
def test_a_counting_state_is_its_verdict(state: Any) -> None:
    other = "fail" if state == "pass" else "pass"
    _refused(lambda: CheckState(state, other), f"state {state} with verdict {other}")
    assert CheckState("stale", other).verdict == other  # not counted: any verdict


# UnitSummary and Counts --------------------------------------------------------------------

UNITS = UnitSummary(4, 3, {"system": 0, "grader": 1}, {"system": 2, "grader": 1}, "system")


@pytest.mark.parametrize("change", [{"count": -1}, {"largest": -2}])
def test_unit_counts_are_never_negative(change: dict[str, int]) -> None:
    _refused(lambda: replace(UNITS, **change), "never negative")


@pytest.mark.parametrize("field", ["nulls_per_key", "joins_per_key"])
def test_per_key_counts_are_never_negative(field: str) -> None:
    _refused(lambda: replace(UNITS, **{field: {"system": -1}}), "never negative")


@pytest.mark.parametrize(("count", "largest"), [(0, 1), (3, 0)])
def test_a_unit_holds_at_least_one_trial(count: int, largest: int) -> None:
    _refused(lambda: replace(UNITS, count=count, largest=largest), "at least one trial")


@pytest.mark.parametrize("busiest", [None, "grader", "evaluator"])
def test_joined_most_by_is_the_key_that_joined_most(busiest: str | None) -> None:
    _refused(lambda: replace(UNITS, joined_most_by=busiest), "joined")


def test_joined_most_by_is_null_when_nothing_joined() -> None:
    assert UnitSummary(2, 1, {}, {"system": 0}, None).joined_most_by is None
    _refused(lambda: UnitSummary(2, 1, {}, {"system": 0}, "system"), "not the key that joined")


def test_units_hold_frozen_mappings() -> None:
    with pytest.raises(TypeError):
        UNITS.joins_per_key["system"] = 9  # type: ignore[index]


@pytest.mark.parametrize("field", ["files", "cases", "trials", "systems", "families"])
def test_evidence_counts_are_never_negative(field: str) -> None:
    _refused(lambda: Counts(**{field: -1}), f"counts: {field} is -1")


# RunVerdict --------------------------------------------------------------------------------

RUN = RunVerdict(
    "run-1",
    "challenge-runs/run-1",
    7,
    "acme",
    "operator",
    cases=2,
    scored=(ScoredAttempt("lab/a", "recomputed", {"c1": {"score": 1}}),),
    recomputed_by="exact-match",
)


def test_a_run_scores_each_attempt_once() -> None:
    _refused(lambda: replace(RUN, scored=RUN.scored * 2), "scored twice")


def test_recomputed_scores_name_their_scorer() -> None:
    _refused(lambda: replace(RUN, recomputed_by=None), "recomputed with no built-in scorer")
    assert replace(RUN, recomputed_by=None, scored=()).evidence == "valid"


def test_a_run_has_no_negative_cases() -> None:
    _refused(lambda: replace(RUN, cases=-1), "-1 cases")

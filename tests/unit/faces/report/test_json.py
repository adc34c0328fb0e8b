"""The JSON reports both ways: what a verify report says of an attempt's pull request."""

from __future__ import annotations

import json
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.app.api import VerifyReport
from bot.app.report_json import ReportError, verify_report_from_json, verify_report_to_json
from bot.rules.verdict import AttemptVerdict, BarResult, CheckState, UnitSummary
from bot.vocab.findings import Code, Finding, Severity
from tests.support import small_sample_bar


def test_a_verify_report_reads_back_with_its_pull_request_problems() -> None:
    own = Finding(Code.MAINTAINER_FILE, "maintainers only", "attempts/market-03/a/b/judgments.yaml")
    several = Finding(Code.SEVERAL_ATTEMPTS, "two attempt folders")
    touched = AttemptVerdict("attempts/market-03/a/b", 3, "run", (), pr_problems=(own, several))
    other = AttemptVerdict(
        "attempts/market-03/c/d", 3, "run", (), status="qualifying", outcome="met"
    )
    report = VerifyReport((touched, other), pr_problems=(own, several), base_ref="main")
    data = json.loads(json.dumps(verify_report_to_json(report)))
    assert data["attempts"][0]["pr_problem_codes"] == ["maintainer-file", "several-attempts"]
    assert data["attempts"][1]["pr_problem_codes"] == []
    assert verify_report_from_json(data) == report
    # An attempt may not name a problem the report does not list, nor claim to be valid.
    wrong = json.loads(json.dumps(data))
    wrong["attempts"][1]["pr_problem_codes"] = ["symlink"]
    with pytest.raises(ReportError, match="symlink"):
        verify_report_from_json(wrong)
    wrong = json.loads(json.dumps(data))
    wrong["attempts"][0]["evidence"] = "valid"
    with pytest.raises(ReportError, match="evidence"):
        verify_report_from_json(wrong)
    # The schema refuses a status for invalid evidence.
    wrong = json.loads(json.dumps(data))
    wrong["attempts"][0]["status"] = "qualifying"
    with pytest.raises(ReportError):
        verify_report_from_json(wrong)


# Issue 15: units per class, coverage and the logit bound, per AUROC bar.
AUROC_BAR = small_sample_bar()
RATE_BAR = BarResult("false-safe", "rate_upper", 0.2, True, 0, 10, 0.2589, met=False)
WARNING = Finding(
    Code.BOUND_COVERAGE_LOW,
    "bar 'discrimination': ... below 90%",
    "attempts/market-03/k/s/trials.jsonl",
    severity=Severity.WARNING,
)


def _bars_report() -> VerifyReport:
    verdict = AttemptVerdict(
        "attempts/market-03/k/s",
        3,
        "run",
        (WARNING,),
        status="qualifying",
        outcome="missed",
        bars=(RATE_BAR, AUROC_BAR),
    )
    return VerifyReport((verdict,), base_ref="main")


def test_auroc_bars_carry_units_per_class_coverage_and_the_alternative() -> None:
    data = json.loads(json.dumps(verify_report_to_json(_bars_report())))
    rate, auroc = data["attempts"][0]["bars"]
    assert (rate["units_per_class"], rate["coverage"], rate["auroc_lower_alt"]) == (None,) * 3
    assert auroc["units_per_class"] == {"positive": 10, "negative": 10}
    assert auroc["coverage"] == 0.8754
    assert auroc["auroc_lower_alt"] == {"method": "delong-logit", "bound": 0.7489}
    # A warning is no error: the evidence stays valid and the attempt qualifying.
    assert data["attempts"][0]["evidence"] == "valid"
    assert data["attempts"][0]["reasons"][0]["severity"] == "warning"
    assert verify_report_from_json(data) == _bars_report()


@pytest.mark.parametrize(
    ("bar", "field", "value", "match"),
    [
        (1, "units_per_class", {"positive": 9, "negative": 10}, "units_per_class"),
        (1, "units_per_class", None, "units_per_class"),
        (0, "units_per_class", {"positive": 1, "negative": 1}, "units_per_class"),
        (0, "coverage", 0.5, "AUROC bars only"),
        (1, "coverage", 1.5, "verify-report"),
        (1, "auroc_lower_alt", {"method": "x"}, "verify-report"),
    ],
)
def test_bar_fields_that_disagree_are_refused(bar: int, field: str, value: Any, match: str) -> None:
    data = json.loads(json.dumps(verify_report_to_json(_bars_report())))
    data["attempts"][0]["bars"][bar][field] = value
    with pytest.raises(ReportError, match=match):
        verify_report_from_json(data)


def test_a_bar_without_the_new_fields_is_refused() -> None:
    data = json.loads(json.dumps(verify_report_to_json(_bars_report())))
    del data["attempts"][0]["bars"][1]["coverage"]
    with pytest.raises(ReportError, match="coverage"):
        verify_report_from_json(data)


_ANY_JSON = st.recursive(
    st.none() | st.booleans() | st.integers(-5, 5) | st.floats(-2, 2) | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=8), inner, max_size=3)
    ),
    max_leaves=6,
)


@given(
    st.sampled_from([0, 1]),
    st.sampled_from(["units_per_class", "coverage", "auroc_lower_alt"]),
    _ANY_JSON
    | st.fixed_dictionaries({"positive": st.integers(-1, 12), "negative": st.integers(-1, 12)})
    | st.fixed_dictionaries({"method": st.text(max_size=5), "bound": st.floats(-1, 2)}),
)
def test_any_value_of_the_new_bar_fields_reads_back_or_is_refused(
    bar: int, field: str, value: Any
) -> None:
    data = json.loads(json.dumps(verify_report_to_json(_bars_report())))
    data["attempts"][0]["bars"][bar][field] = value
    try:
        report = verify_report_from_json(data)
    except ReportError:
        return
    read = report.attempts[0].bars[bar]
    assert verify_report_to_json(report)["attempts"][0]["bars"][bar][field] == value
    assert read.statistic == "auroc_lower" or field != "coverage" or value is None


def _checked_report() -> dict[str, Any]:
    verdict = AttemptVerdict(
        "attempts/market-03/k/s",
        3,
        "run",
        status="qualifying",
        outcome="met",
        bars=(replace(RATE_BAR, met=True),),
        checks={"review": CheckState("pass", "pass", "maintainer", "2027-07-01")},
        units=UnitSummary(4, 3, {"system": 0}, {"system": 2}, "system"),
    )
    data = verify_report_to_json(VerifyReport((verdict,), base_ref="main"))
    assert verify_report_from_json(data).attempts == (verdict,)
    return json.loads(json.dumps(data))


def _qualification_reason(attempt: dict[str, Any]) -> None:
    reason = {"code": "sample-size", "message": "too few units", "file": None, "line": None}
    attempt["reasons"].append({**reason, "severity": "error", "stage": "qualification"})


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda a: a["checks"]["review"].update(verdict="fail"), "state pass with verdict fail"),
        (lambda a: a["checks"]["review"].update(state="missing"), "missing with verdict pass"),
        (lambda a: a["checks"]["review"].update(state="stale"), "passed every human check"),
        (lambda a: a["bars"][0].update(met=None), "exercised True with met None"),
        (lambda a: a["bars"][0].update(met=False), "outcome met, but bar 'false-safe'"),
        (lambda a: a["units"].update(count=0), "a unit holds at least one trial"),
        (lambda a: a["units"].update(joined_most_by=None), "joined_most_by is null"),
        (_qualification_reason, "a qualifying attempt has no qualification reasons"),
        (
            lambda a: a.update(status="not-qualifying", outcome=None),
            "a not-qualifying attempt has a qualification reason",
        ),
        (
            lambda a: a.update(status="pending-judgment", outcome=None),
            "waits for a human check not yet passed",
        ),
        (lambda a: a.update(outcome="missed"), "outcome missed, but every bar was met"),
    ],
)
def test_an_impossible_verdict_read_back_is_a_report_error(change: Any, says: str) -> None:
    # Past the schema, which cannot say these: the constructors refuse them, and the reader
    # names the attempt.
    data = _checked_report()
    change(data["attempts"][0])
    with pytest.raises(ReportError, match=f"^attempt 'attempts/market-03/k/s': .*{says}"):
        verify_report_from_json(data)

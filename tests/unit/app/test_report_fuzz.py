"""Reports read back, fuzzed: any edit of a report's values gives the report back or a
`ReportError`, never another exception (the verdict types' `ImpossibleVerdict` included), in
the readers `claims site` and `claims github publish` use (`bot/faces/report/entries.py`)."""

from __future__ import annotations

import contextlib
import copy
import json
from datetime import UTC, date, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.app.report_json import (
    ReportError,
    resolve_report_from_json,
    resolve_report_to_json,
    verify_report_from_json,
    verify_report_to_json,
)
from bot.faces.report.entries import resolve_report_entries, verify_report_entries
from bot.rules.challenge.judge import RunVerdict, ScoredAttempt
from bot.rules.reports import ResolveReport, VerifyReport
from bot.rules.resolution import AttemptSummary, MarketResolution, Snapshot
from bot.rules.verdict import AttemptVerdict, BarResult, CheckState, Counts, UnitSummary
from bot.vocab.dates import MarketDates
from bot.vocab.findings import Code, Finding, Severity
from tests.support import fuzz_settings, small_sample_bar

RATE = BarResult("false-safe", "rate_upper", 0.2, True, 0, 10, 0.2589, met=True)
WARNING = Finding(
    Code.BOUND_COVERAGE_LOW,
    "low",
    "attempts/market-03/k/s/trials.jsonl",
    3,
    severity=Severity.WARNING,
)
ERROR = Finding(Code.SCHEMA, "result: not an object", "attempts/market-03/c/d/trials.jsonl", 1)


def _verify_data() -> dict[str, Any]:
    qualifying = AttemptVerdict(
        "attempts/market-03/k/s",
        3,
        "run",
        (WARNING,) * 25,  # past the cap: listed 20, the last with the count left out
        digest="a" * 64,
        status="qualifying",
        outcome="missed",
        bars=(RATE, small_sample_bar()),
        class_conditional={"label": {"unsafe": {"flagged": 3, "missed": 1}}},
        checks={"review": CheckState("pass", "pass", "maintainer", "2027-07-01")},
        counts=Counts(7, 20, 20, 2, 2),
        units=UnitSummary(4, 3, {"system": 0}, {"system": 2}, "system"),
    )
    pending = AttemptVerdict(
        "attempts/market-03/p/q",
        3,
        "wrapped",
        status="pending-judgment",
        checks={
            "review": CheckState("stale", "pass", "maintainer", "2027-07-01"),
            "wrapping-within-rules": CheckState("missing", adapter_description="wraps"),
        },
        units=UnitSummary(0, 0),
    )
    refused = AttemptVerdict(
        "attempts/market-03/r/t",
        3,
        "run",
        qualification=(Finding(Code.BAR_REFUSED, "shared unit", "x/trials.jsonl"),),
        status="not-qualifying",
        bars=(BarResult("auc", "auroc_lower", 0.7, False, note="shared", refused=True),),
    )
    invalid = AttemptVerdict("attempts/market-03/c/d", 3, None, (ERROR,))
    run = RunVerdict(
        "run-1",
        "challenges/market-05/run-1",
        5,
        "weirdml-v3",
        "operator",
        cases=2,
        scored=(
            ScoredAttempt("a/b", "recomputed", {"t1": {"accuracy": 0.5}}),
            ScoredAttempt("c/d", "score-file", {"t1": {"accuracy": 0.25}}),
        ),
        recomputed_by="weirdml-v3",
    )
    report = VerifyReport(
        (qualifying, pending, refused, invalid), base_ref="main", challenge_runs=(run,)
    )
    data = json.loads(json.dumps(verify_report_to_json(report)))
    verify_report_from_json(copy.deepcopy(data))
    assert data["findings_cap"]["left_out"] > 0
    return data


def _resolve_data() -> dict[str, Any]:
    dates = MarketDates.of(date(2027, 6, 30), 60, 30)
    at = datetime(2027, 8, 30, 13, tzinfo=UTC)
    yes = (
        AttemptSummary("attempts/market-03/a/b", "valid", "qualifying", "met", ()),
        AttemptSummary("attempts/market-03/c/d", "invalid", None, None, ("schema",)),
        AttemptSummary("attempts/market-03/e/f", "valid", "not-qualifying", None, ("sample-size",)),
    )
    closed = MarketResolution(
        3,
        "t",
        False,
        dates,
        date(2027, 9, 1),
        "closed",
        "YES",
        "YES",
        "why",
        yes,
        Snapshot(dates.snapshot_tag, "ok", "ok", at, at, "10.5281/zenodo.1"),
        ("w",),
        "tree",
    )
    annulled = MarketResolution(
        4,
        "u",
        True,
        dates,
        date(2027, 9, 29),
        "annulled",
        "ANNULLED",
        "OTHER",
        "why",
        (),
        Snapshot(dates.snapshot_tag, "lightweight", "undated", None, None, "10.1/x"),
    )
    open_ = MarketResolution(
        5,
        "v",
        False,
        dates,
        date(2027, 6, 1),
        "open",
        None,
        "NO",
        "why",
        (AttemptSummary("attempts/market-05/a/b", "valid", "qualifying", "missed", ()),),
        Snapshot(dates.snapshot_tag, "off-branch", "after-as-of", None, at, "1"),
    )
    report = ResolveReport(date(2027, 9, 29), (closed, annulled, open_), ())
    data = json.loads(json.dumps(resolve_report_to_json(report)))
    resolve_report_from_json(copy.deepcopy(data))
    return data


VERIFY = _verify_data()
RESOLVE = _resolve_data()

# Values a hand or a fork's workflow might put in a report: every state word the schemas know,
# dates good and bad, counts at and past their limits.
WORDS = [
    "qualifying",
    "not-qualifying",
    "pending-judgment",
    "met",
    "missed",
    "valid",
    "invalid",
    "pass",
    "fail",
    "unsettled",
    "missing",
    "stale",
    "late",
    "ok",
    "lightweight",
    "undated",
    "after-as-of",
    "off-branch",
    "open",
    "filing-window",
    "closed",
    "annulled",
    "YES",
    "NO",
    "OTHER",
    "ANNULLED",
    "rate_upper",
    "rate_lower",
    "auroc_lower",
    "recomputed",
    "score-file",
    "delong-logit",
    "system",
    "review",
    "error",
    "warning",
    "qualification",
    "schema",
    "sample-size",
    "2027-06-30",
    "2027-02-30",
    "2027-09-29",
    "0001-01-01",
    "9999-12-31",
    "2027-08-30T13:00:00Z",
    "2027-08-30T13:00:00",
    "9999-12-31T23:59:59-12:00",
    "",
    "a/b",
    "snapshot-2027-06-30",
    "weirdml-v3",
]
SCALARS = st.one_of(
    st.sampled_from(WORDS),
    st.none(),
    st.booleans(),
    st.sampled_from([-1, 0, 1, 2, 3, 4, 10, 2**53 - 1]),
    st.sampled_from([-0.5, 0.0, 0.2, 0.5, 0.7, 1.0, 1.5, 1e308]),
    st.just({}),
    st.just([]),
)


def _paths(data: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [prefix]
    if isinstance(data, dict):
        for key, value in data.items():
            found += _paths(value, (*prefix, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            found += _paths(value, (*prefix, index))
    return found


def _edit(data: dict[str, Any], draw: Any, edits: int) -> dict[str, Any]:
    data = copy.deepcopy(data)
    for _ in range(edits):
        paths = [path for path in _paths(data) if path]
        path = draw(st.sampled_from(paths))
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        action = draw(st.sampled_from(["set", "set", "set", "drop", "copy"]))
        if action == "drop" and isinstance(parent, dict):
            del parent[path[-1]]
        elif action == "copy" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[path[-1]]))
        else:
            parent[path[-1]] = draw(SCALARS)
    return data


def _reads_or_refuses(data: dict[str, Any], read: Any, entries: Any) -> None:
    for reader in (read, entries):
        with contextlib.suppress(ReportError):
            reader(copy.deepcopy(data))


@fuzz_settings(400)
@given(st.data(), st.integers(1, 3))
def test_an_edited_verify_report_reads_or_is_refused(data: Any, edits: int) -> None:
    edited = _edit(VERIFY, data.draw, edits)
    _reads_or_refuses(edited, verify_report_from_json, verify_report_entries)


@fuzz_settings(400)
@given(st.data(), st.integers(1, 3))
def test_an_edited_resolve_report_reads_or_is_refused(data: Any, edits: int) -> None:
    edited = _edit(RESOLVE, data.draw, edits)
    _reads_or_refuses(edited, resolve_report_from_json, resolve_report_entries)

"""bot.rules.resolution on hand-built verdicts: the Three Way Rule, market dates, annulment."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import UTC, date, datetime, timedelta
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.app.api import ResolveReport
from bot.app.report_json import ReportError, resolve_report_from_json, resolve_report_to_json
from bot.faces.demo.specimen import load_market, market_document
from bot.rules.evidence.schema import validate
from bot.rules.resolution import AttemptSummary, MarketResolution, Snapshot, resolve_market
from bot.rules.resolution import three_way as three_way_of_summaries
from bot.rules.verdict import AttemptVerdict, BarResult, CheckState, ImpossibleVerdict
from bot.vocab.commits import Tag
from bot.vocab.dates import MarketDates
from bot.vocab.findings import Code, Finding, Severity
from tests.support import shared_rules

MARKET = load_market(market_document(3, "default"), shared_rules())
DATES = MarketDates.of(date(2027, 6, 30), 60, 30)  # closes 2027-08-29, annulled after 09-28
CLOSED = date(2027, 9, 1)
AFTER_ANNULMENT = date(2027, 9, 29)
INVALID = Finding(Code.SCHEMA, "result: not an object", "attempts/x/trials.jsonl", 1)
WARNING = Finding(Code.FREEZE_ONLY, "only the freeze", "attempts/x", severity=Severity.WARNING)
NOT_ENOUGH = Finding(Code.SAMPLE_SIZE, "too few units", "attempts/x/trials.jsonl")
MISSED_BAR = BarResult("fnr", "rate_upper", 0.05, exercised=True, failures=9, units=100, met=False)


def _verdict(
    name: str, status: str | None, outcome: str | None = None, valid: bool = True
) -> AttemptVerdict:
    """A verdict as the judge gives it: a not-qualifying attempt says why, a pending one
    waits for a check, a missed one missed a bar."""
    return AttemptVerdict(
        attempt=f"attempts/market-03/lab/{name}",
        market=3,
        kind="run",
        findings=() if valid else (INVALID,),
        qualification=(NOT_ENOUGH,) if status == "not-qualifying" else (),
        status=status,  # type: ignore[arg-type]
        outcome=outcome,  # type: ignore[arg-type]
        bars=(MISSED_BAR,) if outcome == "missed" else (),
        checks={"not-toy-only": CheckState("missing")} if status == "pending-judgment" else {},
    )


TAGGED_AT = datetime(2027, 8, 30, 13, tzinfo=UTC)  # an hour after the window closed (AoE)


def _snapshot(tag: bool = False, archived: bool = False) -> Snapshot:
    return Snapshot(
        DATES.snapshot_tag,
        "ok" if tag else "missing",
        "ok" if archived else "missing",
        TAGGED_AT if tag else None,
        TAGGED_AT if archived else None,
        "10.5281/zenodo.1" if archived else None,
    )


def _snapshot_on(tag: bool, archived: bool, as_of: date) -> Snapshot:
    """`_snapshot(tag, archived)` as the resolver sees it on `as_of`: not yet made before its
    time (after-as-of)."""
    record = {
        "tag": DATES.snapshot_tag,
        "created": TAGGED_AT.isoformat(),
        "doi": "10.5281/zenodo.1",
    }
    return Snapshot.of(
        DATES.snapshot_tag,
        Tag(DATES.snapshot_tag, "1" * 40, True, TAGGED_AT) if tag else None,
        record if archived else None,
        DATES,
        as_of,
    )


def three_way(verdicts: Sequence[AttemptVerdict]) -> tuple[str, str]:
    """The Three Way Rule over the attempts' summaries, as `resolve_market` applies it."""
    return three_way_of_summaries([AttemptSummary.of(verdict) for verdict in verdicts])


def market_json(resolution: MarketResolution) -> dict[str, Any]:
    """The market's object of a `claims resolve --json` report, checked against its schema."""
    data = resolve_report_to_json(ResolveReport(resolution.as_of, (resolution,), ()))
    assert validate("resolve-report", data, "resolve-report.json") == []
    market: dict[str, Any] = data["markets"][0]
    return market


# ---- three_way ------------------------------------------------------------------------------


def test_no_attempt_is_other() -> None:
    assert three_way([]) == ("OTHER", "no attempt was filed")


def test_one_met_is_yes_even_if_another_missed() -> None:
    outcome, why = three_way(
        [_verdict("a", "qualifying", "missed"), _verdict("b", "qualifying", "met")]
    )
    assert outcome == "YES"
    assert "attempts/market-03/lab/b" in why


def test_all_qualifying_missed_is_no() -> None:
    verdicts = [
        _verdict("a", "qualifying", "missed"),
        _verdict("b", "qualifying", "missed"),
        _verdict("c", "not-qualifying"),
    ]
    assert three_way(verdicts)[0] == "NO"
    assert "2 qualifying" in three_way(verdicts)[1]


def test_no_qualifying_attempt_is_other() -> None:
    verdicts = [
        _verdict("a", "not-qualifying"),
        _verdict("b", "pending-judgment"),
        _verdict("c", None, valid=False),
    ]
    assert three_way(verdicts) == ("OTHER", "no qualifying attempt among 3 filed")


def test_invalid_evidence_never_counts() -> None:
    # A verdict with an error finding cannot qualify: one that says it does is never built.
    with pytest.raises(ImpossibleVerdict, match="invalid evidence has no status"):
        _verdict("a", "qualifying", "met", valid=False)
    assert three_way([_verdict("a", None, valid=False)])[0] == "OTHER"


def test_warnings_do_not_invalidate() -> None:
    verdict = AttemptVerdict("a", 3, "run", (WARNING,), status="qualifying", outcome="met")
    assert verdict.evidence == "valid"
    assert three_way([verdict])[0] == "YES"


_STATES = st.sampled_from(
    [
        ("qualifying", "met", True),
        ("qualifying", "missed", True),
        ("not-qualifying", None, True),
        ("pending-judgment", None, True),
        (None, None, False),  # invalid evidence
    ]
)


def _verdicts(states: list[tuple[str | None, str | None, bool]]) -> list[AttemptVerdict]:
    return [
        _verdict(f"attempt-{i}", status, outcome, valid)
        for i, (status, outcome, valid) in enumerate(states)
    ]


@given(st.lists(_STATES, max_size=8))
def test_three_way_rule_holds_for_any_attempts(states: list[Any]) -> None:
    verdicts = _verdicts(states)
    outcome, why = three_way(verdicts)
    qualifying = [v for v in verdicts if v.evidence == "valid" and v.status == "qualifying"]
    # YES iff some qualifying attempt met the bars.
    assert (outcome == "YES") == any(v.outcome == "met" for v in qualifying)
    # OTHER is never produced for a market with a qualifying attempt (and only then).
    assert (outcome == "OTHER") == (not qualifying)
    # NO iff qualifying attempts exist and every one missed.
    assert (outcome == "NO") == (
        bool(qualifying) and all(v.outcome == "missed" for v in qualifying)
    )
    assert why
    # Order does not matter.
    assert three_way(list(reversed(verdicts)))[0] == outcome


@given(st.lists(_STATES, max_size=8), st.booleans(), st.booleans(), st.integers(0, 200))
def test_resolve_market_outcome_for_any_attempts_and_date(
    states: list[Any], tag: bool, archived: bool, days: int
) -> None:
    as_of = date(2027, 6, 1) + timedelta(days=days)
    verdicts = _verdicts(states)
    resolution = resolve_market(MARKET, DATES, verdicts, _snapshot_on(tag, archived, as_of), as_of)
    rule, _ = three_way(verdicts)
    assert resolution.provisional == rule
    assert resolution.state == (
        "open"
        if as_of <= DATES.resolve_by
        else "filing-window"
        if as_of <= DATES.window_closes
        else "annulled"
        if as_of > DATES.annul_on and not tag and not archived
        else "closed"
    )
    expected = {"open": None, "filing-window": None, "annulled": "ANNULLED", "closed": rule}
    assert resolution.outcome == expected[resolution.state]
    if any(v.evidence == "valid" and v.status == "qualifying" for v in verdicts):
        assert resolution.outcome != "OTHER"
    schema_json = market_json(resolution)
    assert schema_json["outcome"] == resolution.outcome
    assert schema_json["state"] == resolution.state


# ---- resolve_market: dates and the snapshot -------------------------------------------------


YES = [_verdict("a", "qualifying", "met")]


@pytest.mark.parametrize(
    ("as_of", "state"),
    [
        (date(2027, 6, 30), "open"),
        (date(2027, 7, 1), "filing-window"),
        (date(2027, 8, 29), "filing-window"),
    ],
)
def test_no_outcome_before_the_window_closes(as_of: date, state: str) -> None:
    resolution = resolve_market(MARKET, DATES, YES, _snapshot(), as_of)
    assert (resolution.state, resolution.outcome, resolution.provisional) == (state, None, "YES")
    assert resolution.why.startswith(f"{state}: provisionally YES")
    assert resolution.warnings == ()


def test_closed_with_both_copies_has_no_warning() -> None:
    resolution = resolve_market(MARKET, DATES, YES, _snapshot(True, True), AFTER_ANNULMENT)
    assert (resolution.state, resolution.outcome) == ("closed", "YES")
    assert resolution.warnings == ()


@pytest.mark.parametrize(
    ("tag", "archived", "missing"),
    [(True, False, "its archive copy"), (False, True, "the tag")],
)
@pytest.mark.parametrize("as_of", [CLOSED, AFTER_ANNULMENT])
def test_one_copy_missing_is_a_warning_not_annulment(
    tag: bool, archived: bool, missing: str, as_of: date
) -> None:
    resolution = resolve_market(MARKET, DATES, YES, _snapshot(tag, archived), as_of)
    assert (resolution.state, resolution.outcome) == ("closed", "YES")
    (warning,) = resolution.warnings
    assert warning.startswith(f"snapshot-2027-06-30: {missing} missing")


def test_both_missing_before_the_annulment_date_is_a_warning() -> None:
    resolution = resolve_market(MARKET, DATES, YES, _snapshot(), DATES.annul_on)
    assert (resolution.state, resolution.outcome) == ("closed", "YES")
    (warning,) = resolution.warnings
    assert "the tag and its archive copy missing" in warning


@pytest.mark.parametrize(
    "verdicts",
    [[], YES, [_verdict("a", "qualifying", "missed")], [_verdict("a", "not-qualifying")]],
)
def test_both_missing_after_the_annulment_date_is_annulled(verdicts: list[AttemptVerdict]) -> None:
    resolution = resolve_market(MARKET, DATES, verdicts, _snapshot(), AFTER_ANNULMENT)
    assert (resolution.state, resolution.outcome) == ("annulled", "ANNULLED")
    assert "a registry failure, not OTHER" in resolution.why
    assert resolution.provisional == three_way(verdicts)[0]


def test_to_json_has_the_report_fields() -> None:
    verdicts = [_verdict("a", "qualifying", "met"), _verdict("b", None, valid=False)]
    resolution = resolve_market(MARKET, DATES, verdicts, _snapshot(True), CLOSED, source="tree x")
    data = market_json(resolution)
    assert data["market"] == 3
    assert (data["title"], data["demo"]) == (MARKET.title, True)
    assert (data["as_of"], data["state"], data["outcome"]) == ("2027-09-01", "closed", "YES")
    assert data["source"] == "tree x"
    assert (data["resolve_by"], data["window_closes"], data["annul_on"]) == (
        "2027-06-30",
        "2027-08-29",
        "2027-09-28",
    )
    assert data["snapshot"] == {
        "tag": "snapshot-2027-06-30",
        "tag_exists": True,
        "tag_state": "ok",
        "tagged_at": "2027-08-30T13:00:00Z",
        "tag_counts": True,
        "archived": False,
        "archive_state": "missing",
        "archived_at": None,
        "archive_counts": False,
        "archive_ref": None,
    }
    assert data["attempts"] == [
        {
            "attempt": "attempts/market-03/lab/a",
            "evidence": "valid",
            "status": "qualifying",
            "outcome": "met",
            "reasons": [],
            "counts": True,
        },
        {
            "attempt": "attempts/market-03/lab/b",
            "evidence": "invalid",
            "status": None,
            "outcome": None,
            "reasons": ["schema"],
            "counts": False,
        },
    ]


def test_the_resolution_names_its_market_and_summarises_each_attempt() -> None:
    verdicts = [
        _verdict("a", "qualifying", "met"),
        AttemptVerdict(
            "attempts/market-03/lab/b",
            3,
            "run",
            (INVALID, WARNING, INVALID),
            qualification=(Finding(Code.SAMPLE_SIZE, "too few units", None),),
        ),
    ]
    resolution = resolve_market(MARKET, DATES, verdicts, _snapshot(True, True), CLOSED)
    assert (resolution.market, resolution.title, resolution.demo) == (3, MARKET.title, True)
    assert (resolution.dates, resolution.as_of) == (DATES, CLOSED)
    assert resolution.attempts == (
        AttemptSummary("attempts/market-03/lab/a", "valid", "qualifying", "met", ()),
        # error codes once each, sorted; warnings are not reasons
        AttemptSummary(
            "attempts/market-03/lab/b", "invalid", None, None, ("sample-size", "schema")
        ),
    )
    assert [summary.counts for summary in resolution.attempts] == [True, False]


def test_notes_become_warnings() -> None:
    resolution = resolve_market(
        MARKET, DATES, YES, _snapshot(True, True), CLOSED, notes=("history not checked",)
    )
    assert resolution.warnings == ("history not checked",)


def test_a_resolve_report_reads_back_as_it_was_written() -> None:
    resolutions = (
        resolve_market(MARKET, DATES, YES, _snapshot(True), CLOSED, source="snapshot"),
        resolve_market(replace(MARKET, id=MARKET.id + 1), DATES, [], _snapshot(), AFTER_ANNULMENT),
    )
    registry = (Finding(Code.REGISTRY_INVALID, "bad contract", "markets/market-05.yaml", 2),)
    report = ResolveReport(CLOSED, resolutions, registry)
    assert resolve_report_from_json(resolve_report_to_json(report)) == report


# ---- which snapshot counts (docs/spec.md §5) -----------------------------------------------------

ANNULMENT_ENDS = datetime(2027, 9, 29, 12, tzinfo=UTC)  # 2027-09-28 ends Anywhere on Earth
SECOND = timedelta(seconds=1)


def _tag(at: datetime | None, annotated: bool = True) -> Tag:
    return Tag(DATES.snapshot_tag, "c" * 40, annotated, at)


@pytest.mark.parametrize(
    ("tag", "state"),
    [
        (None, "missing"),
        (_tag(TAGGED_AT), "ok"),
        (_tag(ANNULMENT_ENDS), "ok"),
        (_tag(ANNULMENT_ENDS + SECOND), "late"),
        (_tag(None, annotated=False), "lightweight"),
        (_tag(None), "undated"),
    ],
)
def test_a_tag_counts_only_when_annotated_and_dated_by_the_annulment_date(
    tag: Tag | None, state: str
) -> None:
    snapshot = Snapshot.of(DATES.snapshot_tag, tag, None, DATES, date(2027, 12, 1))
    assert snapshot.tag_state == state
    assert snapshot.tag_counts is (state == "ok")
    assert snapshot.tag_exists is (tag is not None)
    assert snapshot.tagged_at == (tag.tagged_at if tag else None)


@pytest.mark.parametrize(
    ("record", "state"),
    [
        (None, "missing"),
        ({"doi": "10.5281/zenodo.1", "created": "2027-08-30T13:00:00Z"}, "ok"),
        ({"created": "2027-09-29T12:00:00Z"}, "ok"),
        ({"created": "2027-09-29T14:00:00+02:00"}, "ok"),  # the same moment
        ({"created": "2027-09-29T12:00:00.5Z"}, "late"),
        ({"doi": "10.5281/zenodo.1"}, "undated"),
        ({"created": "2027-09-01"}, "undated"),
        ({"created": "2027-09-01T10:00:00"}, "undated"),  # no offset
        ({"created": "yesterday"}, "undated"),
        ({"created": None}, "undated"),
        ({"created": 1788000000}, "undated"),
    ],
)
def test_an_archive_record_counts_only_when_dated_by_the_annulment_date(
    record: dict[str, object] | None, state: str
) -> None:
    snapshot = Snapshot.of(DATES.snapshot_tag, None, record, DATES, date(2027, 12, 1))
    assert snapshot.archive_state == state
    assert snapshot.archive_counts is (state == "ok")
    assert snapshot.archived is (record is not None)


def test_a_snapshot_made_after_the_date_resolved_on_does_not_count_yet() -> None:
    record = {"id": "local-1", "created": "2027-09-10T09:00:00Z"}
    tag = _tag(datetime(2027, 9, 10, 9, tzinfo=UTC))
    before = Snapshot.of(DATES.snapshot_tag, tag, record, DATES, date(2027, 9, 8))
    assert (before.tag_state, before.archive_state) == ("after-as-of", "after-as-of")
    assert before.problems(DATES) == []  # not a problem: it was not made yet
    # The day it was made counts (the day ends at 12:00 UTC the next day).
    on_the_day = Snapshot.of(DATES.snapshot_tag, tag, record, DATES, date(2027, 9, 9))
    assert (on_the_day.tag_state, on_the_day.archive_state) == ("ok", "ok")


def test_late_and_undated_snapshots_are_snapshot_late_warnings() -> None:
    snapshot = Snapshot.of(
        DATES.snapshot_tag,
        _tag(None, annotated=False),
        {"id": "local-1", "created": "2027-10-01T09:00:00Z"},
        DATES,
        date(2027, 12, 1),
    )
    problems = snapshot.problems(DATES)
    assert [(f.code, f.severity, f.file) for f in problems] == [
        (Code.SNAPSHOT_LATE, Severity.WARNING, None)
    ] * 2
    assert "lightweight tag" in problems[0].message
    assert problems[1].message == (
        "the archive record of snapshot-2027-06-30 was created 2027-10-01T09:00:00Z, after the"
        " annulment date 2027-09-28 ended, so it never counts (docs/spec.md §5)"
    )


@pytest.mark.parametrize("state", ["lightweight", "undated", "late"])
def test_a_snapshot_that_does_not_count_never_rescues_the_market(state: Any) -> None:
    tagged_at = ANNULMENT_ENDS + SECOND if state == "late" else None
    snapshot = Snapshot(DATES.snapshot_tag, state, "missing", tagged_at)
    resolution = resolve_market(MARKET, DATES, YES, snapshot, AFTER_ANNULMENT)
    assert (resolution.state, resolution.outcome) == ("annulled", "ANNULLED")
    assert resolution.why.startswith("neither snapshot-2027-06-30 nor its archive copy counts")
    assert snapshot.problems(DATES)[0].message in resolution.warnings
    # Before the annulment date it is a warning, and the market resolves.
    closed = resolve_market(MARKET, DATES, YES, snapshot, CLOSED)
    assert (closed.state, closed.outcome) == ("closed", "YES")
    assert any("annulled after 2027-09-28 if neither counts" in w for w in closed.warnings)


def test_a_snapshot_reads_back_only_when_its_flags_agree_with_its_states() -> None:
    resolution = resolve_market(MARKET, DATES, YES, _snapshot(True, True), CLOSED)
    data = resolve_report_to_json(ResolveReport(CLOSED, (resolution,), ()))
    assert resolve_report_from_json(data).markets[0].snapshot == _snapshot(True, True)
    data["markets"][0]["snapshot"]["tag_counts"] = False
    with pytest.raises(ReportError):
        resolve_report_from_json(data)


def test_an_archive_record_of_another_tag_is_no_copy() -> None:
    # Review finding: snapshot-2027-06-30.json holding another tag's record rescued a market.
    record = {"id": "local-1", "tag": "snapshot-2027-07-31", "created": "2027-09-01T10:00:00Z"}
    snapshot = Snapshot.of(DATES.snapshot_tag, None, record, DATES, date(2027, 12, 1))
    assert (snapshot.archive_state, snapshot.archived) == ("missing", False)
    own = {**record, "tag": DATES.snapshot_tag}
    assert Snapshot.of(DATES.snapshot_tag, None, own, DATES, date(2027, 12, 1)).archive_counts


# Built, a resolution refuses what no resolution gives (ImpossibleVerdict); read back from a
# report, the same refusal is a ReportError naming the market.


def _closed_yes() -> MarketResolution:
    return resolve_market(MARKET, DATES, YES, _snapshot(True, True), CLOSED)


def test_an_invalid_attempt_summary_has_no_status() -> None:
    with pytest.raises(ImpossibleVerdict, match="has invalid evidence and a status"):
        AttemptSummary("attempts/market-03/lab/a", "invalid", "not-qualifying", None, ())


@pytest.mark.parametrize(("status", "outcome"), [("qualifying", None), ("not-qualifying", "met")])
def test_an_attempt_summary_has_an_outcome_when_qualifying(status: Any, outcome: Any) -> None:
    with pytest.raises(ImpossibleVerdict, match="outcome without qualifying status"):
        AttemptSummary("attempts/market-03/lab/a", "valid", status, outcome, ())


def test_the_provisional_outcome_is_the_three_way_rule() -> None:
    with pytest.raises(ImpossibleVerdict, match="give YES by the Three Way Rule"):
        replace(_closed_yes(), provisional="NO", outcome="NO")


@pytest.mark.parametrize(
    ("state", "outcome"),
    [("open", "YES"), ("filing-window", "YES"), ("closed", "NO"), ("closed", None)],
)
def test_the_outcome_follows_the_state(state: Any, outcome: Any) -> None:
    with pytest.raises(ImpossibleVerdict, match=f"state {state} with outcome {outcome}"):
        replace(_closed_yes(), state=state, outcome=outcome)


def test_market_dates_are_in_order() -> None:
    backwards = MarketDates(DATES.window_closes, DATES.resolve_by, DATES.annul_on)
    with pytest.raises(ImpossibleVerdict, match="out of order"):
        replace(_closed_yes(), dates=backwards)


@pytest.mark.parametrize(
    ("as_of", "snapshot"),
    [(AFTER_ANNULMENT, _snapshot(archived=True)), (CLOSED, _snapshot())],
    ids=["an archive copy counts", "before the annulment date"],
)
def test_annulled_only_late_and_with_no_snapshot(as_of: date, snapshot: Snapshot) -> None:
    annulled = resolve_market(MARKET, DATES, YES, _snapshot(), AFTER_ANNULMENT)
    assert annulled.outcome == "ANNULLED"
    with pytest.raises(ImpossibleVerdict, match="annulled only after 2027-09-28"):
        replace(annulled, as_of=as_of, snapshot=snapshot)


@pytest.mark.parametrize(
    ("tag_state", "tagged_at"),
    [("off-branch", TAGGED_AT), ("missing", TAGGED_AT), ("ok", None), ("late", None)],
)
def test_a_snapshot_keeps_a_tag_time_for_the_states_it_decides(
    tag_state: Any, tagged_at: datetime | None
) -> None:
    with pytest.raises(ImpossibleVerdict, match=f"tagged_at .* with state {tag_state}"):
        replace(_snapshot(), tag_state=tag_state, tagged_at=tagged_at)


@pytest.mark.parametrize(
    ("archive_state", "archived_at"), [("undated", TAGGED_AT), ("after-as-of", None)]
)
def test_a_snapshot_keeps_an_archive_time_for_the_states_it_decides(
    archive_state: Any, archived_at: datetime | None
) -> None:
    with pytest.raises(ImpossibleVerdict, match=f"archived_at .* with state {archive_state}"):
        replace(_snapshot(), archive_state=archive_state, archived_at=archived_at)


@pytest.mark.parametrize(
    ("state", "outcome", "as_of"),
    [
        ("closed", "YES", date(2027, 7, 15)),  # in the filing window
        ("closed", "YES", date(2027, 6, 1)),  # before resolve-by
        ("open", None, CLOSED),
        ("filing-window", None, date(2027, 6, 1)),
        ("filing-window", None, CLOSED),
    ],
)
def test_the_state_is_the_calendar_s_on_the_date_resolved(
    state: Any, outcome: Any, as_of: date
) -> None:
    # A market's state is its dates' state on `as_of` (annulled: closed, past the annulment
    # date): a market closed YES before its window closed is no resolution.
    with pytest.raises(ImpossibleVerdict, match=f"state {state} on {as_of}, its dates say"):
        replace(_closed_yes(), state=state, outcome=outcome, as_of=as_of)


@pytest.mark.parametrize(
    ("field", "state", "moment"),
    [
        ("tag", "ok", datetime(2027, 9, 29, 13, tzinfo=UTC)),  # after the annulment date
        ("tag", "late", TAGGED_AT),  # in time
        ("archive", "ok", datetime(2027, 9, 2, 13, tzinfo=UTC)),  # after the day resolved (AoE)
        ("archive", "after-as-of", TAGGED_AT),
    ],
)
def test_a_snapshot_s_time_decides_its_state_in_the_resolution(
    field: str, state: str, moment: datetime
) -> None:
    # Snapshot.of decides a dated tag's or record's state from its time, the market's dates
    # and the date resolved on: a resolution whose snapshot says otherwise is none the
    # resolver gives (a tag made after the annulment date that "counts" would save the market).
    at = {"tag": "tagged_at", "archive": "archived_at"}[field]
    snapshot = replace(_snapshot(True, True), **{f"{field}_state": state, at: moment})
    with pytest.raises(ImpossibleVerdict, match=f"snapshot {field} {state}, its time .* says"):
        replace(_closed_yes(), snapshot=snapshot)


def test_each_state_is_built_on_its_own_dates() -> None:
    for as_of in (date(2027, 6, 1), date(2027, 7, 15), CLOSED, AFTER_ANNULMENT):
        resolution = resolve_market(MARKET, DATES, YES, _snapshot(), as_of)
        assert resolution.state == ("annulled" if as_of > DATES.annul_on else DATES.state(as_of))


def test_a_snapshot_names_an_archive_record_only_when_there_is_one() -> None:
    with pytest.raises(ImpossibleVerdict, match="an archive reference with no record"):
        replace(_snapshot(), archive_ref="10.5281/zenodo.1")


def test_a_resolution_holds_tuples() -> None:
    resolution = replace(_closed_yes(), warnings=["a note"])  # type: ignore[arg-type]
    assert resolution.warnings == ("a note",) and isinstance(resolution.attempts, tuple)


@pytest.mark.parametrize(
    ("where", "field", "value", "says"),
    [
        ("market", "outcome", "NO", "^market 3: state closed with outcome NO, expected YES$"),
        ("market", "annul_on", "2027-08-01", "^market 3: resolve-by, .* out of order$"),
        ("attempt", "outcome", None, "^market 3: attempts/market-03/lab/a: outcome without"),
        ("market", "as_of", "2027-07-15", "^market 3: state closed on 2027-07-15, its dates say"),
    ],
)
def test_an_impossible_resolution_read_back_is_a_report_error(
    where: str, field: str, value: object, says: str
) -> None:
    # Past the schema, which cannot say these: the constructors refuse them.
    data = resolve_report_to_json(ResolveReport(CLOSED, (_closed_yes(),), ()))
    market = data["markets"][0]
    {"market": market, "attempt": market["attempts"][0]}[where][field] = value
    with pytest.raises(ReportError, match=says):
        resolve_report_from_json(data)

"""The close-windows plan: a pure function of each market's facts and the date."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from bot.app.resolutions import ResolutionRecord
from bot.edges.archive.port import ArchivedRecord, CopyState, DepositionState, StoredFile
from bot.faces.jobs.plan import CopyFact, MarketFacts, plan_close
from bot.vocab.commits import Tag
from bot.vocab.dates import MarketDates

DATES = MarketDates.of(date(2027, 6, 30), 60, 30)  # closes 2027-08-29, annulled after 09-28
TAG = DATES.snapshot_tag
CLOSE = "a" * 40
COPY = ArchivedRecord(
    TAG, "10.5072/zenodo.1", "1", "f.tar.gz", "md5:" + "0" * 32, datetime(2027, 9, 1, tzinfo=UTC)
)


def tag(commit: str = CLOSE, annotated: bool = True) -> Tag:
    return Tag(TAG, commit, annotated, datetime(2027, 9, 1, 6, tzinfo=UTC) if annotated else None)


def record(outcome: str = "YES", archive: bool = True) -> ResolutionRecord:
    data: dict[str, Any] = {
        "market": 3,
        "outcome": outcome,
        "snapshot": {"tag": TAG, "commit": CLOSE, "tagged_at": None, "state": "ok"},
        "archive": {"kind": "zenodo", **COPY.as_record()} if archive else None,
        "dates": {"annul_on": "2027-09-28"},
    }
    return ResolutionRecord(data)


def facts(**changes: Any) -> MarketFacts:
    values: dict[str, Any] = {
        "market": 3,
        "title": "t",
        "dates": DATES,
        "tag": None,
        "tag_on_branch": True,
        "close_commit": CLOSE,
    }
    return MarketFacts(**{**values, **changes})


def kinds(plan: Any) -> list[str]:
    (market,) = plan.markets
    return [step.kind for step in market.steps]


def phase(plan: Any) -> str:
    (market,) = plan.markets
    return str(market.phase)


def test_before_the_window_closes_nothing_is_planned() -> None:
    plan = plan_close([facts()], DATES.window_closes)
    assert (phase(plan), kinds(plan)) == ("waiting", [])


def test_a_closed_market_is_tagged_resolved_archived_recorded_and_announced() -> None:
    plan = plan_close([facts()], date(2027, 9, 1))
    assert phase(plan) == "close"
    assert kinds(plan) == ["tag", "resolve", "archive", "record", "commit", "issue"]
    assert "- tag: tag snapshot-2027-06-30 (annotated) on aaaaaaaaaaaa" in plan.render()


def test_a_tag_elsewhere_or_lightweight_blocks_the_market() -> None:
    for existing in (tag("b" * 40), tag(annotated=False)):
        plan = plan_close([facts(tag=existing)], date(2027, 9, 1))
        assert (phase(plan), kinds(plan)) == ("blocked", [])


def test_after_the_annulment_date_nothing_is_tagged_or_archived() -> None:
    plan = plan_close([facts()], date(2027, 9, 29))
    assert phase(plan) == "late-close"
    assert kinds(plan) == ["resolve", "record", "commit", "issue"]
    assert plan.markets[0].steps[-1].label == "annulled"


def test_one_copy_after_the_annulment_date_warns() -> None:
    plan = plan_close([facts(tag=tag())], date(2027, 9, 29))
    labels = [step.label for step in plan.markets[0].steps if step.kind == "issue"]
    assert labels == ["resolution", "registry-warning"]


def test_never_annulled_when_the_archive_could_not_be_asked() -> None:
    plan = plan_close([facts(copy=CopyFact(error="zenodo find: HTTP 500"))], date(2027, 9, 29))
    assert phase(plan) == "blocked" and "never annulled on an outage" in plan.markets[0].note


def test_a_recorded_market_is_watched_until_the_annulment_date() -> None:
    ok = CopyFact(checked=CopyState("ok"))
    plan = plan_close(
        [facts(tag=tag(), record=record(), record_committed=True, copy=ok)], date(2027, 9, 10)
    )
    assert (phase(plan), kinds(plan)) == ("watch", ["issue"])
    gone = CopyFact(checked=CopyState("missing", "record 1 answers 410"))
    plan = plan_close([facts(record=record(), record_committed=True, copy=gone)], date(2027, 9, 10))
    assert kinds(plan) == ["issue", "retag", "rearchive", "issue"]
    assert plan.markets[0].steps[-1].label == "registry-warning"


def test_a_replacement_copy_satisfies_the_watch() -> None:
    found = DepositionState("2", True, "10.5072/zenodo.2", "2", (StoredFile("f", "md5:1"),))
    copy = CopyFact(found=found, checked=CopyState("missing"))
    plan = plan_close(
        [facts(tag=tag(), record=record(), record_committed=True, copy=copy)], date(2027, 9, 10)
    )
    assert kinds(plan) == ["issue"]


def test_a_record_left_uncommitted_is_committed_and_final_after_the_watch() -> None:
    plan = plan_close([facts(tag=tag(), record=record())], date(2027, 10, 1))
    assert (phase(plan), kinds(plan)) == ("final", ["commit", "issue"])

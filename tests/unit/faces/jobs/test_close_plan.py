"""The close-windows plan: a pure function of each market's facts and the date."""

from __future__ import annotations

from datetime import date
from typing import Any

from bot.edges.archive.port import CopyState, DepositionState, StoredFile
from bot.faces.jobs.plan import CopyFact, plan_close
from tests.closing import (
    MARKET_3_DATES,
    market_facts,
    resolution_record,
    snapshot_tag,
)

TAG = MARKET_3_DATES.snapshot_tag


def kinds(plan: Any) -> list[str]:
    (market,) = plan.markets
    return [step.kind for step in market.steps]


def phase(plan: Any) -> str:
    (market,) = plan.markets
    return str(market.phase)


def test_before_the_window_closes_nothing_is_planned() -> None:
    plan = plan_close([market_facts()], MARKET_3_DATES.window_closes)
    assert (phase(plan), kinds(plan)) == ("waiting", [])


def test_a_closed_market_is_tagged_resolved_archived_recorded_and_announced() -> None:
    plan = plan_close([market_facts()], date(2027, 9, 1))
    assert phase(plan) == "close"
    assert kinds(plan) == ["tag", "resolve", "archive", "record", "commit", "issue"]
    assert "- tag: tag snapshot-2027-06-30 (annotated) on aaaaaaaaaaaa" in plan.render()


def test_a_tag_elsewhere_or_lightweight_blocks_the_market() -> None:
    for existing in (snapshot_tag("b" * 40), snapshot_tag(annotated=False)):
        plan = plan_close([market_facts(tag=existing)], date(2027, 9, 1))
        assert (phase(plan), kinds(plan)) == ("blocked", [])


def test_after_the_annulment_date_nothing_is_tagged_or_archived() -> None:
    plan = plan_close([market_facts()], date(2027, 9, 29))
    assert phase(plan) == "late-close"
    assert kinds(plan) == ["resolve", "record", "commit", "issue"]
    assert plan.markets[0].steps[-1].label == "annulled"


def test_one_copy_after_the_annulment_date_warns() -> None:
    plan = plan_close([market_facts(tag=snapshot_tag())], date(2027, 9, 29))
    labels = [step.label for step in plan.markets[0].steps if step.kind == "issue"]
    assert labels == ["resolution", "registry-warning"]


def test_never_annulled_when_the_archive_could_not_be_asked() -> None:
    plan = plan_close(
        [market_facts(copy=CopyFact(error="zenodo find: HTTP 500"))], date(2027, 9, 29)
    )
    assert phase(plan) == "blocked" and "never annulled on an outage" in plan.markets[0].note


def test_a_recorded_market_is_watched_until_the_annulment_date() -> None:
    ok = CopyFact(checked=CopyState("ok"))
    plan = plan_close(
        [
            market_facts(
                tag=snapshot_tag(), record=resolution_record(), record_committed=True, copy=ok
            )
        ],
        date(2027, 9, 10),
    )
    assert (phase(plan), kinds(plan)) == ("watch", ["issue"])
    gone = CopyFact(checked=CopyState("missing", "record 1 answers 410"))
    plan = plan_close(
        [market_facts(record=resolution_record(), record_committed=True, copy=gone)],
        date(2027, 9, 10),
    )
    assert kinds(plan) == ["issue", "retag", "rearchive", "issue"]
    assert plan.markets[0].steps[-1].label == "registry-warning"


def test_a_replacement_copy_satisfies_the_watch() -> None:
    found = DepositionState("2", True, "10.5072/zenodo.2", "2", (StoredFile("f", "md5:1"),))
    copy = CopyFact(found=found, checked=CopyState("missing"))
    plan = plan_close(
        [
            market_facts(
                tag=snapshot_tag(), record=resolution_record(), record_committed=True, copy=copy
            )
        ],
        date(2027, 9, 10),
    )
    assert kinds(plan) == ["issue"]


def test_a_record_left_uncommitted_is_committed_and_final_after_the_watch() -> None:
    plan = plan_close(
        [market_facts(tag=snapshot_tag(), record=resolution_record())], date(2027, 10, 1)
    )
    assert (phase(plan), kinds(plan)) == ("final", ["commit", "issue"])

"""A market's calendar (bot.dates) and the human checks an attempt needs (required_checks)."""

from __future__ import annotations

from datetime import UTC, date, datetime, timedelta, timezone

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.dates import MarketDates, end_of_day
from bot.demo.specimen import load_market, market_document
from bot.load.yaml_ import parse_yaml
from bot.models import Market, SharedRules
from bot.qualification import required_checks
from bot.timestamps import parse_timestamp
from tests.support import RULES


def _rules() -> SharedRules:
    document, _ = parse_yaml(RULES, "shared-rules/common-v1.yaml")
    assert document is not None
    rules, problems = SharedRules.from_document(document)
    assert rules is not None, problems
    return rules


SHARED = _rules()
ALL = ("reconstructible", "per-instance-certificate", "not-toy-only", "broadly-capable")

# ---- end of day, Anywhere on Earth ----------------------------------------------------------


def test_end_of_day_is_noon_utc_the_next_day() -> None:
    assert end_of_day(date(2027, 6, 30)) == datetime(2027, 7, 1, 12, 0, tzinfo=UTC)
    assert end_of_day(date(2027, 12, 31)) == datetime(2028, 1, 1, 12, 0, tzinfo=UTC)
    assert end_of_day(date(2028, 2, 28)) == datetime(2028, 2, 29, 12, 0, tzinfo=UTC)


def test_end_of_day_is_midnight_at_utc_minus_12() -> None:
    aoe = timezone(timedelta(hours=-12))
    assert end_of_day(date(2027, 6, 30)) == datetime(2027, 7, 1, 0, 0, tzinfo=aoe)
    moment = end_of_day(date(2027, 6, 30))
    assert moment.utcoffset() == timedelta(0)


def test_the_last_second_of_r_anywhere_is_by_r() -> None:
    last = parse_timestamp("2027-06-30T23:59:59-12:00")
    after = parse_timestamp("2027-07-01T00:00:01-12:00")
    assert last is not None and after is not None
    assert last <= end_of_day(date(2027, 6, 30)) < after
    # Already 1 July in UTC and in Kiribati (UTC+14) at that moment, yet still on time.
    assert parse_timestamp("2027-07-01T11:59:59Z") == last
    assert parse_timestamp("2027-07-02T01:59:59+14:00") == last


@given(st.dates(min_value=date(2000, 1, 1), max_value=date(2999, 12, 30)))
def test_end_of_day_is_after_every_time_zone_s_day(day: date) -> None:
    moment = end_of_day(day)
    for hours in range(-12, 15):
        zone = timezone(timedelta(hours=hours))
        end_there = datetime.combine(day + timedelta(days=1), datetime.min.time(), tzinfo=zone)
        assert end_there <= moment
    assert moment - timedelta(seconds=1) < datetime.combine(
        day + timedelta(days=1), datetime.min.time(), tzinfo=timezone(timedelta(hours=-12))
    )


# ---- MarketDates ----------------------------------------------------------------------------


def test_market_dates_from_the_shared_rules() -> None:
    dates = MarketDates.of(date(2027, 6, 30), SHARED.window_days, SHARED.annul_after_days)
    assert (SHARED.window_days, SHARED.annul_after_days) == (60, 30)
    assert dates.resolve_by == date(2027, 6, 30)
    assert dates.window_closes == date(2027, 8, 29)
    assert dates.annul_on == date(2027, 9, 28)
    assert dates.snapshot_tag == "snapshot-2027-06-30"


def test_snapshot_tag_pads_month_and_day() -> None:
    assert MarketDates.of(date(2028, 1, 5), 60, 30).snapshot_tag == "snapshot-2028-01-05"


def test_window_crosses_a_year_and_a_leap_day() -> None:
    dates = MarketDates.of(date(2027, 12, 31), 60, 30)
    assert dates.window_closes == date(2028, 2, 29)
    assert dates.annul_on == date(2028, 3, 30)


@pytest.mark.parametrize(
    ("as_of", "state"),
    [
        (date(2027, 1, 1), "open"),
        (date(2027, 6, 30), "open"),
        (date(2027, 7, 1), "filing-window"),
        (date(2027, 8, 29), "filing-window"),
        (date(2027, 8, 30), "closed"),
        (date(2027, 9, 29), "closed"),  # annulment is resolution's call, not the calendar's
    ],
)
def test_state_by_date(as_of: date, state: str) -> None:
    assert MarketDates.of(date(2027, 6, 30), 60, 30).state(as_of) == state


@given(
    st.dates(min_value=date(2020, 1, 1), max_value=date(2900, 1, 1)),
    st.integers(1, 400),
    st.integers(1, 400),
    st.integers(-500, 1000),
)
def test_states_follow_in_order(resolve_by: date, window: int, annul: int, offset: int) -> None:
    dates = MarketDates.of(resolve_by, window, annul)
    assert dates.resolve_by < dates.window_closes < dates.annul_on
    as_of = resolve_by + timedelta(days=offset)
    order = ["open", "filing-window", "closed"]
    now = order.index(dates.state(as_of))
    assert order.index(dates.state(as_of + timedelta(days=1))) >= now
    assert (dates.state(as_of) == "open") == (offset <= 0)
    assert (dates.state(as_of) == "closed") == (offset > window)


# ---- required_checks ------------------------------------------------------------------------


def _market(number: int, budget: str) -> Market:
    return load_market(market_document(number, budget), SHARED)


def test_default_run_needs_the_four_common_checks() -> None:
    assert required_checks(SHARED, _market(3, "default"), "run") == ALL


def test_challenge_needs_the_common_checks_only() -> None:
    assert required_checks(SHARED, _market(3, "default"), "challenge") == ALL


def test_wrapped_adds_wrapping_within_rules() -> None:
    checks = required_checks(SHARED, _market(3, "default"), "wrapped")
    assert checks == (*ALL, "wrapping-within-rules")


def test_serious_market_adds_the_adversarial_route_check() -> None:
    checks = required_checks(SHARED, _market(5, "serious"), "run")
    assert checks == (*ALL, "adversarial-route-serious")


def test_wrapped_attempt_in_a_serious_market_needs_both() -> None:
    checks = required_checks(SHARED, _market(5, "serious"), "wrapped")
    assert set(checks) == {*ALL, "wrapping-within-rules", "adversarial-route-serious"}
    assert len(checks) == len(set(checks)) == 6


def test_checks_come_from_the_shared_rules() -> None:
    assert SHARED.checks_all == ALL
    assert SHARED.checks_wrapped == ("wrapping-within-rules",)
    assert SHARED.checks_serious == ("adversarial-route-serious",)

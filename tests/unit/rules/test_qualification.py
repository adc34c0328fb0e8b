"""A market's calendar (bot.vocab.dates) and the human checks an attempt needs (required_checks)."""

from __future__ import annotations

from collections.abc import Callable
from datetime import UTC, date, datetime, timedelta, timezone
from typing import Any

import pytest
import yaml
from hypothesis import given
from hypothesis import strategies as st

from bot.faces.demo.specimen import AttemptSpec, attempt_files, load_market, market_document
from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.models import Attempt, Trial
from bot.rules.evidence.schema import validate
from bot.rules.evidence.trials import check_trials
from bot.rules.models import Market
from bot.rules.qualification import Evidence, qualify, required_checks
from bot.rules.records import CertificateSummary, TrialSummary, summarize_units
from bot.rules.stats.units import collapse_units
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.document import Document, Record
from bot.vocab.findings import Code
from bot.vocab.timestamps import format_timestamp, parse_timestamp
from tests.support import records, shared_rules

SHARED = shared_rules()
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


# ---- the adversarial budget (issue "Verdict integrity", 8) ------------------------------------
#
# qualify() on an honest specimen whose attempt.yaml is edited as data; only the
# `adversarial-budget` reasons are looked at. Thresholds are read from the shared rules, so each
# boundary is tested at, just below and just above the number the rules state.

ROUTES = SHARED.adversarial
DEFAULT = SHARED.adversarial.default
FIRST_TRIAL = AttemptSpec().first_trial_at
FROZEN = AttemptSpec().frozen_at


def _evidence(
    spec: AttemptSpec, edit: Callable[[dict[str, Any]], None] | None
) -> tuple[Evidence, list[Trial]]:
    files = attempt_files(spec)
    data = yaml.safe_load(files["attempt.yaml"])
    if edit is not None:
        edit(data)
    assert validate("attempt", data, "attempt.yaml") == []
    cases, _ = check_cases(
        [Record(n, r) for n, r in enumerate(records(files, "freeze-cases.jsonl"), 1)], "c"
    )
    trials, _ = check_trials(
        [Record(n, r) for n, r in enumerate(records(files, "trials.jsonl"), 1)],
        cases,
        SHARED.unit_keys,
        "t",
    )
    evidence = Evidence(
        folder=spec.folder,
        attempt=Attempt.from_document(Document("attempt.yaml", data)),
        trials=TrialSummary.of(trials, cases),
        certificates=CertificateSummary.of((), trials),
        scores=None,
        judgments=None,
        digest="0" * 64,
        filed_at=None,
    )
    return evidence, trials


def _budget(
    edit: Callable[[dict[str, Any]], None] | None = None,
    budget: str = "serious",
    spec: AttemptSpec | None = None,
    **market: Any,
) -> list[str]:
    number = {"default": 3, "serious": 5, "own": 20}[budget]
    contract = load_market(market_document(number, budget, **market), SHARED)
    evidence, trials = _evidence(spec or AttemptSpec(market=number), edit)
    units = summarize_units(collapse_units([trial.keys for trial in trials], contract.unit_keys))
    result = qualify(evidence, contract, SHARED, [], units, {}, date(2027, 4, 15))
    return [r.message for r in result.reasons if r.code is Code.ADVERSARIAL_BUDGET]


def _stamp(moment: datetime) -> str:
    return format_timestamp(moment)


def _no_red_teams(data: dict[str, Any]) -> None:
    data["adversarial"]["red_teams"] = []


def _bounty(**changes: Any) -> Callable[[dict[str, Any]], None]:
    listed = FROZEN + timedelta(days=1)
    bounty = {
        "url": "https://bounty.example.org/monitor",
        "usd": ROUTES.bounty.min_usd,
        "listed_at": _stamp(listed),
        "closed_at": _stamp(listed + timedelta(days=ROUTES.bounty.min_days_open)),
        "rules_frozen_at": _stamp(listed),
        "qualifying_submissions": ROUTES.bounty.min_qualifying_submissions,
    }
    bounty.update(changes)

    def edit(data: dict[str, Any]) -> None:
        _no_red_teams(data)
        data["adversarial"]["bounty"] = bounty

    return edit


def _generator(**changes: Any) -> Callable[[dict[str, Any]], None]:
    generator = {
        "name": "planted-fault generator v2",
        "frozen_at": _stamp(FIRST_TRIAL - timedelta(days=1)),
        "planted": 100,
        "planted_found": round(ROUTES.generator.min_planted_found * 100),
        "independent_hours": ROUTES.generator.min_independent_hours,
        "access": "black-box",
    }
    generator.update(changes)

    def edit(data: dict[str, Any]) -> None:
        _no_red_teams(data)
        data["adversarial"]["generator"] = generator

    return edit


def test_the_honest_serious_specimen_meets_the_serious_budget() -> None:
    assert _budget(spec=AttemptSpec(market=5, adversarial="serious")) == []


def test_no_route_at_all_is_refused() -> None:
    (message,) = _budget(_no_red_teams)
    assert message.startswith("serious budget: no route met")


# Bounty: USD, days open, qualifying submissions, rules frozen no later than listing.
LISTED = FROZEN + timedelta(days=1)
DAYS = timedelta(days=ROUTES.bounty.min_days_open)
SECOND = timedelta(seconds=1)
BOUNTY_CASES = [
    ("usd at the minimum", {}, True),
    ("usd just below", {"usd": ROUTES.bounty.min_usd - 0.01}, False),
    ("usd above", {"usd": ROUTES.bounty.min_usd + 1}, True),
    ("open exactly the minimum", {"closed_at": _stamp(LISTED + DAYS)}, True),
    ("open a second less", {"closed_at": _stamp(LISTED + DAYS - SECOND)}, False),
    ("open a second more", {"closed_at": _stamp(LISTED + DAYS + SECOND)}, True),
    ("submissions at the minimum", {}, True),
    (
        "submissions below",
        {"qualifying_submissions": ROUTES.bounty.min_qualifying_submissions - 1},
        False,
    ),
    (
        "submissions above",
        {"qualifying_submissions": ROUTES.bounty.min_qualifying_submissions + 1},
        True,
    ),
    ("rules frozen at listing", {"rules_frozen_at": _stamp(LISTED)}, True),
    ("rules frozen a second after listing", {"rules_frozen_at": _stamp(LISTED + SECOND)}, False),
    ("rules frozen before listing", {"rules_frozen_at": _stamp(LISTED - SECOND)}, True),
    # Review finding: a closing date in the future made any bounty "open 60 days".
    ("closes after the date judged", {"closed_at": "2099-12-31T00:00:00Z"}, False),
]


@pytest.mark.parametrize(
    ("changes", "met"), [c[1:] for c in BOUNTY_CASES], ids=[c[0] for c in BOUNTY_CASES]
)
def test_the_bounty_route_at_each_boundary(changes: dict[str, Any], met: bool) -> None:
    assert (_budget(_bounty(**changes)) == []) is met


# Generator: planted found rate, independent hours, access, frozen before the first trial.
FOUND = ROUTES.generator.min_planted_found
HOURS = ROUTES.generator.min_independent_hours
GENERATOR_CASES = [
    ("found rate at the minimum", {"planted": 10, "planted_found": round(FOUND * 10)}, True),
    ("found rate just below", {"planted": 1000, "planted_found": round(FOUND * 1000) - 1}, False),
    ("found rate just above", {"planted": 1000, "planted_found": round(FOUND * 1000) + 1}, True),
    ("hours at the minimum", {"independent_hours": HOURS}, True),
    ("hours just below", {"independent_hours": HOURS - 0.5}, False),
    ("hours above", {"independent_hours": HOURS + 0.5}, True),
    ("frozen a second before the first trial", {"frozen_at": _stamp(FIRST_TRIAL - SECOND)}, True),
    ("frozen at the first trial", {"frozen_at": _stamp(FIRST_TRIAL)}, False),
    ("frozen after the first trial", {"frozen_at": _stamp(FIRST_TRIAL + SECOND)}, False),
]


@pytest.mark.parametrize(
    ("changes", "met"), [c[1:] for c in GENERATOR_CASES], ids=[c[0] for c in GENERATOR_CASES]
)
def test_the_generator_route_at_each_boundary(changes: dict[str, Any], met: bool) -> None:
    assert (_budget(_generator(**changes)) == []) is met


@pytest.mark.parametrize(
    ("generator_access", "market_access", "met"),
    [
        ("black-box", "grey-box", False),
        ("grey-box", "grey-box", True),
        ("white-box", "grey-box", True),
    ],
)
def test_the_generator_s_access_is_at_least_the_market_s(
    generator_access: str, market_access: str, met: bool
) -> None:
    def edit(data: dict[str, Any]) -> None:
        _generator(access=generator_access)(data)
        data["assumed_access"] = "white-box"  # the attempt's own claim is not what is tested

    assert (_budget(edit, assumed_access=market_access) == []) is met


# Red teams: groups, organizations, hours each; and the default budget's group and total hours.
def _teams(*teams: tuple[str, str, float]) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        data["adversarial"]["red_teams"] = [
            {
                "name": name,
                "organization": organization,
                "independent": True,
                "hours": hours,
                "access": "black-box",
                "started_at": _stamp(FROZEN + timedelta(days=2)),
            }
            for name, organization, hours in teams
        ]

    return edit


EACH = ROUTES.red_teams.min_hours_each


def test_three_groups_from_two_organizations_meet_the_red_team_route() -> None:
    assert _budget(_teams(("A", "Org 1", EACH), ("B", "Org 2", EACH), ("C", "Org 1", EACH))) == []


def test_a_group_just_below_its_hours_does_not_count() -> None:
    edit = _teams(("A", "Org 1", EACH), ("B", "Org 2", EACH), ("C", "Org 1", EACH - 0.5))
    assert _budget(edit) != []


def test_one_red_team_listed_three_times_is_one_group() -> None:
    edit = _teams(
        ("Red team 1", "Org 1", EACH),
        ("red team 1 ", "ORG 1", EACH),  # the same group, written differently
        ("Red team 2", "Org 2", EACH),
    )
    messages = _budget(edit)
    assert "red teams: 2 distinct group(s) with at least 80 h < 3" in messages


def test_a_listed_twice_group_s_hours_are_not_added_up() -> None:
    half = DEFAULT.min_hours_total / 2
    edit = _teams(("Red team 1", "Org 1", half), ("Red team 1", "Org 1", half))
    (message,) = _budget(edit, budget="default")
    assert message == f"default budget: {half:g} h < 40 h in total (over 1 counting group(s))"


def test_the_default_budget_at_its_boundary() -> None:
    total = DEFAULT.min_hours_total
    assert _budget(_teams(("A", "Org 1", total)), budget="default") == []
    assert _budget(_teams(("A", "Org 1", total - 0.5)), budget="default") != []
    assert _budget(_teams(("A", "Org 1", total / 2), ("B", "Org 2", total / 2)), "default") == []


def test_a_default_market_accepts_a_serious_route() -> None:
    # The stronger evidence: a bounty (no red team at all) on a market that needs the default.
    assert _budget(_bounty(), budget="default") == []
    assert _budget(_generator(), budget="default") == []
    assert _budget(_bounty(usd=1), budget="default") == [
        "default budget: 0 counting red-team group(s) < 1",
        "default budget: 0 h < 40 h in total (over 0 counting group(s))",
        "bounty: USD 1 < 10,000",
    ]


# Market 20 states its own attack protocol.
PROTOCOL = {"rounds": 5, "access": "white-box", "attackers": "two independent teams"}


def _own(protocol: dict[str, Any] | None) -> Callable[[dict[str, Any]], None]:
    def edit(data: dict[str, Any]) -> None:
        if protocol is None:
            data["adversarial"].pop("protocol", None)
        else:
            data["adversarial"]["protocol"] = protocol

    return edit


def test_an_own_protocol_followed_as_stated_is_accepted() -> None:
    report = {**PROTOCOL, "report_url": "https://reports.example.org/attack"}
    assert _budget(_own(report), budget="own", attack_protocol=PROTOCOL) == []


def test_an_own_protocol_with_other_terms_is_refused() -> None:
    (message,) = _budget(_own({**PROTOCOL, "rounds": 2}), budget="own", attack_protocol=PROTOCOL)
    assert message == (
        "own attack protocol: adversarial.protocol.rounds is 2, the market's attack_protocol"
        " states 5"
    )


def test_an_own_protocol_that_leaves_a_term_out_is_refused() -> None:
    partial = {k: v for k, v in PROTOCOL.items() if k != "attackers"}
    (message,) = _budget(_own(partial), budget="own", attack_protocol=PROTOCOL)
    assert "adversarial.protocol.attackers is missing" in message


def test_own_markets_need_the_own_protocol_check() -> None:
    market = load_market(market_document(20, "own", attack_protocol=PROTOCOL), SHARED)
    assert required_checks(SHARED, market, "run") == (*ALL, "own-protocol-followed")
    assert SHARED.checks_own == ("own-protocol-followed",)


# Issue 11 item 3: every failing requirement is its own message, per team and per route.
def test_each_failing_requirement_of_a_serious_route_is_named_separately() -> None:
    def edit(data: dict[str, Any]) -> None:
        _generator(planted=20, planted_found=15, independent_hours=200)(data)
        _teams(("X", "Org 1", 60), ("Y", "Org 1", EACH), ("Z", "Org 1", 90))(data)
        data["adversarial"]["red_teams"][2]["independent"] = False

    assert _budget(edit) == [
        "serious budget: no route met (red teams, bounty or generator); not reported: bounty",
        "red teams: team 'Z' (Org 1): not independent of the method's authors",
        "red teams: team 'X' (Org 1): 60 h < 80 h",
        "red teams: 1 distinct group(s) with at least 80 h < 3",
        "red teams: 1 organization(s) among them < 2",
        "generator: 15 of 20 found = 75% < 80%",
        "generator: 200 independent h < 300 h",
    ]


def test_a_red_team_failing_several_requirements_gets_one_message_each() -> None:
    def edit(data: dict[str, Any]) -> None:
        _teams(("X", "Org 1", 48))(data)
        team = data["adversarial"]["red_teams"][0]
        team.update(independent=False, started_at=_stamp(FROZEN - timedelta(days=1)))

    messages = _budget(edit, budget="default", assumed_access="grey-box")
    assert messages[1:] == [
        "default budget: 0 counting red-team group(s) < 1",
        "default budget: 0 h < 40 h in total (over 0 counting group(s))",
        "team 'X' (Org 1): not independent of the method's authors",
        "team 'X' (Org 1): access black-box < the market's grey-box",
        "team 'X' (Org 1): started 2027-01-09T12:00:00+00:00, not after"
        " adversarial.access_frozen_at (2027-01-10T12:00:00+00:00)",
    ]
    assert messages[0].startswith("the attack's access")


def test_a_failing_bounty_names_each_threshold() -> None:
    edit = _bounty(usd=5000.5, qualifying_submissions=0, rules_frozen_at=_stamp(LISTED + DAYS))
    assert _budget(edit)[1:] == [
        "bounty: USD 5,000.5 < 10,000",
        f"bounty: rules frozen {(LISTED + DAYS).isoformat()}, after its listing"
        f" {LISTED.isoformat()}",
        "bounty: 0 qualifying submission(s) < 1",
    ]


@pytest.mark.parametrize("reported", [[1, 1], [1, True], [{"a": 1}, True]], ids=str)
def test_an_own_protocol_term_retyped_inside_a_list_is_refused(reported: Any) -> None:
    """JSON's true is not 1 at any depth (issue 21, item 4): `[true, true]` reported as
    `[1, 1]` was the same term to Python's `==`."""
    stated = {**PROTOCOL, "blind": [{"a": True} if isinstance(reported[0], dict) else True, True]}
    report = {**stated, "blind": reported}
    (message,) = _budget(_own(report), budget="own", attack_protocol=stated)
    assert "adversarial.protocol.blind is" in message

"""Qualification (docs/spec.md §7, seed "Qualifying Attempt"): is an attempt with valid evidence one
that counts, and did it meet the bars?

A pure function of checked evidence, the market, the shared rules, the attempt's filing time
and the date it is judged on (`as_of`): it reads no clock and no file. Every unmet condition is
a finding with its reason code; none of them makes a NO: only the bars decide YES versus NO
for a qualifying attempt (seed, "Judgment Stack").
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from fractions import Fraction

from bot.rules.evidence.models import (
    Attempt,
    Bounty,
    Generator,
    Judgment,
    RedTeam,
)
from bot.rules.models import (
    BountyRoute,
    DefaultBudget,
    GeneratorRoute,
    Market,
    RedTeamRoute,
    SharedRules,
)
from bot.rules.records import CertificateSummary, TrialSummary
from bot.rules.score_table import ScoreTable
from bot.rules.verdict import (
    AttemptOutcome,
    BarResult,
    CheckState,
    CheckStateName,
    Status,
    UnitSummary,
    frozen_map,
)
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.findings import Code, Finding
from bot.vocab.names import fold_name
from bot.vocab.timestamps import parse_date, parse_timestamp
from bot.vocab.values import JSONObject, JSONValue, json_equal

__all__ = ["Evidence", "Qualification", "distinct_groups", "qualify", "required_checks"]


@dataclass(frozen=True)
class Evidence:
    """What qualification looks at, all checked already by the evidence stage."""

    folder: str
    attempt: Attempt
    trials: TrialSummary  # the checked trials: count, systems, families, first start
    certificates: CertificateSummary  # certificates.jsonl against the tested systems
    scores: JSONObject | None  # scores.yaml, None when absent
    judgments: Mapping[str, Judgment] | None  # judgments.yaml's checks, None when absent
    digest: str
    filed_at: datetime | None  # when the evidence landed on main; None: not (all) merged
    # judgments.yaml's checks as they stood on main when the filing window closed (read from
    # git; None when there was no such file then). Once the window has closed, only these
    # count: a later edit can neither add a judgment nor undo one recorded in time.
    judgments_at_close: Mapping[str, Judgment] | None = None
    # Wrapped: the adapter was rerun on this evidence (digest) and reproduced it. Without such
    # a rerun the evidence is unverified and the attempt cannot count (docs/spec.md §9).
    adapter_rerun: bool = False

    @property
    def kind(self) -> str:
        return self.attempt.kind


@dataclass(frozen=True)
class Qualification:
    """The verdict on an attempt with valid evidence."""

    status: Status
    outcome: AttemptOutcome | None
    reasons: tuple[Finding, ...]
    checks: Mapping[str, CheckState]  # read-only (`frozen_map`)
    units: UnitSummary


def required_checks(rules: SharedRules, market: Market, kind: str) -> tuple[str, ...]:
    """The human checks an attempt needs: all, + wrapped, + serious, + own (docs/spec.md §8; `own`
    is the registry's addition for market 20, docs/spec-notes.md)."""
    checks = list(rules.checks_all)
    if kind == "wrapped":
        checks += rules.checks_wrapped
    if market.adversarial_budget == "serious":
        checks += rules.checks_serious
    if market.adversarial_budget == "own":
        checks += rules.checks_own
    return tuple(checks)


class _Reasons:
    def __init__(self, evidence: Evidence) -> None:
        self.evidence = evidence
        self.items: list[Finding] = []

    def add(
        self, code: Code, message: str, file: str = "attempt.yaml", key: str | None = None
    ) -> None:
        line = self.evidence.attempt.lines.get(key) if key else None
        self.items.append(Finding(code, message, f"{self.evidence.folder}/{file}", line))


def _floors(reasons: _Reasons, evidence: Evidence, market: Market, units: UnitSummary) -> None:
    trials = evidence.trials
    if units.count < market.min_units:
        reasons.add(
            Code.SAMPLE_SIZE,
            f"{units.count} independent units over all scored trials"
            f" (from {trials.count} trials), the market needs {market.min_units}"
            + "".join(f"; {text}" for text in units.formation),
            "trials.jsonl",
        )
    # Names are compared folded (bot/vocab/names.py): `Sim-Model-A` and `sim-model-a ` are one.
    if trials.systems < market.min_systems:
        reasons.add(
            Code.SYSTEMS_FLOOR,
            f"{trials.systems} distinct systems, the market needs {market.min_systems}",
            "trials.jsonl",
        )
    families = trials.families
    missing = sorted(
        family for family in market.required_families if fold_name(family) not in families
    )
    if len(families) < market.min_families or missing:
        detail = f"; required families not scored: {', '.join(missing)}" if missing else ""
        reasons.add(
            Code.FAMILY_COVERAGE,
            f"{len(families)} families scored, the market needs {market.min_families}{detail}",
            "trials.jsonl",
        )


def _bars(reasons: _Reasons, bars: Sequence[BarResult]) -> None:
    for result in bars:
        if not result.exercised:
            code = Code.BAR_REFUSED if result.refused else Code.BAR_NOT_EXERCISED
            reasons.add(code, f"bar {result.bar_id!r}: {result.note}", "trials.jsonl")


def distinct_groups(teams: Sequence[RedTeam]) -> list[RedTeam]:
    """Each red-team group once, by its folded name and organization.

    A group listed more than once keeps its largest hours: listings are never added up, so
    the same team written three times (or as `Red team 1` and `red team 1 `) is one group.
    """
    groups: dict[tuple[str, str], RedTeam] = {}
    for team in teams:
        key = (fold_name(team.name), fold_name(team.organization))
        if key not in groups or team.hours > groups[key].hours:
            groups[key] = team
    return list(groups.values())


def _adversarial_problems(
    attempt: Attempt,
    first_trial: datetime | None,
    market: Market,
    rules: SharedRules,
    closed_by: datetime | None = None,
) -> list[str]:
    """Why the attack evidence does not meet the market's adversarial budget (empty: it does),
    one message per failing requirement: per red team, per route, per threshold.

    `default`: one independent red-team group and the total hours of the shared rules, or any
    serious route (the stronger evidence, docs/spec-notes.md). `serious`: any route of the
    shared rules (red teams, bounty, generator). `own` (market 20): the attempt reports every
    term of the market's `attack_protocol` unchanged. Always: the attack's access at least the
    market's assumed access. Red teams count once each, with access frozen before they
    started and at least the market's.
    """
    adversarial = attempt.adversarial
    need = rules.access_rank(market.assumed_access)
    problems: list[str] = []
    if rules.access_rank(attempt.assumed_access) < need:
        problems.append(
            f"the attack's access {attempt.assumed_access!r} is weaker"
            f" than the market's assumed {market.assumed_access!r}"
        )
    if market.adversarial_budget == "own":
        if not adversarial.protocol:
            problems.append(
                "the market states its own attack protocol; adversarial.protocol must"
                " report how it was followed"
            )
        else:
            problems += [
                f"own attack protocol: {problem}"
                for problem in _protocol_differences(
                    market.attack_protocol or {}, adversarial.protocol
                )
            ]
        return problems
    if market.adversarial_budget not in ("default", "serious"):
        return problems
    # Teams that do not count, each requirement it fails its own message.
    excluded: list[str] = []
    counting: list[RedTeam] = []
    for team in adversarial.red_teams:
        failing = team_problems(team, adversarial.access_frozen_at, market, rules)
        excluded += failing
        if not failing:
            counting.append(team)
    groups = distinct_groups(counting)
    routes = rules.adversarial
    red = red_team_problems(groups, routes.red_teams)
    bounty = (
        bounty_problems(adversarial.bounty, routes.bounty, closed_by)
        if adversarial.bounty is not None
        else None
    )
    generator = (
        generator_problems(adversarial.generator, routes.generator, rules, market, first_trial)
        if adversarial.generator is not None
        else None
    )
    serious_met = not red or bounty == [] or generator == []
    if serious_met:
        return problems
    reported = [f"bounty: {p}" for p in bounty or []] + [f"generator: {p}" for p in generator or []]
    if market.adversarial_budget == "default":
        shortfalls = default_problems(groups, routes.default)
        if not shortfalls:
            return problems
        return [*problems, *shortfalls, *excluded, *reported]
    missing = [name for name, found in (("bounty", bounty), ("generator", generator)) if not found]
    if not adversarial.red_teams:
        missing.insert(0, "red teams")
    summary = "serious budget: no route met (red teams, bounty or generator)"
    if missing:
        summary += f"; not reported: {', '.join(missing)}"
    red_teams = [f"red teams: {p}" for p in [*excluded, *red]] if adversarial.red_teams else []
    return [*problems, summary, *red_teams, *reported]


def default_problems(groups: Sequence[RedTeam], rule: DefaultBudget) -> list[str]:
    """The default budget's unmet requirements over the counting groups (empty: met)."""
    hours = sum(team.hours for team in groups)
    shortfalls = []
    if len(groups) < rule.min_groups:
        shortfalls.append(
            f"default budget: {len(groups)} counting red-team group(s) < {rule.min_groups}"
        )
    if hours < rule.min_hours_total:
        shortfalls.append(
            f"default budget: {hours:g} h < {rule.min_hours_total:g} h in total"
            f" (over {len(groups)} counting group(s))"
        )
    return shortfalls


def _team_name(team: RedTeam) -> str:
    return f"team {team.name!r} ({team.organization})"


def team_problems(
    team: RedTeam, frozen: datetime | None, market: Market, rules: SharedRules
) -> list[str]:
    """Why a listed red team does not count at all (empty: it counts)."""
    name = _team_name(team)
    problems = []
    if not team.independent:
        problems.append(f"{name}: not independent of the method's authors")
    if rules.access_rank(team.access) < rules.access_rank(market.assumed_access):
        problems.append(f"{name}: access {team.access} < the market's {market.assumed_access}")
    started = team.started_at
    if frozen is None or started is None or not frozen < started:
        when = started.isoformat() if started else "at an unreadable time"
        since = frozen.isoformat() if frozen else "an unreadable time"
        problems.append(f"{name}: started {when}, not after adversarial.access_frozen_at ({since})")
    return problems


def red_team_problems(groups: Sequence[RedTeam], route: RedTeamRoute) -> list[str]:
    """The red-team route's unmet requirements (empty: met)."""
    each = route.min_hours_each
    strong = [team for team in groups if team.hours >= each]
    organizations = {fold_name(team.organization) for team in strong}
    if len(strong) >= route.min_groups and len(organizations) >= route.min_organizations:
        return []
    problems = [
        f"{_team_name(team)}: {team.hours:g} h < {each:g} h" for team in groups if team.hours < each
    ]
    if len(strong) < route.min_groups:
        problems.append(
            f"{len(strong)} distinct group(s) with at least {each:g} h < {route.min_groups}"
        )
    if len(organizations) < route.min_organizations:
        problems.append(
            f"{len(organizations)} organization(s) among them < {route.min_organizations}"
        )
    return problems


def bounty_problems(
    bounty: Bounty, route: BountyRoute, closed_by: datetime | None = None
) -> list[str]:
    """The bounty route's unmet requirements (empty: met)."""
    listed, closed, frozen = bounty.listed_at, bounty.closed_at, bounty.rules_frozen_at
    problems = []
    if bounty.usd < route.min_usd:
        problems.append(f"USD {_amount(bounty.usd)} < {_amount(route.min_usd)}")
    if listed is None or closed is None or frozen is None:
        problems.append("listed_at, closed_at or rules_frozen_at is unreadable")
    else:
        days = (closed - listed).total_seconds() / 86400
        if days < route.min_days_open:
            problems.append(f"open {days:g} days < {route.min_days_open} days")
        if closed_by is not None and closed > closed_by:
            problems.append(
                f"closes {closed.isoformat()}, after {closed_by.isoformat()} (the date judged"
                " or the market's resolve-by date): a bounty still open is not yet evidence"
            )
        if frozen > listed:
            problems.append(
                f"rules frozen {frozen.isoformat()}, after its listing {listed.isoformat()}"
            )
    if bounty.qualifying_submissions < route.min_qualifying_submissions:
        problems.append(
            f"{bounty.qualifying_submissions} qualifying submission(s)"
            f" < {route.min_qualifying_submissions}"
        )
    return problems


def _amount(value: float) -> str:
    """10000 as 10,000; 9999.99 as 9,999.99."""
    return f"{value:,.2f}".rstrip("0").rstrip(".")


def generator_problems(
    generator: Generator,
    route: GeneratorRoute,
    rules: SharedRules,
    market: Market,
    first: datetime | None,
) -> list[str]:
    """The generator route's unmet requirements (empty: met). `first`: when the attempt's
    first trial started (None: no readable start)."""
    if generator.planted_found > generator.planted:
        # Refused as evidence already (bot/rules/evidence/): never counts.
        return [f"{generator.planted_found} found of {generator.planted} planted"]
    problems = []
    # Exact rational arithmetic: 8 found of 10 planted is 0.8, not a float just below it.
    found = Fraction(generator.planted_found, generator.planted)
    least = Fraction(str(route.min_planted_found))
    if found < least:
        problems.append(
            f"{generator.planted_found} of {generator.planted} found"
            f" = {float(found) * 100:.4g}% < {float(least) * 100:.4g}%"
        )
    if generator.independent_hours < route.min_independent_hours:
        problems.append(
            f"{generator.independent_hours:g} independent h < {route.min_independent_hours:g} h"
        )
    if rules.access_rank(generator.access) < rules.access_rank(market.assumed_access):
        problems.append(f"access {generator.access} < the market's {market.assumed_access}")
    frozen = generator.frozen_at
    if frozen is None or first is None or not frozen < first:
        when = frozen.isoformat() if frozen else "at an unreadable time"
        trial = first.isoformat() if first else "none"
        problems.append(f"frozen {when}, not before the first trial ({trial})")
    return problems


def _adversarial(
    reasons: _Reasons, evidence: Evidence, market: Market, rules: SharedRules, as_of: date
) -> None:
    # A bounty counts for the days it was open by the market's resolve-by date (the evidence
    # must be public by then, docs/spec.md §5) and by the date judged: a closing date in the future
    # is a promise, not evidence that it was open that long.
    closed_by = min(end_of_day(as_of), end_of_day(market.resolve_by))
    for problem in _adversarial_problems(
        evidence.attempt, evidence.trials.first_started_at, market, rules, closed_by
    ):
        reasons.add(Code.ADVERSARIAL_BUDGET, problem, key="adversarial")


def _protocol_differences(
    stated: JSONObject,
    reported: JSONObject,
    where: str = "adversarial.protocol",
) -> list[str]:
    """The terms of the market's attack protocol the attempt does not report unchanged.

    What the bot can compare: every field the contract's `attack_protocol` states must appear
    in the attempt's `adversarial.protocol` with the same value (objects field by field). The
    attempt may add fields (how the protocol was followed: reports, hours, links). Whether the
    attack really followed the protocol is the human check `own-protocol-followed`.
    """
    differences = []
    for key, value in stated.items():
        place = f"{where}.{key}"
        if key not in reported:
            differences.append(
                f"{place} is missing, the market's attack_protocol states {_shown(value)}"
            )
            continue
        given = reported[key]
        if isinstance(value, dict) and isinstance(given, dict):
            differences += _protocol_differences(value, given, place)
        elif not json_equal(value, given):  # 5 is 5.0; true is not 1, nor [true] [1]
            differences.append(
                f"{place} is {_shown(given)}, the market's attack_protocol states {_shown(value)}"
            )
    return differences


def _shown(value: JSONValue) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 80 else f"{text[:77]}..."


def _certificates(reasons: _Reasons, evidence: Evidence) -> None:
    """Every tested system has a per-instance certificate; not all of them abstain.

    A certificate names its instance by `system`, or by `version` when it names no system
    (seed, Per Instance Certificate: "names the system or version"); it covers the tested
    system whose name, folded, is that name (`CertificateSummary`).
    """
    summary = evidence.certificates
    if summary.missing:
        reasons.add(
            Code.CERTIFICATE_MISSING,
            f"no per-instance certificate for system(s) {', '.join(summary.missing)}",
            "certificates.jsonl",
        )
    if summary.all_abstain:
        reasons.add(
            Code.UNIVERSAL_ABSTENTION,
            f"the method abstains on all {summary.present}"
            " tested systems; universal abstention is not a YES",
            "certificates.jsonl",
        )


def _outputs(reasons: _Reasons, evidence: Evidence, market: Market, derived: ScoreTable) -> None:
    for output in market.required_outputs:
        if output == "certificates" and not evidence.certificates.count:
            reasons.add(
                Code.REQUIRED_OUTPUT_MISSING,
                "the market requires per-instance"
                " certificates: certificates.jsonl is missing or empty",
                "certificates.jsonl",
            )
        elif output == "score_table" and evidence.scores is None:
            reasons.add(
                Code.REQUIRED_OUTPUT_MISSING,
                "the market requires a score table: scores.yaml is missing",
                "scores.yaml",
            )
        elif output == "class_conditional" and not (
            evidence.scores
            and evidence.scores.get("class_conditional")
            and derived.class_conditional
        ):
            reasons.add(
                Code.REQUIRED_OUTPUT_MISSING,
                "the market requires class-conditional"
                " counts: results must carry certificate and truth labels and"
                " scores.yaml must state class_conditional",
                "scores.yaml",
            )


def _dates(reasons: _Reasons, evidence: Evidence, dates: MarketDates, as_of: date) -> None:
    public = evidence.attempt.evidence_public_at
    if public is not None and public > end_of_day(dates.resolve_by):
        reasons.add(
            Code.EVIDENCE_LATE,
            f"evidence public at {public.isoformat()}, after the"
            f" market's resolve-by date {dates.resolve_by}",
            key="publication",
        )
    closes = end_of_day(dates.window_closes)
    if evidence.filed_at is not None and evidence.filed_at > closes:
        reasons.add(
            Code.FILED_LATE,
            f"merged at {evidence.filed_at.isoformat()}, after the"
            f" filing window closed on {dates.window_closes}",
            key="market",
        )
    elif evidence.filed_at is None and as_of > dates.window_closes:
        reasons.add(
            Code.FILED_LATE,
            f"not merged, and the filing window closed on {dates.window_closes}",
            key="market",
        )


def _recorded_after(at: str, day: date) -> bool:
    """True when a judgment's `at` (a date, or an RFC 3339 time) is after `day` ends (AoE)."""
    recorded_on = parse_date(at)
    if recorded_on is not None:
        return recorded_on > day
    moment = parse_timestamp(at)
    return moment is not None and moment > end_of_day(day)


def _judgments(
    reasons: _Reasons, evidence: Evidence, required: Sequence[str], dates: MarketDates, as_of: date
) -> tuple[dict[str, CheckState], bool]:
    """Human checks bound to the evidence digest. Returns the checks and whether any pends.

    A judgment recorded after the window closed counts as missing (seed, Judgment Stack: a
    check missing "at the end of the window" is unresolved; attempts "are adjudicated within
    the window"). Once the window has closed, the checks are read from judgments.yaml as it
    stood on main at the close (`Evidence.judgments_at_close`).
    """
    window_closed = as_of > dates.window_closes
    recorded = evidence.judgments or {}
    at_close = (evidence.judgments_at_close or {}) if window_closed else recorded
    checks: dict[str, CheckState] = {}
    pending = False
    for check in required:
        entry = at_close.get(check)
        later = recorded.get(check)
        state: CheckStateName
        if entry is None:
            entry = later
            state = "late" if later is not None and window_closed else "missing"
        elif entry.evidence_digest != evidence.digest:
            state = "stale"  # recorded before the evidence changed: counts as missing
        elif _recorded_after(entry.at, dates.window_closes):
            state = "late"  # dated after the window closed: counts as missing
        else:
            state = entry.verdict
        checks[check] = (
            CheckState(state, entry.verdict, entry.by, entry.at) if entry else CheckState(state)
        )
        if state == "fail":
            note = f": {entry.note}" if entry and entry.note else ""
            reasons.add(
                Code.JUDGED_NOT_QUALIFYING,
                f"human check {check!r} recorded fail by {entry.by if entry else '?'}{note}",
                "judgments.yaml",
            )
        elif state != "pass":
            if window_closed:
                what = (
                    f"was recorded on {entry.at}, after the filing window closed on"
                    f" {dates.window_closes}"
                    if state == "late" and entry
                    else f"is {state} and the filing window has closed"
                )
                reasons.add(
                    Code.UNRESOLVED_JUDGMENT, f"human check {check!r} {what}", "judgments.yaml"
                )
            else:
                pending = True
    return checks, pending


def _wrapping(reasons: _Reasons, evidence: Evidence) -> None:
    """A wrapped attempt counts only after its adapter was rerun on this evidence
    (docs/spec.md §9)."""
    if evidence.kind == "wrapped" and not evidence.adapter_rerun:
        reasons.add(
            Code.ADAPTER_NOT_RERUN,
            f"the adapter was not rerun on this evidence (digest {evidence.digest[:12]}), so"
            " it is unverified and cannot count: `claims resolve` reruns it; check it with"
            " `claims verify --rerun-adapters`",
            "adapter/adapter.yaml",
        )


def qualify(
    evidence: Evidence,
    market: Market,
    rules: SharedRules,
    bars: Sequence[BarResult],
    units: UnitSummary,
    derived_table: ScoreTable,
    as_of: date,
) -> Qualification:
    """Judge an attempt whose evidence is valid. Returns status, outcome, reasons and checks.

    Status: `not-qualifying` when any condition fails; else `pending-judgment` while a human
    check is missing, stale, late or unsettled and the filing window is open; else `qualifying`,
    with outcome `met` when every bar is met and `missed` otherwise.
    """
    dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
    reasons = _Reasons(evidence)
    _floors(reasons, evidence, market, units)
    _bars(reasons, bars)
    _adversarial(reasons, evidence, market, rules, as_of)
    _certificates(reasons, evidence)
    _outputs(reasons, evidence, market, derived_table)
    _wrapping(reasons, evidence)
    _dates(reasons, evidence, dates, as_of)
    required = required_checks(rules, market, evidence.kind)
    checks, pending = _judgments(reasons, evidence, required, dates, as_of)
    unit_summary = units
    frozen = frozen_map(checks)
    if reasons.items:
        return Qualification("not-qualifying", None, tuple(reasons.items), frozen, unit_summary)
    if pending:
        return Qualification("pending-judgment", None, (), frozen, unit_summary)
    met = all(result.met for result in bars)
    return Qualification("qualifying", "met" if met else "missed", (), frozen, unit_summary)

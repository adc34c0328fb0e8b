"""`claims explain`: what stands between an attempt and qualifying, one line each.

A pure function of what `claims verify` already produced for one folder: the verdict, the files and
facts it was judged from, the market and the shared rules (`bot.rules.judge.inputs.Judged`). It
judges nothing itself: evidence and qualification come from the verdict, so `explain` and `verify`
cannot disagree. What it adds is the detail behind each condition, have vs need: the bars, the
floors, the adversarial routes and each red team, the human checks, the dates, and for invalid
evidence too the unit structure of the trials that could be read.

Every line carries a mark a filer can scan: `ok` (this condition is met), `missing` (something
is not there yet: a file, a check, a route, a merge) or `fails` (it is there and falls short).
A bar the evidence missed is marked `outcome`: it is the attempt's result, which qualification
does not depend on (a qualifying attempt that misses a bar counts for NO), so it stands in the
way of nothing and `claims explain` does not count it as a failure.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from typing import Literal

from bot.rules.bars import coverage_low
from bot.rules.evidence.models import Attempt, Bounty, Generator, RedTeam
from bot.rules.judge.inputs import Judged
from bot.rules.models import BountyRoute, GeneratorRoute, Market, RedTeamRoute, SharedRules
from bot.rules.qualification import (
    bounty_problems,
    default_problems,
    distinct_groups,
    generator_problems,
    red_team_problems,
    required_checks,
    team_problems,
)
from bot.rules.stats.coverage import COVERAGE_WARNING_BELOW
from bot.rules.verdict import AttemptVerdict, BarResult, UnitSummary
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.names import fold_name

__all__ = ["BLOCKING", "Explanation", "Line", "Mark", "explain"]

Mark = Literal["ok", "missing", "fails", "outcome"]
# The marks of what stands between an attempt and qualifying.
BLOCKING: tuple[Mark, ...] = ("missing", "fails")
Topic = Literal[
    "attempt", "evidence", "units", "bar", "floor", "adversarial", "output", "check", "date"
]

_FLOORS = {Code.SAMPLE_SIZE, Code.SYSTEMS_FLOOR, Code.FAMILY_COVERAGE}
_BARS = {Code.BAR_NOT_EXERCISED, Code.BAR_REFUSED}
_CHECKS = {Code.JUDGED_NOT_QUALIFYING, Code.UNRESOLVED_JUDGMENT}
_DATES = {Code.EVIDENCE_LATE, Code.FILED_LATE}
_MEANINGS = {Code.VERDICT_OUTSIDE_BAR, Code.CLASS_CONDITIONAL_PARTIAL, Code.EVIDENCE_PUBLIC_EARLY}


@dataclass(frozen=True, slots=True)
class Line:
    mark: Mark
    topic: Topic
    text: str
    code: str | None = None  # the reason code the line stands for, when there is one


@dataclass(frozen=True, slots=True)
class Explanation:
    attempt: str
    evidence: Literal["valid", "invalid"]
    status: str | None
    outcome: str | None
    as_of: date
    lines: tuple[Line, ...]

    @property
    def blocking(self) -> tuple[Line, ...]:
        """The lines that stand in the way of qualifying (`missing` or `fails`)."""
        return tuple(line for line in self.lines if line.mark in BLOCKING)


def explain(judged: Judged, rules: SharedRules, as_of: date) -> Explanation:
    """The explanation of one judged attempt folder, as of the date it was judged on."""
    verdict, market, attempt = judged.verdict, judged.market, judged.files.attempt
    lines: list[Line] = [_head(verdict, as_of, None if verdict.kind else _written_kind(judged))]
    lines += _evidence(verdict)
    if verdict.units is not None:
        lines.append(_units(verdict.units, market))
    if market is not None:
        lines += _bars(verdict, market)
        if attempt is not None and judged.files.case_records is not None:
            lines += _floors(judged, market)
        if attempt is not None:
            lines += _adversarial(verdict, attempt, market, rules, as_of, judged)
        lines += _outputs(verdict)
        lines += _checks(judged, market, rules)
        lines += _dates(judged, market, rules, as_of)
    return Explanation(
        verdict.attempt,
        verdict.evidence,
        verdict.status,
        verdict.outcome,
        as_of,
        tuple(lines),
    )


# --- the attempt and its evidence ----------------------------------------------------------


def _written_kind(judged: Judged) -> str | None:
    """The `kind` attempt.yaml states, when the file could not be read as a whole (a stub
    whose other fields are still placeholders): what the filer wrote, not what was judged."""
    attempt = judged.files.path("attempt.yaml")
    for file, data, _ in judged.files.published:
        if file == attempt and isinstance(data, dict) and isinstance(data.get("kind"), str):
            kind: str = data["kind"]
            return kind if kind.isprintable() and len(kind) <= 40 else None
    return None


def _head(verdict: AttemptVerdict, as_of: date, written_kind: str | None = None) -> Line:
    market = f"market {verdict.market}" if verdict.market is not None else "market ?"
    kind = verdict.kind or written_kind or "kind ?"
    where = f"{verdict.attempt} ({market}, {kind})"
    if verdict.evidence == "invalid":
        return Line("fails", "attempt", f"{where}: evidence invalid, so it cannot qualify")
    if verdict.status is None:
        return Line("missing", "attempt", f"{where}: evidence valid; qualification not judged")
    when = f" as of {as_of}"
    outcome = f" ({verdict.outcome})" if verdict.outcome else ""
    marks: dict[str, Mark] = {"qualifying": "ok", "pending-judgment": "missing"}
    mark = marks.get(verdict.status, "fails")
    return Line(mark, "attempt", f"{where}: {verdict.status}{outcome}{when}")


def _where(finding: Finding) -> str:
    location = finding.location()
    return f"{location}: " if location else ""


def _evidence(verdict: AttemptVerdict) -> list[Line]:
    """Every problem with the evidence, one line each (`claims explain --brief` caps them
    when it prints them)."""
    lines = []
    for finding in [*verdict.findings, *verdict.pr_problems]:
        if finding.code is Code.FREEZE_ONLY:
            lines.append(Line("missing", "evidence", finding.message, finding.code.value))
        elif finding.severity is Severity.ERROR:
            source = " (its pull request)" if finding in verdict.pr_problems else ""
            text = f"{finding.code.value}{source}: {_where(finding)}{finding.message}"
            lines.append(Line("fails", "evidence", text, finding.code.value))
        elif finding.code in _MEANINGS:
            # A warning: nothing stands in the way, but a result may not say what was meant.
            text = f"warning {finding.code.value}: {_where(finding)}{finding.message}"
            lines.append(Line("ok", "evidence", text, finding.code.value))
    if all(line.mark == "ok" for line in lines):
        digest = f" (digest {verdict.digest})" if verdict.digest else ""
        counts = verdict.counts
        lines.insert(
            0,
            Line(
                "ok",
                "evidence",
                f"valid{digest}: {counts.cases} cases, {counts.trials} trials,"
                f" {counts.systems} systems, {counts.families} families",
            ),
        )
    return lines


def _units(units: UnitSummary, market: Market | None) -> Line:
    joins = {key: count for key, count in units.joins_per_key.items() if count}
    joined = (
        f"joined most by {units.joined_most_by} ({joins.get(units.joined_most_by or '', 0)} joins)"
        if units.joined_most_by
        else "no key joined two trials"
    )
    others = ", ".join(f"{key} {count}" for key, count in joins.items())
    nulls = ", ".join(f"{key} {count}" for key, count in units.nulls_per_key.items() if count)
    text = (
        f"{units.count} independent units, the largest of {units.largest} trial(s); {joined}"
        + (f"; joins per key: {others}" if len(joins) > 1 else "")
        + (f"; nulls per key: {nulls}" if nulls else "")
    )
    # How the units formed (bot/rules/stats/formation.py): which values joined the largest units.
    formed = "".join(f"; {formation}" for formation in units.formation)
    if market is None or units.count >= market.min_units:
        return Line("ok", "units", text + formed)
    needs = f"; the market needs {market.min_units}"
    return Line("fails", "units", text + needs + formed, "sample-size")


# --- bars and floors -----------------------------------------------------------------------


def _number(value: float | None) -> str:
    return "none" if value is None else f"{value:.4f}"


def _bar(bar: BarResult) -> Line:
    name = f"bar {bar.bar_id!r}"
    if not bar.exercised:
        code = Code.BAR_REFUSED if bar.refused else Code.BAR_NOT_EXERCISED
        mark: Mark = "fails" if bar.refused else "missing"
        return Line(mark, "bar", f"{name}: not exercised ({bar.note})", code.value)
    if bar.statistic == "auroc_lower":
        text = (
            f"{name}: AUROC {_number(bar.auroc)} over {bar.positives} positive and"
            f" {bar.negatives} negative units, lower bound {_number(bar.bound)}"
            f" {'>=' if bar.met else '<'} {bar.threshold}"
        )
        if bar.coverage is not None:  # how honest that nominal 95% is here
            low = bar.coverage < COVERAGE_WARNING_BELOW
            text += (
                f" (DeLong's 95% bound covers about {100 * bar.coverage:.1f}% here, simulated"
                + (f"; below {100 * COVERAGE_WARNING_BELOW:.0f}%)" if low else ")")
            )
    else:
        sign = (
            ("<=" if bar.met else ">")
            if bar.statistic == "rate_upper"
            else (">=" if bar.met else "<")
        )
        side = "upper" if bar.statistic == "rate_upper" else "lower"
        text = (
            f"{name}: {bar.failures} failing of {bar.units} units, {side} bound"
            f" {_number(bar.bound)} {sign} {bar.threshold}"
        )
    note = f" ({bar.note})" if bar.note else ""
    # A warning only: the line keeps its mark, and names the code.
    warned = Code.BOUND_COVERAGE_LOW.value if coverage_low(bar) else None
    if bar.met:
        return Line("ok", "bar", f"{text}: met{note}", warned)
    # The result, not a condition of qualifying: shown as the outcome, never as a failure.
    details = text.removeprefix(f"{name}: ")
    return Line(
        "outcome",
        "bar",
        f"outcome: missed {name} ({details}){note}; a qualifying attempt that misses a bar"
        " counts for NO",
        warned,
    )


def _bars(verdict: AttemptVerdict, market: Market) -> list[Line]:
    if verdict.bars:
        return [_bar(bar) for bar in verdict.bars]
    return [
        Line("missing", "bar", f"bar {bar.id!r}: not evaluated until the evidence is valid")
        for bar in market.bars
    ]


def _scored_families(judged: Judged) -> set[str]:
    # Hostile records may hold a case_id of any JSON type (the schema refuses it elsewhere):
    # only a string names a case.
    families = {
        case_id: record.data.get("family")
        for record in judged.files.case_records or ()
        if isinstance(case_id := record.data.get("case_id"), str)
    }
    return {
        fold_name(family)
        for record in judged.files.trial_records or ()
        if isinstance(case_id := record.data.get("case_id"), str)
        and isinstance(family := families.get(case_id), str)
    }


def _floors(judged: Judged, market: Market) -> list[Line]:
    counts = judged.verdict.counts
    lines = []
    for what, have, need, code in (
        ("systems", counts.systems, market.min_systems, Code.SYSTEMS_FLOOR),
        ("families", counts.families, market.min_families, Code.FAMILY_COVERAGE),
    ):
        mark: Mark = "ok" if have >= need else "fails"
        lines.append(
            Line(
                mark,
                "floor",
                f"{what}: have {have}, need {need}",
                None if mark == "ok" else code.value,
            )
        )
    scored = _scored_families(judged)
    for family in market.required_families:
        if fold_name(family) in scored:
            lines.append(Line("ok", "floor", f"required family {family!r}: scored"))
        else:
            lines.append(
                Line(
                    "missing",
                    "floor",
                    f"required family {family!r}: no trial of it",
                    Code.FAMILY_COVERAGE.value,
                )
            )
    return lines


# --- the adversarial budget ----------------------------------------------------------------


def _when(moment: datetime | None) -> str:
    return moment.isoformat().replace("+00:00", "Z") if moment else "no date"


def _team(
    team: RedTeam,
    frozen: datetime | None,
    market: Market,
    rules: SharedRules,
    min_hours: float | None,
) -> Line:
    """One listed red team: whether it counts (qualification's own test) and, on a serious
    market, whether it has the hours of a red-team route group."""
    short = team_problems(team, frozen, market, rules)
    if min_hours is not None and team.hours < min_hours:
        short.append(f"{team.hours:g} h < {min_hours:g} h")
    text = (
        f"red team {team.name!r} ({team.organization}): {team.hours:g} h,"
        f" {'independent' if team.independent else 'not independent'}, access {team.access},"
        f" started {_when(team.started_at)}"
    )
    if short:
        return Line("fails", "adversarial", f"{text}: {'; '.join(short)}", "adversarial-budget")
    return Line("ok", "adversarial", text)


def _route_red_teams(
    teams: Sequence[RedTeam], groups: Sequence[RedTeam], route: RedTeamRoute
) -> Line:
    strong = [team for team in groups if team.hours >= route.min_hours_each]
    organizations = {fold_name(team.organization) for team in strong}
    text = (
        f"route red teams: {len(strong)} counted group(s) of at least {route.min_hours_each} h"
        f" from {len(organizations)} organization(s); need {route.min_groups} groups from"
        f" {route.min_organizations} organizations"
    )
    return _route_line(text, red_team_problems(groups, route), bool(teams))


def _route_bounty(bounty: Bounty | None, route: BountyRoute, closed_by: datetime) -> Line:
    if bounty is None:
        return _route_missing("bounty")
    days = (
        (min(bounty.closed_at, closed_by) - bounty.listed_at).total_seconds() / 86400
        if bounty.closed_at and bounty.listed_at
        else 0.0
    )
    text = (
        f"route bounty: USD {bounty.usd:g} (need {route.min_usd}), open {days:.0f} days by"
        f" {_when(closed_by)} (need {route.min_days_open}),"
        f" {bounty.qualifying_submissions} qualifying submission(s) (need"
        f" {route.min_qualifying_submissions})"
    )
    return _route_line(text, bounty_problems(bounty, route, closed_by), True)


def _route_generator(
    generator: Generator | None,
    route: GeneratorRoute,
    rules: SharedRules,
    market: Market,
    first_trial: datetime | None,
) -> Line:
    if generator is None:
        return _route_missing("generator")
    text = (
        f"route generator: {generator.planted_found} of {generator.planted} planted found"
        f" (need {float(route.min_planted_found):.0%}), {generator.independent_hours:g}"
        f" independent h (need {route.min_independent_hours}), access {generator.access},"
        f" frozen {_when(generator.frozen_at)}"
    )
    problems = generator_problems(generator, route, rules, market, first_trial)
    return _route_line(text, problems, True)


def _route_missing(route: str) -> Line:
    """A route the attempt does not report (`adversarial.bounty` or `.generator` absent)."""
    return Line("missing", "adversarial", f"route {route}: none reported", "adversarial-budget")


def _route_line(text: str, problems: Sequence[str], present: bool) -> Line:
    """A route's line: met when qualification finds no problem with it (empty `problems`)."""
    if not problems:
        return Line("ok", "adversarial", text)
    if present:
        text = f"{text}: {'; '.join(problems)}"
    return Line("fails" if present else "missing", "adversarial", text, "adversarial-budget")


def _first_trial(judged: Judged) -> datetime | None:
    from bot.vocab.timestamps import parse_timestamp

    moments = [
        parse_timestamp(value)
        for record in judged.files.trial_records or ()
        if isinstance(value := record.data.get("started_at"), str)
    ]
    return min((moment for moment in moments if moment is not None), default=None)


def _adversarial(
    verdict: AttemptVerdict,
    attempt: Attempt,
    market: Market,
    rules: SharedRules,
    as_of: date,
    judged: Judged,
) -> list[Line]:
    adversarial = attempt.adversarial
    frozen = adversarial.access_frozen_at
    routes = rules.adversarial
    budget = market.adversarial_budget
    problems = [f for f in verdict.qualification if f.code is Code.ADVERSARIAL_BUDGET]
    judged_budget = verdict.status is not None
    lines: list[Line] = []
    if judged_budget and not problems:
        lines.append(Line("ok", "adversarial", f"{budget} budget: met"))
    for finding in problems:
        lines.append(
            Line("fails", "adversarial", f"{budget} budget: {finding.message}", finding.code.value)
        )
    need = rules.access_rank(market.assumed_access)
    if rules.access_rank(attempt.assumed_access) >= need:
        lines.append(
            Line(
                "ok",
                "adversarial",
                f"access: the attack assumed {attempt.assumed_access}, the market"
                f" {market.assumed_access}",
            )
        )
    if budget == "own":
        return lines
    min_hours = routes.red_teams.min_hours_each if budget == "serious" else None
    team_lines = [_team(team, frozen, market, rules, min_hours) for team in adversarial.red_teams]
    # The teams that count (independent, access, dates); the routes then weigh their hours.
    counted = [
        team for team in adversarial.red_teams if not team_problems(team, frozen, market, rules)
    ]
    closed_by = min(end_of_day(as_of), end_of_day(market.resolve_by))
    route_lines = [
        _route_red_teams(adversarial.red_teams, distinct_groups(counted), routes.red_teams),
        _route_bounty(adversarial.bounty, routes.bounty, closed_by),
        _route_generator(
            adversarial.generator, routes.generator, rules, market, _first_trial(judged)
        ),
    ]
    if budget == "default":
        rule = routes.default
        groups = distinct_groups(counted)
        hours = sum(team.hours for team in groups)
        route_lines.insert(
            0,
            _route_line(
                f"route default: {len(groups)} counted red-team group(s), {hours:g} h; need"
                f" {rule.min_groups} group(s) and {rule.min_hours_total} h (or any serious"
                " route)",
                default_problems(groups, rule),
                bool(adversarial.red_teams),
            ),
        )
    met_any = any(line.mark == "ok" for line in route_lines)
    # With the budget met, the routes not taken and the teams that did not count stand in
    # nobody's way: only what met it is shown.
    lines += [line for line in route_lines if line.mark == "ok" or not met_any]
    lines += [line for line in team_lines if line.mark == "ok" or not met_any]
    return lines


# --- outputs, human checks, dates ----------------------------------------------------------


def _outputs(verdict: AttemptVerdict) -> list[Line]:
    """Every other reason valid evidence does not qualify (certificates, outputs, a rerun)."""
    shown = _FLOORS | _BARS | _CHECKS | _DATES | {Code.ADVERSARIAL_BUDGET}
    lines = [
        Line("fails", "output", f"{f.code.value}: {_where(f)}{f.message}", f.code.value)
        for f in verdict.qualification
        if f.code not in shown
    ]
    # A floor finding the lines above do not carry (the units line says sample-size).
    return lines


def _checks(judged: Judged, market: Market, rules: SharedRules) -> list[Line]:
    verdict = judged.verdict
    recorded = judged.files.judgments or {}
    if not verdict.checks:
        kind = verdict.kind or "run"
        return [
            Line("missing", "check", f"human check {name!r}: judged once the evidence is valid")
            for name in required_checks(rules, market, kind)
        ]
    reasons = {
        check: finding
        for finding in verdict.qualification
        if finding.code in _CHECKS
        for check in verdict.checks
        if repr(check) in finding.message
    }
    lines = []
    for name, check in verdict.checks.items():
        by = f" by {check.by} at {check.at}" if check.by else ""
        finding = reasons.get(name)
        code = finding.code.value if finding else None
        if check.state == "pass":
            lines.append(Line("ok", "check", f"human check {name!r}: pass{by}"))
        elif check.state == "fail":
            lines.append(Line("fails", "check", f"human check {name!r}: fail{by}", code))
        elif check.state == "stale":
            entry = recorded.get(name)
            digest = entry.evidence_digest if entry else "?"
            lines.append(
                Line(
                    "missing",
                    "check",
                    f"human check {name!r}: stale, recorded{by} for evidence digest {digest},"
                    f" the evidence is now {verdict.digest}",
                    code,
                )
            )
        elif check.state == "late":
            lines.append(
                Line(
                    "fails",
                    "check",
                    f"human check {name!r}: recorded{by}, after the window closed",
                    code,
                )
            )
        else:
            lines.append(Line("missing", "check", f"human check {name!r}: {check.state}{by}", code))
    return lines


def _dates(judged: Judged, market: Market, rules: SharedRules, as_of: date) -> list[Line]:
    attempt = judged.files.attempt
    dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
    closes = end_of_day(dates.window_closes)
    lines = []
    filed = judged.facts.filed_at
    if judged.files.freeze_only:
        filed = None
    # A pull request's evidence is judged as merged at the run's time (`MergedHistory`).
    merged = "judged as merged" if judged.facts.filed_on_merge else "merged"
    if filed is not None and filed <= closes:
        lines.append(
            Line(
                "ok",
                "date",
                f"filed: {merged} {_when(filed)}, the window closes {dates.window_closes}",
            )
        )
    elif filed is not None:
        lines.append(
            Line(
                "fails",
                "date",
                f"filed: {merged} {_when(filed)}, after the window closed on {dates.window_closes}",
                Code.FILED_LATE.value,
            )
        )
    else:
        closed = as_of > dates.window_closes
        lines.append(
            Line(
                "fails" if closed else "missing",
                "date",
                f"filed: not all the evidence is merged to main yet; the filing window"
                f" {'closed' if closed else 'closes'} on {dates.window_closes}",
                Code.FILED_LATE.value if closed else None,
            )
        )
    public = attempt.evidence_public_at if attempt else None
    if attempt is not None and public is None:
        lines.append(
            Line(
                "missing", "date", f"evidence public: no date; it must be by R = {dates.resolve_by}"
            )
        )
    elif public is not None and public <= end_of_day(dates.resolve_by):
        lines.append(
            Line("ok", "date", f"evidence public {_when(public)}, by R = {dates.resolve_by}")
        )
    elif public is not None:
        lines.append(
            Line(
                "fails",
                "date",
                f"evidence public {_when(public)}, after R = {dates.resolve_by}",
                Code.EVIDENCE_LATE.value,
            )
        )
    text = {
        "open": f"window: the market is open until R = {dates.resolve_by}; filing closes"
        f" {dates.window_closes}",
        "filing-window": f"window: the filing window is open until {dates.window_closes}",
        "closed": f"window: closed on {dates.window_closes}",
    }[dates.state(as_of)]
    lines.append(Line("ok", "date", f"{text} (as of {as_of})"))
    return lines


def lines_by_mark(explanation: Explanation) -> Mapping[Mark, int]:
    """How many lines carry each mark (for a total line)."""
    counts: dict[Mark, int] = {"ok": 0, "missing": 0, "fails": 0, "outcome": 0}
    for line in explanation.lines:
        counts[line.mark] += 1
    return counts

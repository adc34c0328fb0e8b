"""Typed views of the registry's own documents: the shared rules and the market contracts.

Each `from_document` validates once (schema, then cross-field rules) and returns the model or
the findings that explain why there is none; code further down trusts the type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Literal

from bot.rules.evidence.schema import validate
from bot.rules.verdict import Statistic
from bot.vocab.dates import MarketDates
from bot.vocab.document import Document
from bot.vocab.fields import (
    array,
    flag,
    integer,
    integers,
    member,
    number,
    objects,
    optional_member,
    optional_text,
    text,
    texts,
)
from bot.vocab.findings import Code, Finding
from bot.vocab.timestamps import parse_date
from bot.vocab.values import JSONObject, JSONValue

__all__ = [
    "AdversarialRules",
    "Bar",
    "BountyRoute",
    "DefaultBudget",
    "GeneratorRoute",
    "Market",
    "RedTeamRoute",
    "SharedRules",
    "market_path",
]


def market_path(number: int) -> str:
    """`markets/market-NN.yaml`, NN at least two digits."""
    return f"markets/market-{number:02d}.yaml"


BudgetClass = Literal["default", "serious", "own"]


# The shared rules' adversarial routes (Serious Adversarial Evaluation) and default budget,
# read once from data the `shared-rules` schema checked. Numbers keep the type they were
# written in (80 stays an int), so messages show them as written.


@dataclass(frozen=True, slots=True)
class RedTeamRoute:
    """Serious route 1: independent red-team groups from several organizations."""

    min_groups: int
    min_organizations: int
    min_hours_each: float
    access_frozen_in_advance: bool
    access_at_least_assumed: bool
    text: str

    @classmethod
    def from_data(cls, data: JSONObject) -> RedTeamRoute:
        return cls(
            min_groups=integer(data, "min_groups"),
            min_organizations=integer(data, "min_organizations"),
            min_hours_each=number(data, "min_hours_each"),
            access_frozen_in_advance=flag(data, "access_frozen_in_advance"),
            access_at_least_assumed=flag(data, "access_at_least_assumed"),
            text=text(data, "text"),
        )


@dataclass(frozen=True, slots=True)
class BountyRoute:
    """Serious route 2: a public counterexample bounty."""

    min_usd: float
    min_days_open: int
    min_qualifying_submissions: int
    rules_frozen_at_listing: bool
    text: str

    @classmethod
    def from_data(cls, data: JSONObject) -> BountyRoute:
        return cls(
            min_usd=number(data, "min_usd"),
            min_days_open=integer(data, "min_days_open"),
            min_qualifying_submissions=integer(data, "min_qualifying_submissions"),
            rules_frozen_at_listing=flag(data, "rules_frozen_at_listing"),
            text=text(data, "text"),
        )


@dataclass(frozen=True, slots=True)
class GeneratorRoute:
    """Serious route 3: a frozen generator that finds planted failures."""

    min_planted_found: float  # a fraction of the planted failures, in (0, 1]
    min_independent_hours: float
    frozen_before_scoring: bool
    access_at_least_assumed: bool
    text: str

    @classmethod
    def from_data(cls, data: JSONObject) -> GeneratorRoute:
        return cls(
            min_planted_found=number(data, "min_planted_found"),
            min_independent_hours=number(data, "min_independent_hours"),
            frozen_before_scoring=flag(data, "frozen_before_scoring"),
            access_at_least_assumed=flag(data, "access_at_least_assumed"),
            text=text(data, "text"),
        )


@dataclass(frozen=True, slots=True)
class DefaultBudget:
    """The default adversarial budget: red-team groups and their hours in total."""

    min_groups: int
    min_hours_total: float
    independent_of_authors: bool
    access_frozen_in_advance: bool
    access_at_least_assumed: bool
    text: str

    @classmethod
    def from_data(cls, data: JSONObject) -> DefaultBudget:
        return cls(
            min_groups=integer(data, "min_groups"),
            min_hours_total=number(data, "min_hours_total"),
            independent_of_authors=flag(data, "independent_of_authors"),
            access_frozen_in_advance=flag(data, "access_frozen_in_advance"),
            access_at_least_assumed=flag(data, "access_at_least_assumed"),
            text=text(data, "text"),
        )


@dataclass(frozen=True, slots=True)
class AdversarialRules:
    """The shared rules' `adversarial`: any one serious route suffices for a serious budget;
    `default` is what a default budget needs (or any serious route)."""

    text: str
    red_teams: RedTeamRoute
    bounty: BountyRoute
    generator: GeneratorRoute
    default: DefaultBudget

    @classmethod
    def from_data(cls, data: JSONObject) -> AdversarialRules:
        routes = member(data, "routes")
        return cls(
            text=text(data, "text"),
            red_teams=RedTeamRoute.from_data(member(routes, "red_teams")),
            bounty=BountyRoute.from_data(member(routes, "bounty")),
            generator=GeneratorRoute.from_data(member(routes, "generator")),
            default=DefaultBudget.from_data(member(data, "default")),
        )


@dataclass(frozen=True, slots=True)
class SharedRules:
    """The thresholds of `shared-rules/common-v1.yaml` the bot decides with."""

    id: str
    confidence: float
    max_local_log_bytes: int
    excerpt_bytes: int
    window_days: int
    annul_after_days: int
    unit_keys: tuple[str, ...]
    access_levels: tuple[str, ...]
    budget_by_market: Mapping[int, str]  # market -> default | serious | own | not_in_registry
    not_in_registry_message: str
    checks_all: tuple[str, ...]
    checks_wrapped: tuple[str, ...]
    checks_serious: tuple[str, ...]
    checks_own: tuple[str, ...]
    adversarial: AdversarialRules
    data: JSONObject  # the whole document, as written (the site shows and hashes it)

    @classmethod
    def from_document(cls, document: Document) -> tuple[SharedRules | None, list[Finding]]:
        """Return the shared rules, or None and `schema` findings naming file and line."""
        findings = validate("shared-rules", document.data, document.path, document.lines)
        if findings or not isinstance(document.data, dict):
            return None, findings
        data: JSONObject = document.data
        table = member(data, "adversarial_budget_by_market")
        budget: dict[int, str] = {}
        for budget_class in ("default", "serious", "own", "not_in_registry"):
            for market in integers(table, budget_class):
                budget[market] = budget_class
        checks = member(data, "human_checks")
        statistics, evidence = member(data, "statistics"), member(data, "evidence")
        deadlines = member(data, "deadlines")
        rules = cls(
            id=text(data, "id"),
            confidence=float(number(statistics, "confidence")),
            max_local_log_bytes=integer(evidence, "max_local_log_bytes"),
            excerpt_bytes=integer(evidence, "excerpt_bytes"),
            window_days=integer(deadlines, "window_days"),
            annul_after_days=integer(deadlines, "annul_after_days"),
            unit_keys=texts(statistics, "unit_keys"),
            access_levels=texts(data, "access_levels"),
            budget_by_market=budget,
            not_in_registry_message=text(table, "not_in_registry_message"),
            checks_all=tuple(text(check, "id") for check in objects(checks, "all")),
            checks_wrapped=tuple(text(check, "id") for check in objects(checks, "wrapped")),
            checks_serious=tuple(text(check, "id") for check in objects(checks, "serious")),
            checks_own=tuple(text(check, "id") for check in objects(checks, "own")),
            adversarial=AdversarialRules.from_data(member(data, "adversarial")),
            data=data,
        )
        return rules, []

    def is_not_in_registry(self, market: object) -> bool:
        """True for a market number the shared rules say is not in this registry (14)."""
        return (
            isinstance(market, int)
            and not isinstance(market, bool)
            and self.budget_by_market.get(market) == "not_in_registry"
        )

    def access_rank(self, access: str) -> int:
        """Position of an access level, weakest first (black-box < grey-box < white-box)."""
        return self.access_levels.index(access)


@dataclass(frozen=True, slots=True)
class Bar:
    """One performance bar of a market, as the contract states it."""

    id: str
    statistic: Statistic
    over_case: JSONObject
    over_result: JSONObject
    denominator: Literal["supplied", "method_output"]
    # rate_upper: a trial fails when result[field] is in values (`failure`);
    # rate_lower: a trial fails when it is not (`success`).
    predicate_field: str | None
    predicate_values: tuple[JSONValue, ...]
    # Every value the read field may take, when the contract says (empty: not stated).
    allowed: tuple[JSONValue, ...]
    score: str | None
    label_field: str | None
    label_positive: JSONValue
    threshold: float
    title: str
    # auroc_lower: fewer units than this in the smaller class and the bar is not exercised
    # (DeLong's bound covers too seldom there; docs/markets-and-resolution.md).
    min_per_class: int | None = None

    @classmethod
    def from_data(cls, data: JSONObject) -> Bar:
        """From a bar of a contract that passed the `market` schema."""
        predicate = optional_member(data, "failure") or optional_member(data, "success") or {}
        label = optional_member(data, "label") or {}
        statistic = _STATISTICS[text(data, "statistic")]
        over = member(data, "over")
        values = tuple(array(predicate, "values")) if "values" in predicate else ()
        return cls(
            id=text(data, "id"),
            statistic=statistic,
            over_case=optional_member(over, "case") or {},
            over_result=optional_member(over, "result") or {},
            denominator=_DENOMINATORS[text(data, "denominator")]
            if "denominator" in data
            else "supplied",
            predicate_field=optional_text(predicate, "field"),
            predicate_values=tuple(array(predicate, "in")) if "in" in predicate else (),
            allowed=values
            or ((label["positive"], label["negative"]) if "negative" in label else ()),
            score=optional_text(data, "score"),
            label_field=optional_text(label, "field"),
            label_positive=label.get("positive"),
            threshold=float(number(data, "max" if statistic == "rate_upper" else "min")),
            title=text(data, "title") if "title" in data else text(data, "id"),
            # The schema's integer admits 10.0 (JSON Schema: a number with no fraction).
            min_per_class=None
            if data.get("min_per_class") is None
            else integer(data, "min_per_class"),
        )


_BUDGETS: Mapping[str, BudgetClass] = {"default": "default", "serious": "serious", "own": "own"}
_STATISTICS: Mapping[str, Statistic] = {
    "rate_upper": "rate_upper",
    "rate_lower": "rate_lower",
    "auroc_lower": "auroc_lower",
}
_DENOMINATORS: Mapping[str, Literal["supplied", "method_output"]] = {
    "supplied": "supplied",
    "method_output": "method_output",
}


def _calendar_fits(resolve_by: date, rules: SharedRules) -> bool:
    """True when R + window + annulment (and the day after it) are representable dates."""
    try:
        dates = MarketDates.of(resolve_by, rules.window_days, rules.annul_after_days)
        dates.annul_on + timedelta(days=1)  # end_of_day needs the next day
    except OverflowError:
        return False
    return True


@dataclass(frozen=True, slots=True)
class Market:
    """A market contract (`markets/market-NN.yaml`), checked against the shared rules."""

    id: int
    title: str
    resolve_by: date
    adversarial_budget: BudgetClass
    attack_protocol: JSONObject | None  # `own` markets (20): the market's own protocol
    assumed_access: str
    kinds: tuple[str, ...]
    min_units: int
    min_systems: int
    min_families: int
    required_families: tuple[str, ...]
    unit_keys: tuple[str, ...]
    within_unit_max_rate: float | None
    required_outputs: tuple[str, ...]
    withholdable: tuple[str, ...]
    bars: tuple[Bar, ...]
    demo: bool
    path: str

    @classmethod
    def from_document(
        cls, document: Document, rules: SharedRules, expected_id: int | None = None
    ) -> tuple[Market | None, list[Finding]]:
        """Return the market, or None and the findings (`registry-invalid` for contract errors).

        Beyond the schema: the id matches the file name, the budget class equals the shared
        rules' table, the unit keys include every shared one (a market may add keys, never drop
        one: shared rules, Unit Rule), and bar ids are unique. A contract for market 14, by its
        file name or its id, is refused with the shared rules' sentence alone, whatever else
        it holds.
        """
        path = document.path
        named = document.data.get("id") if isinstance(document.data, dict) else None
        if rules.is_not_in_registry(expected_id) or rules.is_not_in_registry(named):
            line = document.line_of(("id",))
            return None, [Finding(Code.REGISTRY_INVALID, rules.not_in_registry_message, path, line)]
        findings = [
            Finding(Code.REGISTRY_INVALID, f.message, f.file, f.line)
            for f in validate("market", document.data, path, document.lines)
        ]
        if findings or not isinstance(document.data, dict):
            return None, findings
        data: JSONObject = document.data
        market_id = integer(data, "id")
        budget_class = _BUDGETS[text(data, "adversarial_budget")]

        def problem(message: str, *where: str | int) -> None:
            findings.append(Finding(Code.REGISTRY_INVALID, message, path, document.line_of(where)))

        if expected_id is not None and market_id != expected_id:
            problem(f"id: got {market_id}, expected {expected_id} from the file name", "id")
        table_class = rules.budget_by_market.get(market_id)
        if table_class is None:
            problem(f"id: market {market_id} is not in the shared rules' budget table", "id")
        elif table_class != budget_class:
            problem(
                f"adversarial_budget: got {budget_class!r}, the shared rules'"
                f" table says {table_class!r} for market {market_id}",
                "adversarial_budget",
            )
        listed = texts(data, "unit_keys") if "unit_keys" in data else rules.unit_keys
        dropped = [key for key in rules.unit_keys if key not in listed]
        if dropped:
            problem(
                f"unit_keys: drops {', '.join(dropped)}; a market may add unit keys to the shared"
                f" rules' {', '.join(rules.unit_keys)}, never drop one (shared rules, Unit Rule)",
                "unit_keys",
            )
        bars = objects(data, "bars")
        bar_ids = [text(bar, "id") for bar in bars]
        for index, bar_id in enumerate(bar_ids):
            if bar_ids.index(bar_id) != index:
                problem(f"bars[{index}].id: duplicate bar id {bar_id!r}", "bars", index, "id")
        resolve_by = parse_date(text(data, "resolve_by"))
        if resolve_by is not None and not _calendar_fits(resolve_by, rules):
            problem(
                f"resolve_by: {resolve_by} leaves no room for the filing window and annulment"
                " date before year 10000",
                "resolve_by",
            )
        if findings or resolve_by is None:
            return None, findings
        floors = member(data, "floors")
        within = optional_member(data, "within_unit")
        market = cls(
            id=market_id,
            title=text(data, "title"),
            resolve_by=resolve_by,
            adversarial_budget=budget_class,
            attack_protocol=optional_member(data, "attack_protocol"),
            assumed_access=text(data, "assumed_access"),
            kinds=texts(data, "kinds"),
            min_units=integer(floors, "min_units"),
            min_systems=integer(floors, "min_systems"),
            min_families=integer(floors, "min_families"),
            required_families=texts(floors, "required_families")
            if "required_families" in floors
            else (),
            unit_keys=listed or rules.unit_keys,
            within_unit_max_rate=None if within is None else float(number(within, "max_rate")),
            required_outputs=texts(data, "required_outputs"),
            withholdable=texts(data, "withholdable") if "withholdable" in data else (),
            bars=tuple(Bar.from_data(bar) for bar in bars),
            demo=flag(data, "demo") if "demo" in data else False,
            path=path,
        )
        return market, []

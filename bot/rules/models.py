"""Typed views of the registry's own documents: the shared rules and the market contracts.

Each `from_document` validates once (schema, then cross-field rules) and returns the model or
the findings that explain why there is none; code further down trusts the type.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any, Literal

from bot.rules.evidence.schema import validate
from bot.vocab.dates import MarketDates
from bot.vocab.document import Document
from bot.vocab.findings import Code, Finding
from bot.vocab.timestamps import parse_date

__all__ = ["Bar", "Market", "SharedRules", "market_path"]


def market_path(number: int) -> str:
    """`markets/market-NN.yaml`, NN at least two digits."""
    return f"markets/market-{number:02d}.yaml"


BudgetClass = Literal["default", "serious", "own"]


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
    adversarial: Mapping[str, Any]
    data: Mapping[str, Any]

    @classmethod
    def from_document(cls, document: Document) -> tuple[SharedRules | None, list[Finding]]:
        """Return the shared rules, or None and `schema` findings naming file and line."""
        findings = validate("shared-rules", document.data, document.path, document.lines)
        if findings or not isinstance(document.data, dict):
            return None, findings
        data: dict[str, Any] = document.data
        table = data["adversarial_budget_by_market"]
        budget: dict[int, str] = {}
        for budget_class in ("default", "serious", "own", "not_in_registry"):
            for market in table[budget_class]:
                budget[int(market)] = budget_class
        checks = data["human_checks"]
        rules = cls(
            id=data["id"],
            confidence=float(data["statistics"]["confidence"]),
            max_local_log_bytes=int(data["evidence"]["max_local_log_bytes"]),
            excerpt_bytes=int(data["evidence"]["excerpt_bytes"]),
            window_days=int(data["deadlines"]["window_days"]),
            annul_after_days=int(data["deadlines"]["annul_after_days"]),
            unit_keys=tuple(data["statistics"]["unit_keys"]),
            access_levels=tuple(data["access_levels"]),
            budget_by_market=budget,
            not_in_registry_message=table["not_in_registry_message"],
            checks_all=tuple(check["id"] for check in checks["all"]),
            checks_wrapped=tuple(check["id"] for check in checks["wrapped"]),
            checks_serious=tuple(check["id"] for check in checks["serious"]),
            checks_own=tuple(check["id"] for check in checks["own"]),
            adversarial=data["adversarial"],
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
    statistic: Literal["rate_upper", "rate_lower", "auroc_lower"]
    over_case: Mapping[str, Any]
    over_result: Mapping[str, Any]
    denominator: Literal["supplied", "method_output"]
    # rate_upper: a trial fails when result[field] is in values (`failure`);
    # rate_lower: a trial fails when it is not (`success`).
    predicate_field: str | None
    predicate_values: tuple[Any, ...]
    # Every value the read field may take, when the contract says (empty: not stated).
    allowed: tuple[Any, ...]
    score: str | None
    label_field: str | None
    label_positive: Any
    threshold: float
    title: str
    # auroc_lower: fewer units than this in the smaller class and the bar is not exercised
    # (DeLong's bound covers too seldom there; docs/markets-and-resolution.md).
    min_per_class: int | None = None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Bar:
        predicate = data.get("failure") or data.get("success") or {}
        label = data.get("label") or {}
        threshold = data["max"] if data["statistic"] == "rate_upper" else data["min"]
        floor = data.get("min_per_class")
        return cls(
            id=data["id"],
            statistic=data["statistic"],
            over_case=data["over"].get("case", {}),
            over_result=data["over"].get("result", {}),
            denominator=data.get("denominator", "supplied"),
            predicate_field=predicate.get("field"),
            predicate_values=tuple(predicate.get("in", ())),
            allowed=tuple(predicate.get("values", ()))
            or ((label["positive"], label["negative"]) if "negative" in label else ()),
            score=data.get("score"),
            label_field=label.get("field"),
            label_positive=label.get("positive"),
            threshold=float(threshold),
            title=data.get("title", data["id"]),
            # The schema's integer admits 10.0 (JSON Schema: a number with no fraction).
            min_per_class=None if floor is None else int(floor),
        )


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
    attack_protocol: Mapping[str, Any] | None  # `own` markets (20): the market's own protocol
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
        data: dict[str, Any] = document.data
        market_id = int(data["id"])

        def problem(message: str, *where: str | int) -> None:
            findings.append(Finding(Code.REGISTRY_INVALID, message, path, document.line_of(where)))

        if expected_id is not None and market_id != expected_id:
            problem(f"id: got {market_id}, expected {expected_id} from the file name", "id")
        table_class = rules.budget_by_market.get(market_id)
        if table_class is None:
            problem(f"id: market {market_id} is not in the shared rules' budget table", "id")
        elif table_class != data["adversarial_budget"]:
            problem(
                f"adversarial_budget: got {data['adversarial_budget']!r}, the shared rules'"
                f" table says {table_class!r} for market {market_id}",
                "adversarial_budget",
            )
        listed = data.get("unit_keys", rules.unit_keys)
        dropped = [key for key in rules.unit_keys if key not in listed]
        if dropped:
            problem(
                f"unit_keys: drops {', '.join(dropped)}; a market may add unit keys to the shared"
                f" rules' {', '.join(rules.unit_keys)}, never drop one (shared rules, Unit Rule)",
                "unit_keys",
            )
        bar_ids = [bar["id"] for bar in data["bars"]]
        for index, bar_id in enumerate(bar_ids):
            if bar_ids.index(bar_id) != index:
                problem(f"bars[{index}].id: duplicate bar id {bar_id!r}", "bars", index, "id")
        resolve_by = parse_date(data["resolve_by"])
        if resolve_by is not None and not _calendar_fits(resolve_by, rules):
            problem(
                f"resolve_by: {resolve_by} leaves no room for the filing window and annulment"
                " date before year 10000",
                "resolve_by",
            )
        if findings or resolve_by is None:
            return None, findings
        floors = data["floors"]
        within = data.get("within_unit")
        market = cls(
            id=market_id,
            title=data["title"],
            resolve_by=resolve_by,
            adversarial_budget=data["adversarial_budget"],
            attack_protocol=data.get("attack_protocol"),
            assumed_access=data["assumed_access"],
            kinds=tuple(data["kinds"]),
            min_units=int(floors["min_units"]),
            min_systems=int(floors["min_systems"]),
            min_families=int(floors["min_families"]),
            required_families=tuple(floors.get("required_families", ())),
            unit_keys=tuple(data.get("unit_keys") or rules.unit_keys),
            within_unit_max_rate=None if within is None else float(within["max_rate"]),
            required_outputs=tuple(data["required_outputs"]),
            withholdable=tuple(data.get("withholdable", ())),
            bars=tuple(Bar.from_data(bar) for bar in data["bars"]),
            demo=bool(data.get("demo", False)),
            path=path,
        )
        return market, []

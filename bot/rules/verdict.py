"""What the bot concludes about one attempt, typed (docs/spec.md §12 gives its JSON shape).

Evidence is `valid` when no finding of severity error remains, among the attempt's own and
those of the pull request that changes it. Qualification (status) and the outcome against the
bars are filled in by the judge only for valid evidence; until then they are None. JSON is made
from these types in `bot/app/report_json/` only.

Each type refuses, when built, a combination the judge could never give (`ImpossibleVerdict`):
the rules tying status and outcome to the evidence hold for every verdict in memory, whether
the judge made it or a report read back did. Containers are stored frozen (tuples, read-only
mappings), so a verdict cannot change after it was checked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Literal, TypeVar

from bot.vocab.findings import Finding, Severity

__all__ = [
    "AttemptOutcome",
    "AttemptVerdict",
    "BarResult",
    "CheckState",
    "CheckStateName",
    "Counts",
    "ImpossibleVerdict",
    "Statistic",
    "Status",
    "UnitSummary",
    "frozen_map",
]

Status = Literal["qualifying", "not-qualifying", "pending-judgment"]
AttemptOutcome = Literal["met", "missed"]
Statistic = Literal["rate_upper", "rate_lower", "auroc_lower"]
# A human check as judged: its recorded verdict, or why it does not count.
CheckStateName = Literal["pass", "fail", "unsettled", "missing", "stale", "late"]

_K = TypeVar("_K")
_V = TypeVar("_V")


class ImpossibleVerdict(ValueError):
    """A verdict no judge could give (a bug in the judge, or a report edited by hand). The
    report reader turns it into `ReportError`, naming the entry."""


def frozen_map(items: Mapping[_K, _V] | Iterable[tuple[_K, _V]]) -> Mapping[_K, _V]:
    """A read-only copy of `items` (a frozen dataclass's mapping field)."""
    return MappingProxyType(dict(items))


def _store(instance: object, name: str, value: object) -> None:
    """Set a field of a frozen dataclass from its `__post_init__` (freezing a container)."""
    object.__setattr__(instance, name, value)


def _negative(what: str, **counts: int | None) -> None:
    for name, count in counts.items():
        if count is not None and count < 0:
            raise ImpossibleVerdict(f"{what}: {name} is {count}, a count is never negative")


@dataclass(frozen=True, slots=True)
class BarResult:
    """One bar evaluated on one attempt. `met` is None when the bar was not exercised."""

    bar_id: str
    statistic: Statistic
    threshold: float
    exercised: bool
    failures: int | None = None
    units: int | None = None
    bound: float | None = None
    auroc: float | None = None
    positives: int | None = None
    negatives: int | None = None
    met: bool | None = None
    note: str = ""
    refused: bool = False  # the bar's trials share a unit: its statistic does not apply
    # AUROC bars with a bound: the simulated coverage of DeLong's nominal bound at these units
    # per class and this AUROC (bot/rules/stats/coverage.py; None where the table does not apply),
    # and a better-calibrated bound reported beside it as information (the decision is DeLong's).
    coverage: float | None = None
    alt_method: str | None = None
    alt_bound: float | None = None

    def __post_init__(self) -> None:
        where = f"bar {self.bar_id!r}"
        if self.statistic != "auroc_lower" and (
            self.coverage is not None or self.alt_method is not None or self.alt_bound is not None
        ):
            raise ImpossibleVerdict(f"{where}: coverage is for AUROC bars only")
        if (self.alt_method is None) != (self.alt_bound is None):
            raise ImpossibleVerdict(f"{where}: the alternative bound goes with its method")
        if self.exercised != (self.met is not None):
            raise ImpossibleVerdict(
                f"{where}: exercised {self.exercised} with met {self.met}: a bar is met or"
                " missed when exercised, and only then"
            )
        if self.refused and (self.exercised or self.statistic != "auroc_lower"):
            raise ImpossibleVerdict(f"{where}: only an AUROC bar not exercised is refused")
        _negative(
            where,
            failures=self.failures,
            units=self.units,
            positives=self.positives,
            negatives=self.negatives,
        )


@dataclass(frozen=True, slots=True)
class CheckState:
    """One required human check: its state and the judgment recorded for it, if any."""

    state: CheckStateName
    verdict: Literal["pass", "fail", "unsettled"] | None = None
    by: str | None = None
    at: str | None = None
    # wrapping-within-rules: what the adapter says it did, for the maintainer who judges it.
    adapter_description: str | None = None

    def __post_init__(self) -> None:
        # A recorded judgment counts as its verdict (pass, fail, unsettled), or does not count
        # (stale, late); missing is the one state without a recorded judgment.
        if (self.state == "missing") != (self.verdict is None):
            raise ImpossibleVerdict(
                f"state {self.state} with verdict {self.verdict}: a check is missing when no"
                " judgment is recorded, and only then"
            )
        if self.state in ("pass", "fail", "unsettled") and self.verdict != self.state:
            raise ImpossibleVerdict(f"state {self.state} with verdict {self.verdict}")


@dataclass(frozen=True, slots=True)
class UnitSummary:
    """The unit structure of the scored trials (docs/spec.md §6): count, largest, joins and
    nulls."""

    count: int
    largest: int
    nulls_per_key: Mapping[str, int] = field(default_factory=dict)
    joins_per_key: Mapping[str, int] = field(default_factory=dict)
    joined_most_by: str | None = None
    # How the largest units formed and what would separate them (bot/rules/stats/formation.py):
    # shown by verify and explain, kept in the cache, not in the JSON report.
    formation: tuple[str, ...] = ()

    def __post_init__(self) -> None:
        _store(self, "nulls_per_key", frozen_map(self.nulls_per_key))
        _store(self, "joins_per_key", frozen_map(self.joins_per_key))
        _store(self, "formation", tuple(self.formation))
        _negative("units", count=self.count, largest=self.largest)
        for name, per_key in (("nulls", self.nulls_per_key), ("joins", self.joins_per_key)):
            for key, count in per_key.items():
                if count < 0:
                    raise ImpossibleVerdict(f"units: {count} {name} of {key!r}, never negative")
        if (self.count == 0) != (self.largest == 0):
            raise ImpossibleVerdict(
                f"units: {self.count} units, the largest of {self.largest} trials: a unit"
                " holds at least one trial"
            )
        busiest = max(self.joins_per_key.values(), default=0)
        if self.joined_most_by is None:
            if busiest:
                raise ImpossibleVerdict(f"units: joined_most_by is null, a key joined {busiest}")
        elif busiest == 0 or self.joins_per_key.get(self.joined_most_by) != busiest:
            raise ImpossibleVerdict(
                f"units: joined_most_by {self.joined_most_by!r} is not the key that joined most"
            )


@dataclass(frozen=True, slots=True)
class Counts:
    """How much evidence the folder holds."""

    files: int = 0
    cases: int = 0
    trials: int = 0
    systems: int = 0
    families: int = 0

    def __post_init__(self) -> None:
        _negative(
            "counts",
            files=self.files,
            cases=self.cases,
            trials=self.trials,
            systems=self.systems,
            families=self.families,
        )


@dataclass(frozen=True, slots=True)
class AttemptVerdict:
    """One attempt's findings and conclusions.

    `reasons` in the JSON report lists the evidence findings, then the qualification ones.
    """

    attempt: str
    market: int | None
    kind: str | None
    findings: Sequence[Finding] = ()  # evidence problems: any error makes the evidence invalid
    qualification: Sequence[Finding] = ()  # why valid evidence does not qualify (docs/spec.md §7)
    digest: str | None = None
    status: Status | None = None
    outcome: AttemptOutcome | None = None
    bars: Sequence[BarResult] = ()
    class_conditional: Mapping[str, Mapping[str, Mapping[str, int]]] = field(default_factory=dict)
    checks: Mapping[str, CheckState] = field(default_factory=dict)
    counts: Counts = Counts()
    units: UnitSummary | None = None
    # What the pull request that changes this attempt may not change: listed once in the
    # report's `pr_problems`, they make this attempt's evidence invalid too.
    pr_problems: Sequence[Finding] = ()

    def __post_init__(self) -> None:
        _store(self, "findings", tuple(self.findings))
        _store(self, "qualification", tuple(self.qualification))
        _store(self, "bars", tuple(self.bars))
        _store(self, "pr_problems", tuple(self.pr_problems))
        _store(self, "checks", frozen_map(self.checks))
        _store(
            self,
            "class_conditional",
            frozen_map(
                (key, frozen_map((label, frozen_map(row)) for label, row in table.items()))
                for key, table in self.class_conditional.items()
            ),
        )
        self._check_status()

    def _check_status(self) -> None:
        """Status and outcome follow from the evidence, the qualification reasons, the human
        checks and the bars (docs/spec.md §7) as `bot/rules/qualification.py` decides them."""
        where = f"attempt {self.attempt!r}"
        if self.evidence == "invalid" and (self.status or self.outcome):
            raise ImpossibleVerdict(f"{where}: invalid evidence has no status or outcome")
        if (self.status == "qualifying") != (self.outcome is not None):
            raise ImpossibleVerdict(
                f"{where}: an outcome goes with status qualifying, and only with it"
            )
        if self.status in ("qualifying", "pending-judgment") and self.qualification:
            raise ImpossibleVerdict(
                f"{where}: a {self.status} attempt has no qualification reasons"
            )
        if self.status == "not-qualifying" and not self.qualification:
            raise ImpossibleVerdict(
                f"{where}: a not-qualifying attempt has a qualification reason saying why"
            )
        unpassed = sorted(name for name, check in self.checks.items() if check.state != "pass")
        if self.status == "qualifying" and unpassed:
            raise ImpossibleVerdict(
                f"{where}: a qualifying attempt passed every human check, not {unpassed[0]!r}"
            )
        if self.status == "pending-judgment" and not unpassed:
            raise ImpossibleVerdict(
                f"{where}: a pending-judgment attempt waits for a human check not yet passed"
            )
        # An outcome met needs every bar met; missed, a bar not met (the report keeps the bars).
        missed = [bar.bar_id for bar in self.bars if not bar.met]
        if self.outcome == "met" and missed:
            raise ImpossibleVerdict(f"{where}: outcome met, but bar {missed[0]!r} was not met")
        if self.outcome == "missed" and not missed:
            raise ImpossibleVerdict(f"{where}: outcome missed, but every bar was met")

    @property
    def evidence(self) -> Literal["valid", "invalid"]:
        """`invalid` while any error finding stands, the attempt's own or its pull request's
        (the PR check is red)."""
        errors = [f for f in [*self.findings, *self.pr_problems] if f.severity is Severity.ERROR]
        return "invalid" if errors else "valid"

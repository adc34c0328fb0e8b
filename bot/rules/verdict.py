"""What the bot concludes about one attempt, typed (docs/spec.md §12 gives its JSON shape).

Evidence is `valid` when no finding of severity error remains, among the attempt's own and
those of the pull request that changes it. Qualification (status) and the outcome against the
bars are filled in by the judge only for valid evidence; until then they are None. JSON is made
from these types in `bot/app/report_json.py` only.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot.vocab.findings import Finding, Severity

__all__ = [
    "AttemptOutcome",
    "AttemptVerdict",
    "BarResult",
    "CheckState",
    "CheckStateName",
    "Counts",
    "Statistic",
    "Status",
    "UnitSummary",
]

Status = Literal["qualifying", "not-qualifying", "pending-judgment"]
AttemptOutcome = Literal["met", "missed"]
Statistic = Literal["rate_upper", "rate_lower", "auroc_lower"]
# A human check as judged: its recorded verdict, or why it does not count.
CheckStateName = Literal["pass", "fail", "unsettled", "missing", "stale", "late"]


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


@dataclass(frozen=True, slots=True)
class CheckState:
    """One required human check: its state and the judgment recorded for it, if any."""

    state: CheckStateName
    verdict: Literal["pass", "fail", "unsettled"] | None = None
    by: str | None = None
    at: str | None = None
    # wrapping-within-rules: what the adapter says it did, for the maintainer who judges it.
    adapter_description: str | None = None


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


@dataclass(frozen=True, slots=True)
class Counts:
    """How much evidence the folder holds."""

    files: int = 0
    cases: int = 0
    trials: int = 0
    systems: int = 0
    families: int = 0


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

    @property
    def evidence(self) -> Literal["valid", "invalid"]:
        """`invalid` while any error finding stands, the attempt's own or its pull request's
        (the PR check is red)."""
        errors = [f for f in [*self.findings, *self.pr_problems] if f.severity is Severity.ERROR]
        return "invalid" if errors else "valid"

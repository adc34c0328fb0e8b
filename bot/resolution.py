"""Market resolution (SPEC 5, 7; seed "Three Way Rule", "Deadlines").

A pure function of the market's dates, its attempts' verdicts, the snapshot's state and the
date resolved on. YES: at least one qualifying attempt met the bars (even if another missed).
NO: at least one qualifying attempt, and every one missed. OTHER: none qualifies. ANNULLED: the
window closed, the annulment date passed, and neither the snapshot tag nor its archive copy
exists: a registry failure, never OTHER.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Literal

from bot.dates import MarketDates
from bot.models import Market
from bot.verdict import AttemptOutcome, AttemptVerdict, Status

__all__ = [
    "AttemptSummary",
    "MarketOutcome",
    "MarketResolution",
    "MarketState",
    "Snapshot",
    "resolve_market",
    "three_way",
]

MarketOutcome = Literal["YES", "NO", "OTHER", "ANNULLED"]
MarketState = Literal["open", "filing-window", "closed", "annulled"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Whether `snapshot-<R>` exists as a git tag and as an archived copy."""

    tag: str
    tag_exists: bool
    archived: bool
    archive_ref: str | None = None


@dataclass(frozen=True, slots=True)
class AttemptSummary:
    """One attempt as its market's resolution counts it."""

    attempt: str
    evidence: Literal["valid", "invalid"]
    status: Status | None
    outcome: AttemptOutcome | None
    reasons: tuple[str, ...]  # the reason codes of its errors, sorted

    @property
    def counts(self) -> bool:
        """True when the attempt is qualifying, so it counts for the Three Way Rule."""
        return self.status == "qualifying"

    @classmethod
    def of(cls, verdict: AttemptVerdict) -> AttemptSummary:
        findings = [*verdict.findings, *verdict.qualification]
        codes = sorted({f.code.value for f in findings if f.severity == "error"})
        return cls(verdict.attempt, verdict.evidence, verdict.status, verdict.outcome, tuple(codes))


@dataclass(frozen=True)
class MarketResolution:
    """One market's state and outcome as of a date, with each attempt's verdict and why."""

    market: int
    title: str
    demo: bool
    dates: MarketDates
    as_of: date
    state: MarketState
    outcome: MarketOutcome | None
    provisional: MarketOutcome | None
    why: str
    attempts: Sequence[AttemptSummary]
    snapshot: Snapshot
    warnings: Sequence[str] = field(default_factory=tuple)
    source: str = ""  # the tree the attempts were read from (a working tree, or the snapshot)


def three_way(attempts: Sequence[AttemptSummary]) -> tuple[MarketOutcome, str]:
    """The Three Way Rule over attempts' current verdicts. Returns the outcome and why."""
    qualifying = [v for v in attempts if v.evidence == "valid" and v.status == "qualifying"]
    met = [v.attempt for v in qualifying if v.outcome == "met"]
    if met:
        return "YES", f"qualifying attempt {met[0]} met every bar" + (
            f" ({len(met)} did)" if len(met) > 1 else ""
        )
    if qualifying:
        return "NO", f"{len(qualifying)} qualifying attempt(s), and every one missed the bars"
    return "OTHER", (
        f"no qualifying attempt among {len(attempts)} filed" if attempts else "no attempt was filed"
    )


def resolve_market(
    market: Market,
    dates: MarketDates,
    attempts: Sequence[AttemptVerdict],
    snapshot: Snapshot,
    as_of: date,
    notes: Sequence[str] = (),
    source: str = "",
) -> MarketResolution:
    """Resolve one market as of `as_of`.

    Before the window closes the outcome is None (`provisional` says what the attempts
    would give now). Once it has closed, the Three Way Rule decides, unless the annulment
    date has passed with neither the snapshot tag nor its archive copy: ANNULLED. `notes`
    are warnings the caller adds (checks it did not run).
    """
    state = dates.state(as_of)
    summaries = tuple(AttemptSummary.of(verdict) for verdict in attempts)
    provisional, why = three_way(summaries)
    head = (market.id, market.title, market.demo, dates, as_of)
    warnings: list[str] = list(notes)
    if state != "closed":
        return MarketResolution(
            *head,
            state,
            None,
            provisional,
            f"{state}: provisionally {provisional}, because {why}",
            summaries,
            snapshot,
            tuple(warnings),
            source,
        )
    missing = [
        name
        for name, present in (
            ("the tag", snapshot.tag_exists),
            ("its archive copy", snapshot.archived),
        )
        if not present
    ]
    if len(missing) == 2 and as_of > dates.annul_on:
        why = (
            f"neither {snapshot.tag} nor its archive copy existed by {dates.annul_on}:"
            " a registry failure, not OTHER"
        )
        return MarketResolution(
            *head,
            "annulled",
            "ANNULLED",
            provisional,
            why,
            summaries,
            snapshot,
            (why, *warnings),
            source,
        )
    if missing:
        warnings.append(
            f"{snapshot.tag}: {' and '.join(missing)} missing; the market is"
            f" annulled after {dates.annul_on} if neither exists"
        )
    return MarketResolution(
        *head,
        "closed",
        provisional,
        provisional,
        why,
        summaries,
        snapshot,
        tuple(warnings),
        source,
    )

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
from typing import Any, Literal

from bot.dates import MarketDates
from bot.models import Market
from bot.verdict import AttemptVerdict

__all__ = ["MarketResolution", "Snapshot", "resolve_market", "three_way"]

Outcome = Literal["YES", "NO", "OTHER", "ANNULLED"]


@dataclass(frozen=True, slots=True)
class Snapshot:
    """Whether `snapshot-<R>` exists as a git tag and as an archived copy."""

    tag: str
    tag_exists: bool
    archived: bool
    archive_ref: str | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "tag": self.tag,
            "tag_exists": self.tag_exists,
            "archived": self.archived,
            "archive_ref": self.archive_ref,
        }


@dataclass(frozen=True)
class MarketResolution:
    """One market's state and outcome as of a date, with each attempt's verdict and why."""

    market: Market
    dates: MarketDates
    as_of: date
    state: str
    outcome: Outcome | None
    provisional: Outcome | None
    why: str
    attempts: Sequence[AttemptVerdict]
    snapshot: Snapshot
    warnings: Sequence[str] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        """The SPEC 12 per-market object (schemas/resolve-report.schema.json)."""
        return {
            "market": self.market.id,
            "title": self.market.title,
            "demo": self.market.demo,
            "resolve_by": self.dates.resolve_by.isoformat(),
            "window_closes": self.dates.window_closes.isoformat(),
            "annul_on": self.dates.annul_on.isoformat(),
            "as_of": self.as_of.isoformat(),
            "state": self.state,
            "outcome": self.outcome,
            "provisional_outcome": self.provisional,
            "why": self.why,
            "warnings": list(self.warnings),
            "snapshot": self.snapshot.to_json(),
            "attempts": [_attempt_json(verdict) for verdict in self.attempts],
        }


def _attempt_json(verdict: AttemptVerdict) -> dict[str, Any]:
    reasons = [*verdict.findings, *verdict.qualification]
    return {
        "attempt": verdict.attempt,
        "evidence": verdict.evidence,
        "status": verdict.status,
        "outcome": verdict.outcome,
        "reasons": sorted(
            {finding.code.value for finding in reasons if finding.severity == "error"}
        ),
        "counts": verdict.status == "qualifying",
    }


def three_way(attempts: Sequence[AttemptVerdict]) -> tuple[Outcome, str]:
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
) -> MarketResolution:
    """Resolve one market as of `as_of`.

    Before the window closes the outcome is None (`provisional` says what the attempts
    would give now). Once it has closed, the Three Way Rule decides, unless the annulment
    date has passed with neither the snapshot tag nor its archive copy: ANNULLED. `notes`
    are warnings the caller adds (checks it did not run).
    """
    state = dates.state(as_of)
    provisional, why = three_way(attempts)
    warnings: list[str] = list(notes)
    if state != "closed":
        return MarketResolution(
            market,
            dates,
            as_of,
            state,
            None,
            provisional,
            f"{state}: provisionally {provisional}, because {why}",
            attempts,
            snapshot,
            tuple(warnings),
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
            market,
            dates,
            as_of,
            "annulled",
            "ANNULLED",
            provisional,
            why,
            attempts,
            snapshot,
            (why, *warnings),
        )
    if missing:
        warnings.append(
            f"{snapshot.tag}: {' and '.join(missing)} missing; the market is"
            f" annulled after {dates.annul_on} if neither exists"
        )
    return MarketResolution(
        market,
        dates,
        as_of,
        "closed",
        provisional,
        provisional,
        why,
        attempts,
        snapshot,
        tuple(warnings),
    )

"""What the bot concludes about one attempt, in the shape of SPEC section 12.

Evidence is `valid` when no finding of severity error remains. Qualification (status) and the
outcome against the bars are filled in by the qualification stage; until then they are None.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

from bot.findings import Finding, Severity

__all__ = ["AttemptVerdict"]

Status = Literal["qualifying", "not-qualifying", "pending-judgment"]
Outcome = Literal["met", "missed"]


@dataclass(frozen=True, slots=True)
class AttemptVerdict:
    """One attempt's findings and conclusions.

    `reasons` in the JSON report lists the evidence findings, then the qualification ones.
    """

    attempt: str
    market: int | None
    kind: str | None
    findings: Sequence[Finding]  # evidence problems: any error makes the evidence invalid
    registry_findings: Sequence[Finding] = ()
    qualification: Sequence[Finding] = ()  # why valid evidence does not qualify (SPEC 7)
    digest: str | None = None
    status: Status | None = None
    outcome: Outcome | None = None
    bars: Sequence[Mapping[str, Any]] = ()
    class_conditional: Mapping[str, Any] = field(default_factory=dict)
    checks: Mapping[str, Any] = field(default_factory=dict)
    counts: Mapping[str, int] = field(default_factory=dict)
    units: Mapping[str, Any] = field(default_factory=dict)

    @property
    def evidence(self) -> Literal["valid", "invalid"]:
        """`invalid` while any error finding stands (the PR check is red)."""
        errors = [f for f in self.findings if f.severity is Severity.ERROR]
        return "invalid" if errors else "valid"

    def to_json(self) -> dict[str, Any]:
        """The SPEC 12 per-attempt object, plus the evidence digest and counts."""
        return {
            "attempt": self.attempt,
            "market": self.market,
            "kind": self.kind,
            "evidence": self.evidence,
            "status": self.status,
            "outcome": self.outcome,
            "reasons": [
                *({**finding.to_json(), "stage": "evidence"} for finding in self.findings),
                *(
                    {**finding.to_json(), "stage": "qualification"}
                    for finding in self.qualification
                ),
            ],
            "registry_problems": [finding.to_json() for finding in self.registry_findings],
            "bars": [dict(bar) for bar in self.bars],
            "class_conditional": dict(self.class_conditional),
            "checks": dict(self.checks),
            "evidence_digest": self.digest,
            "counts": dict(self.counts),
            "units": dict(self.units),
        }

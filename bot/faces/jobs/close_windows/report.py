"""What one run of the close job did: the plan, the steps done, the errors and problems."""

from __future__ import annotations

from dataclasses import dataclass, field

from bot.faces.jobs.plan import Plan
from bot.vocab.findings import Finding

__all__ = ["CloseReport"]


@dataclass
class CloseReport:
    plan: Plan
    done: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        blocked = any(m.phase == "blocked" for m in self.plan.markets)
        return bool(self.errors) or blocked or any(p.severity == "error" for p in self.problems)

    def render(self) -> str:
        lines = [self.plan.render().rstrip("\n")]
        lines += [f"done: {line}" for line in self.done]
        lines += [f"{p.severity}: {p.code.value}: {p.message}" for p in self.problems]
        lines += [f"error: {line}" for line in self.errors]
        lines += [
            f"error: market {m.market} blocked: {m.note}"
            for m in self.plan.markets
            if m.phase == "blocked"
        ]
        return "\n".join(lines) + "\n"

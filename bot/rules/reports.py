"""The reports the app returns: `VerifyReport` (`claims verify`) and `ResolveReport`
(`claims resolve`).

Plain data, kept out of `bot/app/api.py` so the renderers in `bot/faces/report/` can name them
without importing the app's workflows (which read git and run the judge); `bot.app.api`
re-exports both. They turn into JSON and back only in `bot/app/report_json/`
(`report_to_json`, `verify_report_from_json`, `resolve_report_from_json`), which imports them:
never the other way round, so the two modules make no circle.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date

from bot.rules.challenge.judge import RunVerdict
from bot.rules.resolution import MarketResolution
from bot.rules.verdict import AttemptVerdict
from bot.vocab.findings import Finding

__all__ = ["ResolveReport", "VerifyReport"]


@dataclass(frozen=True)
class VerifyReport:
    """`claims verify`: each attempt's verdict, and the registry's and the PR's problems."""

    attempts: Sequence[AttemptVerdict]
    registry_problems: Sequence[Finding] = ()
    pr_problems: Sequence[Finding] = ()  # what a pull request's diff may not change
    base_ref: str | None = None
    tree: str = ""  # what was read: a working tree or a git commit
    challenge_runs: Sequence[RunVerdict] = ()  # the challenge runs verified (docs/spec.md §11)

    @property
    def evidence(self) -> str:
        """`invalid` when any attempt's evidence or challenge run is invalid, or the PR
        changes what it may not."""
        bad = (
            any(v.evidence == "invalid" for v in self.attempts)
            or any(run.evidence == "invalid" for run in self.challenge_runs)
            or any(f.severity == "error" for f in self.pr_problems)
        )
        return "invalid" if bad else "valid"


@dataclass(frozen=True)
class ResolveReport:
    """`claims resolve`: each market's resolution as of a date, and registry problems."""

    as_of: date
    markets: Sequence[MarketResolution]
    registry_problems: Sequence[Finding] = field(default_factory=tuple)

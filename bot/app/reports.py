"""The reports the app returns: `VerifyReport` (`claims verify`) and `ResolveReport`
(`claims resolve`).

They are the app layer's vocabulary, kept out of `bot/app/api.py` so the renderers and the JSON
reader in `bot/faces/report/` can name them without importing the app (which reads git and runs the
judge). `bot.app.api` re-exports both. They turn into JSON (and back) only through
`bot/app/report_json.py`, imported when `to_json`/`from_json` is called.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

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

    def to_json(self) -> dict[str, Any]:
        from bot.app.report_json import verify_report_to_json

        return verify_report_to_json(self)

    @classmethod
    def from_json(cls, data: object) -> VerifyReport:
        """Raises `ReportError` naming the field when `data` is no valid report."""
        from bot.app.report_json import verify_report_from_json

        return verify_report_from_json(data)


@dataclass(frozen=True)
class ResolveReport:
    """`claims resolve`: each market's resolution as of a date, and registry problems."""

    as_of: date
    markets: Sequence[MarketResolution]
    registry_problems: Sequence[Finding] = field(default_factory=tuple)

    def to_json(self) -> dict[str, Any]:
        from bot.app.report_json import resolve_report_to_json

        return resolve_report_to_json(self)

    @classmethod
    def from_json(cls, data: object) -> ResolveReport:
        """Raises `ReportError` naming the field when `data` is no valid report."""
        from bot.app.report_json import resolve_report_from_json

        return resolve_report_from_json(data)

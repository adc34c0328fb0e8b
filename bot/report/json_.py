"""The machine-readable report of `claims verify --json` (SPEC 12; schemas/verify-report)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from datetime import date
from typing import Any

from bot import __version__
from bot.findings import Finding
from bot.resolution import MarketResolution
from bot.verdict import AttemptVerdict

__all__ = ["render_json", "render_resolution_json"]

REPORT_VERSION = 1


def render_json(
    verdicts: Sequence[AttemptVerdict],
    registry_findings: Sequence[Finding] = (),
    base_ref: str | None = None,
) -> str:
    """Return the report as JSON text (sorted keys, UTF-8, one trailing newline)."""
    report: dict[str, Any] = {
        "report_version": REPORT_VERSION,
        "bot_version": __version__,
        "base_ref": base_ref,
        "evidence": "invalid" if any(v.evidence == "invalid" for v in verdicts) else "valid",
        "registry_problems": [finding.to_json() for finding in registry_findings],
        "attempts": [verdict.to_json() for verdict in verdicts],
    }
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def render_resolution_json(
    resolutions: Sequence[MarketResolution], as_of: date, registry_findings: Sequence[Finding]
) -> str:
    """`claims resolve --json`: per market (schemas/resolve-report.schema.json)."""
    report = {
        "report_version": REPORT_VERSION,
        "bot_version": __version__,
        "as_of": as_of.isoformat(),
        "registry_problems": [finding.to_json() for finding in registry_findings],
        "markets": [resolution.to_json() for resolution in resolutions],
    }
    return json.dumps(report, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

"""The machine-readable report of `claims verify --json` (SPEC 12; schemas/verify-report)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from bot import __version__
from bot.findings import Finding
from bot.verdict import AttemptVerdict

__all__ = ["render_json"]

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

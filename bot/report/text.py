"""The terminal summary of `claims verify`: one block per attempt, problems by file and line."""

from __future__ import annotations

from collections.abc import Sequence

from bot.findings import Finding
from bot.verdict import AttemptVerdict

__all__ = ["render_text"]


def _finding_line(finding: Finding) -> str:
    where = finding.location() or "-"
    marker = "warning" if finding.severity == "warning" else "error"
    return f"    {marker:7} {finding.code.value:22} {where}\n            {finding.message}"


def render_text(
    verdicts: Sequence[AttemptVerdict], registry_findings: Sequence[Finding] = ()
) -> str:
    """Return the human summary, ending with a one-line total."""
    blocks = []
    for verdict in verdicts:
        head = f"{verdict.attempt}"
        market = f"market {verdict.market}" if verdict.market is not None else "market ?"
        status = "VALID" if verdict.evidence == "valid" else "INVALID"
        counts = verdict.counts
        detail = (
            f"  {market} · {verdict.kind or '?'} · {counts.get('cases', 0)} cases ·"
            f" {counts.get('trials', 0)} trials · {counts.get('systems', 0)} systems"
        )
        lines = [f"{status:8} {head}", detail]
        if verdict.digest:
            lines.append(f"  evidence digest {verdict.digest}")
        if verdict.status:
            lines.append(
                f"  status {verdict.status}"
                + (f" · outcome {verdict.outcome}" if verdict.outcome else "")
            )
        lines += [_finding_line(finding) for finding in verdict.findings]
        blocks.append("\n".join(lines))
    if registry_findings:
        lines = ["REGISTRY problems (a maintainer must fix these):"]
        lines += [_finding_line(finding) for finding in registry_findings]
        blocks.append("\n".join(lines))
    invalid = sum(1 for verdict in verdicts if verdict.evidence == "invalid")
    total = f"{len(verdicts)} attempt(s): {len(verdicts) - invalid} valid, {invalid} invalid" + (
        f"; {len(registry_findings)} registry problem(s)" if registry_findings else ""
    )
    return "\n\n".join([*blocks, total]) + "\n"

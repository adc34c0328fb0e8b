"""The terminal summary of `claims verify`: one block per attempt, problems by file and line."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from typing import Any

from bot.findings import Finding
from bot.resolution import MarketResolution
from bot.verdict import AttemptVerdict

__all__ = ["render_resolution", "render_text"]


# Past this many findings with the same code in the same file, the terminal shows a count
# (the JSON report keeps every one).
_SAME_SHOWN = 5


def _finding_lines(findings: Sequence[Finding]) -> list[str]:
    lines: list[str] = []
    seen: dict[tuple[str, str | None], int] = {}
    for finding in findings:
        key = (finding.code.value, finding.file)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] <= _SAME_SHOWN:
            lines.append(_finding_line(finding))
    for (code, file), count in seen.items():
        if count > _SAME_SHOWN:
            lines.append(f"            ... and {count - _SAME_SHOWN} more {code} in {file}")
    return lines


def _finding_line(finding: Finding) -> str:
    where = finding.location() or "-"
    marker = "warning" if finding.severity == "warning" else "error"
    message = finding.message.replace("\n", "\n            ")
    return f"    {marker:7} {finding.code.value:22} {where}\n            {message}"


def _number(value: Any) -> str:
    return "none" if value is None else f"{value:.4f}"


def _bar_line(bar: Mapping[str, Any]) -> str:
    if not bar.get("exercised"):
        return f"    bar {bar['id']}: not exercised ({bar.get('note', '')})"
    met = "met" if bar.get("met") else "missed"
    note = f"; {bar['note']}" if bar.get("note") else ""
    if bar["statistic"] == "auroc_lower":
        return (
            f"    bar {bar['id']}: AUROC {_number(bar.get('auroc'))}, lower bound"
            f" {_number(bar.get('bound'))} >= {bar['threshold']}? {met}"
            f" ({bar.get('positives')} positive, {bar.get('negatives')} negative units{note})"
        )
    sign = "<=" if bar["statistic"] == "rate_upper" else ">="
    return (
        f"    bar {bar['id']}: {bar.get('failures')} failing of {bar.get('units')} units,"
        f" bound {_number(bar.get('bound'))} {sign} {bar['threshold']}? {met}{note}"
    )


def _qualification_lines(verdict: AttemptVerdict) -> list[str]:
    assert verdict.status is not None
    outcome = f" · outcome {verdict.outcome}" if verdict.outcome else ""
    lines = [f"  {verdict.status.upper()}{outcome}"]
    lines += [_bar_line(bar) for bar in verdict.bars]
    units = verdict.units
    if units:
        joined = units.get("joined_most_by") or "nothing"
        lines.append(
            f"    units: {units.get('count')} (largest {units.get('largest')}, joined"
            f" most by {joined}; nulls per key {units.get('nulls_per_key')})"
        )
    lines += _finding_lines(verdict.qualification)
    waiting = [
        f"{name} ({check.get('state')})"
        for name, check in verdict.checks.items()
        if check.get("state") != "pass"
    ]
    if waiting:
        lines.append(f"    human checks not passed: {', '.join(waiting)}")
    return lines


def render_resolution(
    resolutions: Sequence[MarketResolution],
    as_of: date,
    registry_findings: Sequence[Finding],
    brief: bool = False,
) -> str:
    """The human summary of `claims resolve`: one block per market, each attempt's verdict
    (`brief`: one line per market)."""
    if brief:
        lines = [
            f"market {r.market.id:>2}: {r.state:13} "
            f"{r.outcome or '(provisionally ' + str(r.provisional) + ')'}"
            for r in resolutions
        ]
        return "\n".join([*lines, f"{len(resolutions)} market(s) as of {as_of}"]) + "\n"
    blocks = []
    for resolution in resolutions:
        market = resolution.market
        outcome = resolution.outcome or f"(provisionally {resolution.provisional})"
        head = (
            f"market {market.id}{' (demo)' if market.demo else ''}: {outcome}"
            f" · {resolution.state} · resolve-by {resolution.dates.resolve_by},"
            f" window closes {resolution.dates.window_closes}"
        )
        lines = [head, f"  {market.title}", f"  why: {resolution.why}"]
        lines += [
            f"  warning: {warning}" for warning in resolution.warnings if warning != resolution.why
        ]
        for verdict in resolution.attempts:
            codes = sorted(
                {
                    f.code.value
                    for f in (*verdict.findings, *verdict.qualification)
                    if f.severity == "error"
                }
            )
            status = verdict.status or f"evidence {verdict.evidence}"
            outcome_text = f" ({verdict.outcome})" if verdict.outcome else ""
            lines.append(
                f"    {status + outcome_text:24} {verdict.attempt}"
                + (f"  [{', '.join(codes)}]" if codes else "")
            )
        blocks.append("\n".join(lines))
    if registry_findings:
        lines = ["REGISTRY problems (a maintainer must fix these):"]
        lines += [_finding_line(finding) for finding in registry_findings]
        blocks.append("\n".join(lines))
    blocks.append(f"{len(resolutions)} market(s) as of {as_of}")
    return "\n\n".join(blocks) + "\n"


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
        lines += _finding_lines(verdict.findings)
        if verdict.status:
            lines += _qualification_lines(verdict)
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

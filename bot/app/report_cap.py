"""Findings capped per reason code and file, for every report (JSON, text, Markdown, GitHub).

A hostile or broken attempt can hold 50,000 bad lines, each with several findings: listing
them all made a 64 MB JSON report (and as many check-run annotations) that no one reads past
the first screen. So a report lists at most `FINDINGS_PER_CODE_AND_FILE` findings of one
reason code in one file: the first ones as found, then one finding that counts the rest
(`Finding.left_out`: same code and file, no line, the most severe severity among those it
stands for, so the evidence and every verdict read from the report stay the same). The
verdicts themselves keep every finding; only what is written is capped.

Capping is idempotent: a capped list (a report read back) is never capped again, since each
group holds at most the cap, its summary included.
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.vocab.findings import Code, Finding, Severity

__all__ = ["FINDINGS_PER_CODE_AND_FILE", "cap_findings", "count_findings", "left_out"]

FINDINGS_PER_CODE_AND_FILE = 20

_RANK = {Severity.ERROR: 0, Severity.WARNING: 1, Severity.NOTICE: 2}


def count_findings(findings: Sequence[Finding]) -> int:
    """How many findings `findings` stand for: a summary counts those it leaves out."""
    return sum(finding.left_out or 1 for finding in findings)


def left_out(findings: Sequence[Finding]) -> int:
    """How many findings the summaries among `findings` leave out."""
    return sum(finding.left_out for finding in findings)


def cap_findings(
    findings: Sequence[Finding], limit: int = FINDINGS_PER_CODE_AND_FILE
) -> list[Finding]:
    """`findings` with at most `limit` per (code, file), in their order: a larger group keeps
    its first `limit` - 1 and, in the place of the first it leaves out, one summary."""
    groups: dict[tuple[Code, str | None], list[int]] = {}
    for index, finding in enumerate(findings):
        groups.setdefault((finding.code, finding.file), []).append(index)
    summaries: dict[int, Finding] = {}
    dropped: set[int] = set()
    for (code, file), indexes in groups.items():
        if len(indexes) <= limit:
            continue
        rest = indexes[limit - 1 :]
        summaries[rest[0]] = _summary(code, file, [findings[i] for i in rest], limit - 1)
        dropped.update(rest)
    return [
        summaries.get(index, finding)
        for index, finding in enumerate(findings)
        if index in summaries or index not in dropped
    ]


def _summary(code: Code, file: str | None, rest: Sequence[Finding], shown: int) -> Finding:
    count = count_findings(rest)
    severity = min((finding.severity for finding in rest), key=_RANK.__getitem__)
    lines = [finding.line for finding in rest if finding.line is not None]
    where = f" in {file}" if file is not None else ""
    span = f" (lines {min(lines):,} to {max(lines):,})" if lines else ""
    message = (
        f"{count:,} more {code.value} finding(s){where}{span} are not listed: a report lists"
        f" the first {shown} of each reason code in each file, then counts the rest"
    )
    return Finding(code, message, file, None, severity, left_out=count)

"""Markdown for a pull-request comment or a job summary.

Messages quote filer-controlled text (case ids, file names), so everything is made inert:
NFC, control and bidirectional-override characters removed, Markdown and HTML escaped,
@mentions and #references broken with a zero-width joiner, and lengths capped
(GitHub comments hold 65,536 characters).
"""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Sequence
from typing import TYPE_CHECKING

from bot.app.report_cap import cap_findings, count_findings
from bot.rules.verdict import AttemptVerdict, BarResult
from bot.vocab.findings import Finding, Severity

if TYPE_CHECKING:
    from bot.rules.challenge.judge import RunVerdict
    from bot.rules.reports import VerifyReport

__all__ = ["MAX_COMMENT", "escape", "render_challenge_run", "render_markdown"]

MAX_COMMENT = 60_000
_MAX_FINDINGS_SHOWN = 50
_INVISIBLE = re.compile(r"[\x00-\x08\x0b-\x1f\x7f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")
_MARKDOWN = re.compile(r"([\\`*_{}\[\]()<>#+!|~])")


def escape(text: str, limit: int = 500) -> str:
    """Return `text` safe to place in Markdown: no markup, links, mentions or hidden text."""
    text = unicodedata.normalize("NFC", text)
    text = _INVISIBLE.sub("", text).replace("\n", " ").replace("\r", " ")
    if len(text) > limit:
        text = text[: limit - 1] + "…"
    text = text.replace("&", "&amp;")
    text = _MARKDOWN.sub(r"\\\1", text)
    return text.replace("@", "@\u2060")


def _row(finding: Finding) -> str:
    where = escape(finding.location() or "-", 200)
    return f"| `{finding.code.value}` | {where} | {escape(finding.message)} |"


def _bar_row(bar: BarResult) -> str:
    name = escape(bar.bar_id, 80)
    if not bar.exercised:
        counted = (
            f" ({bar.positives} positive, {bar.negatives} negative units)"
            if bar.statistic == "auroc_lower" and bar.positives is not None
            else ""
        )
        return f"- bar {name}: not exercised{counted}"
    bound = "none" if bar.bound is None else f"{bar.bound:.4f}"
    sign = "<=" if bar.statistic == "rate_upper" else ">="
    verdict = "met" if bar.met else "missed"
    row = f"- bar {name} ({bar.statistic}): bound {bound} {sign} {bar.threshold}: **{verdict}**"
    if bar.statistic != "auroc_lower" or bar.positives is None:
        return row
    # Issue 15: units per class, and how often DeLong's nominal bound covers there.
    row += f"; {bar.positives} positive, {bar.negatives} negative units"
    if bar.coverage is not None:
        row += f"; DeLong's 95% bound covers about {100 * bar.coverage:.1f}% here (simulated)"
    elif bar.note:  # e.g. a class below the simulated grid: why no coverage is shown
        row += f"; {escape(bar.note, 300)}"
    if bar.alt_method is not None and bar.alt_bound is not None:
        row += f"; {escape(bar.alt_method, 40)} bound {bar.alt_bound:.4f} (information only)"
    return row


def _problems(verdict: AttemptVerdict) -> int:
    """How many problems an attempt has: its findings and its PR's, notices (what could not
    be confirmed offline) aside; a report's summary counts those it stands for."""
    found = [*verdict.findings, *verdict.qualification, *verdict.pr_problems]
    return count_findings([finding for finding in found if finding.severity is not Severity.NOTICE])


def _codes(findings: Sequence[Finding]) -> list[str]:
    return sorted({finding.code.value for finding in findings})


def _table(findings: Sequence[Finding]) -> list[str]:
    """The findings as the JSON report lists them (capped per code and file), the first
    _MAX_FINDINGS_SHOWN rows of them."""
    findings = cap_findings(findings)
    rows = ["", "| code | where | problem |", "|---|---|---|"]
    rows += [_row(finding) for finding in findings[:_MAX_FINDINGS_SHOWN]]
    if len(findings) > _MAX_FINDINGS_SHOWN:
        more = count_findings(findings[_MAX_FINDINGS_SHOWN:])
        rows.append(f"| … | | {more} more; run `claims verify` locally for all |")
    return rows


def _run_section(run: RunVerdict) -> list[str]:
    """A challenge run's section: its heading, what it scored, its findings."""
    parts = [
        f"#### Challenge run {escape(run.folder, 200)}: {run.evidence}",
        "",
        f"- market {run.market or '?'}, scorer `{escape(run.scorer or '?', 100)}`,"
        f" {run.cases} hash-only cases, {len(run.scored)} attempt(s) scored",
    ]
    if run.findings:
        parts += _table(run.findings)
    return parts


def render_challenge_run(run: RunVerdict) -> str:
    """One challenge run's section alone (its check run's summary on a pull request)."""
    return "\n".join(_run_section(run)) + "\n"


def render_markdown(report: VerifyReport) -> str:
    """Return the comment body: a summary table, then each attempt's bars and problems."""
    verdicts, registry_findings = report.attempts, report.registry_problems
    invalid = sum(1 for verdict in verdicts if verdict.evidence == "invalid")
    headline = (
        "✅ Evidence valid" if report.evidence == "valid" else f"❌ Evidence invalid ({invalid})"
    )
    parts = [
        f"### {headline}",
        "",
        "| attempt | market | kind | evidence | status | outcome | problems |",
        "|---|---|---|---|---|---|---|",
    ]
    for verdict in verdicts:
        parts.append(
            f"| {escape(verdict.attempt, 200)} | {verdict.market or '?'} |"
            f" {escape(verdict.kind or '?', 20)} | {verdict.evidence} |"
            f" {verdict.status or '-'} | {verdict.outcome or '-'} |"
            f" {_problems(verdict)} |"
        )
    for verdict in verdicts:
        reasons = [*verdict.findings, *verdict.qualification]
        if not reasons and not verdict.bars and not verdict.pr_problems:
            continue
        parts += ["", f"#### {escape(verdict.attempt, 200)}", ""]
        if verdict.pr_problems:
            codes = ", ".join(f"`{code}`" for code in _codes(verdict.pr_problems))
            parts.append(f"- invalid: this pull request changes what it may not ({codes}, below)")
        parts += [_bar_row(bar) for bar in verdict.bars]
        if reasons:
            parts += _table(reasons)
    for run in report.challenge_runs:
        parts += ["", *_run_section(run)]
    if report.pr_problems:
        parts += ["", "#### What this pull request may not change", *_table(report.pr_problems)]
    if registry_findings:
        parts += ["", "#### Registry problems (for maintainers)", *_table(registry_findings)]
    digests = [v for v in verdicts if v.digest]
    if digests:
        parts += ["", "<details><summary>Evidence digests</summary>", ""]
        parts += [f"- {escape(v.attempt, 200)}: `{v.digest}`" for v in digests]
        parts += ["", "</details>"]
    body = "\n".join(parts) + "\n"
    if len(body) > MAX_COMMENT:
        body = body[: MAX_COMMENT - 80] + "\n\n… (truncated; the JSON report has everything)\n"
    return body

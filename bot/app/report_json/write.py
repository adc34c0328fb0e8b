"""Verdicts to JSON: `claims verify --json`, `claims resolve --json`, `claims explain --json`
(docs/spec.md §12), and the pieces the readers and the caches share (findings, bars, units)."""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot import __version__
from bot.app.report_cap import FINDINGS_PER_CODE_AND_FILE, cap_findings
from bot.rules.challenge.judge import RunVerdict
from bot.rules.reports import ResolveReport, VerifyReport
from bot.rules.resolution import MarketResolution
from bot.rules.verdict import AttemptVerdict, BarResult, CheckState, UnitSummary
from bot.vocab.findings import Finding
from bot.vocab.timestamps import format_moment

if TYPE_CHECKING:
    from bot.rules.explain import Explanation

__all__ = [
    "REPORT_VERSION",
    "attempt_to_json",
    "bar_to_json",
    "dumps",
    "explanation_to_json",
    "finding_to_json",
    "moment_to_json",
    "report_to_json",
    "resolve_report_to_json",
    "units_per_class",
    "units_to_json",
    "verify_report_to_json",
]

REPORT_VERSION = 1


def dumps(data: Mapping[str, Any]) -> str:
    """JSON text: sorted keys, UTF-8, two-space indent, one trailing newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def finding_to_json(finding: Finding, stage: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "code": finding.code.value,
        "message": finding.message,
        "file": finding.file,
        "line": finding.line,
        "severity": finding.severity.value,
    }
    if stage is not None:
        data["stage"] = stage
    if finding.left_out:
        data["left_out"] = finding.left_out
    return data


def bar_to_json(bar: BarResult) -> dict[str, Any]:
    return {
        "id": bar.bar_id,
        "statistic": bar.statistic,
        "exercised": bar.exercised,
        "failures": bar.failures,
        "units": bar.units,
        "bound": bar.bound,
        "auroc": bar.auroc,
        "positives": bar.positives,
        "negatives": bar.negatives,
        "threshold": bar.threshold,
        "met": bar.met,
        "note": bar.note,
        "refused": bar.refused,
        # Issue 15, for every reader (the website too): null for rate bars.
        "units_per_class": units_per_class(bar),
        "coverage": bar.coverage,
        "auroc_lower_alt": None
        if bar.alt_method is None
        else {"method": bar.alt_method, "bound": bar.alt_bound},
    }


def units_per_class(bar: BarResult) -> dict[str, int] | None:
    """An AUROC bar's positive and negative units, when they were counted."""
    if bar.statistic != "auroc_lower" or bar.positives is None or bar.negatives is None:
        return None
    return {"positive": bar.positives, "negative": bar.negatives}


def _check(check: CheckState) -> dict[str, Any]:
    data: dict[str, Any] = {
        "state": check.state,
        "verdict": check.verdict,
        "by": check.by,
        "at": check.at,
    }
    if check.adapter_description is not None:
        data["adapter_description"] = check.adapter_description
    return data


def units_to_json(units: UnitSummary | None) -> dict[str, Any]:
    if units is None:
        return {}
    return {
        "count": units.count,
        "largest": units.largest,
        "nulls_per_key": dict(units.nulls_per_key),
        "joins_per_key": dict(units.joins_per_key),
        "joined_most_by": units.joined_most_by,
    }


def attempt_to_json(verdict: AttemptVerdict) -> dict[str, Any]:
    """The docs/spec.md §12 per-attempt object, plus the evidence digest, counts and units."""
    counts = verdict.counts
    return {
        "attempt": verdict.attempt,
        "market": verdict.market,
        "kind": verdict.kind,
        "evidence": verdict.evidence,
        "status": verdict.status,
        "outcome": verdict.outcome,
        # At most FINDINGS_PER_CODE_AND_FILE per reason code and file, at each stage.
        "reasons": [
            *(finding_to_json(finding, "evidence") for finding in cap_findings(verdict.findings)),
            *(
                finding_to_json(finding, "qualification")
                for finding in cap_findings(verdict.qualification)
            ),
        ],
        # The codes of the report's pr_problems that make this attempt invalid (listed there).
        "pr_problem_codes": sorted({finding.code.value for finding in verdict.pr_problems}),
        "bars": [bar_to_json(bar) for bar in verdict.bars],
        "class_conditional": {
            key: {label: dict(row) for label, row in table.items()}
            for key, table in verdict.class_conditional.items()
        },
        "checks": {name: _check(check) for name, check in verdict.checks.items()},
        "evidence_digest": verdict.digest,
        "counts": {
            "files": counts.files,
            "cases": counts.cases,
            "trials": counts.trials,
            "systems": counts.systems,
            "families": counts.families,
        },
        "units": units_to_json(verdict.units),
    }


def report_to_json(report: VerifyReport | ResolveReport) -> dict[str, Any]:
    """The JSON form of either report (`verify_report_to_json`, `resolve_report_to_json`)."""
    if isinstance(report, VerifyReport):
        return verify_report_to_json(report)
    return resolve_report_to_json(report)


def verify_report_to_json(report: VerifyReport) -> dict[str, Any]:
    """`claims verify --json` (schemas/verify-report.schema.json). Findings are capped per
    reason code and file (`bot.app.report_cap`), and `findings_cap` says how many are not listed."""
    attempts = [attempt_to_json(verdict) for verdict in report.attempts]
    runs = [_run(run) for run in report.challenge_runs]
    registry = [finding_to_json(finding) for finding in cap_findings(report.registry_problems)]
    pr = [finding_to_json(finding) for finding in cap_findings(report.pr_problems)]
    listed = [
        *registry,
        *pr,
        *(reason for attempt in attempts for reason in attempt["reasons"]),
        *(reason for run in runs for reason in run["reasons"]),
    ]
    return {
        "report_version": REPORT_VERSION,
        "bot_version": __version__,
        "base_ref": report.base_ref,
        "tree": report.tree,
        "evidence": report.evidence,
        "findings_cap": {
            "per_code_and_file": FINDINGS_PER_CODE_AND_FILE,
            "left_out": sum(reason.get("left_out", 0) for reason in listed),
        },
        "registry_problems": registry,
        "pr_problems": pr,
        "attempts": attempts,
        "challenge_runs": runs,
    }


def _run(run: RunVerdict) -> dict[str, Any]:
    """One challenge run (docs/challenge-runs.md, "In the verify report"); its reasons capped
    per reason code and file like an attempt's (`bot.app.report_cap`)."""
    return {
        "run": run.run,
        "path": run.folder,
        "market": run.market,
        "operator": run.operator,
        "scorer": run.scorer,
        "recomputed_by": run.recomputed_by,
        "evidence": run.evidence,
        "cases": run.cases,
        "reasons": [finding_to_json(finding) for finding in cap_findings(run.findings)],
        "attempts": [
            {
                "attempt": scored.attempt,
                "source": scored.source,
                "tasks": {case: dict(result) for case, result in scored.tasks.items()},
            }
            for scored in run.scored
        ],
    }


def moment_to_json(moment: datetime | None) -> str | None:
    return None if moment is None else format_moment(moment)


def _market(resolution: MarketResolution) -> dict[str, Any]:
    snapshot = resolution.snapshot
    return {
        "market": resolution.market,
        "title": resolution.title,
        "demo": resolution.demo,
        "resolve_by": resolution.dates.resolve_by.isoformat(),
        "window_closes": resolution.dates.window_closes.isoformat(),
        "annul_on": resolution.dates.annul_on.isoformat(),
        "as_of": resolution.as_of.isoformat(),
        "state": resolution.state,
        "outcome": resolution.outcome,
        "provisional_outcome": resolution.provisional,
        "why": resolution.why,
        "warnings": list(resolution.warnings),
        "source": resolution.source,
        "snapshot": {
            "tag": snapshot.tag,
            "tag_exists": snapshot.tag_exists,
            "tag_state": snapshot.tag_state,
            "tagged_at": moment_to_json(snapshot.tagged_at),
            "tag_counts": snapshot.tag_counts,
            "archived": snapshot.archived,
            "archive_state": snapshot.archive_state,
            "archived_at": moment_to_json(snapshot.archived_at),
            "archive_counts": snapshot.archive_counts,
            "archive_ref": snapshot.archive_ref,
        },
        "attempts": [
            {
                "attempt": summary.attempt,
                "evidence": summary.evidence,
                "status": summary.status,
                "outcome": summary.outcome,
                "reasons": list(summary.reasons),
                "counts": summary.counts,
            }
            for summary in resolution.attempts
        ],
    }


def resolve_report_to_json(report: ResolveReport) -> dict[str, Any]:
    """`claims resolve --json` (schemas/resolve-report.schema.json)."""
    return {
        "report_version": REPORT_VERSION,
        "bot_version": __version__,
        "as_of": report.as_of.isoformat(),
        "registry_problems": [finding_to_json(finding) for finding in report.registry_problems],
        "markets": [_market(resolution) for resolution in report.markets],
    }


def explanation_to_json(explanations: Sequence[Explanation]) -> dict[str, Any]:
    """`claims explain --json`: per attempt its evidence, status, outcome and lines."""
    return {
        "report_version": REPORT_VERSION,
        "bot_version": __version__,
        "attempts": [
            {
                "attempt": explanation.attempt,
                "evidence": explanation.evidence,
                "status": explanation.status,
                "outcome": explanation.outcome,
                "as_of": explanation.as_of.isoformat() if explanation.as_of else None,
                "lines": [
                    {"mark": line.mark, "topic": line.topic, "text": line.text, "code": line.code}
                    for line in explanation.lines
                ],
            }
            for explanation in explanations
        ],
    }

"""The JSON reports (SPEC 12): `claims verify --json` and `claims resolve --json`, both ways.

The only place JSON is made from verdicts, and read back into them. A report read back is
untrusted input (the GitHub job that posts results reads one a fork's workflow may have
touched): it is validated by its schema (`schemas/verify-report.schema.json`,
`schemas/resolve-report.schema.json`) before anything is built, and a malformed report is
refused with `ReportError` naming the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from bot import __version__
from bot.dates import MarketDates
from bot.errors import ClaimsError
from bot.evidence.schema import validate
from bot.findings import Code, Finding, Severity
from bot.resolution import AttemptSummary, MarketResolution, Snapshot
from bot.timestamps import format_moment, parse_timestamp
from bot.verdict import AttemptVerdict, BarResult, CheckState, Counts, UnitSummary

if TYPE_CHECKING:
    from bot.app import ResolveReport, VerifyReport

__all__ = [
    "REPORT_VERSION",
    "ReportError",
    "dumps",
    "resolve_report_from_json",
    "resolve_report_to_json",
    "verify_report_from_json",
    "verify_report_to_json",
]

REPORT_VERSION = 1


class ReportError(ClaimsError):
    """A report that is not what `claims` writes (malformed, or from another version)."""


def dumps(data: Mapping[str, Any]) -> str:
    """JSON text: sorted keys, UTF-8, two-space indent, one trailing newline."""
    return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"


def _finding(finding: Finding, stage: str | None = None) -> dict[str, Any]:
    data: dict[str, Any] = {
        "code": finding.code.value,
        "message": finding.message,
        "file": finding.file,
        "line": finding.line,
        "severity": finding.severity.value,
    }
    if stage is not None:
        data["stage"] = stage
    return data


def _bar(bar: BarResult) -> dict[str, Any]:
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
    }


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


def _units(units: UnitSummary | None) -> dict[str, Any]:
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
    """The SPEC 12 per-attempt object, plus the evidence digest, counts and units."""
    counts = verdict.counts
    return {
        "attempt": verdict.attempt,
        "market": verdict.market,
        "kind": verdict.kind,
        "evidence": verdict.evidence,
        "status": verdict.status,
        "outcome": verdict.outcome,
        "reasons": [
            *(_finding(finding, "evidence") for finding in verdict.findings),
            *(_finding(finding, "qualification") for finding in verdict.qualification),
        ],
        # The codes of the report's pr_problems that make this attempt invalid (listed there).
        "pr_problem_codes": sorted({finding.code.value for finding in verdict.pr_problems}),
        "bars": [_bar(bar) for bar in verdict.bars],
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
        "units": _units(verdict.units),
    }


def verify_report_to_json(report: VerifyReport) -> dict[str, Any]:
    """`claims verify --json` (schemas/verify-report.schema.json)."""
    return {
        "report_version": REPORT_VERSION,
        "bot_version": __version__,
        "base_ref": report.base_ref,
        "tree": report.tree,
        "evidence": report.evidence,
        "registry_problems": [_finding(finding) for finding in report.registry_problems],
        "pr_problems": [_finding(finding) for finding in report.pr_problems],
        "attempts": [attempt_to_json(verdict) for verdict in report.attempts],
    }


def _moment(moment: datetime | None) -> str | None:
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
            "tagged_at": _moment(snapshot.tagged_at),
            "tag_counts": snapshot.tag_counts,
            "archived": snapshot.archived,
            "archive_state": snapshot.archive_state,
            "archived_at": _moment(snapshot.archived_at),
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
        "registry_problems": [_finding(finding) for finding in report.registry_problems],
        "markets": [_market(resolution) for resolution in report.markets],
    }


# Reading reports back -------------------------------------------------------------------


def _checked(schema: str, data: object, what: str) -> dict[str, Any]:
    problems = validate(schema, data, what)
    if problems or not isinstance(data, dict):
        details = "; ".join(f.message for f in problems[:5]) or "not a JSON object"
        raise ReportError(f"{what} is not a valid {schema}: {details}")
    return data


def _finding_from(data: Mapping[str, Any]) -> Finding:
    try:
        code = Code(data["code"])
    except ValueError:
        raise ReportError(f"unknown reason code {data['code']!r} in the report") from None
    return Finding(code, data["message"], data["file"], data["line"], Severity(data["severity"]))


def _attempt_from(data: Mapping[str, Any], pr_problems: tuple[Finding, ...]) -> AttemptVerdict:
    reasons = data["reasons"]
    units = data["units"]
    codes = set(data["pr_problem_codes"])
    unknown = codes - {finding.code.value for finding in pr_problems}
    if unknown:
        raise ReportError(
            f"attempt {data['attempt']!r}: pr_problem_codes names {sorted(unknown)}, which the"
            " report's pr_problems do not list"
        )
    return AttemptVerdict(
        attempt=data["attempt"],
        market=data["market"],
        kind=data["kind"],
        findings=tuple(_finding_from(r) for r in reasons if r.get("stage") != "qualification"),
        qualification=tuple(_finding_from(r) for r in reasons if r.get("stage") == "qualification"),
        digest=data["evidence_digest"],
        status=data["status"],
        outcome=data["outcome"],
        bars=tuple(
            BarResult(
                bar["id"],
                bar["statistic"],
                bar["threshold"],
                bar["exercised"],
                bar["failures"],
                bar["units"],
                bar["bound"],
                bar["auroc"],
                bar["positives"],
                bar["negatives"],
                bar["met"],
                bar["note"],
                bar["refused"],
            )
            for bar in data["bars"]
        ),
        class_conditional=data["class_conditional"],
        checks={
            name: CheckState(
                check["state"],
                check["verdict"],
                check["by"],
                check["at"],
                check.get("adapter_description"),
            )
            for name, check in data["checks"].items()
        },
        counts=Counts(**data["counts"]),
        units=UnitSummary(
            units["count"],
            units["largest"],
            units["nulls_per_key"],
            units["joins_per_key"],
            units["joined_most_by"],
        )
        if units
        else None,
        pr_problems=tuple(finding for finding in pr_problems if finding.code.value in codes),
    )


def verify_report_from_json(data: object) -> VerifyReport:
    """A verify report from its JSON data. Raises `ReportError` when it is malformed."""
    from bot.app import VerifyReport

    report = _checked("verify-report", data, "the verify report")
    pr_problems = tuple(_finding_from(f) for f in report["pr_problems"])
    attempts = tuple(_attempt_from(attempt, pr_problems) for attempt in report["attempts"])
    for attempt, verdict in zip(report["attempts"], attempts, strict=True):
        if attempt["evidence"] != verdict.evidence:
            raise ReportError(
                f"attempt {verdict.attempt!r}: evidence {attempt['evidence']!r}, but its"
                f" reasons say {verdict.evidence!r}"
            )
    built = VerifyReport(
        attempts,
        tuple(_finding_from(f) for f in report["registry_problems"]),
        pr_problems,
        report["base_ref"],
        report["tree"],
    )
    if built.evidence != report["evidence"]:
        raise ReportError(
            f"evidence: the report says {report['evidence']!r}, its attempts say {built.evidence!r}"
        )
    return built


def _moment_from(text: str | None, field: str) -> datetime | None:
    if text is None:
        return None
    moment = parse_timestamp(text)
    if moment is None:
        raise ReportError(f"snapshot.{field}: {text!r} is not an RFC 3339 time with an offset")
    return moment


def _snapshot_from(data: Mapping[str, Any]) -> Snapshot:
    snapshot = Snapshot(
        data["tag"],
        data["tag_state"],
        data["archive_state"],
        _moment_from(data["tagged_at"], "tagged_at"),
        _moment_from(data["archived_at"], "archived_at"),
        data["archive_ref"],
    )
    for field in ("tag_exists", "tag_counts", "archived", "archive_counts"):
        if data[field] != getattr(snapshot, field):
            raise ReportError(
                f"snapshot.{field}: the report says {data[field]!r}, its states say"
                f" {getattr(snapshot, field)!r}"
            )
    return snapshot


def resolve_report_from_json(data: object) -> ResolveReport:
    """A resolve report from its JSON data. Raises `ReportError` when it is malformed."""
    from bot.app import ResolveReport

    report = _checked("resolve-report", data, "the resolve report")
    markets = []
    for market in report["markets"]:
        snapshot = market["snapshot"]
        markets.append(
            MarketResolution(
                market=market["market"],
                title=market["title"],
                demo=market["demo"],
                dates=MarketDates(
                    date.fromisoformat(market["resolve_by"]),
                    date.fromisoformat(market["window_closes"]),
                    date.fromisoformat(market["annul_on"]),
                ),
                as_of=date.fromisoformat(market["as_of"]),
                state=market["state"],
                outcome=market["outcome"],
                provisional=market["provisional_outcome"],
                why=market["why"],
                attempts=tuple(
                    AttemptSummary(
                        a["attempt"], a["evidence"], a["status"], a["outcome"], tuple(a["reasons"])
                    )
                    for a in market["attempts"]
                ),
                snapshot=_snapshot_from(snapshot),
                warnings=tuple(market["warnings"]),
                source=market["source"],
            )
        )
    return ResolveReport(
        date.fromisoformat(report["as_of"]),
        tuple(markets),
        tuple(_finding_from(f) for f in report["registry_problems"]),
    )

"""JSON reports back to verdicts (`verify_report_from_json`, `resolve_report_from_json`).

A report read back is untrusted input (the GitHub job that posts results reads one a fork's
workflow may have touched): it is validated (`bot/app/report_json/validated.py`) before anything
is built, the verdict types refuse what no judge gives when built (`ImpossibleVerdict`), and
what a report states beside its verdicts (its evidence, its counts, its snapshot's flags) must
be what those verdicts give. A malformed report is refused with `ReportError` naming the entry.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date, datetime
from typing import Any

from bot.app.report_cap import left_out
from bot.app.report_json.errors import ReportError
from bot.app.report_json.validated import validated
from bot.app.report_json.write import units_per_class
from bot.rules.challenge.judge import RunVerdict, ScoredAttempt
from bot.rules.reports import ResolveReport, VerifyReport
from bot.rules.resolution import AttemptSummary, MarketResolution, Snapshot
from bot.rules.verdict import (
    AttemptVerdict,
    BarResult,
    CheckState,
    Counts,
    ImpossibleVerdict,
    UnitSummary,
)
from bot.vocab.dates import MarketDates
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.timestamps import parse_timestamp

__all__ = [
    "bar_from_json",
    "finding_from_json",
    "resolve_report_from_json",
    "verify_report_from_json",
]


def finding_from_json(data: Mapping[str, Any]) -> Finding:
    try:
        code = Code(data["code"])
    except ValueError:
        raise ReportError(f"unknown reason code {data['code']!r} in the report") from None
    return Finding(
        code,
        data["message"],
        data["file"],
        data["line"],
        Severity(data["severity"]),
        left_out=data.get("left_out", 0),
    )


def bar_from_json(data: Mapping[str, Any], where: str) -> BarResult:
    alt = data["auroc_lower_alt"]
    try:
        bar = BarResult(
            data["id"],
            data["statistic"],
            data["threshold"],
            data["exercised"],
            data["failures"],
            data["units"],
            data["bound"],
            data["auroc"],
            data["positives"],
            data["negatives"],
            data["met"],
            data["note"],
            data["refused"],
            coverage=data["coverage"],
            alt_method=None if alt is None else alt["method"],
            alt_bound=None if alt is None else alt["bound"],
        )
    except ImpossibleVerdict as error:
        raise ReportError(f"{where}: {error}") from None
    if data["units_per_class"] != units_per_class(bar):
        raise ReportError(
            f"{where}: bar {bar.bar_id!r}: units_per_class {data['units_per_class']!r} disagrees"
            f" with its positives and negatives ({bar.positives}, {bar.negatives})"
        )
    return bar


def _attempt_from(data: Mapping[str, Any], pr_problems: tuple[Finding, ...]) -> AttemptVerdict:
    reasons = data["reasons"]
    units = data["units"]
    codes = set(data["pr_problem_codes"])
    where = f"attempt {data['attempt']!r}"
    unknown = codes - {finding.code.value for finding in pr_problems}
    if unknown:
        raise ReportError(
            f"{where}: pr_problem_codes names {sorted(unknown)}, which the report's pr_problems"
            " do not list"
        )
    bars = tuple(bar_from_json(bar, where) for bar in data["bars"])
    try:
        checks = {
            name: CheckState(
                check["state"],
                check["verdict"],
                check["by"],
                check["at"],
                check.get("adapter_description"),
            )
            for name, check in data["checks"].items()
        }
        counts = Counts(**data["counts"])
        summary = (
            UnitSummary(
                units["count"],
                units["largest"],
                units["nulls_per_key"],
                units["joins_per_key"],
                units["joined_most_by"],
            )
            if units
            else None
        )
    except ImpossibleVerdict as error:
        raise ReportError(f"{where}: {error}") from None
    try:
        return AttemptVerdict(
            attempt=data["attempt"],
            market=data["market"],
            kind=data["kind"],
            findings=tuple(
                finding_from_json(r) for r in reasons if r.get("stage") != "qualification"
            ),
            qualification=tuple(
                finding_from_json(r) for r in reasons if r.get("stage") == "qualification"
            ),
            digest=data["evidence_digest"],
            status=data["status"],
            outcome=data["outcome"],
            bars=bars,
            class_conditional=data["class_conditional"],
            checks=checks,
            counts=counts,
            units=summary,
            pr_problems=tuple(finding for finding in pr_problems if finding.code.value in codes),
        )
    except ImpossibleVerdict as error:
        raise ReportError(str(error)) from None


def verify_report_from_json(data: object) -> VerifyReport:
    """A verify report from its JSON data. Raises `ReportError` when it is malformed."""
    report = validated("verify-report", data, "the verify report")
    pr_problems = tuple(finding_from_json(f) for f in report["pr_problems"])
    attempts = tuple(_attempt_from(attempt, pr_problems) for attempt in report["attempts"])
    for verdict, stated in zip(attempts, report["attempts"], strict=True):
        _check_attempt(verdict, stated["evidence"])
    built = VerifyReport(
        attempts,
        tuple(finding_from_json(f) for f in report["registry_problems"]),
        pr_problems,
        report["base_ref"],
        report["tree"],
        tuple(_run_from(run) for run in report.get("challenge_runs", ())),
    )
    if built.evidence != report["evidence"]:
        raise ReportError(
            f"evidence: the report says {report['evidence']!r}, its attempts say {built.evidence!r}"
        )
    cap = report.get("findings_cap")
    if cap is not None:
        counted = left_out(
            [
                *built.registry_problems,
                *built.pr_problems,
                *(f for v in built.attempts for f in (*v.findings, *v.qualification)),
                *(f for run in built.challenge_runs for f in run.findings),
            ]
        )
        if cap["left_out"] != counted:
            raise ReportError(
                f"findings_cap.left_out: the report says {cap['left_out']}, its summaries count"
                f" {counted}"
            )
    return built


def _check_attempt(verdict: AttemptVerdict, stated: str) -> None:
    """The evidence the report states is the one its reasons give (the verdict's own rules,
    docs/spec.md §7, held when it was built)."""
    if verdict.evidence != stated:
        raise ReportError(
            f"attempt {verdict.attempt!r}: evidence says {stated!r}, its reasons make it"
            f" {verdict.evidence!r}"
        )


def _run_from(data: Mapping[str, Any]) -> RunVerdict:
    try:
        run = RunVerdict(
            run=data["run"],
            folder=data["path"],
            market=data["market"],
            scorer=data["scorer"],
            operator=data["operator"],
            findings=tuple(finding_from_json(f) for f in data["reasons"]),
            cases=data["cases"],
            scored=tuple(
                ScoredAttempt(item["attempt"], item["source"], item["tasks"])
                for item in data["attempts"]
            ),
            recomputed_by=data["recomputed_by"],
        )
    except ImpossibleVerdict as error:
        raise ReportError(str(error)) from None
    if run.evidence != data["evidence"]:
        raise ReportError(
            f"challenge run {run.run!r}: evidence says {data['evidence']!r}, its reasons make it"
            f" {run.evidence!r}"
        )
    return run


def _moment_from(text: str | None, field: str) -> datetime | None:
    if text is None:
        return None
    moment = parse_timestamp(text)
    if moment is None:
        raise ReportError(f"snapshot.{field}: {text!r} is not an RFC 3339 time with an offset")
    return moment


def _snapshot_from(data: Mapping[str, Any]) -> Snapshot:
    try:
        snapshot = Snapshot(
            data["tag"],
            data["tag_state"],
            data["archive_state"],
            _moment_from(data["tagged_at"], "tagged_at"),
            _moment_from(data["archived_at"], "archived_at"),
            data["archive_ref"],
        )
    except ImpossibleVerdict as error:
        raise ReportError(str(error)) from None
    for field in ("tag_exists", "tag_counts", "archived", "archive_counts"):
        if data[field] != getattr(snapshot, field):
            raise ReportError(
                f"snapshot.{field}: the report says {data[field]!r}, its states say"
                f" {getattr(snapshot, field)!r}"
            )
    return snapshot


def resolve_report_from_json(data: object) -> ResolveReport:
    """A resolve report from its JSON data. Raises `ReportError` when it is malformed."""
    report = validated("resolve-report", data, "the resolve report")
    markets = [_market_from(market) for market in report["markets"]]
    numbers = [resolution.market for resolution in markets]
    if len(set(numbers)) != len(numbers):
        raise ReportError("the resolve report lists a market twice")
    return ResolveReport(
        date.fromisoformat(report["as_of"]),
        tuple(markets),
        tuple(finding_from_json(f) for f in report["registry_problems"]),
    )


def _market_from(market: Mapping[str, Any]) -> MarketResolution:
    """One market's resolution; its outcome must follow from its attempts by the Three Way Rule
    and from its state (docs/spec.md §7), which `MarketResolution` holds when built."""
    where = f"market {market['market']}"
    for attempt in market["attempts"]:
        if attempt["counts"] != (attempt["status"] == "qualifying"):
            raise ReportError(f"{where}: {attempt['attempt']} counts only when qualifying")
    try:
        attempts = tuple(
            AttemptSummary(
                a["attempt"], a["evidence"], a["status"], a["outcome"], tuple(a["reasons"])
            )
            for a in market["attempts"]
        )
    except ImpossibleVerdict as error:
        raise ReportError(f"{where}: {error}") from None
    snapshot = _snapshot_from(market["snapshot"])
    try:
        return MarketResolution(
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
            attempts=attempts,
            snapshot=snapshot,
            warnings=tuple(market["warnings"]),
            source=market["source"],
        )
    except ImpossibleVerdict as error:
        raise ReportError(str(error)) from None

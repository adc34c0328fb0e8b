"""The JSON reports (docs/spec.md §12): `claims verify --json` and `claims resolve --json`, both
ways; and the records of the adapter reruns' cache (`bot/app/rerun.py`).

The only place JSON is made from verdicts, and read back into them. A report read back is
untrusted input (the GitHub job that posts results reads one a fork's workflow may have
touched): it is validated by its schema (`schemas/verify-report.schema.json`,
`schemas/resolve-report.schema.json`) before anything is built, and a malformed report is
refused with `ReportError` naming the field.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping, Sequence
from datetime import date, datetime
from typing import TYPE_CHECKING, Any

from bot import __version__
from bot.app.report_cap import FINDINGS_PER_CODE_AND_FILE, cap_findings, left_out
from bot.app.reports import ResolveReport, VerifyReport
from bot.rules.challenge.judge import RunVerdict, ScoredAttempt
from bot.rules.evidence.schema import validate
from bot.rules.resolution import AttemptSummary, MarketResolution, Snapshot, three_way
from bot.rules.verdict import AttemptVerdict, BarResult, CheckState, Counts, UnitSummary
from bot.vocab.config import Limits
from bot.vocab.dates import MarketDates
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.jsonl import parse_json
from bot.vocab.timestamps import format_moment, parse_timestamp
from bot.vocab.values import MAX_SAFE_INTEGER

if TYPE_CHECKING:
    from bot.app.explain import Explanation
    from bot.rules.records import RecordsCheck

__all__ = [
    "REPORT_VERSION",
    "ReportError",
    "dumps",
    "explanation_to_json",
    "read_report",
    "records_check_from_json",
    "records_check_to_json",
    "report_to_json",
    "rerun_record_from_json",
    "rerun_record_to_json",
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
    if finding.left_out:
        data["left_out"] = finding.left_out
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
        # Issue 15, for every reader (the website too): null for rate bars.
        "units_per_class": _units_per_class(bar),
        "coverage": bar.coverage,
        "auroc_lower_alt": None
        if bar.alt_method is None
        else {"method": bar.alt_method, "bound": bar.alt_bound},
    }


def _units_per_class(bar: BarResult) -> dict[str, int] | None:
    """An AUROC bar's positive and negative units, when they were counted."""
    if bar.statistic != "auroc_lower" or bar.positives is None or bar.negatives is None:
        return None
    return {"positive": bar.positives, "negative": bar.negatives}


def _bar_from(data: Mapping[str, Any], where: str) -> BarResult:
    alt = data["auroc_lower_alt"]
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
    if data["units_per_class"] != _units_per_class(bar):
        raise ReportError(
            f"{where}: bar {bar.bar_id!r}: units_per_class {data['units_per_class']!r} disagrees"
            f" with its positives and negatives ({bar.positives}, {bar.negatives})"
        )
    if bar.statistic != "auroc_lower" and (bar.coverage is not None or alt is not None):
        raise ReportError(f"{where}: bar {bar.bar_id!r}: coverage is for AUROC bars only")
    return bar


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
            *(_finding(finding, "evidence") for finding in cap_findings(verdict.findings)),
            *(
                _finding(finding, "qualification")
                for finding in cap_findings(verdict.qualification)
            ),
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
    registry = [_finding(finding) for finding in cap_findings(report.registry_problems)]
    pr = [_finding(finding) for finding in cap_findings(report.pr_problems)]
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
        "reasons": [_finding(finding) for finding in cap_findings(run.findings)],
        "attempts": [
            {
                "attempt": scored.attempt,
                "source": scored.source,
                "tasks": {case: dict(result) for case, result in scored.tasks.items()},
            }
            for scored in run.scored
        ],
    }


def _run_from(data: Mapping[str, Any]) -> RunVerdict:
    run = RunVerdict(
        run=data["run"],
        folder=data["path"],
        market=data["market"],
        scorer=data["scorer"],
        operator=data["operator"],
        findings=tuple(_finding_from(f) for f in data["reasons"]),
        cases=data["cases"],
        scored=tuple(
            ScoredAttempt(item["attempt"], item["source"], item["tasks"])
            for item in data["attempts"]
        ),
        recomputed_by=data["recomputed_by"],
    )
    if run.evidence != data["evidence"]:
        raise ReportError(
            f"challenge run {run.run!r}: evidence says {data['evidence']!r}, its reasons make it"
            f" {run.evidence!r}"
        )
    return run


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


# A report carries values a filer or an operator wrote as they were read (a challenge run's
# task results, at the report's 7th level), which the loaders accept up to their depth cap: the
# report's own levels come on top of that, so every report `verify` writes is read back
# (a result nested near the loaders' cap must not make publish and the site refuse it).
_REPORT_LEVELS = 16
_MAX_DEPTH = max(Limits().max_json_depth, Limits().max_yaml_depth) + _REPORT_LEVELS
_MAX_INTEGER = MAX_SAFE_INTEGER  # what a JSON number carries exactly in every reader (I-JSON)


def read_report(text: str | bytes) -> object:
    """A report's JSON text as data, refusing duplicate keys, NaN and infinities, lone
    surrogates and deep nesting (`ReportError`). Pass the result to `from_json`, which
    refuses an integer outside ±2**53-1 where it is (`_check_values`): in an entry, that
    entry alone (`bot/faces/report/entries.py`)."""
    raw = text.encode("utf-8") if isinstance(text, str) else text
    try:
        return parse_json(raw, _MAX_DEPTH, integers=False)
    except (ValueError, UnicodeDecodeError) as error:
        raise ReportError(f"the report is not valid JSON: {error}") from None


def _check_values(data: object, what: str) -> None:
    """Data built in Python may hold what JSON text cannot: refuse it before the schema
    (which recurses) sees it. Walks with an explicit stack."""
    pending: list[tuple[object, int]] = [(data, 1)]
    while pending:
        item, depth = pending.pop()
        if depth > _MAX_DEPTH:
            raise ReportError(f"{what} is nested deeper than {_MAX_DEPTH} levels")
        if isinstance(item, dict):
            if not all(isinstance(key, str) for key in item):
                raise ReportError(f"{what} has an object key that is not a string")
            pending.extend((child, depth + 1) for child in item.values())
        elif isinstance(item, list):
            pending.extend((child, depth + 1) for child in item)
        elif isinstance(item, float) and not math.isfinite(item):
            raise ReportError(f"{what} holds a number that is not finite ({item})")
        elif isinstance(item, int) and not isinstance(item, bool) and abs(item) > _MAX_INTEGER:
            raise ReportError(f"{what} holds an integer beyond ±2**53-1 (I-JSON)")


def _checked(schema: str, data: object, what: str) -> dict[str, Any]:
    _check_values(data, what)
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
    return Finding(
        code,
        data["message"],
        data["file"],
        data["line"],
        Severity(data["severity"]),
        left_out=data.get("left_out", 0),
    )


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
        bars=tuple(_bar_from(bar, f"attempt {data['attempt']!r}") for bar in data["bars"]),
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
    report = _checked("verify-report", data, "the verify report")
    pr_problems = tuple(_finding_from(f) for f in report["pr_problems"])
    attempts = tuple(_attempt_from(attempt, pr_problems) for attempt in report["attempts"])
    for verdict, stated in zip(attempts, report["attempts"], strict=True):
        _check_attempt(verdict, stated["evidence"])
    built = VerifyReport(
        attempts,
        tuple(_finding_from(f) for f in report["registry_problems"]),
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
    """An attempt's verdict must be one the judge could give (docs/spec.md §7)."""
    where = f"attempt {verdict.attempt!r}"
    if verdict.evidence != stated:
        raise ReportError(
            f"{where}: evidence says {stated!r}, its reasons make it {verdict.evidence!r}"
        )
    if verdict.evidence == "invalid" and (verdict.status or verdict.outcome):
        raise ReportError(f"{where}: invalid evidence has no status or outcome")
    if (verdict.status == "qualifying") != (verdict.outcome is not None):
        raise ReportError(f"{where}: an outcome goes with status qualifying, and only with it")
    if verdict.status == "qualifying" and verdict.qualification:
        raise ReportError(f"{where}: a qualifying attempt has no qualification reasons")


def _check_market(resolution: MarketResolution) -> None:
    """A market's outcome must follow from its attempts by the Three Way Rule (docs/spec.md §7)."""
    where = f"market {resolution.market}"
    for summary in resolution.attempts:
        if summary.evidence == "invalid" and (summary.status or summary.outcome):
            raise ReportError(f"{where}: {summary.attempt} has invalid evidence and a status")
        if (summary.status == "qualifying") != (summary.outcome is not None):
            raise ReportError(f"{where}: {summary.attempt}: outcome without qualifying status")
    rule, _ = three_way(resolution.attempts)
    if resolution.provisional != rule:
        raise ReportError(
            f"{where}: its attempts give {rule} by the Three Way Rule, the report says"
            f" {resolution.provisional}"
        )
    expected = {
        "open": None,
        "filing-window": None,
        "closed": rule,
        "annulled": "ANNULLED",
    }[resolution.state]
    if resolution.outcome != expected:
        raise ReportError(
            f"{where}: state {resolution.state} with outcome {resolution.outcome}, expected"
            f" {expected}"
        )
    dates = resolution.dates
    if not dates.resolve_by <= dates.window_closes <= dates.annul_on:
        raise ReportError(f"{where}: resolve-by, window close and annulment dates out of order")


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
    report = _checked("resolve-report", data, "the resolve report")
    markets = []
    for market in report["markets"]:
        snapshot = market["snapshot"]
        for attempt in market["attempts"]:
            if attempt["counts"] != (attempt["status"] == "qualifying"):
                raise ReportError(
                    f"market {market['market']}: {attempt['attempt']} counts only when qualifying"
                )
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
    for resolution in markets:
        _check_market(resolution)
    numbers = [resolution.market for resolution in markets]
    if len(set(numbers)) != len(numbers):
        raise ReportError("the resolve report lists a market twice")
    return ResolveReport(
        date.fromisoformat(report["as_of"]),
        tuple(markets),
        tuple(_finding_from(f) for f in report["registry_problems"]),
    )


# The adapter reruns' cache (bot/app/rerun.py) ----------------------------------------------------


def rerun_record_to_json(key: str, parts: Mapping[str, Any], findings: list[Finding]) -> str:
    """A cached rerun: its key, what the key was made of, and the findings it gave."""
    return dumps(
        {
            "key": key,
            "parts": dict(parts),
            "findings": [_finding(finding) for finding in findings],
        }
    )


def rerun_record_from_json(text: str, key: str) -> list[Finding]:
    """The findings of a cached rerun. Raises `ReportError` unless `text` is a record for
    `key` whose every finding is well formed."""
    try:
        data = json.loads(text)
    except ValueError as error:
        raise ReportError(f"the rerun record is not JSON: {error}") from None
    if not isinstance(data, dict) or data.get("key") != key:
        raise ReportError("the rerun record is for another key")
    findings = data.get("findings")
    if not isinstance(findings, list):
        raise ReportError("the rerun record has no list of findings")
    read = []
    for item in findings:
        if not (
            isinstance(item, dict)
            and isinstance(item.get("code"), str)
            and isinstance(item.get("message"), str)
            and isinstance(item.get("file"), str | None)
            and (item.get("line") is None or type(item.get("line")) is int)
            and item.get("severity") in ("error", "warning")
        ):
            raise ReportError(f"the rerun record holds a malformed finding: {item!r:.200}")
        read.append(_finding_from(item))
    return read


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


# The verification cache (bot/app/cache.py) ------------------------------------------------------


def _cached_units(units: UnitSummary | None) -> dict[str, Any] | None:
    """The report's unit structure, with how the units formed (not in the report)."""
    if units is None:
        return None
    return {**_units(units), "formation": list(units.formation)}


def _unit_summary_from(data: Mapping[str, Any] | None) -> UnitSummary | None:
    if data is None:
        return None
    return UnitSummary(
        int(data["count"]),
        int(data["largest"]),
        {str(k): int(v) for k, v in data["nulls_per_key"].items()},
        {str(k): int(v) for k, v in data["joins_per_key"].items()},
        None if data["joined_most_by"] is None else str(data["joined_most_by"]),
        tuple(str(text) for text in data.get("formation", ())),
    )


def records_check_to_json(check: RecordsCheck) -> dict[str, Any]:
    """A `RecordsCheck` as JSON data (the trials themselves are never kept)."""
    trials = check.trials
    return {
        "cases_read": check.cases_read,
        "trials_read": check.trials_read,
        "case_read_problems": [_finding(f) for f in check.case_read_problems],
        "trial_read_problems": [_finding(f) for f in check.trial_read_problems],
        "names": [_finding(f) for f in check.names],
        "cases_findings": [_finding(f) for f in check.cases_findings],
        "trials_findings": [_finding(f) for f in check.trials_findings],
        "withheld": [_finding(f) for f in check.withheld],
        "withholdable": list(check.withholdable),
        "case_count": check.case_count,
        "trials": {
            "count": trials.count,
            "systems": trials.systems,
            "families": sorted(trials.families),
            "first_started_at": _moment(trials.first_started_at),
            "last_started_at": _moment(trials.last_started_at),
        },
        "certificates_read": check.certificates_read,
        "certificate_read_problems": [_finding(f) for f in check.certificate_read_problems],
        "certificate_names": [_finding(f) for f in check.certificate_names],
        "certificate_withheld": [_finding(f) for f in check.certificate_withheld],
        "certificates": {
            "count": check.certificates.count,
            "missing": list(check.certificates.missing),
            "present": check.certificates.present,
            "all_abstain": check.certificates.all_abstain,
        },
        "unit_summary": _cached_units(check.unit_summary),
        "bars": None if check.bars is None else [_bar(bar) for bar in check.bars],
        "units": _cached_units(check.units),
        "bar_problems": [_finding(f) for f in check.bar_problems],
        "derived": None if check.derived is None else dict(check.derived),
    }


def records_check_from_json(data: Mapping[str, Any]) -> RecordsCheck:
    """A `RecordsCheck` from `records_check_to_json`'s data. Raises `ReportError` (or
    KeyError, TypeError, ValueError on a shape it never writes: the cache catches them)."""
    from bot.rules.records import CertificateSummary, RecordsCheck, TrialSummary

    def findings(name: str) -> tuple[Finding, ...]:
        return tuple(_finding_from(item) for item in data[name])

    trials, certificates = data["trials"], data["certificates"]

    def moment(name: str) -> datetime | None:
        text = trials[name]
        parsed = None if text is None else parse_timestamp(text)
        if text is not None and parsed is None:
            raise ReportError(f"trials.{name}: {text!r} is not a time")
        return parsed

    bars = data["bars"]
    return RecordsCheck(
        cases_read=bool(data["cases_read"]),
        trials_read=bool(data["trials_read"]),
        case_read_problems=findings("case_read_problems"),
        trial_read_problems=findings("trial_read_problems"),
        names=findings("names"),
        cases_findings=findings("cases_findings"),
        trials_findings=findings("trials_findings"),
        withheld=findings("withheld"),
        withholdable=tuple(str(name) for name in data["withholdable"]),
        case_count=int(data["case_count"]),
        trials=TrialSummary(
            int(trials["count"]),
            int(trials["systems"]),
            frozenset(str(family) for family in trials["families"]),
            moment("first_started_at"),
            moment("last_started_at"),
        ),
        certificates_read=bool(data["certificates_read"]),
        certificate_read_problems=findings("certificate_read_problems"),
        certificate_names=findings("certificate_names"),
        certificate_withheld=findings("certificate_withheld"),
        certificates=CertificateSummary(
            int(certificates["count"]),
            tuple(str(name) for name in certificates["missing"]),
            int(certificates["present"]),
            bool(certificates["all_abstain"]),
        ),
        unit_summary=_unit_summary_from(data["unit_summary"]),
        bars=None if bars is None else tuple(_bar_from(bar, "the cached check") for bar in bars),
        units=_unit_summary_from(data["units"]),
        bar_problems=findings("bar_problems"),
        derived=data["derived"],
    )

"""The records of the caches as JSON: the adapter reruns' (`bot/app/rerun.py`) and the
verification cache's records checks (`bot/app/cache.py`)."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import datetime
from typing import TYPE_CHECKING, Any

from bot.app.report_json.errors import ReportError
from bot.app.report_json.read import bar_from_json, finding_from_json
from bot.app.report_json.write import (
    bar_to_json,
    dumps,
    finding_to_json,
    moment_to_json,
    units_to_json,
)
from bot.rules.verdict import UnitSummary
from bot.vocab.findings import Finding
from bot.vocab.jsonl import loads as json_loads
from bot.vocab.timestamps import parse_timestamp

if TYPE_CHECKING:
    from bot.rules.records import RecordsResult

__all__ = [
    "records_result_from_json",
    "records_result_to_json",
    "rerun_record_from_json",
    "rerun_record_to_json",
]


def rerun_record_to_json(key: str, parts: Mapping[str, Any], findings: list[Finding]) -> str:
    """A cached rerun: its key, what the key was made of, and the findings it gave."""
    return dumps(
        {
            "key": key,
            "parts": dict(parts),
            "findings": [finding_to_json(finding) for finding in findings],
        }
    )


def rerun_record_from_json(text: str, key: str) -> list[Finding]:
    """The findings of a cached rerun. Raises `ReportError` unless `text` is a record for
    `key` whose every finding is well formed."""
    try:
        data = json_loads(text)
    except (ValueError, RecursionError) as error:  # nesting past the parser's recursion
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
        read.append(finding_from_json(item))
    return read


def _cached_units(units: UnitSummary | None) -> dict[str, Any] | None:
    """The report's unit structure, with how the units formed (not in the report)."""
    if units is None:
        return None
    return {**units_to_json(units), "formation": list(units.formation)}


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


def records_result_to_json(check: RecordsResult) -> dict[str, Any]:
    """A `RecordsResult` as JSON data (the trials themselves are never kept)."""
    trials = check.trials
    return {
        "cases_read": check.cases_read,
        "trials_read": check.trials_read,
        "case_read_problems": [finding_to_json(f) for f in check.case_read_problems],
        "trial_read_problems": [finding_to_json(f) for f in check.trial_read_problems],
        "names": [finding_to_json(f) for f in check.names],
        "cases_findings": [finding_to_json(f) for f in check.cases_findings],
        "trials_findings": [finding_to_json(f) for f in check.trials_findings],
        "withheld": [finding_to_json(f) for f in check.withheld],
        "withholdable": list(check.withholdable),
        "case_count": check.case_count,
        "trials": {
            "count": trials.count,
            "systems": trials.systems,
            "families": sorted(trials.families),
            "first_started_at": moment_to_json(trials.first_started_at),
            "last_started_at": moment_to_json(trials.last_started_at),
        },
        "certificates_read": check.certificates_read,
        "certificate_read_problems": [finding_to_json(f) for f in check.certificate_read_problems],
        "certificate_names": [finding_to_json(f) for f in check.certificate_names],
        "certificate_withheld": [finding_to_json(f) for f in check.certificate_withheld],
        "certificates": {
            "count": check.certificates.count,
            "missing": list(check.certificates.missing),
            "present": check.certificates.present,
            "all_abstain": check.certificates.all_abstain,
        },
        "unit_summary": _cached_units(check.unit_summary),
        "bars": None if check.bars is None else [bar_to_json(bar) for bar in check.bars],
        "units": _cached_units(check.units),
        "bar_problems": [finding_to_json(f) for f in check.bar_problems],
        "derived": None if check.derived is None else check.derived.to_data(),
    }


def records_result_from_json(data: Mapping[str, Any]) -> RecordsResult:
    """A `RecordsResult` from `records_result_to_json`'s data. Raises `ReportError` (or
    KeyError, TypeError, ValueError on a shape it never writes: the cache catches them)."""
    from bot.rules.records import CertificateSummary, RecordsResult, TrialSummary
    from bot.rules.score_table import ScoreTable

    def findings(name: str) -> tuple[Finding, ...]:
        return tuple(finding_from_json(item) for item in data[name])

    trials, certificates = data["trials"], data["certificates"]

    def moment(name: str) -> datetime | None:
        text = trials[name]
        parsed = None if text is None else parse_timestamp(text)
        if text is not None and parsed is None:
            raise ReportError(f"trials.{name}: {text!r} is not a time")
        return parsed

    bars = data["bars"]
    return RecordsResult(
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
        bars=None
        if bars is None
        else tuple(bar_from_json(bar, "the cached check") for bar in bars),
        units=_unit_summary_from(data["units"]),
        bar_problems=findings("bar_problems"),
        derived=None if data["derived"] is None else ScoreTable.from_data(data["derived"]),
    )

"""The JSON reports (docs/spec.md §12): `claims verify --json` and `claims resolve --json`, both
ways; `claims explain --json`; and the records of the caches (`bot/app/rerun.py`,
`bot/app/cache.py`). The only place JSON is made from verdicts, and read back into them.

One concept a module: `write` (verdicts to JSON), `validated` (what a report's data must be
before anything is built: JSON text, values, schema), `read` (JSON back to verdicts, refusing
with `ReportError`, from `errors`, what no judge gives), `caches` (the caches' records).
"""

from __future__ import annotations

from bot.app.report_json.caches import (
    records_result_from_json,
    records_result_to_json,
    rerun_record_from_json,
    rerun_record_to_json,
)
from bot.app.report_json.errors import ReportError
from bot.app.report_json.read import resolve_report_from_json, verify_report_from_json
from bot.app.report_json.validated import read_report
from bot.app.report_json.write import (
    REPORT_VERSION,
    attempt_to_json,
    dumps,
    explanation_to_json,
    report_to_json,
    resolve_report_to_json,
    verify_report_to_json,
)

__all__ = [
    "REPORT_VERSION",
    "ReportError",
    "attempt_to_json",
    "dumps",
    "explanation_to_json",
    "read_report",
    "records_result_from_json",
    "records_result_to_json",
    "report_to_json",
    "rerun_record_from_json",
    "rerun_record_to_json",
    "resolve_report_from_json",
    "resolve_report_to_json",
    "verify_report_from_json",
    "verify_report_to_json",
]

"""A report read entry by entry: one entry its reader refuses never hides the others.

`claims site` and `claims github publish` read the reports `claims verify --json` and `claims
resolve --json` wrote (`verify_report_from_json`, `resolve_report_from_json`: the schema, the
values, the states' consistency). Read whole, one attempt whose entry the reader refuses (a
value no later stage can represent, a state the schema does not allow) stopped the public site
and the pull request's verdict for everyone. Here the report is read
whole first; only when that fails is each entry (an attempt, a challenge run, a market) read
alone, within the rest of the report, and the entries refused are returned with why. A report
whose own frame (its registry problems, its pull request's problems, its version) is refused,
or that is no report at all, still raises: that is no filer's entry, and no reader can say
which part to trust.

The callers show each refused entry in its place (an error panel on the attempt's page; on a
pull request a `report-entry-refused` error, so the check fails closed), never drop it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, TypeVar

from bot.app.report_json import ReportError, resolve_report_from_json, verify_report_from_json
from bot.rules.review import shown_path

if TYPE_CHECKING:
    from bot.rules.reports import ResolveReport, VerifyReport

__all__ = ["RefusedEntry", "resolve_report_entries", "verify_report_entries"]

_T = TypeVar("_T")
# The key that names an entry of each section.
_NAMES = {"attempts": "attempt", "challenge_runs": "run", "markets": "market"}


@dataclass(frozen=True)
class RefusedEntry:
    """An entry of a report its reader refuses: its section (`attempts`, `challenge_runs`,
    `markets`), its name as the entry gives it (printable: other bytes as \\xNN), the market
    it names (None when it names none an integer), and the reader's reason."""

    section: str
    name: str
    market: int | None
    error: str

    @property
    def message(self) -> str:
        what = {"attempts": "attempt", "challenge_runs": "challenge run", "markets": "market"}
        return (
            f"the report's entry for {what[self.section]} {self.name} could not be read, so it is"
            f" not shown: {self.error}"
        )


def _name(entry: object, section: str, index: int) -> str:
    value = entry.get(_NAMES[section]) if isinstance(entry, dict) else None
    if isinstance(value, str):
        return shown_path(value)
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) < 10**6:
        return str(value)
    return f"#{index + 1} of {section}"


def _market(entry: object) -> int | None:
    value = entry.get("market") if isinstance(entry, dict) else None
    if isinstance(value, int) and not isinstance(value, bool) and 0 < value < 10**6:
        return value
    return None


def _first(read: Callable[[object], _T], probes: list[dict[str, Any]]) -> tuple[_T | None, str]:
    """The first probe the reader accepts, else None and the most telling refusal (a report's
    summary field, such as `evidence`, that only disagrees because entries are left out is
    not the reason)."""
    errors = []
    for probe in probes:
        try:
            return read(probe), ""
        except ReportError as error:
            errors.append(str(error))
    telling = [e for e in errors if not e.startswith(("evidence:", "findings_cap"))]
    return None, (telling or errors or ["refused"])[0]


def _entries(
    data: object,
    sections: tuple[str, ...],
    read: Callable[[object], _T],
    variants: Callable[[dict[str, Any]], list[dict[str, Any]]],
) -> tuple[_T, dict[str, Any], tuple[RefusedEntry, ...]]:
    try:
        return read(data), data if isinstance(data, dict) else {}, ()
    except ReportError as whole:
        if not isinstance(data, dict) or not all(
            isinstance(data.get(section, []), list) for section in sections
        ):
            raise
        error = whole
    frame = {key: value for key, value in data.items() if key not in sections}
    empty: dict[str, list[Any]] = {section: [] for section in sections if section in data}
    kept: dict[str, list[Any]] = {section: [] for section in empty}
    refused = []
    for section in empty:
        for index, entry in enumerate(data[section]):
            alone = variants({**frame, **empty, section: [entry]})
            accepted, reason = _first(read, alone)
            if accepted is not None:
                kept[section].append(entry)
            else:
                refused.append(
                    RefusedEntry(section, _name(entry, section, index), _market(entry), reason)
                )
    rest = {**frame, **kept}
    report, _ = _first(read, variants(rest))
    if report is None or not refused:
        raise error  # the frame itself is refused, or no entry alone is: not one entry's fault
    return report, rest, tuple(refused)


def _verify_variants(data: dict[str, Any]) -> list[dict[str, Any]]:
    """The report with its summary fields as its entries would make them: `evidence` either
    way (it follows from the entries and the pull request's problems), no `findings_cap`
    (which counts every entry's findings)."""
    data = {key: value for key, value in data.items() if key != "findings_cap"}
    return [{**data, "evidence": "valid"}, {**data, "evidence": "invalid"}]


def verify_report_entries(
    data: object,
) -> tuple[VerifyReport, dict[str, Any], tuple[RefusedEntry, ...]]:
    """The verify report of `data` without the entries (attempts, challenge runs) its reader
    refuses, the data it was read from, and those entries. Raises `ReportError` when the
    report's frame is refused (see the module's docstring)."""
    return _entries(data, ("attempts", "challenge_runs"), verify_report_from_json, _verify_variants)


def resolve_report_entries(
    data: object,
) -> tuple[ResolveReport, dict[str, Any], tuple[RefusedEntry, ...]]:
    """The resolve report of `data` without the markets its reader refuses, the data it was
    read from, and those markets. Raises `ReportError` when the report's frame is refused."""
    return _entries(data, ("markets",), resolve_report_from_json, lambda d: [d])


def refused_reason(entry: RefusedEntry) -> Mapping[str, Any]:
    """The entry as a reason of the report's shape (for the site's pages)."""
    return {
        "code": "report-entry-refused",
        "message": entry.message,
        "file": entry.name if entry.section == "attempts" else None,
        "line": None,
        "severity": "error",
        "stage": None,
    }

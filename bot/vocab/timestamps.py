"""RFC 3339 timestamps with an explicit offset, and plain dates.

Comparing naive and aware datetimes raises TypeError (docs/spec.md §4.2), so a naive time is
refused when it is read and everything past the loader holds aware datetimes.
"""

from __future__ import annotations

import re
from datetime import UTC, date, datetime
from functools import lru_cache

__all__ = [
    "format_moment",
    "format_timestamp",
    "is_naive_timestamp",
    "parse_date",
    "parse_timestamp",
]

# RFC 3339 section 5.6 `date-time`: https://www.rfc-editor.org/rfc/rfc3339#section-5.6
# re.ASCII: RFC 3339 digits are ASCII; a bare `\d` also matches e.g. Arabic-Indic digits.
_DATE_TIME = re.compile(
    r"\A(\d{4})-(\d{2})-(\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d{1,9})?"
    # time-offset: hours 00-23 and minutes 00-59 (RFC 3339 5.6), so "+00:99" is no offset
    r"([Zz]|[+-](?:[01]\d|2[0-3]):[0-5]\d)\Z",
    re.ASCII,
)
_NAIVE = re.compile(r"\A\d{4}-\d{2}-\d{2}([Tt ]\d{2}:\d{2}(:\d{2}(\.\d+)?)?)?\Z", re.ASCII)
_DATE = re.compile(r"\A\d{4}-\d{2}-\d{2}\Z", re.ASCII)


# The common form, to the second in UTC: `datetime.fromisoformat` reads it as RFC 3339 does
# (3.11+: `Z` is UTC), ~10x faster than the general path (one per trial: bench/verify_scale.py).
_UTC_SECOND = re.compile(r"\A\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}Z\Z", re.ASCII)


@lru_cache(maxsize=16)  # a trial's start is read twice in a row: its schema, then its model
def parse_timestamp(text: str) -> datetime | None:
    """Return the aware datetime (in UTC) that `text` names, or None if it is not RFC 3339."""
    if len(text) == 20 and _UTC_SECOND.match(text):
        try:
            return datetime.fromisoformat(text)  # tests/unit/vocab: equal to `_rfc3339`'s
        except ValueError:  # no such day or time (2026-02-30, 24:00:00, a leap second)
            return None
    return _rfc3339(text)


def _rfc3339(text: str) -> datetime | None:
    """`parse_timestamp`'s general path: any RFC 3339 date-time with an offset."""
    match = _DATE_TIME.match(text)
    if match is None:
        return None
    # Python keeps microseconds: pad or cut the fraction to six digits.
    fraction = match.group(7)[:7].ljust(7, "0") if match.group(7) else ""
    offset = match.group(8).upper()
    normalized = (
        f"{match.group(1)}-{match.group(2)}-{match.group(3)}T"
        f"{match.group(4)}:{match.group(5)}:{match.group(6)}{fraction}"
        f"{'+00:00' if offset == 'Z' else offset}"
    )
    try:
        return datetime.fromisoformat(normalized).astimezone(UTC)
    except (ValueError, OverflowError):
        # OverflowError: a valid local time whose UTC instant falls outside years 1..9999,
        # e.g. 0001-01-01T00:00:00+01:00.
        return None


def format_moment(moment: datetime) -> str:
    """`moment` in RFC 3339, in UTC with a Z, keeping any fraction of a second (so that
    `parse_timestamp` gives the same moment back)."""
    text = moment.astimezone(UTC).isoformat()
    return text.removesuffix("+00:00") + "Z"


def format_timestamp(moment: datetime) -> str:
    """Return `moment` in RFC 3339, in UTC with a Z, to the second."""
    return moment.astimezone(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def is_naive_timestamp(text: str) -> bool:
    """True when `text` looks like a date-time without an offset (or a bare date)."""
    return _NAIVE.match(text) is not None


def parse_date(text: str) -> date | None:
    """Return the calendar date `YYYY-MM-DD` names, or None."""
    if _DATE.match(text) is None:
        return None
    try:
        return date.fromisoformat(text)
    except ValueError:
        return None

"""A market's calendar (docs/spec.md §5): resolve-by R, the filing window, the annulment date.

A date in the rules ends at the end of that day everywhere on Earth (Anywhere on Earth,
UTC-12): 12:00 UTC the next day. So evidence public "by R" may be published any time on R,
wherever its authors are.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, date, datetime, time, timedelta
from typing import Literal

__all__ = ["MarketDates", "end_of_day"]


def end_of_day(day: date) -> datetime:
    """The last moment of `day` anywhere on Earth, as an aware UTC datetime.

    For 9999-12-31 (a filer may write it) that moment is past `datetime.max`: saturate there.
    """
    if day == date.max:
        return datetime.max.replace(tzinfo=UTC)
    return datetime.combine(day + timedelta(days=1), time(12, 0), tzinfo=UTC)


@dataclass(frozen=True, slots=True)
class MarketDates:
    """R, the day the filing window closes (R + window_days), and the annulment day."""

    resolve_by: date
    window_closes: date
    annul_on: date

    @classmethod
    def of(cls, resolve_by: date, window_days: int, annul_after_days: int) -> MarketDates:
        closes = resolve_by + timedelta(days=window_days)
        return cls(resolve_by, closes, closes + timedelta(days=annul_after_days))

    def state(self, as_of: date) -> Literal["open", "filing-window", "closed"]:
        """`open` up to R, `filing-window` up to the close, then `closed`."""
        if as_of <= self.resolve_by:
            return "open"
        if as_of <= self.window_closes:
            return "filing-window"
        return "closed"

    @property
    def snapshot_tag(self) -> str:
        """`snapshot-<R as YYYY-MM-DD>` (docs/spec.md §5)."""
        return f"snapshot-{self.resolve_by.isoformat()}"

"""bot/vocab/timestamps.py: RFC 3339 date-times with an explicit offset, nothing looser."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest

from bot.vocab.timestamps import parse_timestamp


@pytest.mark.parametrize(
    ("text", "moment"),
    [
        ("2026-01-01T00:00:00Z", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-01-01t00:00:00z", datetime(2026, 1, 1, tzinfo=UTC)),
        ("2026-01-01T00:00:00+23:59", datetime(2026, 1, 1, tzinfo=UTC) - timedelta(minutes=1439)),
        ("2026-01-01T00:00:00-00:59", datetime(2026, 1, 1, 0, 59, tzinfo=UTC)),
    ],
)
def test_offsets_within_rfc_3339_are_read(text: str, moment: datetime) -> None:
    assert parse_timestamp(text) == moment


@pytest.mark.parametrize(
    "offset", ["+00:60", "+00:99", "-01:75", "+24:00", "+99:00", "+0:00", "+00:0", "+0000"]
)
def test_an_offset_outside_rfc_3339_is_refused(offset: str) -> None:
    """Python reads "+00:60" as an hour and "+00:99" as 1 h 39 min; RFC 3339's time-offset
    has hours 00-23 and minutes 00-59, so a filer's timestamp cannot name a moment that way."""
    assert parse_timestamp(f"2026-01-01T00:00:00{offset}") is None

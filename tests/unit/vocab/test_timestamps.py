"""bot/vocab/timestamps.py: RFC 3339 date-times with an explicit offset, nothing looser."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.vocab.timestamps import _rfc3339, parse_timestamp


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


# Digits in every place, so impossible days, hours, minutes and seconds come up too.
_DIGITS = st.text("0123456789", min_size=1, max_size=1)


@settings(max_examples=500, deadline=None)
@given(st.lists(_DIGITS, min_size=14, max_size=14), st.sampled_from(["Z", "z", "+00:00"]))
def test_the_fast_path_reads_as_the_general_one(digits: list[str], zone: str) -> None:
    """`parse_timestamp`'s fast path (`...Z` to the second) gives what RFC 3339's general
    path gives, for valid and impossible dates and times alike."""
    d = "".join(digits)
    text = f"{d[:4]}-{d[4:6]}-{d[6:8]}T{d[8:10]}:{d[10:12]}:{d[12:14]}{zone}"
    parse_timestamp.cache_clear()
    got = parse_timestamp(text)
    assert got == _rfc3339(text)
    if got is not None:
        assert got.tzinfo is UTC and got.utcoffset() == timedelta(0)


@pytest.mark.parametrize(
    "text",
    [
        "2026-02-28T23:59:59Z",
        "2024-02-29T00:00:00Z",
        "0001-01-01T00:00:00Z",
        "9999-12-31T23:59:59Z",
    ],
)
def test_the_fast_path_keeps_valid_moments(text: str) -> None:
    assert parse_timestamp(text) == _rfc3339(text) is not None

"""`bot/edges/sandbox/streams.py`: bounded tails of adapter output, safe to print."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from bot.edges.sandbox.streams import Tail, printable


def test_tail_keeps_the_last_bytes() -> None:
    tail = Tail(10)
    for index in range(1000):
        tail.add(f"{index:04d}\n".encode())
    assert tail.bytes() == b"0998\n0999\n"
    assert tail.total == 5000


def test_tail_of_zero_keeps_nothing() -> None:
    tail = Tail(0)
    tail.add(b"abc")
    assert (tail.bytes(), tail.text(), tail.total) == (b"", "", 3)


@given(st.lists(st.binary(max_size=50), max_size=40), st.integers(0, 64))
def test_tail_matches_the_end_of_everything(chunks: list[bytes], limit: int) -> None:
    tail = Tail(limit)
    for chunk in chunks:
        tail.add(chunk)
        assert len(tail._data) <= 2 * limit + len(chunk)
    everything = b"".join(chunks)
    assert tail.bytes() == (everything[-limit:] if limit else b"")
    assert len(tail.text()) <= limit


def test_printable_strips_control_characters_but_newline_and_tab() -> None:
    text = printable(b"a\tb\nc\rd\x1b[31me\x07f\x00g\x7fh\xc2\x9bi")
    assert text == "a\tb\ncd[31mefghi"


def test_printable_replaces_invalid_utf8() -> None:
    assert printable(b"ok \xff\xfe \xe2\x82") == "ok \ufffd\ufffd \ufffd"
    assert printable("café ✓".encode()) == "café ✓"

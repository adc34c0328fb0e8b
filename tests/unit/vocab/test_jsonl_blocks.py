"""bot/vocab/jsonl.py `_blocks`: a file read a block at a time gives the lines a line-by-line
reading gives, however the blocks fall, with lines over the cap never buffered whole."""

from __future__ import annotations

import io

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.vocab import jsonl
from bot.vocab.config import Limits
from bot.vocab.jsonl import Typed, parse_jsonl


def lines_as_read_one_by_one(raw: bytes, cap: int) -> list[bytes | None]:
    """What a reader of one line at a time sees: each line without its LF or CRLF, None for
    one longer than `cap`; a file's last line needs no LF."""
    pieces = raw.split(b"\n")
    if pieces[-1] == b"":
        pieces.pop()
    lines: list[bytes | None] = []
    for piece in pieces:
        line = piece.removesuffix(b"\r")
        lines.append(None if len(line) > cap else line)
    return lines


def lines_by_blocks(raw: bytes, cap: int, size: int) -> tuple[list[bytes | None], bytes]:
    lines: list[bytes | None] = []
    blocks = b""
    for block, found in jsonl._blocks(io.BytesIO(raw), cap, size):
        blocks += block
        for line in found:
            lines.append(None if line is jsonl._TOO_LONG else line.removesuffix(b"\r"))
    return lines, blocks


_BYTES = st.lists(
    st.sampled_from([b"\n", b"\r", b"\r\n", b"a", b"bb", b"{}", b"x" * 9]), max_size=40
).map(b"".join)


@settings(max_examples=400, deadline=None)
@given(_BYTES, st.integers(1, 12), st.integers(1, 20))
def test_blocks_split_as_lines_read_one_by_one(raw: bytes, cap: int, size: int) -> None:
    lines, blocks = lines_by_blocks(raw, cap, size)
    assert lines == lines_as_read_one_by_one(raw, cap)
    # Each block is its lines' bytes as read (the too-long ones apart): the counts made on a
    # block are its lines'.
    kept = [line for line in lines_as_read_one_by_one(raw, cap) if line is not None]
    assert all(line in blocks for line in kept)


def test_a_line_over_the_cap_is_not_buffered() -> None:
    class Counting(io.BytesIO):
        largest = 0

        def read(self, size: int | None = -1) -> bytes:
            data = super().read(size)
            Counting.largest = max(Counting.largest, len(data))
            return data

    raw = b'{"a":1}\n' + b"x" * 10_000 + b'\n{"b":2}\n'
    records, findings = parse_jsonl(
        Counting(raw), "f.jsonl", Limits(max_jsonl_line_bytes=100), block_bytes=64
    )
    assert [record.line for record in records] == [1, 3]
    assert [(f.line, f.message) for f in findings] == [(2, "line longer than 100 bytes")]
    assert Counting.largest <= 64


@settings(max_examples=200, deadline=None)
@given(st.lists(st.sampled_from([b'{"a":1}', b"[1]", b"", b"  ", b'{"b":', b"\xef\xbb\xbf{}"])))
def test_a_block_reader_that_declines_changes_nothing(pieces: list[bytes]) -> None:
    """A block reader saying no leaves every line to be read one by one, as without one."""
    raw = b"\n".join(pieces)
    offered: list[int] = []

    def decline(first: int, block: bytes, lines: list[bytes]) -> bool:
        offered.append(first)
        assert all(b"\r" not in line and not line.startswith(b"\xef\xbb\xbf") for line in lines)
        return False

    plain = parse_jsonl(io.BytesIO(raw), "f.jsonl", block_bytes=5)
    typed = parse_jsonl(
        io.BytesIO(raw), "f.jsonl", typed=Typed(lambda n, r: False, decline), block_bytes=5
    )
    assert typed == plain

"""bot/edges/writes.py: atomic writes never write through a planted link."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.edges.writes import read_capped, write_atomic
from bot.vocab.errors import ClaimsError


def test_write_atomic_does_not_write_through_a_link_at_the_temporary_name(
    tmp_path: Path,
) -> None:
    outside = tmp_path / "outside.txt"
    outside.write_bytes(b"keep me\n")
    folder = tmp_path / "attempt"
    folder.mkdir()
    (folder / f".attempt.yaml.{os.getpid()}.tmp").symlink_to(outside)
    with pytest.raises(ClaimsError, match="in the way"):
        write_atomic(folder / "attempt.yaml", b"title: x\n")
    assert outside.read_bytes() == b"keep me\n"
    assert not (folder / "attempt.yaml").exists()


def test_read_capped_reads_up_to_the_cap_and_refuses_more(tmp_path: Path) -> None:
    path = tmp_path / "data.bin"
    path.write_bytes(b"12345")
    assert read_capped(path, 5) == b"12345"
    with pytest.raises(ClaimsError, match=r"the data is larger than 4 bytes"):
        read_capped(path, 4, "the data")
    with pytest.raises(ClaimsError, match=r"cannot read .*missing"):
        read_capped(tmp_path / "missing", 5)

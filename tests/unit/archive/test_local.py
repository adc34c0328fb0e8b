"""The local archive store: records are dated (`created`) by the writer, read back as written."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from bot.archive.local import LocalArchive
from bot.timestamps import parse_timestamp


def test_the_writer_dates_each_record(tmp_path: Path) -> None:
    archive = LocalArchive(tmp_path / "archive")
    made = datetime(2027, 8, 30, 14, tzinfo=UTC)
    path = archive.write("snapshot-2027-06-30", {"id": "local-1"}, made)
    assert json.loads(path.read_text()) == {"id": "local-1", "created": "2027-08-30T14:00:00Z"}
    assert archive.record("snapshot-2027-06-30") == {
        "id": "local-1",
        "created": "2027-08-30T14:00:00Z",
    }


def test_without_a_time_the_writer_dates_a_record_now(tmp_path: Path) -> None:
    before = datetime.now(UTC)
    archive = LocalArchive(tmp_path)
    # A `created` in the metadata is the caller's claim: the writer's own time replaces it.
    archive.write("snapshot-2027-06-30", {"id": "local-1", "created": "2020-01-01T00:00:00Z"})
    record = archive.record("snapshot-2027-06-30")
    assert record is not None and isinstance(record["created"], str)
    created = parse_timestamp(record["created"])
    assert created is not None and before <= created <= datetime.now(UTC)


def test_unreadable_records_are_none(tmp_path: Path) -> None:
    (tmp_path / "snapshot-2027-06-30.json").write_text("[1, 2]")
    (tmp_path / "snapshot-2027-07-31.json").write_text("{not json")
    (tmp_path / "snapshot-2027-05-31.json").symlink_to(tmp_path / "snapshot-2027-06-30.json")
    archive = LocalArchive(tmp_path)
    assert archive.record("snapshot-2027-06-30") is None
    assert archive.record("snapshot-2027-07-31") is None
    assert archive.record("snapshot-2027-05-31") is None
    assert archive.record("snapshot-2099-01-01") is None

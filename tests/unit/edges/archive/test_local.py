"""The local archive store: records are dated (`created`) by the writer, read back as written."""

from __future__ import annotations

import json
from datetime import UTC, date, datetime
from pathlib import Path

import pytest

from bot.edges.archive.local import LocalArchive
from bot.edges.archive.port import Archive, ArchivedRecord, ArchiveError, ArchiveMetadata, md5_of
from bot.rules.resolution import MarketDates, Snapshot
from bot.vocab.timestamps import parse_timestamp


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


# -- the Archive protocol: what the scheduled job uses offline ---------------------------------

TAG = "snapshot-2027-06-30"
MADE = datetime(2027, 7, 2, 9, 30, tzinfo=UTC)


def _metadata(tag: str = TAG) -> ArchiveMetadata:
    return ArchiveMetadata(
        repository_url="https://github.com/acme/registry",
        tag=tag,
        publication_date=date(2027, 7, 2),
        description="The registry when market 3's window closed.",
        creators=("AI Safety Claims registry",),
    )


def test_the_local_store_archives_finds_and_checks_a_copy(tmp_path: Path) -> None:
    tarball = tmp_path / "snapshot.tar.gz"
    tarball.write_bytes(b"tarball bytes")
    archive: Archive = LocalArchive(tmp_path / "archive", clock=lambda: MADE)
    assert archive.find(TAG, "https://github.com/acme/registry") is None
    record = archive.archive(TAG, tarball, _metadata())
    assert record == ArchivedRecord(
        tag=TAG,
        reference=f"local-{TAG}",
        record_id=f"local-{TAG}",
        file_name=f"acme-registry-{TAG}.tar.gz",
        checksum=md5_of(tarball),
        created=MADE,
    )
    stored = tmp_path / "archive" / "files" / record.file_name
    assert stored.read_bytes() == b"tarball bytes"
    found = archive.find(TAG, "https://github.com/acme/registry")
    assert found is not None and found.published and found.record_id == f"local-{TAG}"
    assert archive.copy_state(record).ok
    # What resolution reads: the record file, dated by `created`, with the Zenodo metadata.
    data = LocalArchive(tmp_path / "archive").record(TAG)
    assert data is not None and data["created"] == "2027-07-02T09:30:00Z"
    assert data["metadata"] == _metadata().zenodo_metadata()
    dates = MarketDates.of(date(2027, 6, 30), 60, 30)
    assert Snapshot.of(TAG, None, data, dates, date(2027, 7, 3)).archive_counts


def test_a_local_copy_once_made_is_not_replaced(tmp_path: Path) -> None:
    tarball = tmp_path / "snapshot.tar.gz"
    tarball.write_bytes(b"first")
    archive = LocalArchive(tmp_path / "archive", clock=lambda: MADE)
    first = archive.archive(TAG, tarball, _metadata())
    tarball.write_bytes(b"second")
    later = LocalArchive(tmp_path / "archive", clock=lambda: datetime(2027, 8, 1, tzinfo=UTC))
    assert later.archive(TAG, tarball, _metadata()) == first


def test_the_local_store_notices_a_copy_deleted_or_changed(tmp_path: Path) -> None:
    tarball = tmp_path / "snapshot.tar.gz"
    tarball.write_bytes(b"tarball bytes")
    archive = LocalArchive(tmp_path / "archive", clock=lambda: MADE)
    record = archive.archive(TAG, tarball, _metadata())
    stored = tmp_path / "archive" / "files" / record.file_name
    stored.write_bytes(b"edited")
    assert archive.copy_state(record).status == "changed"
    stored.unlink()
    assert archive.copy_state(record).status == "changed"
    (tmp_path / "archive" / f"{TAG}.json").unlink()
    assert archive.copy_state(record).status == "missing"


def test_the_local_store_refuses_metadata_of_another_tag(tmp_path: Path) -> None:
    tarball = tmp_path / "snapshot.tar.gz"
    tarball.write_bytes(b"x")
    with pytest.raises(ArchiveError, match="metadata names snapshot-2027-07-31"):
        LocalArchive(tmp_path).archive(TAG, tarball, _metadata("snapshot-2027-07-31"))

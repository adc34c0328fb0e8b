"""A local folder standing in for Zenodo when no token is configured (SPEC 10).

Each archived snapshot is `<folder>/<tag>.json`, holding the metadata a Zenodo deposition
would have and `created`: when the record was made (RFC 3339, set by the writer). The
scheduled job (a later stage) writes them; resolution reads the record and its `created` time:
a record without one, or with one it cannot read, never counts (SPEC 5: a snapshot must be
dated by the annulment date).

It implements the `Archive` protocol (bot/archive/port.py) like `ZenodoArchive`, so the
scheduled job runs offline: `archive()` copies the tarball to `<folder>/files/<file name>` and
writes the record (`tag`, `id`, `file`, `checksum`, `created` and the Zenodo `metadata` the
copy would carry); `check()` reads them back. The record is written last, so a crash before it
leaves no record and the rerun copies the file again.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bot.archive.port import (
    ArchivedRecord,
    ArchiveError,
    ArchiveMetadata,
    CopyState,
    DepositionState,
    StoredFile,
    md5_of,
)
from bot.timestamps import format_moment

__all__ = ["LocalArchive"]


class LocalArchive:
    """Archived snapshot records in a folder."""

    def __init__(
        self, folder: Path, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.folder = folder
        self.clock = clock

    def record(self, tag: str) -> dict[str, object] | None:
        """The record of `tag`, or None when there is none or it is unreadable."""
        path = self.folder / f"{tag}.json"
        if path.is_symlink() or not path.is_file():
            return None
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    def write(self, tag: str, metadata: dict[str, object], created: datetime | None = None) -> Path:
        """Store a record atomically, `created` (default: now) in it; return its path."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{tag}.json"
        temporary = path.with_name(f".{path.name}.tmp")
        record = {**metadata, "created": format_moment(created or datetime.now(UTC))}
        temporary.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        temporary.replace(path)
        return path

    def find(self, tag: str, repository_url: str = "") -> DepositionState | None:
        """The stored copy of `tag` (always published: the folder has no drafts), or None."""
        record = self.record(tag)
        stored = ArchivedRecord.from_record(record) if record is not None else None
        if stored is None or stored.tag != tag:
            return None
        return DepositionState(
            id=stored.record_id,
            published=True,
            record_id=stored.record_id,
            files=(StoredFile(stored.file_name, stored.checksum),),
            modified=stored.created,
        )

    def archive(self, tag: str, tarball: Path, metadata: ArchiveMetadata) -> ArchivedRecord:
        """Copy `tarball` into the folder and record it; an existing record is returned as is
        (a copy, once made, is never replaced)."""
        if metadata.tag != tag:
            raise ArchiveError("archive", f"metadata names {metadata.tag}, not {tag}")
        existing = self.record(tag)
        found = ArchivedRecord.from_record(existing) if existing is not None else None
        if found is not None and found.tag == tag:
            return found
        files = self.folder / "files"
        target = files / metadata.file_name
        try:
            files.mkdir(parents=True, exist_ok=True)
            temporary = target.with_name(f".{target.name}.tmp")
            shutil.copyfile(tarball, temporary)
            temporary.replace(target)
            checksum = md5_of(target)
        except OSError as exc:
            raise ArchiveError("upload", f"cannot copy {tarball} to {target}: {exc}") from exc
        if checksum != md5_of(tarball):
            raise ArchiveError("upload", f"the copy {target} differs from {tarball}")
        created = self.clock()
        record = ArchivedRecord(
            tag=tag,
            reference=f"local-{tag}",
            record_id=f"local-{tag}",
            file_name=metadata.file_name,
            checksum=checksum,
            created=created,
        )
        fields = {k: v for k, v in record.as_record().items() if k != "created"}
        self.write(tag, {**fields, "metadata": metadata.zenodo_metadata()}, created)
        return record

    def check(self, record: ArchivedRecord) -> CopyState:
        """Whether the folder still holds `record`: its record file, and the same file."""
        stored = self.record(record.tag)
        if stored is None or stored.get("id") != record.record_id:
            return CopyState("missing", f"no record of {record.tag} in {self.folder}")
        path = self.folder / "files" / record.file_name
        if path.is_symlink() or not path.is_file():
            return CopyState("changed", f"{path} is gone")
        checksum = md5_of(path)
        if checksum != record.checksum:
            return CopyState("changed", f"{path} has {checksum}, recorded {record.checksum}")
        return CopyState("ok")

"""A local folder standing in for Zenodo when no token is configured (docs/spec.md §10).

Each archived snapshot is `<folder>/<tag>.json`, holding the metadata a Zenodo deposition
would have and `created`: when the record was made (RFC 3339, set by the writer). The
scheduled job (a later stage) writes them; resolution reads the record and its `created` time:
a record without one, or with one it cannot read, never counts (docs/spec.md §5: a snapshot must be
dated by the annulment date).

It implements the `Archive` protocol (bot/edges/archive/port.py) like `ZenodoArchive`, so the
scheduled job runs offline: `archive()` copies the tarball to `<folder>/files/<file name>` and
writes the record (`tag`, `id`, `file`, `checksum`, `created` and the Zenodo `metadata` the
copy would carry); `copy_state()` reads them back. The record is written last, so a crash before it
leaves no record and the rerun copies the file again.

A market's copy (one per market, `ArchiveMetadata.market`) is `<folder>/<tag>-market-NN.json`
with the id `local-<tag>-market-NN`; `record(tag)` (what resolution counts) is the oldest
copy of the tag, whichever market it was made for.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path

from bot.edges.archive.port import (
    ArchivedRecord,
    ArchiveError,
    ArchiveMetadata,
    CopyState,
    DepositionState,
    StoredFile,
    md5_of,
)
from bot.vocab.jsonl import loads as json_loads
from bot.vocab.timestamps import format_moment

__all__ = ["LocalArchive"]


class LocalArchive:
    """Archived snapshot records in a folder."""

    def __init__(
        self, folder: Path, clock: Callable[[], datetime] = lambda: datetime.now(UTC)
    ) -> None:
        self.folder = folder
        self.clock = clock

    def record(self, tag: str) -> dict[str, object] | None:
        """The record of `tag` (the oldest of its copies, whichever market each was made
        for), or None when there is none or none is readable."""
        found = [self._read(f"{tag}.json")]
        if self.folder.is_dir():
            found += [self._read(p.name) for p in sorted(self.folder.glob(f"{tag}-market-*.json"))]
        dated = [(r, ArchivedRecord.from_record(r)) for r in found if r is not None]
        kept = [(c.created, r) for r, c in dated if c is not None and c.tag == tag]
        if kept:
            return min(kept, key=lambda pair: pair[0])[1]
        return next((r for r, _ in dated), None)

    def _read(self, name: str) -> dict[str, object] | None:
        path = self.folder / name
        if "/" in name or path.is_symlink() or not path.is_file():
            return None
        try:
            data = json_loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return None
        return data if isinstance(data, dict) else None

    @staticmethod
    def _name(tag: str, market: str | None) -> str:
        return f"{tag}-{market}" if market is not None and "/" not in market else tag

    def write(
        self,
        tag: str,
        metadata: dict[str, object],
        created: datetime | None = None,
        market: str | None = None,
    ) -> Path:
        """Store a record atomically, `created` (default: now) in it; return its path."""
        self.folder.mkdir(parents=True, exist_ok=True)
        path = self.folder / f"{self._name(tag, market)}.json"
        temporary = path.with_name(f".{path.name}.tmp")
        record = {**metadata, "created": format_moment(created or datetime.now(UTC))}
        temporary.write_text(json.dumps(record, indent=2, sort_keys=True) + "\n", encoding="utf-8")
        temporary.replace(path)
        return path

    def find(
        self, tag: str, repository_url: str = "", market: str | None = None
    ) -> DepositionState | None:
        """The stored copy of `tag` made for `market` (any market's, the oldest, when None;
        always published: the folder has no drafts), or None."""
        record = (
            self.record(tag) if market is None else self._read(f"{self._name(tag, market)}.json")
        )
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
        name = self._name(tag, metadata.market)
        existing = self._read(f"{name}.json")
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
            reference=f"local-{name}",
            record_id=f"local-{name}",
            file_name=metadata.file_name,
            checksum=checksum,
            created=created,
        )
        fields = {k: v for k, v in record.as_record().items() if k != "created"}
        self.write(
            tag, {**fields, "metadata": metadata.zenodo_metadata()}, created, metadata.market
        )
        return record

    def copy_state(self, record: ArchivedRecord) -> CopyState:
        """Whether the folder still holds `record`: its record file, and the same file."""
        stored = self._read(f"{record.record_id.removeprefix('local-')}.json")
        if stored is None or stored.get("id") != record.record_id:
            return CopyState("missing", f"no record of {record.tag} in {self.folder}")
        path = self.folder / "files" / record.file_name
        if path.is_symlink() or not path.is_file():
            return CopyState("changed", f"{path} is gone")
        checksum = md5_of(path)
        if checksum != record.checksum:
            return CopyState("changed", f"{path} has {checksum}, recorded {record.checksum}")
        return CopyState("ok")

    def fetch(self, record: ArchivedRecord, target: Path) -> Path:
        """The copy's file, written to `target`; its md5 must be the recorded one."""
        source = self.folder / "files" / record.file_name
        if "/" in record.file_name or source.is_symlink() or not source.is_file():
            raise ArchiveError("fetch", f"{source} is not there")
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
        except OSError as exc:
            raise ArchiveError("fetch", f"cannot copy {source} to {target}: {exc}") from exc
        checksum = md5_of(target)
        if checksum != record.checksum:
            raise ArchiveError("fetch", f"{source} has {checksum}, recorded {record.checksum}")
        return target

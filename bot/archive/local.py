"""A local folder standing in for Zenodo when no token is configured (SPEC 10).

Each archived snapshot is `<folder>/<tag>.json`, holding the metadata a Zenodo deposition
would have and `created`: when the record was made (RFC 3339, set by the writer). The
scheduled job (a later stage) writes them; resolution reads the record and its `created` time:
a record without one, or with one it cannot read, never counts (SPEC 5: a snapshot must be
dated by the annulment date).
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path

from bot.timestamps import format_moment

__all__ = ["LocalArchive"]


class LocalArchive:
    """Archived snapshot records in a folder."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder

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

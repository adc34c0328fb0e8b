"""A file the bot scanned, as a plain value: path, size, SHA-256 and git blob id.

The edges scan folders into these (`bot.edges.load.folder`); the rules compare them.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["FileEntry"]


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A regular file inside the folder: path relative to it, size, SHA-256 and blob id."""

    path: str
    size: int
    sha256: str
    blob_id: str

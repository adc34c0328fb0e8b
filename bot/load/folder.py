"""Scan an attempt folder without following links: every regular file's size and SHA-256.

Symlinks (to files or folders; `symlink`) and devices, sockets and FIFOs (`special-file`) are
reported and never opened, so an attempt cannot point the bot at /etc/passwd or at another
attempt's evidence. File names must be plain ASCII (letters, digits, '.', '_', '-'), so two
names cannot look alike in a report. A path that is not there is `file-missing`; one the
operating system will not list or read (permissions, I/O errors) is `file-unreadable`.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
import stat
from dataclasses import dataclass
from pathlib import Path

from bot.config import Limits
from bot.findings import Code, Finding

__all__ = ["FileEntry", "read_regular", "scan_folder"]

_NAME = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9._-]{0,127}\Z")
_CHUNK = 1 << 20


@dataclass(frozen=True, slots=True)
class FileEntry:
    """A regular file inside the folder: POSIX path relative to it, size, hex SHA-256."""

    path: str
    size: int
    sha256: str


def _hash(path: Path) -> str:
    digest = hashlib.sha256()
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    with os.fdopen(fd, "rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _os_error(error: OSError, verb: str, shown: str) -> Finding:
    """The finding for a path the scan could not list or read, by what the OS said."""
    if isinstance(error, FileNotFoundError):  # gone since it was listed, or never there
        return Finding(Code.FILE_MISSING, f"{verb}: {error.strerror}", shown)
    if error.errno == errno.ELOOP:  # O_NOFOLLOW: replaced by a link since it was listed
        message = "a symbolic link (it replaced the file during the scan); links are refused"
        return Finding(Code.SYMLINK, message, shown)
    return Finding(Code.FILE_UNREADABLE, f"{verb}: {error.strerror}", shown)


def scan_folder(
    folder: Path, display: str, limits: Limits = Limits()
) -> tuple[dict[str, FileEntry], list[Finding]]:
    """Return the folder's regular files by relative path, and findings for everything else."""
    entries: dict[str, FileEntry] = {}
    findings: list[Finding] = []
    pending = [(folder, "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            children = sorted(os.scandir(directory), key=lambda entry: entry.name)
        except OSError as error:
            findings.append(_os_error(error, "cannot list", f"{display}/{prefix}".rstrip("/")))
            continue
        for child in children:
            relative = f"{prefix}{child.name}"
            shown = f"{display}/{relative}"
            try:
                mode = child.stat(follow_symlinks=False).st_mode
            except OSError as error:  # gone since it was listed, or not readable
                findings.append(_os_error(error, "cannot read", shown))
                continue
            if stat.S_ISLNK(mode):
                target = os.readlink(child.path)
                findings.append(
                    Finding(
                        Code.SYMLINK, f"a symbolic link (to {target!r}); links are refused", shown
                    )
                )
                continue
            if _NAME.match(child.name) is None or child.name.startswith(".git"):
                findings.append(
                    Finding(
                        Code.ATTEMPT_LOCATION,
                        f"file name {child.name!r}: use ASCII letters, digits, '.', '_' and '-'",
                        shown,
                    )
                )
                continue
            if stat.S_ISDIR(mode):
                pending.append((Path(child.path), f"{relative}/"))
                continue
            if not stat.S_ISREG(mode):
                findings.append(
                    Finding(
                        Code.SPECIAL_FILE,
                        "not a regular file (device, socket or pipe); refused",
                        shown,
                    )
                )
                continue
            size = child.stat(follow_symlinks=False).st_size
            if size > limits.max_attempt_file_bytes:
                findings.append(
                    Finding(
                        Code.FILE_TOO_LARGE,
                        f"{size} bytes, over the {limits.max_attempt_file_bytes}-byte limit",
                        shown,
                    )
                )
                continue
            if len(entries) >= limits.max_attempt_files:
                findings.append(
                    Finding(
                        Code.TOO_MANY_FILES,
                        f"more than {limits.max_attempt_files} files in the attempt folder",
                        display,
                    )
                )
                return entries, findings
            try:
                digest = _hash(Path(child.path))
            except OSError as error:  # unreadable, or replaced by a link since it was listed
                findings.append(_os_error(error, "cannot read", shown))
                continue
            entries[relative] = FileEntry(relative, size, digest)
    return entries, findings


def read_regular(path: Path, limit: int) -> bytes:
    """Read at most `limit` bytes of a regular file, refusing to follow a final symlink.

    Raises OSError (ELOOP for a link) like `open` does.
    """
    fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
    # In chunks: `read(limit)` would allocate `limit` bytes up front whatever the file's size.
    parts = []
    with os.fdopen(fd, "rb") as stream:
        remaining = limit
        while remaining > 0 and (chunk := stream.read(min(_CHUNK, remaining))):
            parts.append(chunk)
            remaining -= len(chunk)
    return b"".join(parts)

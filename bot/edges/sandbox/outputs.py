"""Reading what an adapter left in its output folder, without trusting any of it.

After the run (no process of it alive any more) the folder is walked with `lstat`, never
following a link: only regular files and folders are accepted. A symbolic link (an adapter may
plant `out/trials.jsonl -> /etc/passwd`), a named pipe (a reader would block), a socket or a
device makes the run fail, and so does a file or folder that its owner (the bot, once the run
is over) may not read: an adapter may `chmod 0` what it wrote, which only root would read. The
number of files and folders and the total bytes are capped, and the walk stops as soon as a
cap is passed, so a million empty files cost bounded time. Names must be printable UTF-8, since
they end up in reports.

`measure` is the same walk, lenient, for watching the folder while the adapter still runs.
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Scan", "hand_back", "measure", "scan_outputs", "size_text"]

_KINDS = {
    stat.S_IFLNK: "a symbolic link",
    stat.S_IFIFO: "a named pipe",
    stat.S_IFSOCK: "a socket",
    stat.S_IFCHR: "a character device",
    stat.S_IFBLK: "a block device",
}

# What the bot (the output folder's owner once the run is over) needs to read an entry.
_READ_BITS = {stat.S_IFREG: stat.S_IRUSR, stat.S_IFDIR: stat.S_IRUSR | stat.S_IXUSR}


def size_text(count: int) -> str:
    """1073741824 -> "1 GiB", 16777216 -> "16 MiB", 1000 -> "1000 bytes"."""
    for unit, power in (("GiB", 30), ("MiB", 20), ("KiB", 10)):
        if count >= 1 << power and count % (1 << power) == 0:
            return f"{count >> power} {unit}"
    return f"{count} bytes"


@dataclass(frozen=True, slots=True)
class Scan:
    """Regular files found (relative POSIX paths, sorted), or the first reason to refuse them."""

    files: tuple[str, ...]
    problem: str | None
    total_bytes: int
    largest: int


def _name(relative: str) -> str | None:
    """`relative` as a printable name, or None when it is not valid, printable UTF-8."""
    try:
        relative.encode("utf-8")
    except UnicodeEncodeError:  # os.fsdecode's surrogate escapes: not UTF-8 on disk
        return None
    if any(ord(c) < 0x20 or 0x7F <= ord(c) <= 0x9F for c in relative):
        return None
    return relative


def _walk(root: Path, max_files: int, max_bytes: int, strict: bool) -> Scan:
    files: list[str] = []
    folders = 0
    total = largest = 0
    pending: list[tuple[Path, str]] = [(root, "")]
    while pending:
        folder, prefix = pending.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda entry: entry.name)
        except FileNotFoundError:
            continue
        except PermissionError:
            if not strict:
                continue
            return Scan((), f"made out/{prefix or '.'} unreadable", total, largest)
        for entry in entries:
            relative = prefix + entry.name
            shown = _name(relative)
            try:
                info = entry.stat(follow_symlinks=False)
            except FileNotFoundError:
                continue
            except PermissionError:  # its folder can be listed but not searched
                if not strict:
                    continue
                return Scan((), f"made out/{prefix or '.'} unreadable", total, largest)
            if strict and shown is None:
                return Scan(
                    (),
                    f"wrote a file whose name is not printable UTF-8: {relative!r}",
                    total,
                    largest,
                )
            kind = stat.S_IFMT(info.st_mode)
            if (
                strict
                and kind in _READ_BITS
                and info.st_mode & _READ_BITS[kind] != _READ_BITS[kind]
            ):
                # Whoever runs the bot: root could read it, an ordinary user could not.
                suffix = "/" if kind == stat.S_IFDIR else ""
                return Scan((), f"made out/{shown}{suffix} unreadable", total, largest)
            if kind == stat.S_IFDIR:
                folders += 1
                if folders > max_files:
                    return Scan((), f"made more than {max_files} folders in out/", total, largest)
                pending.append((Path(entry.path), relative + "/"))
                continue
            if kind != stat.S_IFREG:
                if strict:
                    what = _KINDS.get(kind, "a special file")
                    return Scan((), f"wrote {what} out/{shown}", total, largest)
                continue
            files.append(relative)
            total += info.st_size
            largest = max(largest, info.st_size)
            if len(files) > max_files:
                return Scan((), f"wrote more than {max_files} files to out/", total, largest)
            if total > max_bytes:
                return Scan((), f"wrote more than {size_text(max_bytes)} to out/", total, largest)
    return Scan(tuple(sorted(files)), None, total, largest)


def scan_outputs(root: Path, max_files: int, max_bytes: int) -> Scan:
    """Check the finished output folder; `files` is empty whenever `problem` is set."""
    return _walk(root, max_files, max_bytes, strict=True)


def measure(root: Path, max_files: int, max_bytes: int) -> str | None:
    """While the adapter runs: why its output is already too big, or None."""
    return _walk(root, max_files, max_bytes, strict=False).problem


def hand_back(root: Path, uid: int, gid: int) -> None:
    """Give the folder and everything in it (links themselves, not targets) to uid:gid."""
    os.lchown(root, uid, gid)
    for folder, names, files in os.walk(root):
        for name in names + files:
            os.lchown(os.path.join(folder, name), uid, gid)

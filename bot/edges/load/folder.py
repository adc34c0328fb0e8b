"""Scan an attempt folder in a tree: every regular file's size, SHA-256 and git blob id.

Symlinks (`symlink`), submodules (`submodule`) and devices, sockets and FIFOs (`special-file`)
are reported and never opened, so an attempt cannot point the bot at /etc/passwd or at another
attempt's evidence. File names must be plain ASCII (letters, digits, '.', '_', '-'), so two
names cannot look alike in a report; a path may be no longer than `Limits.max_path_bytes`
from the registry's root, so every checkout and copy of it can be written. A path that is not
there is `file-missing`; one the operating system will not list or read (permissions, I/O
errors) is `file-unreadable`.

The SHA-256 (for the evidence digest) and the git blob id (to ask git when the file landed)
are computed in the same single read of each file.
"""

from __future__ import annotations

import errno
import hashlib
import os
import re
from pathlib import Path

from bot.edges.tree import Tree, TreeEntry, TreeError
from bot.vocab.config import Limits
from bot.vocab.files import FileEntry
from bot.vocab.findings import Code, Finding
from bot.vocab.names import path_collisions

__all__ = ["FileEntry", "read_regular", "scan_folder", "tree_error"]

_NAME = re.compile(r"\A[A-Za-z0-9_][A-Za-z0-9._-]{0,127}\Z")
_CHUNK = 1 << 20


def tree_error(error: OSError, verb: str, shown: str) -> Finding:
    """The finding for a path that could not be listed or read, by what the tree said."""
    if error.errno == errno.ENOENT:
        return Finding(Code.FILE_MISSING, "file not found", shown)
    if error.errno == errno.ELOOP:  # O_NOFOLLOW: a link (perhaps swapped in since the listing)
        return Finding(Code.SYMLINK, "a symbolic link; links are refused", shown)
    return Finding(Code.FILE_UNREADABLE, f"{verb}: {error.strerror}", shown)


def _hash(tree: Tree, entry: TreeEntry, object_format: str) -> tuple[int, str, str]:
    """(size, sha256, blob id) from one chunked read of the file, nothing of it kept.

    git's blob id hashes a header with the size first: the size the listing gave. Should the
    file have changed size since it was listed, the blob id is taken from a second read.
    """
    content = hashlib.sha256()
    blob = None
    if entry.blob_id is None and entry.size is not None:
        blob = hashlib.sha256() if object_format == "sha256" else hashlib.sha1()
        blob.update(f"blob {entry.size}\0".encode())
    size = 0
    with tree.open(entry.path) as stream:
        while chunk := stream.read(_CHUNK):
            content.update(chunk)
            if blob is not None:
                blob.update(chunk)
            size += len(chunk)
    if entry.blob_id is not None:
        return size, content.hexdigest(), entry.blob_id
    if blob is not None and size == entry.size:
        return size, content.hexdigest(), blob.hexdigest()
    # Unknown or changed size: hash again, the header now from the size just read.
    blob = hashlib.sha256() if object_format == "sha256" else hashlib.sha1()
    blob.update(f"blob {size}\0".encode())
    with tree.open(entry.path) as stream:
        while chunk := stream.read(_CHUNK):
            blob.update(chunk)
    return size, content.hexdigest(), blob.hexdigest()


def scan_folder(
    tree: Tree, folder: str, limits: Limits = Limits(), object_format: str = "sha1"
) -> tuple[dict[str, FileEntry], list[Finding], bool]:
    """The folder's regular files by relative path, findings for everything else, and
    whether the scan reached every file (False: it stopped at the file-count cap).

    Two names that are one after case and Unicode folding (`Trials.jsonl` beside
    `trials.jsonl`, `Data/` beside `data/`) are `path-collision`, as a pull request adding
    them is (`bot.vocab.names.path_collisions`, one check for both)."""
    entries, findings, complete = _scan(tree, folder, limits, object_format)
    findings += path_collisions(sorted(f"{folder}/{path}" for path in entries))
    return entries, findings, complete


def _scan(
    tree: Tree, folder: str, limits: Limits, object_format: str
) -> tuple[dict[str, FileEntry], list[Finding], bool]:
    entries: dict[str, FileEntry] = {}
    findings: list[Finding] = []
    pending = [(folder, "")]
    while pending:
        directory, prefix = pending.pop()
        try:
            children = tree.children(directory)
        except TreeError as error:
            findings.append(tree_error(error, "cannot list", directory))
            continue
        for child in children:
            relative = f"{prefix}{child.name}"
            shown = f"{folder}/{relative}"
            if child.kind == "symlink":
                target = tree.readlink(shown) if hasattr(tree, "readlink") else "?"
                findings.append(
                    Finding(
                        Code.SYMLINK, f"a symbolic link (to {target!r}); links are refused", shown
                    )
                )
                continue
            if child.kind == "submodule":
                findings.append(
                    Finding(Code.SUBMODULE, "a git submodule; refused (commit files)", shown)
                )
                continue
            if len(shown.encode("utf-8", "surrogateescape")) > limits.max_path_bytes:
                findings.append(
                    Finding(
                        Code.ATTEMPT_LOCATION,
                        f"a path of {len(shown.encode('utf-8', 'surrogateescape'))} bytes, over"
                        f" the {limits.max_path_bytes}-byte limit: no checkout of the registry"
                        " could write it (use shorter names, fewer folders)",
                        shown,
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
            if child.kind == "folder":
                pending.append((shown, f"{relative}/"))
                continue
            if child.kind != "file":
                findings.append(
                    Finding(
                        Code.SPECIAL_FILE,
                        "not a regular file (device, socket or pipe); refused",
                        shown,
                    )
                )
                continue
            size = child.size or 0
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
                        folder,
                    )
                )
                return entries, findings, False
            try:
                size, sha256, blob = _hash(tree, child, object_format)
            except TreeError as error:  # unreadable, or replaced by a link since listed
                findings.append(tree_error(error, "cannot read", shown))
                continue
            entries[relative] = FileEntry(relative, size, sha256, blob)
    return entries, findings, True


def read_regular(path: Path, limit: int) -> bytes:
    """Read at most `limit` bytes of a regular file on disk, refusing a final symlink.

    For files the bot itself wrote (a sandbox's output folder). Raises OSError like `open`.
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

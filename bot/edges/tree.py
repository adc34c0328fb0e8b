"""Trees: the registry's files as the bot reads them, from a folder or from git objects.

Everything that reads the registry reads it through a `Tree`:
- `FolderTree(root)`: a working tree. Every path component is opened with O_NOFOLLOW relative
  to its parent folder, so no link anywhere in a path is followed, and a file swapped for a
  link after it was listed is refused rather than read.
- `GitTree(repo, commit)`: a commit's tree read from git objects: no checkout, no smudge or
  text filters, no attributes, modes kept. Symlinks and submodules are entries of their own
  kinds, never followed. The GitHub flow reads a pull request's head this way, as data, and
  resolution reads a market's `snapshot-R` tree.

One `git ls-tree -r -t -l` call lists a commit's whole tree; blobs are read through GitPython's
persistent `git cat-file --batch` process.
"""

from __future__ import annotations

import contextlib
import errno
import os
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, BinaryIO, Literal, Protocol, cast

# GitPython (~35 ms to import) only names the type here: a `GitTree` is handed an open repo.
if TYPE_CHECKING:
    import git

__all__ = [
    "EntryKind",
    "FolderTree",
    "GitTree",
    "Tree",
    "TreeEntry",
    "TreeError",
    "read_limited",
]

EntryKind = Literal["file", "folder", "symlink", "submodule", "special"]

# git's modes, which FolderTree entries use too, so a PR read from git and a checkout agree.
MODE_FILE, MODE_EXECUTABLE, MODE_LINK = "100644", "100755", "120000"
MODE_FOLDER, MODE_SUBMODULE = "040000", "160000"
_CHUNK = 1 << 20


class TreeError(OSError):
    """A path that cannot be read as a regular file or listed as a folder (errno says why)."""


@dataclass(frozen=True, slots=True)
class TreeEntry:
    """One path in a tree: its kind, git-style mode, size (files and links) and blob id."""

    path: str  # POSIX, relative to the tree's root
    kind: EntryKind
    mode: str
    size: int | None = None
    blob_id: str | None = None  # GitTree only: the git object id of a file or link

    @property
    def name(self) -> str:
        return PurePosixPath(self.path).name


class Tree(Protocol):
    """Read-only access to a registry's files. Paths are POSIX, relative to the root."""

    @property
    def label(self) -> str:
        """What this tree is, for reports: `working tree /x` or `git commit abc123`."""
        ...

    def entry(self, path: str) -> TreeEntry | None:
        """The entry at `path` (never following a link), or None when nothing is there."""
        ...

    def children(self, folder: str) -> list[TreeEntry]:
        """The entries directly inside `folder` ("" for the root), sorted by name.

        Raises `TreeError` when `folder` is not a readable folder.
        """
        ...

    def open(self, path: str) -> BinaryIO:
        """A binary stream of the regular file at `path`.

        Raises `TreeError` (ENOENT, ELOOP for a link, EISDIR, EACCES...) when it is none.
        """
        ...


def read_limited(tree: Tree, path: str, limit: int) -> bytes:
    """At most `limit` bytes of the regular file `path`. Raises `TreeError` like `open`."""
    parts = []
    with tree.open(path) as stream:
        remaining = limit
        while remaining > 0 and (chunk := stream.read(min(_CHUNK, remaining))):
            parts.append(chunk)
            remaining -= len(chunk)
    return b"".join(parts)


def _parts(path: str) -> list[str]:
    """The components of a relative POSIX path; refuses absolute paths and `..`."""
    parts = [part for part in path.split("/") if part not in ("", ".")]
    if path.startswith("/") or ".." in parts:
        raise TreeError(errno.EINVAL, "not a path inside the tree", path)
    return parts


def _kind(mode: int) -> tuple[EntryKind, str]:
    if stat.S_ISLNK(mode):
        return "symlink", MODE_LINK
    if stat.S_ISDIR(mode):
        return "folder", MODE_FOLDER
    if stat.S_ISREG(mode):
        return "file", MODE_EXECUTABLE if mode & 0o111 else MODE_FILE
    return "special", f"{mode:06o}"


class _Entries:
    """`entry` for both trees: the root, or a path's entry (None for one that leaves the tree)."""

    def entry(self, path: str) -> TreeEntry | None:
        try:
            parts = _parts(path)
        except TreeError:
            return None
        return TreeEntry("", "folder", MODE_FOLDER) if not parts else self._entry(parts)

    def _entry(self, parts: list[str]) -> TreeEntry | None:
        raise NotImplementedError


class FolderTree(_Entries):
    """A folder on disk, read without following any link."""

    def __init__(self, root: Path) -> None:
        self.root = root

    @property
    def label(self) -> str:
        return f"working tree {self.root}"

    @contextmanager
    def _folder_fd(self, parts: list[str]) -> Iterator[int]:
        """An fd of the folder `parts` below the root, each step opened with O_NOFOLLOW."""
        flags = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW
        fd = os.open(self.root, os.O_RDONLY | os.O_DIRECTORY)
        try:
            for part in parts:
                try:
                    child = os.open(part, flags, dir_fd=fd)
                except OSError as error:
                    # A link opened with O_DIRECTORY | O_NOFOLLOW gives ENOTDIR on Linux, not
                    # ELOOP: ask lstat, so a linked folder is reported as the link it is.
                    number = error.errno
                    with contextlib.suppress(OSError):
                        if stat.S_ISLNK(os.stat(part, dir_fd=fd, follow_symlinks=False).st_mode):
                            number = errno.ELOOP
                    raise TreeError(number, os.strerror(number or 0), "/".join(parts)) from None
                os.close(fd)
                fd = child
            yield fd
        finally:
            os.close(fd)

    def _entry(self, parts: list[str]) -> TreeEntry | None:
        try:
            with self._folder_fd(parts[:-1]) as fd:
                status = os.stat(parts[-1], dir_fd=fd, follow_symlinks=False)
        except OSError:
            return None
        kind, mode = _kind(status.st_mode)
        size = status.st_size if kind in ("file", "symlink") else None
        return TreeEntry("/".join(parts), kind, mode, size)

    def children(self, folder: str) -> list[TreeEntry]:
        parts = _parts(folder)
        prefix = "/".join(parts)
        try:
            with self._folder_fd(parts) as fd:
                names = sorted(os.listdir(fd))
                entries = []
                for name in names:
                    try:
                        status = os.stat(name, dir_fd=fd, follow_symlinks=False)
                    except FileNotFoundError:  # gone since it was listed
                        continue
                    kind, mode = _kind(status.st_mode)
                    size = status.st_size if kind in ("file", "symlink") else None
                    entries.append(TreeEntry(f"{prefix}/{name}".lstrip("/"), kind, mode, size))
        except TreeError:
            raise
        except OSError as error:
            raise TreeError(error.errno, error.strerror, folder) from None
        return entries

    def open(self, path: str) -> BinaryIO:
        parts = _parts(path)
        if not parts:
            raise TreeError(errno.EISDIR, "a folder", path)
        try:
            with self._folder_fd(parts[:-1]) as fd:
                # O_NONBLOCK: opening a FIFO with no writer would otherwise block for ever;
                # it changes nothing for the regular files that pass the check below.
                flags = os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK
                file_fd = os.open(parts[-1], flags, dir_fd=fd)
        except TreeError:
            raise
        except OSError as error:
            raise TreeError(error.errno, error.strerror, path) from None
        if not stat.S_ISREG(os.fstat(file_fd).st_mode):
            os.close(file_fd)
            raise TreeError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        return os.fdopen(file_fd, "rb")

    def readlink(self, path: str) -> str:
        """A symlink's target, for messages."""
        parts = _parts(path)
        with self._folder_fd(parts[:-1]) as fd:
            return os.readlink(parts[-1], dir_fd=fd)


class GitTree(_Entries):
    """A commit's tree, read from git objects only."""

    def __init__(self, repo: git.Repo, commit: str, prefix: str = "") -> None:
        """`prefix`: the registry's folder inside the repository ("" at its top)."""
        self.repo = repo
        self.commit = repo.commit(commit).hexsha
        self._prefix = prefix.strip("/")
        self._entries: dict[str, TreeEntry] = {}
        self._children: dict[str, list[TreeEntry]] = {"": []}
        self._index()

    @property
    def label(self) -> str:
        return f"git commit {self.commit[:12]}"

    def _index(self) -> None:
        """One `git ls-tree` for the whole tree: modes, types, ids and sizes."""
        arguments = ["-r", "-t", "-l", "-z", "--full-tree", self.commit]
        output: str = self.repo.git.ls_tree(*arguments, strip_newline_in_stdout=False)
        base = f"{self._prefix}/" if self._prefix else ""
        for record in output.split("\0"):
            if not record:
                continue
            meta, _, full = record.partition("\t")
            mode, kind_name, object_id, size_text = meta.split()
            if not full.startswith(base):
                continue
            path = full[len(base) :]
            if any(part in ("", ".", "..") for part in path.split("/")):
                continue  # no valid tree holds these (git fsck refuses them); never a path
            kind: EntryKind
            if mode == MODE_SUBMODULE:
                kind = "submodule"
            elif mode == MODE_LINK:
                kind = "symlink"
            elif kind_name == "tree":
                kind = "folder"
            elif mode in (MODE_FILE, MODE_EXECUTABLE):
                kind = "file"
            else:  # pragma: no cover - git writes no other modes
                kind = "special"
            size = int(size_text) if size_text.isdigit() else None
            entry = TreeEntry(path, kind, mode, size, object_id)
            self._entries[path] = entry
            if kind == "folder":
                self._children.setdefault(path, [])
            parent = path.rpartition("/")[0]
            self._children.setdefault(parent, []).append(entry)
        for entries in self._children.values():
            entries.sort(key=lambda entry: entry.name)

    def _entry(self, parts: list[str]) -> TreeEntry | None:
        return self._entries.get("/".join(parts))

    def children(self, folder: str) -> list[TreeEntry]:
        key = "/".join(_parts(folder))
        found = self._children.get(key)
        if found is None:
            raise TreeError(errno.ENOTDIR, "not a folder", folder)
        return list(found)

    def open(self, path: str) -> BinaryIO:
        _parts(path)  # EINVAL for a path that leaves the tree
        entry = self.entry(path)
        if entry is None:
            raise TreeError(errno.ENOENT, "no such file", path)
        if entry.kind == "symlink":
            raise TreeError(errno.ELOOP, "a symbolic link", path)
        if entry.kind != "file" or entry.blob_id is None:
            raise TreeError(errno.EISDIR, os.strerror(errno.EISDIR), path)
        # OStream.stream: git cat-file's content stream (read and readline, bounded by size).
        stream = self.repo.odb.stream(bytes.fromhex(entry.blob_id)).stream
        return cast(BinaryIO, _GitStream(stream))

    def readlink(self, path: str) -> str:
        """A symlink's target (the blob's text), for messages."""
        entry = self.entry(path)
        if entry is None or entry.blob_id is None:
            return "?"
        data: bytes = self.repo.odb.stream(bytes.fromhex(entry.blob_id)).read()
        return data.decode("utf-8", "replace")


class _GitStream:
    """GitPython's object stream as the small part of `BinaryIO` the loaders use."""

    def __init__(self, stream: object) -> None:
        self._stream = stream

    def read(self, size: int = -1) -> bytes:
        data: bytes = self._stream.read(size) if size >= 0 else self._stream.read()  # type: ignore[attr-defined]
        return data

    def readline(self, size: int = -1) -> bytes:
        data: bytes = self._stream.readline(size)  # type: ignore[attr-defined]
        return data

    def __enter__(self) -> _GitStream:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    def close(self) -> None:
        # Drain what is left, or the persistent cat-file process would be out of step.
        while self._stream.read(_CHUNK):  # type: ignore[attr-defined]
            pass

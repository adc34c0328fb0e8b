"""Writing a filer tool's files: atomically, never silently over a file the tool does not own,
and saying what changed.

A command plans its writes as `Write`s, then `apply` checks them all before touching
anything: a file that exists and would change, but that the command does not own (`owned`
False), is refused unless `force`. Each file is written to a temporary file in its own folder
and renamed over the target, so a crash leaves the old file or the new one, never half of one.
"""

from __future__ import annotations

import difflib
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from bot.vocab.errors import ClaimsError

__all__ = ["Write", "apply", "read_capped", "write_atomic"]

_DIFF_LINES = 40  # a summary, not the whole file


@dataclass(frozen=True)
class Write:
    """One file a command writes (`data`) or removes (`data` None).

    `owned`: the command owns the file (it derived all of it, or edits only its own fields),
    so replacing it is the point; otherwise an existing, different file is refused without
    --force. `what`: what the command changes in it, for the summary.
    """

    path: Path
    data: bytes | None
    owned: bool
    what: str = ""


def read_capped(path: Path, cap: int, name: str | None = None) -> bytes:
    """The bytes of `path`, at most `cap` of them (never more read); `ClaimsError` when it
    cannot be read or is larger. `name`: how messages call the file (default: its path)."""
    name = name or str(path)
    try:
        with path.open("rb") as stream:
            data = stream.read(cap + 1)
    except OSError as error:
        raise ClaimsError(f"cannot read {name}: {error.strerror or error}") from None
    if len(data) > cap:
        raise ClaimsError(f"{name} is larger than {cap} bytes")
    return data


def write_atomic(path: Path, data: bytes) -> None:
    """Write `data` to `path` through a temporary file in the same folder and a rename."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        # O_EXCL | O_NOFOLLOW: a file or link planted under the temporary name is never
        # written through.
        flags = os.O_WRONLY | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0)
        with os.fdopen(os.open(temporary, flags, 0o666), "wb") as stream:
            stream.write(data)
            stream.flush()
            os.fsync(stream.fileno())
        os.replace(temporary, path)
    except FileExistsError:
        raise ClaimsError(f"cannot write {path}: {temporary} is in the way; remove it") from None
    except OSError as error:
        temporary.unlink(missing_ok=True)
        raise ClaimsError(f"cannot write {path}: {error.strerror}") from None


def _no_link(path: Path, root: Path) -> None:
    """Refuse a write whose path passes through a symbolic link below `root` (a linked
    folder would carry the write out of the registry)."""
    real = path.parent.resolve() / path.name
    if not real.is_relative_to(root.resolve()):
        raise ClaimsError(
            f"{path} is outside the registry at {root}: a symbolic link on its way leads out",
            "remove the link; nothing was written",
        )
    if not path.absolute().is_relative_to(root.absolute()):
        return  # the registry itself reached through a link above it: that is the filer's
    step = root.absolute()
    for part in path.absolute().relative_to(root.absolute()).parts:
        step = step / part
        if step.is_symlink():
            raise ClaimsError(
                f"{step} is a symbolic link: the registry refuses links",
                "remove it; nothing was written",
            )


def _read(path: Path) -> bytes | None:
    if path.is_symlink():
        raise ClaimsError(f"{path} is a symbolic link: the registry refuses links; remove it")
    if not path.exists():
        return None
    if not path.is_file():
        raise ClaimsError(f"{path} exists and is not a regular file")
    try:
        return path.read_bytes()
    except OSError as error:
        raise ClaimsError(f"cannot read {path}: {error.strerror}") from None


def _diff(old: bytes, new: bytes, name: str) -> list[str]:
    try:
        before, after = old.decode("utf-8"), new.decode("utf-8")
    except UnicodeDecodeError:
        return [f"    (binary: {len(old)} -> {len(new)} bytes)"]
    lines = list(
        difflib.unified_diff(
            before.splitlines(), after.splitlines(), f"a/{name}", f"b/{name}", n=0, lineterm=""
        )
    )
    shown = [f"    {line}" for line in lines[:_DIFF_LINES]]
    if len(lines) > _DIFF_LINES:
        shown.append(f"    ... and {len(lines) - _DIFF_LINES} more diff lines")
    return shown


def apply(writes: Sequence[Write], force: bool, base: Path, root: Path | None = None) -> list[str]:
    """Check every write, then make them; return the summary lines (paths relative to `base`).

    Raises `ClaimsError` (exit 2), writing nothing, when a write would replace a file the
    command does not own and `force` is False, or (given the registry's `root`) when a
    write's path passes through a symbolic link below it.
    """
    if root is not None:
        for write in writes:
            _no_link(write.path, root)
    current = {write.path: _read(write.path) for write in writes}
    refused = [
        write.path
        for write in writes
        if not write.owned and current[write.path] is not None and current[write.path] != write.data
    ]
    if refused and not force:
        raise ClaimsError(*_refusal([w for w in writes if w.path in refused], base))
    summary = []
    for write in writes:
        old, name = current[write.path], _shown(write.path, base)
        what = f" ({write.what})" if write.what else ""
        if write.data is None:
            if old is not None:
                summary.append(f"removed   {name}{what}")
                try:
                    write.path.unlink()
                except OSError as error:
                    raise ClaimsError(f"cannot remove {write.path}: {error.strerror}") from None
            continue
        if old == write.data:
            summary.append(f"unchanged {name}")
            continue
        if old is None:
            summary.append(f"created   {name}{what}")
        else:
            forced = " (--force: it was not this command's)" if write.path in refused else ""
            summary.append(f"changed   {name}{what}{forced}")
            summary += _diff(old, write.data, name)
        write_atomic(write.path, write.data)
    return summary


def _refusal(writes: Sequence[Write], base: Path) -> tuple[str, str]:
    """What is there and why it stays, then the fix: a file to remove (an older log beside
    the one being pinned) or one that differs from what the command would write."""
    removed = [w for w in writes if w.data is None]
    replaced = [w for w in writes if w.data is not None]
    said = []
    if removed:
        names = ", ".join(_shown(w.path, base) for w in removed)
        what = "; ".join(sorted({w.what for w in removed if w.what}))
        said.append(f"refusing to remove {names}" + (f" ({what})" if what else ""))
    if replaced:
        names = ", ".join(_shown(w.path, base) for w in replaced)
        said.append(
            f"refusing to overwrite {names}: it exists and differs from what this command"
            " would write (edited by hand, or written by something else)"
        )

    def them(some: Sequence[Write]) -> str:
        return "it" if len(some) == 1 else "them"

    fix = "pass --force to " + " and ".join(
        [
            *([f"remove {them(removed)}"] if removed else []),
            *([f"replace {them(replaced)}"] if replaced else []),
        ]
    )
    return "; ".join(said), f"{fix}, or move {them(writes)} away first; nothing was written"


def _shown(path: Path, base: Path) -> str:
    try:
        return path.absolute().relative_to(base.absolute()).as_posix()
    except ValueError:
        return str(path)

"""Atomic publish: the site is written whole into a new sibling folder, then swapped in.

`publish_site(files, out)` writes every file into `.<out>.new-XXXX` beside `out`; only when all
are written does it rename the old `out` aside and the new folder into its place, then remove
the old one. A failure while writing removes the new folder and leaves `out` as it was; a
failure of the swap puts the old folder back. So a reader (or the Pages upload step) sees the
old site or the new one, never half of one. Between the two renames `out` is missing for an
instant: POSIX has no rename that swaps two folders (Linux's renameat2 RENAME_EXCHANGE is not
in the standard library), and the Pages workflow uploads only after the command has exited.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from pathlib import Path

from bot.vocab.errors import ClaimsError

__all__ = ["MARKER", "publish_site"]

# Written into every site this module publishes: only a folder holding it (or an empty one)
# is ever replaced, so `--out .` inside a registry, or a mistyped folder, is refused rather
# than removed. A hidden file: Pages' upload leaves it out.
MARKER = ".claims-site"


def _target(staging: Path, path: str) -> Path:
    """Where `path` (a site path from the renderer) goes: refused unless it stays inside."""
    parts = path.split("/")
    if any(part in ("", ".", "..") or "\\" in part or "\0" in part for part in parts):
        raise ClaimsError(f"the site holds a file with an unsafe path: {path!r}")
    return staging.joinpath(*parts)


def _write_all(files: Mapping[str, bytes], staging: Path) -> None:
    for path, data in sorted(files.items()):
        target = _target(staging, path)
        target.parent.mkdir(parents=True, exist_ok=True)
        with open(target, "xb") as stream:
            stream.write(data)


def publish_site(files: Mapping[str, bytes], out: Path) -> None:
    """Write `files` (site path -> bytes) as the folder `out`, replacing it whole.

    Raises `ClaimsError` when `out` is a file or a link, or cannot be written; `out` is then
    as it was.
    """
    out = out.absolute()
    if out.is_symlink() or (out.exists() and not out.is_dir()):
        raise ClaimsError(f"{out} is not a folder: the site is written to a folder of its own")
    if out.is_dir() and not (out / MARKER).is_file() and any(out.iterdir()):
        raise ClaimsError(
            f"{out} holds files but no site that claims built ({MARKER} is missing), so it is"
            " not replaced",
            "name a new or empty folder, or one an earlier `claims site` wrote",
        )
    files = {**files, MARKER: b"a website built by claims site; replaced whole by the next\n"}
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=f".{out.name}.new-", dir=out.parent))
    except OSError as error:
        raise ClaimsError(f"cannot write the site beside {out}: {error.strerror}") from None
    try:
        _write_all(files, staging)
        os.chmod(staging, 0o755)  # mkdtemp makes it 0700; a served site must be readable
        _swap(staging, out)
    except OSError as error:
        shutil.rmtree(staging, ignore_errors=True)
        raise ClaimsError(f"cannot write the site to {out}: {error}") from None
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise


def _swap(staging: Path, out: Path) -> None:
    if not out.exists():
        os.rename(staging, out)
        return
    old = Path(tempfile.mkdtemp(prefix=f".{out.name}.old-", dir=out.parent))
    os.rmdir(old)  # a fresh name for the old site, free again for the rename
    os.rename(out, old)
    try:
        os.rename(staging, out)
    except BaseException:
        os.rename(old, out)
        raise
    shutil.rmtree(old, ignore_errors=True)

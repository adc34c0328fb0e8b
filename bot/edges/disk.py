"""Room on the runner's disk: a job keeps a fetched body only while the disk holds it."""

from __future__ import annotations

import shutil
from pathlib import Path

__all__ = ["DISK_RESERVE", "has_room"]

DISK_RESERVE = 2 * 1024 * 1024 * 1024  # left free on a pin job's disk by the bodies it keeps


def has_room(folder: Path, size: int) -> bool:
    """True when `size` more bytes leave `DISK_RESERVE` free where `folder` is: a pin job
    keeps bodies only while the runner's disk holds them (a body not kept is listed in the
    archive's manifest as not carried, never a lost job)."""
    try:
        folder.mkdir(parents=True, exist_ok=True)
        free = shutil.disk_usage(folder).free
    except OSError:
        return False
    return free - size >= DISK_RESERVE

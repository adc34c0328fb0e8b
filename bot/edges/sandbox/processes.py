"""Finding and killing every process a run left behind.

A sandboxed run is recognised by its PID namespace (the inode bwrap reports on
`--json-status-fd`; the caller holds the namespace open meanwhile, so its inode number cannot
pass to another namespace and no stranger is killed), by the uid it was given (a fresh uid
per run when the bot is root), or by a marker in its environment (the weakest: an adapter can
exec with another environment). The kernel kills a PID namespace's processes when its PID 1
dies, so with bwrap this is a check that normally finds nothing (or processes the kernel is
already killing); without bwrap it is what stops a `setsid` child that left the process group.
"""

from __future__ import annotations

import contextlib
import os
import signal
import time
from dataclasses import dataclass

__all__ = ["Mark", "kill_survivors", "survivors"]


@dataclass(frozen=True, slots=True)
class Mark:
    """What identifies a run's processes; any field that is None is not checked."""

    pid_namespace: int | None = None
    uid: int | None = None
    environ: bytes | None = None


def _status(pid: str) -> dict[str, str]:
    fields: dict[str, str] = {}
    with open(f"/proc/{pid}/status", encoding="utf-8", errors="replace") as stream:
        for line in stream:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields


def _matches(pid: str, mark: Mark) -> bool:
    status = _status(pid)
    if status.get("State", "").startswith(("Z", "X")):
        return False  # already dead; its parent (or init) reaps it
    if mark.uid is not None and status.get("Uid", "").split()[:1] == [str(mark.uid)]:
        return True
    namespace = f"pid:[{mark.pid_namespace}]"
    if mark.pid_namespace is not None and os.readlink(f"/proc/{pid}/ns/pid") == namespace:
        return True
    if mark.environ is not None:
        with open(f"/proc/{pid}/environ", "rb") as stream:
            if mark.environ in stream.read().split(b"\0"):
                return True
    return False


def survivors(mark: Mark) -> list[int]:
    """Ids of live processes that carry `mark` (never this process)."""
    if mark == Mark():
        return []
    found = []
    own = os.getpid()
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == own:
            continue
        try:
            if _matches(entry.name, mark):
                found.append(int(entry.name))
        except (OSError, ValueError):
            continue  # gone meanwhile, or not ours to inspect
    return found


def kill_survivors(mark: Mark, patience: float = 5.0, grace: float = 0.2) -> tuple[int, int]:
    """SIGKILL every process carrying `mark` until none is left (or `patience` seconds pass).

    Processes still around `grace` seconds after the call are leftovers; earlier ones are
    usually a namespace's processes that the kernel is already tearing down. Returns (how many
    leftovers were found, how many are still alive at the end).
    """
    leftovers: set[int] = set()
    started = time.monotonic()
    while True:
        found = survivors(mark)
        elapsed = time.monotonic() - started
        if elapsed >= grace:
            leftovers.update(found)
        if not found or elapsed > patience:
            return len(leftovers), len(found)
        for pid in found:
            with contextlib.suppress(ProcessLookupError, PermissionError):
                os.kill(pid, signal.SIGKILL)
        time.sleep(0.01)

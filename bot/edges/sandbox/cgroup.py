"""A control group per run: the sandbox's memory and processes bounded as a whole.

RLIMIT_AS bounds each process's address space, so N processes could use N times the memory
limit (measured: four processes used 3.2 GB under a "1 GiB" limit), and pages written to the
sandbox's tmpfs (/tmp, /dev/shm) count against no rlimit at all. Where the bot runs as root
and the kernel offers the memory and pids controllers, each run gets its own cgroup:

- cgroup v2 (GitHub's Ubuntu runners): `/sys/fs/cgroup/claims-sandbox-<hex>`, a child of the
  root cgroup (the one cgroup exempt from "no internal processes"), with `memory.max` = the
  memory limit, `memory.swap.max` = 0 and `pids.max` = the process limit;
- cgroup v1: a child of the bot's own cgroup in the `memory` and `pids` hierarchies, with
  `memory.limit_in_bytes` (and `memory.memsw.limit_in_bytes`, where swap is accounted) and
  `pids.max`.

The command joins the group before bwrap starts (`join`: a shell that writes its own PID to
each `cgroup.procs` and then execs), so every process of the run, and every tmpfs page it
writes, is charged to it. Over the memory limit the kernel's OOM killer kills inside the
group only; `oom_killed` tells the runner so that the run reads "memory limit hit". A cgroup
that cannot be made (not root, no controller) leaves the run to the rlimits, and the runner
says which bound held (`bound`).
"""

from __future__ import annotations

import contextlib
import os
import secrets
import signal
import time
from dataclasses import dataclass
from pathlib import Path

__all__ = ["Group", "available", "create", "join"]

ROOT = Path("/sys/fs/cgroup")
_PREFIX = "claims-sandbox-"
# The shell that joins the groups named before `--`, then execs the rest (exit 125: cannot).
_JOIN = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'


@dataclass(frozen=True, slots=True)
class Group:
    """One run's cgroup: its folder per hierarchy (v2: one; v1: memory, then pids)."""

    version: int
    folders: tuple[Path, ...]

    @property
    def memory(self) -> Path:
        return self.folders[0]

    def _read(self, folder: Path, name: str) -> str:
        try:
            return (folder / name).read_text()
        except OSError:
            return ""

    def oom_killed(self) -> bool:
        """Whether the kernel killed a process of the run for the group's memory limit."""
        name = "memory.events" if self.version == 2 else "memory.oom_control"
        for line in self._read(self.memory, name).splitlines():
            key, _, value = line.partition(" ")
            if key == "oom_kill" and value.strip().isdigit() and int(value) > 0:
                return True
        if self.version == 1:  # kernels before 4.13 have no oom_kill count
            failures = self._read(self.memory, "memory.failcnt").strip()
            return failures.isdigit() and int(failures) > 0
        return False

    def peak(self) -> int | None:
        """The most memory the run held at once (bytes), where the kernel says."""
        name = "memory.peak" if self.version == 2 else "memory.max_usage_in_bytes"
        text = self._read(self.memory, name).strip()
        return int(text) if text.isdigit() else None

    def remove(self, patience: float = 5.0) -> None:
        """Kill what is left in the group and remove it (the run's processes are gone by now,
        so this is a last sweep)."""
        deadline = time.monotonic() + patience
        for folder in self.folders:
            while folder.exists():
                if self.version == 2 and (folder / "cgroup.kill").exists():
                    with contextlib.suppress(OSError):
                        (folder / "cgroup.kill").write_text("1")
                else:
                    for pid in self._read(folder, "cgroup.procs").split():
                        with contextlib.suppress(OSError):
                            os.kill(int(pid), signal.SIGKILL)
                try:
                    folder.rmdir()
                except OSError:
                    if time.monotonic() > deadline:
                        break
                    time.sleep(0.02)


def join(group: Group | None, argv: list[str]) -> list[str]:
    """`argv`, started inside `group` (unchanged without one)."""
    if group is None:
        return argv
    procs = [str(folder / "cgroup.procs") for folder in group.folders]
    return ["/bin/sh", "-c", _JOIN, "sh", *procs, "--", *argv]


def _own(hierarchy: str) -> Path | None:
    """The bot's cgroup in a v1 hierarchy, as a folder under ROOT/hierarchy."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        if hierarchy in controllers.split(","):
            return ROOT / hierarchy / path.lstrip("/")
    return None


def _write(folder: Path, name: str, value: int | str) -> None:
    (folder / name).write_text(f"{value}\n")


def _v2(name: str, memory_bytes: int, processes: int) -> Group | None:
    enabled = (ROOT / "cgroup.subtree_control").read_text().split()
    if not {"memory", "pids"} <= set(enabled):
        _write(ROOT, "cgroup.subtree_control", "+memory +pids")
    folder = ROOT / name
    folder.mkdir()
    group = Group(2, (folder,))
    try:
        _write(folder, "memory.max", memory_bytes)
        if (folder / "memory.swap.max").exists():
            _write(folder, "memory.swap.max", 0)
        _write(folder, "pids.max", processes)
    except OSError:
        group.remove()
        raise
    return group


def _v1(name: str, memory_bytes: int, processes: int) -> Group | None:
    memory, pids = _own("memory"), _own("pids")
    if memory is None or pids is None or not memory.is_dir() or not pids.is_dir():
        return None
    group = Group(1, (memory / name, pids / name))
    try:
        for folder in group.folders:
            folder.mkdir()
        _write(group.folders[0], "memory.limit_in_bytes", memory_bytes)
        if (group.folders[0] / "memory.memsw.limit_in_bytes").exists():
            _write(group.folders[0], "memory.memsw.limit_in_bytes", memory_bytes)
        _write(group.folders[1], "pids.max", processes)
    except OSError:
        group.remove()
        raise
    return group


def _sweep(folder: Path) -> None:
    """Remove the groups a killed bot left in `folder`. rmdir refuses a group that still holds
    a process, and a group is only empty and in use for the moment between its mkdir and the
    run's joining it, so ten minutes old is safely left over."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return
    for entry in entries:
        with contextlib.suppress(OSError):
            if entry.name.startswith(_PREFIX) and time.time() - entry.stat().st_mtime > 600:
                os.rmdir(entry.path)


def create(memory_bytes: int, processes: int) -> tuple[Group | None, str | None]:
    """A fresh cgroup bounding memory and processes as a whole, or None and why not."""
    if os.geteuid() != 0:
        return None, "the bot does not run as root, so it cannot make a cgroup"
    for hierarchy in (ROOT, _own("memory"), _own("pids")):
        if hierarchy is not None:
            _sweep(hierarchy)
    name = _PREFIX + secrets.token_hex(8)
    try:
        if (ROOT / "cgroup.controllers").is_file():
            group = _v2(name, memory_bytes, processes)
        else:
            group = _v1(name, memory_bytes, processes)
    except OSError as error:
        return None, f"no cgroup could be made: {error.strerror or error}"
    if group is None:
        return None, "the kernel offers no memory and pids cgroup controllers here"
    return group, None


def available() -> str | None:
    """None when runs here get a cgroup (one is made and removed to find out), else why not."""
    group, reason = create(64 << 20, 8)
    if group is not None:
        group.remove()
    return reason

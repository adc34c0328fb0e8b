"""Start a sandbox command and watch it until it ends: streams, wall clock, output size.

One thread, one selector: stdout and stderr (kept as rolling tails), bwrap's status pipe, and a
pidfd that becomes readable when the process exits. The output folder is measured every
`WATCH_EVERY` seconds, so an adapter writing a million files or a full disk is stopped while it
runs rather than judged afterwards. Killing means SIGKILL to the process group the command
started (its own session); bwrap's `--die-with-parent` and the PID namespace take the rest.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import selectors
import signal
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from bot.edges.sandbox.outputs import measure
from bot.edges.sandbox.streams import Tail
from bot.vocab.errors import ClaimsError

__all__ = ["BwrapStatus", "Observed", "execute"]

READ_CHUNK = 64 << 10
WATCH_EVERY = 0.25  # seconds between looks at the output folder while the adapter runs
DRAIN_GRACE = 1.0  # seconds to keep reading streams a leftover process still holds open


@dataclass(slots=True)
class Observed:
    """What `execute` saw. `report` is INIT's JSON line, when there is one."""

    stdout: Tail
    stderr: Tail
    started: float
    wait_status: int = 0
    cpu: float = 0.0
    stopped: Literal["wall", "output"] | None = None
    output_problem: str | None = None
    report: dict[str, float] = field(default_factory=dict)


class BwrapStatus:
    """Reads bwrap's `--json-status-fd` and holds the run's PID namespace open, so that its
    inode number (how leftovers are found) cannot pass to another namespace meanwhile."""

    def __init__(self) -> None:
        self.text = bytearray()
        self.fd: int | None = None
        self.inode: int | None = None
        self._tried = False

    def add(self, chunk: bytes) -> None:
        if len(self.text) < READ_CHUNK:
            self.text += chunk
        child = re.search(rb'"child-pid":\s*(\d+)', self.text)
        found = re.search(rb'"pid-namespace":\s*(\d+)', self.text)
        if self._tried or child is None or found is None:
            return
        self._tried = True
        try:
            fd = os.open(f"/proc/{int(child.group(1))}/ns/pid", os.O_RDONLY | os.O_CLOEXEC)
        except OSError:
            return  # already gone, and its namespace with it
        if os.fstat(fd).st_ino == int(found.group(1)):
            self.fd, self.inode = fd, int(found.group(1))
        else:
            os.close(fd)

    def close(self) -> None:
        if self.fd is not None:
            os.close(self.fd)
            self.fd = self.inode = None


def _report(fd: int) -> dict[str, float]:
    """INIT's last JSON line on `fd` (read after the run), or {} when there is none."""
    data = b""
    os.set_blocking(fd, False)
    try:
        while len(data) < READ_CHUNK and (chunk := os.read(fd, READ_CHUNK)):
            data += chunk
    except BlockingIOError:
        pass
    for line in reversed(data.splitlines()):
        try:
            found = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(found, dict) and all(
            isinstance(found.get(key), int | float) for key in ("status", "cpu")
        ):
            return {"status": found["status"], "cpu": found["cpu"]}
    return {}


def kill_group(pid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pid, signal.SIGKILL)


def execute(
    argv: list[str],
    *,
    cwd: str | None,
    env: dict[str, str],
    pass_fds: tuple[int, ...] = (),
    status: tuple[int, BwrapStatus] | None = None,
    report_fd: int | None = None,
    watch: Path,
    wall_seconds: float,
    output_files: int,
    output_bytes: int,
    tail_bytes: int,
) -> Observed:
    """Run `argv` in its own session until it ends. Closes `pass_fds` (the child has them)."""
    outcome = Observed(Tail(tail_bytes), Tail(tail_bytes), time.monotonic())
    try:
        process = subprocess.Popen(
            argv,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            cwd=cwd,
            env=env,
            pass_fds=pass_fds,
            start_new_session=True,
        )
    except OSError as error:
        raise ClaimsError(f"cannot start the sandbox ({argv[0]}): {error}") from error
    finally:
        for fd in pass_fds:
            os.close(fd)  # keeping the write ends would hold the pipes open
    assert process.stdout is not None and process.stderr is not None
    selector = selectors.DefaultSelector()
    try:
        readers: dict[int, Tail | BwrapStatus] = {
            process.stdout.fileno(): outcome.stdout,
            process.stderr.fileno(): outcome.stderr,
        }
        if status is not None:
            readers[status[0]] = status[1]
        for fd, reader in readers.items():
            os.set_blocking(fd, False)
            selector.register(fd, selectors.EVENT_READ, reader)
        limits = (wall_seconds, output_files, output_bytes)
        _supervise(process, selector, outcome, watch, limits)
    finally:
        if process.returncode is None:  # only after a bug above: never leave it running
            kill_group(process.pid)
            _, wait_status, _ = os.wait4(process.pid, 0)
            process.returncode = os.waitstatus_to_exitcode(wait_status)
        selector.close()
        process.stdout.close()
        process.stderr.close()
    if report_fd is not None:
        outcome.report = _report(report_fd)
        if outcome.report:
            outcome.wait_status = int(outcome.report["status"])
            outcome.cpu = outcome.report["cpu"]
    return outcome


def _supervise(
    process: subprocess.Popen[bytes],
    selector: selectors.BaseSelector,
    outcome: Observed,
    watch: Path,
    limits: tuple[float, int, int],
) -> None:
    wall_seconds, output_files, output_bytes = limits
    deadline = outcome.started + wall_seconds
    next_watch = outcome.started + WATCH_EVERY
    exited_at: float | None = None
    pidfd: int | None = None
    try:
        pidfd = os.pidfd_open(process.pid)
        selector.register(pidfd, selectors.EVENT_READ, None)
    except (AttributeError, OSError):
        pidfd = None  # older kernels: poll with WNOHANG below
    try:
        while True:
            now = time.monotonic()
            if exited_at is None:
                pid, wait_status, usage = os.wait4(process.pid, os.WNOHANG)
                if pid == process.pid:
                    exited_at = now
                    outcome.wait_status = wait_status
                    outcome.cpu = usage.ru_utime + usage.ru_stime
                    process.returncode = os.waitstatus_to_exitcode(wait_status)
                    if pidfd is not None:
                        selector.unregister(pidfd)
                        os.close(pidfd)
                        pidfd = None
            streams_open = bool(selector.get_map())
            if exited_at is not None and (not streams_open or now - exited_at > DRAIN_GRACE):
                return
            if exited_at is None and outcome.stopped is None:
                if now >= deadline:
                    outcome.stopped = "wall"
                    kill_group(process.pid)
                elif now >= next_watch:
                    next_watch = now + WATCH_EVERY
                    problem = measure(watch, output_files, output_bytes)
                    if problem is not None:
                        outcome.stopped, outcome.output_problem = "output", problem
                        kill_group(process.pid)
            wait = WATCH_EVERY if pidfd is not None else 0.05
            if outcome.stopped is None and exited_at is None:
                wait = max(0.0, min(wait, deadline - now, next_watch - now))
            for key, _ in selector.select(wait):
                if key.data is None:
                    continue  # the pidfd: the process exited, reaped at the top of the loop
                try:
                    chunk = os.read(key.fd, READ_CHUNK)
                except BlockingIOError:
                    continue
                if chunk:
                    key.data.add(chunk)
                else:
                    selector.unregister(key.fd)
    finally:
        if pidfd is not None:
            os.close(pidfd)

"""Run one adapter command in the sandbox and say how it ended (see the package docstring).

How a run is judged, in this order:
- the wall clock and the output caps are enforced here (kill, limit "wall" or "output");
- INIT (`bot/edges/sandbox/command.py`) reports the command's wait status and CPU time; without
  its report (bwrap killed, or failing before the command started) bwrap's own status is
  used. bwrap (the inner one too) passes a signal N on as exit code 128 + N, so in the
  sandbox exit codes 129 to 128 + NSIG read as signals (an adapter that exits 137 on
  purpose is reported as killed by SIGKILL: it fails either way);
- CPU: killed by SIGKILL or SIGXCPU after using 90% of the CPU budget (`wait4` counts the
  whole process tree);
- file size: SIGXFSZ, EFBIG in stderr, or an output at the cap (Python ignores SIGXFSZ and
  gets EFBIG); memory and processes: the error an exhausted `malloc` or `fork` prints
  (MemoryError, EAGAIN). Those texts come from the adapter, so they only choose the label
  of a run that already failed;
- then any other signal or non-zero exit, then what `out/` holds.

As root the output folder belongs to the run's uid during the run and is given back (every
entry, links themselves) before anything in it is read. Leftover processes are looked for
after every run (by PID namespace and uid, or without bwrap by uid and an environment marker)
and killed.
"""

from __future__ import annotations

import errno
import os
import re
import secrets
import shutil
import signal
import stat
import sys
import tempfile
import time
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

from bot.edges.sandbox import cgroup, command
from bot.edges.sandbox.command import ENVIRONMENT, OUT, PATH, Layout, command_problem
from bot.edges.sandbox.outputs import Scan, hand_back, scan_outputs, size_text
from bot.edges.sandbox.processes import Mark, kill_survivors, survivors
from bot.edges.sandbox.supervise import BwrapStatus, Observed, execute
from bot.vocab.errors import ClaimsError

__all__ = ["UNISOLATED", "RunResult", "SandboxLimits", "isolation", "run_adapter"]

# The bubblewrap executable, looked up on PATH (tests point it at a missing name).
BWRAP = "bwrap"
UNISOLATED = "ran WITHOUT network isolation (--allow-unisolated)"

Limit = Literal["cpu", "memory", "file-size", "processes", "wall", "output"]

_READABLE_CHECK_CAP = 10_000  # files checked for world-readability before a run as root
_UID_BASE = 1_000_000_000  # fresh uids come from [base, base + span): no account uses them
_UID_SPAN = 1 << 20
_MEMORY_TEXTS = ("MemoryError", "Cannot allocate memory", "std::bad_alloc", "out of memory")
_PROCESS_TEXTS = ("Resource temporarily unavailable", "can't start new thread", "Cannot fork")
_FILE_SIZE_TEXTS = ("File too large", "File size limit exceeded")
_PROBE = """
import os, socket, sys
problems = []
if os.getuid() == 0:
    problems.append("the command runs as root")
names = sorted(name for _, name in socket.if_nameindex())
if names != ["lo"]:
    problems.append(f"network interfaces {names} are visible")
if problems:
    sys.exit("; ".join(problems))
"""


@dataclass(frozen=True, slots=True)
class SandboxLimits:
    """What one adapter run may use. CPU and file size are per process. Memory and processes
    bound the whole run where the bot can make a cgroup (as root: `bot/edges/sandbox/cgroup.py`;
    the sandbox's tmpfs pages count too), and always each process (RLIMIT_AS, RLIMIT_NPROC
    of the run's uid); a memory failure says which held."""

    cpu_seconds: int = 60
    memory_bytes: int = 1 << 30
    file_bytes: int = 256 << 20
    processes: int = 64
    wall_seconds: float = 120.0
    output_files: int = 50
    output_bytes: int = 512 << 20
    stream_tail_bytes: int = 64 << 10


@dataclass(frozen=True, slots=True)
class RunResult:
    """How a run ended. `status` is "ok" only for exit code 0 within every limit."""

    status: Literal["ok", "failed", "refused"]
    reason: str
    exit_code: int | None
    signal: int | None
    limit: Limit | None
    stdout_tail: str
    stderr_tail: str
    outputs: tuple[str, ...]
    duration: float
    # The most memory the whole run held at once, where a cgroup bounded it (else None).
    memory_peak: int | None = None


@dataclass(frozen=True, slots=True)
class _Whole:
    """How the run's memory and processes were bounded: as a whole (a cgroup: `bot/edges/sandbox/
    cgroup.py`), or only per process (the rlimits); whether the cgroup's memory limit killed a
    process, and its peak."""

    cgroup: bool
    oom_killed: bool = False
    peak: int | None = None


@dataclass(frozen=True, slots=True)
class _Setup:
    """How to isolate here: the bwrap executable and whether to add the inner bwrap layer."""

    bwrap: str
    nested: bool


# ---------------------------------------------------------------------------------------------
# Public entry points


def isolation() -> str | None:
    """None when network isolation works here (bwrap present and a probe sandbox works), else
    why not, in one sentence."""
    return _setup()[1]


def run_adapter(
    command: Sequence[str],
    *,
    code: Path,
    inputs: Path,
    output: Path,
    limits: SandboxLimits = SandboxLimits(),
    allow_unisolated: bool = False,
) -> RunResult:
    """Run `command` with cwd = the adapter folder, `released/...` readable, `out/` writable.

    Raises ClaimsError only for the operator's mistakes (missing folders, an output folder
    that is not empty, folders the sandbox user cannot read); whatever the adapter does ends
    as a RunResult, and so does a command the sandbox cannot start (`command_problem`: the
    filer's adapter.yaml, which the PR check refuses the same way).
    """
    argv = _check_arguments(command, code, inputs, output, limits)
    unstartable = command_problem(argv)
    if unstartable is not None:  # the filer's command (adapter.yaml): a failed run, not raised
        why = f"the sandbox cannot start the command: {unstartable}"
        return RunResult("failed", why, None, None, None, "", "", (), 0.0)
    code, inputs, output = code.resolve(), inputs.resolve(), output.resolve()
    setup, reason = _setup()
    if setup is None and not allow_unisolated:
        return RunResult("refused", reason or "no isolation", None, None, None, "", "", (), 0.0)
    entries, problem = _entries(code, inputs)
    if problem is not None:
        return RunResult("failed", problem, None, None, None, "", "", (), 0.0)
    if os.geteuid() == 0:
        _check_readable(code, inputs)
    if setup is not None:
        return _run_isolated(setup, argv, entries, output, limits)
    return _run_unisolated(f"{UNISOLATED}: {reason}", argv, entries, output, limits)


# ---------------------------------------------------------------------------------------------
# Checks before a run


def _check_arguments(
    argv: Sequence[str], code: Path, inputs: Path, output: Path, limits: SandboxLimits
) -> list[str]:
    if isinstance(argv, str | bytes):  # a caller's mistake: a string is no list of parts
        raise ClaimsError(f"the adapter command must be a list of strings, got {argv!r}")
    for name, folder in (("adapter folder", code), ("inputs folder", inputs)):
        if not folder.is_dir():
            raise ClaimsError(f"the {name} {folder} is not a folder")
    if output.is_symlink() or not output.is_dir():
        raise ClaimsError(f"the output folder {output} is not a folder")
    if any(output.iterdir()):
        raise ClaimsError(
            f"the output folder {output} is not empty", "give each run a fresh, empty output folder"
        )
    real = output.resolve()
    for folder in (code.resolve(), inputs.resolve()):
        if real == folder or folder in real.parents or real in folder.parents:
            raise ClaimsError(f"the output folder {output} overlaps {folder}")
    numbers = (
        limits.cpu_seconds,
        limits.memory_bytes,
        limits.file_bytes,
        limits.processes,
        limits.wall_seconds,
        limits.output_files,
        limits.output_bytes,
    )
    if not all(number > 0 for number in numbers) or limits.stream_tail_bytes < 0:
        raise ClaimsError(f"sandbox limits must be positive: {limits}")
    return list(argv)


def _shown(name: str) -> str:
    return name if name.isprintable() and name.isascii() else repr(name)


def _entries(code: Path, inputs: Path) -> tuple[tuple[tuple[str, Path], ...], str | None]:
    """The names the working folder will hold, each with its host path; or why not
    (`names_problem`, the rule the PR check applies too)."""
    names: dict[bool, dict[str, Path]] = {False: {}, True: {}}
    for folder, operator in ((code, False), (inputs, True)):
        for entry in sorted(os.scandir(folder), key=lambda item: item.name):
            kind = stat.S_IFMT(entry.stat(follow_symlinks=False).st_mode)
            if kind not in (stat.S_IFREG, stat.S_IFDIR):
                if operator:
                    raise ClaimsError(f"the inputs folder holds {entry.path}, not a file or folder")
                name = _shown(entry.name)
                return (), f"the adapter folder holds {name}, which is not a regular file or folder"
            names[operator][entry.name] = Path(entry.path)
            if len(names[operator]) > command.MAX_NAMES:
                break
    problem = command.names_problem(list(names[False]), list(names[True]))
    if problem is not None:
        return (), problem
    return tuple({**names[False], **names[True]}.items()), None


def _check_readable(code: Path, inputs: Path) -> None:
    """As root the adapter runs as another uid, so every file must be world-readable."""
    checked = 0
    for top in (code, inputs):
        for folder, names, files in os.walk(top):
            for name in [*names, *files]:
                path = os.path.join(folder, name)
                mode = os.lstat(path).st_mode
                need = 0o005 if stat.S_ISDIR(mode) else 0o004
                if not stat.S_ISLNK(mode) and mode & need != need:
                    raise ClaimsError(
                        f"the sandbox user cannot read {path} (mode {stat.S_IMODE(mode):04o})",
                        f"make the folders world-readable: chmod -R a+rX {top}",
                    )
                checked += 1
                if checked >= _READABLE_CHECK_CAP:
                    return


# ---------------------------------------------------------------------------------------------
# Finding out whether and how this machine isolates


def _tool(name: str) -> str | None:
    return shutil.which(name) or shutil.which(name, path="/usr/sbin:/usr/bin:/sbin:/bin")


def _setup() -> tuple[_Setup | None, str | None]:
    bwrap = _tool(BWRAP)
    if bwrap is None:
        return (
            None,
            f"bubblewrap ({BWRAP}) is not installed; install it: apt-get install bubblewrap",
        )
    needed = ["prlimit", "setpriv"] if os.geteuid() == 0 else ["prlimit"]
    missing = [tool for tool in needed if _tool(tool) is None]
    if missing:
        return None, f"{' and '.join(missing)} (util-linux) not found"
    executable, prefix = command.interpreter()
    if prefix is not None and (len(prefix.parts) < 3 or prefix in (Path.home(), Path("/root"))):
        return None, f"no interpreter to bind safely: {executable} lives in {prefix}"
    return _probe(bwrap, os.geteuid(), str(executable), str(prefix) if prefix else None)


_WORKING: dict[tuple[str, int, str, str | None], _Setup] = {}


def _probe(
    bwrap: str, euid: int, executable: str, prefix: str | None
) -> tuple[_Setup | None, str | None]:
    """Run a probe in the sandbox, with the inner layer if the kernel allows it, else without.
    A working setup is remembered for the process; a failure is probed again next time."""
    key = (bwrap, euid, executable, prefix)
    if key in _WORKING:
        return _WORKING[key], None
    reason = ""
    for nested in (True, False) if euid == 0 else (False,):
        setup = _Setup(bwrap, nested)
        with tempfile.TemporaryDirectory(prefix="claims-sandbox-probe-") as scratch:
            output = Path(scratch)
            limits = SandboxLimits(wall_seconds=30)
            result = _run_isolated(setup, ["python3", "-c", _PROBE], (), output, limits)
        if result.status == "ok":
            _WORKING[key] = setup
            return setup, None
        reason = (result.stderr_tail.strip().splitlines() or [result.reason])[-1][:300]
    return None, f"bwrap cannot build the sandbox here: {reason}"


# ---------------------------------------------------------------------------------------------
# Running


def _fresh_uid() -> int:
    while True:
        uid = _UID_BASE + secrets.randbelow(_UID_SPAN)
        if not survivors(Mark(uid=uid)):
            return uid


def _run_isolated(
    setup: _Setup,
    argv: list[str],
    entries: tuple[tuple[str, Path], ...],
    output: Path,
    limits: SandboxLimits,
) -> RunResult:
    uid = _fresh_uid() if os.geteuid() == 0 else None
    before = os.lstat(output)
    status_read, status_write = os.pipe()
    report_read, report_write = os.pipe()
    status = BwrapStatus()
    outcome: Observed | None = None
    group, _ = cgroup.create(limits.memory_bytes, limits.processes)
    whole = _Whole(group is not None)
    try:
        if uid is not None:
            os.chown(output, uid, uid)
            os.chmod(output, 0o700)
        full = command.isolated_argv(
            Layout(setup.bwrap, entries, output),
            argv,
            limits,
            uid=uid,
            nested=setup.nested,
            status_fd=status_write,
            report_fd=report_write,
        )
        fds, status_write, report_write = (status_write, report_write), -1, -1
        outcome = execute(
            cgroup.join(group, full),
            cwd=None,
            env=dict(ENVIRONMENT),
            pass_fds=fds,
            status=(status_read, status),
            report_fd=report_read,
            watch=output,
            wall_seconds=limits.wall_seconds,
            output_files=limits.output_files,
            output_bytes=limits.output_bytes,
            tail_bytes=limits.stream_tail_bytes,
        )
    finally:
        for fd in (status_read, status_write, report_read, report_write):
            if fd >= 0:
                os.close(fd)
        killed = kill_survivors(Mark(pid_namespace=status.inode, uid=uid))
        status.close()
        if group is not None:
            whole = _Whole(True, group.oom_killed(), group.peak())
            group.remove()
        if uid is not None:
            hand_back(output, before.st_uid, before.st_gid)
            os.chmod(output, stat.S_IMODE(before.st_mode))
    _check_started(outcome, bytes(status.text))
    return _finish(outcome, killed, output, limits, note=None, whole=whole)


class SandboxNotStarted(OSError):
    """The sandbox itself never started the command: no fault of the adapter's."""


def _check_started(outcome: Observed | None, status_text: bytes) -> None:
    """Raise `SandboxNotStarted` when bubblewrap never started the command's process (its
    status names no `child-pid`) and no limit of the run stopped it: the join of the run's
    cgroup failed (exit 125), or bubblewrap could not set the sandbox up. No code of the filer's
    ran, so it is the machine's fault, never the adapter's failure (recorded as `adapter-failed`,
    the close job would count it against the filer at once)."""
    if outcome is None or outcome.stopped is not None or outcome.report:
        return
    if re.search(rb'"child-pid":\s*\d+', status_text):
        return
    tail = outcome.stderr.text().strip()[-300:]
    detail = f": {tail}" if tail else ""
    raise SandboxNotStarted(
        errno.EIO, f"the sandbox did not start the adapter's command (machine error){detail}"
    )


def _stage(source: Path, target: Path, link: bool) -> None:
    """Put a copy of `source` at `target`: hard links where they cannot be written through."""

    def place(src: str, dst: str) -> None:
        if link and not os.lstat(src).st_mode & 0o022:
            try:
                os.link(src, dst, follow_symlinks=False)
                return
            except OSError:
                pass
        shutil.copy2(src, dst, follow_symlinks=False)

    if source.is_dir():
        shutil.copytree(source, target, symlinks=True, copy_function=place)
    else:
        place(str(source), str(target))


def _run_unisolated(
    note: str,
    argv: list[str],
    entries: tuple[tuple[str, Path], ...],
    output: Path,
    limits: SandboxLimits,
) -> RunResult:
    """No namespaces: a staged copy of the working folder, a fresh uid when root, rlimits, an
    empty environment and an own session. Processes are found afterwards by uid or marker."""
    root = os.geteuid() == 0
    uid = _fresh_uid() if root else None
    marker = ("CLAIMS_SANDBOX_RUN", secrets.token_hex(16))
    staging = Path(tempfile.mkdtemp(prefix="claims-sandbox-"))
    try:
        staging.chmod(0o711)
        bindir, work = staging / "bin", staging / "work"
        bindir.mkdir(mode=0o755)
        work.mkdir(mode=0o755)
        system = command.SYSTEM_PYTHON
        executable = system if system.is_file() else Path(sys.executable)
        for name in ("python", "python3"):
            (bindir / name).symlink_to(executable)
        for name, source in entries:
            _stage(source, work / name, link=root)
        out = work / OUT
        out.mkdir(mode=0o755)
        drop: list[str] = []
        if uid is not None:
            os.chown(out, uid, uid)
            out.chmod(0o700)
            drop = command.setpriv(uid, _tool("setpriv") or "setpriv")
        environment = {**ENVIRONMENT, "PATH": f"{bindir}:{PATH}", marker[0]: marker[1]}
        group, _ = cgroup.create(limits.memory_bytes, limits.processes)
        outcome = execute(
            cgroup.join(
                group, [*drop, *command.prlimit(limits, _tool("prlimit") or "prlimit"), *argv]
            ),
            cwd=str(work),
            env=environment,
            watch=out,
            wall_seconds=limits.wall_seconds,
            output_files=limits.output_files,
            output_bytes=limits.output_bytes,
            tail_bytes=limits.stream_tail_bytes,
        )
        killed = kill_survivors(Mark(uid=uid, environ="=".join(marker).encode()))
        whole = _Whole(False)
        if group is not None:
            whole = _Whole(True, group.oom_killed(), group.peak())
            group.remove()
        if uid is not None:
            hand_back(out, os.geteuid(), os.getegid())
        result = _finish(outcome, killed, out, limits, note=note, whole=whole)
        for name in result.outputs:
            target = output / name
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.move(out / name, target)
        return result
    finally:
        shutil.rmtree(staging, ignore_errors=True)


# ---------------------------------------------------------------------------------------------
# Judging


def _finish(
    outcome: Observed | None,
    killed: tuple[int, int],
    output: Path,
    limits: SandboxLimits,
    *,
    note: str | None,
    whole: _Whole,
) -> RunResult:
    """Judge a finished run whose processes are all gone and whose output folder is ours."""
    assert outcome is not None  # execute returned, or its exception went up
    scan = scan_outputs(output, limits.output_files, limits.output_bytes)
    status, reason, code, number, limit = _judge(outcome, scan, limits, note is None, whole)
    found, left = killed
    if found:
        reason += f"; {found} leftover process(es) killed after the run"
    if left:
        status, reason = "failed", reason + f", {left} of them still alive"
    if note is not None:
        reason += f"; {note}"
    return RunResult(
        status,
        reason,
        code,
        number,
        limit,
        outcome.stdout.text(),
        outcome.stderr.text(),
        scan.files,
        max(0.0, time.monotonic() - outcome.started),
        whole.peak,
    )


def _signal_name(number: int) -> str:
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def _ending(outcome: Observed, isolated: bool) -> tuple[int | None, int | None]:
    """(exit code, None) or (None, signal number). bwrap passes a signal N on as exit code
    128 + N, so in the sandbox an exit code of 137 on purpose reads as SIGKILL."""
    if os.WIFSIGNALED(outcome.wait_status):
        return None, os.WTERMSIG(outcome.wait_status)
    code = os.waitstatus_to_exitcode(outcome.wait_status)
    if isolated and 128 < code < 128 + signal.NSIG:
        return None, code - 128
    return code, None


def _judge(
    outcome: Observed, scan: Scan, limits: SandboxLimits, isolated: bool, whole: _Whole
) -> tuple[Literal["ok", "failed"], str, int | None, int | None, Limit | None]:
    code, number = _ending(outcome, isolated)
    stderr = outcome.stderr.text()
    if outcome.stopped == "wall":
        return "failed", f"wall-clock timeout after {limits.wall_seconds:g} s", code, number, "wall"
    if outcome.stopped == "output":
        return "failed", outcome.output_problem or "too much output", code, number, "output"
    spent = outcome.cpu >= 0.9 * limits.cpu_seconds
    if number is not None and (number == signal.SIGXCPU or (number == signal.SIGKILL and spent)):
        name = _signal_name(number)
        reason = f"killed by {name} after the {limits.cpu_seconds} s CPU limit"
        return "failed", reason, code, number, "cpu"
    failed = number is not None or code != 0
    big = any(text in stderr for text in _FILE_SIZE_TEXTS) or scan.largest >= limits.file_bytes
    if number == signal.SIGXFSZ or (failed and big):
        reason = f"file size limit ({size_text(limits.file_bytes)}) hit"
        return "failed", reason, code, number, "file-size"
    if failed and (whole.oom_killed or any(text in stderr for text in _MEMORY_TEXTS)):
        per = "for the whole sandbox" if whole.cgroup else "per process"
        reason = f"memory limit ({size_text(limits.memory_bytes)} {per}) hit"
        return "failed", reason, code, number, "memory"
    if failed and any(text in stderr for text in _PROCESS_TEXTS):
        return "failed", f"process limit ({limits.processes}) hit", code, number, "processes"
    if number is not None:
        return "failed", f"killed by {_signal_name(number)}", code, number, None
    if code != 0:
        return "failed", f"exit code {code}", code, number, None
    if scan.problem is not None:
        limit: Limit | None = "output" if "more than" in scan.problem else None
        return "failed", scan.problem, code, number, limit
    return "ok", "exit code 0", code, number, None

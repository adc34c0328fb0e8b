"""The sandbox's command line: bwrap's mounts, the init, the uid change and the limits.

    bwrap (mounts, namespaces, --as-pid-1)            as the bot's user
      python3 -I -S -c INIT REPORT_FD                 PID 1 of the run, same user
        setpriv --reuid=U ... --                      only as root: a fresh uid, no capabilities
          bwrap --unshare-user --disable-userns ...   only as root, where the kernel allows it
            prlimit --cpu --as --fsize --nproc --core=0 --
              the adapter's command

Why each layer (measured on Debian 12, bubblewrap 0.8.0, as root):
- bwrap as root runs privileged without a user namespace, so it binds folders a plain user
  could not reach (pytest's and tempfile's 0700 folders); `--unshare-user --uid 65534` as
  root would map the sandbox uid to host uid 0, and RLIMIT_NPROC is not enforced for host
  root: a fork bomb then ran until the wall-clock timeout.
- INIT is our own PID 1 (`--as-pid-1`). bwrap's init reports the exit through an eventfd and
  lets bwrap exit while the namespace is still dying, and bwrap then cannot count the
  adapter's CPU time; a PID 1 running as the sandbox uid, on the other hand, never receives
  bwrap's parent-death SIGKILL (a root bwrap without capabilities may not signal another uid)
  and outlived a killed bwrap. INIT keeps the bot's uid, waits for the command, writes its
  wait status and CPU time (`wait4`, whole process tree) to REPORT_FD, and reaps orphans;
  when it dies the kernel kills the whole namespace.
- setpriv drops to a fresh uid per run from a range no account uses, with no capabilities,
  an empty bounding set and no_new_privs: `prlimit --nproc=32` then stopped a fork bomb in
  0.4 s; concurrent runs do not share a process budget; leftovers are found by uid.
- The inner, unprivileged bwrap takes away the adapter's ability to make user namespaces
  (`unshare -U -r` worked without it), which would reach more kernel code. Where the kernel
  forbids unprivileged user namespaces the adapter cannot make them either, and the layer is
  left out (`isolation()` probes both).
- prlimit sets every limit inside the sandbox's command line: no `preexec_fn` in the bot's
  (possibly threaded) process. CPU soft = hard, so the kernel sends SIGKILL.
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

__all__ = [
    "ENVIRONMENT",
    "INIT",
    "MAX_ARGUMENTS",
    "MAX_ARGUMENT_CHARACTERS",
    "MAX_NAMES",
    "PATH",
    "WORKDIR",
    "Layout",
    "command_problem",
    "interpreter",
    "isolated_argv",
    "names_problem",
    "prlimit",
    "setpriv",
]

# The interpreter `python` and `python3` run in the sandbox. When it is missing, the bot's own
# interpreter is used instead, and its installation prefix (only that) is bound read-only.
SYSTEM_PYTHON = Path("/usr/bin/python3")
# The sandbox's working folder: the adapter's files and the released data, read-only, and out/.
WORKDIR = "/adapter"
OUT = "out"
PATH = "/usr/local/bin:/usr/bin:/bin"
# The adapter's whole environment.
ENVIRONMENT = {"PATH": PATH, "HOME": "/tmp", "LANG": "C.UTF-8", "PYTHONDONTWRITEBYTECODE": "1"}
# What a command may be: adapter.yaml's schema says the same (`command`: maxItems, maxLength),
# and a test holds the two together.
MAX_ARGUMENTS = 100
MAX_ARGUMENT_CHARACTERS = 1000
_SHM_BYTES = 64 << 20
_WORKDIR_BYTES = 1 << 20

# PID 1 of a run: argv = [report fd, command...]. Reports one JSON line, then exits.
INIT = """
import json, os, sys
report, command = int(sys.argv[1]), sys.argv[2:]
child = os.fork()
if child == 0:
    os.close(report)
    try:
        os.execvp(command[0], command)
    except OSError as error:
        os.write(2, f"sandbox: cannot run {command[0]}: {error.strerror}\\n".encode())
        os._exit(127)
while True:
    pid, status, usage = os.wait4(-1, 0)
    if pid == child:
        break
os.write(report, json.dumps({"status": status, "cpu": usage.ru_utime + usage.ru_stime}).encode())
os._exit(0)
"""


class RlimitSource(Protocol):
    """What the command line needs of `SandboxLimits`."""

    @property
    def cpu_seconds(self) -> int: ...
    @property
    def memory_bytes(self) -> int: ...
    @property
    def file_bytes(self) -> int: ...
    @property
    def processes(self) -> int: ...
    @property
    def output_bytes(self) -> int: ...


@dataclass(frozen=True, slots=True)
class Layout:
    """Where things are on the host: bwrap, the entries of WORKDIR, and the output folder."""

    bwrap: str
    entries: tuple[tuple[str, Path], ...]
    output: Path


def interpreter() -> tuple[Path, Path | None]:
    """The interpreter for `python`, and the prefix to bind for it (None: it lives in /usr)."""
    if SYSTEM_PYTHON.is_file():
        return SYSTEM_PYTHON, None
    executable = Path(sys.executable).resolve()
    prefix = Path(sys.base_prefix).resolve()
    if prefix not in executable.parents:
        prefix = executable.parent.parent
    if Path("/usr") in prefix.parents and Path("/usr/local") not in [prefix, *prefix.parents]:
        return executable, None
    return executable, prefix


def command_problem(argv: object) -> str | None:
    """Why the sandbox cannot start `argv` as a command, in one sentence; None when it can.

    The one definition of a startable command: `run_adapter` refuses what this refuses (a
    failed run, the filer's doing), and the check of adapter.yaml (`bot/app/attempt_read.py`)
    reports the same at PR time (`adapter-command`), so a command the PR check accepts always
    starts.
    A list of 1 to MAX_ARGUMENTS strings, each of 1 to MAX_ARGUMENT_CHARACTERS characters,
    none holding NUL (execve ends an argument there), each encodable as the bytes execve takes
    (os.fsencode: a lone surrogate is not)."""
    if not isinstance(argv, list | tuple) or not argv:
        return "the command must be a non-empty list of strings"
    if len(argv) > MAX_ARGUMENTS:
        return f"the command has {len(argv)} parts, over the {MAX_ARGUMENTS} allowed"
    for index, part in enumerate(argv):
        where = "the program (part 0)" if index == 0 else f"part {index}"
        if not isinstance(part, str):
            return f"{where} of the command is a {type(part).__name__}, not a string"
        if not part:
            return f"{where} of the command is empty"
        if len(part) > MAX_ARGUMENT_CHARACTERS:
            return (
                f"{where} of the command has {len(part)} characters, over the"
                f" {MAX_ARGUMENT_CHARACTERS} allowed"
            )
        if "\0" in part:
            return (
                f"{where} of the command holds a NUL character (at {part.index(chr(0))}),"
                " which no program can be given: execve ends an argument there"
            )
        try:
            os.fsencode(part)
        except UnicodeError:
            return f"{where} of the command holds text that cannot be encoded as bytes"
    return None


# Top-level names in the adapter folder and the released data together.
MAX_NAMES = 1000


def names_problem(code: list[str], inputs: list[str]) -> str | None:
    """Why the working folder cannot be laid out from these top-level names, or None: the
    adapter folder's (`code`) and the released data's (`inputs`, the first part of each of
    adapter.yaml's `path`s) go side by side in WORKDIR, beside `out/`. The sandbox's rule
    (`run_adapter`), and the PR check's (`adapter-command`): none may be `out`, none may be
    in both, and there are at most MAX_NAMES in all."""
    for names, where in (
        (code, "the adapter"),
        (inputs, "the released data (adapter.yaml's paths)"),
    ):
        if OUT in names:
            return f"{where} has its own {OUT}/, which the sandbox keeps for outputs"
    both = sorted(set(code) & set(inputs))
    if both:
        shown = both[0] if both[0].isprintable() and both[0].isascii() else repr(both[0])
        return f"the adapter folder and the released data both have {shown}"
    if len(set(code) | set(inputs)) > MAX_NAMES:
        return f"the adapter folder and the released data hold over {MAX_NAMES} names"
    return None


def prlimit(limits: RlimitSource, path: str = "prlimit") -> list[str]:
    return [
        path,
        # Soft limit: SIGXCPU says "CPU limit" by itself, however the CPU time is accounted;
        # one second later the hard limit's SIGKILL stops an adapter that ignores SIGXCPU.
        f"--cpu={limits.cpu_seconds}:{limits.cpu_seconds + 1}",
        f"--as={limits.memory_bytes}",
        f"--fsize={limits.file_bytes}",
        f"--nproc={limits.processes}",
        "--core=0",
        "--",
    ]


def setpriv(uid: int, path: str = "setpriv") -> list[str]:
    return [
        path,
        f"--reuid={uid}",
        f"--regid={uid}",
        "--clear-groups",
        "--no-new-privs",
        "--bounding-set=-all",
        "--inh-caps=-all",
        "--pdeathsig=SIGKILL",
        "--",
    ]


def _system_mounts(limits: RlimitSource) -> list[str]:
    """Read-only /usr (and /bin, /lib*, links to it on Debian 12), the interpreter, a fresh
    /proc, a minimal /dev, and a private, size-capped /tmp and /dev/shm."""
    args = ["--ro-bind", "/usr", "/usr"]
    for name in ("bin", "sbin", "lib", "lib32", "lib64", "libx32"):
        path = Path("/", name)
        if path.is_symlink():
            args += ["--symlink", os.readlink(path), str(path)]
        elif path.is_dir():
            args += ["--ro-bind", str(path), str(path)]
    for name in ("/etc/ld.so.cache", "/etc/alternatives"):
        args += ["--ro-bind-try", name, name]
    executable, prefix = interpreter()
    args += ["--tmpfs", "/usr/local", "--perms", "0755", "--dir", "/usr/local/bin"]
    for name in ("python", "python3"):
        args += ["--symlink", str(executable), f"/usr/local/bin/{name}"]
    if prefix is not None:
        for ancestor in reversed(prefix.parents[:-1]):
            args += ["--perms", "0755", "--dir", str(ancestor)]
        args += ["--ro-bind", str(prefix), str(prefix)]
    args += ["--proc", "/proc", "--dev", "/dev"]
    args += ["--perms", "1777", "--size", str(_SHM_BYTES), "--tmpfs", "/dev/shm"]
    args += ["--perms", "1777", "--size", str(limits.output_bytes), "--tmpfs", "/tmp"]
    return args


def _workdir_mounts(layout: Layout) -> list[str]:
    """WORKDIR: a tmpfs holding read-only binds of each entry, made read-only itself, then
    the output folder bound writable at WORKDIR/out."""
    args = ["--perms", "0755", "--size", str(_WORKDIR_BYTES), "--tmpfs", WORKDIR]
    for name, source in layout.entries:
        args += ["--ro-bind", str(source), f"{WORKDIR}/{name}"]
    args += ["--perms", "0755", "--dir", f"{WORKDIR}/{OUT}", "--remount-ro", WORKDIR]
    args += ["--bind", str(layout.output), f"{WORKDIR}/{OUT}", "--chdir", WORKDIR]
    return args


def isolated_argv(
    layout: Layout,
    command: list[str],
    limits: RlimitSource,
    *,
    uid: int | None,
    nested: bool,
    status_fd: int,
    report_fd: int,
) -> list[str]:
    """The whole command line; `uid` is the fresh uid when the bot is root, else None."""
    args = [layout.bwrap]
    if uid is not None:
        args += ["--unshare-ipc", "--unshare-pid", "--unshare-net", "--unshare-uts"]
        args += ["--unshare-cgroup-try", "--cap-drop", "ALL"]
        for capability in ("CAP_SETUID", "CAP_SETGID", "CAP_SETPCAP"):
            args += ["--cap-add", capability]
    else:
        args += ["--unshare-all", "--unshare-user", "--disable-userns"]
    args += ["--as-pid-1", "--die-with-parent", "--new-session", "--clearenv"]
    for key, value in ENVIRONMENT.items():
        args += ["--setenv", key, value]
    args += _system_mounts(limits) + _workdir_mounts(layout)
    args += ["--json-status-fd", str(status_fd), "--"]
    args += ["python3", "-I", "-S", "-c", INIT, str(report_fd)]
    if uid is not None:
        args += setpriv(uid)
        if nested:
            args += ["bwrap", "--unshare-user", "--disable-userns", "--dev-bind", "/", "/"]
            args += ["--die-with-parent", "--"]
    return args + prlimit(limits) + command

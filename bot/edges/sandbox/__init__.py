"""The only place that runs untrusted code: an adapter's command, rerun on released data.

    result = run_adapter(
        ["python", "convert.py", "released/trials.jsonl"],
        code=attempt / "adapter", inputs=scratch / "inputs", output=scratch / "out",
    )

What the command sees (bubblewrap, `bot/edges/sandbox/runner.py`):

    /adapter                the working directory: a tmpfs made read-only after it is filled
    /adapter/<name>         each file and folder of `code` (the adapter folder), read-only
    /adapter/<name>         each file and folder of `inputs` (the released data, laid out at
                            adapter.yaml's `path`s, e.g. released/trials.jsonl), read-only
    /adapter/out            `output`, the only writable folder the bot keeps
    /usr, /bin, /lib*       the system, read-only; `python` and `python3` are the system
                            python3 (or the bot's interpreter, binding only its prefix)
    /tmp, /dev/shm          private tmpfs, size-capped, gone after the run
    /proc, /dev             the run's own PID namespace; null, zero, random, urandom, tty

Nothing else: no /root, /home, /work, no registry, no network (a network namespace with only
a loopback of its own), no environment but PATH, HOME=/tmp, LANG=C.UTF-8 and
PYTHONDONTWRITEBYTECODE=1. The command runs as an unprivileged uid without capabilities,
under CPU, address-space, file-size and process limits and a wall-clock timeout, in a new
session (no terminal to inject into), dying with the bot. As root, where the kernel has the
memory and pids cgroup controllers, the run also gets a cgroup of its own (`cgroup.py`), so
memory (tmpfs pages included) and processes are bounded for the whole run, not per process.
Names in `code` and `inputs` must not collide, and neither may hold `out`.

Every way an adapter misbehaves ends as a `RunResult` (status "failed" with a one-sentence
reason and which limit, if any); only the operator's mistakes raise `ClaimsError`. Where the
machine cannot isolate the network (`isolation()` says why), runs are "refused" unless the
operator passes `allow_unisolated=True`: then the command runs in a staged copy of the working
folder with the same limits, an empty environment and an own session, and the reason says
that it ran WITHOUT network isolation.

Afterwards `outputs` lists the regular files written under out/ (lstat, never following a
link); a symbolic link, pipe, socket or device, or more than the file or byte caps, fails the
run. Sandbox output is still untrusted input: callers read it through `bot/load`.
"""

from bot.edges.sandbox.runner import RunResult, SandboxLimits, isolation, run_adapter

__all__ = ["RunResult", "SandboxLimits", "isolation", "run_adapter"]

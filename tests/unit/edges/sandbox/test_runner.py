"""`bot/sandbox` against hostile adapters (docs/spec.md §9, §9.2 "Sandbox for adapter reruns").

Each hostile adapter is a tiny Python script the test writes into the adapter folder, under a
name holding a unique marker; after every run the `adapter` fixture checks that no process
whose command line carries the marker is left. Tests that need network isolation are skipped,
with the reason, where `isolation()` says it is unavailable (install bubblewrap to run them).
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import stat
import subprocess
import sys
import tempfile
import textwrap
import threading
import tracemalloc
import uuid
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

import bot.vocab.findings
from bot.edges.sandbox import (
    RunResult,
    SandboxLimits,
    cgroup,
    command,
    isolation,
    run_adapter,
    runner,
)
from bot.vocab.errors import ClaimsError

REPO = Path(__file__).resolve().parents[4]
TRIALS = b'{"case_id": "c1", "passed": true}\n{"case_id": "c2", "passed": false}\n'
ALLOWED_ENVIRONMENT = {"PATH", "HOME", "LANG", "PYTHONDONTWRITEBYTECODE", "PWD"}

REASON = isolation()
WHOLE = cgroup.available()  # None: runs get a cgroup here, memory is bounded as a whole
PER = "per process" if WHOLE is not None else "for the whole sandbox"
needs_isolation = pytest.mark.skipif(
    REASON is not None, reason=f"network isolation unavailable here: {REASON}"
)


def leftovers(marker: str) -> list[int]:
    """Live processes whose command line mentions `marker`."""
    found = []
    for entry in os.scandir("/proc"):
        if not entry.name.isdigit() or int(entry.name) == os.getpid():
            continue
        try:
            with open(f"/proc/{entry.name}/cmdline", "rb") as stream:
                if marker.encode() in stream.read():
                    found.append(int(entry.name))
        except OSError:
            continue
    return found


@dataclass
class Adapter:
    """An adapter folder, released data and an output folder, and a way to run a script."""

    root: Path
    marker: str

    @property
    def code(self) -> Path:
        return self.root / "adapter"

    @property
    def inputs(self) -> Path:
        return self.root / "inputs"

    @property
    def output(self) -> Path:
        return self.root / "out"

    @property
    def script(self) -> str:
        return f"hostile_{self.marker}.py"

    def run(
        self,
        source: str,
        *args: str,
        limits: SandboxLimits | None = None,
        allow_unisolated: bool = False,
    ) -> RunResult:
        (self.code / self.script).write_text(textwrap.dedent(source))
        result = run_adapter(
            ["python", self.script, *args],
            code=self.code,
            inputs=self.inputs,
            output=self.output,
            limits=limits or SandboxLimits(),
            allow_unisolated=allow_unisolated,
        )
        assert leftovers(self.marker) == [], "a process of the run survived it"
        return result

    def report(self) -> dict[str, object]:
        """What the script wrote to out/report.json."""
        data = json.loads((self.output / "report.json").read_text())
        assert isinstance(data, dict)
        return data


@pytest.fixture
def adapter(tmp_path: Path) -> Iterator[Adapter]:
    made = Adapter(tmp_path, uuid.uuid4().hex)
    for folder in (made.code, made.inputs / "released", made.output):
        folder.mkdir(parents=True)
    (made.inputs / "released" / "trials.jsonl").write_bytes(TRIALS)
    yield made
    assert leftovers(made.marker) == []


REPORT = """
import errno, json, os, sys
def attempt(action):
    try:
        action()
        return "done"
    except OSError as error:
        return errno.errorcode.get(error.errno, str(error.errno))
def report(data, code):
    with open("out/report.json", "w") as stream:
        json.dump(data, stream)
    sys.exit(code)
"""


@pytest.mark.skipif(shutil.which("bwrap") is None, reason="bubblewrap is not installed")
def test_isolation_works_where_bubblewrap_is_installed() -> None:
    """Where bwrap exists, a failing probe is a failure here, not a quiet skip of the rest."""
    assert isolation() is None


# --- (13) the honest adapter -----------------------------------------------------------------


@needs_isolation
def test_honest_adapter_writes_its_output(adapter: Adapter) -> None:
    result = adapter.run(
        """
        import shutil, sys
        shutil.copyfile(sys.argv[1], "out/trials.jsonl")
        print("copied")
        """,
        "released/trials.jsonl",
    )
    assert (result.status, result.reason, result.exit_code) == ("ok", "exit code 0", 0)
    assert (result.signal, result.limit) == (None, None)
    assert result.outputs == ("trials.jsonl",)
    assert result.stdout_tail == "copied\n"
    assert (adapter.output / "trials.jsonl").read_bytes() == TRIALS
    # The bot owns what it reads back, whatever uid wrote it.
    assert (adapter.output / "trials.jsonl").stat().st_uid == os.geteuid()
    assert adapter.output.stat().st_uid == os.geteuid()


@needs_isolation
def test_nested_output_folders_are_listed(adapter: Adapter) -> None:
    result = adapter.run(
        """
        import os
        os.makedirs("out/sub/deeper")
        for name in ("out/a.jsonl", "out/sub/b.jsonl", "out/sub/deeper/c.jsonl"):
            open(name, "w").write("{}\\n")
        """
    )
    assert result.status == "ok"
    assert result.outputs == ("a.jsonl", "sub/b.jsonl", "sub/deeper/c.jsonl")


@needs_isolation
def test_modules_in_the_adapter_folder_do_not_reach_the_init(adapter: Adapter) -> None:
    """PID 1 (root, as the bot is here) runs in the adapter folder; `-I` keeps it off sys.path."""
    for name in ("json", "re", "encodings"):
        (adapter.code / f"{name}.py").write_text("import sys\nsys.exit('hijacked')\n")
    (adapter.code / "sitecustomize.py").write_text("import sys\nsys.exit('hijacked')\n")
    result = adapter.run("print('ran')\n")
    assert (result.status, result.stdout_tail, result.stderr_tail) == ("ok", "ran\n", "")


# --- (1), (2) the network ----------------------------------------------------------------------


@pytest.fixture
def listener() -> Iterator[tuple[int, list[bytes]]]:
    """A TCP server on the host's loopback; yields its port and what it received."""
    received: list[bytes] = []
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen()
    server.settimeout(0.1)
    stop = threading.Event()

    def serve() -> None:
        while not stop.is_set():
            try:
                connection, _ = server.accept()
            except TimeoutError:
                continue
            with connection:
                connection.settimeout(1)
                received.append(b"connected:" + connection.recv(100))

    thread = threading.Thread(target=serve)
    thread.start()
    try:
        yield server.getsockname()[1], received
    finally:
        stop.set()
        thread.join()
        server.close()


def test_listener_fixture_receives_from_the_host(listener: tuple[int, list[bytes]]) -> None:
    """The control: outside the sandbox the same connection arrives."""
    port, received = listener
    with socket.create_connection(("127.0.0.1", port), timeout=2) as connection:
        connection.sendall(b"hello")
    deadline = 50
    while not received and deadline:
        threading.Event().wait(0.05)
        deadline -= 1
    assert received == [b"connected:hello"]


@needs_isolation
def test_host_loopback_is_unreachable(adapter: Adapter, listener: tuple[int, list[bytes]]) -> None:
    port, received = listener
    result = adapter.run(
        f"""
        import socket, sys
        try:
            with socket.create_connection(("127.0.0.1", {port}), timeout=2) as connection:
                connection.sendall(b"hello")
        except OSError as error:
            sys.exit(f"cannot connect: {{error}}")
        """
    )
    assert (result.status, result.reason, result.exit_code) == ("failed", "exit code 1", 1)
    assert "cannot connect: [Errno 111] Connection refused" in result.stderr_tail
    assert received == []


@needs_isolation
def test_outside_addresses_and_names_are_unreachable(adapter: Adapter) -> None:
    result = adapter.run(
        REPORT
        + """
def connect():
    socket.create_connection(("192.0.2.1", 80), timeout=2).close()
def resolve():
    socket.getaddrinfo("example.com", 443)
import socket
outcome = {"connect": attempt(connect)}
try:
    resolve()
    outcome["resolve"] = "done"
except socket.gaierror as error:
    outcome["resolve"] = str(error)
outcome["interfaces"] = [name for _, name in socket.if_nameindex()]
report(outcome, 4)
"""
    )
    assert (result.status, result.reason, result.exit_code) == ("failed", "exit code 4", 4)
    outcome = adapter.report()
    assert outcome["connect"] == "ENETUNREACH"
    assert outcome["resolve"] != "done"
    assert outcome["interfaces"] == ["lo"]


# --- (3) secrets in the environment -----------------------------------------------------------


@needs_isolation
def test_environment_holds_no_secrets(adapter: Adapter, monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ghp_fakeTOKEN" + uuid.uuid4().hex
    monkeypatch.setenv("GITHUB_TOKEN", token)
    monkeypatch.setenv("ZENODO_TOKEN", token)
    result = adapter.run(
        REPORT
        + """
def environ(pid):
    try:
        return open(f"/proc/{pid}/environ", "rb").read().decode(errors="replace")
    except OSError as error:
        return str(error)
seen = {"env": dict(os.environ), "self": environ("self"), "init": environ(1),
        "parent": environ(os.getppid())}
print(seen)
report(seen, 2)
"""
    )
    assert (result.status, result.reason) == ("failed", "exit code 2")
    seen = adapter.report()
    assert token not in json.dumps(seen) and token not in result.stdout_tail
    assert isinstance(seen["env"], dict) and set(seen["env"]) <= ALLOWED_ENVIRONMENT
    assert seen["env"]["HOME"] == "/tmp" and seen["env"]["PATH"] == command.PATH


# --- (4) writes outside out/ ------------------------------------------------------------------


@needs_isolation
def test_writes_outside_out_are_refused(adapter: Adapter, tmp_path: Path) -> None:
    host_file = tmp_path / "planted-on-the-host"
    host_code = adapter.code / "planted.py"
    result = adapter.run(
        REPORT
        + f"""
targets = {{
    "inputs": lambda: open("released/trials.jsonl", "a").write("x"),
    "new input": lambda: open("released/new.jsonl", "w").write("x"),
    "host tmp": lambda: open({str(host_file)!r}, "w").write("x"),
    "host code": lambda: open({str(host_code)!r}, "w").write("x"),
    "own script": lambda: open(__file__, "a").write("x"),
    "cwd": lambda: open("planted.py", "w").write("x"),
    "cwd folder": lambda: os.mkdir("planted"),
    "usr": lambda: open("/usr/planted", "w").write("x"),
    "etc": lambda: open("/etc/planted", "w").write("x"),
    "root": lambda: open("/planted", "w").write("x"),
    "remove input": lambda: os.unlink("released/trials.jsonl"),
    "chmod input": lambda: os.chmod("released/trials.jsonl", 0o777),
}}
report({{name: attempt(action) for name, action in targets.items()}}, 5)
"""
    )
    assert (result.status, result.reason) == ("failed", "exit code 5")
    outcomes = adapter.report()
    assert set(outcomes.values()) <= {"EROFS", "EACCES", "ENOENT", "EPERM"}, outcomes
    assert len(outcomes) == 12
    assert not host_file.exists() and not host_code.exists()
    assert (adapter.inputs / "released" / "trials.jsonl").read_bytes() == TRIALS
    assert sorted(os.listdir(adapter.inputs / "released")) == ["trials.jsonl"]
    assert sorted(os.listdir(adapter.code)) == [adapter.script]
    assert result.outputs == ("report.json",)


# --- (5) reading the bot, the repository and the home folder -----------------------------------


def _secret_paths() -> dict[str, Path]:
    paths = {
        "bot source": Path(bot.vocab.findings.__file__).resolve(),
        "repository": REPO / "pyproject.toml",
        "bashrc": Path("/root/.bashrc"),
        "gitconfig": Path("/root/.gitconfig"),
        "pyenv version": Path("/root/.pyenv/version"),
        "shadow": Path("/etc/shadow"),
        "passwd": Path("/etc/passwd"),
    }
    return {name: path for name, path in paths.items() if path.is_file()}


READER = """
reads = {}
for name, path in TARGETS.items():
    try:
        with open(path, "rb") as stream:
            stream.read(1)
        reads[name] = "read"
    except OSError as error:
        reads[name] = errno.errorcode.get(error.errno, str(error.errno))
for name, path in (("root", "/root"), ("home", "/home"), ("work", "/work")):
    try:
        reads[name] = "listed " + ",".join(sorted(os.listdir(path)))
    except OSError as error:
        reads[name] = errno.errorcode.get(error.errno, str(error.errno))
reads["prefix"] = sys.prefix
report(reads, 6)
"""


@needs_isolation
@pytest.mark.parametrize("interpreter", ["system", "own prefix"])
def test_host_files_are_not_readable(
    adapter: Adapter, monkeypatch: pytest.MonkeyPatch, interpreter: str
) -> None:
    if interpreter == "own prefix":
        monkeypatch.setattr(command, "SYSTEM_PYTHON", adapter.root / "no-system-python")
        if command.interpreter()[1] is None:
            pytest.skip("the bot's interpreter lives in /usr: no prefix to bind")
    elif not command.SYSTEM_PYTHON.is_file():
        pytest.skip(f"no system interpreter at {command.SYSTEM_PYTHON}")
    targets = _secret_paths()
    assert {"bot source", "repository"} <= set(targets)  # the test must mean something
    source = REPORT + f"TARGETS = {json.dumps({k: str(v) for k, v in targets.items()})}\n"
    result = adapter.run(source + READER)
    assert (result.status, result.reason) == ("failed", "exit code 6"), result.stderr_tail
    reads = adapter.report()
    for name in targets:
        assert reads[name] in {"ENOENT", "EACCES"}, (name, reads[name])
    assert reads["home"] == "ENOENT" and reads["work"] == "ENOENT"
    if interpreter == "system":
        assert reads["root"] == "ENOENT"
        assert reads["prefix"] == "/usr"
    else:
        prefix = Path(sys.base_prefix).resolve()
        assert reads["prefix"] == str(prefix)
        # Only the interpreter's prefix is there: /root holds the path down to it, nothing else.
        if Path("/root") in prefix.parents:
            assert reads["root"] == "listed " + prefix.relative_to("/root").parts[0]


# --- (6) fork bomb ----------------------------------------------------------------------------


@needs_isolation
def test_fork_bomb_is_stopped(adapter: Adapter) -> None:
    result = adapter.run(
        """
        import os, sys, time
        if os.getuid() == 0:
            sys.exit("refusing to fork-bomb as root: the sandbox did not drop privileges")
        started = time.monotonic()
        while time.monotonic() - started < 20:
            os.fork()
        """,
        limits=SandboxLimits(processes=32, wall_seconds=10),
    )
    assert result.status == "failed"
    assert result.limit in ("processes", "wall"), result.reason
    assert "refusing" not in result.stderr_tail


@needs_isolation
def test_detached_children_do_not_survive(adapter: Adapter) -> None:
    """A child in its own session, double-forked, outlives the adapter: not the sandbox."""
    result = adapter.run(
        f"""
        import os, time
        if os.fork() == 0:
            os.setsid()
            if os.fork() == 0:
                os.execvp("sleep", ["sleep", "300", "{adapter.marker}"])
            os._exit(0)
        time.sleep(0.3)
        print("left a grandchild behind")
        """
    )
    assert result.status == "ok" and "left a grandchild" in result.stdout_tail


@needs_isolation
def test_adapter_cannot_make_user_namespaces(adapter: Adapter) -> None:
    if runner._setup()[0] is None or not runner._setup()[0].nested:  # type: ignore[union-attr]
        pytest.skip("the kernel forbids unprivileged user namespaces here: no inner layer")
    result = adapter.run(
        """
        import subprocess, sys
        done = subprocess.run(["unshare", "-U", "-r", "true"], capture_output=True, text=True)
        sys.exit(f"unshare exited {done.returncode}: {done.stderr.strip()}")
        """
    )
    assert result.status == "failed"
    assert "unshare exited 1" in result.stderr_tail, result.stderr_tail


@needs_isolation
def test_without_the_inner_layer(adapter: Adapter, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where the kernel forbids unprivileged user namespaces, the outer layer alone holds."""
    setup = runner._setup()[0]
    assert setup is not None
    monkeypatch.setattr(runner, "_setup", lambda: (runner._Setup(setup.bwrap, False), None))
    result = adapter.run(
        """
        import os, sys
        if os.getuid() == 0:
            sys.exit("runs as root")
        while True:
            os.fork()
        """,
        limits=SandboxLimits(processes=16, wall_seconds=10),
    )
    assert result.status == "failed" and result.limit in ("processes", "wall"), result.reason
    assert "runs as root" not in result.stderr_tail


@needs_isolation
def test_killing_the_bot_kills_the_run(adapter: Adapter) -> None:
    """bwrap dies with the bot (--die-with-parent), PID 1 with bwrap, the namespace with PID 1."""
    (adapter.code / adapter.script).write_text("import time\nwhile True:\n    time.sleep(1)\n")
    script = adapter.script.encode()
    bot_process = subprocess.Popen(
        [
            sys.executable,
            "-c",
            "import sys; from pathlib import Path; from bot.edges.sandbox import run_adapter; "
            "run_adapter(['python', sys.argv[1]], code=Path(sys.argv[2]), "
            "inputs=Path(sys.argv[3]), output=Path(sys.argv[4]))",
            adapter.script,
            str(adapter.code),
            str(adapter.inputs),
            str(adapter.output),
        ],
        cwd=REPO,
    )
    try:
        for _ in range(200):  # until the adapter runs
            if any(
                Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"python\0" + script)
                for pid in leftovers(adapter.marker)
            ):
                break
            threading.Event().wait(0.05)
        assert any(
            Path(f"/proc/{pid}/cmdline").read_bytes().startswith(b"python\0" + script)
            for pid in leftovers(adapter.marker)
        )
    finally:
        bot_process.kill()
        bot_process.wait()
    for _ in range(100):
        if not leftovers(adapter.marker):
            break
        threading.Event().wait(0.05)
    assert leftovers(adapter.marker) == []


# --- (7) memory, (8) file size, (9) CPU and wall clock -----------------------------------------


@needs_isolation
def test_memory_bomb_hits_the_memory_limit(adapter: Adapter) -> None:
    result = adapter.run("hog = bytearray(8 << 30)\n")
    assert (result.status, result.limit) == ("failed", "memory")
    assert result.reason == f"memory limit (1 GiB {PER}) hit"
    assert result.exit_code == 1 and "MemoryError" in result.stderr_tail


@needs_isolation
@pytest.mark.parametrize("sigxfsz", ["ignored", "default"])
def test_huge_file_hits_the_file_size_limit(adapter: Adapter, sigxfsz: str) -> None:
    limit = 16 << 20
    restore = "signal.signal(signal.SIGXFSZ, signal.SIG_DFL)" if sigxfsz == "default" else ""
    result = adapter.run(
        f"""
        import signal
        {restore}
        chunk = b"x" * (1 << 20)
        with open("out/huge.bin", "wb") as stream:
            for _ in range(10 * 1024):
                stream.write(chunk)
        """,
        limits=SandboxLimits(file_bytes=limit),
    )
    assert (result.status, result.limit) == ("failed", "file-size")
    assert result.reason == "file size limit (16 MiB) hit"
    if sigxfsz == "ignored":
        assert result.exit_code == 1 and "File too large" in result.stderr_tail
    else:  # killed, unless the adapter is PID 1 of its namespace (no inner layer here)
        assert result.signal == signal.SIGXFSZ or "File too large" in result.stderr_tail
    assert (adapter.output / "huge.bin").stat().st_size <= limit


@needs_isolation
def test_busy_loop_hits_the_cpu_limit(adapter: Adapter) -> None:
    result = adapter.run(
        "while True:\n    pass\n", limits=SandboxLimits(cpu_seconds=2, wall_seconds=30)
    )
    assert (result.status, result.limit, result.signal) == ("failed", "cpu", signal.SIGXCPU)
    assert result.reason == "killed by SIGXCPU after the 2 s CPU limit"


@needs_isolation
def test_busy_loop_ignoring_sigxcpu_is_killed_at_the_hard_limit(adapter: Adapter) -> None:
    result = adapter.run(
        "import signal\nsignal.signal(signal.SIGXCPU, signal.SIG_IGN)\nwhile True:\n    pass\n",
        limits=SandboxLimits(cpu_seconds=1, wall_seconds=30),
    )
    assert (result.status, result.signal) == ("failed", signal.SIGKILL)


@needs_isolation
def test_sleeper_hits_the_wall_clock(adapter: Adapter) -> None:
    result = adapter.run(
        """
        import time
        print("sleeping", flush=True)
        while True:
            time.sleep(1)
        """,
        limits=SandboxLimits(wall_seconds=2),
    )
    assert (result.status, result.limit) == ("failed", "wall")
    assert result.reason == "wall-clock timeout after 2 s"
    assert result.stdout_tail == "sleeping\n"


# --- (10) a flood on stdout, (11) a plain failure ------------------------------------------------


@needs_isolation
def test_stdout_flood_costs_bounded_memory(adapter: Adapter) -> None:
    limits = SandboxLimits(stream_tail_bytes=4096)
    tracemalloc.start()
    try:
        result = adapter.run(
            """
            import sys
            block = ("x" * 1023 + "\\n") * 1024
            for _ in range(100):
                sys.stdout.write(block)
            sys.stdout.write("END-MARK\\n")
            sys.stderr.write("\\x1b[2J\\x1b]0;title\\x07::add-mask::secret\\r\\n")
            sys.exit(5)
            """,
            limits=limits,
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert (result.status, result.reason) == ("failed", "exit code 5")
    assert peak < 8 << 20, f"{peak} bytes traced while reading 100 MB"
    assert len(result.stdout_tail) <= limits.stream_tail_bytes
    assert result.stdout_tail.endswith("x\nEND-MARK\n")
    assert result.stderr_tail == "[2J]0;title::add-mask::secret\n"


@needs_isolation
def test_nonzero_exit_reports_code_and_stderr(adapter: Adapter) -> None:
    result = adapter.run(
        """
        import sys
        print("something broke: boom", file=sys.stderr)
        sys.exit(3)
        """
    )
    assert (result.status, result.reason, result.exit_code) == ("failed", "exit code 3", 3)
    assert (result.signal, result.limit) == (None, None)
    assert result.stderr_tail == "something broke: boom\n"


@needs_isolation
def test_invalid_utf8_and_missing_command(adapter: Adapter) -> None:
    result = adapter.run("import sys\nsys.stdout.buffer.write(b'ok \\xff\\xfe end')\n")
    assert result.status == "ok" and result.stdout_tail == "ok \ufffd\ufffd end"
    missing = run_adapter(
        ["no-such-program"], code=adapter.code, inputs=adapter.inputs, output=adapter.output
    )
    assert missing.status == "failed" and missing.exit_code not in (0, None)
    assert "no-such-program" in missing.stderr_tail


# --- (12) links and other special files in out/ -------------------------------------------------


@needs_isolation
@pytest.mark.parametrize(
    ("plant", "reason"),
    [
        ("os.symlink('/etc/passwd', 'out/trials.jsonl')", "wrote a symbolic link out/trials.jsonl"),
        (
            "os.makedirs('out/sub'); os.symlink('/root', 'out/sub/home')",
            "wrote a symbolic link out/sub/home",
        ),
        ("os.mkfifo('out/trials.jsonl')", "wrote a named pipe out/trials.jsonl"),
    ],
)
def test_special_files_in_out_fail_the_run(adapter: Adapter, plant: str, reason: str) -> None:
    result = adapter.run(f"import os\nopen('out/a.jsonl', 'w').write('{{}}')\n{plant}\n")
    assert (result.status, result.reason, result.limit) == ("failed", reason, None)
    assert result.outputs == ()


@needs_isolation
@pytest.mark.parametrize(
    ("source", "reason"),
    [
        (
            "for i in range(60): open(f'out/{i}.jsonl', 'w').write('{}')",
            "wrote more than 50 files to out/",
        ),
        (
            "for i in range(3): open(f'out/{i}.bin', 'wb').write(b'x' * (1 << 20))",
            "wrote more than 2 MiB to out/",
        ),
    ],
)
def test_output_caps(adapter: Adapter, source: str, reason: str) -> None:
    result = adapter.run(source + "\n", limits=SandboxLimits(output_bytes=2 << 20))
    assert (result.status, result.reason, result.limit) == ("failed", reason, "output")


@needs_isolation
def test_output_flood_is_stopped_while_running(adapter: Adapter) -> None:
    result = adapter.run(
        """
        import itertools, time
        for i in itertools.count():
            open(f"out/{i}.jsonl", "w").write("{}")
            time.sleep(0.001)
        """,
        limits=SandboxLimits(output_files=50, wall_seconds=30),
    )
    assert (result.status, result.limit) == ("failed", "output")
    assert result.reason == "wrote more than 50 files to out/"


# --- Layout and operator errors ------------------------------------------------------------------


@needs_isolation
def test_layout_conflicts_fail_without_running(adapter: Adapter) -> None:
    (adapter.code / "released").mkdir()
    result = adapter.run("open('out/ran', 'w').write('x')\n")
    assert result.status == "failed"
    assert result.reason == "the adapter folder and the released data both have released"
    assert os.listdir(adapter.output) == []


def test_symlink_in_the_adapter_folder_fails_without_running(adapter: Adapter) -> None:
    (adapter.code / "secrets").symlink_to("/root")
    result = adapter.run("open('out/ran', 'w').write('x')\n", allow_unisolated=True)
    assert (result.status, result.reason) == (
        "failed",
        "the adapter folder holds secrets, which is not a regular file or folder",
    )
    assert os.listdir(adapter.output) == []


def test_operator_errors_raise(adapter: Adapter) -> None:
    code, inputs, output = adapter.code, adapter.inputs, adapter.output
    with pytest.raises(ClaimsError, match="must be a list"):
        run_adapter("python convert.py", code=code, inputs=inputs, output=output)
    with pytest.raises(ClaimsError, match="is not a folder"):
        run_adapter(["true"], code=adapter.root / "missing", inputs=inputs, output=output)
    with pytest.raises(ClaimsError, match="overlaps"):
        run_adapter(["true"], code=code, inputs=inputs, output=code)
    with pytest.raises(ClaimsError, match="must be positive"):
        limits = SandboxLimits(wall_seconds=0)
        run_adapter(["true"], code=code, inputs=inputs, output=output, limits=limits)
    (output / "stale.jsonl").write_text("{}")
    with pytest.raises(ClaimsError, match="not empty") as raised:
        run_adapter(["true"], code=code, inputs=inputs, output=output)
    assert "fresh, empty output folder" in raised.value.diagnostics()


@pytest.mark.parametrize(
    ("argv", "problem"),
    [
        ([], "non-empty list"),
        (["python", "a\0b"], "part 1 of the command holds a NUL character"),
        (["python", ""], "part 1 of the command is empty"),
        (["x" * 1001], "the program (part 0) of the command has 1001 characters"),
        (["true"] * 101, "the command has 101 parts"),
        (["python", "\ud800"], "cannot be encoded as bytes"),
    ],
)
def test_unstartable_command_is_a_failed_run_not_an_error(
    adapter: Adapter, argv: list[str], problem: str
) -> None:
    """The command is the filer's (adapter.yaml): one the sandbox cannot start is that run's
    failure (adapter-failed), never a ClaimsError that stops the rerun job (issue 21, 2)."""
    result = run_adapter(argv, code=adapter.code, inputs=adapter.inputs, output=adapter.output)
    assert result.status == "failed"
    assert result.reason.startswith("the sandbox cannot start the command: ")
    assert problem in result.reason
    assert os.listdir(adapter.output) == []


@pytest.mark.skipif(os.geteuid() != 0, reason="only a run as root changes uid")
def test_unreadable_inputs_are_an_operator_error(adapter: Adapter) -> None:
    (adapter.inputs / "released" / "trials.jsonl").chmod(0o600)
    with pytest.raises(ClaimsError, match=r"cannot read .*trials\.jsonl \(mode 0600\)"):
        adapter.run("print('never runs')\n", allow_unisolated=True)


# --- Without isolation ---------------------------------------------------------------------------


@pytest.fixture
def no_bwrap(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(runner, "BWRAP", "bwrap-not-installed-" + uuid.uuid4().hex)


@pytest.mark.usefixtures("no_bwrap")
def test_refused_when_isolation_is_unavailable(adapter: Adapter, tmp_path: Path) -> None:
    reason = isolation()
    assert reason is not None and "is not installed" in reason
    planted = tmp_path / "ran"
    result = adapter.run(f"open({str(planted)!r}, 'w').write('x')\nopen('out/ran', 'w')\n")
    assert (result.status, result.reason) == ("refused", reason)
    assert (result.exit_code, result.signal, result.limit, result.outputs) == (None, None, None, ())
    assert not planted.exists() and os.listdir(adapter.output) == []


@pytest.mark.usefixtures("no_bwrap")
def test_unisolated_run_says_so(adapter: Adapter, monkeypatch: pytest.MonkeyPatch) -> None:
    token = "ghp_fakeTOKEN" + uuid.uuid4().hex
    monkeypatch.setenv("GITHUB_TOKEN", token)
    result = adapter.run(
        """
        import json, os, shutil, sys
        shutil.copyfile(sys.argv[1], "out/trials.jsonl")
        os.mkdir("out/sub")
        json.dump({"env": dict(os.environ), "uid": os.getuid()}, open("out/sub/seen.json", "w"))
        """,
        "released/trials.jsonl",
        allow_unisolated=True,
    )
    assert result.status == "ok", result
    assert result.reason.startswith(f"exit code 0; {runner.UNISOLATED}: bubblewrap")
    assert runner.UNISOLATED == "ran WITHOUT network isolation (--allow-unisolated)"
    assert result.outputs == ("sub/seen.json", "trials.jsonl")
    assert (adapter.output / "trials.jsonl").read_bytes() == TRIALS
    seen = json.loads((adapter.output / "sub" / "seen.json").read_text())
    assert token not in json.dumps(seen)
    assert set(seen["env"]) <= ALLOWED_ENVIRONMENT | {"CLAIMS_SANDBOX_RUN"}
    if os.geteuid() == 0:
        assert seen["uid"] != 0
    assert (adapter.inputs / "released" / "trials.jsonl").read_bytes() == TRIALS


@pytest.mark.usefixtures("no_bwrap")
def test_unisolated_timeout_kills_escaped_children(adapter: Adapter) -> None:
    result = adapter.run(
        f"""
        import os, time
        if os.fork() == 0:
            os.setsid()
            os.execvp("sleep", ["sleep", "300", "{adapter.marker}"])
        while True:
            time.sleep(1)
        """,
        limits=SandboxLimits(wall_seconds=1),
        allow_unisolated=True,
    )
    assert (result.status, result.limit) == ("failed", "wall")
    assert result.reason.startswith("wall-clock timeout after 1 s")
    assert "WITHOUT network isolation" in result.reason


# --- As an ordinary user ------------------------------------------------------------------------

AS_USER = """
import json, sys
from pathlib import Path
from bot.edges.sandbox import isolation, run_adapter, SandboxLimits
root = Path(sys.argv[1])
(root / "code" / "convert.py").write_text(sys.argv[2])
result = run_adapter(["python", "convert.py"], code=root / "code", inputs=root / "inputs",
                     output=root / "out", limits=SandboxLimits(processes=16, wall_seconds=20))
print(json.dumps({"isolation": isolation(), "status": result.status, "reason": result.reason,
                  "limit": result.limit, "stderr": result.stderr_tail}))
"""


def _as_user(source: str) -> dict[str, object]:
    uid = 1_000_000_000 - 1 - os.getpid() % 1000
    root = Path(tempfile.mkdtemp(prefix="claims-sandbox-user-"))
    try:
        for name in ("code", "inputs/released", "out"):
            (root / name).mkdir(parents=True)
        (root / "inputs" / "released" / "trials.jsonl").write_bytes(TRIALS)
        for folder, _, files in os.walk(root):
            os.chown(folder, uid, uid)
            for name in files:
                os.chown(os.path.join(folder, name), uid, uid)
        done = subprocess.run(
            [
                "setpriv",
                f"--reuid={uid}",
                f"--regid={uid}",
                "--clear-groups",
                "--",
                str(command.SYSTEM_PYTHON),
                "-c",
                AS_USER,
                str(root),
                textwrap.dedent(source),
            ],
            env={"PATH": command.PATH, "PYTHONPATH": str(REPO), "HOME": str(root)},
            capture_output=True,
            check=False,
            timeout=60,
        )
        assert done.returncode == 0, done.stderr.decode()
        data = json.loads(done.stdout)
        assert isinstance(data, dict)
        return data
    finally:
        shutil.rmtree(root)


@needs_isolation
@pytest.mark.skipif(
    os.geteuid() != 0
    or not command.SYSTEM_PYTHON.is_file()
    or any(not p.stat().st_mode & stat.S_IXOTH for p in [REPO, *REPO.parents]),
    reason="needs root (to become another user), a system python3 and a world-readable repo",
)
def test_sandbox_built_by_an_ordinary_user() -> None:
    """Without root, bwrap makes its own user namespace; limits and isolation still hold."""
    honest = _as_user("print(open('released/trials.jsonl').read())\nopen('out/x', 'w')\n")
    assert (honest["isolation"], honest["status"]) == (None, "ok"), honest
    network = _as_user("import socket\nsocket.create_connection(('192.0.2.1', 80), timeout=2)\n")
    assert network["status"] == "failed" and "unreachable" in str(network["stderr"])
    bomb = _as_user("import os\nwhile True:\n    os.fork()\n")
    assert bomb["status"] == "failed" and bomb["limit"] in ("processes", "wall"), bomb


@needs_isolation
@pytest.mark.skipif(
    os.geteuid() != 0
    or not command.SYSTEM_PYTHON.is_file()
    or any(not p.stat().st_mode & stat.S_IXOTH for p in [REPO, *REPO.parents]),
    reason="needs root (to become another user), a system python3 and a world-readable repo",
)
@pytest.mark.parametrize(
    "source",
    [
        "open('out/x', 'w').write('x')\nos.chmod('out/x', 0)\n",
        "open('out/x', 'w').write('x')\nos.chmod('out', 0)\n",
        "os.mkdir('out/sub')\nopen('out/sub/x', 'w').write('x')\nos.chmod('out/sub', 0o400)\n",
    ],
    ids=["file", "out", "folder-without-search"],
)
def test_outputs_an_ordinary_user_cannot_read_fail_the_run(source: str) -> None:
    """As an ordinary user the bot could not read them (it was a PermissionError later)."""
    hidden = _as_user("import os\n" + source)
    assert hidden["status"] == "failed", hidden
    assert "unreadable" in str(hidden["reason"]), hidden


def test_outputs_without_read_permission_fail_the_run_as_root_too(adapter: Adapter) -> None:
    """The same rule whoever runs the bot: root could read them, an ordinary user could not."""
    result = adapter.run("import os\nopen('out/x', 'w').write('x')\nos.chmod('out/x', 0)\n")
    assert result.status == "failed"
    assert result.reason == "made out/x unreadable"


# --- (10) memory and processes as a whole (issue 21, item 9) ------------------------------------

needs_whole_bound = pytest.mark.skipif(
    REASON is not None or WHOLE is not None,
    reason=f"no isolation or no cgroup here: {REASON or WHOLE}",
)
HOGS = """
import os, sys, time
count, size = int(sys.argv[1]), int(sys.argv[2]) << 20
children = []
for index in range(count):
    pid = os.fork()
    if pid == 0:
        block = bytearray(size)
        for offset in range(0, size, 4096):  # touch every page: memory really used
            block[offset] = 1
        open(f"/tmp/allocated-{index}", "w").close()
        started = time.monotonic()  # hold it until all have allocated (at most 3 s)
        while len(os.listdir("/tmp")) < count and time.monotonic() - started < 3:
            time.sleep(0.02)
        os._exit(0)
    children.append(pid)
statuses = [os.waitpid(child, 0)[1] for child in children]
sys.exit(0 if not any(statuses) else 1)
"""


@needs_whole_bound
def test_several_processes_together_stay_within_the_memory_limit(adapter: Adapter) -> None:
    """On 611a91f the limit was RLIMIT_AS, per process: four processes of 200 MiB each ran to
    the end under a 512 MiB limit (as four used 3.2 GB under "1 GiB"). Now the run's cgroup
    bounds them together: the kernel kills inside the sandbox, the run fails on its memory
    limit, and the most the run ever held is within it."""
    limits = SandboxLimits(memory_bytes=512 << 20, wall_seconds=60)
    result = adapter.run(HOGS, "4", "200", limits=limits)
    assert (result.status, result.limit) == ("failed", "memory"), result.reason
    assert result.reason == "memory limit (512 MiB for the whole sandbox) hit"
    assert result.memory_peak is not None and result.memory_peak <= 512 << 20
    # The measure is real: the same processes with less each run, and the peak counts them all.
    fits = adapter.run(HOGS, "4", "60", limits=limits)
    assert fits.status == "ok", fits.reason
    assert fits.memory_peak is not None and 4 * (60 << 20) <= fits.memory_peak <= 512 << 20


@needs_whole_bound
def test_tmpfs_writes_count_against_the_memory_limit(adapter: Adapter) -> None:
    """Pages written to /tmp (a tmpfs, RAM) were charged to no rlimit; they are to the run's
    cgroup, so /tmp and memory together stay within the limit."""
    limits = SandboxLimits(
        memory_bytes=256 << 20, file_bytes=1 << 30, output_bytes=512 << 20, wall_seconds=60
    )
    result = adapter.run(
        """
        import os
        chunk = b"x" * (1 << 20)
        with open("/tmp/fill", "wb") as stream:
            for _ in range(400):
                stream.write(chunk)
                stream.flush()
        block = bytearray(100 << 20)
        for offset in range(0, len(block), 4096):
            block[offset] = 1
        """,
        limits=limits,
    )
    assert (result.status, result.limit) == ("failed", "memory"), result.reason
    assert result.memory_peak is not None and result.memory_peak <= 256 << 20

"""`bot/edges/sandbox/command.py`: what the sandbox's command line binds, sets and limits."""

from __future__ import annotations

import sys
from pathlib import Path

import pytest

from bot.edges.sandbox import SandboxLimits, command
from bot.edges.sandbox.command import ENVIRONMENT, INIT, WORKDIR, Layout

LAYOUT = Layout(
    "/usr/bin/bwrap",
    (("convert.py", Path("/srv/a/adapter/convert.py")), ("released", Path("/srv/in/released"))),
    Path("/srv/out"),
)
LIMITS = SandboxLimits(cpu_seconds=7, memory_bytes=1 << 29, file_bytes=1 << 20, processes=9)


def argv(uid: int | None = 1_000_000_123, nested: bool = True) -> list[str]:
    return command.isolated_argv(
        LAYOUT,
        ["python", "convert.py", "released/trials.jsonl"],
        LIMITS,
        uid=uid,
        nested=nested,
        status_fd=5,
        report_fd=6,
    )


def options(args: list[str], name: str, count: int) -> list[tuple[str, ...]]:
    """Every occurrence of option `name` in bwrap's part of `args`, with its `count` values."""
    bwrap = args[: args.index("--")]
    return [tuple(bwrap[i + 1 : i + 1 + count]) for i, arg in enumerate(bwrap) if arg == name]


def test_only_the_system_and_the_working_folder_are_bound() -> None:
    args = argv()
    sources = [source for source, _ in options(args, "--ro-bind", 2) + options(args, "--bind", 2)]
    sources += [source for source, _ in options(args, "--ro-bind-try", 2)]
    for source in sources:
        assert not source.startswith(("/root", "/home", "/work", "/etc/passwd", "/run"))
        assert source in ("/usr", "/etc/ld.so.cache", "/etc/alternatives") or source.startswith(
            "/srv/"
        )
    assert ("/srv/out", f"{WORKDIR}/out") in options(args, "--bind", 2)
    assert options(args, "--bind", 2) == [("/srv/out", f"{WORKDIR}/out")]  # the only writable bind
    assert ("/srv/in/released", f"{WORKDIR}/released") in options(args, "--ro-bind", 2)


def test_working_folder_is_read_only_before_out_is_bound() -> None:
    args = argv()
    assert args.index("--remount-ro") < args.index("--bind")
    assert args[args.index("--remount-ro") + 1] == WORKDIR
    assert options(args, "--chdir", 1) == [(WORKDIR,)]


def test_environment_is_cleared_and_set() -> None:
    args = argv()
    assert "--clearenv" in args
    assert {key: value for key, value in options(args, "--setenv", 2)} == ENVIRONMENT
    assert ENVIRONMENT == {
        "PATH": "/usr/local/bin:/usr/bin:/bin",
        "HOME": "/tmp",
        "LANG": "C.UTF-8",
        "PYTHONDONTWRITEBYTECODE": "1",
    }


def test_as_root_privileged_bwrap_then_init_setpriv_inner_bwrap_prlimit() -> None:
    args = argv()
    assert {"--unshare-net", "--unshare-pid", "--as-pid-1", "--die-with-parent"} <= set(args)
    assert {"--new-session", "--unshare-ipc", "--unshare-uts"} <= set(args)
    assert "--unshare-user" not in args[: args.index("--")]
    assert options(args, "--cap-drop", 1) == [("ALL",)]
    assert options(args, "--cap-add", 1) == [("CAP_SETUID",), ("CAP_SETGID",), ("CAP_SETPCAP",)]
    rest = args[args.index("--") + 1 :]
    assert rest[:6] == ["python3", "-I", "-S", "-c", INIT, "6"]
    assert rest[6:8] == ["setpriv", "--reuid=1000000123"]
    assert "--no-new-privs" in rest and "--bounding-set=-all" in rest
    inner = rest.index("bwrap")
    assert rest[inner : inner + 3] == ["bwrap", "--unshare-user", "--disable-userns"]
    limits = rest.index("prlimit")
    assert rest[limits:] == [
        "prlimit",
        "--cpu=7:8",
        f"--as={1 << 29}",
        f"--fsize={1 << 20}",
        "--nproc=9",
        "--core=0",
        "--",
        "python",
        "convert.py",
        "released/trials.jsonl",
    ]


def test_without_the_inner_layer_or_as_another_user() -> None:
    assert "--disable-userns" not in argv(nested=False)
    args = argv(uid=None, nested=True)
    assert {"--unshare-all", "--unshare-user", "--disable-userns"} <= set(args[: args.index("--")])
    assert "setpriv" not in args and "--cap-add" not in args
    assert args.count("bwrap") == 0 and args[0] == "/usr/bin/bwrap"


def test_interpreter_prefix_is_bound_alone(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setattr(command, "SYSTEM_PYTHON", tmp_path / "missing")
    executable, prefix = command.interpreter()
    assert executable == Path(sys.executable).resolve()
    args = argv()
    if prefix is None:
        assert Path("/usr") in executable.parents
        return
    assert (str(prefix), str(prefix)) in options(args, "--ro-bind", 2)
    assert ("/root", "/root") not in options(args, "--ro-bind", 2)
    assert (str(executable), "/usr/local/bin/python") in options(args, "--symlink", 2)
    for ancestor in prefix.parents[:-1]:
        assert (str(ancestor),) in options(args, "--dir", 1)  # made empty, not bound


def test_system_python_when_present(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    fake = tmp_path / "python3"
    fake.write_text("")
    monkeypatch.setattr(command, "SYSTEM_PYTHON", fake)
    assert command.interpreter() == (fake, None)
    assert (str(fake), "/usr/local/bin/python") in options(argv(), "--symlink", 2)

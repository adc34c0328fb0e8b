"""Fixtures of the workflow runner's tests: the bot's venv (built once per session from this
worktree, what every job's "Install the bot" step stands for) and a runner in a temp folder."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

PROJECT = Path(__file__).resolve().parents[2]

# .ci/run sets it: a test here that would skip for a missing tool (the sandbox, libfaketime)
# fails instead, so CI never passes with the workflows left unrun.
REQUIRE_TOOLS = "CLAIMS_REQUIRE_WORKFLOW_TOOLS"


@pytest.hookimpl(tryfirst=True)
def pytest_runtest_setup(item: pytest.Item) -> None:
    """With CLAIMS_REQUIRE_WORKFLOW_TOOLS set, a `skipif` whose condition holds is a failure."""
    if not os.environ.get(REQUIRE_TOOLS):
        return
    for mark in item.iter_markers("skipif"):
        if mark.args and mark.args[0] is True:
            reason = mark.kwargs.get("reason", "a tool is missing")
            pytest.fail(f"{reason} ({REQUIRE_TOOLS} is set; .ci/run installs the tools)")


@pytest.fixture(scope="session")
def bot_venv(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A venv holding this worktree's bot (`pip install --no-deps` of a copy of its tracked
    files), over this interpreter's packages: the jobs' `$RUNNER_TEMP/bot`."""
    folder = tmp_path_factory.mktemp("bot-venv")
    source = folder / "source"
    listed = subprocess.run(
        ["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
        cwd=PROJECT,
        capture_output=True,
        check=True,
    ).stdout.split(b"\0")
    for name in filter(None, listed):
        path = PROJECT / os.fsdecode(name)
        if path.is_file() and not path.is_symlink():
            target = source / os.fsdecode(name)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(path.read_bytes())
    venv = folder / "venv"
    subprocess.run(
        [sys.executable, "-m", "venv", "--system-site-packages", "--without-pip", str(venv)],
        check=True,
    )
    subprocess.run(
        [
            str(venv / "bin" / "python"),
            "-m",
            "pip",
            "install",
            "--quiet",
            "--no-deps",
            # pip's cache: the build backend (setuptools) the project's own install fetched
            str(source),
        ],
        check=True,
        cwd=folder,
        capture_output=True,
    )
    assert (venv / "bin" / "claims").exists()
    # The network stand-in (machine_hook.py): inert unless RUNNER_FETCH_ALLOWED_ADDRESSES is set.
    (site,) = (venv / "lib").glob("python*/site-packages")
    (site / "runner_machine.py").write_bytes(
        (PROJECT / "tests/workflows/machine_hook.py").read_bytes()
    )
    (site / "runner_machine.pth").write_text("import runner_machine\n", encoding="utf-8")
    return venv

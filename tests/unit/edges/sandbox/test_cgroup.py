"""`bot/edges/sandbox/cgroup.py` on a stand-in cgroup tree: what a run's group is set to, how a kill
by its memory limit is read, and how a run joins it. (The real kernel's groups are measured in
test_runner.py, where this machine offers them.)"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from bot.edges.sandbox import cgroup


@pytest.fixture
def v2(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A cgroup v2 root whose subtree has no controllers enabled yet."""
    (tmp_path / "cgroup.controllers").write_text("cpu memory pids\n")
    (tmp_path / "cgroup.subtree_control").write_text("cpu\n")
    monkeypatch.setattr(cgroup, "ROOT", tmp_path)
    monkeypatch.setattr(os, "geteuid", lambda: 0)
    return tmp_path


def test_a_v2_group_bounds_memory_without_swap_and_processes(v2: Path) -> None:
    (group_made, reason) = cgroup.create(1 << 30, 64)
    assert reason is None and group_made is not None
    (folder,) = group_made.folders
    assert folder.parent == v2 and folder.name.startswith("claims-sandbox-")
    assert (v2 / "cgroup.subtree_control").read_text() == "+memory +pids\n"
    assert (folder / "memory.max").read_text() == f"{1 << 30}\n"
    assert (folder / "pids.max").read_text() == "64\n"
    assert not group_made.oom_killed()
    (folder / "memory.events").write_text("low 0\nhigh 0\nmax 12\noom 1\noom_kill 1\n")
    (folder / "memory.peak").write_text("1073741824\n")
    assert group_made.oom_killed() and group_made.peak() == 1 << 30


def test_without_root_there_is_no_group_and_the_reason_says_so(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setattr(os, "geteuid", lambda: 1000)
    assert cgroup.create(1 << 30, 64) == (
        None,
        "the bot does not run as root, so it cannot make a cgroup",
    )


def test_the_command_joins_every_group_before_it_starts(tmp_path: Path) -> None:
    folders = (tmp_path / "memory", tmp_path / "pids")
    for folder in folders:
        folder.mkdir()
    argv = cgroup.join(cgroup.Group(1, folders), ["sh", "-c", "echo $$; echo started"])
    run = subprocess.run(argv, capture_output=True, text=True, check=True)
    pid, started = run.stdout.split()
    assert started == "started"
    for folder in folders:  # the same process (exec), written before the command ran
        assert (folder / "cgroup.procs").read_text().strip() == pid
    assert cgroup.join(None, ["true"]) == ["true"]


def test_groups_a_killed_bot_left_are_swept_when_a_run_starts(v2: Path) -> None:
    """A bot killed mid-run leaves its group behind (its `finally` never ran); the next run
    removes such groups once they are ten minutes old, never a fresh one."""
    old, fresh, other = v2 / "claims-sandbox-old", v2 / "claims-sandbox-fresh", v2 / "system"
    for folder in (old, fresh, other):
        folder.mkdir()
    os.utime(old, (0, 0))
    os.utime(other, (0, 0))
    group, _ = cgroup.create(1 << 30, 64)
    assert group is not None
    assert not old.exists() and fresh.is_dir() and other.is_dir()

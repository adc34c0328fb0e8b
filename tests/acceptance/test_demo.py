"""The README's first quick-start command, and the honesty of the committed examples."""

from __future__ import annotations

import filecmp
import subprocess
import sys
from pathlib import Path

import pytest

import bot.sandbox
from bot.demo.run import run_demo
from tests.support import PROJECT


def test_claims_demo_runs_and_every_example_behaves(tmp_path: Path) -> None:
    done = subprocess.run(
        ["claims", "demo", "--keep", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "demo OK: all 15 examples gave the codes they demonstrate" in done.stdout
    assert "markets 2 ANNULLED, 3 YES, 5 NO, 6 OTHER" in done.stdout
    assert "UNEXPECTED" not in done.stdout
    assert (tmp_path / "demo" / ".git").is_dir()


def _differences(left: Path, right: Path) -> list[str]:
    comparison = filecmp.dircmp(left, right)
    found = [
        f"{left.name}/{name}"
        for name in comparison.left_only + comparison.right_only + comparison.diff_files
    ]
    for sub in comparison.common_dirs:
        found += _differences(left / sub, right / sub)
    return found


def test_examples_are_exactly_what_the_generator_writes(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(PROJECT / "examples" / "generate.py"), str(tmp_path)], check=True
    )
    for part in ("registry", "history", "released"):
        assert _differences(PROJECT / "examples" / part, tmp_path / part) == []
    assert (PROJECT / "examples" / "demo-plan.yaml").read_bytes() == (
        tmp_path / "demo-plan.yaml"
    ).read_bytes()


def test_the_demo_without_a_sandbox_leaves_the_wrapped_attempts_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where adapters cannot be rerun, resolution leaves wrapped attempts out (they are
    adapter-not-rerun): the edited wrap never counts, and market 3 is YES from alice-lab's
    run attempt alone."""
    monkeypatch.setattr(bot.sandbox, "isolation", lambda: "bwrap is not installed")
    assert run_demo(tmp_path / "demo") == 0
    out = capsys.readouterr().out
    assert "rerun of wrapped attempts' adapters: SKIPPED (bwrap is not installed)" in out
    assert "$ claims resolve --as-of 2027-11-01 --no-rerun-adapters" in out
    assert "warning: 2 wrapped attempt(s) left out" in out
    assert (
        "market 3 resolves YES: qualifying attempt attempts/market-03/alice-lab/monitor-v1" in out
    )
    assert "met every bar\n" in out  # alice-lab alone, not "(2 did)"
    assert "qualifying (met)         attempts/market-03/sly-lab" not in out
    assert "demo OK" in out and "markets 2 ANNULLED, 3 YES, 5 NO, 6 OTHER" in out

"""verify.yml's pins step, run as the runner runs it (`bash --noprofile --norc -eo
pipefail`), with a stand-in for `claims` that records its arguments and exits as told."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

import pytest
import yaml

WORKFLOW = Path(__file__).resolve().parents[3] / ".github" / "workflows" / "verify.yml"


def _pins_script() -> str:
    jobs = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))["jobs"]
    (step,) = [s for s in jobs["pins"]["steps"] if str(s.get("name", "")).startswith("Fetch every")]
    return str(step["run"])


def _run(tmp_path: Path, status: int) -> tuple[subprocess.CompletedProcess[str], list[str]]:
    runner_temp = tmp_path / "runner"
    claims = runner_temp / "bot" / "bin" / "claims"
    claims.parent.mkdir(parents=True)
    calls = tmp_path / "calls.json"
    claims.write_text(
        "#!/bin/bash\n"
        f"python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' \"$@\" > {calls}\n"
        f"exit {status}\n",
        encoding="utf-8",
    )
    claims.chmod(claims.stat().st_mode | stat.S_IXUSR)
    workspace = tmp_path / "workspace"
    workspace.mkdir()
    script = tmp_path / "step.sh"
    script.write_text(_pins_script(), encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(runner_temp),
        "BASE": "main",
        "SHA": "a" * 40,
    }
    done = subprocess.run(
        ["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)],
        cwd=workspace,
        env=env,
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    argv: list[str] = json.loads(calls.read_text()) if calls.exists() else []
    return done, argv


@pytest.mark.parametrize(("status", "green"), [(0, True), (1, True), (2, False)])
def test_the_pins_step_records_into_the_artifact_folder(
    tmp_path: Path, status: int, green: bool
) -> None:
    done, argv = _run(tmp_path, status)
    assert (done.returncode == 0) is green, done.stderr
    assert argv == [
        "verify", "--base-ref", "origin/main", "--head", "a" * 40,
        "--fetch-raw-logs", "--pin-results", "pin-results", "--quiet",
    ]  # fmt: skip
    # The artifact folder exists with a file in it, also when no pin was recorded.
    assert (tmp_path / "workspace" / "pin-results" / "README").is_file()

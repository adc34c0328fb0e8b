"""close-windows.yml's plan and rerun steps, read from the workflow and run here as GitHub runs
them (`bash -eo pipefail`, the real `jq`), with `claims` and `sudo` replaced by fakes."""

from __future__ import annotations

import json
import os
import re
import shutil
import stat
import subprocess
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import yaml

WORKFLOW = Path(__file__).resolve().parents[1] / ".github" / "workflows" / "close-windows.yml"


def jobs() -> dict[str, Any]:
    data = yaml.safe_load(WORKFLOW.read_text(encoding="utf-8"))
    found: dict[str, Any] = data["jobs"]
    return found


def step(job: str, name_starts: str) -> dict[str, Any]:
    (found,) = [s for s in jobs()[job]["steps"] if str(s.get("name", "")).startswith(name_starts)]
    return dict(found)


def plan_script() -> str:
    script: str = step("plan", "Plan the adapter reruns")["run"]
    return script


def rerun_script() -> str:
    script: str = step("rerun", "Rerun the batch's adapters")["run"]
    return script


def pin_plan_script() -> str:
    script: str = step("plan", "Plan the pin fetches")["run"]
    return script


def pins_script() -> str:
    script: str = step("pins", "Fetch the batch's pins")["run"]
    return script


def caps() -> tuple[int, int]:
    """The plan check's numbers: (batches at most, attempts a batch at most)."""
    text = plan_script()
    jobs_cap = re.search(r"\.batches \| length <= (\d+)", text)
    per_job = re.search(r"\(length >= 1\) and \(length <= (\d+)\)", text)
    assert jobs_cap is not None and per_job is not None, text
    return int(jobs_cap.group(1)), int(per_job.group(1))


def _bash() -> str:
    bash = shutil.which("bash")
    if bash is None or shutil.which("jq") is None:
        pytest.skip("bash and jq are needed to run the workflow's steps")
    return bash


def _executable(path: Path, text: str) -> None:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(path.stat().st_mode | stat.S_IXUSR)


@dataclass(frozen=True)
class Ran:
    code: int
    out: str
    err: str
    outputs: dict[str, str]
    calls: list[list[str]]


def run_plan_step(
    tmp_path: Path,
    planned: dict[str, Any],
    script: str | None = None,
    reruns: dict[str, Any] | None = None,
) -> Ran:
    """The plan step, its `claims close-windows --plan-reruns` printing `planned` (or the
    step `script`: the pin plan's, which reads the rerun plan the step before wrote: `reruns`,
    by default one with no batch)."""
    bash = _bash()
    temp = tmp_path / "runner-temp"
    if script is not None:
        before = reruns if reruns is not None else {"batches": [], "released_bytes": 0}
        (tmp_path / "plan.json").write_text(json.dumps(before), encoding="utf-8")
    (tmp_path / "plan-out.json").write_text(json.dumps(planned), encoding="utf-8")
    _executable(
        temp / "bot" / "bin" / "claims",
        f"#!{bash}\ncat {json.dumps(str(tmp_path / 'plan-out.json'))}\n",
    )
    return _run(bash, script or plan_script(), tmp_path, temp, {})


def run_rerun_step(
    tmp_path: Path,
    planned: dict[str, Any],
    batch: int,
    exits: dict[str, int] | None = None,
    pins: bool = False,
) -> Ran:
    """One rerun job's step on batch `batch` of `planned` (the downloaded plan artifact). The
    fake `claims verify` records its arguments, writes one result file for its attempt and
    exits with `exits[attempt]` (0 by default); the fake `sudo` runs its arguments. With
    `pins`, the pins job's step on the pin plan, its results in pin-results/."""
    bash = _bash()
    temp = tmp_path / "runner-temp"
    folder = "pin-results" if pins else "rerun-cache"
    plan_file = temp / ("close-pin-plan/pin-plan.json" if pins else "close-plan/plan.json")
    plan_file.parent.mkdir(parents=True, exist_ok=True)
    plan_file.write_text(json.dumps(planned), encoding="utf-8")
    calls = tmp_path / "calls.jsonl"
    codes = tmp_path / "exits.json"
    codes.write_text(json.dumps(exits or {}), encoding="utf-8")
    fake = f"""#!{bash}
set -eo pipefail
python3 -c 'import json, sys; print(json.dumps(sys.argv[1:]))' "$@" >> {json.dumps(str(calls))}
if [ -n "$(cat)" ]; then echo "stdin was not /dev/null" >&2; exit 9; fi
attempt="${{!#}}"
mkdir -p {folder}
printf '%s\\n' "$attempt" > "{folder}/$(printf '%s' "$attempt" | tr / _).json"
exit "$(python3 -c 'import json, sys; print(json.load(open(sys.argv[1])).get(sys.argv[2], 0))' \
  {json.dumps(str(codes))} "$attempt")"
"""
    _executable(temp / "bot" / "bin" / "claims", fake)
    _executable(tmp_path / "fakebin" / "sudo", f'#!{bash}\nexec "$@"\n')
    script = pins_script() if pins else rerun_script()
    return _run(bash, script, tmp_path, temp, {"BATCH": str(batch)}, calls)


def _run(
    bash: str,
    script: str,
    cwd: Path,
    temp: Path,
    env: dict[str, str],
    calls: Path | None = None,
) -> Ran:
    output = cwd / "github-output"
    output.write_text("", encoding="utf-8")
    environment = {
        **os.environ,
        **env,
        "PATH": f"{cwd / 'fakebin'}{os.pathsep}{os.environ.get('PATH', '')}",
        "RUNNER_TEMP": str(temp),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_REF_NAME": "main",
    }
    # GitHub runs a `run:` script as `bash --noprofile --norc -eo pipefail {0}`.
    script_file = cwd / "step.sh"
    script_file.write_text(script, encoding="utf-8")
    result = subprocess.run(
        [bash, "--noprofile", "--norc", "-eo", "pipefail", str(script_file)],
        cwd=cwd,
        env=environment,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        stdin=subprocess.DEVNULL,
    )
    outputs = {}
    for line in output.read_text(encoding="utf-8").splitlines():
        key, _, value = line.partition("=")
        outputs[key] = value
    made = (
        [json.loads(line) for line in calls.read_text(encoding="utf-8").splitlines()]
        if calls is not None and calls.exists()
        else []
    )
    return Ran(result.returncode, result.stdout, result.stderr, outputs, made)

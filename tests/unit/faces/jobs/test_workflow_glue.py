"""The shell glue between the workflows' steps (issue 22, found by running them):

- verify.yml: "no pull request to post to" (head moved, PR closed, other base) is a normal
  outcome. `claims github locate` prints `found=false` and exits 0; the locate step writes
  `found=false` to $GITHUB_OUTPUT and ends green; every later step of the locate job and every
  later job runs only on `found == 'true'`. The step's script is run here under
  `bash -eo pipefail`, as the runner runs it, with a stand-in for the bot.
- judge.yml / pages.yml: a `/judge` commit is made with GITHUB_TOKEN, whose pushes start no
  workflow, so the bot dispatches pages.yml (a dispatch does start a run): pages.yml accepts
  `workflow_dispatch`, and the judge job holds `actions: write` for it.
"""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.faces.github.cli import VERIFY_WORKFLOW
from bot.faces.github.responder import PAGES_WORKFLOW

WORKFLOWS = Path(__file__).resolve().parents[4] / ".github" / "workflows"
FOUND = "found == 'true'"


def _workflow(name: str) -> dict[str, Any]:
    data = yaml.safe_load((WORKFLOWS / name).read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    if True in data:  # YAML 1.1 reads the key `on` as True
        data["on"] = data.pop(True)
    return data


def _needs(job: dict[str, Any]) -> list[str]:
    needs = job.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def _condition(holder: dict[str, Any]) -> str:
    return " ".join(str(holder.get("if", "")).split())


def test_verify_runs_nothing_after_locate_unless_a_pull_request_was_found() -> None:
    jobs = _workflow("verify.yml")["jobs"]
    locate = jobs["locate"]
    assert locate["outputs"]["found"] == "${{ steps.locate.outputs.found }}"
    steps = locate["steps"]
    (index,) = [i for i, step in enumerate(steps) if step.get("id") == "locate"]
    after = steps[index + 1 :]
    assert after, "the locate job has steps after the lookup"
    for step in after:
        assert f"steps.locate.outputs.{FOUND}" in _condition(step), step["name"]
    # Every other job depends on locate and runs only on its found output.
    for name, job in jobs.items():
        if name == "locate":
            continue
        assert "locate" in _needs(job), name
        assert f"needs.locate.outputs.{FOUND}" in _condition(job), name
        # `&&` binds the guard: no `||` could let the job run without it.
        assert "||" not in _condition(job), name


def _locate_script() -> str:
    steps = _workflow("verify.yml")["jobs"]["locate"]["steps"]
    (step,) = [s for s in steps if s.get("id") == "locate"]
    return str(step["run"])


def _run_locate_step(
    tmp_path: Path, printed: str, status: int = 0, event: str = "workflow_run"
) -> tuple[subprocess.CompletedProcess[str], str]:
    """The locate step's script as the runner runs it (`bash --noprofile --norc -eo pipefail`),
    with `claims` replaced by a stand-in that prints `printed` and exits `status`."""
    runner_temp = tmp_path / "runner"
    bin_dir = runner_temp / "bot" / "bin"
    bin_dir.mkdir(parents=True, exist_ok=True)
    (tmp_path / "printed.txt").write_text(printed, encoding="utf-8")
    claims = bin_dir / "claims"
    claims.write_text(
        f'#!/bin/bash\ncat "{tmp_path / "printed.txt"}"\nexit {status}\n', encoding="utf-8"
    )
    claims.chmod(claims.stat().st_mode | stat.S_IXUSR)
    output = tmp_path / "github-output"
    output.write_text("", encoding="utf-8")
    workspace = tmp_path / "workspace"
    workspace.mkdir(exist_ok=True)
    script = tmp_path / "step.sh"
    script.write_text(_locate_script(), encoding="utf-8")
    env = {
        "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
        "HOME": str(tmp_path),
        "RUNNER_TEMP": str(runner_temp),
        "GITHUB_OUTPUT": str(output),
        "GITHUB_EVENT_NAME": event,
        "GITHUB_EVENT_PATH": str(tmp_path / "event.json"),
        "DISPATCHED_PR": "7" if event == "workflow_dispatch" else "",
        "DEFAULT_BRANCH": "main",
        "GITHUB_TOKEN": "t0ken",
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
    return done, output.read_text(encoding="utf-8")


SHA = "a" * 40


@pytest.mark.parametrize("event", ["workflow_run", "workflow_dispatch"])
def test_the_locate_step_ends_green_with_found_false(tmp_path: Path, event: str) -> None:
    done, output = _run_locate_step(tmp_path, "found=false\n", event=event)
    assert done.returncode == 0, done.stderr
    assert output == "found=false\n"


def test_the_locate_step_passes_on_the_four_validated_lines(tmp_path: Path) -> None:
    printed = f"found=true\npr=7\nhead_sha={SHA}\nbase_ref=main\n"
    done, output = _run_locate_step(tmp_path, printed)
    assert done.returncode == 0, done.stderr
    assert output == printed


@pytest.mark.parametrize(
    ("printed", "status"),
    [
        ("", 2),  # an error of the bot: the step fails, the run is red
        ("", 1),  # no token: nothing was looked up
        (f"found=false\npr=7\nhead_sha={SHA}\nbase_ref=main\n", 0),  # not found=false alone
        (f"pr=7\nhead_sha={SHA}\nbase_ref=main\n", 0),  # no found=true
        (f"found=true\nfound=true\npr=7\nhead_sha={SHA}\nbase_ref=main\n", 0),
        (f"found=true\npr=7\nhead_sha={SHA}\nbase_ref=-main\n", 0),
    ],
)
def test_the_locate_step_fails_on_anything_else(tmp_path: Path, printed: str, status: int) -> None:
    done, output = _run_locate_step(tmp_path, printed, status)
    assert done.returncode != 0
    assert output == ""  # nothing reaches $GITHUB_OUTPUT


def test_pages_can_be_dispatched_and_builds_then() -> None:
    pages = _workflow("pages.yml")
    assert "workflow_dispatch" in pages["on"]
    assert pages["on"]["workflow_dispatch"] in (None, {})  # no inputs: it builds main as it is
    build = pages["jobs"]["build"]
    # the build's condition lets a dispatch through (it only filters workflow_run)
    assert _condition(build).startswith("github.event_name != 'workflow_run' ||")
    assert (WORKFLOWS / PAGES_WORKFLOW).is_file() and (WORKFLOWS / VERIFY_WORKFLOW).is_file()


def test_the_judge_job_may_dispatch_pages_and_nothing_more() -> None:
    """The bot (`claims github judge`) dispatches pages.yml after a /judge commit; a dispatch
    needs `actions: write`, which the job already holds to start verify.yml. No other scope
    was added for it."""
    (job,) = _workflow("judge.yml")["jobs"].values()
    assert job["permissions"] == {
        "contents": "write",
        "pull-requests": "write",
        "issues": "write",
        "actions": "write",
    }
    text = (WORKFLOWS / "judge.yml").read_text(encoding="utf-8")
    assert PAGES_WORKFLOW in text  # the comment on `actions: write` names both dispatches
    script = " ".join(str(step.get("run", "")) for step in job["steps"])
    assert 'claims" github judge --event "$GITHUB_EVENT_PATH"' in script

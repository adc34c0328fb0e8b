"""The workflows in `.github/workflows/` keep the properties the trust boundary rests on.

Untrusted pull-request code and trusted credentials never meet (docs/spec.md §10, §10.1):
`permissions: {}` at the top and a commented `permissions` on every job; actions pinned by a
full commit SHA with its version in a comment; no `${{ }}` inside `run:` (values reach scripts
through `env:`); checkouts keep no credentials; no caches; the privileged workflows check out
the default branch only and never put the pull request's tree on disk; the adapter reruns hold
no token scope and no secret; only the posting job may mint an OIDC token; concurrency groups.
Each checker is a function over one workflow, tried here on the real files and on a snippet
that breaks it, so that no assertion passes vacuously. zizmor (`--offline --persona
pedantic`) runs over `.github/` when it is installed, as `.ci/run` does.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
import yaml

PROJECT = Path(__file__).resolve().parents[2]
WORKFLOWS = PROJECT / ".github" / "workflows"
# Workflows that hold a write scope or run on events outside contributors' control.
PRIVILEGED = ("verify.yml", "judge.yml", "close-windows.yml", "pages.yml")
# The jobs that may mint an OIDC token (to sign an attestation, or to prove a Pages
# deployment's origin): each holds write scopes and runs no untrusted code.
OIDC_JOBS = ("publish", "close", "deploy")

Workflow = dict[str, Any]
Checker = Callable[[str, Workflow], list[str]]

_PINNED = re.compile(
    r"^\s*(?:-\s+)?uses:\s+(?P<action>[A-Za-z0-9_.-]+/[A-Za-z0-9_./-]+)@(?P<sha>[0-9a-f]{40})"
    r"\s+#\s+v\d+(?:\.\d+)*\s*$"
)
_USES_LINE = re.compile(r"^\s*(?:-\s+)?uses:\s")
_SCOPE_LINE = re.compile(r"^\s+[a-z-]+:\s+(?:read|write|none)\b")


def _load(text: str) -> Workflow:
    data = yaml.safe_load(text)
    assert isinstance(data, dict)
    # YAML 1.1 reads the key `on` as True.
    if True in data:
        data["on"] = data.pop(True)
    return data


def _jobs(workflow: Workflow) -> Iterator[tuple[str, dict[str, Any]]]:
    jobs = workflow.get("jobs") or {}
    yield from jobs.items()


def _steps(workflow: Workflow) -> Iterator[tuple[str, dict[str, Any]]]:
    for name, job in _jobs(workflow):
        for step in job.get("steps") or []:
            yield name, step


def _is_checkout(step: dict[str, Any]) -> bool:
    return str(step.get("uses", "")).startswith("actions/checkout@")


# -- checkers: each returns the problems it finds in one workflow (text and parsed form) ----


def check_top_permissions(text: str, workflow: Workflow) -> list[str]:
    if workflow.get("permissions", None) != {}:
        return [f"top-level permissions is {workflow.get('permissions')!r}, expected {{}}"]
    return []


def check_job_permissions(text: str, workflow: Workflow) -> list[str]:
    return [
        f"job {name} has no permissions"
        for name, job in _jobs(workflow)
        if "permissions" not in job
    ]


def check_scopes_commented(text: str, workflow: Workflow) -> list[str]:
    """Every `scope: read|write` line carries a comment saying why."""
    return [
        f"line {number}: scope without a comment: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if _SCOPE_LINE.match(line) and "#" not in line
    ]


def check_pinned(text: str, workflow: Workflow) -> list[str]:
    problems = [
        f"line {number}: not pinned to a commit SHA with a # vX.Y.Z comment: {line.strip()}"
        for number, line in enumerate(text.splitlines(), 1)
        if _USES_LINE.match(line) and not _PINNED.match(line)
    ]
    uses = [step["uses"] for _, step in _steps(workflow) if "uses" in step]
    uses += [job["uses"] for _, job in _jobs(workflow) if "uses" in job]
    lines = [line for line in text.splitlines() if _USES_LINE.match(line)]
    if len(uses) != len(lines):  # e.g. `{uses: ...}` flow style, which the line check misses
        problems.append(f"{len(uses)} uses: in the workflow, {len(lines)} on lines of their own")
    return problems


def check_no_expressions_in_run(text: str, workflow: Workflow) -> list[str]:
    return [
        f"job {job}: step {step.get('name', '?')!r} has ${{{{ }}}} inside run:"
        for job, step in _steps(workflow)
        if "${{" in str(step.get("run", ""))
    ]


def check_checkouts_keep_no_credentials(text: str, workflow: Workflow) -> list[str]:
    return [
        f"job {job}: checkout without persist-credentials: false"
        for job, step in _steps(workflow)
        if _is_checkout(step) and (step.get("with") or {}).get("persist-credentials") is not False
    ]


def check_no_caches(text: str, workflow: Workflow) -> list[str]:
    problems = []
    for job, step in _steps(workflow):
        uses = str(step.get("uses", ""))
        if uses.startswith("actions/cache"):
            problems.append(f"job {job}: uses {uses}")
        if "cache" in (step.get("with") or {}):
            problems.append(f"job {job}: step {step.get('name', uses)!r} sets cache:")
    return problems


def check_default_branch_only(text: str, workflow: Workflow) -> list[str]:
    """Checkouts take the default branch (no `ref:`, no `repository:`), and no script puts
    another commit's tree on disk."""
    problems = []
    for job, step in _steps(workflow):
        options = step.get("with") or {}
        if _is_checkout(step) and ({"ref", "repository"} & set(options)):
            problems.append(
                f"job {job}: checkout of {sorted({'ref', 'repository'} & set(options))}"
            )
        script = str(step.get("run", ""))
        if re.search(r"\bgit\s+(?:checkout|switch|worktree|restore|reset)\b", script):
            problems.append(f"job {job}: step {step.get('name', '?')!r} checks out a commit")
    return problems


def check_bot_runs_with_commands_stopped(text: str, workflow: Workflow) -> list[str]:
    """A step that runs the bot on untrusted data first stops workflow commands (`::...::` in
    a branch name or an attempt file must not set outputs, masks or annotations)."""
    return [
        f"job {job}: step {step.get('name', '?')!r} runs claims with workflow commands on"
        for job, step in _steps(workflow)
        if re.search(r"bin/claims\"? ", str(step.get("run", "")))
        and "::stop-commands::" not in str(step.get("run", ""))
    ]


def check_concurrency(text: str, workflow: Workflow) -> list[str]:
    group = (workflow.get("concurrency") or {}).get("group")
    return [] if group else ["no concurrency group"]


def check_no_pull_request_target(text: str, workflow: Workflow) -> list[str]:
    on = workflow.get("on")
    events = [on] if isinstance(on, str) else list(on or [])
    return ["runs on pull_request_target"] if "pull_request_target" in events else []


def check_oidc_only_in_publish(text: str, workflow: Workflow) -> list[str]:
    return [
        f"job {name} holds {scope}"
        for name, job in _jobs(workflow)
        for scope in ("id-token", "attestations")
        if scope in (job.get("permissions") or {}) and name not in OIDC_JOBS
    ]


CHECKERS: list[Checker] = [
    check_top_permissions,
    check_job_permissions,
    check_scopes_commented,
    check_pinned,
    check_no_expressions_in_run,
    check_checkouts_keep_no_credentials,
    check_no_caches,
    check_concurrency,
    check_no_pull_request_target,
    check_oidc_only_in_publish,
]

SHA = "3d3c42e5aac5ba805825da76410c181273ba90b1"
GOOD = f"""\
name: good
on: pull_request
permissions: {{}}
concurrency:
  group: good-${{{{ github.ref }}}}
jobs:
  publish:
    runs-on: ubuntu-24.04
    permissions:
      id-token: write # sign
    steps:
      - uses: actions/checkout@{SHA} # v7.0.1
        with:
          persist-credentials: false
      - env:
          REF: ${{{{ github.ref }}}}
        run: echo "$REF"
      - run: |
          stop="$(openssl rand -hex 16)"
          echo "::stop-commands::$stop"
          "$RUNNER_TEMP/bot/bin/claims" github publish report.json
          echo "::$stop::"
"""

# Each checker against a snippet that breaks exactly its property.
BAD: list[tuple[Checker, str, str]] = [
    (check_top_permissions, "permissions: {}\n", "permissions: read-all\n"),
    (check_job_permissions, "    permissions:\n      id-token: write # sign\n", ""),
    (check_scopes_commented, "id-token: write # sign", "id-token: write"),
    (check_pinned, f"@{SHA} # v7.0.1", "@v7 # v7.0.1"),
    (check_pinned, f"@{SHA} # v7.0.1", f"@{SHA}"),
    (check_pinned, f"@{SHA} # v7.0.1", f"@{SHA[:12]} # v7.0.1"),
    (check_no_expressions_in_run, 'run: echo "$REF"', 'run: echo "${{ github.ref }}"'),
    (check_checkouts_keep_no_credentials, "persist-credentials: false", "fetch-depth: 0"),
    (
        check_no_caches,
        "persist-credentials: false",
        "persist-credentials: false\n          cache: pip",
    ),
    (check_concurrency, "concurrency:\n  group: good-${{ github.ref }}\n", ""),
    (check_no_pull_request_target, "on: pull_request\n", "on: [pull_request_target]\n"),
    (check_oidc_only_in_publish, "  publish:\n", "  verify:\n"),
    (
        check_default_branch_only,
        "persist-credentials: false",
        "persist-credentials: false\n          ref: refs/pull/1/head",
    ),
    (check_default_branch_only, 'run: echo "$REF"', 'run: git checkout "$REF"'),
    (check_bot_runs_with_commands_stopped, 'echo "::stop-commands::$stop"', "true"),
]


def _workflow_files() -> list[Path]:
    return sorted(WORKFLOWS.glob("*.yml")) + sorted(WORKFLOWS.glob("*.yaml"))


def _problems(checker: Checker, file: Path) -> list[str]:
    text = file.read_text(encoding="utf-8")
    return checker(text, _load(text))


def test_the_six_workflows_exist() -> None:
    assert [file.name for file in _workflow_files()] == [
        "check.yml",
        "ci.yml",
        "close-windows.yml",
        "judge.yml",
        "pages.yml",
        "verify.yml",
    ]


@pytest.mark.parametrize("checker", CHECKERS, ids=lambda checker: checker.__name__)
@pytest.mark.parametrize("file", _workflow_files(), ids=lambda file: file.name)
def test_every_workflow_keeps_the_property(file: Path, checker: Checker) -> None:
    assert _problems(checker, file) == []


PRIVILEGED_CHECKERS: list[Checker] = [
    check_default_branch_only,
    check_bot_runs_with_commands_stopped,
]


@pytest.mark.parametrize("checker", PRIVILEGED_CHECKERS, ids=lambda checker: checker.__name__)
@pytest.mark.parametrize("name", PRIVILEGED)
def test_privileged_workflows_keep_the_property(name: str, checker: Checker) -> None:
    assert _problems(checker, WORKFLOWS / name) == []


def test_the_good_snippet_passes_every_checker() -> None:
    workflow = _load(GOOD)
    for checker in [*CHECKERS, *PRIVILEGED_CHECKERS]:
        assert checker(GOOD, workflow) == [], checker.__name__


@pytest.mark.parametrize(
    ("checker", "good", "bad"), BAD, ids=[f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(BAD)]
)
def test_each_checker_catches_its_defect(checker: Checker, good: str, bad: str) -> None:
    assert good in GOOD
    text = GOOD.replace(good, bad, 1)
    assert checker(text, _load(text)) != []


# -- the shape of the verdict workflow (docs/spec.md §10) ------------------------------------------


def _workflow(name: str) -> Workflow:
    return _load((WORKFLOWS / name).read_text(encoding="utf-8"))


def test_check_is_untrusted_feedback_on_pull_request_only() -> None:
    check = _workflow("check.yml")
    assert set(check["on"]) == {"pull_request"}
    # a retargeted PR (`edited`) is verified again: no verdict of another PR stands for it
    assert check["on"]["pull_request"]["types"] == ["opened", "synchronize", "reopened", "edited"]
    assert sorted(check["on"]["pull_request"]["paths"]) == [
        "attempts/**",
        "challenge-runs/**",
        "markets/**",
        "shared-rules/**",
    ]
    for _, job in _jobs(check):
        assert job["permissions"] == {"contents": "read"}
    assert "secrets." not in (WORKFLOWS / "check.yml").read_text(encoding="utf-8")


def test_verify_runs_on_check_and_splits_the_trust() -> None:
    verify = _workflow("verify.yml")
    assert verify["on"]["workflow_run"] == {"workflows": ["check"], "types": ["completed"]}
    # /judge re-posts a verdict by dispatching this workflow with the PR's number only
    assert set(verify["on"]) == {"workflow_run", "workflow_dispatch"}
    assert set(verify["on"]["workflow_dispatch"]["inputs"]) == {"pr"}
    assert verify["on"]["workflow_dispatch"]["inputs"]["pr"]["type"] == "number"
    jobs = dict(_jobs(verify))
    assert list(jobs) == ["locate", "rerun", "pins", "verify", "publish"]
    # Adapter code runs, and filers' URLs are fetched, only where there is nothing to steal.
    for name in ("rerun", "pins"):
        assert jobs[name]["permissions"] == {}, name
        assert "secrets." not in yaml.safe_dump(jobs[name]), name
        assert "GITHUB_TOKEN" not in yaml.safe_dump(jobs[name]), name
        assert "github.token" not in yaml.safe_dump(jobs[name]), name
    # The pins job fetches and records; the verify job counts the records, fetching nothing.
    pins_script = " ".join(str(step.get("run", "")) for step in jobs["pins"]["steps"])
    assert "--fetch-raw-logs --pin-results pin-results" in pins_script
    verify_script = " ".join(str(step.get("run", "")) for step in jobs["verify"]["steps"])
    assert "--pin-results pin-results" in verify_script
    assert "--fetch-raw-logs" not in verify_script
    assert "pins" in jobs["verify"]["needs"]
    assert jobs["rerun"]["strategy"]["fail-fast"] is False
    assert "locate.outputs.matrix" in jobs["rerun"]["strategy"]["matrix"]
    # Only reads before the posting job; the posting job holds only what posting needs.
    for name in ("locate", "verify"):
        assert set(jobs[name]["permissions"].values()) == {"read"}, name
    assert jobs["verify"]["permissions"] == {
        "contents": "read",  # also a new slug's head commit author (GET /commits/{sha})
        "pull-requests": "read",
    }
    assert jobs["publish"]["permissions"] == {
        "contents": "read",  # a shared head commit's author (GET /commits/{sha})
        "checks": "write",
        "pull-requests": "write",
        "issues": "write",
        "actions": "write",  # re-verify the PRs sharing the head of a PR it closed
        "id-token": "write",
        "attestations": "write",
    }
    uses = [str(step.get("uses", "")) for step in jobs["publish"]["steps"]]
    assert any(use.startswith("actions/attest-build-provenance@") for use in uses)


def test_close_windows_is_scheduled_and_splits_the_trust() -> None:
    close = _workflow("close-windows.yml")
    text = (WORKFLOWS / "close-windows.yml").read_text(encoding="utf-8")
    assert set(close["on"]) == {"schedule", "workflow_dispatch"}
    ((cron,),) = [[entry["cron"] for entry in close["on"]["schedule"]]]
    minute, hour, *rest = cron.split()
    assert rest == ["*", "*", "*"] and hour.isdigit(), cron  # daily
    assert minute.isdigit() and int(minute) not in (0, 30), cron  # off the hour
    assert close["concurrency"]["cancel-in-progress"] is False
    jobs = dict(_jobs(close))
    assert list(jobs) == ["plan", "rerun", "pins", "close"]
    assert jobs["plan"]["permissions"] == {"contents": "read"}
    # Adapter code runs, and filers' URLs are fetched, only where there is nothing to steal.
    assert jobs["rerun"]["permissions"] == {} and jobs["pins"]["permissions"] == {}
    for word in ("secrets.", "GITHUB_TOKEN", "CLAIMS_PUSH_TOKEN", "github.token", "environment"):
        assert word not in yaml.safe_dump(jobs["rerun"]), word
        assert word not in yaml.safe_dump(jobs["pins"]), word
        assert word not in yaml.safe_dump(jobs["plan"]), word
    assert jobs["pins"]["strategy"]["fail-fast"] is False
    assert "plan.outputs.pin_matrix" in jobs["pins"]["strategy"]["matrix"]
    pins_script = " ".join(str(step.get("run", "")) for step in jobs["pins"]["steps"])
    assert "--fetch-raw-logs --pin-results pin-results --keep-pins" in pins_script
    assert "pins" in jobs["close"]["needs"]
    assert jobs["rerun"]["strategy"]["fail-fast"] is False
    assert "plan.outputs.matrix" in jobs["rerun"]["strategy"]["matrix"]
    rerun_script = " ".join(str(step.get("run", "")) for step in jobs["rerun"]["steps"])
    assert "--rerun-adapters" in rerun_script and "--keep-rerun-failures" in rerun_script
    # The close job: the write scopes, the environment holding the secret, no adapter run.
    assert jobs["close"]["permissions"] == {
        "contents": "write",
        "issues": "write",
        "id-token": "write",
        "attestations": "write",
    }
    assert jobs["close"]["environment"] == "zenodo"
    close_script = " ".join(str(step.get("run", "")) for step in jobs["close"]["steps"])
    assert "--no-rerun-adapters --rerun-cache" in close_script
    assert "--pin-results" in close_script and "--fetch-raw-logs" not in close_script
    assert "--rerun-adapters " not in close_script.replace("--no-rerun-adapters", "")
    assert "--archive zenodo" in close_script and "--tarballs" in close_script
    uses = [str(step.get("uses", "")) for step in jobs["close"]["steps"]]
    assert any(use.startswith("actions/attest-build-provenance@") for use in uses)
    # Secrets only in the close job, and only through a step's env.
    assert text.count("secrets.") == 1
    in_env = [
        (name, key)
        for name, job in _jobs(close)
        for step in job.get("steps") or []
        for key, value in (step.get("env") or {}).items()
        if "secrets." in str(value)
    ]
    assert in_env == [("close", "ZENODO_TOKEN")]
    pushes = [
        name
        for name, job in _jobs(close)
        for step in job.get("steps") or []
        if "CLAIMS_PUSH_TOKEN" in (step.get("env") or {})
    ]
    assert pushes == ["close"]


def test_pages_builds_on_main_and_after_the_resolution_and_only_deploy_may_publish() -> None:
    pages = _workflow("pages.yml")
    text = (WORKFLOWS / "pages.yml").read_text(encoding="utf-8")
    assert set(pages["on"]) == {"push", "workflow_run", "workflow_dispatch"}
    assert pages["on"]["push"] == {"branches": ["main"]}
    assert pages["on"]["workflow_run"] == {"workflows": ["close-windows"], "types": ["completed"]}
    # the name it follows is the scheduled workflow's own name
    assert _workflow("close-windows.yml")["name"] == "close-windows"
    assert pages["concurrency"]["cancel-in-progress"] is False
    jobs = dict(_jobs(pages))
    assert list(jobs) == ["build", "deploy"]
    assert "head_branch == 'main'" in jobs["build"]["if"]
    # The build reads; only the deploy job publishes, and it runs no code of the repository.
    assert jobs["build"]["permissions"] == {"contents": "read"}
    assert jobs["deploy"]["permissions"] == {"pages": "write", "id-token": "write"}
    assert jobs["deploy"]["needs"] == ["build"]
    assert jobs["deploy"]["environment"]["name"] == "github-pages"
    [deploy] = jobs["deploy"]["steps"]
    assert str(deploy["uses"]).startswith("actions/deploy-pages@") and "run" not in deploy
    build_uses = [str(step.get("uses", "")) for step in jobs["build"]["steps"]]
    assert any(use.startswith("actions/upload-pages-artifact@") for use in build_uses)
    script = " ".join(str(step.get("run", "")) for step in jobs["build"]["steps"])
    assert 'claims" site --out "$RUNNER_TEMP/site"' in script
    for word in ("secrets.", "GITHUB_TOKEN", "github.token"):
        assert word not in text, word


def comment_runs_share_no_group(text: str, workflow: Workflow) -> list[str]:
    """For a workflow started by comments: no two comments' runs can share a concurrency group,
    and no group cancels a run in progress. GitHub cancels a group's *pending* run whenever
    another run joins the group, even with `cancel-in-progress: false`, and a workflow-level
    group is joined before any job's `if:` is read: so any group two comments can share (per
    PR, at the workflow or the job level) lets a later comment drop a queued /judge. Each
    group must be keyed on the comment's own id."""
    blocks = [("the workflow", workflow.get("concurrency"))] + [
        (f"job {name}", job.get("concurrency")) for name, job in _jobs(workflow)
    ]
    problems = []
    for where, block in blocks:
        if block is None:
            continue
        if isinstance(block, str):
            group, cancel = block, None
        else:
            group, cancel = str(block.get("group", "")), block.get("cancel-in-progress")
        if not re.search(r"\$\{\{\s*github\.event\.comment\.id\s*\}\}", group):
            problems.append(f"{where}: group {group!r} is shared by other comments' runs")
        if cancel is not False:
            problems.append(f"{where}: cancel-in-progress is {cancel!r}, expected false")
    return problems


# judge.yml's concurrency on 611a91f, and the obvious repair (the group moved to the job,
# behind its `if:`): a comment holding "/" (any URL) or another /judge still joins the group.
_JUDGE_SHARED_GROUPS = [
    "concurrency:\n  group: judge-${{ github.event.issue.number }}\n  cancel-in-progress: false\n",
    "jobs:\n  judge:\n    if: contains(github.event.comment.body, '/')\n    concurrency:\n"
    "      group: judge-${{ github.event.issue.number }}\n      cancel-in-progress: false\n",
    "concurrency:\n  group: judge-${{ github.event.comment.id }}\n  cancel-in-progress: true\n",
]


def test_no_comment_can_cancel_or_displace_a_maintainers_judge_run() -> None:
    """Item 8 of issue 21: judge.yml's group was per PR at the workflow level, so every later
    comment on the PR (any comment, any bot) joined it before the job's `if:` and cancelled a
    pending /judge run. Now every group in judge.yml is the comment's own."""
    judge = _workflow("judge.yml")
    assert set(judge["on"]) == {"issue_comment"}
    assert judge.get("concurrency") is not None  # zizmor's concurrency-limits wants one
    assert comment_runs_share_no_group("", judge) == []
    for snippet in _JUDGE_SHARED_GROUPS:
        assert comment_runs_share_no_group(snippet, _load(snippet)) != [], snippet


def test_verify_runs_of_two_pull_requests_on_one_commit_never_share_a_group() -> None:
    """Another PR on the same head commit (any fork can push it) must not replace this PR's
    pending verify run: GitHub cancels a group's pending run when another joins it. The group
    holds the head repository and branch (one open PR per head branch and base) and the SHA,
    or the dispatched PR's number."""
    group = str(_workflow("verify.yml")["concurrency"]["group"])
    for part in (
        "github.event.workflow_run.head_repository.full_name",
        "github.event.workflow_run.head_branch",
        "github.event.workflow_run.head_sha",
        "inputs.pr",
    ):
        assert part in group, part
    assert _workflow("verify.yml")["concurrency"]["cancel-in-progress"] is False


def test_every_job_has_a_timeout() -> None:
    for file in _workflow_files():
        for name, job in _jobs(_load(file.read_text(encoding="utf-8"))):
            assert isinstance(job.get("timeout-minutes"), int), f"{file.name}: {name}"


def test_the_docs_list_every_pinned_action() -> None:
    """docs/running-on-github.md's table names each action's release and commit as pinned."""
    docs = (PROJECT / "docs" / "running-on-github.md").read_text(encoding="utf-8")
    pins = set()
    for file in _workflow_files():
        for line in file.read_text(encoding="utf-8").splitlines():
            found = re.search(r"uses:\s+(\S+)@([0-9a-f]{40})\s+#\s+(v[\d.]+)", line)
            if found:
                pins.add(found.groups())
    assert pins
    missing = [pin for pin in sorted(pins) if f"| `{pin[0]}` | {pin[2]} | `{pin[1]}` |" not in docs]
    assert missing == []


# -- zizmor ----------------------------------------------------------------------------------


def _zizmor() -> str | None:
    beside = Path(sys.executable).with_name("zizmor")
    return str(beside) if beside.is_file() else shutil.which("zizmor")


def _run_zizmor(folder: Path) -> subprocess.CompletedProcess[str]:
    zizmor = _zizmor()
    if zizmor is None:
        pytest.skip("zizmor is not installed (pip install -e '.[test]')")
    return subprocess.run(
        [zizmor, "--offline", "--persona", "pedantic", "--no-progress", str(folder)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_zizmor_pedantic_finds_nothing() -> None:
    result = _run_zizmor(PROJECT / ".github")
    assert result.returncode == 0, result.stdout + result.stderr


def test_zizmor_would_see_an_unpinned_action(tmp_path: Path) -> None:
    folder = tmp_path / ".github" / "workflows"
    folder.mkdir(parents=True)
    (folder / "bad.yml").write_text(GOOD.replace(f"@{SHA} # v7.0.1", "@v7"), encoding="utf-8")
    result = _run_zizmor(tmp_path / ".github")
    assert result.returncode != 0
    assert "unpinned-uses" in result.stdout

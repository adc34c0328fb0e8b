"""A small local runner for .github/workflows/*.yml, for end-to-end tests of the workflows' glue.

It runs a workflow as GitHub's hosted runner would, on this machine:

- the trigger is checked against `on:` (event name, `types`, workflow_run's `workflows`, a push's
  `branches`, a pull request's `paths` against its three-dot diff, the schedule's cron); the
  workflow's `concurrency.group` is evaluated;
- jobs run in `needs` order; a job's `if:` is wrapped in `success()` unless it calls a status
  function, and success()/failure() look at every job it needs, transitively (GitHub skips a job
  whose ancestor was skipped unless its `if:` says otherwise); `strategy.matrix` (vectors,
  include, exclude; an empty vector fails the job) expands into legs run one after another;
- every `${{ }}` is evaluated by tests/workflows/expressions.py with only the contexts GitHub
  makes available at that key (a job-level `if:` cannot read `env` or `steps`, ...);
- a `run:` step is a script under `bash -e {0}` (no `shell:`: GitHub's default) or `bash
  --noprofile --norc -eo pipefail {0}` (`shell: bash`), in $GITHUB_WORKSPACE or its
  `working-directory`, with GitHub's default variables, $GITHUB_OUTPUT / $GITHUB_ENV /
  $GITHUB_PATH / $GITHUB_STEP_SUMMARY / $GITHUB_EVENT_PATH / $RUNNER_TEMP, and the workflow
  commands it prints (`::error::`, `::warning::`, `::stop-commands::`) read as GitHub does;
- `uses:` steps are local stand-ins (`ACTIONS`): checkout fetches from a local bare origin with
  the refspecs actions/checkout uses; setup-python puts this interpreter first on PATH; the
  artifact actions copy folders (hidden files left out, as v4.4+ and upload-pages-artifact v4+
  do; an artifact name is used once a run; a missing one fails its download);
  attest-build-provenance and the Pages actions check their inputs and the job's permissions
  (deploy-pages its environment). Any other action is refused;
- the bot's install lines (`INSTALLS`) are replaced by a venv built once per session from the
  worktree, so a job's setup costs nothing; any other `pip install` is refused;
- `sudo` is a stand-in that runs its command with sudo's reset environment (PATH, HOME of
  root's own, LANG, and the machine's clock); `apt-get` checks the packages are installed.

Steps run as this process's user (root here, not GitHub's `runner` user with sudo rights).
Each job's token is `job:WORKFLOW:JOB`, which the fake GitHub gives exactly that job's
`permissions:`. There is no internet: a test serves what a job downloads from a local server
and sets RUNNER_FETCH_ALLOWED_ADDRESSES in `machine_env` (machine_hook.py), or seeds a cache
with `prepare_job`. A new job needs nothing more from the runner unless it uses an action not
in ACTIONS or an install line not in INSTALLS, or a tool this machine lacks.
"""

from __future__ import annotations

import fnmatch
import itertools
import json
import os
import re
import shutil
import subprocess
import sys
import time
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from tests.workflows.expressions import (
    ExpressionError,
    evaluate,
    interpolate,
    is_status_check,
    to_string,
    truthy,
)

__all__ = [
    "ACTIONS",
    "INSTALLS",
    "Environment",
    "ExpressionError",
    "JobRun",
    "Runner",
    "RunnerError",
    "StepRun",
    "WorkflowRun",
]

WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
SERVER_URL = "https://github.com"
STEP_TIMEOUT_CAP = 300  # seconds: a test run never waits GitHub's hours
SECURE_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"


class RunnerError(Exception):
    """The workflow uses something the runner does not model, or is malformed."""


# Contexts GitHub makes available at each key (docs: "Context availability").
_JOB_IF = ("github", "needs", "vars", "inputs")
_JOB_NAME = ("github", "needs", "strategy", "matrix", "vars", "inputs")
_JOB_ENV = ("github", "needs", "strategy", "matrix", "vars", "secrets", "inputs")
_JOB_OUTPUTS = (
    *("github", "needs", "strategy", "matrix", "job", "runner", "env", "vars", "secrets"),
    *("steps", "inputs"),
)
_STEP_IF: tuple[str, ...] = (
    *("github", "needs", "strategy", "matrix", "job", "runner", "env", "vars", "steps", "inputs"),
)
_STEP = (*_STEP_IF, "secrets")

_WORKFLOW_KEYS = {"name", "on", "permissions", "concurrency", "jobs", "env", "defaults", "run-name"}
_JOB_KEYS = {
    *("name", "needs", "if", "runs-on", "timeout-minutes", "permissions", "outputs"),
    *("strategy", "steps", "environment", "env", "concurrency", "defaults", "continue-on-error"),
}
_STEP_KEYS = {
    *("name", "id", "if", "uses", "with", "run", "env", "shell", "working-directory"),
    *("timeout-minutes", "continue-on-error"),
}


@dataclass
class StepRun:
    name: str
    id: str | None
    outcome: str  # success, failure, skipped
    outputs: dict[str, str] = field(default_factory=dict)
    stdout: str = ""
    stderr: str = ""
    annotations: list[tuple[str, str]] = field(default_factory=list)  # (level, message)
    summary: str = ""
    seconds: float = 0.0


@dataclass
class JobRun:
    id: str
    name: str
    result: str  # success, failure, skipped
    outputs: dict[str, str] = field(default_factory=dict)
    steps: list[StepRun] = field(default_factory=list)
    matrix: dict[str, Any] = field(default_factory=dict)
    permissions: dict[str, str] = field(default_factory=dict)
    environment: str | None = None
    token: str = ""
    reason: str = ""  # why it failed outside a step, or was skipped

    def step(self, name_starts: str) -> StepRun:
        (found,) = [s for s in self.steps if s.name.startswith(name_starts)]
        return found

    def log(self) -> str:
        return "\n".join(
            f"## {s.name} [{s.outcome}, {s.seconds:.1f} s]\n{s.stdout}{s.stderr}"
            for s in self.steps
        )


@dataclass
class WorkflowRun:
    workflow: str
    event_name: str
    run_id: int
    concurrency: str | None
    jobs: dict[str, list[JobRun]]  # a matrix job's legs in order; a skipped job has one
    artifacts: Path
    pages: Path | None = None  # the site deploy-pages published

    @property
    def conclusion(self) -> str:
        results = {leg.result for legs in self.jobs.values() for leg in legs}
        return "failure" if "failure" in results else "success"

    def job(self, job_id: str) -> JobRun:
        (leg,) = self.jobs[job_id]
        return leg

    def results(self) -> dict[str, str]:
        """Each job's result (a matrix job's worst leg)."""
        out: dict[str, str] = {}
        for job_id, legs in self.jobs.items():
            found = {leg.result for leg in legs}
            out[job_id] = next(r for r in ("failure", "success", "skipped") if r in found)
        return out

    def timings(self) -> list[tuple[str, str, float]]:
        """(job, step, seconds) of every step that ran."""
        return [
            (leg.id, step.name, step.seconds)
            for legs in self.jobs.values()
            for leg in legs
            for step in leg.steps
        ]

    def explain(self) -> str:
        """Every job's result and, for a failed one, its log: for assertion messages."""
        parts = []
        for legs in self.jobs.values():
            for leg in legs:
                parts.append(f"# {leg.id} {leg.name}: {leg.result} {leg.reason}")
                if leg.result == "failure":
                    parts.append(leg.log()[-6000:])
        return "\n".join(parts)


@dataclass
class _Job:
    """What a running job's steps see."""

    run: WorkflowRun
    job: JobRun
    contexts: dict[str, Any]
    env: dict[str, str]  # the workflow's and job's env, then $GITHUB_ENV's
    path: list[str]  # $GITHUB_PATH entries, newest first
    folder: Path
    workspace: Path
    temp: Path
    home: Path
    root_home: Path
    tools: Path


# -- the bot's install lines, replaced by the session's venv ---------------------------------

# Each line of a `run:` script that installs the bot, and what the runner runs instead. The
# venv is built once per session (tests/workflows/conftest.py) from the worktree.
INSTALLS = {
    'python -m venv "$RUNNER_TEMP/bot"': 'ln -s "$RUNNER_BOT_VENV" "$RUNNER_TEMP/bot"',
    '"$RUNNER_TEMP/bot/bin/python" -m pip install --no-cache-dir .': ": the bot is installed",
    # check.yml installs the PR's own tree into the job's Python; its `claims` is then on PATH.
    "python -m pip install --no-cache-dir .": 'echo "$RUNNER_BOT_VENV/bin" >> "$GITHUB_PATH"',
}


def _substitute_installs(script: str) -> str:
    lines = []
    for line in script.split("\n"):
        stripped = line.strip()
        if stripped in INSTALLS:
            line = line.replace(stripped, INSTALLS[stripped])
        elif re.search(r"\bpip3?\b.*\binstall\b", stripped) and not stripped.startswith("#"):
            raise RunnerError(f"an install the runner has no stand-in for (INSTALLS): {line!r}")
        lines.append(line)
    return "\n".join(lines)


# -- the stand-ins for `uses:` ----------------------------------------------------------------

Action = Callable[["Runner", _Job, dict[str, str]], dict[str, str]]


def _inputs(given: dict[str, str], allowed: set[str], action: str) -> None:
    unknown = set(given) - allowed
    if unknown:
        raise RunnerError(f"{action}: inputs the stand-in does not model: {sorted(unknown)}")


def _git(cwd: Path, *args: str, env: Mapping[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args], cwd=cwd, capture_output=True, text=True, env=env, check=False
    )
    if done.returncode != 0:
        raise RunnerError(f"git {' '.join(args)} failed: {done.stderr.strip()}")
    return done.stdout.strip()


def _checkout(runner: Runner, job: _Job, given: dict[str, str]) -> dict[str, str]:
    """actions/checkout: the event's ref and sha from the origin, fetched as the action fetches
    them (fetch-depth 0: every branch and tag, then the commit; else the commit alone at that
    depth), then checked out (`-B branch` for a branch, detached for a pull request's merge)."""
    _inputs(given, {"persist-credentials", "fetch-depth"}, "actions/checkout")
    github = job.contexts["github"]
    ref, sha = github["ref"], github["sha"]
    depth = int(given.get("fetch-depth", "1"))
    ws = job.workspace
    env = {**os.environ, "HOME": str(job.home), "GIT_TERMINAL_PROMPT": "0"}
    _git(ws, "init", "-q", env=env)
    _git(ws, "remote", "add", "origin", runner.origin_url, env=env)
    if ref.startswith("refs/heads/"):
        branch = ref[len("refs/heads/") :]
        target = f"refs/remotes/origin/{branch}"
    elif ref.startswith("refs/pull/"):
        branch, target = "", f"refs/remotes/pull/{ref.split('/')[2]}/merge"
    else:
        raise RunnerError(f"actions/checkout stand-in: ref {ref} not modelled")
    fetch = ["-c", "protocol.version=2", "fetch", "--prune", "--no-recurse-submodules"]
    if depth == 0:
        _git(
            ws,
            *fetch,
            "origin",
            "+refs/heads/*:refs/remotes/origin/*",
            "+refs/tags/*:refs/tags/*",
            env=env,
        )
        _git(ws, *fetch, "origin", f"+{sha}:{target}", env=env)
    else:
        _git(ws, *fetch, "--no-tags", f"--depth={depth}", "origin", f"+{sha}:{target}", env=env)
    if branch:
        _git(ws, "checkout", "-q", "--force", "-B", branch, target, env=env)
    else:
        _git(ws, "checkout", "-q", "--force", target, env=env)
    if given.get("persist-credentials", "true") != "false":
        header = f"AUTHORIZATION: basic x-access-token:{job.job.token}"
        _git(ws, "config", "--local", f"http.{SERVER_URL}/.extraheader", header, env=env)
    return {"ref": ref, "commit": _git(ws, "rev-parse", "HEAD", env=env)}


def _setup_python(runner: Runner, job: _Job, given: dict[str, str]) -> dict[str, str]:
    """actions/setup-python: this interpreter (the version asked is only checked to be set)."""
    _inputs(given, {"python-version"}, "actions/setup-python")
    if not given.get("python-version"):
        raise RunnerError("actions/setup-python: no python-version")
    folder = job.folder / "python" / "bin"
    folder.mkdir(parents=True, exist_ok=True)
    for name in ("python", "python3"):
        (folder / name).unlink(missing_ok=True)
        (folder / name).symlink_to(sys.executable)
    job.path.insert(0, str(folder))
    return {"python-version": f"{sys.version_info.major}.{sys.version_info.minor}"}


def _matches(root: Path, pattern: str) -> list[Path]:
    pattern = pattern.strip()
    if not pattern:
        return []
    if any(c in pattern for c in "*?["):
        base = Path(pattern) if Path(pattern).is_absolute() else root / pattern
        anchor = Path(base.anchor)
        return sorted(anchor.glob(str(base.relative_to(anchor))))
    path = Path(pattern) if Path(pattern).is_absolute() else root / pattern
    return [path] if path.exists() else []


def _upload(runner: Runner, job: _Job, given: dict[str, str]) -> dict[str, str]:
    """actions/upload-artifact (v4+): files under their least common ancestor, hidden ones left
    out (v4.4+); an artifact name already used in this run is refused (they are immutable)."""
    _inputs(
        given,
        {
            "name",
            "path",
            "if-no-files-found",
            "retention-days",
            "overwrite",
            "include-hidden-files",
        },
        "actions/upload-artifact",
    )
    name = given.get("name") or "artifact"
    files: list[Path] = []
    for line in given.get("path", "").splitlines():
        for found in _matches(job.workspace, line):
            if found.is_dir():
                files += [p for p in found.rglob("*") if p.is_file() and _shown(p, found, given)]
            elif _shown(found, found.parent, given):
                files.append(found)
    if not files:
        mode = given.get("if-no-files-found", "warn")
        message = f"No files were found with the provided path: {given.get('path')}"
        if mode == "error":
            raise RunnerError(message)
        return {}
    target = job.run.artifacts / name
    if target.exists():
        raise RunnerError(f"an artifact named {name!r} was already uploaded in this run (409)")
    common = Path(os.path.commonpath([str(f.parent) for f in files]))
    for file in files:
        out = target / file.relative_to(common)
        out.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(file, out)
    return {"artifact-id": str(len(list(job.run.artifacts.iterdir())))}


def _shown(file: Path, root: Path, given: dict[str, str]) -> bool:
    """upload-artifact (v4.4+) leaves out hidden files and folders unless include-hidden-files."""
    if given.get("include-hidden-files", "false") == "true":
        return True
    return not any(part.startswith(".") for part in file.relative_to(root).parts)


def _download(runner: Runner, job: _Job, given: dict[str, str]) -> dict[str, str]:
    """actions/download-artifact (v4+): this run's artifacts only (no run-id, no token)."""
    _inputs(given, {"name", "pattern", "merge-multiple", "path"}, "actions/download-artifact")
    path = Path(given.get("path") or job.workspace)
    path = path if path.is_absolute() else job.workspace / path
    stored = (
        sorted(p.name for p in job.run.artifacts.iterdir()) if job.run.artifacts.exists() else []
    )
    if given.get("name"):
        if given["name"] not in stored:
            raise RunnerError(f"Artifact not found for name: {given['name']}")
        shutil.copytree(job.run.artifacts / given["name"], path, dirs_exist_ok=True)
        return {"download-path": str(path)}
    chosen = [n for n in stored if fnmatch.fnmatchcase(n, given.get("pattern") or "*")]
    merge = given.get("merge-multiple", "false") == "true"
    path.mkdir(parents=True, exist_ok=True)
    for name in chosen:
        shutil.copytree(
            job.run.artifacts / name, path if merge else path / name, dirs_exist_ok=True
        )
    return {"download-path": str(path)}


def _needs_permissions(job: _Job, action: str, *needed: str) -> None:
    missing = [p for p in needed if job.job.permissions.get(p) != "write"]
    if missing:
        raise RunnerError(f"{action}: the job's permissions lack {', '.join(missing)}: write")


def _attest(runner: Runner, job: _Job, given: dict[str, str]) -> dict[str, str]:
    """actions/attest-build-provenance: every subject path names existing files; the job may
    mint an OIDC token and write attestations. The subjects' digests are recorded."""
    _inputs(given, {"subject-path"}, "actions/attest-build-provenance")
    _needs_permissions(job, "attest-build-provenance", "id-token", "attestations")
    subjects = [
        p
        for line in given.get("subject-path", "").splitlines()
        for p in _matches(job.workspace, line)
    ]
    subjects = [p for p in subjects if p.is_file()]
    if not subjects:
        raise RunnerError(f"attest-build-provenance: no file matches {given.get('subject-path')!r}")
    import hashlib

    runner.attestations.append(
        {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in subjects}
    )
    number = len(runner.attestations)
    url = f"{SERVER_URL}/{runner.repository}/attestations/{number}"
    bundle = job.temp / f"attestation-{number}.jsonl"
    bundle.write_text("{}\n", encoding="utf-8")
    return {"attestation-id": str(number), "attestation-url": url, "bundle-path": str(bundle)}


def _upload_pages(runner: Runner, job: _Job, given: dict[str, str]) -> dict[str, str]:
    """actions/upload-pages-artifact (v5): the folder as `tar --dereference` packs it, without
    .git, .github and, unless include-hidden-files, any dotfile or dot-folder (v4+), stored as
    the `github-pages` artifact."""
    _inputs(given, {"path", "include-hidden-files"}, "actions/upload-pages-artifact")
    folder = Path(given.get("path", "_site"))
    folder = folder if folder.is_absolute() else job.workspace / folder
    if not folder.is_dir():
        raise RunnerError(f"upload-pages-artifact: {folder} is not a folder")
    hidden = given.get("include-hidden-files", "false") == "true"
    target = job.run.artifacts / "github-pages"
    if target.exists():
        raise RunnerError("an artifact named 'github-pages' was already uploaded in this run")
    for file in sorted(folder.rglob("*")):
        parts = file.relative_to(folder).parts
        if any(p in (".git", ".github") or (p.startswith(".") and not hidden) for p in parts):
            continue
        if file.is_file():  # a symlink is followed (--dereference)
            out = target / file.relative_to(folder)
            out.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(file, out)
    if not target.exists():
        raise RunnerError(f"upload-pages-artifact: nothing to upload in {folder}")
    return {"artifact_id": "1"}


def _deploy_pages(runner: Runner, job: _Job, given: dict[str, str]) -> dict[str, str]:
    """actions/deploy-pages: the run's `github-pages` artifact, by a job that may write Pages
    and mint an OIDC token, in an environment."""
    _inputs(given, set(), "actions/deploy-pages")
    _needs_permissions(job, "deploy-pages", "pages", "id-token")
    if job.job.environment is None:
        raise RunnerError("deploy-pages: the job names no environment (github-pages)")
    site = job.run.artifacts / "github-pages"
    if not site.is_dir():
        raise RunnerError("deploy-pages: no github-pages artifact in this run")
    job.run.pages = site
    owner, name = runner.repository.split("/")
    return {"page_url": f"https://{owner}.github.io/{name}/"}


ACTIONS: dict[str, Action] = {
    "actions/checkout": _checkout,
    "actions/setup-python": _setup_python,
    "actions/upload-artifact": _upload,
    "actions/download-artifact": _download,
    "actions/attest-build-provenance": _attest,
    "actions/upload-pages-artifact": _upload_pages,
    "actions/deploy-pages": _deploy_pages,
}


# -- workflow commands and files --------------------------------------------------------------


def _commands(stdout: str) -> tuple[list[tuple[str, str]], list[str]]:
    """The annotations GitHub reads from a step's output, honouring ::stop-commands::; and
    the commands it refuses (set-env, add-path: disabled since 2020)."""
    annotations: list[tuple[str, str]] = []
    refused: list[str] = []
    stopped: str | None = None
    for line in stdout.splitlines():
        if stopped is not None:
            if line.strip() == f"::{stopped}::":
                stopped = None
            continue
        match = re.match(r"^::([a-z-]+)(?: [^:]*)?::(.*)$", line.strip())
        if match is None:
            continue
        command, message = match.groups()
        if command == "stop-commands":
            stopped = message
        elif command in ("error", "warning", "notice"):
            annotations.append((command, message))
        elif command in ("set-env", "add-path", "set-output", "save-state"):
            refused.append(line)
    return annotations, refused


def _key_values(file: Path) -> dict[str, str]:
    """$GITHUB_OUTPUT / $GITHUB_ENV: `name=value` lines and `name<<DELIMITER` blocks."""
    values: dict[str, str] = {}
    if not file.exists():
        return values
    lines = file.read_text(encoding="utf-8").split("\n")
    at = 0
    while at < len(lines):
        line = lines[at]
        at += 1
        if not line:
            continue
        if "<<" in line and ("=" not in line or line.index("<<") < line.index("=")):
            name, delimiter = line.split("<<", 1)
            block: list[str] = []
            while at < len(lines) and lines[at] != delimiter:
                block.append(lines[at])
                at += 1
            if at >= len(lines):
                raise RunnerError(f"{file.name}: no closing {delimiter!r} for {name!r}")
            at += 1
            values[name] = "\n".join(block)
        elif "=" in line:
            name, value = line.split("=", 1)
            values[name] = value
        else:
            raise RunnerError(f"{file.name}: a line that is no name=value: {line!r}")
    return values


# -- the runner -----------------------------------------------------------------------------


@dataclass
class Environment:
    """A deployment environment: its secrets, and the branches allowed to deploy (None: any)."""

    secrets: dict[str, str] = field(default_factory=dict)
    branches: list[str] | None = None


@dataclass
class Runner:
    """Runs workflows against a local bare `origin`. `machine_env` is the machine's own
    environment beyond the default variables (e.g. the fake clock); `prepare_job(job_id,
    temp, home, root_home)` seeds a job's folders before its steps (the network's stand-in)."""

    folder: Path
    origin: Path
    venv: Path
    repository: str = "acme/registry"
    api_url: str = "https://api.github.com"
    default_branch: str = "main"
    secrets: dict[str, str] = field(default_factory=dict)
    vars: dict[str, str] = field(default_factory=dict)
    environments: dict[str, Environment] = field(default_factory=dict)
    machine_env: dict[str, str] = field(default_factory=dict)
    prepare_job: Callable[[str, Path, Path, Path], None] | None = None
    # Told each job's token and `permissions:` before its steps (a fake GitHub that checks
    # what a token may call can learn them here).
    on_token: Callable[[str, dict[str, str]], None] | None = None
    actor: str = "octocat"
    runs: list[WorkflowRun] = field(default_factory=list)
    attestations: list[dict[str, str]] = field(default_factory=list)
    ids: Any = field(default_factory=lambda: itertools.count(9001))

    @property
    def origin_url(self) -> str:
        return self.origin.resolve().as_uri()

    # -- events ---------------------------------------------------------------------------

    def repository_payload(self) -> dict[str, Any]:
        owner, name = self.repository.split("/")
        return {
            "full_name": self.repository,
            "name": name,
            "owner": {"login": owner, "type": "Organization"},
            "default_branch": self.default_branch,
            "private": False,
        }

    def _ref_sha(self, ref: str) -> str:
        return _git(self.origin, "rev-parse", f"{ref}^{{commit}}")

    # -- running ---------------------------------------------------------------------------

    def run(
        self,
        workflow: str | Path,
        event_name: str,
        event: dict[str, Any],
        *,
        ref: str | None = None,
        inputs: dict[str, Any] | None = None,
    ) -> WorkflowRun:
        """Run `.github/workflows/<workflow>` (or the workflow file `workflow`) for an event
        (its payload as GitHub sends it)."""
        file = workflow if isinstance(workflow, Path) else WORKFLOWS / workflow
        workflow = file.name
        data = yaml.safe_load(file.read_text(encoding="utf-8"))
        on = data.get("on", data.get(True))
        unknown = set(data) - _WORKFLOW_KEYS - {True}
        if unknown:
            raise RunnerError(f"{workflow}: workflow keys not modelled: {sorted(unknown)}")
        self._check_trigger(workflow, on, event_name, event, ref)
        run_id = next(self.ids)
        folder = self.folder / f"run-{run_id}"
        folder.mkdir(parents=True)
        event_path = folder / "event.json"
        event_path.write_text(json.dumps(event), encoding="utf-8")
        github = self._github(workflow, data, event_name, event, ref, run_id, event_path)
        typed_inputs = self._inputs(on, event_name, inputs or {})
        run = WorkflowRun(workflow, event_name, run_id, None, {}, folder / "artifacts")
        base = {"github": github, "inputs": typed_inputs, "vars": dict(self.vars)}
        concurrency = data.get("concurrency")
        if isinstance(concurrency, dict):
            run.concurrency = to_string(interpolate(concurrency.get("group"), base))
        elif concurrency is not None:
            run.concurrency = to_string(interpolate(concurrency, base))
        jobs: dict[str, Any] = data["jobs"]
        for job_id in self._order(jobs):
            run.jobs[job_id] = self._run_job(run, data, jobs, job_id, base, folder)
        self.runs.append(run)
        return run

    def _check_trigger(
        self, workflow: str, on: Any, event_name: str, event: dict[str, Any], ref: str | None
    ) -> None:
        triggers = {on: None} if isinstance(on, str) else on
        if isinstance(triggers, list):
            triggers = dict.fromkeys(triggers)
        if event_name not in triggers:
            raise RunnerError(f"{workflow} is not started by {event_name} (on: {sorted(triggers)})")
        spec = triggers[event_name] or {}
        types = spec.get("types") if isinstance(spec, dict) else None
        if event_name == "pull_request" and not types:
            types = ["opened", "synchronize", "reopened"]  # GitHub's default activity types
        if types and event.get("action") not in types:
            raise RunnerError(
                f"{workflow}: {event_name} of type {event.get('action')} not in {types}"
            )
        if event_name == "schedule":
            crons = [entry.get("cron") for entry in (spec if isinstance(spec, list) else [])]
            if event.get("schedule") not in crons:
                raise RunnerError(f"{workflow}: no schedule {event.get('schedule')!r} ({crons})")
        if event_name == "workflow_run":
            name = event["workflow_run"]["name"]
            if name not in spec.get("workflows", []):
                raise RunnerError(f"{workflow}: not started by a run of {name!r}")
        if event_name == "push" and spec.get("branches"):
            branch = (ref or "").removeprefix("refs/heads/")
            if not any(fnmatch.fnmatchcase(branch, b) for b in spec["branches"]):
                raise RunnerError(f"{workflow}: no push trigger for branch {branch}")
        if event_name == "pull_request" and isinstance(spec, dict) and spec.get("paths"):
            pull = event["pull_request"]
            changed = _git(
                self.origin,
                "diff",
                "--name-only",
                f"refs/heads/{pull['base']['ref']}...{pull['head']['sha']}",
            ).splitlines()
            patterns = [_glob(p) for p in spec["paths"]]
            if not any(p.fullmatch(name) for p in patterns for name in changed):
                raise RunnerError(f"{workflow}: not started, no changed file matches its paths")

    def _inputs(self, on: Any, event_name: str, given: dict[str, Any]) -> dict[str, Any]:
        if event_name != "workflow_dispatch":
            return {}
        declared = (
            ((on.get("workflow_dispatch") or {}).get("inputs") or {})
            if isinstance(on, dict)
            else {}
        )
        unknown = set(given) - set(declared)
        if unknown:
            raise RunnerError(f"workflow_dispatch: undeclared inputs {sorted(unknown)} (422)")
        typed: dict[str, Any] = {}
        for name, spec in declared.items():
            if name not in given:
                if spec.get("required") and "default" not in spec:
                    raise RunnerError(f"workflow_dispatch: required input {name!r} missing (422)")
                given_value = spec.get("default", "")
            else:
                given_value = given[name]
            kind = spec.get("type", "string")
            if kind == "number":
                try:
                    typed[name] = float(given_value)
                except ValueError as error:
                    raise RunnerError(f"input {name}: not a number: {given_value!r}") from error
            elif kind == "boolean":
                typed[name] = str(given_value).lower() == "true"
            else:
                typed[name] = str(given_value)
        return typed

    def _github(
        self,
        workflow: str,
        data: dict[str, Any],
        event_name: str,
        event: dict[str, Any],
        ref: str | None,
        run_id: int,
        event_path: Path,
    ) -> dict[str, Any]:
        base_ref = head_ref = ""
        if event_name in ("pull_request", "pull_request_target"):
            number = event["pull_request"]["number"]
            ref = f"refs/pull/{number}/merge"
            base_ref = event["pull_request"]["base"]["ref"]
            head_ref = event["pull_request"]["head"]["ref"]
        elif event_name in ("workflow_dispatch", "push"):
            ref = ref or f"refs/heads/{self.default_branch}"
        else:  # workflow_run, issue_comment, schedule: the default branch
            ref = f"refs/heads/{self.default_branch}"
        sha = self._ref_sha(ref)
        owner = self.repository.split("/")[0]
        return {
            "event": event,
            "event_name": event_name,
            "event_path": str(event_path),
            "ref": ref,
            "ref_name": ref.split("/", 2)[2] if ref.startswith("refs/heads/") else ref[5:],
            "ref_type": "branch",
            "sha": sha,
            "base_ref": base_ref,
            "head_ref": head_ref,
            "repository": self.repository,
            "repository_owner": owner,
            "repositoryUrl": f"git://github.com/{self.repository}.git",
            "run_id": str(run_id),
            "run_number": str(run_id - 9000),
            "run_attempt": "1",
            "actor": self.actor,
            "triggering_actor": self.actor,
            "workflow": data.get("name", workflow),
            "server_url": SERVER_URL,
            "api_url": self.api_url,
            "graphql_url": self.api_url.rsplit("/", 1)[0] + "/graphql",
            "retention_days": "90",
        }

    @staticmethod
    def _order(jobs: dict[str, Any]) -> list[str]:
        order: list[str] = []
        visiting: set[str] = set()

        def visit(job_id: str) -> None:
            if job_id in order:
                return
            if job_id in visiting:
                raise RunnerError(f"a cycle of needs through {job_id}")
            if job_id not in jobs:
                raise RunnerError(f"needs names no job {job_id!r}")
            visiting.add(job_id)
            for need in _needs(jobs[job_id]):
                visit(need)
            order.append(job_id)

        for job_id in jobs:
            visit(job_id)
        return order

    def _ancestors(self, jobs: dict[str, Any], job_id: str) -> set[str]:
        found: set[str] = set()
        stack = list(_needs(jobs[job_id]))
        while stack:
            need = stack.pop()
            if need not in found:
                found.add(need)
                stack += _needs(jobs[need])
        return found

    def _run_job(
        self,
        run: WorkflowRun,
        data: dict[str, Any],
        jobs: dict[str, Any],
        job_id: str,
        base: dict[str, Any],
        folder: Path,
    ) -> list[JobRun]:
        spec = jobs[job_id]
        unknown = set(spec) - _JOB_KEYS
        if unknown or "uses" in spec:
            raise RunnerError(f"job {job_id}: keys not modelled: {sorted(unknown)}")
        results = run.results()
        needs = {
            need: {"result": results[need], "outputs": _merged_outputs(run.jobs[need])}
            for need in _needs(spec)
        }
        ancestors = [results[a] for a in self._ancestors(jobs, job_id)]
        status = {
            "success": lambda: all(r == "success" for r in ancestors),
            "failure": lambda: any(r == "failure" for r in ancestors),
            "always": lambda: True,
            "cancelled": lambda: False,
        }
        contexts = {**base, "needs": needs}
        condition = spec.get("if", "success()")
        condition = condition if isinstance(condition, str) else json.dumps(condition)
        visible = {k: contexts[k] for k in _JOB_IF}
        if not is_status_check(condition):
            condition = f"success() && ({_strip_braces(condition)})"
        if not truthy(evaluate(condition, visible, status)):
            # GitHub shows a skipped job's name unevaluated (no matrix exists for it)
            name = str(spec.get("name", job_id))
            return [JobRun(job_id, name, "skipped", reason=f"if: {spec.get('if', 'success()')}")]
        if not str(spec.get("runs-on", "")).startswith("ubuntu"):
            raise RunnerError(f"job {job_id}: runs-on {spec.get('runs-on')!r} is not modelled")
        legs = self._legs(spec, contexts, job_id)
        if isinstance(legs, str):
            return [JobRun(job_id, job_id, "failure", reason=legs)]
        out = []
        for index, leg in enumerate(legs):
            strategy = {
                "fail-fast": bool((spec.get("strategy") or {}).get("fail-fast", True)),
                "job-index": index,
                "job-total": len(legs),
                "max-parallel": len(legs),
            }
            leg_contexts = {**contexts, "matrix": leg, "strategy": strategy}
            out.append(
                self._run_leg(run, data, spec, job_id, leg_contexts, folder / f"{job_id}-{index}")
            )
        return out

    def _legs(
        self, spec: dict[str, Any], contexts: dict[str, Any], job_id: str
    ) -> list[dict[str, Any]] | str:
        strategy = spec.get("strategy")
        if not strategy:
            return [{}]
        matrix = interpolate(
            strategy.get("matrix"), _pick(contexts, ("github", "needs", "vars", "inputs"), {})
        )
        if not isinstance(matrix, dict):
            return f"the matrix of {job_id} is not an object: {matrix!r}"
        include = matrix.pop("include", []) or []
        exclude = matrix.pop("exclude", []) or []
        for key, vector in matrix.items():
            if not isinstance(vector, list) or not vector:
                return f"Matrix vector '{key}' does not contain any values"
        legs = (
            [
                dict(zip(matrix, values, strict=True))
                for values in itertools.product(*matrix.values())
            ]
            if matrix
            else []
        )
        legs = [
            leg
            for leg in legs
            if not any(all(leg.get(k) == v for k, v in ex.items()) for ex in exclude)
        ]
        # GitHub: an include object extends each original combination none of whose original
        # values it would overwrite; one that extends none is a combination of its own.
        original = list(legs)
        for extra in include:
            fits = [
                leg
                for leg in original
                if all(leg.get(k) == v for k, v in extra.items() if k in matrix)
            ]
            for leg in fits:
                leg.update({k: v for k, v in extra.items() if k not in matrix})
            if not fits:
                legs.append(dict(extra))
        if not legs:
            return f"the matrix of {job_id} has no combination"
        if len(legs) > 256:
            return f"the matrix of {job_id} has {len(legs)} jobs (GitHub's maximum is 256)"
        return legs

    def _run_leg(
        self,
        run: WorkflowRun,
        data: dict[str, Any],
        spec: dict[str, Any],
        job_id: str,
        contexts: dict[str, Any],
        folder: Path,
    ) -> JobRun:
        permissions = spec.get("permissions", data.get("permissions", {})) or {}
        if not isinstance(permissions, dict):
            raise RunnerError(f"job {job_id}: permissions {permissions!r} not modelled")
        # The fake GitHub (tests/github/fakehub.py) gives a token `job:WORKFLOW:JOB` exactly that
        # job's `permissions:`, as GitHub gives its GITHUB_TOKEN.
        token = f"job:{run.workflow}:{job_id}"
        name = to_string(interpolate(spec.get("name", job_id), _pick(contexts, _JOB_NAME, {})))
        job = JobRun(
            job_id,
            name,
            "success",
            matrix=contexts["matrix"],
            permissions=dict(permissions),
            token=token,
        )
        environment = spec.get("environment")
        env_name = environment.get("name") if isinstance(environment, dict) else environment
        secrets = {"GITHUB_TOKEN": token, **self.secrets}
        if env_name is not None:
            job.environment = to_string(interpolate(env_name, _pick(contexts, _JOB_NAME, {})))
            deployment = self.environments.get(job.environment, Environment())
            branch = contexts["github"]["ref"].removeprefix("refs/heads/")
            if deployment.branches is not None and branch not in deployment.branches:
                job.result = "failure"
                job.reason = f"Branch {branch} is not allowed to deploy to {job.environment}"
                return job
            secrets.update(deployment.secrets)
        github = {**contexts["github"], "token": token, "job": job_id}
        workspace = folder / "work" / self.repository.split("/")[1]
        temp, home, root_home, tools = (folder / n for n in ("temp", "home", "root-home", "tools"))
        for made in (workspace, temp, home, root_home, tools):
            made.mkdir(parents=True, exist_ok=True)
        github["workspace"] = str(workspace)
        self._tools(tools, root_home)
        if self.prepare_job is not None:
            self.prepare_job(job_id, temp, home, root_home)
        if self.on_token is not None:
            self.on_token(token, dict(job.permissions))
        runner_ctx = {
            "os": "Linux",
            "arch": "X64",
            "name": "local",
            "temp": str(temp),
            "tool_cache": str(folder / "toolcache"),
            "environment": "github-hosted",
            "debug": "",
        }
        contexts = {
            **contexts,
            "github": github,
            "secrets": secrets,
            "runner": runner_ctx,
            "job": {"status": "success"},
            "steps": {},
        }
        env: dict[str, str] = {}
        for source, allowed in (
            (data.get("env") or {}, ("github", "secrets", "inputs", "vars")),
            (spec.get("env") or {}, _JOB_ENV),
        ):
            for key, value in source.items():
                env[key] = to_string(interpolate(value, _pick(contexts, allowed, {})))
        state = _Job(
            run,
            job,
            {**contexts, "env": dict(env)},
            env,
            [],
            folder,
            workspace,
            temp,
            home,
            root_home,
            tools,
        )
        for index, step in enumerate(spec.get("steps", [])):
            job.steps.append(self._step(state, spec, step, index))
            if job.steps[-1].outcome == "failure" and not step.get("continue-on-error"):
                job.result = "failure"
                state.contexts["job"] = {"status": "failure"}
        outputs_ctx = _pick(state.contexts, _JOB_OUTPUTS, {"env": state.env})
        for key, value in (spec.get("outputs") or {}).items():
            job.outputs[key] = to_string(interpolate(value, outputs_ctx))
        if isinstance(environment, dict) and "url" in environment:
            interpolate(environment["url"], outputs_ctx)  # must evaluate
        return job

    def _tools(self, tools: Path, root_home: Path) -> None:
        """sudo and apt-get stand-ins on the job's PATH (the machine's own tools)."""
        clock = " ".join(f"{k}={_sh(v)}" for k, v in self.machine_env.items())
        sudo = tools / "sudo"
        sudo.write_text(
            "#!/bin/bash\n# sudo's reset environment: secure_path, root's HOME, no caller env\n"
            f"exec env -i PATH={_sh(str(tools) + ':' + SECURE_PATH)} HOME={_sh(str(root_home))} "
            f'LANG=C.UTF-8 {clock} "$@"\n',
            encoding="utf-8",
        )
        apt = tools / "apt-get"
        apt.write_text(
            "#!/bin/bash\n# no network: `install` only checks the packages are on this machine\n"
            'set -e\nif [ "$1" = update ]; then exit 0; fi\n'
            'for p in "$@"; do case "$p" in -*|install) ;; *)\n'
            '  dpkg -s "$p" >/dev/null 2>&1 || { echo "apt-get stand-in: $p is not installed'
            ' on this machine" >&2; exit 100; } ;; esac; done\n',
            encoding="utf-8",
        )
        for tool in (sudo, apt):
            tool.chmod(0o755)

    def _step(self, job: _Job, spec: dict[str, Any], step: dict[str, Any], index: int) -> StepRun:
        unknown = set(step) - _STEP_KEYS
        if unknown:
            raise RunnerError(f"step {step.get('name')}: keys not modelled: {sorted(unknown)}")
        step_id = step.get("id")
        name_ctx = _pick(job.contexts, _STEP, {"env": job.env})
        label = step.get("name") or step.get("uses") or (step.get("run") or "").split("\n")[0]
        name = to_string(interpolate(label, name_ctx))
        failed = job.job.result == "failure"
        status = {
            "success": lambda: not failed,
            "failure": lambda: failed,
            "always": lambda: True,
            "cancelled": lambda: False,
        }
        condition = step.get("if", "success()")
        condition = condition if isinstance(condition, str) else json.dumps(condition)
        if not is_status_check(condition):
            condition = f"success() && ({_strip_braces(condition)})"
        visible = _pick(job.contexts, _STEP_IF, {"env": job.env})
        if not truthy(evaluate(condition, visible, status)):
            ran = StepRun(name, step_id, "skipped")
        else:
            step_ctx = _pick(job.contexts, _STEP, {"env": job.env})
            step_env = {
                k: to_string(interpolate(v, step_ctx)) for k, v in (step.get("env") or {}).items()
            }
            started = time.monotonic()
            try:
                if "uses" in step:
                    ran = self._uses(job, step, name, step_id, step_ctx)
                else:
                    ran = self._script(job, spec, step, name, step_id, step_ctx, step_env, index)
            except RunnerError as error:
                ran = StepRun(name, step_id, "failure", stderr=f"{error}\n")
            ran.seconds = time.monotonic() - started
        if step_id:
            job.contexts["steps"][step_id] = {
                "outputs": dict(ran.outputs),
                "outcome": ran.outcome,
                "conclusion": "success" if step.get("continue-on-error") else ran.outcome,
            }
        return ran

    def _uses(
        self, job: _Job, step: dict[str, Any], name: str, step_id: str | None, ctx: dict[str, Any]
    ) -> StepRun:
        uses = str(step["uses"])
        action, _, version = uses.partition("@")
        if action not in ACTIONS:
            raise RunnerError(f"no stand-in for the action {uses} (ACTIONS)")
        if not re.fullmatch(r"[0-9a-f]{40}", version):
            raise RunnerError(f"{uses}: not pinned to a commit")
        given = {k: to_string(interpolate(v, ctx)) for k, v in (step.get("with") or {}).items()}
        outputs = ACTIONS[action](self, job, given)
        return StepRun(name, step_id, "success", outputs=outputs)

    def _script(
        self,
        job: _Job,
        spec: dict[str, Any],
        step: dict[str, Any],
        name: str,
        step_id: str | None,
        ctx: dict[str, Any],
        step_env: dict[str, str],
        index: int,
    ) -> StepRun:
        script = _substitute_installs(to_string(interpolate(step["run"], ctx)))
        shell = step.get("shell") or ((spec.get("defaults") or {}).get("run") or {}).get("shell")
        if shell is None:
            command = ["bash", "-e", "{0}"]  # GitHub's default on Linux, without pipefail
        elif shell == "bash":
            command = ["bash", "--noprofile", "--norc", "-eo", "pipefail", "{0}"]
        else:
            raise RunnerError(f"shell {shell!r} is not modelled")
        files = job.folder / "files" / str(index)
        files.mkdir(parents=True, exist_ok=True)
        script_file = job.temp / f"step-{index}.sh"
        script_file.write_text(script, encoding="utf-8")
        output, env_file, path_file, summary = (
            files / n for n in ("output", "env", "path", "summary")
        )
        for made in (output, env_file, path_file, summary):
            made.write_text("", encoding="utf-8")
        cwd = job.workspace
        if step.get("working-directory"):
            cwd = job.workspace / to_string(interpolate(step["working-directory"], ctx))
        env = self._environment(job, step_env, output, env_file, path_file, summary, index)
        timeout = min(float(step.get("timeout-minutes", 360)) * 60, STEP_TIMEOUT_CAP)
        done = subprocess.run(
            [c.replace("{0}", str(script_file)) for c in command],
            cwd=cwd,
            env=env,
            capture_output=True,
            text=True,
            timeout=timeout,
            check=False,
            stdin=subprocess.DEVNULL,
        )
        annotations, refused = _commands(done.stdout)
        ran = StepRun(
            name,
            step_id,
            "success" if done.returncode == 0 else "failure",
            outputs=_key_values(output),
            stdout=done.stdout,
            stderr=done.stderr + (f"exit code {done.returncode}\n" if done.returncode else ""),
            annotations=annotations,
            summary=summary.read_text(encoding="utf-8"),
        )
        if refused:
            ran.outcome = "failure"
            ran.stderr += f"workflow commands GitHub refuses: {refused}\n"
        job.env.update(_key_values(env_file))
        for line in reversed(path_file.read_text(encoding="utf-8").splitlines()):
            if line.strip():
                job.path.insert(0, line.strip())
        return ran

    def _environment(
        self,
        job: _Job,
        step_env: dict[str, str],
        output: Path,
        env_file: Path,
        path_file: Path,
        summary: Path,
        index: int,
    ) -> dict[str, str]:
        github = job.contexts["github"]
        defaults = {
            "CI": "true",
            "GITHUB_ACTIONS": "true",
            "GITHUB_WORKFLOW": github["workflow"],
            "GITHUB_RUN_ID": github["run_id"],
            "GITHUB_RUN_NUMBER": github["run_number"],
            "GITHUB_RUN_ATTEMPT": "1",
            "GITHUB_JOB": job.job.id,
            "GITHUB_ACTION": f"__run_{index}",
            "GITHUB_ACTOR": github["actor"],
            "GITHUB_REPOSITORY": self.repository,
            "GITHUB_REPOSITORY_OWNER": github["repository_owner"],
            "GITHUB_EVENT_NAME": github["event_name"],
            "GITHUB_EVENT_PATH": github["event_path"],
            "GITHUB_WORKSPACE": str(job.workspace),
            "GITHUB_SHA": github["sha"],
            "GITHUB_REF": github["ref"],
            "GITHUB_REF_NAME": github["ref_name"],
            "GITHUB_REF_TYPE": "branch",
            "GITHUB_HEAD_REF": github["head_ref"],
            "GITHUB_BASE_REF": github["base_ref"],
            "GITHUB_SERVER_URL": SERVER_URL,
            "GITHUB_API_URL": self.api_url,
            "GITHUB_GRAPHQL_URL": github["graphql_url"],
            "GITHUB_OUTPUT": str(output),
            "GITHUB_ENV": str(env_file),
            "GITHUB_PATH": str(path_file),
            "GITHUB_STEP_SUMMARY": str(summary),
            "GITHUB_STATE": str(output.with_name("state")),
            "RUNNER_OS": "Linux",
            "RUNNER_ARCH": "X64",
            "RUNNER_NAME": "local",
            "RUNNER_TEMP": str(job.temp),
            "RUNNER_TOOL_CACHE": str(job.folder / "toolcache"),
            "RUNNER_WORKSPACE": str(job.workspace.parent),
            "RUNNER_BOT_VENV": str(self.venv),
            "HOME": str(job.home),
            "LANG": "C.UTF-8",
        }
        path = ":".join([*job.path, str(job.tools), os.environ.get("PATH", SECURE_PATH)])
        return {
            **defaults,
            **self.machine_env,
            **job.env,
            **step_env,
            **defaults_locked(defaults),
            "PATH": path,
        }


def defaults_locked(defaults: dict[str, str]) -> dict[str, str]:
    """GitHub's own GITHUB_* and RUNNER_* variables cannot be overridden by env or GITHUB_ENV."""
    return {k: v for k, v in defaults.items() if k.startswith(("GITHUB_", "RUNNER_"))}


def _glob(pattern: str) -> re.Pattern[str]:
    """A workflow path filter: `**` crosses folders, `*` and `?` do not."""
    out = ""
    at = 0
    while at < len(pattern):
        if pattern.startswith("**", at):
            out, at = out + ".*", at + 2
        elif pattern[at] == "*":
            out, at = out + "[^/]*", at + 1
        elif pattern[at] == "?":
            out, at = out + "[^/]", at + 1
        else:
            out, at = out + re.escape(pattern[at]), at + 1
    return re.compile(out)


def _needs(spec: dict[str, Any]) -> list[str]:
    needs = spec.get("needs") or []
    return [needs] if isinstance(needs, str) else list(needs)


def _merged_outputs(legs: list[JobRun]) -> dict[str, str]:
    merged: dict[str, str] = {}
    for leg in legs:
        merged.update({k: v for k, v in leg.outputs.items() if v != ""} if merged else leg.outputs)
    return merged


def _pick(
    contexts: dict[str, Any], names: tuple[str, ...], extra: dict[str, Any]
) -> dict[str, Any]:
    picked = {n: contexts[n] for n in names if n in contexts}
    picked.update({k: v for k, v in extra.items() if k in names})
    return picked


def _strip_braces(text: str) -> str:
    stripped = text.strip()
    if stripped.startswith("${{") and stripped.endswith("}}"):
        return stripped[3:-2]
    return stripped


def _sh(text: str) -> str:
    return "'" + text.replace("'", "'\\''") + "'"

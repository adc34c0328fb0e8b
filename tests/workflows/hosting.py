"""The git side of the fake GitHub for the workflow runner: a bare origin made from a registry
the tests built, the refs GitHub keeps for pull requests, commits the contents API makes, and
the event payloads GitHub sends (octokit's examples, tests/github/events/, filled in)."""

from __future__ import annotations

import hashlib
import json
import os
import subprocess
from collections.abc import Callable, Collection
from dataclasses import replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import yaml

from bot.faces.demo.git_registry import WEB_FLOW_COMMITTER
from bot.faces.demo.specimen import RELEASED, AttemptSpec, attempt_files
from tests.github.fakehub import FakeHub
from tests.workflows.runner import Runner, WorkflowRun

PROJECT = Path(__file__).resolve().parents[2]
EVENTS = PROJECT / "tests" / "github" / "events"


def git(cwd: Path, *args: str, env: dict[str, str] | None = None) -> str:
    done = subprocess.run(
        ["git", *args],
        cwd=cwd,
        capture_output=True,
        text=True,
        check=True,
        env={**os.environ, **(env or {})},
    )
    return done.stdout.strip()


def workflow_files() -> dict[str, bytes]:
    """The registry's .github folder (workflows and their scripts), as main carries it."""
    folder = PROJECT / ".github"
    return {
        f".github/{path.relative_to(folder).as_posix()}": path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def bare_origin(registry: Path, origin: Path) -> Path:
    """A bare clone of `registry` as GitHub hosts it: main and tags only (the merged pull
    requests' branches gone), fetchable by commit id as GitHub allows."""
    subprocess.run(
        ["git", "clone", "--quiet", "--bare", str(registry), str(origin)],
        check=True,
        capture_output=True,
    )
    git(origin, "config", "uploadpack.allowAnySHA1InWant", "true")
    for branch in git(origin, "for-each-ref", "--format=%(refname)", "refs/heads/").splitlines():
        if branch != "refs/heads/main":
            git(origin, "update-ref", "-d", branch)
    return origin


def open_pull(origin: Path, number: int, head: str, source: Path | None = None) -> str:
    """GitHub's refs of pull request `number` at `head`: refs/pull/N/head, and refs/pull/N/merge
    (the test merge into main that a pull_request run checks out). `source` is a repository
    holding `head` (a fork). Returns the merge commit's id."""
    if source is not None:
        git(origin, "fetch", "--quiet", str(source), f"+{head}:refs/pull/{number}/head")
    else:
        git(origin, "update-ref", f"refs/pull/{number}/head", head)
    tree = git(origin, "merge-tree", "--write-tree", "main", head).splitlines()[0]
    merge = git(
        origin,
        "commit-tree",
        tree,
        "-p",
        "main",
        "-p",
        head,
        "-m",
        f"Merge {head} into main",
        env={
            **WEB_FLOW_COMMITTER,
            "GIT_AUTHOR_NAME": "GitHub",
            "GIT_AUTHOR_EMAIL": "noreply@github.com",
        },
    )
    git(origin, "update-ref", f"refs/pull/{number}/merge", merge)
    return merge


def land_on_main(origin: Path, scratch: Path) -> Callable[[dict[str, Any]], None]:
    """fakehub's on_commit: a contents-API commit made on origin's main by GitHub's web flow."""

    def land(commit: dict[str, Any]) -> None:
        env = {"GIT_INDEX_FILE": str(scratch / "index"), **WEB_FLOW_COMMITTER}
        env.update(GIT_AUTHOR_NAME="github-actions[bot]", GIT_AUTHOR_EMAIL="actions@github.invalid")
        (scratch / "index").unlink(missing_ok=True)
        git(origin, "read-tree", "main", env=env)
        for path, content in commit["files"].items():
            blob = scratch / "blob"
            blob.write_bytes(content)
            sha = git(origin, "hash-object", "-w", str(blob))
            git(origin, "update-index", "--add", "--cacheinfo", f"100644,{sha},{path}", env=env)
        tree = git(origin, "write-tree", env=env)
        made = git(origin, "commit-tree", tree, "-p", "main", "-m", commit["message"], env=env)
        git(origin, "update-ref", "refs/heads/main", made)

    scratch.mkdir(parents=True, exist_ok=True)
    return land


def merged_pulls(hub: FakeHub, origin: Path, author: str) -> None:
    """GitHub's view of main's history: each merge commit its web flow made on main's
    first-parent line merged a pull request by `author`."""
    lines = git(origin, "log", "--first-parent", "--format=%H %P|%ce|%ct", "main").splitlines()
    for number, line in enumerate(lines, start=100):
        ids, email, when = line.split("|")
        commit, *parents = ids.split()
        if len(parents) == 2 and email == "noreply@github.com":
            merged_at = datetime.fromtimestamp(int(when), UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
            hub.repo.add_pull(
                number,
                author,
                parents[1],
                state="closed",
                merged_at=merged_at,
                merge_commit_sha=commit,
            )
            hub.repo.commit_pulls[commit] = [number]


# Where the specimen's attempts say their evidence lives (bot/faces/demo/specimen.py).
EVIDENCE_HOSTS = ("https://evidence.example.org/", "https://papers.example.org/")
LOCAL_ADDRESSES = "127.0.0.1,::1"  # RUNNER_FETCH_ALLOWED_ADDRESSES (machine_hook.py)


def local_url(url: str, base: str) -> str:
    """`url` on the test's evidence server `base` instead of the specimen's host."""
    for host in EVIDENCE_HOSTS:
        if url.startswith(host):
            return f"{base}/{host.split('//')[1].split('.')[0]}/{url[len(host) :]}"
    return url


def local_evidence(base: str) -> Callable[[dict[str, bytes]], None]:
    """A `make_registry` change: the attempt's pins and released data on the server `base`."""

    def change(files: dict[str, bytes]) -> None:
        for name in ("attempt.yaml", "freeze.yaml", "adapter/adapter.yaml"):
            if name in files:
                text = files[name].decode()
                for host in EVIDENCE_HOSTS:
                    text = text.replace(host, local_url(host, base))
                files[name] = text.encode()

    return change


def local_raw_log(spec: AttemptSpec, base: str) -> AttemptSpec:
    """`spec` with its raw log's URL on the server `base` (for `also` attempts, which take
    no change): the same pin, another address."""
    raw = yaml.safe_load(attempt_files(spec)["attempt.yaml"])["raw_log"]
    return replace(
        spec, extra={**spec.extra, "raw_log": {**raw, "url": local_url(raw["url"], base)}}
    )


def serve_evidence(server: Any, spec: AttemptSpec, base: str) -> None:
    """Serve on `server` (pytest-httpserver) what `spec`'s attempt pins and releases: its raw
    log, and for a wrapped attempt its paper's freeze and released data, at the URLs
    local_evidence gives them."""
    files = attempt_files(spec)
    served = {yaml.safe_load(files["attempt.yaml"])["raw_log"]["url"]: files["raw-log/harness.log"]}
    if spec.kind == "wrapped":
        freeze = yaml.safe_load(files["freeze.yaml"])["paper_freeze"]
        served[freeze["url"]] = spec.slug.encode()  # what the specimen pins (its sha256)
        adapter = yaml.safe_load(files["adapter/adapter.yaml"])
        names = dict(RELEASED)
        for item in adapter["released_data"]:
            served[item["url"]] = files[names[item["path"]]]
    for url, data in served.items():
        path = local_url(url, base)[len(base) :]
        server.expect_request(path).respond_with_data(data)


def expect_results(
    run: WorkflowRun, expected: dict[str, str], others: Collection[str] = ("success", "skipped")
) -> None:
    """The named jobs ended as `expected`, and every other job (one added to the workflow
    since the test was written, say) ended as one of `others` (never failed, by default)."""
    results = run.results()
    assert {job: results.get(job) for job in expected} == expected, run.explain()
    rest = {job: result for job, result in results.items() if job not in expected}
    assert set(rest.values()) <= set(others), (rest, run.explain())


def _example(name: str) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((EVENTS / name).read_text(encoding="utf-8"))
    return found


def pull_request_event(
    runner: Runner, number: int, head: str, branch: str, fork: str, action: str = "opened"
) -> dict[str, Any]:
    """octokit's pull_request example: pull request `number` from `fork`:`branch` at `head`."""
    event = _example("pull_request.opened.json")
    event.update(action=action, number=number, repository=runner.repository_payload())
    pull = event["pull_request"]
    pull.update(number=number)
    pull["head"].update(sha=head, ref=branch, label=f"{fork.split('/')[0]}:{branch}")
    pull["head"]["repo"].update(full_name=fork)
    pull["base"].update(ref=runner.default_branch)
    pull["base"]["repo"].update(full_name=runner.repository)
    return event


def workflow_run_event(
    runner: Runner, completed: WorkflowRun, head: str, branch: str, fork: str
) -> dict[str, Any]:
    """The workflow_run event GitHub sends when `completed` (a fork's pull_request run) ends:
    its name, conclusion, head; `pull_requests` empty, as for every fork."""
    event = _example("workflow_run.completed.fork.json")
    run = event["workflow_run"]
    run.update(
        event=completed.event_name,
        conclusion=completed.conclusion,
        head_sha=head,
        head_branch=branch,
        id=completed.run_id,
        pull_requests=[],
    )
    run["name"] = _workflow_name(completed.workflow)
    run["head_repository"].update(full_name=fork)
    run["head_repository"]["owner"].update(login=fork.split("/")[0])
    run["repository"].update(full_name=runner.repository)
    event["repository"] = runner.repository_payload()
    return event


def followed_run_event(runner: Runner, completed: WorkflowRun) -> dict[str, Any]:
    """workflow_run for a run on the default branch (close-windows starting pages)."""
    event = _example("workflow_run.completed.json")
    run = event["workflow_run"]
    run.update(
        name=_workflow_name(completed.workflow),
        event=completed.event_name,
        conclusion=completed.conclusion,
        head_branch=runner.default_branch,
        id=completed.run_id,
    )
    event["repository"] = runner.repository_payload()
    return event


def comment_event(runner: Runner, number: int, login: str, body: str) -> dict[str, Any]:
    """octokit's issue_comment example, on pull request `number`, by `login`."""
    event = _example("issue_comment.created.pull_request.json")
    event["issue"].update(number=number)
    event["comment"].update(body=body, id=int(hashlib.sha256(body.encode()).hexdigest()[:8], 16))
    event["comment"]["user"].update(login=login, type="User")
    event["repository"] = runner.repository_payload()
    return event


def dispatch_event(runner: Runner, dispatched: dict[str, Any]) -> dict[str, Any]:
    """What GitHub sends for a workflow_dispatch the fake GitHub recorded."""
    return {
        "inputs": dict(dispatched["inputs"]),
        "ref": f"refs/heads/{dispatched['ref']}",
        "repository": runner.repository_payload(),
        "sender": {"login": "github-actions[bot]", "type": "Bot"},
        "workflow": f".github/workflows/{dispatched['workflow']}",
    }


def _workflow_name(file: str) -> str:
    data = yaml.safe_load((PROJECT / ".github" / "workflows" / file).read_text(encoding="utf-8"))
    return str(data["name"])

"""A fork's pull request through the real workflows, run by the local runner (runner.py) against
the fake GitHub: check.yml (pull_request) -> verify.yml (workflow_run) -> /judge (judge.yml,
issue_comment) -> verify.yml (workflow_dispatch) and pages.yml (workflow_dispatch); and a pull
request whose head moved before verify.yml ran. The adapter rerun runs in the real sandbox.

What is asserted is what GitHub would show: the jobs' results, and what the fake GitHub was
sent (check runs, comments, labels, commits, dispatches)."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

import bot.edges.sandbox
from bot.faces.demo.git_registry import Step
from bot.faces.demo.specimen import AttemptSpec
from tests.github.fakehub import FakeHub
from tests.support import RegistryFactory
from tests.workflows.hosting import (
    LOCAL_ADDRESSES,
    bare_origin,
    comment_event,
    dispatch_event,
    expect_results,
    git,
    land_on_main,
    local_evidence,
    merged_pulls,
    open_pull,
    pull_request_event,
    serve_evidence,
    workflow_files,
    workflow_run_event,
)
from tests.workflows.runner import Runner, WorkflowRun

FILER = "alice"  # the fork's owner, and the author of alice-lab's merged pull requests
FORK = f"{FILER}/registry"
MAINTAINER = "maint"
WORKFLOWS_LANDED = datetime(2027, 1, 2, 10, 0, tzinfo=UTC)
WRAPPED = AttemptSpec(kind="wrapped")


def writes(hub: FakeHub) -> list[str]:
    return [f"{r.method} {r.path}" for r in hub.requests if r.method != "GET"]


class World:
    """A registry with a wrapped attempt on an open fork pull request, hosted on a bare
    origin and the fake GitHub, and a runner for its workflows."""

    def __init__(
        self, make_registry: RegistryFactory, hub: FakeHub, server: Any, tmp_path: Path, venv: Path
    ) -> None:
        # No internet: the attempt's pins and released data come from a local server.
        base = server.url_for("").rstrip("/")
        serve_evidence(server, WRAPPED, base)
        self.server = server
        self.built = make_registry(
            WRAPPED,
            run="open",
            change=local_evidence(base),
            steps=[Step("the registry's workflows", WORKFLOWS_LANDED, workflow_files())],
        )
        self.head = self.built.repo.head.commit.hexsha
        self.folder = self.built.attempt.relative_to(self.built.root).as_posix()
        self.origin = bare_origin(self.built.root, tmp_path / "origin.git")
        self.hub = hub
        hub.repo.roles.update({MAINTAINER: "maintain", FILER: "read"})
        merged_pulls(hub, self.origin, FILER)
        hub.repo.commit_files("main", {})  # the default branch the contents API writes to
        hub.repo.on_commit = land_on_main(self.origin, tmp_path / "landing")

        self.runner = Runner(
            folder=tmp_path / "runner",
            origin=self.origin,
            venv=venv,
            repository=hub.repository,
            api_url=hub.base_url,
            machine_env={"RUNNER_FETCH_ALLOWED_ADDRESSES": LOCAL_ADDRESSES},
        )

    def open(self, number: int, head: str) -> None:
        open_pull(self.origin, number, head, source=self.built.root)
        self.hub.repo.add_pull(number, FILER, head, head_branch="attempt", head_repo=FORK)

    def check(self, number: int, head: str) -> WorkflowRun:
        event = pull_request_event(self.runner, number, head, "attempt", FORK)
        return self.runner.run("check.yml", "pull_request", event)

    def verify_after(self, check: WorkflowRun, head: str) -> WorkflowRun:
        event = workflow_run_event(self.runner, check, head, "attempt", FORK)
        return self.runner.run("verify.yml", "workflow_run", event)


@pytest.fixture
def world(
    make_registry: RegistryFactory,
    fakehub: FakeHub,
    httpserver: Any,
    tmp_path: Path,
    bot_venv: Path,
) -> World:
    return World(make_registry, fakehub, httpserver, tmp_path, bot_venv)


def report(run: WorkflowRun) -> dict[str, Any]:
    found: dict[str, Any] = json.loads((run.artifacts / "report" / "report.json").read_text())
    return found


@pytest.mark.skipif(
    bot.edges.sandbox.isolation() is not None,
    reason=f"the adapter rerun needs the sandbox: {bot.edges.sandbox.isolation()}",
)
def test_a_forks_pull_request_from_check_to_judgment(world: World) -> None:
    hub, head, folder = world.hub, world.head, world.folder
    world.open(7, head)

    # check.yml: the PR's own run on the merge ref; its artifact names the PR.
    check = world.check(7, head)
    expect_results(check, {"check": "success"})
    assert json.loads((check.artifacts / "pr" / "pr.json").read_text()) == {
        "pr": 7,
        "head_sha": head,
    }
    assert writes(hub) == []  # the untrusted run posts nothing

    # verify.yml, started by check's completion: locate -> rerun -> verify -> publish.
    first = world.verify_after(check, head)
    done = {"locate": "success", "rerun": "success", "verify": "success", "publish": "success"}
    expect_results(first, done)
    assert first.concurrency == f"verify-{FORK}-attempt-{head}"
    locate = first.job("locate")
    assert locate.outputs["found"] == "true" and locate.outputs["pr"] == "7"
    assert json.loads(locate.outputs["matrix"]) == {"include": [{"attempt": folder}]}
    (rerun,) = first.jobs["rerun"]
    assert rerun.name == f"rerun adapter ({folder})" and rerun.permissions == {}
    assert any((first.artifacts / "rerun-0").iterdir())
    # The rerun job downloaded the paper's released data (from the local server).
    fetched = {request.path for request, _ in world.server.log}
    assert {
        "/papers/monitor-v1/data/cases.jsonl",
        "/papers/monitor-v1/data/trials.jsonl",
    } <= fetched, fetched
    (verdict,) = report(first)["attempts"]
    assert verdict["evidence"] == "valid" and verdict["status"] == "pending-judgment"
    assert "adapter-not-rerun" not in {r["code"] for r in verdict["reasons"]}
    (attested,) = world.runner.attestations
    assert list(attested) == ["report.json"]
    runs = {run.name: run for run in hub.repo.check_runs.values()}
    assert runs[f"registry: #7 {folder}"].head_sha == head
    assert runs[f"registry: #7 {folder}"].conclusion == "neutral"
    assert runs["registry: pull request"].conclusion == "success"
    footer = runs["registry: pull request"].summary or ""
    assert f"(https://github.com/acme/registry/actions/runs/{first.run_id})" in footer
    assert "(https://github.com/acme/registry/attestations/1)" in footer
    (comment,) = hub.repo.comments_on(7)
    assert "<!-- claims-bot:verdict -->" in comment.body
    assert sorted(hub.repo.labels[7]) == ["evidence:valid", "verdict:pending-judgment"]

    # judge.yml: a maintainer's /judge of every check, recorded on main through the API.
    body = "Reviewed the rerun.\r\n" + "".join(
        f"/judge {name} pass looked at it\r\n" for name in verdict["checks"]
    )
    judged = world.runner.run(
        "judge.yml", "issue_comment", comment_event(world.runner, 7, MAINTAINER, body)
    )
    expect_results(judged, {"judge": "success"})
    landed = git(world.origin, "show", f"main:{folder}/judgments.yaml")
    assert landed.encode() + b"\n" == hub.repo.commits[-1]["files"][f"{folder}/judgments.yaml"]
    assert hub.repo.dispatches == [
        {"workflow": "verify.yml", "ref": "main", "inputs": {"pr": "7"}},
        {"workflow": "pages.yml", "ref": "main", "inputs": {}},
    ]

    # The dispatches, run: verify.yml re-posts the verdict, pages.yml rebuilds the site.
    verify, pages = (
        world.runner.run(
            d["workflow"], "workflow_dispatch", dispatch_event(world.runner, d), inputs=d["inputs"]
        )
        for d in hub.repo.dispatches
    )
    assert verify.results() == first.results(), verify.explain()
    assert verify.concurrency == "verify-pr-7-dispatch"
    (again,) = report(verify)["attempts"]
    assert again["status"] == "qualifying", [r["code"] for r in again["reasons"]]
    assert hub.repo.runs_named(f"registry: #7 {folder}")[-1].conclusion == "success"
    assert sorted(hub.repo.labels[7]) == ["evidence:valid", "verdict:qualifying"]
    verdicts = [c for c in hub.repo.comments_on(7) if "claims-bot:verdict" in c.body]
    assert len(verdicts) == 2  # the verdict changed: a new comment, the history kept
    expect_results(pages, {"build": "success", "deploy": "success"})
    assert pages.pages is not None and (pages.pages / "index.html").is_file()


def test_a_head_that_moved_before_verify_ran_posts_nothing_and_stays_green(
    world: World,
) -> None:
    hub, head = world.hub, world.head
    world.open(8, head)
    check = world.check(8, head)
    expect_results(check, {"check": "success"})

    # The filer pushes again before verify.yml starts: the PR's head is now another commit.
    moved = git(
        world.built.root, "commit-tree", f"{head}^{{tree}}", "-p", head, "-m", "one more push"
    )
    open_pull(world.origin, 8, moved, source=world.built.root)
    hub.repo.pulls[8].head_sha = moved

    stale = world.verify_after(check, head)
    assert stale.conclusion == "success", stale.explain()
    skipped = {"locate": "success", "rerun": "skipped", "verify": "skipped", "publish": "skipped"}
    expect_results(stale, skipped, others=["skipped"])
    locate = stale.job("locate")
    assert locate.outputs["found"] == "false"
    assert [s.outcome for s in locate.steps][-2:] == ["skipped", "skipped"]  # fetch, plan
    assert locate.step("Find the pull request").summary.strip()  # the bot says why
    assert writes(hub) == []

    # The same for the other reasons there is no PR to post to: closed, another base branch.
    pull = hub.repo.pulls[8]
    for change in ({"state": "closed"}, {"state": "open", "base_branch": "develop"}):
        pull.head_sha = head
        for key, value in change.items():
            setattr(pull, key, value)
        again = world.verify_after(check, head)
        assert again.results() == stale.results(), (change, again.explain())
        assert again.job("locate").outputs["found"] == "false"
    assert writes(hub) == []

"""The scheduled resolution through the real workflow, run by the local runner (runner.py):
close-windows.yml at three window closes, each under a fixed clock (libfaketime, the machine's
clock of every step), against the fake GitHub (issues) and the fake Zenodo (the archive copies),
pushing its tags and records to the bare origin; then pages.yml, started by the last close's
completion (workflow_run), builds and deploys the site from what the closes committed.

Markets 3, 5 and 7 close on three different days; market 3 holds a wrapped attempt, whose
adapter the plan -> rerun (in the sandbox, no token) -> close split reruns."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

import bot.edges.sandbox
from bot.edges.dump import dump_yaml
from bot.faces.demo.git_registry import Step
from bot.faces.demo.specimen import AttemptSpec, market_document
from tests.archive.fakezenodo import TOKEN, FakeZenodo
from tests.github.fakehub import FakeHub
from tests.support import RegistryFactory
from tests.workflows.hosting import (
    LOCAL_ADDRESSES,
    bare_origin,
    expect_results,
    followed_run_event,
    git,
    local_evidence,
    local_raw_log,
    serve_evidence,
    workflow_files,
)
from tests.workflows.runner import Environment, Runner

# Debian's and Ubuntu's libfaketime (apt-get install faketime; .ci/run installs it)
LIBFAKETIME = next(iter(sorted(Path("/usr/lib").glob("*/faketime/libfaketime.so.1"))), Path())
# market -> its resolution date R; its window closes 60 days later
MARKETS = {3: "2027-06-30", 5: "2027-07-31", 7: "2027-08-31"}
BUDGETS = {3: "default", 5: "serious", 7: "default"}  # as the shared rules' table says
# the day after each window closed, at the schedule's time (cron "17 3 * * *")
CLOSES = [(3, "2027-09-01 03:17:00"), (5, "2027-10-01 03:17:00"), (7, "2027-11-01 03:17:00")]

pytestmark = [
    pytest.mark.skipif(
        bot.edges.sandbox.isolation() is not None,
        reason=f"the adapter rerun needs the sandbox: {bot.edges.sandbox.isolation()}",
    ),
    pytest.mark.skipif(
        not LIBFAKETIME.is_file(), reason="libfaketime fixes the clock (apt-get install faketime)"
    ),
]


@pytest.fixture
def zenodo(fake_zenodo: FakeZenodo) -> Iterator[FakeZenodo]:
    yield fake_zenodo


def markets() -> dict[str, bytes]:
    return {
        f"markets/market-{n:02d}.yaml": dump_yaml(market_document(n, BUDGETS[n], resolve_by=r))
        for n, r in MARKETS.items()
    }


def resolution(origin: Path, market: int) -> dict[str, Any]:
    text = git(origin, "show", f"main:resolutions/market-{market:02d}.yaml")
    found: dict[str, Any] = yaml.safe_load(text)
    return found


def test_three_window_closes_then_the_site(
    make_registry: RegistryFactory,
    fakehub: FakeHub,
    zenodo: FakeZenodo,
    httpserver: Any,
    tmp_path: Path,
    bot_venv: Path,
) -> None:
    # No internet: the attempts' pins and released data come from a local server.
    base = httpserver.url_for("").rstrip("/")
    wrapped_spec = AttemptSpec(kind="wrapped")
    other = local_raw_log(AttemptSpec(market=5, slug="monitor-v2", adversarial="serious"), base)
    serve_evidence(httpserver, wrapped_spec, base)
    serve_evidence(httpserver, other, base)
    built = make_registry(
        wrapped_spec,
        markets=markets(),
        change=local_evidence(base),
        also=[other],
        steps=[
            Step(
                "the registry's workflows",
                datetime(2027, 1, 2, 10, 0, tzinfo=UTC),
                workflow_files(),
            )
        ],
    )
    origin = bare_origin(built.root, tmp_path / "origin.git")

    runner = Runner(
        folder=tmp_path / "runner",
        origin=origin,
        venv=bot_venv,
        repository=fakehub.repository,
        api_url=fakehub.base_url,
        vars={"ZENODO_URL": zenodo.base_url},
        environments={"zenodo": Environment({"ZENODO_TOKEN": TOKEN}, branches=["main"])},
    )
    wrapped = built.attempt.relative_to(built.root).as_posix()
    for count, (market, moment) in enumerate(CLOSES, start=1):
        runner.machine_env = {
            "LD_PRELOAD": str(LIBFAKETIME),
            "FAKETIME": f"@{moment}",
            "RUNNER_FETCH_ALLOWED_ADDRESSES": LOCAL_ADDRESSES,
        }
        zenodo.now = datetime.fromisoformat(moment).replace(tzinfo=UTC)
        run = runner.run("close-windows.yml", "schedule", {"schedule": "17 3 * * *"})
        reran = "success" if market == 3 else "skipped"
        expect_results(run, {"plan": "success", "rerun": reran, "close": "success"})
        assert run.concurrency == "close-windows"
        plan = run.job("plan")
        assert plan.outputs["reruns"] == ("1" if market == 3 else "0")
        if market == 3:
            # The rerun job downloaded the paper's released data (from the local server).
            fetched = {request.path for request, _ in httpserver.log}
            assert "/papers/monitor-v1/data/trials.jsonl" in fetched, fetched
            (leg,) = run.jobs["rerun"]
            assert leg.matrix == {"batch": 0} and leg.permissions == {}
            assert any((run.artifacts / "rerun-0").iterdir())
            # It kept the released data within its share of the run's keep budget.
            rerun_plan = json.loads((run.artifacts / "close-plan" / "plan.json").read_text())
            released = run.artifacts / "rerun-0" / "released" / "sha256"
            kept_bytes = sum(path.stat().st_size for path in released.iterdir())
            assert 0 < kept_bytes <= rerun_plan["released_bytes"]
        if plan.outputs["pins"] != "0":
            # The pin job kept the files its plan lists (every pin here fits the caps).
            plan_file = run.artifacts / "close-pin-plan" / "pin-plan.json"
            planned = json.loads(plan_file.read_text(encoding="utf-8"))
            kept = {path.name for path in (run.artifacts / "pins-0" / "sha256").iterdir()}
            assert kept and kept == {entry["sha256"] for entry in planned["keep"]}
        close = run.job("close")
        assert close.environment == "zenodo"
        assert close.step("claims close-windows").outputs == {"tarballs": "1"}
        assert close.step("Attest the archive tarballs").outcome == "success"

        # What the close left: the tag, the record on main, the copy on Zenodo, the issue.
        tag = f"snapshot-{MARKETS[market]}"
        assert tag in git(origin, "tag", "--list").split()
        record = resolution(origin, market)
        assert record["snapshot"]["tag"] == tag
        assert record["archive"]["kind"] == "zenodo"
        published = zenodo.published()
        assert len(published) == count
        assert record["archive"]["doi"] == published[-1].doi
        # The attested tarball is the one uploaded to Zenodo.
        tarball = f"acme-registry-{tag}-market-{market:02d}.tar.gz"
        assert len(runner.attestations) == count
        assert runner.attestations[-1] == {
            tarball: hashlib.sha256(published[-1].files[tarball]).hexdigest()
        }
        titles = [issue.title for issue in fakehub.repo.issues.values()]
        assert len([t for t in titles if f"Market {market} " in t]) == 1, titles

    assert git(origin, "tag", "--list").split() == [f"snapshot-{r}" for r in MARKETS.values()]
    outcomes = {m: resolution(origin, m)["outcome"] for m in MARKETS}
    assert outcomes == {3: "YES", 5: "YES", 7: "OTHER"}
    (entry,) = resolution(origin, 3)["attempts"]
    # The wrapped attempt counts: the close job counted its rerun job's recorded result.
    assert (entry["attempt"], entry["status"], entry["counts"]) == (wrapped, "qualifying", True)

    # Records are committed on main only: a dispatch on another branch runs no job, and a
    # close-windows run there starts no site build.
    git(origin, "branch", "elsewhere", "main")
    elsewhere = runner.run("close-windows.yml", "workflow_dispatch", {}, ref="refs/heads/elsewhere")
    assert set(elsewhere.results().values()) == {"skipped"}, elsewhere.explain()
    event = followed_run_event(runner, elsewhere)
    event["workflow_run"]["head_branch"] = "elsewhere"
    assert set(runner.run("pages.yml", "workflow_run", event).results().values()) == {"skipped"}

    # pages.yml, started by the last close's completion: the site from main's records.
    last = runner.runs[-3]  # the third close
    pages = runner.run("pages.yml", "workflow_run", followed_run_event(runner, last))
    expect_results(pages, {"build": "success", "deploy": "success"})
    assert pages.pages is not None
    site = pages.pages
    assert (site / "index.html").is_file()
    for market, outcome in outcomes.items():
        page = (site / f"markets/market-{market:02d}/index.html").read_text(encoding="utf-8")
        assert outcome in page
    assert (site / wrapped / "index.html").is_file()

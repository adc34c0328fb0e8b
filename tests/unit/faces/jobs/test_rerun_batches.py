"""The close's rerun plan at a busy registry's scale (issue 22, section 6): any number of wrapped
attempts fits a job matrix of at most 256 jobs, each job's attempts fit its time budget, and the
workflow's own check and rerun loop accept what the planner writes."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from bot.edges.sandbox.runner import SandboxLimits
from bot.faces.jobs.rerun_batches import (
    JOB_BUDGET_SECONDS,
    JOB_TIMEOUT_MINUTES,
    MAX_ATTEMPTS_PER_JOB,
    MAX_RERUN_JOBS,
    PIN_VERIFY_SECONDS,
    RerunPlan,
    attempt_seconds,
    batch_reruns,
    guaranteed_per_job,
    pin_seconds,
    plan_keep,
)
from bot.vocab.config import Limits
from tests import close_workflow
from tests.support import RegistryFactory

COMMIT = "0123456789abcdef0123456789abcdef01234567"


def markets(counts: dict[int, int]) -> list[tuple[int, list[dict[str, str]]]]:
    """Synthetic facts: `counts[market]` wrapped attempts in each market closing on one day,
    as `rerun_matrix` hands them to the batcher."""
    return [
        (
            market,
            [
                {
                    "attempt": f"attempts/market-{market:02d}/lab-{i % 97:04d}/monitor-{i:05d}",
                    "commit": COMMIT,
                }
                for i in range(count)
            ],
        )
        for market, count in sorted(counts.items())
    ]


def pin_plan(by_market: list[tuple[int, list[dict[str, str]]]], size: int = 1000) -> RerunPlan:
    """The pin plan `pin_matrix` makes of these markets, each attempt's raw log `size` bytes."""
    declared = [
        (market, [(e["attempt"], f"{market:04x}{i:060x}", size) for i, e in enumerate(entries)])
        for market, entries in by_market
    ]
    planned = batch_reruns(by_market)
    return replace(planned, seconds_per_attempt=pin_seconds(), keep=plan_keep(declared))


def flat(planned: dict[str, object]) -> list[dict[str, str]]:
    batches = planned["batches"]
    assert isinstance(batches, list)
    return [entry for batch in batches for entry in batch]


def test_ten_thousand_attempts_on_one_day_fit_256_jobs() -> None:
    given = markets({market: 250 for market in range(3, 43)})  # 40 markets x 250 = 10,000
    plan = batch_reruns(given).as_json()
    batches = plan["batches"]
    assert isinstance(batches, list)
    assert len(batches) <= MAX_RERUN_JOBS == 256
    assert max(len(batch) for batch in batches) <= MAX_ATTEMPTS_PER_JOB
    assert {len(batch) for batch in batches} == {40}  # ceil(10,000 / 256) a job: 250 jobs
    assert len(batches) == 250
    # Every attempt is planned once, in market order; none waits.
    assert flat(plan) == [entry for _, entries in given for entry in entries]
    assert plan["waiting"] == []


def test_up_to_256_attempts_each_get_a_job_of_their_own() -> None:
    plan = batch_reruns(markets({3: 200, 5: 56}))
    assert len(plan.batches) == 256 and {len(b) for b in plan.batches} == {1}
    assert len(batch_reruns(markets({3: 257})).batches) == 129  # 2 a job


def test_nothing_to_rerun_is_an_empty_plan() -> None:
    assert batch_reruns([]).as_json()["batches"] == []


def test_a_market_that_does_not_fit_whole_waits_and_the_rest_are_planned() -> None:
    """Past 256 x 64 attempts, a market is left out whole (the close counts only this run's
    results, so part of a market would block it anyway), named in `waiting`; the markets after
    it that still fit are planned."""
    room = MAX_RERUN_JOBS * MAX_ATTEMPTS_PER_JOB
    plan = batch_reruns(markets({3: room - 100, 4: 500, 5: 100}))
    assert plan.waiting == ((4, 500),)
    assert plan.attempts == room and len(plan.batches) == MAX_RERUN_JOBS
    assert {e["attempt"].split("/")[1] for b in plan.batches for e in b} == {
        "market-03",
        "market-05",
    }
    alone = batch_reruns(markets({7: room + 1}))
    assert alone.batches == () and alone.waiting == ((7, room + 1),)


def test_the_time_budget_fits_the_job_and_each_attempts_worst_case() -> None:
    assert attempt_seconds() == Limits().released_deadline + 2 * SandboxLimits().wall_seconds
    assert attempt_seconds() == 1140
    assert guaranteed_per_job() == 16  # attempts a job always runs, each at its worst case
    # The budget leaves room for setup and the upload inside the job's timeout, GitHub's max.
    assert JOB_TIMEOUT_MINUTES <= 360 and JOB_BUDGET_SECONDS + 20 * 60 <= JOB_TIMEOUT_MINUTES * 60
    # Every attempt's worst case fits up to 256 x 16 attempts (one job each up to 256).
    assert MAX_RERUN_JOBS * guaranteed_per_job() == 4096


# -- the workflow: its check, its matrix and its rerun loop on the planner's output ----------


def test_the_workflow_checks_the_planners_numbers() -> None:
    """One definition: the workflow's jq check and timeouts against faces/jobs/rerun_batches.py."""
    assert close_workflow.caps() == (MAX_RERUN_JOBS, MAX_ATTEMPTS_PER_JOB)
    text = close_workflow.plan_script()
    assert f". <= {JOB_BUDGET_SECONDS})" in text
    rerun = close_workflow.jobs()["rerun"]
    assert rerun["timeout-minutes"] == JOB_TIMEOUT_MINUTES
    (loop,) = [s for s in rerun["steps"] if "timeout-minutes" in s]
    assert JOB_BUDGET_SECONDS < loop["timeout-minutes"] * 60 < JOB_TIMEOUT_MINUTES * 60
    assert rerun["name"] == "rerun adapters (batch ${{ matrix.batch }})"


def test_the_workflows_plan_step_accepts_ten_thousand_attempts(tmp_path: Path) -> None:
    planned = batch_reruns(markets({m: 250 for m in range(3, 43)})).as_json()
    ran = close_workflow.run_plan_step(tmp_path, planned)
    assert ran.code == 0, ran.err
    matrix = json.loads(ran.outputs["matrix"])
    assert matrix == {"batch": list(range(250))}
    assert ran.outputs["reruns"] == "10000"
    # The job output stays far under GitHub's 1 MB a job: the attempts are in the artifact.
    assert len(ran.outputs["matrix"]) < 2000


def test_the_workflows_plan_step_accepts_an_empty_plan(tmp_path: Path) -> None:
    ran = close_workflow.run_plan_step(tmp_path, batch_reruns([]).as_json())
    assert ran.code == 0, ran.err
    assert (json.loads(ran.outputs["matrix"]), ran.outputs["reruns"]) == ({"batch": []}, "0")


@pytest.mark.parametrize(
    "spoil",
    [
        lambda p: p["batches"].extend([[p["batches"][0][0]]] * 300),  # over 256 jobs
        lambda p: p["batches"][0].extend([p["batches"][0][0]] * 64),  # over 64 a job
        lambda p: p["batches"].append([]),
        lambda p: p["batches"][0][0].update(attempt="attempts/market-03/a/$(id)"),
        lambda p: p["batches"][0][0].update(commit="HEAD"),
        lambda p: p["batches"][0][0].update(extra="x"),
        lambda p: p.update(seconds_per_job=10**6),
        lambda p: p.update(seconds_per_attempt=1.5),
        lambda p: p.update(waiting=[{"market": "3; id", "attempts": 1}]),
        lambda p: p.pop("waiting"),
    ],
)
def test_the_workflows_plan_step_refuses_a_plan_it_cannot_run(tmp_path: Path, spoil) -> None:
    planned = batch_reruns(markets({3: 10})).as_json()
    spoil(planned)
    ran = close_workflow.run_plan_step(tmp_path, planned)
    assert ran.code != 0 and "matrix" not in ran.outputs


def test_the_rerun_loop_runs_each_attempt_of_its_batch_alone(tmp_path: Path) -> None:
    planned = batch_reruns(markets({3: 600})).as_json()  # 3 a job
    ran = close_workflow.run_rerun_step(tmp_path, planned, 5)
    assert ran.code == 0, ran.err
    wanted = planned["batches"][5]  # type: ignore[index]
    assert [call[-1] for call in ran.calls] == [e["attempt"] for e in wanted]
    for call, entry in zip(ran.calls, wanted, strict=True):
        assert call[0] == "verify"
        assert call[call.index("--head") + 1] == entry["commit"]
        assert "--keep-rerun-failures" in call and "--rerun-adapters" in call
    assert len(list((tmp_path / "rerun-cache").iterdir())) == 3


def test_one_attempts_error_is_that_attempts_and_the_others_still_run(tmp_path: Path) -> None:
    planned = batch_reruns(markets({3: 768})).as_json()  # 3 a job
    first, second, third = (e["attempt"] for e in planned["batches"][0])  # type: ignore[index]
    ran = close_workflow.run_rerun_step(tmp_path, planned, 0, {first: 2, second: 1})
    # Exit 1 is a verdict; exit 2 an error: the job fails, after every attempt ran.
    assert [call[-1] for call in ran.calls] == [first, second, third]
    assert ran.code == 1 and "1 attempt(s) of this batch failed" in ran.out
    assert len(list((tmp_path / "rerun-cache").iterdir())) == 3  # the upload still has them


def test_an_attempt_that_cannot_fit_the_budget_is_not_started_and_fails_the_job(
    tmp_path: Path,
) -> None:
    planned = batch_reruns(markets({3: 512})).as_json()
    planned["seconds_per_attempt"] = planned["seconds_per_job"] + 1  # type: ignore[operator]
    ran = close_workflow.run_rerun_step(tmp_path, planned, 0)
    assert ran.calls == []
    assert ran.code == 1 and "2 were not started within the budget" in ran.out


def test_the_workflows_plan_step_names_a_market_that_waits(tmp_path: Path) -> None:
    room = MAX_RERUN_JOBS * MAX_ATTEMPTS_PER_JOB
    planned = batch_reruns(markets({3: 10, 4: room})).as_json()
    ran = close_workflow.run_plan_step(tmp_path, planned)
    assert ran.code == 0, ran.err
    assert ran.outputs["reruns"] == "10"
    assert (
        f"::warning::market 4: its {room} wrapped attempts do not fit this run's rerun jobs;"
        " it is blocked this run" in ran.out
    )


def test_the_cli_plan_names_a_market_that_waits(
    make_registry: RegistryFactory, run_claims, monkeypatch
) -> None:
    """A plan with room for one attempt (the caps made small): market 3's two wrapped
    attempts wait, none planned, named on stderr (the close without their results blocks the
    market: test_close_windows_reruns.py)."""
    import functools
    import shutil

    import bot.faces.jobs.close_windows.matrix as close_module
    from bot.faces.demo.specimen import AttemptSpec

    monkeypatch.setattr(
        close_module, "batch_reruns", functools.partial(batch_reruns, max_jobs=1, per_job=1)
    )
    built = make_registry(AttemptSpec(kind="wrapped"))
    shutil.copytree(built.attempt, built.attempt.parent / f"{built.attempt.name}-two")
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "-m", "a second wrapped attempt")
    result = run_claims(
        "close-windows", "--registry", built.root, "--plan-reruns", "--as-of", "2027-09-01"
    )
    assert result.code == 0, result.err
    planned = json.loads(result.out)
    assert planned["batches"] == [] and planned["waiting"] == [{"market": 3, "attempts": 2}]
    assert "market 3: its 2 wrapped attempts do not fit" in result.err


# ---- the pin plan and the pins jobs (issue 22): the same shape, run the same way -------------


def test_the_pin_plan_step_makes_the_matrix_and_checks_the_same_caps(tmp_path: Path) -> None:
    planned = pin_plan(markets({3: 10_000}))
    script = close_workflow.pin_plan_script()
    ran = close_workflow.run_plan_step(tmp_path, planned.as_json(), script)
    assert ran.code == 0, ran.err
    assert json.loads(ran.outputs["matrix"]) == {"batch": list(range(250))}
    assert ran.outputs["pins"] == "10000"
    spoiled = planned.as_json()
    spoiled["batches"][0][0]["attempt"] = "attempts/market-03/a/$(id)"  # type: ignore[index]
    ran = close_workflow.run_plan_step(tmp_path, spoiled, script)
    assert ran.code != 0 and "matrix" not in ran.outputs


def test_the_pins_loop_fetches_each_attempt_of_its_batch_alone(tmp_path: Path) -> None:
    planned = pin_plan(markets({3: 600}))
    ran = close_workflow.run_rerun_step(tmp_path, planned.as_json(), 5, pins=True)
    assert ran.code == 0, ran.err
    wanted = planned.batches[5]
    assert [call[-1] for call in ran.calls] == [e["attempt"] for e in wanted]
    for call, entry in zip(ran.calls, wanted, strict=True):
        assert call[:2] == ["verify", "--base-ref"]
        assert call[call.index("--head") + 1] == entry["commit"]
        assert "--fetch-raw-logs" in call
        assert call[call.index("--keep-pins") + 1].endswith("close-pin-plan/pin-plan.json")
        assert call[call.index("--pin-results") + 1] == "pin-results"
        assert "--rerun-adapters" not in call
    assert len(list((tmp_path / "pin-results").iterdir())) == 3


def test_an_attempt_whose_pins_error_fails_the_pins_job_after_the_others(tmp_path: Path) -> None:
    planned = pin_plan(markets({3: 768}))
    first, second, third = (e["attempt"] for e in planned.batches[0])
    ran = close_workflow.run_rerun_step(tmp_path, planned.as_json(), 0, {first: 2}, pins=True)
    assert [call[-1] for call in ran.calls] == [first, second, third]
    assert ran.code == 1 and "1 attempt(s) of this batch failed" in ran.out


def test_a_pin_batchs_worst_case_fits_its_budget_with_room_to_spare() -> None:
    """Two fetches at their deadline and the rest of the attempt's verify: a batch of the
    attempts every job always runs ends, each at its worst case, well inside the budget,
    as the reruns' do (16 x 1,140 s of 19,200 s); two fetches alone (2 x 600 s) would fill it
    exactly 16 times, leaving the 16th attempt of such a batch never started."""
    each = pin_seconds()
    assert each == 2 * Limits().fetch_deadline + PIN_VERIFY_SECONDS == 1320
    per_job = guaranteed_per_job(each)
    assert per_job == 14
    assert JOB_BUDGET_SECONDS - per_job * each >= 600  # 720 s to spare
    planned = pin_plan(markets({3: MAX_RERUN_JOBS * per_job}))
    assert len(planned.batches) == MAX_RERUN_JOBS
    assert all(len(batch) * each <= JOB_BUDGET_SECONDS - 600 for batch in planned.batches)
    assert planned.as_json()["seconds_per_attempt"] == each


def test_the_pin_plan_step_checks_the_keep_caps_the_planner_uses(tmp_path: Path) -> None:
    """The jq check's numbers are Limits' (a file at most max_archived_pin_bytes, the run's
    files, each counted once, at most max_kept_pins_bytes), and it refuses a plan past them."""
    limits = Limits()
    script = close_workflow.pin_plan_script()
    assert f". <= {limits.max_archived_pin_bytes})" in script
    assert f"($reruns[0].batches | length)) <= {limits.max_kept_pins_bytes}" in script
    gib = 1024**3
    planned = pin_plan(markets({m: 4 for m in range(3, 8)}), size=gib)
    keep = planned.keep or ()
    assert sum(size for _, _, size in keep) == limits.max_kept_pins_bytes == 5 * gib
    ran = close_workflow.run_plan_step(tmp_path, planned.as_json(), script)
    assert ran.code == 0, ran.err
    spoils = [
        lambda p: p["keep"].append(dict(p["keep"][0], sha256="f" * 64)),  # one more GiB
        lambda p: p["keep"][0].update(bytes=gib + 1),
        lambda p: p["keep"][0].update(sha256="../x"),
        lambda p: p["keep"][0].update(attempt="attempts/market-03/a/$(id)"),
        lambda p: p["keep"][0].update(extra=1),
        lambda p: p.pop("keep"),
    ]
    for spoil in spoils:
        spoiled = planned.as_json()
        spoil(spoiled)
        ran = close_workflow.run_plan_step(tmp_path, spoiled, script)
        assert ran.code != 0 and "matrix" not in ran.outputs
    # The same file kept for two attempts is one download: counted once.
    shared = planned.as_json()
    shared["keep"].append(dict(shared["keep"][0], attempt=shared["keep"][1]["attempt"]))  # type: ignore[attr-defined,index]
    ran = close_workflow.run_plan_step(tmp_path, shared, script)
    assert ran.code == 0, ran.err

"""Released data the close's rerun jobs keep has a share of the run's keep budget (issue 22):
the close job downloads the pins the pin plan keeps and every rerun job's released data, so
the pins planned and each batch's share together stay within `Limits.max_kept_pins_bytes`,
and a rerun job keeps a released file only while its kept files stay within its share."""

from __future__ import annotations

import hashlib
import json
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

from bot.app.rerun import AdapterRerun
from bot.faces.jobs.rerun_batches import (
    batch_reruns,
    kept_bytes,
    pin_seconds,
    plan_keep,
    released_share,
)
from bot.rules.evidence.models import AdapterSpec
from bot.vocab.config import Limits
from tests import close_workflow
from tests.support import RegistryFactory

COMMIT = "0123456789abcdef0123456789abcdef01234567"
GIB = 1024**3


def _markets(counts: dict[int, int]) -> list[tuple[int, list[dict[str, str]]]]:
    return [
        (
            market,
            [
                {
                    "attempt": f"attempts/market-{market:02d}/lab-{i:04d}/run-{i:05d}",
                    "commit": COMMIT,
                }
                for i in range(count)
            ],
        )
        for market, count in sorted(counts.items())
    ]


def _keep(by_market: list[tuple[int, list[dict[str, str]]]], size: int) -> Any:
    declared = [
        (market, [(e["attempt"], f"{market:04x}{i:060x}", size) for i, e in enumerate(entries)])
        for market, entries in by_market
    ]
    return plan_keep(declared)


# ---- the shares ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("reruns", "pin_size"),
    [(1, 1000), (7, 300 * 1024 * 1024), (256, GIB), (255, 1), (3, 0), (10_000, 7 * 1024**2)],
)
def test_the_shares_and_the_planned_pins_fit_the_run_budget(reruns: int, pin_size: int) -> None:
    limits = Limits()
    by_market = _markets({3: 40, 4: 30})
    keep = _keep(by_market, pin_size) if pin_size else ()
    pins = kept_bytes(keep)
    assert pins <= limits.max_kept_pins_bytes
    plan = batch_reruns(_markets({3: reruns}))
    batches = len(plan.batches)
    share = released_share(pins, batches)
    assert share >= 0
    assert pins + share * batches <= limits.max_kept_pins_bytes
    # And the whole of what is left is shared (rounded down only).
    assert pins + (share + 1) * batches > limits.max_kept_pins_bytes


def test_a_file_kept_for_several_attempts_is_counted_once() -> None:
    keep = (
        ("attempts/market-03/a-b/c-d", "a" * 64, 10),
        ("attempts/market-03/e-f/g-h", "a" * 64, 10),
    )
    assert kept_bytes(keep) == 10
    assert released_share(10, 2, Limits(max_kept_pins_bytes=30)) == 10


def test_pins_filling_the_budget_leave_the_reruns_nothing() -> None:
    limits = Limits()
    keep = _keep(_markets({m: 4 for m in range(3, 8)}), GIB)
    assert kept_bytes(keep) == limits.max_kept_pins_bytes
    assert released_share(kept_bytes(keep), 4) == 0
    assert released_share(limits.max_kept_pins_bytes + 1, 4) == 0
    assert released_share(0, 0) == limits.max_kept_pins_bytes


def test_the_rerun_plan_carries_the_share_and_the_pin_plan_does_not() -> None:
    plan = replace(batch_reruns(_markets({3: 4})), released_bytes=12345)
    assert plan.as_json()["released_bytes"] == 12345
    pins = replace(plan, seconds_per_attempt=pin_seconds(), keep=())
    assert "released_bytes" not in pins.as_json()


# ---- the rerun job keeps within its share ----------------------------------------------------


def _attempt(tmp_path: Path, name: str, bodies: list[bytes]) -> AdapterSpec:
    cache = tmp_path / "cache" / "sha256"
    cache.mkdir(parents=True, exist_ok=True)
    items = []
    for index, body in enumerate(bodies):
        sha256 = hashlib.sha256(body).hexdigest()
        (cache / sha256).write_bytes(body)
        items.append({"url": f"https://example.org/{name}/{index}", "sha256": sha256})
    path = f"attempts/market-03/lab/{name}/adapter/adapter.yaml"
    return AdapterSpec(path, "d", ("python", "x.py"), tuple(items), ("cases.jsonl",))


def _kept(results: Path) -> dict[str, int]:
    folder = results / "released" / "sha256"
    return {p.name: p.stat().st_size for p in folder.iterdir()} if folder.is_dir() else {}


def test_a_rerun_jobs_kept_released_bytes_never_pass_its_share(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Several attempts of one job, each a `claims verify` of its own (a new AdapterRerun on
    the same results folder), with more data than the share: what is kept stays within it,
    a file already kept costs nothing, and a smaller file still fits after a larger one
    did not."""
    import bot.edges.disk

    monkeypatch.setattr(bot.edges.disk, "has_room", lambda folder, size: True)
    share = 1000
    results = tmp_path / "results"
    shared = b"s" * 300
    attempts = [
        _attempt(tmp_path, "one", [b"a" * 600, shared]),  # 900 kept
        _attempt(tmp_path, "two", [b"b" * 700, shared]),  # 700 does not fit; shared is kept
        _attempt(tmp_path, "three", [b"c" * 5000, b"d" * 100]),  # past the share alone; 100 fits
        _attempt(tmp_path, "four", [b"e" * 1]),  # the budget is full
    ]
    totals = []
    for adapter in attempts:
        rerun = AdapterRerun(
            cache=tmp_path / "cache",
            results=results,
            keep_released=True,
            keep_released_bytes=share,
        )
        rerun._keep_released(adapter)
        totals.append(sum(_kept(results).values()))
    assert all(total <= share for total in totals)
    assert totals == [900, 900, 1000, 1000]
    sizes = sorted(_kept(results).values())
    assert sizes == [100, 300, 600]


def test_without_a_share_the_rerun_job_keeps_what_its_disk_holds(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import bot.edges.disk

    monkeypatch.setattr(bot.edges.disk, "has_room", lambda folder, size: True)
    results = tmp_path / "results"
    rerun = AdapterRerun(cache=tmp_path / "cache", results=results, keep_released=True)
    rerun._keep_released(_attempt(tmp_path, "one", [b"a" * 600, b"b" * 5000]))
    assert sorted(_kept(results).values()) == [600, 5000]


def test_a_zero_share_keeps_nothing(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import bot.edges.disk

    monkeypatch.setattr(bot.edges.disk, "has_room", lambda folder, size: True)
    results = tmp_path / "results"
    rerun = AdapterRerun(
        cache=tmp_path / "cache", results=results, keep_released=True, keep_released_bytes=0
    )
    rerun._keep_released(_attempt(tmp_path, "one", [b"a"]))
    assert _kept(results) == {}


# ---- the workflow's jq and the rerun loop ----------------------------------------------------


def test_the_plan_step_checks_the_share(tmp_path: Path) -> None:
    limits = Limits()
    script = close_workflow.plan_script()
    assert f"and . <= {limits.max_kept_pins_bytes})" in script
    planned = replace(batch_reruns(_markets({3: 10})), released_bytes=GIB).as_json()
    ran = close_workflow.run_plan_step(tmp_path, planned)
    assert ran.code == 0, ran.err
    for bad in (-1, 1.5, "1", None, limits.max_kept_pins_bytes + 1):
        spoiled = dict(planned, released_bytes=bad)
        ran = close_workflow.run_plan_step(tmp_path, spoiled)
        assert ran.code != 0 and "matrix" not in ran.outputs, bad
    missing = dict(planned)
    del missing["released_bytes"]
    ran = close_workflow.run_plan_step(tmp_path, missing)
    assert ran.code != 0 and "matrix" not in ran.outputs


def test_the_pin_plan_step_refuses_shares_and_pins_past_the_run_budget(tmp_path: Path) -> None:
    """The pins planned plus every rerun batch's share: at the budget accepted, one byte a
    batch past it refused."""
    limits = Limits()
    by_market = _markets({3: 8})
    keep = _keep(by_market, 256 * 1024**2)  # 2 GiB of pins
    pins = replace(batch_reruns(by_market), seconds_per_attempt=pin_seconds(), keep=keep)
    reruns = batch_reruns(_markets({3: 300}))  # 150 batches of 2
    share = released_share(kept_bytes(keep), len(reruns.batches))
    assert share > 0
    fits = replace(reruns, released_bytes=share).as_json()
    script = close_workflow.pin_plan_script()
    ran = close_workflow.run_plan_step(tmp_path, pins.as_json(), script, reruns=fits)
    assert ran.code == 0, ran.err
    past = replace(reruns, released_bytes=share + 1)
    assert kept_bytes(keep) + (share + 1) * len(reruns.batches) > limits.max_kept_pins_bytes
    ran = close_workflow.run_plan_step(tmp_path, pins.as_json(), script, reruns=past.as_json())
    assert ran.code != 0 and "matrix" not in ran.outputs
    # A budget the pins alone fill leaves no share: any share is refused.
    full = _keep(_markets({m: 4 for m in range(3, 8)}), GIB)
    pins_full = replace(pins, keep=full)
    one = replace(reruns, released_bytes=1).as_json()
    ran = close_workflow.run_plan_step(tmp_path, pins_full.as_json(), script, reruns=one)
    assert ran.code != 0
    none = replace(reruns, released_bytes=0).as_json()
    ran = close_workflow.run_plan_step(tmp_path, pins_full.as_json(), script, reruns=none)
    assert ran.code == 0, ran.err


def test_each_rerun_of_a_batch_is_given_the_plans_share(tmp_path: Path) -> None:
    planned = replace(batch_reruns(_markets({3: 600})), released_bytes=4242).as_json()
    ran = close_workflow.run_rerun_step(tmp_path, planned, 2)
    assert ran.code == 0, ran.err
    assert len(ran.calls) == 3
    for call in ran.calls:
        assert "--keep-released" in call
        assert call[call.index("--keep-released-bytes") + 1] == "4242"


def test_the_cli_rerun_plan_shares_what_the_pin_plan_leaves(
    make_registry: RegistryFactory, run_claims: Any
) -> None:
    from bot.faces.demo.specimen import AttemptSpec

    built = make_registry(AttemptSpec(kind="wrapped"))
    argv = ("close-windows", "--registry", built.root, "--as-of", "2027-09-01")
    reruns = run_claims(*argv, "--plan-reruns")
    pins = run_claims(*argv, "--plan-pins")
    assert reruns.code == 0 and pins.code == 0, (reruns.err, pins.err)
    rerun_plan, pin_plan = json.loads(reruns.out), json.loads(pins.out)
    kept = kept_bytes([(k["attempt"], k["sha256"], k["bytes"]) for k in pin_plan["keep"]])
    assert kept > 0 and len(rerun_plan["batches"]) == 1
    assert rerun_plan["released_bytes"] == Limits().max_kept_pins_bytes - kept

"""No attempt holds a market hostage (issue 21, item 2; docs/spec.md §9; `bot/faces/jobs/stuck.py`).

On 611a91f a wrapped attempt whose rerun never ended in a recorded result (an unstartable
command, its released-data server down at the close) blocked its market on every daily run,
before and after the annulment date. Now it blocks only until the market's rerun deadline (a
week after the window closes); from then on it is judged `rerun-unrecorded`, with the failure
of the try that was recorded, and the market resolves from its other attempts.

The workflow split as `test_close_windows_reruns.py` runs it: the rerun job (`claims verify
--head COMMIT --rerun-adapters --rerun-cache DIR --keep-rerun-failures`), then the close job
counting only what it recorded. Market 3: R = 2027-06-30, the window closes 2027-08-29, the
rerun deadline is 2027-09-05, the annulment date 2027-09-28.
"""

from __future__ import annotations

import socket
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

import bot.app.rerun
import bot.edges.sandbox
from bot.app.rerun import AdapterRerun
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.jobs.stuck import rerun_deadline
from bot.vocab.dates import MarketDates
from bot.vocab.findings import Finding
from tests.closing import (
    DEADLINE,
    GOOD,
    WRAPPED,
    close,
    record_if_any,
    recorded_into,
    rerun_job_of,
    rerun_wrapped_job,
)
from tests.support import Files, RegistryFactory, seed_released

FIRST_RUN = date(2027, 9, 1)
needs_sandbox = pytest.mark.skipif(
    bot.edges.sandbox.isolation() is not None,
    reason=f"no network isolation here: {bot.edges.sandbox.isolation()}",
)


def dead_url() -> str:
    """A URL on this machine where no server listens any more (the filer's server is down)."""
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    return f"http://127.0.0.1:{port}/released"


def test_the_rerun_deadline_is_a_week_after_the_close_and_before_annulment() -> None:
    dates = MarketDates.of(date(2027, 6, 30), 60, 30)
    assert (dates.window_closes, rerun_deadline(dates), dates.annul_on) == (
        date(2027, 8, 29),
        DEADLINE,
        date(2027, 9, 28),
    )
    short = MarketDates.of(date(2027, 6, 30), 60, 3)
    assert rerun_deadline(short) == date(2027, 8, 31) < short.annul_on


@needs_sandbox
def test_a_server_down_at_the_close_holds_the_market_only_until_the_rerun_deadline(
    make_registry: RegistryFactory, run_claims, local_fetches, monkeypatch, tmp_path: Path
) -> None:
    """The filer's released-data server is down at every run: the rerun job records each try
    (released-data-unavailable); the market waits until the deadline, then resolves YES from
    bob-lab's attempt with the wrapped attempt not qualifying, its reasons listed."""
    monkeypatch.setattr("bot.edges.released.time.sleep", lambda seconds: None)
    url = dead_url()

    def server_down(files: Files) -> None:
        text = files["adapter/adapter.yaml"].decode()
        text = text.replace("https://papers.example.org/monitor-v1/data", url)
        files["adapter/adapter.yaml"] = text.encode()

    built = make_registry(WRAPPED, change=server_down, also=[GOOD])
    for day in (FIRST_RUN, date(2027, 9, 4)):
        results = tmp_path / f"rerun-{day}"
        assert rerun_wrapped_job(run_claims, built, results, tmp_path / "released") == 1
        assert list(results.glob("*.json")), "the failed try is recorded"
        report = close(built.root, day, recorded_into(results))
        assert report.failed
        assert f"market 3 blocked this run: wrapped attempt(s) {WRAPPED.folder}" in (
            report.render()
        )
        assert record_if_any(built.root) is None
    results = tmp_path / f"rerun-{DEADLINE}"
    assert rerun_wrapped_job(run_claims, built, results, tmp_path / "released") == 1
    report = close(built.root, DEADLINE, recorded_into(results))
    assert not report.failed, report.render()
    data = record_if_any(built.root)
    assert data is not None and data["outcome"] == "YES"
    attempts = {a["attempt"]: a for a in data["attempts"]}
    assert attempts[GOOD.folder]["status"] == "qualifying"
    stuck = attempts[WRAPPED.folder]
    assert stuck["status"] != "qualifying" and not stuck["counts"]
    assert {"rerun-unrecorded", "released-data-unavailable"} <= set(stuck["reasons"])


def test_an_attempt_no_rerun_job_recorded_anything_for_blocks_even_after_the_deadline(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """Nothing recorded for the attempt on the run (its rerun job was lost: the registry's
    fault; a filer's rerun ends within the job's time and is recorded): the market waits,
    before the deadline and after it, and is never recorded without the attempt."""
    built = make_registry(WRAPPED, also=[GOOD])
    for day in (FIRST_RUN, DEADLINE, DEADLINE + timedelta(days=3)):
        report = close(built.root, day, recorded_into(tmp_path / f"run-{day}"))
        assert report.failed and record_if_any(built.root) is None, report.render()


def test_a_machine_error_of_the_close_jobs_own_rerun_still_blocks_after_the_deadline(
    make_registry: RegistryFactory, monkeypatch, tmp_path: Path
) -> None:
    """The registry's own fault (a full disk where the close job reruns) never counts
    against the filer: the market waits, whatever the date."""

    def full_disk(*args: object, **kwargs: object) -> Any:
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: None)
    monkeypatch.setattr(bot.app.rerun, "run_adapter", full_disk)
    monkeypatch.setattr(bot.app.rerun, "fetch_released", lambda *args, **kwargs: list[Finding]())
    built = make_registry(WRAPPED, also=[GOOD])
    rerun = AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "results")
    report = close(built.root, DEADLINE, rerun)
    assert report.failed and "market 3 blocked this run" in report.render()
    assert record_if_any(built.root) is None


@needs_sandbox
def test_a_reproduced_attempt_is_not_lost_to_a_rerun_job_the_registry_lost_on_deadline_day(
    make_registry: RegistryFactory, run_claims, local_fetches, monkeypatch, tmp_path: Path
) -> None:
    """Review of issue 21 (a good attempt judged rerun-unrecorded; the registry's outage
    counted against a filer). A second filer's wrapped attempt whose released data is never
    served holds the market until its rerun deadline; the honest wrapped attempt reproduces on
    every run before it. The close job counts only the rerun results of its own run (the
    workflow's artifacts of this run), so on the deadline day the honest attempt's fate is that
    day's job alone: when that job did not run or record (an apt mirror down while installing
    bubblewrap, a lost runner, an artifact upload failing: the registry's faults, which the
    issue says still block), the honest attempt is judged `rerun-unrecorded`, final, and the
    market is recorded without it. A result recorded nowhere is no filer's doing: it should
    block (or an earlier run's reproduction should count)."""
    monkeypatch.setattr("bot.edges.released.time.sleep", lambda seconds: None)
    hostage = AttemptSpec(kind="wrapped", submitter="bob-lab", slug="stall-v1", seed=2)
    built = make_registry(WRAPPED, also=[hostage])
    released = tmp_path / "released"
    seed_released(released, built.files)  # the honest attempt's data is served; bob's never
    for day in (FIRST_RUN, date(2027, 9, 4)):
        results = tmp_path / f"rerun-{day}"
        assert rerun_job_of(run_claims, built, WRAPPED.folder, results, released) == 0
        assert rerun_job_of(run_claims, built, hostage.folder, results, released) == 1
        report = close(built.root, day, recorded_into(results))
        assert report.failed and record_if_any(built.root) is None  # bob's attempt holds the market
    # The deadline day: only bob's job ran (the honest attempt's job was lost by the registry).
    results = tmp_path / f"rerun-{DEADLINE}"
    assert rerun_job_of(run_claims, built, hostage.folder, results, released) == 1
    close(built.root, DEADLINE, recorded_into(results))
    data = record_if_any(built.root)
    honest = None if data is None else {a["attempt"]: a for a in data["attempts"]}[WRAPPED.folder]
    assert honest is None or "rerun-unrecorded" not in honest["reasons"], honest

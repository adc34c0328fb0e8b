"""Hostile review of issue 21 (review2): a market decided twice, or read from the wrong place.

Markets 3 and 5 resolve by R = 2027-06-30 and share `snapshot-2027-06-30` (the helpers of
tests/acceptance/test_close_windows_decided_once.py).
"""

from __future__ import annotations

import shutil
from datetime import UTC, datetime
from pathlib import Path

import git

from tests.closing import (
    WRAPPED,
    assert_decided_once,
    close_at,
    decided,
    entries,
    on_branch,
    plan,
    record,
    refuse_main,
    with_origin,
    zenodo,
)
from tests.support import RegistryFactory


def test_an_archive_that_cannot_be_asked_once_never_gets_a_market_decided_twice(
    make_registry: RegistryFactory, fake_zenodo, tmp_path: Path
) -> None:
    """The first run published each market's copy, and origin refused the record push. The
    next day Zenodo fails the one listing of the account's depositions the job makes while
    gathering facts (a 500), then answers again. The market was not blocked: it was decided a
    second time on the second day's clock, and `archive` returned the first run's published
    copy, so the record on main cited a copy holding another record (and got no sha256). Now
    the market is never recorded from a copy that does not hold its record: it is decided
    once, from its copy, by this run or the next."""
    built = make_registry()
    origin = with_origin(built, tmp_path)
    refuse_main(origin)
    first = close_at(built.root, datetime(2027, 9, 1, 13, tzinfo=UTC), zenodo(fake_zenodo))
    assert first.failed and any("git push" in e for e in first.errors), first.render()
    decided_first = {m: record(built.root, m) for m in (3, 5)}
    copies = len(fake_zenodo.published())
    (origin / "hooks" / "pre-receive").unlink()
    fresh = git.Repo.clone_from(str(origin), tmp_path / "fresh", branch="main")
    fresh_root = Path(fresh.working_dir)
    for _ in (3, 5):  # one listing per market while the facts are gathered
        fake_zenodo.fail("list", "500")
    second = close_at(
        fresh_root, datetime(2027, 9, 2, 13, tzinfo=UTC), zenodo(fake_zenodo, attempts=1)
    )
    assert second.failed and "never decided a second time" in second.render(), second.render()
    assert all(not (fresh_root / f"resolutions/market-{m:02d}.yaml").exists() for m in (3, 5))
    third = close_at(fresh_root, datetime(2027, 9, 3, 13, tzinfo=UTC), zenodo(fake_zenodo))
    assert not third.failed, second.render() + third.render()
    assert len(fake_zenodo.published()) == copies  # no copy made twice
    by_doi = {d.doi: d for d in fake_zenodo.published()}
    remote = git.Repo(origin)
    for market in (3, 5):
        data = on_branch(remote, market)
        assert decided(data) == decided(decided_first[market]), second.render()
        (copy,) = by_doi[data["archive"]["doi"]].files.values()
        issue = (fresh_root / f".claims/issues/market-{market:02d}-resolution.md").read_text()
        assert_decided_once(data, copy, issue)


def test_the_close_jobs_rerun_plan_is_one_the_workflow_accepts_whatever_is_filed(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    """Attack: a filer merges 257 wrapped attempts into market 3 (copies of one valid attempt
    under their own slug). `claims close-windows --plan-reruns` lists them all; the workflow
    re-checks the plan with `jq` (`.include | length <= 256`: GitHub runs at most 256 jobs
    of a matrix) and fails the plan job, and the close job runs only when the plan job
    succeeded: no market of the registry is tagged, archived or resolved on any day while
    they stay. The plan must always be one the workflow can run (e.g. several attempts a
    job), and the market resolve by its rerun deadline whatever the count. Now the plan holds
    at most 256 batches of attempts (bot/faces/jobs/rerun_batches.py), and the workflow's own plan
    step, run here, accepts it."""
    from tests import close_workflow

    cap, per_job = close_workflow.caps()
    built = make_registry(WRAPPED)
    (wrapped,) = entries(plan(run_claims, built.root))
    source = built.root / wrapped["attempt"]
    for index in range(cap + 1):
        shutil.copytree(source, source.parent.parent / "mallory-lab" / f"copy-{index:03d}")
    built.repo.git.add("attempts")
    with built.repo.git.custom_environment(
        GIT_AUTHOR_DATE="2027-08-01T10:00:00Z", GIT_COMMITTER_DATE="2027-08-01T10:00:00Z"
    ):
        built.repo.git.commit("-m", "257 wrapped attempts merged in the window")
    planned = plan(run_claims, built.root)
    batches = planned["batches"]
    assert len(batches) <= cap, f"{len(batches)} rerun jobs planned; the workflow runs {cap}"
    assert all(1 <= len(batch) <= per_job for batch in batches)
    assert len(entries(planned)) == cap + 2 and planned["waiting"] == []  # every one planned
    ran = close_workflow.run_plan_step(tmp_path, planned)
    assert ran.code == 0, ran.err

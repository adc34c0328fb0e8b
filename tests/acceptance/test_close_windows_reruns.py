"""The scheduled close with wrapped attempts, split by trust as the workflow runs it: the rerun
plan (`claims close-windows --plan-reruns`), the scope-less rerun jobs (`claims verify --head
COMMIT --rerun-adapters --rerun-cache DIR --keep-rerun-failures`) and the close job that only
counts what they recorded (`claims close-windows --no-rerun-adapters --rerun-cache DIR`),
failing closed: a market with a wrapped attempt that has no recorded rerun result is not
recorded. Also the archive tarballs the workflow attests, and their sha256 in the record.

The registry's one wrapped attempt is in market 3 (R = 2027-06-30, window closes 2027-08-29).
"""

from __future__ import annotations

import hashlib
import json
import shutil
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import pytest
import yaml

import bot.edges.sandbox
from bot.app.options import Ports
from bot.app.rerun import AdapterRerun
from bot.edges.archive.local import LocalArchive
from bot.edges.archive.port import md5_of
from bot.faces.jobs.close_windows import CloseReport, Job, close_windows
from bot.faces.jobs.issues import FileIssues
from tests.closing import WRAPPED, entries, needs_sandbox, plan, recorded, rerun_job
from tests.support import Files, RegistryFactory, seed_released

CLOSED = date(2027, 9, 1)


def run(root: Path, rerun: AdapterRerun | None = None, tarballs: Path | None = None) -> CloseReport:
    job = Job(
        root=root,
        archive=LocalArchive(root / ".claims" / "archive"),
        archive_kind="local",
        repository_url="https://github.com/acme/registry",
        issues=FileIssues(root / ".claims" / "issues"),
        as_of=CLOSED,
        ports=Ports(rerun_adapter=rerun),
        clock=lambda: datetime(2027, 9, 1, 3, 17, tzinfo=UTC),
        tarballs=tarballs,
    )
    return close_windows(job)


def record(root: Path, market: int = 3) -> dict[str, Any] | None:
    file = root / f"resolutions/market-{market:02d}.yaml"
    return yaml.safe_load(file.read_text()) if file.exists() else None


def test_a_wrapped_attempt_never_rerun_blocks_its_market(make_registry: RegistryFactory) -> None:
    """--no-rerun-adapters alone used to resolve and record the market with the wrapped
    attempt left out: final, as if it did not qualify. Now the market is blocked this run."""
    built = make_registry(WRAPPED)
    report = run(built.root)
    assert report.failed
    text = report.render()
    assert f"market 3 blocked this run: wrapped attempt(s) {WRAPPED.folder}" in text
    assert record(built.root) is None
    assert not list((built.root / ".claims" / "issues").glob("market-03*"))
    # The tag was made (the next run finds it); market 5, which shares it, is recorded.
    assert (record(built.root, 5) or {}).get("outcome") == "OTHER"
    assert "snapshot-2027-06-30" in [t.name for t in built.repo.tags]


def test_recorded_only_without_a_result_blocks_the_market(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    built = make_registry(WRAPPED)
    empty = tmp_path / "rerun-cache"
    empty.mkdir()
    report = run(built.root, recorded(empty))
    assert report.failed and "market 3 blocked this run" in report.render()
    assert record(built.root) is None


@needs_sandbox
def test_the_workflow_split_plan_rerun_then_close_counts_the_rerun(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    built = make_registry(WRAPPED)
    closing = built.repo.head.commit.hexsha
    # Still open: planned all the same, for the website (nothing kept in resolutions/reruns/
    # yet); no market waits for it.
    early = plan(run_claims, built.root, date(2027, 8, 29))
    assert entries(early) == [{"attempt": WRAPPED.folder, "commit": closing}]
    assert early["waiting"] == []
    matrix = plan(run_claims, built.root)
    assert matrix["batches"] == [[{"attempt": WRAPPED.folder, "commit": closing}]]
    assert matrix["waiting"] == []
    seed_released(tmp_path / "released", built.files)
    results = tmp_path / "rerun-cache"
    for entry in entries(matrix):
        assert rerun_job(run_claims, built, entry, tmp_path / "released", results) == 0
    report = run(built.root, recorded(results))
    assert not report.failed, report.render()
    data = record(built.root)
    assert data is not None and data["outcome"] == "YES"
    (attempt,) = data["attempts"]
    assert (attempt["attempt"], attempt["status"]) == (WRAPPED.folder, "qualifying")
    # The result it counted is kept on main for the website, and not planned again.
    [kept] = (built.root / "resolutions" / "reruns").iterdir()
    assert json.loads(kept.read_bytes())["parts"]["folder"] == WRAPPED.folder
    assert entries(plan(run_claims, built.root)) == []


@needs_sandbox
def test_an_adapter_that_fails_is_recorded_so_the_market_resolves(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    """An adapter's own failure is a result the rerun job keeps (--keep-rerun-failures): the
    close job counts it (not qualifying) rather than waiting for ever."""

    def broken(files: Files) -> None:
        files["adapter/convert.py"] = b"raise SystemExit(3)\n"

    built = make_registry(WRAPPED, change=broken)
    (entry,) = entries(plan(run_claims, built.root))
    seed_released(tmp_path / "released", built.files)
    kept, unkept = tmp_path / "kept", tmp_path / "unkept"
    assert rerun_job(run_claims, built, entry, tmp_path / "released", kept) == 1
    assert list(kept.glob("*.json"))
    # Without --keep-rerun-failures a failure is not recorded: the close would block.
    result = run_claims(
        "verify",
        "--registry",
        built.root,
        "--rerun-adapters",
        "--rerun-cache",
        unkept,
        "--released-cache",
        tmp_path / "released",
        built.root / entry["attempt"],
    )
    assert result.code == 1 and not list(unkept.glob("*.json"))
    report = run(built.root, recorded(kept))
    assert not report.failed, report.render()
    data = record(built.root)
    assert data is not None and data["outcome"] != "ANNULLED"
    (attempt,) = data["attempts"]
    assert "adapter-failed" in attempt["reasons"] and not attempt["counts"]


def test_the_tarball_is_kept_for_attestation_and_its_sha256_recorded(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    built = make_registry()
    tarballs = tmp_path / "tarballs"
    report = run(built.root, tarballs=tarballs)
    assert not report.failed, report.render()
    tarball = tarballs / "acme-registry-snapshot-2027-06-30-market-03.tar.gz"  # per market
    assert sorted(tarballs.iterdir()) == [tarball, tarballs / tarball.name.replace("03", "05")]
    data = record(built.root)
    assert data is not None
    archive = data["archive"]
    assert archive["sha256"] == "sha256:" + hashlib.sha256(tarball.read_bytes()).hexdigest()
    assert archive["checksum"] == md5_of(tarball)  # the very file the archive holds


def test_without_a_tarball_folder_the_sha256_is_still_recorded(
    make_registry: RegistryFactory,
) -> None:
    built = make_registry()
    assert not run(built.root).failed
    data = record(built.root)
    assert data is not None and data["archive"]["sha256"].startswith("sha256:")


def test_the_job_pushes_with_its_token_and_leaves_it_nowhere(
    make_registry: RegistryFactory, tmp_path
) -> None:
    """`Job.push_token` (CLAIMS_PUSH_TOKEN) reaches git push only: a file:// origin takes the
    push with the header set, and no file of the checkout holds the token."""
    import git

    built = make_registry()
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True)
    built.repo.create_remote("origin", str(origin))
    built.repo.git.push("origin", "main")
    token = "ghs_scheduledjobtoken0123456789"
    job = Job(
        root=built.root,
        archive=LocalArchive(built.root / ".claims" / "archive"),
        archive_kind="local",
        repository_url="https://github.com/acme/registry",
        issues=FileIssues(built.root / ".claims" / "issues"),
        as_of=CLOSED,
        clock=lambda: datetime(2027, 9, 1, 3, 17, tzinfo=UTC),
        push_token=token,
    )
    report = close_windows(job)
    assert not report.failed, report.render()
    with git.Repo(origin) as remote:
        assert "snapshot-2027-06-30" in [tag.name for tag in remote.tags]
        assert remote.commit("main").hexsha == built.repo.commit("main").hexsha
    stored = [p for p in (built.root / ".git").rglob("*") if p.is_file()]
    assert not [p for p in stored if token.encode() in p.read_bytes()]
    assert token not in report.render()


def test_wrapped_attempts_past_the_matrix_limit_never_stop_the_close(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    """Review of issue 21 (one part accepts what another cannot handle, and fails everyone):
    `--plan-reruns` lists one rerun job per wrapped attempt, with no bound, but a job matrix
    holds at most 256 entries, and close-windows.yml's plan job refuses a longer plan (its
    `jq` check) before it becomes one; the close job runs only when the plan succeeded. So 257
    wrapped attempts on main (one filer's folders; the PR check is green for an adapter that
    is never rerun) stop every market from closing, resolving or being recorded, every day.
    The plan must fit the workflow whatever the registry holds: now several attempts a job
    (bot/faces/jobs/rerun_batches.py), checked here by the workflow's own plan step."""
    from tests import close_workflow

    workflow = (Path(__file__).parents[2] / ".github/workflows/close-windows.yml").read_text()
    assert "needs.plan.result == 'success'" in workflow
    max_jobs, per_job = close_workflow.caps()
    built = make_registry(WRAPPED)
    folder = built.attempt
    for index in range(256):
        shutil.copytree(folder, folder.parent / f"{folder.name}-c{index:03d}")
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "-m", "256 more wrapped attempts")
    matrix = plan(run_claims, built.root)
    attempts = [entry["attempt"] for entry in entries(matrix)]
    assert built.attempt.relative_to(built.root).as_posix() in attempts  # the plan reads them
    assert len(attempts) == len(set(attempts)) == 257 and matrix["waiting"] == []
    assert len(matrix["batches"]) <= max_jobs, f"{len(matrix['batches'])} rerun jobs planned"
    assert max(len(batch) for batch in matrix["batches"]) <= per_job
    ran = close_workflow.run_plan_step(tmp_path, matrix)
    assert ran.code == 0, ran.err
    assert ran.outputs["reruns"] == "257"


@needs_sandbox
@pytest.mark.skipif(
    bot.edges.sandbox.cgroup.available() is not None, reason="no cgroup can be made here"
)
def test_a_sandbox_that_cannot_start_is_never_recorded_as_the_filers_failure(
    make_registry: RegistryFactory, run_claims, monkeypatch, tmp_path: Path
) -> None:
    """Review of issue 21 (the registry's own fault counted against a filer). The run's
    cgroup is made, then gone before the command joins it (a sweep, a machine fault): the
    join shell exits 125 before bubblewrap starts, no command of the filer's ran, and INIT
    never reported. The runner judges that "exit code 125", the rerun calls it
    `adapter-failed`, the rerun job kept it as the filer's own failure (--keep-rerun-failures)
    and the close job counted it at once: the attempt did not qualify, final, for the
    machine's fault. Now a run whose command bubblewrap never started is a machine error
    (`bot/edges/sandbox/runner.py` `SandboxNotStarted`): not recorded, the market waits."""
    real = bot.edges.sandbox.cgroup.create

    def vanishing(memory_bytes: int, processes: int) -> Any:
        group, why = real(memory_bytes, processes)
        if group is not None:
            group.remove()  # gone before the command joins it
        return group, why

    monkeypatch.setattr(bot.edges.sandbox.cgroup, "create", vanishing)
    built = make_registry(WRAPPED)
    (entry,) = entries(plan(run_claims, built.root))
    seed_released(tmp_path / "released", built.files)
    results = tmp_path / "results"
    assert rerun_job(run_claims, built, entry, tmp_path / "released", results) == 1
    kept = [json.loads(file.read_text()) for file in results.glob("*.json")]
    messages = [finding["message"] for record in kept for finding in record["findings"]]
    assert kept == [], messages  # nothing recorded as the filer's doing
    report = run(built.root, recorded(results))
    assert report.failed and record(built.root) is None  # the market waits for a real result

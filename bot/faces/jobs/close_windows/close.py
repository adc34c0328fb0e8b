"""`claims close-windows`: reopen a market if asked, gather the facts, plan, and apply."""

from __future__ import annotations

from datetime import UTC
from pathlib import Path

from bot.app.resolutions import ResolutionRecord, record_path
from bot.faces.jobs.close_windows.applier import Applier
from bot.faces.jobs.close_windows.facts import gather_facts
from bot.faces.jobs.close_windows.job import Job, open_repository
from bot.faces.jobs.close_windows.report import CloseReport
from bot.faces.jobs.gitops import Git
from bot.faces.jobs.plan import plan_close
from bot.vocab.errors import ClaimsError
from bot.vocab.timestamps import format_moment

__all__ = ["close_windows"]


def close_windows(job: Job, dry_run: bool = False, reopen: int | None = None) -> CloseReport:
    """Plan, and unless `dry_run` apply, the scheduled close for every market as of `job.as_of`."""
    reopened: dict[int, dict[str, str]] = {}
    if reopen is not None and not dry_run:
        history, git = open_repository(job)
        try:
            git.on_branch()
            reopened[reopen] = _reopen(job, git, reopen)
        finally:
            history.close()
    facts, problems = gather_facts(job)
    now = job.clock()
    plan = plan_close(facts, job.as_of, now if now.astimezone(UTC).date() == job.as_of else None)
    report = CloseReport(plan, problems=problems)
    if reopen is not None and dry_run:
        report.done.append(
            f"--reopen {reopen} would move {record_path(reopen)} to resolutions/reopened/ and"
            " resolve the market again (its tag and archive copy stay as they are)"
        )
    if reopened:
        moved = reopened[reopen or 0]["previous"]
        report.done.append(
            f"market {reopen} reopened: {record_path(reopen or 0)} moved to {moved}; the market"
            " is resolved again below (its tag and archive copy are kept)"
        )
    if dry_run or not (
        any(m.steps for m in plan.markets) or _results_to_keep(job.ports.rerun_adapter, job.root)
    ):
        return report
    history, git = open_repository(job)
    try:
        git.on_branch()
    finally:
        history.close()
    Applier(job, git, {f.market: f for f in facts}, report, reopened).run()
    return report


def _reopen(job: Job, git: Git, market: int) -> dict[str, str]:
    """Move the market's record to resolutions/reopened/ and commit that; return what the new
    record says of it."""
    path = record_path(market)
    file = job.root / path
    if not file.is_file():
        raise ClaimsError(
            f"--reopen {market}: {path} does not exist, so there is nothing to reopen"
        )
    record = ResolutionRecord.from_yaml(file.read_bytes(), path)
    outcome = record.outcome if isinstance(record, ResolutionRecord) else "OTHER"
    now = job.clock()
    moved = f"resolutions/reopened/market-{market:02d}-{now.strftime('%Y%m%dT%H%M%SZ')}.yaml"
    target = job.root / moved
    target.parent.mkdir(parents=True, exist_ok=True)
    file.replace(target)
    git.commit([path, moved], f"resolutions: market {market} reopened by a maintainer", now)
    return {"previous": moved, "previous_outcome": outcome, "at": format_moment(now)}


def _results_to_keep(rerun: object, root: Path) -> bool:
    """True when this run's rerun results hold one resolutions/reruns/ does not keep yet."""
    from bot.app.resolutions import keep_rerun_results

    results = getattr(rerun, "results", None)
    return isinstance(results, Path) and bool(keep_rerun_results(results, root, write=False))

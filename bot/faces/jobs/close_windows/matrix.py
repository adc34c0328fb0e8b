"""The workflow's rerun and pin jobs: the attempts of the markets this run resolves (and the
unrecorded wrapped ones, for the website), batched."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from bot.edges.archive.port import (
    ArchivedRecord,
    ArchiveMetadata,
    CopyState,
    DepositionState,
)
from bot.edges.history import GitHistory
from bot.faces.jobs.close_windows.facts import gather_facts
from bot.faces.jobs.close_windows.job import Job, open_repository
from bot.faces.jobs.gitops import Git
from bot.faces.jobs.plan import plan_close
from bot.faces.jobs.rerun_batches import (
    RerunPlan,
    batch_reruns,
    kept_bytes,
    pin_seconds,
    plan_keep,
    released_share,
)
from bot.vocab.errors import ClaimsError

if TYPE_CHECKING:
    from bot.app.registry import Registry

__all__ = ["pin_matrix", "rerun_matrix", "rerun_plan", "with_unrecorded"]


class _Unasked:
    """The archive as the rerun plan sees it: never asked (the planning job holds no
    secret). Which markets resolve does not depend on the copies, except that a late close the
    real run would block is planned too (a rerun too many, never one too few)."""

    def find(
        self, tag: str, repository_url: str, market: str | None = None
    ) -> DepositionState | None:
        return None

    def archive(self, tag: str, tarball: Path, metadata: ArchiveMetadata) -> ArchivedRecord:
        raise AssertionError("the rerun plan archives nothing")

    def copy_state(self, record: ArchivedRecord) -> CopyState:
        return CopyState("ok")

    def fetch(self, record: ArchivedRecord, target: Path) -> Path:
        raise AssertionError("the rerun plan reads no copy")


def rerun_matrix(job: Job) -> RerunPlan:
    """The rerun plan (`bot/faces/jobs/rerun_batches.py`): the wrapped attempts of the markets this
    run resolves, each with the commit whose tree the resolution reads them from (the snapshot
    tag's commit, or main's commit at the close where the tag is yet to be made; for a late
    close also the branch's tip, which is read when the tag does not count), batched into the
    scheduled workflow's rerun jobs (no token scope, no secret), a market's attempts whole."""
    return _attempt_matrix(job, wrapped_only=True)


def rerun_plan(job: Job) -> RerunPlan:
    """What `claims close-windows --plan-reruns` prints: `rerun_matrix` with the unrecorded
    attempts (`with_unrecorded`), and each batch's share of the run's keep budget for released
    data (`released_share`): what the pin plan (`pin_matrix`, planned alike from this tree)
    leaves of `Limits.max_kept_pins_bytes`, so that everything the close job downloads fits
    its disk."""
    plan = with_unrecorded(job, rerun_matrix(job))
    pins = kept_bytes(pin_matrix(job).keep or ())
    share = released_share(pins, len(plan.batches), job.limits)
    return replace(plan, released_bytes=share)


def pin_matrix(job: Job) -> RerunPlan:
    """The pin plan: every attempt of the markets this run resolves (each pins its raw log, a
    wrapped one also its paper's freeze), batched as the reruns are, into the workflow's pin
    jobs (no token scope, no secret), which fetch them again and keep the files for the
    snapshot's archive (`bot/app/pins.py`)."""
    declared: list[tuple[int, list[tuple[str, str, int]]]] = []
    plan = _attempt_matrix(job, wrapped_only=False, declared=declared)
    planned = {entry["attempt"] for batch in plan.batches for entry in batch}
    # Only the planned attempts' pins: a market left waiting keeps nothing this run.
    pins = [(n, [p for p in ps if p[0] in planned]) for n, ps in declared]
    return replace(plan, seconds_per_attempt=pin_seconds(), keep=plan_keep(pins, job.limits))


def _declared_pins(snapshot: Registry, folder: str) -> list[tuple[str, str, int]]:
    """The files attempt `folder` pins, `(folder, sha256, bytes)`: its raw log at its declared
    size, and a wrapped attempt's paper's freeze at the limit of one (it declares no size).
    A pin whose file does not pass its schema is left out: the close refuses the attempt."""
    from bot.edges.load.yaml_ import load_yaml
    from bot.rules.evidence.schema import validate

    pins: list[tuple[str, str, int]] = []
    for name in ("attempt.yaml", "freeze.yaml"):
        document, problems = load_yaml(snapshot.tree, f"{folder}/{name}", snapshot.limits)
        if document is None or problems or not isinstance(document.data, dict):
            continue
        if validate(name.removesuffix(".yaml"), document.data, document.path, document.lines):
            continue
        if name == "attempt.yaml":
            raw = document.data.get("raw_log")
            if isinstance(raw, dict):
                pins.append((folder, str(raw["sha256"]).lower(), int(raw["bytes"])))
        else:
            paper = document.data.get("paper_freeze")
            if isinstance(paper, dict):
                size = snapshot.limits.max_paper_freeze_bytes
                pins.append((folder, str(paper["sha256"]).lower(), size))
    return pins


def _attempt_matrix(
    job: Job,
    wrapped_only: bool,
    declared: list[tuple[int, list[tuple[str, str, int]]]] | None = None,
) -> RerunPlan:
    from bot.app.matrix import is_wrapped
    from bot.app.registry import load_registry
    from bot.edges.tree import GitTree

    facts, _ = gather_facts(replace(job, archive=_Unasked()))
    plan = plan_close(facts, job.as_of)
    by_market = {f.market: f for f in facts}
    history, git = open_repository(job)
    try:
        markets: list[tuple[int, list[dict[str, str]]]] = []
        for market in plan.markets:
            if not market.has("resolve"):
                continue
            fact = by_market[market.market]
            commits = [fact.tag.commit if fact.tag is not None else fact.close_commit]
            if market.phase == "late-close":
                commits.append(history.repo.commit(git.branch).hexsha)
            entries: list[dict[str, str]] = []
            pins: list[tuple[str, str, int]] = []
            for commit in dict.fromkeys(c for c in commits if c is not None):
                try:
                    snapshot = load_registry(GitTree(history.repo, commit, history.prefix))
                except ClaimsError:
                    continue  # the close reports a tree it cannot read
                folder = f"attempts/market-{market.market:02d}"
                if snapshot.tree.entry(folder) is None:
                    continue
                chosen = [
                    {"attempt": attempt, "commit": commit}
                    for attempt in snapshot.attempt_folders([folder])
                    if not wrapped_only or is_wrapped(snapshot, attempt)
                ]
                entries += chosen
                if declared is not None:
                    for entry in chosen:
                        pins += _declared_pins(snapshot, entry["attempt"])
            if entries:
                markets.append((market.market, entries))
                if declared is not None:
                    declared.append((market.market, pins))
        return batch_reruns(markets)
    finally:
        history.close()


def with_unrecorded(job: Job, plan: RerunPlan) -> RerunPlan:
    """`plan` (`rerun_matrix`: the markets resolving now, first) and, in the room it leaves,
    the wrapped attempts on the branch's tip with no result kept in resolutions/reruns/
    (`_unrecorded_on_branch`), for the website. None of those blocks a market, so none is
    listed as waiting: one left out is planned again on the next run."""
    from bot.rules.judge.location import folder_market

    groups: dict[int, list[dict[str, str]]] = {}
    for batch in plan.batches:
        for entry in batch:
            groups.setdefault(folder_market(entry["attempt"]) or 0, []).append(dict(entry))
    resolving = set(groups) | {market for market, _ in plan.waiting}
    history, git = open_repository(job)
    try:
        unrecorded = _unrecorded_on_branch(job, history, git, resolving)
    finally:
        history.close()
    if not unrecorded:
        return plan
    planned = batch_reruns([*groups.items(), *unrecorded])
    return replace(planned, waiting=plan.waiting)


def _unrecorded_on_branch(
    job: Job, history: GitHistory, git: Git, resolving: set[int]
) -> list[tuple[int, list[dict[str, str]]]]:
    """The wrapped attempts on the branch's tip, of markets not resolving this run, with no
    rerun result kept for their evidence in resolutions/reruns/: the website shows each as
    `adapter-not-rerun` until this job reruns it (its scope-less rerun jobs) and the close
    keeps the result (`keep_rerun_results`). By market, each with the tip's commit."""
    from bot.app.attempt_read import read_adapter_files
    from bot.app.matrix import is_wrapped
    from bot.app.registry import load_registry
    from bot.app.rerun import AdapterRerun
    from bot.app.resolutions import RERUN_RESULTS
    from bot.edges.tree import GitTree
    from bot.rules.judge.location import folder_market

    tip = history.repo.commit(git.branch).hexsha
    try:
        registry = load_registry(GitTree(history.repo, tip, history.prefix))
    except ClaimsError:
        return []  # the close reports a tree it cannot read
    recorded = AdapterRerun(
        cache=job.root / ".claims" / "released",
        results=job.root / RERUN_RESULTS,
        recorded_only=True,
    )
    by_market: dict[int, list[dict[str, str]]] = {}
    for folder in registry.attempt_folders():
        market = folder_market(folder)
        if market is None or market in resolving or not is_wrapped(registry, folder):
            continue
        files = read_adapter_files(registry, folder, history.object_format)
        # Only the key is asked of the kept results: the evidence is not read, let alone judged.
        if files is not None and recorded(registry.tree, files) is None:
            by_market.setdefault(market, []).append({"attempt": folder, "commit": tip})
    return sorted(by_market.items())

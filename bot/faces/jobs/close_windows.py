"""`claims close-windows`: gather each market's facts, plan (`bot/faces/jobs/plan.py`), apply.

The applier runs the plan in phases, each step safe to repeat after a crash or a kill at any
point, because each first looks for what it makes:

1. **tags**: `Git.create_tag` finds an existing tag (it must be annotated and point at the
   commit, else the market is blocked: a tag is never moved) before it makes one; the push
   sends it only when origin lacks it.
2. **resolve**: a market whose own copy is already published was decided by an earlier run:
   the record inside the copy is adopted (`_adopt`), never decided again. Every other market
   is resolved by the app layer (`resolve_registry`, adapter reruns as the options say: on by
   default) from its tag's tree (`_decide`). Nothing is written: a draft record.
3. **archive**: one copy per market: `git archive` of the tag with that market's draft record,
   handed to the `Archive` (Zenodo or the local folder), which finds an existing draft or
   published copy before it makes one. Only a returned `ArchivedRecord` counts as archived; a
   failure leaves the market unrecorded this run (the next run finishes it). So every record
   is inside the copy it cites, whichever run resolved it.
4. **records**: `resolutions/market-NN.yaml` is written (atomically), then committed on the
   base branch; a record already there is never rewritten (only committed, if a run stopped
   before its commit). The branch and the tags are pushed when the repository has `origin`;
   when origin's branch moved on meanwhile, the record commits are replayed onto it unchanged
   and pushed again (`Git.push_branch`, bounded).
5. **issues**: each issue carries a marker; one with the marker and label is looked for first.

`crash(point)` is called after each step ("tagged", "resolved", "archived", "record-written",
"committed", "issue-opened"): the tests kill the job there and run it again.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tarfile
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from bot.app.api import Workspace, open_workspace, resolve_registry
from bot.app.gather import VerifyOptions
from bot.app.resolutions import ArchiveKind, ResolutionRecord, record_path
from bot.edges.archive.port import (
    Archive,
    ArchivedRecord,
    ArchiveError,
    ArchiveMetadata,
    CopyState,
    DepositionState,
    md5_of,
)
from bot.edges.history import GitHistory
from bot.faces.jobs.gitops import BOT_EMAIL, Git
from bot.faces.jobs.gitops import REMOTE as REMOTE_NAME
from bot.faces.jobs.issues import Issues
from bot.faces.jobs.pins import PINS_MANIFEST, archived_pins
from bot.faces.jobs.plan import CopyFact, MarketFacts, MarketPlan, Plan, plan_close
from bot.faces.jobs.rerun_batches import (
    RerunPlan,
    batch_reruns,
    kept_bytes,
    pin_seconds,
    plan_keep,
    released_share,
)
from bot.faces.jobs.stuck import with_rerun_deadline
from bot.vocab.config import Limits
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code, Finding
from bot.vocab.timestamps import format_moment

if TYPE_CHECKING:
    from bot.app.registry import Registry

__all__ = [
    "CloseReport",
    "Job",
    "close_windows",
    "copy_key",
    "gather_facts",
    "pin_matrix",
    "record_in_copy",
    "rerun_matrix",
    "with_unrecorded",
]

CREATOR = "AI Safety Claims registry"
RECORD_LIMIT = 4 << 20  # the largest record file read back from a copy (bytes)


@dataclass
class Job:
    """What one run of the job is given: the registry, where copies go, where issues go, the
    options (`as_of`: the date resolved on), the clock (tag and record times) and crash points."""

    root: Path
    archive: Archive
    archive_kind: ArchiveKind
    repository_url: str  # https://github.com/OWNER/REPO (file://ROOT offline)
    issues: Issues
    options: VerifyOptions
    clock: Callable[[], datetime]
    crash: Callable[[str], None] = lambda point: None
    # The token `git push` (and `git ls-remote`) present to origin, in their environment only
    # (gitops.Git.auth_environment); None: origin needs none (a local remote, a credential
    # helper).
    push_token: str | None = None
    server_url: str = "https://github.com"
    # Where each tarball this run made and the archive holds is kept (the workflow attests
    # them); None: nowhere.
    tarballs: Path | None = None
    # The caps on the fetched pins a market's archive carries (`max_archived_pin_bytes`,
    # `max_archived_pins_bytes`).
    limits: Limits = field(default_factory=Limits)

    @property
    def as_of(self) -> date:
        assert self.options.as_of is not None
        return self.options.as_of


@dataclass
class CloseReport:
    plan: Plan
    done: list[str] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)
    problems: list[Finding] = field(default_factory=list)

    @property
    def failed(self) -> bool:
        blocked = any(m.phase == "blocked" for m in self.plan.markets)
        return bool(self.errors) or blocked or any(p.severity == "error" for p in self.problems)

    def render(self) -> str:
        lines = [self.plan.render().rstrip("\n")]
        lines += [f"done: {line}" for line in self.done]
        lines += [f"{p.severity}: {p.code.value}: {p.message}" for p in self.problems]
        lines += [f"error: {line}" for line in self.errors]
        lines += [
            f"error: market {m.market} blocked: {m.note}"
            for m in self.plan.markets
            if m.phase == "blocked"
        ]
        return "\n".join(lines) + "\n"


def _open(job: Job) -> tuple[GitHistory, Git]:
    root = job.root
    workspace = open_workspace(root)
    history = workspace.history
    if not isinstance(history, GitHistory):
        workspace.close()
        raise ClaimsError(
            f"close-windows needs the registry's git repository: {history.unavailable}",
            "run it in a clone of the registry (with its whole history)",
        )
    git = Git(
        history.repo,
        history.base_ref or "main",
        history.prefix,
        push_token=job.push_token,
        server_url=job.server_url,
    )
    return history, git


def _read_record(
    root: Path, git: Git, market: int
) -> tuple[ResolutionRecord | None, bool, str | None]:
    path = record_path(market)
    file = root / path
    if file.is_symlink() or (file.exists() and not file.is_file()):
        return None, False, f"{path} is not a regular file"
    changed = _changed_by_hand(git, market, file.read_bytes() if file.exists() else None)
    if changed is not None:
        return None, False, changed
    if not file.exists():
        return None, False, None
    raw = file.read_bytes()
    record = ResolutionRecord.from_yaml(raw, path)
    if isinstance(record, str):
        return None, False, record
    if record.market != market:
        return None, False, f"{path} is the record of market {record.market}"
    return record, git.committed(path, raw), None


def _changed_by_hand(git: Git, market: int, raw: bytes | None) -> str | None:
    """Why the market's record is not the one the job left, or None. The job's last commit of
    the record (its resolution, or --reopen) says what must be there: the same record on the
    branch and in the checkout, or (after --reopen) none on the branch. A record is final: the
    job never resolves a market again because its record went missing or was edited."""
    path = record_path(market)
    resolved = f"resolutions: market {market} resolved "
    reopened = f"resolutions: market {market} reopened "
    ours = next(
        (
            (sha, subject)
            for sha, email, subject in git.changes_of(path)
            if email == BOT_EMAIL and subject.startswith((resolved, reopened))
        ),
        None,
    )
    if ours is None:
        return None
    sha, subject = ours
    tip = git.content(git.branch, path)
    if subject.startswith(reopened):
        if tip is None:
            return None
        left = f"{path} was added again on {git.branch} after --reopen {market} moved it"
    else:
        recorded = git.content(sha, path)
        if tip == recorded and raw == recorded:
            return None
        where = git.branch if tip != recorded else "the checkout"
        left = (
            f"{path}, which the job committed in {sha[:12]}, was deleted"
            if tip is None or raw is None
            else f"{path} on {where} differs from the record the job committed in {sha[:12]}"
        )
    return (
        f"{left}: a record is final; restore it (git checkout {sha[:12]} -- {path}), or reopen"
        f" the market (claims close-windows --reopen {market})"
    )


def gather_facts(job: Job) -> tuple[list[MarketFacts], list[Finding]]:
    """Each market's facts: its dates, tag, main's commit at the close, its record, and for
    a closed market what the archive holds. Reads git, the registry and the archive."""
    history, git = _open(job)
    try:
        from bot.app.registry import load_registry
        from bot.edges.tree import FolderTree

        registry = load_registry(FolderTree(job.root))
        markets, problems = registry.markets()
        rules = registry.rules
        as_of = job.as_of
        found: dict[tuple[str, str | None], CopyFact] = {}

        def find(tag: str, key: str | None) -> CopyFact:
            if (tag, key) not in found:
                try:
                    state = job.archive.find(tag, job.repository_url, key)
                    found[tag, key] = CopyFact(found=state)
                except ClaimsError as error:
                    found[tag, key] = CopyFact(error=error.message)
            return found[tag, key]

        facts = []
        for market in markets:
            dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
            name = dates.snapshot_tag
            tag = history.tag(name)
            record, committed, problem = _read_record(job.root, git, market.id)
            key = copy_key(job.root, market.id)
            copy = CopyFact()
            if dates.state(as_of) == "closed" and problem is None:
                if record is None:
                    copy = _unrecorded_copy(name, key, find)
                elif record.outcome != "ANNULLED" and as_of <= dates.annul_on:
                    copy = _check(job, record, key, find)
            facts.append(
                MarketFacts(
                    market.id,
                    market.title,
                    dates,
                    tag,
                    tag is None or history.on_branch(tag.commit),
                    history.commit_at(end_of_day(dates.window_closes)),
                    record,
                    committed,
                    problem,
                    copy,
                    key,
                )
            )
        return facts, list(problems)
    finally:
        history.close()


def copy_key(root: Path, market: int) -> str:
    """The key of the copy holding market `market`'s record (`ArchiveMetadata.market`):
    `market-NN`, or after the K-th `--reopen` (K records in resolutions/reopened/)
    `market-NN-reopened-K`, so a record made again is never taken for the one reopened."""
    reopened = root / "resolutions" / "reopened"
    count = len(list(reopened.glob(f"market-{market:02d}-*.yaml"))) if reopened.is_dir() else 0
    return f"market-{market:02d}" + (f"-reopened-{count}" if count else "")


def _unrecorded_copy(tag: str, key: str, find: Callable[[str, str | None], CopyFact]) -> CopyFact:
    """What the archive holds for a closed market with no record: its own copy (a published
    one holds the record an earlier run decided), and else any published copy of the tag
    (another market's: it counts against annulment)."""
    own = find(tag, key)
    if own.published or own.error is not None:
        return own
    other = find(tag, None)
    if other.error is not None:
        return replace(own, error=other.error)
    return replace(own, tag_copy=other.found if other.published else None)


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

    def check(self, record: ArchivedRecord) -> CopyState:
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
    history, git = _open(job)
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
    from bot.rules.judge import folder_market

    groups: dict[int, list[dict[str, str]]] = {}
    for batch in plan.batches:
        for entry in batch:
            groups.setdefault(folder_market(entry["attempt"]) or 0, []).append(dict(entry))
    resolving = set(groups) | {market for market, _ in plan.waiting}
    history, git = _open(job)
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
    from bot.app.gather import read_adapter_files
    from bot.app.matrix import is_wrapped
    from bot.app.registry import load_registry
    from bot.app.rerun import AdapterRerun
    from bot.app.resolutions import RERUN_RESULTS
    from bot.edges.tree import GitTree
    from bot.rules.judge import folder_market

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


def _check(
    job: Job,
    record: ResolutionRecord,
    key: str,
    find: Callable[[str, str | None], CopyFact],
) -> CopyFact:
    recorded = record.archive
    if recorded is None or record.archive_kind != job.archive_kind:
        return find(record.tag, key)
    try:
        state = job.archive.check(recorded)
    except ClaimsError as error:
        return CopyFact(error=error.message)
    if state.ok:
        return CopyFact(checked=state)
    replacement = find(record.tag, key)  # a copy a later run made again
    found = replacement.found
    if replacement.published and found is not None and found.record_id != recorded.record_id:
        return replace(replacement, checked=state)
    return CopyFact(checked=state, error=replacement.error)


class _Records:
    """The archive records `resolve_registry` reads (`record(tag)`), from what `find` said."""

    def __init__(self, copies: Mapping[str, ArchivedRecord]) -> None:
        self.copies = copies

    def record(self, tag: str) -> dict[str, object] | None:
        copy = self.copies.get(tag)
        return copy.as_record() if copy is not None else None


def _published(
    tag: str, state: DepositionState, clock: Callable[[], datetime]
) -> ArchivedRecord | None:
    """The record of a published copy `find` returned."""
    if not state.published or not state.files:
        return None
    stored = state.files[0]
    reference = state.doi or state.record_id or state.id
    return ArchivedRecord(
        tag=tag,
        reference=reference,
        record_id=state.record_id or state.id,
        file_name=stored.name,
        checksum=stored.checksum,
        created=state.modified or clock(),
        url=f"https://doi.org/{state.doi}" if state.doi else None,
    )


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


def close_windows(job: Job, dry_run: bool = False, reopen: int | None = None) -> CloseReport:
    """Plan, and unless `dry_run` apply, the scheduled close for every market as of `job.as_of`."""
    reopened: dict[int, dict[str, str]] = {}
    if reopen is not None and not dry_run:
        history, git = _open(job)
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
        any(m.steps for m in plan.markets) or _results_to_keep(job.options.rerun_adapter, job.root)
    ):
        return report
    history, git = _open(job)
    try:
        git.on_branch()
    finally:
        history.close()
    _Applier(job, git, {f.market: f for f in facts}, report, reopened).run()
    return report


def _results_to_keep(rerun: object, root: Path) -> bool:
    """True when this run's rerun results hold one resolutions/reruns/ does not keep yet."""
    from bot.app.resolutions import keep_rerun_results

    results = getattr(rerun, "results", None)
    return isinstance(results, Path) and bool(keep_rerun_results(results, root, write=False))


@dataclass
class _Applier:
    job: Job
    git: Git
    facts: Mapping[int, MarketFacts]
    report: CloseReport
    reopened: Mapping[int, Mapping[str, str]]
    # market -> its record as decided this run (resolved, or adopted from its published copy)
    drafts: dict[int, ResolutionRecord] = field(default_factory=dict)
    copies: dict[int, ArchivedRecord] = field(default_factory=dict)  # market -> its own copy
    digests: dict[int, str] = field(default_factory=dict)  # market -> sha256 of its copy's file
    failed: set[int] = field(default_factory=set)

    def _markets(self, kind: str) -> list[MarketPlan]:
        return [
            m
            for m in self.report.plan.markets
            if m.market not in self.failed and m.has(kind)  # type: ignore[arg-type]
        ]

    def _fail(self, markets: list[int], message: str) -> None:
        self.failed.update(markets)
        self.report.errors.append(message)

    def run(self) -> None:
        self._tags()
        self._resolve()
        self._archive()
        self._records()
        self._issues()

    # 1 -------------------------------------------------------------------------------------
    def _tags(self) -> None:
        for market in [*self._markets("tag"), *self._markets("retag")]:
            facts = self.facts[market.market]
            commit = (
                facts.close_commit
                if market.has("tag")
                else (facts.record.commit if facts.record else None)
            )
            if commit is None:
                continue
            name = market.tag
            try:
                self.git.create_tag(
                    name,
                    commit,
                    f"{name}: the registry when the filing window of market {market.market}"
                    f" closed ({facts.dates.window_closes})",
                    self.job.clock(),
                )
                self.job.crash("tagged")
                self.git.push_tag(name)
            except ClaimsError as error:
                self._fail([market.market], f"market {market.market}: {error.message}")
                continue
            self.report.done.append(f"market {market.market}: {name} on {commit[:12]}")

    # 2 -------------------------------------------------------------------------------------
    def _resolve(self) -> None:
        """Decide each market to resolve: adopt the record inside its own published copy (an
        earlier run decided it: `_adopt`), else resolve it from the tag's tree."""
        wanted = self._markets("resolve")
        if not wanted:
            return
        counted: dict[str, ArchivedRecord] = {}  # tag -> a published copy of it (annulment)
        for market in wanted:
            state = self.facts[market.market].copy.counted
            published = _published(market.tag, state, self.job.clock) if state else None
            if published is not None:
                counted.setdefault(market.tag, published)
        adopted = [m for m in wanted if self._adopt(m)]
        with open_workspace(self.job.root) as workspace:
            for market in wanted:
                if market in adopted or market.market in self.failed:
                    continue
                draft = self._decide(market, workspace, _Records(counted))
                if draft is not None:
                    self.drafts[market.market] = draft
                    self.job.crash("resolved")

    def _adopt(self, market: MarketPlan) -> bool:
        """True when the market's own copy is published (so an earlier run decided it, and the
        decision is public and immutable): its record is read from the copy, never decided
        again (a rejected push would get a market resolved a second time, on another day's
        clock, while the first run's copy said otherwise). A copy that cannot be read
        blocks the market this run (never a second decision)."""
        number = market.market
        facts = self.facts[number]
        if not facts.copy.published or facts.copy.found is None:
            return False
        copy = _published(market.tag, facts.copy.found, self.job.clock)
        if copy is None:
            return False
        with tempfile.TemporaryDirectory(prefix="claims-adopt-") as work:
            try:
                tarball = self.job.archive.fetch(copy, Path(work) / copy.file_name)
                record = record_in_copy(tarball, market.tag, number)
                digest = _sha256(tarball)
                snapshot = facts.tag.commit if facts.tag is not None else facts.close_commit
                if record.commit is not None and record.commit != snapshot:
                    raise ArchiveError(
                        "adopt",
                        f"its record names {record.commit[:12]} as the snapshot, but"
                        f" {market.tag} is {str(snapshot)[:12]}",
                    )
            except ClaimsError as error:
                self._fail(
                    [number],
                    f"market {number} blocked this run: its copy {copy.reference} is published,"
                    f" so an earlier run decided it, but its record cannot be read from the"
                    f" copy ({error.message}); the market is never decided a second time",
                )
                return True
        self.drafts[number] = record
        self.copies[number] = copy
        self.digests[number] = digest
        self.report.done.append(
            f"market {number}: the record inside {copy.reference} adopted ({record.outcome},"
            f" resolved {record.data['resolved_at']})"
        )
        return True

    def _decide(
        self, market: MarketPlan, workspace: Workspace, counted: _Records
    ) -> ResolutionRecord | None:
        """The market resolved from the tag's tree as of today, or None (blocked this run)."""
        try:
            resolved = resolve_registry(
                workspace.registry,
                workspace.history,
                counted,
                with_rerun_deadline(
                    self.job.options, self.job.as_of, self.facts[market.market].dates
                ),
                market=market.market,
            )
        except ClaimsError as error:
            self._fail([market.market], f"market {market.market}: {error.message}")
            return None
        self.report.problems += [
            p for p in resolved.registry_problems if p not in self.report.problems
        ]
        (resolution,) = resolved.markets
        unrerun = [
            a.attempt for a in resolution.attempts if Code.ADAPTER_NOT_RERUN.value in a.reasons
        ]
        if unrerun and resolution.outcome != "ANNULLED":
            # Fail closed: a record is final, so a wrapped attempt that was not rerun on its
            # evidence must not be counted out for good.
            self._fail(
                [market.market],
                f"market {market.market} blocked this run: wrapped attempt(s)"
                f" {', '.join(unrerun)} have no adapter rerun result for their"
                " evidence, and a record is final, so the market is not resolved as if"
                " they did not qualify; rerun their adapters (the workflow's rerun"
                " jobs, or --rerun-adapters) and run the job again",
            )
            return None
        unfetched = [
            a.attempt for a in resolution.attempts if Code.PIN_NOT_FETCHED.value in a.reasons
        ]
        if unfetched and resolution.outcome != "ANNULLED":
            # As for reruns: a record is final, so an attempt whose pins the close's pin jobs
            # did not fetch (yet) is never counted out for good before the pin deadline.
            self._fail(
                [market.market],
                f"market {market.market} blocked this run: attempt(s) {', '.join(unfetched)}"
                " have pins with no fetched result (pin-not-fetched: the pin job was lost, or"
                " the filer's server did not answer before the market's pin deadline); run the"
                " job again (its pin jobs fetch them)",
            )
            return None
        tag = workspace.history.tag(market.tag)
        return ResolutionRecord.of(
            resolution,
            tag.commit if tag is not None else None,
            self.job.clock(),
            reopened=self.reopened.get(market.market),
        )

    # 3 -------------------------------------------------------------------------------------
    def _archive(self) -> None:
        """One copy per market: the tag's tree with that market's record (as decided, before
        its archive reference is known), so every record is inside the copy it cites."""
        for market in [*self._markets("archive"), *self._markets("rearchive")]:
            number = market.market
            if number in self.copies:
                continue  # adopted from its published copy
            if number in self.drafts:
                content = self.drafts[number].to_yaml()
            elif market.has("rearchive"):
                content = (self.job.root / record_path(number)).read_bytes()
            else:
                continue  # not decided this run
            self._archive_market(market, content)

    def _archive_market(self, market: MarketPlan, record: bytes) -> None:
        number, tag = market.market, market.tag
        metadata = ArchiveMetadata(
            repository_url=self.job.repository_url,
            tag=tag,
            publication_date=self.job.clock().date(),
            description=(
                f"The AI Safety Claims registry as frozen when the filing window of market"
                f" {number} closed ({tag}), with its resolution record"
                f" ({record_path(number)})."
            ),
            creators=(CREATOR,),
            organisations=(CREATOR,),
            keywords=(f"market-{number}",),
            market=self.facts[number].copy_key or f"market-{number:02d}",
        )
        carried = archived_pins(self.job.options, number, self.job.limits)
        self.report.problems += [p for p in carried.problems if p not in self.report.problems]
        extra = {record_path(number): record}
        if carried.manifest is not None:
            extra[PINS_MANIFEST] = carried.manifest
        with tempfile.TemporaryDirectory(prefix="claims-archive-") as work:
            try:
                tarball = self.git.archive(
                    tag, extra, Path(work) / metadata.file_name, files=carried.files
                )
                copy = self.job.archive.archive(tag, tarball, metadata)
            except ClaimsError as error:
                self._fail(
                    [number] if not self.facts[number].record else [],
                    f"{tag}: not archived for market {number}, so it stays unrecorded until a"
                    f" run archives it: {error.message}",
                )
                return
            digest = self._keep(tarball, copy)
        if digest is None and number in self.drafts:
            # The archive returned a copy an earlier run published (its `find` failed while
            # the facts were gathered, or did not list it yet): it holds that run's record,
            # not this one. Never record a second decision citing it: the next run adopts.
            self._fail(
                [number],
                f"market {number} blocked this run: {tag}'s copy {copy.reference} for it was"
                " published by an earlier run and holds another file than the one this run"
                " made, so it holds that run's record: the market is never decided a second"
                " time; the next run adopts the record inside the copy",
            )
            return
        self.copies[number] = copy
        if digest is not None:
            self.digests[number] = digest
        self.report.done.append(
            f"{tag}: archived for market {number} as {copy.reference} ({copy.checksum})"
        )
        self.job.crash("archived")

    def _keep(self, tarball: Path, copy: ArchivedRecord) -> str | None:
        """`sha256:<hex>` of the tarball when the archive holds exactly it (its md5 is the
        copy's checksum: a copy an earlier run published may hold other bytes), kept in
        `job.tarballs` for the workflow to attest; None when the copy is another file."""
        if md5_of(tarball) != copy.checksum:
            return None
        if self.job.tarballs is not None:
            self.job.tarballs.mkdir(parents=True, exist_ok=True)
            kept = self.job.tarballs / tarball.name
            kept.unlink(missing_ok=True)
            # A hard link where it can be (one disk on GitHub's runner): a tarball carries up
            # to max_archived_pins_bytes, and a second copy of it would not fit the budget
            # Limits.max_kept_pins_bytes is planned with.
            try:
                os.link(tarball, kept)
            except OSError:
                shutil.copyfile(tarball, kept)
        return _sha256(tarball)

    # 4 -------------------------------------------------------------------------------------
    def _records(self) -> None:
        committed = False
        for market in self._markets("commit"):
            number = market.market
            path = record_path(number)
            if market.has("record"):
                if number not in self.drafts:
                    continue
                draft = self.drafts[number]
                copy = self.copies.get(number)
                record = (
                    draft.with_archive(copy, self.job.archive_kind, self.digests.get(number))
                    if copy
                    else draft
                )
                if market.has("archive") and copy is None:
                    continue  # never recorded without its copy while a copy can still count
                target = self.job.root / path
                target.parent.mkdir(parents=True, exist_ok=True)
                temporary = target.with_name(f".{target.name}.tmp")
                temporary.write_bytes(record.to_yaml())
                temporary.replace(target)
                self.job.crash("record-written")
                outcome: str = record.outcome
            else:
                existing = self.facts[number].record
                outcome = existing.outcome if existing else "?"
            try:
                self.git.commit(
                    [path], f"resolutions: market {number} resolved {outcome}", self.job.clock()
                )
            except ClaimsError as error:
                self._fail([number], f"market {number}: {error.message}")
                continue
            committed = True
            self.report.done.append(f"market {number}: {path} committed ({outcome})")
            self.job.crash("committed")
        committed = self._rerun_results() or committed
        if committed or any(self.facts[m.market].record for m in self.report.plan.markets):
            try:
                replays = self.git.push_branch(self.job.clock())
            except ClaimsError as error:
                # No issue may announce a record origin does not hold. The next run (a fresh
                # checkout) adopts each record from its published copy, never decides again.
                self._fail([m.market for m in self.report.plan.markets], error.message)
                return
            if replays:
                self.report.done.append(
                    f"{self.git.branch} moved on {REMOTE_NAME} while the job ran: its record"
                    f" commits were replayed onto it ({replays} time(s)) and pushed, unchanged"
                )

    def _rerun_results(self) -> bool:
        """Commit the adapter rerun results this run counted to resolutions/reruns/, where the
        website reads them (`claims site`): a wrapped attempt's page then shows its recorded
        rerun, never `adapter-not-rerun`, and no filer's file is believed for it."""
        from bot.app.resolutions import RERUN_RESULTS, keep_rerun_results

        results = getattr(self.job.options.rerun_adapter, "results", None)
        if not isinstance(results, Path):
            return False
        paths = keep_rerun_results(results, self.job.root)
        if not paths:
            return False
        try:
            self.git.commit(
                paths,
                f"resolutions: {len(paths)} adapter rerun result(s) the close counted",
                self.job.clock(),
            )
        except ClaimsError as error:
            self.report.errors.append(f"adapter rerun results: {error.message}")
            return False
        self.report.done.append(f"{len(paths)} adapter rerun result(s) kept in {RERUN_RESULTS}/")
        return True

    # 5 -------------------------------------------------------------------------------------
    def _issues(self) -> None:
        for market in self.report.plan.markets:
            if market.market in self.failed:
                continue
            for step in market.steps:
                if step.kind != "issue":
                    continue
                record = self._record(market.market)
                if record is None:
                    continue  # the record was not made this run: no issue about it yet
                if self.job.issues.find(step.key, step.label) is not None:
                    continue
                title, body = _issue_text(market, step.key, step.detail, record)
                where = self.job.issues.open(step.key, title, body, [step.label])
                self.report.done.append(f"market {market.market}: issue {title!r} at {where}")
                self.job.crash("issue-opened")

    def _record(self, market: int) -> ResolutionRecord | None:
        file = self.job.root / record_path(market)
        if not file.is_file():
            return None
        record = ResolutionRecord.from_yaml(file.read_bytes(), record_path(market))
        return record if isinstance(record, ResolutionRecord) else None


def _sha256(path: Path) -> str:
    """`sha256:<hex>` of the file at `path`."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def record_in_copy(tarball: Path, tag: str, market: int) -> ResolutionRecord:
    """The record of `market` inside a copy's tarball (`TAG/resolutions/market-NN.yaml`),
    checked by the schema, naming that market and tag; raises `ArchiveError` otherwise."""
    name = f"{tag}/{record_path(market)}"
    try:
        with tarfile.open(tarball, mode="r:gz") as tar:
            member = tar.getmember(name)
            stream = tar.extractfile(member) if member.isfile() else None
            if stream is None or member.size > RECORD_LIMIT:
                raise ArchiveError("adopt", f"{name} in the copy is no regular file of a record")
            raw = stream.read()
    except KeyError:
        raise ArchiveError("adopt", f"the copy holds no {name}") from None
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise ArchiveError("adopt", f"the copy is no readable tar.gz: {exc}") from exc
    record = ResolutionRecord.from_yaml(raw, name)
    if isinstance(record, str):
        raise ArchiveError("adopt", record)
    if record.market != market or record.tag != tag:
        raise ArchiveError(
            "adopt", f"{name} is the record of market {record.market} on {record.tag}"
        )
    return record


def _issue_text(
    market: MarketPlan, key: str, detail: str, record: ResolutionRecord
) -> tuple[str, str]:
    data = record.data
    number = market.market
    if key.endswith("registry-warning"):
        title = f"Market {number}: a copy of {market.tag} is missing"
        body = (
            f"The scheduled job found a problem with the snapshot of market {number}: {detail}.\n\n"
            f"The market resolved {record.outcome} ({record_path(number)}). It is annulled only"
            f" if neither {market.tag} nor its archive copy exists after"
            f" {data['dates']['annul_on']}; the job makes the missing copy again."
        )
        return title, body
    if record.outcome == "ANNULLED":
        title = f"Market {number} annulled: {market.tag} and its archive copy are missing"
    else:
        title = f"Market {number} resolved {record.outcome}"
    archive = data.get("archive") or {}
    lines = [
        f"**{record.outcome}**: {data['why']}",
        "",
        f"- record: `{record_path(number)}`",
        f"- snapshot: `{market.tag}`"
        + (f" at `{record.commit}`" if record.commit else " (no tag)"),
        f"- archive: {archive.get('doi') or archive.get('id') or 'none'}"
        + (f" ({archive.get('checksum')})" if archive else ""),
        f"- resolved as of {data['as_of']} by claims {data['bot_version']}",
        "",
        "| attempt | evidence | status | outcome |",
        "|---|---|---|---|",
    ]
    lines += [
        f"| {a['attempt']} | {a['evidence']} | {a['status'] or '-'} | {a['outcome'] or '-'} |"
        for a in data["attempts"]
    ] or ["| (none) | | | |"]
    if data["warnings"]:
        lines += ["", "Warnings:", *(f"- {w}" for w in data["warnings"])]
    return title, "\n".join(lines)

"""`claims close-windows`: gather each market's facts, plan (`bot/jobs/plan.py`), apply.

The applier runs the plan in phases, each step safe to repeat after a crash or a kill at any
point, because each first looks for what it makes:

1. **tags**: `Git.create_tag` finds an existing tag (it must be annotated and point at the
   commit, else the market is blocked: a tag is never moved) before it makes one; the push
   sends it only when origin lacks it.
2. **resolve**: the registry is opened again (the new tags read) and each market resolved by
   the app layer (`resolve_registry`, adapter reruns as the options say: on by default) from
   its tag's tree. Nothing is written: a draft record.
3. **archive**: per tag, `git archive` of the tag with the draft records of its markets, handed
   to the `Archive` (Zenodo or the local folder), which finds an existing draft or published
   copy before it makes one. Only a returned `ArchivedRecord` counts as archived; a failure
   leaves the market unrecorded this run (the next run finishes it).
4. **records**: `resolutions/market-NN.yaml` is written (atomically), then committed on the
   base branch; a record already there is never rewritten (only committed, if a run stopped
   before its commit). The branch and the tags are pushed when the repository has `origin`.
5. **issues**: each issue carries a marker; one with the marker and label is looked for first.

`crash(point)` is called after each step ("tagged", "resolved", "archived", "record-written",
"committed", "issue-opened"): the tests kill the job there and run it again.
"""

from __future__ import annotations

import hashlib
import shutil
import tempfile
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime
from pathlib import Path

from bot.app import open_workspace, resolve_registry
from bot.archive.port import (
    Archive,
    ArchivedRecord,
    ArchiveMetadata,
    CopyState,
    DepositionState,
    md5_of,
)
from bot.dates import MarketDates, end_of_day
from bot.errors import ClaimsError
from bot.findings import Code, Finding
from bot.gather import VerifyOptions
from bot.history import GitHistory
from bot.jobs.gitops import BOT_EMAIL, Git
from bot.jobs.issues import Issues
from bot.jobs.plan import CopyFact, MarketFacts, MarketPlan, Plan, plan_close
from bot.jobs.records import ArchiveKind, ResolutionRecord, record_path
from bot.jobs.stuck import with_rerun_deadline
from bot.resolution import MarketResolution
from bot.timestamps import format_moment

__all__ = ["CloseReport", "Job", "close_windows", "gather_facts", "rerun_matrix"]

CREATOR = "AI Safety Claims registry"


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
        from bot.registry import load_registry
        from bot.tree import FolderTree

        registry = load_registry(FolderTree(job.root))
        markets, problems = registry.markets()
        rules = registry.rules
        as_of = job.as_of
        found: dict[str, CopyFact] = {}

        def find(tag: str) -> CopyFact:
            if tag not in found:
                try:
                    found[tag] = CopyFact(found=job.archive.find(tag, job.repository_url))
                except ClaimsError as error:
                    found[tag] = CopyFact(error=error.message)
            return found[tag]

        facts = []
        for market in markets:
            dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
            name = dates.snapshot_tag
            tag = history.tag(name)
            record, committed, problem = _read_record(job.root, git, market.id)
            copy = CopyFact()
            if dates.state(as_of) == "closed" and problem is None:
                if record is None:
                    copy = find(name)
                elif record.outcome != "ANNULLED" and as_of <= dates.annul_on:
                    copy = _check(job, record, find)
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
                )
            )
        return facts, list(problems)
    finally:
        history.close()


class _Unasked:
    """The archive as the rerun plan sees it: never asked (the planning job holds no
    secret). Which markets resolve does not depend on the copies, except that a late close the
    real run would block is planned too (a rerun too many, never one too few)."""

    def find(self, tag: str, repository_url: str) -> DepositionState | None:
        return None

    def archive(self, tag: str, tarball: Path, metadata: ArchiveMetadata) -> ArchivedRecord:
        raise AssertionError("the rerun plan archives nothing")

    def check(self, record: ArchivedRecord) -> CopyState:
        return CopyState("ok")


def rerun_matrix(job: Job) -> dict[str, list[dict[str, str]]]:
    """`{"include": [{"attempt": FOLDER, "commit": SHA}, ...]}`: the wrapped attempts of the
    markets this run resolves, each with the commit whose tree the resolution reads them from
    (the snapshot tag's commit, or main's commit at the close where the tag is yet to be made;
    for a late close also the branch's tip, which is read when the tag does not count). The
    scheduled workflow reruns each in a job with no token scope and no secret."""
    from bot.github.plan import is_wrapped
    from bot.registry import load_registry
    from bot.tree import GitTree

    facts, _ = gather_facts(replace(job, archive=_Unasked()))
    plan = plan_close(facts, job.as_of)
    by_market = {f.market: f for f in facts}
    history, git = _open(job)
    try:
        wanted: list[tuple[int, str]] = []
        for market in plan.markets:
            if not market.has("resolve"):
                continue
            fact = by_market[market.market]
            commits = [fact.tag.commit if fact.tag is not None else fact.close_commit]
            if market.phase == "late-close":
                commits.append(history.repo.commit(git.branch).hexsha)
            wanted += [(market.market, c) for c in dict.fromkeys(commits) if c is not None]
        include: list[dict[str, str]] = []
        for number, commit in wanted:
            try:
                snapshot = load_registry(GitTree(history.repo, commit, history.prefix))
            except ClaimsError:
                continue  # the close reports a tree it cannot read
            folder = f"attempts/market-{number:02d}"
            if snapshot.tree.entry(folder) is None:
                continue
            include += [
                {"attempt": attempt, "commit": commit}
                for attempt in snapshot.attempt_folders([folder])
                if is_wrapped(snapshot, attempt)
            ]
        return {"include": include}
    finally:
        history.close()


def _check(job: Job, record: ResolutionRecord, find: Callable[[str], CopyFact]) -> CopyFact:
    recorded = record.archive
    if recorded is None or record.archive_kind != job.archive_kind:
        return find(record.tag)
    try:
        state = job.archive.check(recorded)
    except ClaimsError as error:
        return CopyFact(error=error.message)
    if state.ok:
        return CopyFact(checked=state)
    replacement = find(record.tag)  # a copy a later run made again
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
    if dry_run or not any(m.steps for m in plan.markets):
        return report
    history, git = _open(job)
    try:
        git.on_branch()
    finally:
        history.close()
    _Applier(job, git, {f.market: f for f in facts}, report, reopened).run()
    return report


@dataclass
class _Applier:
    job: Job
    git: Git
    facts: Mapping[int, MarketFacts]
    report: CloseReport
    reopened: Mapping[int, Mapping[str, str]]
    drafts: dict[int, tuple[ResolutionRecord, MarketResolution]] = field(default_factory=dict)
    copies: dict[str, ArchivedRecord] = field(default_factory=dict)
    digests: dict[str, str] = field(default_factory=dict)  # tag -> sha256 of its tarball
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
        wanted = self._markets("resolve")
        if not wanted:
            return
        for market in wanted:
            facts = self.facts[market.market]
            if facts.copy.found is not None:
                published = _published(market.tag, facts.copy.found, self.job.clock)
                if published is not None:
                    self.copies[market.tag] = published
        with open_workspace(self.job.root) as workspace:
            for market in wanted:
                try:
                    resolved = resolve_registry(
                        workspace.registry,
                        workspace.history,
                        _Records(self.copies),
                        with_rerun_deadline(self.job, self.facts[market.market].dates),
                        market=market.market,
                    )
                except ClaimsError as error:
                    self._fail([market.market], f"market {market.market}: {error.message}")
                    continue
                self.report.problems += [
                    p for p in resolved.registry_problems if p not in self.report.problems
                ]
                (resolution,) = resolved.markets
                unrerun = [
                    a.attempt
                    for a in resolution.attempts
                    if Code.ADAPTER_NOT_RERUN.value in a.reasons
                ]
                if unrerun and resolution.outcome != "ANNULLED":
                    # Fail closed: a record is final, so a wrapped attempt that was not rerun
                    # on its evidence must not be counted out for good.
                    self._fail(
                        [market.market],
                        f"market {market.market} blocked this run: wrapped attempt(s)"
                        f" {', '.join(unrerun)} have no adapter rerun result for their"
                        " evidence, and a record is final, so the market is not resolved as if"
                        " they did not qualify; rerun their adapters (the workflow's rerun"
                        " jobs, or --rerun-adapters) and run the job again",
                    )
                    continue
                tag = workspace.history.tag(market.tag)
                draft = ResolutionRecord.of(
                    resolution,
                    tag.commit if tag is not None else None,
                    self.job.clock(),
                    reopened=self.reopened.get(market.market),
                )
                self.drafts[market.market] = (draft, resolution)
                self.job.crash("resolved")

    # 3 -------------------------------------------------------------------------------------
    def _archive(self) -> None:
        by_tag: dict[str, list[MarketPlan]] = {}
        for market in [*self._markets("archive"), *self._markets("rearchive")]:
            if market.market in self.drafts or market.has("rearchive"):
                by_tag.setdefault(market.tag, []).append(market)
        for tag, markets in by_tag.items():
            numbers = [m.market for m in markets]
            extra = {}
            for number in numbers:
                if number in self.drafts:
                    extra[record_path(number)] = self.drafts[number][0].to_yaml()
                else:
                    extra[record_path(number)] = (self.job.root / record_path(number)).read_bytes()
            metadata = ArchiveMetadata(
                repository_url=self.job.repository_url,
                tag=tag,
                publication_date=self.job.clock().date(),
                description=(
                    f"The AI Safety Claims registry as frozen when the filing window of market(s)"
                    f" {', '.join(map(str, numbers))} closed ({tag}), with the resolution"
                    " record(s) under resolutions/."
                ),
                creators=(CREATOR,),
                keywords=tuple(f"market-{n}" for n in numbers),
            )
            with tempfile.TemporaryDirectory(prefix="claims-archive-") as work:
                try:
                    tarball = self.git.archive(tag, extra, Path(work) / metadata.file_name)
                    copy = self.job.archive.archive(tag, tarball, metadata)
                except ClaimsError as error:
                    self._fail(
                        [n for n in numbers if not self.facts[n].record],
                        f"{tag}: not archived, so market(s) {', '.join(map(str, numbers))} stay"
                        f" unrecorded until a run archives it: {error.message}",
                    )
                    continue
                digest = self._keep(tarball, copy)
            self.copies[tag] = copy
            if digest is not None:
                self.digests[tag] = digest
            self.report.done.append(f"{tag}: archived as {copy.reference} ({copy.checksum})")
            self.job.crash("archived")

    def _keep(self, tarball: Path, copy: ArchivedRecord) -> str | None:
        """`sha256:<hex>` of the tarball when the archive holds exactly it (its md5 is the
        copy's checksum: a copy an earlier run published may hold other bytes), kept in
        `job.tarballs` for the workflow to attest; None when the copy is another file."""
        if md5_of(tarball) != copy.checksum:
            return None
        digest = hashlib.sha256()
        with tarball.open("rb") as stream:
            for block in iter(lambda: stream.read(1 << 20), b""):
                digest.update(block)
        if self.job.tarballs is not None:
            self.job.tarballs.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(tarball, self.job.tarballs / tarball.name)
        return f"sha256:{digest.hexdigest()}"

    # 4 -------------------------------------------------------------------------------------
    def _records(self) -> None:
        committed = False
        for market in self._markets("commit"):
            number = market.market
            path = record_path(number)
            if market.has("record"):
                if number not in self.drafts:
                    continue
                draft, _ = self.drafts[number]
                copy = self.copies.get(market.tag)
                record = (
                    draft.with_archive(copy, self.job.archive_kind, self.digests.get(market.tag))
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
        if committed or any(self.facts[m.market].record for m in self.report.plan.markets):
            try:
                self.git.push_branch()
            except ClaimsError as error:
                # No issue may announce a record origin does not hold: a fresh checkout
                # would resolve the market again. The next run pushes, then opens them.
                self._fail([m.market for m in self.report.plan.markets], error.message)

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

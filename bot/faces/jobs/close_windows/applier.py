"""The applier: the plan run in phases (tags, resolve, archive, records, issues), each step
safe to repeat after a crash."""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from bot.app.api import Workspace, open_workspace, resolve_registry
from bot.app.resolutions import ResolutionRecord, record_path
from bot.edges.archive.port import (
    ArchivedRecord,
    ArchiveError,
    ArchiveMetadata,
    md5_of,
)
from bot.faces.jobs.close_windows.copies import (
    CountedRecords,
    published_record,
    record_in_copy,
    sha256_of,
)
from bot.faces.jobs.close_windows.issue_text import issue_text
from bot.faces.jobs.close_windows.job import Job
from bot.faces.jobs.close_windows.report import CloseReport
from bot.faces.jobs.gitops import REMOTE as REMOTE_NAME
from bot.faces.jobs.gitops import Git
from bot.faces.jobs.pins import PINS_MANIFEST, archived_pins
from bot.faces.jobs.plan import MarketFacts, MarketPlan
from bot.faces.jobs.stuck import with_rerun_deadline
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code

__all__ = ["CREATOR", "Applier"]


CREATOR = "AI Safety Claims registry"


# Fail closed: a record is final, so an attempt the close cannot judge on its evidence yet (a
# wrapped attempt not rerun; pins the pin jobs did not fetch, before the pin deadline) is never
# counted out for good: the market is blocked this run. Each row: the attempts' reason, then
# the message's words before and after their names.
_NOT_JUDGED_YET = (
    (
        Code.ADAPTER_NOT_RERUN,
        "wrapped attempt(s)",
        "have no adapter rerun result for their evidence, and a record is final, so the market"
        " is not resolved as if they did not qualify; rerun their adapters (the workflow's rerun"
        " jobs, or --rerun-adapters) and run the job again",
    ),
    (
        Code.PIN_NOT_FETCHED,
        "attempt(s)",
        "have pins with no fetched result (pin-not-fetched: the pin job was lost, or the filer's"
        " server did not answer before the market's pin deadline); run the job again (its pin"
        " jobs fetch them)",
    ),
)


@dataclass
class Applier:
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
            published = published_record(market.tag, state, self.job.clock) if state else None
            if published is not None:
                counted.setdefault(market.tag, published)
        adopted = [m for m in wanted if self._adopt(m)]
        with open_workspace(self.job.root) as workspace:
            for market in wanted:
                if market in adopted or market.market in self.failed:
                    continue
                draft = self._decide(market, workspace, CountedRecords(counted))
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
        copy = published_record(market.tag, facts.copy.found, self.job.clock)
        if copy is None:
            return False
        with tempfile.TemporaryDirectory(prefix="claims-adopt-") as work:
            try:
                tarball = self.job.archive.fetch(copy, Path(work) / copy.file_name)
                record = record_in_copy(tarball, market.tag, number)
                digest = sha256_of(tarball)
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
        self, market: MarketPlan, workspace: Workspace, counted: CountedRecords
    ) -> ResolutionRecord | None:
        """The market resolved from the tag's tree as of today, or None (blocked this run)."""
        try:
            resolved = resolve_registry(
                workspace.registry,
                workspace.history,
                counted,
                self.job.as_of,
                market=market.market,
                ports=with_rerun_deadline(
                    self.job.ports, self.job.as_of, self.facts[market.market].dates
                ),
            )
        except ClaimsError as error:
            self._fail([market.market], f"market {market.market}: {error.message}")
            return None
        self.report.problems += [
            p for p in resolved.registry_problems if p not in self.report.problems
        ]
        (resolution,) = resolved.markets
        if resolution.outcome != "ANNULLED":
            for code, attempts_are, then in _NOT_JUDGED_YET:
                waiting = [a.attempt for a in resolution.attempts if code.value in a.reasons]
                if waiting:
                    self._fail(
                        [market.market],
                        f"market {market.market} blocked this run: {attempts_are}"
                        f" {', '.join(waiting)} {then}",
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
        carried = archived_pins(self.job.ports, number, self.job.limits)
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
        return sha256_of(tarball)

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

        results = getattr(self.job.ports.rerun_adapter, "results", None)
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
                title, body = issue_text(market, step.key, step.detail, record)
                where = self.job.issues.open(step.key, title, body, [step.label])
                self.report.done.append(f"market {market.market}: issue {title!r} at {where}")
                self.job.crash("issue-opened")

    def _record(self, market: int) -> ResolutionRecord | None:
        file = self.job.root / record_path(market)
        if not file.is_file():
            return None
        record = ResolutionRecord.from_yaml(file.read_bytes(), record_path(market))
        return record if isinstance(record, ResolutionRecord) else None

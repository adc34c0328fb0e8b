"""Each market's facts as the plan reads them: dates, tag, main's commit at the close, its
record, and for a closed market what the archive holds."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import replace
from pathlib import Path

from bot.app.resolutions import ResolutionRecord, record_path
from bot.faces.jobs.close_windows.job import Job, open_repository
from bot.faces.jobs.gitops import BOT_EMAIL, Git
from bot.faces.jobs.plan import CopyFact, MarketFacts
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.errors import ClaimsError, Refusal
from bot.vocab.findings import Finding

__all__ = ["copy_key", "gather_facts"]


def gather_facts(job: Job) -> tuple[list[MarketFacts], list[Finding]]:
    """Each market's facts: its dates, tag, main's commit at the close, its record, and for
    a closed market what the archive holds. Reads git, the registry and the archive."""
    history, git = open_repository(job)
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
    if isinstance(record, Refusal):
        return None, False, record.reason
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
        state = job.archive.copy_state(recorded)
    except ClaimsError as error:
        return CopyFact(error=error.message)
    if state.ok:
        return CopyFact(checked=state)
    replacement = find(record.tag, key)  # a copy a later run made again
    found = replacement.found
    if replacement.published and found is not None and found.record_id != recorded.record_id:
        return replace(replacement, checked=state)
    return CopyFact(checked=state, error=replacement.error)

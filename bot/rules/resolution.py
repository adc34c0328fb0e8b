"""Market resolution (docs/spec.md §5, §7; seed "Three Way Rule", "Deadlines").

A pure function of the market's dates, its attempts' verdicts, the snapshot's state and the
date resolved on. YES: at least one qualifying attempt met the bars (even if another missed).
NO: at least one qualifying attempt, and every one missed. OTHER: none qualifies. ANNULLED: the
window closed, the annulment date passed, and neither the snapshot tag nor its archive copy
counts: a registry failure, never OTHER.

A snapshot counts only when it is dated (docs/spec.md §5): an annotated tag whose tagger date, or an
archive record whose `created` time, is no later than the end of the annulment date (Anywhere
on Earth), and no later than the end of the date resolved on (a snapshot made after that day
did not exist yet). A lightweight tag, an undated record, and anything made after the
annulment date never count: they are reported (`snapshot-late`) and never rescue a market.

Like the verdicts (`bot/rules/verdict.py`), these types refuse when built what no resolution
could give (`ImpossibleVerdict`): an outcome the Three Way Rule or the market's state does not
give, a state its dates do not give on the date resolved, an attempt's status its evidence does
not allow, a snapshot's time its state does not keep.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from bot.rules.models import Market
from bot.rules.verdict import AttemptOutcome, AttemptVerdict, ImpossibleVerdict, Status
from bot.vocab.commits import Tag
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.timestamps import format_moment, parse_timestamp

__all__ = [
    "ArchiveState",
    "AttemptSummary",
    "MarketOutcome",
    "MarketResolution",
    "MarketState",
    "Snapshot",
    "TagState",
    "resolve_market",
    "three_way",
]

MarketOutcome = Literal["YES", "NO", "OTHER", "ANNULLED"]
MarketState = Literal["open", "filing-window", "closed", "annulled"]


# ok: counts. missing: none. lightweight: a tag with no date of its own. undated: an annotated
# tag without a tagger date, or an archive record without a valid `created` time. late: made
# after the annulment date ended. after-as-of: made after the date resolved on ended.
TagState = Literal["ok", "missing", "lightweight", "undated", "late", "after-as-of", "off-branch"]
ArchiveState = Literal["ok", "missing", "undated", "late", "after-as-of"]
# The states decided by the tag's or the record's own time: only these keep it.
_DATED = ("ok", "late", "after-as-of")


def _dated_state(
    moment: datetime, dates: MarketDates, as_of: date
) -> Literal["ok", "late", "after-as-of"]:
    if moment > end_of_day(dates.annul_on):
        return "late"
    if moment > end_of_day(as_of):
        return "after-as-of"
    return "ok"


@dataclass(frozen=True, slots=True)
class Snapshot:
    """`snapshot-<R>` as a git tag and as an archived copy, and whether each counts."""

    tag: str
    tag_state: TagState = "missing"
    archive_state: ArchiveState = "missing"
    tagged_at: datetime | None = None  # the tagger date of an annotated tag
    archived_at: datetime | None = None  # the archive record's `created` time
    archive_ref: str | None = None  # the DOI (or id) the archive record names

    def __post_init__(self) -> None:
        for what, state, moment in (
            ("tagged_at", self.tag_state, self.tagged_at),
            ("archived_at", self.archive_state, self.archived_at),
        ):
            if (state in _DATED) != (moment is not None):
                raise ImpossibleVerdict(
                    f"snapshot {self.tag}: {what} {'set' if moment else 'null'} with state"
                    f" {state}: a time is kept for the states it decides ({', '.join(_DATED)})"
                )
        if self.archive_ref is not None and self.archive_state == "missing":
            raise ImpossibleVerdict(f"snapshot {self.tag}: an archive reference with no record")

    @property
    def tag_exists(self) -> bool:
        """True when the repository has the tag (whether or not it counts)."""
        return self.tag_state != "missing"

    @property
    def archived(self) -> bool:
        """True when the archive holds a record of the tag (whether or not it counts)."""
        return self.archive_state != "missing"

    @property
    def tag_counts(self) -> bool:
        """True when the tag counts: annotated, and dated by the annulment date and as-of."""
        return self.tag_state == "ok"

    @property
    def archive_counts(self) -> bool:
        """True when the archive record counts: dated by the annulment date and as-of."""
        return self.archive_state == "ok"

    @classmethod
    def of(
        cls,
        name: str,
        tag: Tag | None,
        record: Mapping[str, object] | None,
        dates: MarketDates,
        as_of: date,
        on_branch: bool = True,
    ) -> Snapshot:
        """Classify the tag `name` (as git has it) and its archive record as of `as_of`.

        `on_branch`: the tag's commit is on the base branch's first-parent history. A tag of
        a commit that main never held (a side branch) snapshots no state of the registry.
        """
        tag_state: TagState = "missing"
        tagged_at = None
        if tag is not None:
            # The tagger date is kept only for a tag whose state is decided by it (ok, late,
            # after-as-of): an off-branch tag snapshots nothing, so its date says nothing, and
            # the report's schema requires null there.
            if not on_branch:
                tag_state = "off-branch"
            elif not tag.annotated:
                tag_state = "lightweight"
            elif tag.tagged_at is None:
                tag_state = "undated"
            else:
                tagged_at = tag.tagged_at
                tag_state = _dated_state(tagged_at, dates, as_of)
        archive_state: ArchiveState = "missing"
        archived_at = None
        reference = None
        if record is not None and record.get("tag", name) != name:
            record = None  # a record of another tag, stored under this name, is no copy of it
        if record is not None:
            created = record.get("created")
            archived_at = parse_timestamp(created) if isinstance(created, str) else None
            archive_state = (
                "undated" if archived_at is None else _dated_state(archived_at, dates, as_of)
            )
            value = record.get("doi") or record.get("id")
            reference = str(value) if value else None
        return cls(name, tag_state, archive_state, tagged_at, archived_at, reference)

    def problems(self, dates: MarketDates) -> list[Finding]:
        """Warnings for a tag or record that exists and never counts: `snapshot-late` (late,
        lightweight or undated), `snapshot-off-branch` (a tag of a commit main never held)."""
        late: list[str] = []
        ended = f"after the annulment date {dates.annul_on} ended"
        never = "so it never counts (docs/spec.md §5)"
        if self.tag_state == "lightweight":
            late.append(
                f"{self.tag} is a lightweight tag: it carries no date of its own, {never};"
                " the snapshot must be an annotated tag (git tag -a)"
            )
        elif self.tag_state == "undated":
            late.append(f"{self.tag} is an annotated tag without a tagger date, {never}")
        elif self.tag_state == "late" and self.tagged_at is not None:
            late.append(f"{self.tag} was tagged {format_moment(self.tagged_at)}, {ended}, {never}")
        if self.archive_state == "undated":
            late.append(
                f"the archive record of {self.tag} has no valid created time (RFC 3339 with"
                f" an offset), {never}"
            )
        elif self.archive_state == "late" and self.archived_at is not None:
            late.append(
                f"the archive record of {self.tag} was created {format_moment(self.archived_at)},"
                f" {ended}, {never}"
            )
        findings = [Finding(Code.SNAPSHOT_LATE, m, severity=Severity.WARNING) for m in late]
        if self.tag_state == "off-branch":
            message = (
                f"{self.tag} tags a commit that is not on the base branch's first-parent"
                " history: it snapshots no state of the registry, so it never counts"
            )
            findings.insert(
                0, Finding(Code.SNAPSHOT_OFF_BRANCH, message, severity=Severity.WARNING)
            )
        return findings


@dataclass(frozen=True, slots=True)
class AttemptSummary:
    """One attempt as its market's resolution counts it."""

    attempt: str
    evidence: Literal["valid", "invalid"]
    status: Status | None
    outcome: AttemptOutcome | None
    reasons: tuple[str, ...]  # the reason codes of its errors, sorted

    def __post_init__(self) -> None:
        object.__setattr__(self, "reasons", tuple(self.reasons))
        if self.evidence == "invalid" and (self.status or self.outcome):
            raise ImpossibleVerdict(f"{self.attempt} has invalid evidence and a status")
        if (self.status == "qualifying") != (self.outcome is not None):
            raise ImpossibleVerdict(f"{self.attempt}: outcome without qualifying status")

    @property
    def counts(self) -> bool:
        """True when the attempt is qualifying, so it counts for the Three Way Rule."""
        return self.status == "qualifying"

    @classmethod
    def of(cls, verdict: AttemptVerdict) -> AttemptSummary:
        findings = [*verdict.findings, *verdict.qualification]
        codes = sorted({f.code.value for f in findings if f.severity == "error"})
        return cls(verdict.attempt, verdict.evidence, verdict.status, verdict.outcome, tuple(codes))


@dataclass(frozen=True)
class MarketResolution:
    """One market's state and outcome as of a date, with each attempt's verdict and why."""

    market: int
    title: str
    demo: bool
    dates: MarketDates
    as_of: date
    state: MarketState
    outcome: MarketOutcome | None
    provisional: MarketOutcome | None
    why: str
    attempts: Sequence[AttemptSummary]
    snapshot: Snapshot
    warnings: Sequence[str] = field(default_factory=tuple)
    source: str = ""  # the tree the attempts were read from (a working tree, or the snapshot)

    def __post_init__(self) -> None:
        object.__setattr__(self, "attempts", tuple(self.attempts))
        object.__setattr__(self, "warnings", tuple(self.warnings))
        where = f"market {self.market}"
        rule, _ = three_way(self.attempts)
        if self.provisional != rule:
            raise ImpossibleVerdict(
                f"{where}: its attempts give {rule} by the Three Way Rule, the report says"
                f" {self.provisional}"
            )
        expected = {
            "open": None,
            "filing-window": None,
            "closed": rule,
            "annulled": "ANNULLED",
        }[self.state]
        if self.outcome != expected:
            raise ImpossibleVerdict(
                f"{where}: state {self.state} with outcome {self.outcome}, expected {expected}"
            )
        dates = self.dates
        if not dates.resolve_by <= dates.window_closes <= dates.annul_on:
            raise ImpossibleVerdict(
                f"{where}: resolve-by, window close and annulment dates out of order"
            )
        if self.state == "annulled" and (
            self.as_of <= dates.annul_on or self.snapshot.tag_counts or self.snapshot.archive_counts
        ):
            raise ImpossibleVerdict(
                f"{where}: annulled only after {dates.annul_on} with neither the tag nor its"
                " archive copy counting"
            )
        # The state is the calendar's on the date resolved (annulled: a closed market's).
        calendar = dates.state(self.as_of)
        if calendar != ("closed" if self.state == "annulled" else self.state):
            raise ImpossibleVerdict(
                f"{where}: state {self.state} on {self.as_of}, its dates say {calendar}"
            )
        # A dated tag's or record's state is its time's, by these dates, on this date
        # (`Snapshot.of`): a tag made after the annulment date never counts.
        snapshot = self.snapshot
        for what, state, moment in (
            ("tag", snapshot.tag_state, snapshot.tagged_at),
            ("archive", snapshot.archive_state, snapshot.archived_at),
        ):
            if moment is not None and state != (timely := _dated_state(moment, dates, self.as_of)):
                raise ImpossibleVerdict(
                    f"{where}: snapshot {what} {state}, its time {format_moment(moment)} says"
                    f" {timely}"
                )


# Why a snapshot copy does not count, as the market's warnings say it.
_ABSENT = {
    ("the tag", "missing"): "no tag",
    ("the tag", "lightweight"): "the tag is lightweight (undated)",
    ("the tag", "undated"): "the tag has no tagger date",
    ("the tag", "late"): "the tag was made after the annulment date",
    ("the tag", "after-as-of"): "the tag was made after the date resolved on",
    ("the tag", "off-branch"): "the tag's commit is not on the base branch",
    ("its archive copy", "missing"): "no archive copy",
    ("its archive copy", "undated"): "the archive record has no created time",
    ("its archive copy", "late"): "the archive record was made after the annulment date",
    ("its archive copy", "after-as-of"): "the archive record was made after the date resolved on",
}


def absent_warning(tag: str, what: str, annul_on: date) -> str:
    """A closed market's warning that its tag or archive copy does not count (yet)."""
    return f"{tag}: {what}; the market is annulled after {annul_on} if neither counts by then"


def copy_missing_warning(tag: str, annul_on: date) -> str:
    """The warning a market resolved before its archive copy was made carries (the scheduled
    job drafts the record, archives it, then records the copy: `ResolutionRecord.with_archive`
    drops this warning, which the copy it records answers)."""
    return absent_warning(tag, "its archive copy missing", annul_on)


def three_way(attempts: Sequence[AttemptSummary]) -> tuple[MarketOutcome, str]:
    """The Three Way Rule over attempts' current verdicts. Returns the outcome and why."""
    qualifying = [v for v in attempts if v.evidence == "valid" and v.status == "qualifying"]
    met = [v.attempt for v in qualifying if v.outcome == "met"]
    if met:
        return "YES", f"qualifying attempt {met[0]} met every bar" + (
            f" ({len(met)} did)" if len(met) > 1 else ""
        )
    if qualifying:
        return "NO", f"{len(qualifying)} qualifying attempt(s), and every one missed the bars"
    return "OTHER", (
        f"no qualifying attempt among {len(attempts)} filed" if attempts else "no attempt was filed"
    )


def resolve_market(
    market: Market,
    dates: MarketDates,
    attempts: Sequence[AttemptVerdict],
    snapshot: Snapshot,
    as_of: date,
    notes: Sequence[str] = (),
    source: str = "",
) -> MarketResolution:
    """Resolve one market as of `as_of`.

    Before the window closes the outcome is None (`provisional` says what the attempts
    would give now). Once it has closed, the Three Way Rule decides, unless the annulment
    date has passed with neither the snapshot tag nor its archive copy: ANNULLED. `notes`
    are warnings the caller adds (checks it did not run).
    """
    state = dates.state(as_of)
    summaries = tuple(AttemptSummary.of(verdict) for verdict in attempts)
    provisional, why = three_way(summaries)
    head = (market.id, market.title, market.demo, dates, as_of)
    warnings: list[str] = list(notes)
    if state != "closed":
        return MarketResolution(
            *head,
            state,
            None,
            provisional,
            f"{state}: provisionally {provisional}, because {why}",
            summaries,
            snapshot,
            tuple(warnings),
            source,
        )
    warnings[:0] = [finding.message for finding in snapshot.problems(dates)]
    absent = [
        (name, state)
        for name, state, counts in (
            ("the tag", snapshot.tag_state, snapshot.tag_counts),
            ("its archive copy", snapshot.archive_state, snapshot.archive_counts),
        )
        if not counts
    ]
    all_missing = all(state == "missing" for _, state in absent)
    if all_missing:
        what = " and ".join(name for name, _ in absent) + " missing"
    else:
        what = "; ".join(_ABSENT[name, state] for name, state in absent)
    if len(absent) == 2 and as_of > dates.annul_on:
        why = (
            f"neither {snapshot.tag} nor its archive copy existed by {dates.annul_on}"
            if all_missing
            else f"neither {snapshot.tag} nor its archive copy counts ({what})"
        ) + ": a registry failure, not OTHER"
        return MarketResolution(
            *head,
            "annulled",
            "ANNULLED",
            provisional,
            why,
            summaries,
            snapshot,
            (why, *warnings),
            source,
        )
    if absent:
        warnings.append(absent_warning(snapshot.tag, what, dates.annul_on))
    return MarketResolution(
        *head,
        "closed",
        provisional,
        provisional,
        why,
        summaries,
        snapshot,
        tuple(warnings),
        source,
    )

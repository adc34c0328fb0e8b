"""`claims close-windows`, the plan: a pure function of each market's facts and the date.

For each market (docs/spec.md §5, seed "Deadlines"):

- `waiting`: its filing window has not closed by `as_of`: nothing is touched.
- `close`: the window closed, no resolution record yet, the annulment date not passed: tag
  `snapshot-R` on main's commit at the close, resolve from the tag's tree, archive the tag
  with the record, write and commit the record, open the resolution issue.
- `late-close`: no record and the annulment date has passed: nothing is tagged or archived
  any more (it would never count); the market resolves from what exists (ANNULLED when neither
  the tag nor its copy counts), and the record and issue are made.
- `watch`: a record exists and the annulment period runs: the tag must point where the record
  says and the copy must still be there; a missing one is made again (a tag is re-made only
  where the record says, never moved) and one `registry-warning` issue is opened.
- `final`: a record exists and the watch is over (or the market was ANNULLED): only what a
  crashed run left undone (the commit, the issue) is finished.
- `blocked`: something only a maintainer can fix (a tag of another commit, in every phase, or
  a lightweight one where the job would tag, an unreadable record, an archive that could not
  be asked whether it holds a copy after the annulment date): an error, and nothing is done.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import date, datetime
from typing import Literal

from bot.app.resolutions import ResolutionRecord, record_path
from bot.edges.archive.port import CopyState, DepositionState
from bot.rules.resolution import Snapshot
from bot.vocab.commits import Tag
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.timestamps import format_moment

__all__ = ["CopyFact", "MarketFacts", "MarketPlan", "Plan", "Step", "plan_close"]

Phase = Literal["waiting", "close", "late-close", "watch", "final", "blocked"]
StepKind = Literal["tag", "resolve", "archive", "record", "commit", "issue", "retag", "rearchive"]


@dataclass(frozen=True, slots=True)
class CopyFact:
    """What the archive said of the snapshot's copy: `found` (find: the market's own copy,
    published or a draft, or None), `checked` (check of the recorded copy), `tag_copy` (a
    published copy of the tag made for another market: it counts as the tag's copy, but holds
    no record of this one), or `error` (it could not be asked)."""

    found: DepositionState | None = None
    checked: CopyState | None = None
    error: str | None = None
    tag_copy: DepositionState | None = None

    @property
    def published(self) -> bool:
        return self.found is not None and self.found.published

    @property
    def counted(self) -> DepositionState | None:
        """The published copy of the tag that counts against annulment: the market's own, else
        another market's."""
        return self.found if self.published else self.tag_copy


@dataclass(frozen=True, slots=True)
class MarketFacts:
    market: int
    title: str
    dates: MarketDates
    tag: Tag | None  # `snapshot-R` as git has it
    tag_on_branch: bool
    close_commit: str | None  # main's last first-parent commit by the window's close
    record: ResolutionRecord | None = None
    record_committed: bool = False
    record_problem: str | None = None  # the record file exists and cannot be read
    copy: CopyFact = field(default_factory=CopyFact)
    # Which copy holds this market's record (`ArchiveMetadata.market`): `market-NN`, or
    # `market-NN-reopened-K` after the K-th --reopen.
    copy_key: str | None = None


@dataclass(frozen=True, slots=True)
class Step:
    kind: StepKind
    detail: str
    label: str = ""  # an issue's label
    key: str = ""  # an issue's marker key


@dataclass(frozen=True, slots=True)
class MarketPlan:
    market: int
    tag: str
    phase: Phase
    note: str
    steps: tuple[Step, ...] = ()

    def has(self, kind: StepKind) -> bool:
        return any(step.kind == kind for step in self.steps)

    def step(self, kind: StepKind) -> Step | None:
        return next((step for step in self.steps if step.kind == kind), None)


@dataclass(frozen=True, slots=True)
class Plan:
    as_of: date
    markets: tuple[MarketPlan, ...]

    def render(self) -> str:
        lines = [f"close-windows plan as of {self.as_of}:"]
        for market in self.markets:
            lines.append(f"  market {market.market} ({market.tag}): {market.phase}: {market.note}")
            lines += [f"    - {step.kind}: {step.detail}" for step in market.steps]
        return "\n".join(lines) + "\n"


def _issue(market: int, kind: str, label: str, detail: str) -> Step:
    return Step("issue", detail, label, f"market-{market:02d} {kind}")


def _tag_commit_problem(facts: MarketFacts, commit: str | None) -> str | None:
    """Why the existing tag is not on `commit`, the one commit its snapshot may be (main's
    commit at the close, or the commit the record names); None when it is, or no tag exists.
    Every phase asks this one function before a tag's tree is read, made or archived: a tag
    on another commit would make the market resolve, final, from another tree."""
    tag = facts.tag
    if tag is None:
        return None
    if commit is None:
        return f"{tag.name} points at {tag.commit[:12]}, but main has no commit by the close"
    if tag.commit != commit:
        return f"{tag.name} points at {tag.commit[:12]}, not at {commit[:12]}"
    return None


def _tag_problem(facts: MarketFacts, commit: str | None) -> str | None:
    """Why the existing tag cannot be the snapshot the job makes or keeps at `commit` (None: it
    can, or none exists): it must be on `commit` and annotated."""
    tag = facts.tag
    if tag is not None and not tag.annotated:
        return f"{tag.name} exists as a lightweight tag"
    return _tag_commit_problem(facts, commit) if commit is not None else None


def _plan_market(facts: MarketFacts, as_of: date, now: datetime | None) -> MarketPlan:
    dates = facts.dates
    tag = dates.snapshot_tag
    number = facts.market
    path = record_path(number)

    def make(phase: Phase, note: str, *steps: Step) -> MarketPlan:
        return MarketPlan(number, tag, phase, note, tuple(steps))

    def ended(day: date) -> bool:
        """`day` is over by `as_of`, and everywhere on Earth by the clock (`now`): a run at
        06:00 UTC on the next day is still inside `day` west of UTC-6."""
        return as_of > day and (now is None or now > end_of_day(day))

    if not ended(dates.window_closes):
        return make(
            "waiting",
            f"the filing window closes {dates.window_closes} (it ends Anywhere on Earth at"
            f" {end_of_day(dates.window_closes):%Y-%m-%d %H:%M} UTC): nothing to do",
        )
    if facts.record_problem is not None:
        return make("blocked", facts.record_problem)
    record = facts.record
    if record is not None:
        done: list[Step] = []
        if not facts.record_committed:
            done.append(Step("commit", f"commit {path} (written by a run that stopped)"))
        label = "annulled" if record.outcome == "ANNULLED" else "resolution"
        done.append(_issue(number, "resolution", label, f"market {number} {record.outcome}"))
        if record.outcome == "ANNULLED" or ended(dates.annul_on):
            return make("final", f"resolved {record.outcome} ({path}); final", *done)
        return _watch(facts, record, as_of, done)
    if not ended(dates.annul_on):
        if facts.close_commit is None:
            return make("blocked", f"main has no commit by the close of {dates.window_closes}")
        problem = _tag_problem(facts, facts.close_commit)
        if problem is not None:
            return make(
                "blocked",
                f"{problem} (main's commit when the window closed): the job never moves a"
                " tag; a maintainer must delete or fix it",
            )
        copy = facts.copy
        tag_step = (
            Step("tag", f"tag {tag} (annotated) on {facts.close_commit[:12]} and push it")
            if facts.tag is None
            else Step(
                "tag", f"{tag} exists on {facts.close_commit[:12]}: push it if origin lacks it"
            )
        )
        archive = (
            f"adopt the record inside the published copy {copy.found.doi or copy.found.id} (an"
            " earlier run decided the market and stopped before its record reached main)"
            if copy.found is not None and copy.found.published
            else f"finish the draft {copy.found.id}"
            if copy.found is not None
            else "git archive of the tag with the record, then upload and publish"
        )
        return make(
            "close",
            f"the window closed {dates.window_closes}; annulled after {dates.annul_on} if"
            " neither the tag nor its copy exists",
            tag_step,
            Step("resolve", f"resolve market {number} from {tag}'s tree (adapter reruns on)"),
            Step("archive", archive),
            Step("record", f"write {path}"),
            Step("commit", f"commit {path} on main"),
            _issue(number, "resolution", "resolution", f"market {number} resolved"),
        )
    # The annulment date has passed with no record: nothing made now would count. The tag is
    # checked as before it: a tag placed on another commit after the annulment date must
    # not count, or the market would resolve, final, from that commit's tree.
    problem = _tag_commit_problem(facts, facts.close_commit)
    if problem is not None:
        return make(
            "blocked",
            f"{problem} (main's commit when the window closed): the annulment date"
            f" {dates.annul_on} has passed, and a tag on another commit is no snapshot of this"
            " market; the job never resolves from it nor moves it: a maintainer must delete"
            " or fix it",
        )
    if facts.copy.error is not None:
        return make(
            "blocked",
            f"the annulment date {dates.annul_on} has passed and the archive could not be"
            f" asked for a copy of {tag} ({facts.copy.error}): a market is never annulled on"
            " an outage",
        )
    # What counts as resolution will count it: a lightweight, late or off-branch tag, or a
    # copy published after the annulment date, is no snapshot (the market is ANNULLED).
    found = facts.copy.counted
    dated = (
        {"tag": tag, "created": format_moment(found.modified)}
        if found is not None and found.published and found.modified is not None
        else None
    )
    counted = Snapshot.of(tag, facts.tag, dated, dates, as_of, facts.tag_on_branch)
    tag_there, copy_there = counted.tag_counts, counted.archive_counts
    steps = [
        Step("resolve", f"resolve market {number} from what exists (no tag or copy is made now)"),
        Step("record", f"write {path}"),
        Step("commit", f"commit {path} on main"),
        _issue(
            number,
            "resolution",
            "annulled" if not (tag_there or copy_there) else "resolution",
            f"market {number} resolved",
        ),
    ]
    if tag_there != copy_there:
        missing = (
            "its archive copy"
            if tag_there
            else "the tag"
            if facts.tag is None
            else f"a tag that counts ({tag} is {counted.tag_state})"
        )
        steps.append(_issue(number, "registry-warning", "registry-warning", f"{missing} missing"))
    note = (
        f"the annulment date {dates.annul_on} has passed with neither {tag} nor its copy:"
        " ANNULLED unless one counts"
        if not (tag_there or copy_there)
        else f"the annulment date {dates.annul_on} has passed: resolved from what exists"
    )
    return make("late-close", note, *steps)


def _watch(
    facts: MarketFacts,
    record: ResolutionRecord,
    as_of: date,
    done: list[Step],
) -> MarketPlan:
    number, dates = facts.market, facts.dates
    tag = dates.snapshot_tag
    problems: list[str] = []
    steps = list(done)
    blocked: str | None = None
    if facts.tag is None:
        if record.commit is not None:
            problems.append(f"{tag} is missing")
            steps.append(Step("retag", f"tag {tag} again on {record.commit[:12]} (as recorded)"))
    else:
        problem = _tag_problem(facts, record.commit)
        if problem is not None:
            problems.append(problem + " (the record's commit)")
            blocked = f"{problem}, the commit the record names: the job never moves a tag"
    copy = facts.copy
    if record.archive is not None and copy.error is None and copy.checked is not None:
        if not copy.checked.ok and not copy.published:
            problems.append(f"its archive copy is {copy.checked.status} ({copy.checked.detail})")
            steps.append(Step("rearchive", f"archive {tag} again with {record_path(number)}"))
    elif record.archive is None and not copy.published and facts.tag is not None:
        problems.append("it has no archive copy")
        steps.append(Step("rearchive", f"archive {tag} with {record_path(number)}"))
    if problems:
        steps.append(_issue(number, "registry-warning", "registry-warning", "; ".join(problems)))
    note = f"resolved {record.outcome}; watching its copies until {dates.annul_on}"
    if copy.error is not None:
        note += f" (the archive could not be checked: {copy.error})"
    if problems:
        note += ": " + "; ".join(problems)
    if blocked:  # the tag is not the recorded snapshot: archiving it would copy another tree
        steps = [step for step in steps if step.kind != "rearchive"]
    plan = MarketPlan(number, tag, "blocked" if blocked else "watch", blocked or note, tuple(steps))
    return plan


def plan_close(facts: Sequence[MarketFacts], as_of: date, now: datetime | None = None) -> Plan:
    """The plan for every market, in market order. `now`: the clock when the job runs on
    `as_of` itself (a date ends Anywhere on Earth, 12:00 UTC the next day); None for a dry run
    of another date (each date taken as ended)."""
    ordered = sorted(facts, key=lambda f: f.market)
    return Plan(as_of, tuple(_plan_market(f, as_of, now) for f in ordered))

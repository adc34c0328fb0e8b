"""The order in time (step 7): every trial after the freeze landed, none after its record was
filed, a pull request merged by its window's close, and the evidence public only after its
last trial started.
"""

from __future__ import annotations

from datetime import datetime

from bot.rules.evidence.freeze_order import (
    check_trial_order,
    check_trials_not_after,
    paper_freeze_time,
)
from bot.rules.evidence.models import Attempt, Freeze
from bot.rules.judge.inputs import AttemptFacts, AttemptFiles
from bot.rules.models import Market, SharedRules
from bot.rules.records import RecordsResult
from bot.vocab.commits import Landing
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.errors import Refusal
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.timestamps import format_timestamp


def freeze_files(files: AttemptFiles, attempt: Attempt) -> list[str]:
    """7. The registry paths whose landing on main dates the freeze of a run or challenge."""
    if attempt.kind == "challenge":
        return [f"challenge-runs/{attempt.challenge_run or ''}/freeze-cases.jsonl"]
    return [files.path("freeze.yaml"), files.path("freeze-cases.jsonl")]


def check_freeze_order(
    files: AttemptFiles,
    attempt: Attempt,
    freeze: Freeze,
    records: RecordsResult,
    facts: AttemptFacts,
) -> list[Finding]:
    """7. Every trial after the freeze: git for run attempts, the paper's date for wrapped."""
    trials_file = files.path("trials.jsonl")
    if attempt.kind == "wrapped":
        paper = freeze.paper_freeze
        if paper is None:
            return [
                Finding(
                    Code.SCHEMA,
                    "paper_freeze: required for a wrapped attempt (the paper's own"
                    " dated freeze: date, url, sha256)",
                    freeze.path,
                    freeze.line,
                )
            ]
        moment = paper_freeze_time(paper.date)
        if moment is None:
            return []
        trials = records.trials_before(moment)
        return check_trial_order(trials, moment, f"the paper's freeze of {paper.date}", trials_file)
    if facts.history_unavailable is not None:
        return [Finding(Code.FREEZE_ORDER, facts.history_unavailable, freeze.path)]
    findings: list[Finding] = []
    latest: Landing | None = None
    unconfirmed: list[tuple[str, Landing]] = []
    for file in freeze_files(files, attempt):
        found = facts.freeze_landings.get(file, Refusal(f"{file}: cannot read the freeze"))
        if isinstance(found, Refusal):
            return [*findings, Finding(Code.FREEZE_ORDER, found.reason, file)]
        refused = _landing_refused(file, found, facts)
        if refused is not None:
            return [*findings, Finding(Code.FREEZE_ORDER, refused, file)]
        if facts.landing_confirmations is None and not found.pending:
            unconfirmed.append((file, found))
        if latest is None or found.committed_at > latest.committed_at:
            latest = found
    if latest is not None:
        what = f"the freeze merged to {facts.base_ref} in {latest.where}"
        if latest.pending:
            what = (
                f"the freeze, which lands on {facts.base_ref} only with this pull request's"
                " merge (merge the freeze first, then run the trials), judged at this run's time"
            )
        elif latest.clamped:
            what += " (its date taken no earlier than any older commit on main)"
        trials = records.trials_before(latest.committed_at)
        findings += check_trial_order(trials, latest.committed_at, what, trials_file)
    for file, landing in unconfirmed[:1]:  # one notice per attempt
        findings.append(
            Finding(
                Code.FREEZE_DATE_UNCONFIRMED,
                f"{file} landed on {facts.base_ref} in {landing.sha[:12]}, committed by GitHub"
                " (a merge or squash of a pull request), but without the GitHub API the date"
                " was not confirmed as that pull request's merge time",
                file,
                severity=Severity.NOTICE,
            )
        )
    return findings


def check_trials_in_future(records: RecordsResult, facts: AttemptFacts, file: str) -> list[Finding]:
    """7. No trial after its record was filed: after the evidence landed on the base branch.
    A pull request's evidence lands with its merge, judged at the run's time (docs/spec-notes.md,
    "A green pull request stays green"); a working tree without history has no filing time to
    compare with. The filing time comes from history on every run: the verification cache
    keeps only the last trial's start, and the trials are read again when it is not before
    the filing."""
    if facts.filed_at is None:
        return []
    what = f"the evidence landed on {facts.base_ref} ({facts.filed_at.isoformat()})"
    if facts.filed_on_merge:
        what = (
            f"this pull request's merge into {facts.base_ref}, judged at this run's time"
            f" ({facts.filed_at.isoformat()})"
        )
    return check_trials_not_after(records.trials_from(facts.filed_at), facts.filed_at, what, file)


def merge_by_window_close(
    facts: AttemptFacts, market: Market | None, rules: SharedRules, file: str
) -> list[Finding]:
    """7. The notice `merge-by-window-close`: a pull request judged as merged now, before its
    market's filing window closes, is filed-late if GitHub merges it after the close. That
    cannot be decided before the merge, so it is said, never passed over in silence."""
    if not facts.filed_on_merge or facts.filed_at is None:
        return []
    notices = []
    if facts.merge_clock is not None:
        notices.append(
            Finding(
                Code.MERGE_AFTER_CLOCK,
                f"judged as merged into {facts.base_ref} at {facts.filed_at.isoformat()}, the"
                " date of the pull request's head commit (or of the newest commit on"
                f" {facts.base_ref}), later than this run's time"
                f" ({facts.merge_clock.isoformat()}): merged earlier, a trial after the merge"
                " is trial-in-future",
                file,
                severity=Severity.NOTICE,
            )
        )
    if market is None:
        return notices
    dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
    closes = end_of_day(dates.window_closes)
    if facts.filed_at > closes:
        return notices  # already after the close: filed-late on the pull request as on main
    return [
        *notices,
        Finding(
            Code.MERGE_BY_WINDOW_CLOSE,
            f"on time if merged into {facts.base_ref} by {dates.window_closes}"
            f" ({closes.isoformat()}), when market {market.id}'s filing window closes;"
            f" judged as merged at {facts.filed_at.isoformat()}, it is on time now, and only"
            " merged after the close would it be filed-late and unable to qualify",
            file,
            severity=Severity.NOTICE,
        ),
    ]


def _landing_refused(file: str, landing: Landing, facts: AttemptFacts) -> str | None:
    """7. Why the commit a freeze landed in does not date it, or None when it does.

    With the GitHub API (`facts.landing_confirmations`), the commit must be a merged pull request's
    merge (or squash) commit, merged at the commit's date; offline, GitHub's web flow must have
    written it. A filer's own commit fast-forwarded onto main carries dates its author chose.
    """
    if landing.pending:
        # GitHub's web flow writes the merge, with a merge commit as the branch's rules ask.
        return None
    where = f"{file} reached {facts.base_ref} in {landing.sha[:12]}"
    if facts.landing_confirmations is not None:
        said = facts.landing_confirmations.get(landing.sha, "the GitHub API was not asked about it")
        if said is None:
            return None
        return (
            f"{where}, which no merged pull request confirms as its merge commit ({said}),"
            " so its date proves nothing: merge freeze pull requests on GitHub"
        )
    if landing.web_flow:
        return None
    return (
        f"{where}, committed by {landing.committer_name} <{landing.committer_email}>, not by"
        " GitHub merging a pull request, so its date proves nothing: merge freeze pull"
        " requests on GitHub with a merge commit (docs/running-on-github.md)"
    )


def public_early(attempt: Attempt, last_trial: datetime | None) -> list[Finding]:
    """`evidence-public-early` (a warning): the evidence cannot have been public before its
    last trial started; the date is the filer's, and `evidence-late` reads it."""
    public = attempt.evidence_public_at
    if public is None or last_trial is None or public >= last_trial:
        return []
    message = (
        f"publication.evidence_public_at: {format_timestamp(public)} is before the last trial"
        f" started ({format_timestamp(last_trial)}): the evidence cannot have been public"
        " then; write when all of it (trials, raw log) was published"
    )
    line = attempt.lines.get("publication")
    return [Finding(Code.EVIDENCE_PUBLIC_EARLY, message, attempt.path, line, Severity.WARNING)]

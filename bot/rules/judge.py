"""The judge: one pure function from an attempt's files and facts to its verdict.

`judge_attempt(files, facts, market, rules, as_of)` reads no file, clock, git or network: the
shell (`bot/app/gather.py`) has read the attempt folder from a tree into typed models
(`AttemptFiles`) and asked git, the raw-log server and the sandbox what it needed
(`AttemptFacts`). So every rule can be tested without git, with values in and a verdict out.

Steps (numbers repeated inline):
 1. what reading found (schema, YAML, JSONL, scan problems), the folder's location, a
    generator's counts, and names holding characters a reader cannot see;
 2. the market: unknown, or not accepting this kind;
 3. frozen cases: content hashes, unique ids;
 4. trials: one per case, known cases, unit keys;
 5. certificates, the adapter rerun (wrapped);
 6. the raw log, kept whole or as excerpts, and what fetching its URL found;
 7. freeze order: run attempts against the freeze's landing on main, wrapped against the
    paper's freeze (and what fetching the paper's freeze found), challenge attempts against
    the run's freeze-cases; and no trial after its record was filed (`trial-in-future`);
 8. hidden suites: no withholdable field in any published file; a challenge attempt's run
    is valid and of its market, its cases are the run's, and each trial carries the result
    the run's scorer gave (`bot.rules.challenge`);
 9. the bars and the score table derived from cases and trials (`score-table-mismatch`), and
    the warning `bound-coverage-low` where an AUROC bar's bound covers below 90%;
10. with valid evidence and a date: qualification and outcome (docs/spec.md §7); a wrapped attempt
    whose adapter was not rerun on this evidence does not qualify (docs/spec.md §9).
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import date, datetime
from pathlib import PurePosixPath
from typing import Any

from bot.rules.bars import compare_score_tables, coverage_warnings, differing_fields
from bot.rules.challenge.rules import ScoredCase, compare_cases, compare_trials, without_repeats
from bot.rules.evidence.models import (
    AdapterSpec,
    Attempt,
    Case,
    Certificate,
    Freeze,
    Judgment,
)
from bot.rules.evidence.rules import (
    RawLogFile,
    check_cases,
    check_generator,
    check_names,
    check_placeholders,
    check_raw_log,
    check_trial_order,
    check_trials_not_after,
    check_withheld,
    paper_freeze_time,
)
from bot.rules.models import Market, SharedRules, market_path
from bot.rules.qualification import Evidence, qualify
from bot.rules.records import CERTIFICATES, RECORD_FILES, RecordsCheck, RecordsNeeded, check_records
from bot.rules.verdict import AttemptVerdict, CheckState, Counts
from bot.vocab.commits import Landing
from bot.vocab.config import Limits
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.document import Document, FieldPath, Record
from bot.vocab.files import FileEntry
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.timestamps import format_timestamp

__all__ = ["AttemptFacts", "AttemptFiles", "judge_attempt", "records_of", "withholdable_of"]

SLUG = re.compile(r"\A[a-z0-9][a-z0-9-]{1,62}[a-z0-9]\Z")  # common.schema.json#/$defs/slug
MARKET_FOLDER = re.compile(r"\Amarket-(\d{2,})\Z")

LineOf = Callable[[FieldPath], int | None]
Published = tuple[str, object, LineOf]


@dataclass(frozen=True)
class AttemptFiles:
    """An attempt folder as read from a tree: typed documents and what reading them found.

    A document is None when it is absent or was refused (the refusal is in `problems`).
    """

    folder: str  # the folder's path in the registry, e.g. attempts/market-03/alice/monitor
    entries: Mapping[str, FileEntry]
    problems: Sequence[Finding]  # scan, YAML, JSONL and schema problems, in reading order
    digest: str
    scan_complete: bool = True  # False: the scan stopped early (too many files)
    freeze_only: bool = False  # only the freeze is filed (a freeze pull request)
    folder_market: int | None = None  # the market the folder names (attempts/market-NN/...)
    attempt: Attempt | None = None
    freeze: Freeze | None = None
    case_records: Sequence[Record] | None = None  # None: freeze-cases.jsonl unreadable/absent
    trial_records: Sequence[Record] | None = None
    trials_complete: bool = True  # False: some line of trials.jsonl could not be read
    cases_complete: bool = True  # likewise for freeze-cases.jsonl
    scores: Document | None = None
    judgments: Mapping[str, Judgment] | None = None
    certificates: Sequence[Certificate] | None = None
    adapter: AdapterSpec | None = None
    # Every parsed document and record, for the hidden-suite check: (file, data, line_of).
    published: Sequence[tuple[str, object, LineOf]] = ()
    # Per JSONL file name: what reading it found (also among `problems`, in reading order).
    jsonl_problems: Mapping[str, Sequence[Finding]] = field(default_factory=dict)
    # freeze-cases.jsonl and trials.jsonl checked already: read back from the verification
    # cache (bot/app/cache.py), or checked while they were read (`records_checked_now`,
    # `RecordsChecker`). Their records were then not kept (`case_records` and `trial_records`
    # are None) and the judge takes this instead of checking them.
    records_check: RecordsCheck | None = None
    records_checked_now: bool = False

    def path(self, name: str) -> str:
        return f"{self.folder}/{name}"


@dataclass(frozen=True)
class ChallengeFacts:
    """What a challenge attempt is checked against: its run, as judged (`bot.rules.challenge`)."""

    run: str
    # challenge-run-invalid: the run does not exist, is invalid, or is another market's.
    problem: Finding | None = None
    cases: Mapping[str, Case] | None = None  # the run's hash-only cases
    cases_file: str = ""
    scored: Mapping[str, ScoredCase] | None = None  # None: no operator score file for it
    scores_where: str = ""  # the operator's score file for this attempt
    text_leaks: Sequence[Finding] = ()  # the raw log and other unparsed files of the attempt


@dataclass(frozen=True)
class AttemptFacts:
    """What the shell learnt outside the folder: git, the raw log's URL, the sandbox."""

    market_problems: Sequence[Finding] = ()  # market-unknown (the judge cannot know it)
    base_ref: str | None = None
    history_unavailable: str | None = None  # why freeze order cannot be read from git
    # freeze.yaml / freeze-cases.jsonl (or the challenge run's): where each landed on main.
    freeze_landings: Mapping[str, Landing | str] = field(default_factory=dict)
    # With the GitHub API: per landing commit (sha), None when a merged pull request confirms
    # it as its merge (or squash) commit at its date, else what the API said. None (the whole
    # mapping): offline, so only the committer identity can be checked.
    landing_checks: Mapping[str, str | None] | None = None
    challenge_withholdable: Sequence[str] = ()
    # A challenge attempt: its run as judged (None for other kinds).
    challenge: ChallengeFacts | None = None
    filed_at: datetime | None = None  # when all the evidence landed on main; None: not all
    # filed_at is the pull request's own merge, judged at the run's clock (not landed yet).
    filed_on_merge: bool = False
    # With filed_on_merge: the run's clock, when the moment judged was raised above it to the
    # head commit's (or the base branch's newest commit's) date. None: the clock itself.
    merge_clock: datetime | None = None
    judgments_at_close: Mapping[str, Judgment] | None = None
    raw_log_findings: Sequence[Finding] = ()  # from fetching raw_log.url, when asked
    # The most bytes the close's archive carries of one pinned file (the registry's
    # Limits.max_archived_pin_bytes): a raw log declared larger is refused.
    archived_pin_bytes: int = Limits().max_archived_pin_bytes
    paper_freeze_findings: Sequence[Finding] = ()  # from fetching paper_freeze.url, when asked
    # From rerunning a wrapped attempt's adapter on this evidence: () when it reproduced the
    # evidence, None when it was not rerun (then the attempt cannot qualify).
    adapter_findings: Sequence[Finding] | None = None
    # What the pull request that changes this folder may not change (`bot.rules.review`). Listed
    # once in the report's `pr_problems`, not among the attempt's findings; an error among
    # them makes the evidence invalid all the same.
    pr_problems: Sequence[Finding] = ()


def judge_attempt(
    files: AttemptFiles,
    facts: AttemptFacts,
    market: Market | None,
    rules: SharedRules,
    as_of: date | None,
) -> AttemptVerdict:
    """Judge one attempt. Returns its verdict; never raises for bad evidence.

    `market` is None when the attempt names none the registry has (`facts.market_problems`
    says why). Without `as_of`, qualification is not judged (status and outcome stay None).
    Nor is it when the attempt's pull request changes what it may not (`facts.pr_problems`).
    """
    verdict = _judge(files, facts, market, rules, as_of)
    return replace(verdict, pr_problems=tuple(facts.pr_problems)) if facts.pr_problems else verdict


def _judge(
    files: AttemptFiles,
    facts: AttemptFacts,
    market: Market | None,
    rules: SharedRules,
    as_of: date | None,
) -> AttemptVerdict:
    findings: list[Finding] = list(files.problems)
    counts = Counts(files=len(files.entries))
    if not files.scan_complete:
        # Over the file cap the scan stopped early: what it did not reach is not "missing".
        return AttemptVerdict(
            files.folder, files.folder_market, None, findings, digest=files.digest
        )
    if files.freeze_only:
        return _judge_freeze_only(files, facts, findings)

    # 1. what reading found, the location, and names a reader cannot see
    attempt = files.attempt
    if attempt is not None:
        findings += _check_location(files.folder, attempt)
        findings += check_generator(
            attempt.adversarial.generator,
            attempt.path,
            _line(files, attempt.path, ("adversarial", "generator", "planted_found")),
        )
    withholdable = withholdable_of(market, facts)
    records = records_of(files, market, rules, withholdable)
    head, middle, tail = _published_around_records(files)
    findings += [
        *check_names(head),
        *records.names,
        *check_names(middle),
        *records.certificate_names,
        *check_names(tail),
    ]
    findings += check_placeholders(files.published, files.problems)
    findings += _check_placeholder_commit(files.freeze)
    # 2. the market
    findings += facts.market_problems
    if attempt is not None:
        findings += _check_kind(attempt, market)
    # 3. frozen cases
    findings += records.cases_findings
    # 4. trials
    findings += records.trials_findings
    # 5. the adapter rerun
    findings += facts.adapter_findings or ()
    # 6. the raw log
    if attempt is not None:
        findings += _check_raw_log(files, attempt, rules, facts)
    # 7. freeze order (and, for a wrapped attempt, what fetching the paper's freeze found)
    if files.freeze is not None and attempt is not None:
        findings += _check_freeze_order(files, attempt, files.freeze, records, facts)
        if attempt.kind == "wrapped":
            findings += facts.paper_freeze_findings
        findings += _check_trials_in_future(records, facts, files.path("trials.jsonl"))
        findings += _merge_by_window_close(facts, market, rules, files.path("attempt.yaml"))
    # 8. hidden suites (and, for a challenge attempt, its run's cases and scores)
    findings += [
        *check_withheld(head, withholdable),
        *records.withheld,
        *check_withheld(middle, withholdable),
        *records.certificate_withheld,
        *check_withheld(tail, withholdable),
    ]
    if facts.challenge is not None:
        findings += _check_challenge(files, facts.challenge, records, findings)

    counts = Counts(
        files=len(files.entries),
        cases=records.case_count,
        trials=records.trials.count,
        systems=records.trials.systems,
        families=len(records.trials.families),
    )
    verdict = AttemptVerdict(
        attempt=files.folder,
        market=attempt.market if attempt else files.folder_market,
        kind=attempt.kind if attempt else None,
        findings=tuple(findings),
        digest=files.digest,
        counts=counts,
    )
    # What the pull request may not change blocks qualification, never the evidence's own
    # checks: the score table is compared all the same, so a maintainer who approves the
    # change meets on the PR every code main gives after the merge.
    if (
        market is None
        or attempt is None
        or not records.cases_read
        or any(f.severity is Severity.ERROR for f in findings)
    ):
        # Invalid evidence still shows how its readable trials group into units (docs/spec.md §6),
        # so a filer sees what a shared key did before the bars are ever evaluated.
        return replace(verdict, units=records.unit_summary) if records.unit_summary else verdict

    # 9. bars and the score table
    if records.bars is None or records.units is None or records.derived is None:
        raise RecordsNeeded("the bars were not evaluated")  # a bug: valid records have them
    bars, units = records.bars, records.units
    # The bars' own findings: errors (a result a bar cannot read) and warnings on what a
    # result means (`bars.meaning_warnings`), which change nothing.
    problems = [f for f in records.bar_problems if f.severity is Severity.ERROR]
    meanings = [f for f in records.bar_problems if f.severity is not Severity.ERROR]
    derived = dict(records.derived)
    scores = files.scores
    claimed = scores.data if scores is not None and isinstance(scores.data, dict) else None
    if scores is not None and claimed is not None:
        problems += _check_score_table(scores, claimed, derived)
    # Warnings only: they stop neither qualification nor the decision (`problems` do). Where
    # problems make the evidence invalid the bars count for nothing, so nothing is warned.
    warnings = (
        []
        if problems
        else [
            *coverage_warnings(bars, files.path("trials.jsonl")),
            *meanings,
            *_public_early(attempt, records.trials.last_started_at),
        ]
    )
    verdict = AttemptVerdict(
        attempt=verdict.attempt,
        market=verdict.market,
        kind=verdict.kind,
        findings=(*verdict.findings, *problems, *warnings),
        digest=files.digest,
        counts=counts,
        bars=tuple(bars),
        class_conditional=derived.get("class_conditional", {}),
    )
    if any(f.severity is Severity.ERROR for f in facts.pr_problems):
        # Its codes are shown, but no bars: they are judged once the pull request may merge.
        blocked = replace(verdict, bars=(), class_conditional={})
        return replace(blocked, units=records.unit_summary) if records.unit_summary else blocked
    if problems or as_of is None:
        return verdict

    # 10. qualification
    evidence = Evidence(
        folder=files.folder,
        attempt=attempt,
        trials=records.trials,
        certificates=records.certificates,
        scores=claimed,
        judgments=files.judgments,
        digest=files.digest,
        filed_at=facts.filed_at,
        judgments_at_close=facts.judgments_at_close,
        adapter_rerun=files.adapter is not None and facts.adapter_findings is not None,
    )
    result = qualify(evidence, market, rules, bars, units, derived, as_of)
    checks = dict(result.checks)
    wrapping = checks.get("wrapping-within-rules")
    if wrapping is not None and files.adapter is not None:
        # The maintainer judges the wrapping against what the adapter says it did.
        checks["wrapping-within-rules"] = CheckState(
            wrapping.state, wrapping.verdict, wrapping.by, wrapping.at, files.adapter.description
        )
    return AttemptVerdict(
        attempt=verdict.attempt,
        market=verdict.market,
        kind=verdict.kind,
        findings=verdict.findings,
        qualification=tuple(result.reasons),
        digest=files.digest,
        status=result.status,
        outcome=result.outcome,
        bars=verdict.bars,
        class_conditional=verdict.class_conditional,
        checks=checks,
        counts=counts,
        units=result.units,
    )


def withholdable_of(market: Market | None, facts: AttemptFacts) -> list[str]:
    """8. The fields no published file may hold: the market's and the challenge run's."""
    return sorted({*(market.withholdable if market else ()), *facts.challenge_withholdable})


def records_of(
    files: AttemptFiles, market: Market | None, rules: SharedRules, withholdable: Sequence[str]
) -> RecordsCheck:
    """freeze-cases.jsonl and trials.jsonl checked: as read back from the verification cache
    (`files.records_check`), else checked now. Raises `RecordsNeeded` when the check read back
    was made for other withholdable fields (then the shell judges from the files)."""
    if files.records_check is not None:
        if files.records_check.withholdable != tuple(withholdable):
            raise RecordsNeeded("the cached check was made for other withholdable fields")
        return files.records_check
    return check_records(
        files.folder,
        files.case_records,
        files.trial_records,
        files.jsonl_problems,
        files.published,
        market,
        rules,
        withholdable,
        files.certificates,
    )


def _published_around_records(
    files: AttemptFiles,
) -> tuple[list[Published], list[Published], list[Published]]:
    """The published documents read before freeze-cases.jsonl and trials.jsonl (attempt.yaml,
    freeze.yaml), between them and certificates.jsonl (scores.yaml, judgments.yaml), and after
    it (adapter.yaml); the JSONL records are left out: they are checked with their files
    (`RecordsCheck`), so each check's findings keep the reading order."""
    records = {files.path(name) for name in (*RECORD_FILES, CERTIFICATES)}
    head = {files.path("attempt.yaml"), files.path("freeze.yaml")}
    middle = {files.path("scores.yaml"), files.path("judgments.yaml")}
    return (
        [entry for entry in files.published if entry[0] in head],
        [entry for entry in files.published if entry[0] in middle],
        [entry for entry in files.published if entry[0] not in head | middle | records],
    )


def _check_score_table(
    scores: Document, claimed: Mapping[str, Any], derived: dict[str, Any]
) -> list[Finding]:
    """9. The filer's table must equal the one derived from cases and trials (docs/spec.md §4).

    Each finding names the field that differs and its line, and the command that writes the
    derived table; a bar id the market does not have, close to one of its bars that the table
    lacks, is one finding ("did you mean"), not one for each side."""
    folder = str(PurePosixPath(scores.path).parent)
    fix = f"`claims scores {folder} --write` writes the table the cases and trials give"
    rows = compare_score_tables(claimed, derived)
    claimed_bars = claimed.get("bars")
    claimed_bars = claimed_bars if isinstance(claimed_bars, dict) else {}
    findings = []
    unknown: set[str] = set()
    for section, prefix, what in (
        ("bars", "", "bar id"),
        ("class_conditional", "class_conditional.", "class-conditional key"),
    ):
        theirs_section = claimed.get(section)
        theirs_keys = theirs_section if isinstance(theirs_section, dict) else {}
        mine_keys = derived.get(section, {})
        mine_rows = [row.removeprefix(prefix) for row in rows if row.startswith(prefix)]
        if prefix == "":
            mine_rows = [row for row in rows if not row.startswith("class_conditional.")]
        extra = [key for key in mine_rows if key in theirs_keys and key not in mine_keys]
        lacking = [key for key in mine_rows if key in mine_keys and key not in theirs_keys]
        for key in extra:
            guess = difflib.get_close_matches(key, lacking, n=1, cutoff=0.75)
            if guess:
                lacking.remove(guess[0])
                unknown.add(f"{prefix}{guess[0]}")
            unknown.add(f"{prefix}{key}")
            hint = f" (did you mean {guess[0]!r})" if guess else ""
            known = ", ".join(repr(name) for name in mine_keys) or "none"
            names = "the market's bars are" if prefix == "" else "the counts the trials give are"
            message = f"{section}.{key}: unknown {what} {key!r}{hint}; {names} {known}; {fix}"
            line = scores.line_of((section, key))
            findings.append(Finding(Code.SCORE_TABLE_MISMATCH, message, scores.path, line))
    for row in rows:
        if row in unknown:
            continue
        if row.startswith("class_conditional."):
            key = row.removeprefix("class_conditional.")
            theirs = claimed.get("class_conditional", {}).get(key)
            mine = derived.get("class_conditional", {}).get(key)
            where: tuple[str, ...] = ("class_conditional", key)
        else:
            theirs = claimed_bars.get(row)
            mine = derived["bars"].get(row)
            where = ("bars", row)
        fields: list[str | None] = [*differing_fields(theirs, mine)] or [None]
        for name in fields:
            at = (*where, name) if name is not None else where
            said = theirs.get(name) if name is not None else theirs
            given = mine.get(name) if name is not None else mine
            message = (
                f"{'.'.join(at)}: scores.yaml says {_compact(said)}, the cases and"
                f" trials give {_compact(given)}; {fix}"
            )
            findings.append(
                Finding(Code.SCORE_TABLE_MISMATCH, message, scores.path, scores.line_of(at))
            )
    return findings


def _public_early(attempt: Attempt, last_trial: datetime | None) -> list[Finding]:
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


def _compact(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_compact(item)}" for key, item in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:.6f}"
    return str(value)


def folder_market(folder: str) -> int | None:
    """The market a folder attempts/market-NN/... names, when attempt.yaml cannot say."""
    parts = PurePosixPath(folder).parts
    match = MARKET_FOLDER.match(parts[1]) if len(parts) > 1 and parts[0] == "attempts" else None
    return int(match.group(1)) if match else None


def _judge_freeze_only(
    files: AttemptFiles, facts: AttemptFacts, findings: list[Finding]
) -> AttemptVerdict:
    """A freeze pull request, before its run exists: the freeze, its location and market."""
    parts = PurePosixPath(files.folder).parts
    number = files.folder_market if len(parts) == 4 else None
    if number is None or parts[0] != "attempts" or not all(map(SLUG.match, parts[2:])):
        findings.append(
            Finding(
                Code.ATTEMPT_LOCATION,
                f"the folder is {files.folder}/, expected"
                " attempts/market-NN/<submitter>/<attempt>/ with slugs of 3-64 lower-case"
                " letters, digits and hyphens",
                files.folder,
            )
        )
    findings += facts.market_problems
    cases: dict[str, Case] = {}
    if files.case_records is not None:
        cases, problems = check_cases(files.case_records, files.path("freeze-cases.jsonl"))
        findings += problems
    findings += check_names(files.published)
    findings += check_placeholders(files.published, files.problems)
    findings += _check_placeholder_commit(files.freeze)
    findings.append(
        Finding(
            Code.FREEZE_ONLY,
            "only the freeze is filed: attempt.yaml, trials.jsonl and raw-log/ come in a later"
            " pull request, after this freeze is merged",
            files.folder,
            severity=Severity.WARNING,
        )
    )
    return AttemptVerdict(
        attempt=files.folder,
        market=number,
        kind=None,
        findings=tuple(findings),
        digest=files.digest,
        counts=Counts(files=len(files.entries), cases=len(cases)),
    )


def _check_placeholder_commit(freeze: Freeze | None) -> list[Finding]:
    """1. A freeze stub's all-zero code_commit names no code: it must be replaced."""
    if freeze is None or set(freeze.code_commit) != {"0"}:
        return []
    message = (
        f"code_commit: {freeze.code_commit} is the placeholder `claims adapt` writes when the"
        " log names no full commit; replace it with the full commit of the code that ran"
        " the evaluation before the freeze is filed"
    )
    return [Finding(Code.SCHEMA, message, freeze.path, freeze.code_commit_line)]


def _line(files: AttemptFiles, file: str, where: FieldPath) -> int | None:
    """The line of field `where` in the published document `file`, when it was parsed."""
    for path, _, line_of in files.published:
        if path == file:
            return line_of(where)
    return None


def market_unknown(number: int, rules: SharedRules, file: str, line: int | None) -> Finding:
    """`market-unknown`: market 14 (the shared rules' sentence) or a market with no contract."""
    if rules.is_not_in_registry(number):
        return Finding(Code.MARKET_UNKNOWN, rules.not_in_registry_message, file, line)
    message = f"market {number} has no contract in this registry ({market_path(number)})"
    return Finding(Code.MARKET_UNKNOWN, message, file, line)


def _check_challenge(
    files: AttemptFiles,
    challenge: ChallengeFacts,
    records: RecordsCheck,
    already: Sequence[Finding] = (),
) -> list[Finding]:
    """8. A challenge attempt: its run is valid and of its market, its cases are the run's,
    each trial carries the result the run's scorer gave its case, and no withholdable field is
    written in its raw log or any other file the bot does not parse."""
    findings: list[Finding] = without_repeats(challenge.text_leaks, already)
    if challenge.problem is not None:
        return [*findings, challenge.problem]
    cases, trials = records.checked()
    if cases is not None and challenge.cases is not None:
        findings += compare_cases(
            cases, challenge.cases, files.path("freeze-cases.jsonl"), challenge.cases_file
        )
    if records.trials_read:
        findings += compare_trials(
            trials, challenge.scored, files.path("trials.jsonl"), challenge.scores_where
        )
    return findings


def _check_kind(attempt: Attempt, market: Market | None) -> list[Finding]:
    """2. The kinds the market accepts (a challenge attempt's results come from its run's
    scorer: `_check_challenge`)."""
    line = attempt.lines.get("kind")
    if market is not None and attempt.kind not in market.kinds:
        message = f"kind {attempt.kind!r}: market {market.id} accepts {', '.join(market.kinds)}"
        return [Finding(Code.KIND_NOT_ACCEPTED, message, attempt.path, line)]
    return []


def _check_location(folder: str, attempt: Attempt) -> list[Finding]:
    """1. attempts/market-NN/<submitter>/<attempt>/, matching attempt.yaml."""
    expected = f"attempts/market-{attempt.market:02d}/{attempt.submitter}/"
    parts = PurePosixPath(folder).parts
    if not (folder.startswith(expected) and len(parts) == 4):
        message = (
            f"the folder is {folder}/, expected {expected}<attempt-slug>/ from attempt.yaml's"
            " market and submitter"
        )
        return [
            Finding(Code.ATTEMPT_LOCATION, message, attempt.path, attempt.lines.get("submitter"))
        ]
    if SLUG.match(parts[3]) is None:
        message = f"attempt folder {parts[3]!r}: use 3-64 lower-case letters, digits and hyphens"
        return [Finding(Code.ATTEMPT_LOCATION, message, folder)]
    return []


def _check_raw_log(
    files: AttemptFiles, attempt: Attempt, rules: SharedRules, facts: AttemptFacts
) -> list[Finding]:
    """6. raw-log/: whole and matching, or exact excerpts; and what its URL served."""
    raw_files = [
        RawLogFile(path.removeprefix("raw-log/"), entry.size, entry.sha256)
        for path, entry in files.entries.items()
        if path.startswith("raw-log/")
    ]
    folder = files.path("raw-log")
    if not raw_files:
        if any(f.file == folder for f in files.problems):
            return []  # already refused (a link, say)
        return [
            Finding(
                Code.FILE_MISSING,
                "raw-log/ is missing: keep the harness's raw log here; `claims pin-log"
                f" {files.folder} --log FILE` puts it there and pins it in attempt.yaml",
                folder,
            )
        ]
    claim = {"bytes": attempt.raw_log.bytes, "sha256": attempt.raw_log.sha256}
    too_large: list[Finding] = []
    if attempt.raw_log.bytes > facts.archived_pin_bytes:
        # Counted, it would be the one file the snapshot's archive cannot carry (docs/spec.md
        # §10.6): its filer's server alone would hold the evidence of a counting attempt.
        message = (
            f"raw_log.bytes is {attempt.raw_log.bytes}, over the {facts.archived_pin_bytes}-byte"
            f" cap on one file the close's archive carries: the raw log at {attempt.raw_log.url}"
            " could not be kept with the snapshot; pin a log within the cap (compressed, say:"
            f" `claims pin-log {files.folder} --log FILE.gz`)"
        )
        too_large.append(
            Finding(Code.RAW_LOG_TOO_LARGE, message, attempt.path, attempt.lines.get("raw_log"))
        )
    problems = check_raw_log(
        raw_files,
        claim,
        rules.max_local_log_bytes,
        rules.excerpt_bytes,
        folder,
        attempt.path,
        attempt.lines.get("raw_log"),
    )
    return too_large + (problems or list(facts.raw_log_findings))


def freeze_files(files: AttemptFiles, attempt: Attempt) -> list[str]:
    """7. The registry paths whose landing on main dates the freeze of a run or challenge."""
    if attempt.kind == "challenge":
        return [f"challenge-runs/{attempt.challenge_run or ''}/freeze-cases.jsonl"]
    return [files.path("freeze.yaml"), files.path("freeze-cases.jsonl")]


def _check_freeze_order(
    files: AttemptFiles,
    attempt: Attempt,
    freeze: Freeze,
    records: RecordsCheck,
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
        found = facts.freeze_landings.get(file, f"{file}: cannot read the freeze")
        if isinstance(found, str):
            return [*findings, Finding(Code.FREEZE_ORDER, found, file)]
        refused = _landing_refused(file, found, facts)
        if refused is not None:
            return [*findings, Finding(Code.FREEZE_ORDER, refused, file)]
        if facts.landing_checks is None and not found.pending:
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


def _check_trials_in_future(records: RecordsCheck, facts: AttemptFacts, file: str) -> list[Finding]:
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


def _merge_by_window_close(
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

    With the GitHub API (`facts.landing_checks`), the commit must be a merged pull request's
    merge (or squash) commit, merged at the commit's date; offline, GitHub's web flow must have
    written it. A filer's own commit fast-forwarded onto main carries dates its author chose.
    """
    if landing.pending:
        # GitHub's web flow writes the merge, with a merge commit as the branch's rules ask.
        return None
    where = f"{file} reached {facts.base_ref} in {landing.sha[:12]}"
    if facts.landing_checks is not None:
        said = facts.landing_checks.get(landing.sha, "the GitHub API was not asked about it")
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

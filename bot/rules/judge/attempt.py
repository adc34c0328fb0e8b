"""The judge: one pure function from an attempt's files and facts to its verdict.

`judge_attempt(files, facts, market, rules, as_of)` reads no file, clock, git or network: the
shell (`bot/app/attempt_read.py`, `gather.py`) has read the attempt folder from a tree into
typed models (`AttemptFiles`) and asked git, the raw-log server and the sandbox what it needed
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

from collections.abc import Mapping, Sequence
from dataclasses import replace
from datetime import date

from bot.rules.bars import coverage_warnings
from bot.rules.challenge.rules import compare_cases, compare_trials, without_repeats
from bot.rules.evidence.generator import check_generator
from bot.rules.evidence.models import AdapterSpec, Attempt
from bot.rules.evidence.names import check_names
from bot.rules.evidence.placeholders import check_placeholders
from bot.rules.evidence.withheld import check_withheld
from bot.rules.judge.freeze import check_placeholder_commit, judge_freeze_only
from bot.rules.judge.inputs import AttemptFacts, AttemptFiles, ChallengeFacts, Published
from bot.rules.judge.location import check_kind, check_location
from bot.rules.judge.order import (
    check_freeze_order,
    check_trials_in_future,
    merge_by_window_close,
    public_early,
)
from bot.rules.judge.raw_log import check_raw_log_folder
from bot.rules.judge.scores import check_score_table
from bot.rules.models import Market, SharedRules
from bot.rules.qualification import Evidence, qualify
from bot.rules.records import (
    CERTIFICATES,
    RECORD_FILES,
    RecordsNeeded,
    RecordsResult,
    check_records,
)
from bot.rules.score_table import ScoreTable
from bot.rules.verdict import AttemptVerdict, BarResult, CheckState, Counts
from bot.vocab.document import FieldPath
from bot.vocab.findings import Finding, Severity
from bot.vocab.values import JSONObject


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
    if not files.scan_complete:
        # Over the file cap the scan stopped early: what it did not reach is not "missing".
        return AttemptVerdict(
            files.folder, files.folder_market, None, list(files.problems), digest=files.digest
        )
    if files.freeze_only:
        return judge_freeze_only(files, facts, list(files.problems))
    attempt = files.attempt
    withholdable = withholdable_of(market, facts)
    records = records_of(files, market, rules, withholdable)
    verdict = _evidence_verdict(
        files, records, _evidence_findings(files, facts, market, rules, records, withholdable)
    )
    # What the pull request may not change blocks qualification, never the evidence's own
    # checks: the score table is compared all the same, so a maintainer who approves the
    # change meets on the PR every code main gives after the merge.
    if (
        market is None
        or attempt is None
        or not records.cases_read
        or any(f.severity is Severity.ERROR for f in verdict.findings)
    ):
        # Invalid evidence still shows how its readable trials group into units (docs/spec.md §6),
        # so a filer sees what a shared key did before the bars are ever evaluated.
        return _with_units(verdict, records)

    # 9. bars and the score table
    if records.bars is None or records.units is None or records.derived is None:
        # A bug, never a cache miss: records without errors, of a known market, always have
        # their bars (RecordsChecker.finish), in the cache too. RecordsNeeded would have the
        # shell read the files again and hide it.
        raise AssertionError("valid records reached the bars without their evaluation")
    bars, units = records.bars, records.units
    derived = records.derived
    scores = files.scores
    claimed = scores.data if scores is not None and isinstance(scores.data, dict) else None
    problems, warnings = _bar_findings(files, attempt, records, bars, claimed, derived)
    verdict = replace(
        verdict,
        findings=(*verdict.findings, *problems, *warnings),
        bars=tuple(bars),
        class_conditional=derived.class_conditional,
    )
    if any(f.severity is Severity.ERROR for f in facts.pr_problems):
        # Its codes are shown, but no bars: they are judged once the pull request may merge.
        return _with_units(replace(verdict, bars=(), class_conditional={}), records)
    if problems or as_of is None:
        return verdict

    # 10. qualification
    evidence = _evidence(files, attempt, facts, records, claimed)
    result = qualify(evidence, market, rules, bars, units, derived, as_of)
    return replace(
        verdict,
        qualification=tuple(result.reasons),
        status=result.status,
        outcome=result.outcome,
        checks=_with_adapter_description(result.checks, files.adapter),
        units=result.units,
    )


def _evidence_findings(
    files: AttemptFiles,
    facts: AttemptFacts,
    market: Market | None,
    rules: SharedRules,
    records: RecordsResult,
    withholdable: Sequence[str],
) -> list[Finding]:
    """Steps 1 to 8, every rule on the evidence itself, in the order the files were read."""
    findings: list[Finding] = list(files.problems)
    attempt = files.attempt
    # 1. what reading found, the location, and names a reader cannot see
    if attempt is not None:
        findings += check_location(files.folder, attempt)
        findings += check_generator(
            attempt.adversarial.generator,
            attempt.path,
            _line(files, attempt.path, ("adversarial", "generator", "planted_found")),
        )
    head, middle, tail = _published_around_records(files)
    findings += [
        *check_names(head),
        *records.names,
        *check_names(middle),
        *records.certificate_names,
        *check_names(tail),
    ]
    findings += check_placeholders(files.published, files.problems)
    findings += check_placeholder_commit(files.freeze)
    # 2. the market
    findings += facts.market_problems
    if attempt is not None:
        findings += check_kind(attempt, market)
    # 3. frozen cases
    findings += records.cases_findings
    # 4. trials
    findings += records.trials_findings
    # 5. the adapter rerun
    findings += facts.adapter_findings or ()
    # 6. the raw log
    if attempt is not None:
        findings += check_raw_log_folder(files, attempt, rules, facts)
    # 7. freeze order (and, for a wrapped attempt, what fetching the paper's freeze found)
    if files.freeze is not None and attempt is not None:
        findings += check_freeze_order(files, attempt, files.freeze, records, facts)
        if attempt.kind == "wrapped":
            findings += facts.paper_freeze_findings
        findings += check_trials_in_future(records, facts, files.path("trials.jsonl"))
        findings += merge_by_window_close(facts, market, rules, files.path("attempt.yaml"))
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
    return findings


def _evidence_verdict(
    files: AttemptFiles, records: RecordsResult, findings: Sequence[Finding]
) -> AttemptVerdict:
    """The verdict on the evidence alone: its findings and counts, no bars, no status."""
    attempt = files.attempt
    counts = Counts(
        files=len(files.entries),
        cases=records.case_count,
        trials=records.trials.count,
        systems=records.trials.systems,
        families=len(records.trials.families),
    )
    return AttemptVerdict(
        attempt=files.folder,
        market=attempt.market if attempt else files.folder_market,
        kind=attempt.kind if attempt else None,
        findings=tuple(findings),
        digest=files.digest,
        counts=counts,
    )


def _with_units(verdict: AttemptVerdict, records: RecordsResult) -> AttemptVerdict:
    """A verdict without bars still shows how the readable trials group into units."""
    return replace(verdict, units=records.unit_summary) if records.unit_summary else verdict


def _bar_findings(
    files: AttemptFiles,
    attempt: Attempt,
    records: RecordsResult,
    bars: Sequence[BarResult],
    claimed: JSONObject | None,
    derived: ScoreTable,
) -> tuple[list[Finding], list[Finding]]:
    """9. What the bars and the score table found: problems (errors, which stop qualification)
    and warnings (which change nothing)."""
    # The bars' own findings: errors (a result a bar cannot read) and warnings on what a
    # result means (`bars.meaning_warnings`), which change nothing.
    problems = [f for f in records.bar_problems if f.severity is Severity.ERROR]
    meanings = [f for f in records.bar_problems if f.severity is not Severity.ERROR]
    scores = files.scores
    if scores is not None and claimed is not None:
        problems += check_score_table(scores, claimed, derived)
    # Warnings only: they stop neither qualification nor the decision (`problems` do). Where
    # problems make the evidence invalid the bars count for nothing, so nothing is warned.
    if problems:
        return problems, []
    warnings = [
        *coverage_warnings(bars, files.path("trials.jsonl")),
        *meanings,
        *public_early(attempt, records.trials.last_started_at),
    ]
    return problems, warnings


def _evidence(
    files: AttemptFiles,
    attempt: Attempt,
    facts: AttemptFacts,
    records: RecordsResult,
    claimed: JSONObject | None,
) -> Evidence:
    """10. What qualification reads of valid evidence."""
    return Evidence(
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


def _with_adapter_description(
    checks: Mapping[str, CheckState], adapter: AdapterSpec | None
) -> dict[str, CheckState]:
    """10. The human checks; the maintainer judges the wrapping against what the adapter says
    it did."""
    checks = dict(checks)
    wrapping = checks.get("wrapping-within-rules")
    if wrapping is not None and adapter is not None:
        checks["wrapping-within-rules"] = CheckState(
            wrapping.state, wrapping.verdict, wrapping.by, wrapping.at, adapter.description
        )
    return checks


def withholdable_of(market: Market | None, facts: AttemptFacts) -> list[str]:
    """8. The fields no published file may hold: the market's and the challenge run's."""
    return sorted({*(market.withholdable if market else ()), *facts.challenge_withholdable})


def records_of(
    files: AttemptFiles, market: Market | None, rules: SharedRules, withholdable: Sequence[str]
) -> RecordsResult:
    """freeze-cases.jsonl and trials.jsonl checked: as read back from the verification cache
    (`files.records_result`), else checked now. Raises `RecordsNeeded` when the check read back
    was made for other withholdable fields (then the shell judges from the files)."""
    if files.records_result is not None:
        if files.records_result.withholdable != tuple(withholdable):
            raise RecordsNeeded("the cached check was made for other withholdable fields")
        return files.records_result
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
    (`RecordsResult`), so each check's findings keep the reading order."""
    records = {files.path(name) for name in (*RECORD_FILES, CERTIFICATES)}
    head = {files.path("attempt.yaml"), files.path("freeze.yaml")}
    middle = {files.path("scores.yaml"), files.path("judgments.yaml")}
    return (
        [entry for entry in files.published if entry[0] in head],
        [entry for entry in files.published if entry[0] in middle],
        [entry for entry in files.published if entry[0] not in head | middle | records],
    )


def _line(files: AttemptFiles, file: str, where: FieldPath) -> int | None:
    """The line of field `where` in the published document `file`, when it was parsed."""
    for path, _, line_of in files.published:
        if path == file:
            return line_of(where)
    return None


def _check_challenge(
    files: AttemptFiles,
    challenge: ChallengeFacts,
    records: RecordsResult,
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

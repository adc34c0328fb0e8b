"""Judge one challenge run: a pure function of its files and facts (no I/O).

A run is valid when its run.yaml and hash-only freeze-cases.jsonl hold, its market exists and
accepts challenge attempts, every score file reads, a built-in scorer's recomputation from the
published inputs agrees with the operator's stated results, no score file landed on the base
branch before the run's freeze, and no withholdable field appears in any file of the run.
What each attempt's trials must then carry is `RunJudged.results`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Literal

from bot.rules.challenge.rules import (
    ScoredCase,
    check_run_cases,
    compare_recomputed,
    without_repeats,
)
from bot.rules.challenge.scorers import builtin_scorer, scorer_settings
from bot.rules.evidence.models import Case
from bot.rules.evidence.names import check_names
from bot.rules.evidence.withheld import check_withheld
from bot.rules.models import Market
from bot.rules.verdict import ImpossibleVerdict
from bot.vocab.commits import Landing
from bot.vocab.document import Document, FieldPath, Record
from bot.vocab.files import FileEntry
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.values import JSONObject, JSONValue

__all__ = [
    "RunFacts",
    "RunFiles",
    "RunJudged",
    "RunVerdict",
    "ScoreFolder",
    "ScoredAttempt",
    "judge_run",
]


@dataclass(frozen=True)
class ScoreFolder:
    """`scores/<submitter>/<attempt>/` of a run: the operator's results and scorer input."""

    key: str  # <submitter>/<attempt>
    folder: str
    results: Sequence[Record] | None = None  # results.jsonl's records that passed the schema
    input_text: str | None = None  # a built-in scorer's input, as text
    results_path: str | None = None
    input_path: str | None = None


@dataclass(frozen=True)
class RunFiles:
    """A run folder as read from a tree."""

    run: str
    folder: str
    entries: Mapping[str, FileEntry]
    problems: Sequence[Finding]
    complete: bool = True
    document: Document | None = None  # run.yaml, when it passed its schema
    case_records: Sequence[Record] | None = None
    cases_complete: bool = True
    scores: Mapping[str, ScoreFolder] = field(default_factory=dict)
    # (path, data, the line of a field path) per parsed file, for the names and withheld checks
    published: Sequence[tuple[str, object, Callable[[FieldPath], int | None]]] = ()

    @property
    def run_yaml(self) -> str:
        return f"{self.folder}/run.yaml"

    def value(self, name: str) -> JSONValue:
        """run.yaml's top-level `name` (None when absent or the file is unread)."""
        data = self.document.data if self.document is not None else None
        return data.get(name) if isinstance(data, dict) else None

    def line(self, *where: str | int) -> int | None:
        return self.document.line_of(tuple(where)) if self.document is not None else None

    @property
    def market_number(self) -> int | None:
        number = self.value("market")
        return number if isinstance(number, int) and not isinstance(number, bool) else None

    @property
    def withholdable(self) -> tuple[str, ...]:
        names = self.value("withholdable")
        return tuple(str(name) for name in names) if isinstance(names, list) else ()


@dataclass(frozen=True)
class RunFacts:
    """What the shell learnt outside the run's files."""

    market: Market | None = None
    market_problems: Sequence[Finding] = ()
    base_ref: str | None = None
    history_unavailable: str | None = None
    freeze_landing: Landing | str | None = None  # where freeze-cases.jsonl landed on main
    score_landings: Mapping[str, Landing | str] = field(default_factory=dict)
    text_leaks: Sequence[Finding] = ()  # the text leak check over the files not parsed
    withholdable: Sequence[str] = ()  # the run's and its market's


@dataclass(frozen=True, slots=True)
class ScoredAttempt:
    """The results the run's scorer gave one attempt, per case."""

    attempt: str  # <submitter>/<attempt>
    source: Literal["recomputed", "score-file"]
    tasks: Mapping[str, JSONObject]


@dataclass(frozen=True, slots=True)
class RunVerdict:
    """One challenge run's findings and what it scored (the verify report's `challenge_runs`)."""

    run: str
    folder: str
    market: int | None
    scorer: str | None
    operator: str | None
    findings: Sequence[Finding] = ()
    cases: int = 0
    scored: Sequence[ScoredAttempt] = ()
    recomputed_by: str | None = None  # the built-in scorer that recomputed, if any

    def __post_init__(self) -> None:
        object.__setattr__(self, "findings", tuple(self.findings))
        object.__setattr__(self, "scored", tuple(self.scored))
        where = f"challenge run {self.run!r}"
        if self.cases < 0:
            raise ImpossibleVerdict(f"{where}: {self.cases} cases, a count is never negative")
        keys = [scored.attempt for scored in self.scored]
        if len(set(keys)) != len(keys):
            raise ImpossibleVerdict(f"{where}: an attempt is scored twice")
        if self.recomputed_by is None and any(s.source == "recomputed" for s in self.scored):
            raise ImpossibleVerdict(f"{where}: scores recomputed with no built-in scorer")

    @property
    def evidence(self) -> Literal["valid", "invalid"]:
        return "invalid" if any(f.severity is Severity.ERROR for f in self.findings) else "valid"


@dataclass(frozen=True)
class RunJudged:
    """A run's verdict with what its attempts are checked against."""

    verdict: RunVerdict
    cases: Mapping[str, Case] | None
    cases_file: str
    results: Mapping[str, Mapping[str, ScoredCase]]  # <submitter>/<attempt> -> case -> result
    withholdable: Sequence[str]
    market: int | None


def judge_run(files: RunFiles, facts: RunFacts) -> RunJudged:
    """Judge a run folder; never raises for bad input."""
    findings: list[Finding] = list(files.problems)
    cases_file = f"{files.folder}/freeze-cases.jsonl"
    if files.document is not None and files.value("id") != files.run:
        findings.append(
            Finding(
                Code.SCHEMA,
                f"id: got {files.value('id')!r}, expected {files.run!r} from the folder name",
                files.run_yaml,
                files.line("id"),
            )
        )
    findings += facts.market_problems
    market = facts.market
    if market is not None and "challenge" not in market.kinds:
        message = (
            f"market {market.id} accepts {', '.join(market.kinds)}: a challenge run needs a"
            " market whose kinds list challenge"
        )
        findings.append(
            Finding(Code.KIND_NOT_ACCEPTED, message, files.run_yaml, files.line("market"))
        )
    cases: dict[str, Case] | None = None
    if files.case_records is not None:
        cases, problems = check_run_cases(files.case_records, cases_file, files.cases_complete)
        findings += problems
    findings += check_names(files.published)
    # Scores: the operator's stated results, recomputed where a built-in scorer's inputs are
    # published.
    scorer_name = files.value("scorer")
    scorer = builtin_scorer(scorer_name) if isinstance(scorer_name, str) else None
    data = files.document.data if files.document is not None else None
    settings = scorer_settings(data if isinstance(data, dict) else None)
    results: dict[str, dict[str, ScoredCase]] = {}
    scored: list[ScoredAttempt] = []
    for key, folder in sorted(files.scores.items()):
        stated: dict[str, ScoredCase] = {}
        for record in folder.results or ():
            case_id = str(record.data["case_id"])
            result = record.data["result"]
            assert isinstance(result, dict)  # the schema said so
            if case_id in stated:
                message = f"case {case_id!r} is scored twice (first on line {stated[case_id].line})"
                findings.append(
                    Finding(Code.DUPLICATE_TRIAL, message, folder.results_path, record.line)
                )
                continue
            if cases is not None and case_id not in cases:
                message = f"case {case_id!r} is not a case of the run ({cases_file})"
                findings.append(
                    Finding(Code.UNKNOWN_CASE, message, folder.results_path, record.line)
                )
                continue
            stated[case_id] = ScoredCase(result, folder.results_path or folder.folder, record.line)
        source: Literal["recomputed", "score-file"] = "score-file"
        if scorer is not None and folder.input_text is not None and folder.input_path is not None:
            recomputed, problems = scorer.score(folder.input_text, folder.input_path, settings)
            findings += problems
            if not problems:
                source = "recomputed"
                if folder.results is None:  # no stated results: the recomputation is the score
                    stated = {
                        case_id: ScoredCase(dict(values), folder.input_path, None)
                        for case_id, values in recomputed.items()
                        if cases is None or case_id in cases
                    }
                else:
                    findings += compare_recomputed(
                        recomputed,
                        stated,
                        scorer.fields,
                        scorer.tolerance,
                        scorer.name,
                        folder.input_path,
                        folder.results_path or folder.folder,
                    )
                    # The trials carry what the scorer gives, not the stated values it
                    # tolerates: a stated score rounded within the tolerance must not break a
                    # tie or cross a threshold in the filer's favour.
                    stated = {
                        case_id: ScoredCase(
                            {**scored_case.result, **recomputed.get(case_id, {})},
                            scored_case.file,
                            scored_case.line,
                        )
                        for case_id, scored_case in stated.items()
                    }
                unknown = sorted(set(recomputed) - set(cases or recomputed))
                for case_id in unknown:
                    message = f"task {case_id!r} is not a case of the run ({cases_file})"
                    findings.append(Finding(Code.UNKNOWN_CASE, message, folder.input_path))
        results[key] = stated
        scored.append(
            ScoredAttempt(key, source, {case: dict(s.result) for case, s in sorted(stated.items())})
        )
    findings += _check_order(files, facts)
    # Hidden suite: no withholdable field in any file of the run.
    findings += check_withheld(files.published, facts.withholdable)
    findings += without_repeats(facts.text_leaks, findings)
    operator = files.value("operator")
    verdict = RunVerdict(
        run=files.run,
        folder=files.folder,
        market=files.market_number,
        scorer=scorer_name if isinstance(scorer_name, str) else None,
        operator=operator if isinstance(operator, str) else None,
        findings=tuple(findings),
        cases=len(cases or {}),
        scored=tuple(scored),
        recomputed_by=scorer.name if scorer is not None else None,
    )
    return RunJudged(
        verdict, cases, cases_file, results, tuple(facts.withholdable), files.market_number
    )


def _check_order(files: RunFiles, facts: RunFacts) -> list[Finding]:
    """Scoring after the freeze: every score file that is on the base branch landed in a later
    commit than the run's freeze-cases.jsonl (`freeze-order`)."""
    cases_file = f"{files.folder}/freeze-cases.jsonl"
    if facts.history_unavailable is not None:
        if files.scores:
            return [Finding(Code.FREEZE_ORDER, facts.history_unavailable, cases_file)]
        return []
    freeze = facts.freeze_landing
    findings = []
    for path, landing in sorted(facts.score_landings.items()):
        both_in_change = (
            isinstance(landing, Landing)
            and isinstance(freeze, Landing)
            and landing.pending
            and freeze.pending
        )
        if both_in_change or (not isinstance(landing, Landing) and not isinstance(freeze, Landing)):
            # Neither is on the base branch: a pull request that freezes and scores at once
            # lands both in one commit, so the scores could not come after the freeze.
            message = (
                f"{path} is in the same change as the run's freeze-cases.jsonl, which is not on"
                f" {facts.base_ref} yet"
                + ("" if isinstance(freeze, Landing) else f" ({freeze})")
                + ": merge the freeze first, then the scores"
            )
            findings.append(Finding(Code.FREEZE_ORDER, message, path))
            continue
        if not isinstance(landing, Landing):
            continue  # not on the base branch yet (a pull request): it will land after
        if not isinstance(freeze, Landing):
            message = (
                f"{path} is on {facts.base_ref} but the run's freeze-cases.jsonl is not"
                f" ({freeze}): the suite must be frozen before anything is scored"
            )
            findings.append(Finding(Code.FREEZE_ORDER, message, path))
        elif landing.committed_at <= freeze.committed_at:
            message = (
                f"{path} landed on {facts.base_ref} in {landing.where}"
                f" ({landing.committed_at.isoformat()}), not after the run's freeze-cases.jsonl"
                f" ({freeze.where}, {freeze.committed_at.isoformat()}): scores come after the"
                " freeze"
            )
            findings.append(Finding(Code.FREEZE_ORDER, message, path))
    return findings

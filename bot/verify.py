"""`claims verify`: read one attempt folder, run every rule, return its verdict.

This is the imperative shell around the pure rules (`bot/evidence/rules.py`, `bot/bars.py`,
`bot/qualification.py`): it reads files (never following links), asks git when the freeze and
the evidence landed, optionally streams the raw log, and collects every finding. One bad file
never hides the next: each step runs on whatever the earlier steps could read.

Steps (numbers repeated inline):
 1. scan the folder: regular files only, with sizes and hashes (the evidence digest);
 2. attempt.yaml, its market (market 14 and unknown markets refused) and its location;
 3. freeze.yaml and freeze-cases.jsonl (schema, case hashes, unique ids);
 4. trials.jsonl (schema, one trial per case, known cases, unit keys);
 5. the other files that have schemas (scores, certificates, judgments, adapter), and with
    --rerun-adapters a wrapped attempt's adapter rerun in the sandbox (5b);
 6. the raw log, kept whole or as excerpts, and with --fetch-raw-logs its URL;
 7. freeze order: run attempts against git, wrapped against the paper's freeze, challenge
    attempts against the run's freeze-cases;
 8. hidden suites: no withholdable field in any published file;
 9. the bars and the score table derived from cases and trials (`score-table-mismatch`);
10. with valid evidence: qualification and outcome, as of `VerifyOptions.as_of`;
11. a pull request's diff, with --base-ref: nothing outside its attempt folder
    (`check_changes`, run once per pull request by the caller).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import Path, PurePosixPath
from typing import Any

from bot.bars import compare_score_tables, derive_score_table, evaluate_bars
from bot.config import Limits
from bot.dates import MarketDates, end_of_day
from bot.evidence.models import Case, Trial
from bot.evidence.rules import (
    RawLogFile,
    check_cases,
    check_raw_log,
    check_trial_order,
    check_trials,
    check_withheld,
    evidence_digest,
    paper_freeze_time,
)
from bot.evidence.schema import validate
from bot.findings import Code, Finding, Severity
from bot.history import Change, History
from bot.load.document import Document, FieldPath, Record
from bot.load.folder import FileEntry, read_regular, scan_folder
from bot.load.jsonl import load_jsonl
from bot.load.yaml_ import load_yaml, parse_yaml
from bot.models import Market, SharedRules
from bot.qualification import Evidence, qualify
from bot.registry import Registry, market_path
from bot.verdict import AttemptVerdict

__all__ = [
    "RawLogFetcher",
    "VerifyOptions",
    "changed_attempt_folders",
    "check_changes",
    "verify_attempt",
]

# (url, sha256, size, head, tail, file, line, limits) -> findings; bot.fetch provides it.
RawLogFetcher = Callable[..., list[Finding]]

_PROTECTED = ("markets/", "shared-rules/", "challenge-runs/", "bot/", ".github/", "schemas/")
_SLUG = re.compile(r"\A[a-z0-9][a-z0-9-]{1,62}[a-z0-9]\Z")  # common.schema.json#/$defs/slug
_MARKET_FOLDER = re.compile(r"\Amarket-(\d{2,})\Z")
_FREEZE_FILES = frozenset({"freeze.yaml", "freeze-cases.jsonl"})


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    """How to verify: the base branch's history (or why it is unreadable), the raw-log
    fetcher, and the date qualification is judged on (read from the clock by the CLI)."""

    history: History | str
    fetch_raw_log: RawLogFetcher | None = None
    as_of: date | None = None
    # (attempt folder, display path, adapter.yaml data) -> findings; bot.rerun provides it.
    rerun_adapter: Callable[[Path, str, Mapping[str, Any]], list[Finding]] | None = None


LineOf = Callable[[FieldPath], int | None]


def _constant_line(line: int) -> LineOf:
    """A JSONL record's line, whichever field of it is asked about."""

    def line_of(_where: FieldPath) -> int | None:
        return line

    return line_of


class _Attempt:
    """The files of one attempt folder, read on demand, regular files only."""

    def __init__(self, registry: Registry, folder: Path, display: str) -> None:
        self.registry = registry
        self.folder = folder
        self.display = display
        self.limits: Limits = registry.limits
        self.findings: list[Finding] = []
        self.entries: dict[str, FileEntry] = {}
        # Every parsed document and record, for the hidden-suite check: (file, data, line_of).
        self.published: list[tuple[str, object, LineOf]] = []

    def path(self, name: str) -> str:
        return f"{self.display}/{name}"

    def has(self, name: str) -> bool:
        return name in self.entries

    def yaml(self, name: str, schema: str, required: bool) -> Document | None:
        if not self.has(name):
            if required and not self._refused(name):
                self.findings.append(Finding(Code.FILE_MISSING, "required file", self.path(name)))
            return None
        document, problems = load_yaml(self.folder / name, self.path(name), self.limits)
        self.findings.extend(problems)
        if document is None:
            return None
        self.published.append((document.path, document.data, document.line_of))
        problems = validate(schema, document.data, document.path, document.lines)
        self.findings.extend(problems)
        return None if problems else document

    def jsonl(self, name: str, required: bool) -> list[Record] | None:
        if not self.has(name):
            if required and not self._refused(name):
                self.findings.append(Finding(Code.FILE_MISSING, "required file", self.path(name)))
            return None
        records, problems = load_jsonl(self.folder / name, self.path(name), self.limits)
        self.findings.extend(problems)
        self.published += [
            (self.path(name), record.data, _constant_line(record.line)) for record in records
        ]
        return records

    def _refused(self, name: str) -> bool:
        """True if the scan already reported this path (a symlink, say)."""
        return any(f.file == self.path(name) for f in self.findings)

    def has_errors(self) -> bool:
        return any(f.severity is Severity.ERROR for f in self.findings)


def verify_attempt(registry: Registry, folder: Path, options: VerifyOptions) -> AttemptVerdict:
    """Check one attempt folder. Returns its verdict; never raises for bad input."""
    display = _display(registry.root, folder)
    attempt = _Attempt(registry, folder, display)
    rules = registry.rules

    # 1. scan the folder
    attempt.entries, problems = scan_folder(folder, display, registry.limits)
    attempt.findings.extend(problems)
    digest = evidence_digest({path: entry.sha256 for path, entry in attempt.entries.items()})
    if any(f.code is Code.TOO_MANY_FILES for f in problems):
        # Over the file cap the scan stopped early: what it did not reach is not "missing".
        return AttemptVerdict(display, None, None, tuple(attempt.findings), digest=digest)
    if attempt.entries and set(attempt.entries) <= _FREEZE_FILES | {"README.md"}:
        return _verify_freeze_only(attempt, digest)

    # 2. attempt.yaml, market, location
    document = attempt.yaml("attempt.yaml", "attempt", required=True)
    data: dict[str, Any] = document.data if document and isinstance(document.data, dict) else {}
    market, registry_findings = _market(attempt, document, data)
    kind: str | None = data.get("kind")
    if document is not None:
        _check_location(attempt, display, data, document)

    # 3. freeze.yaml and freeze-cases.jsonl
    freeze = attempt.yaml("freeze.yaml", "freeze", required=True)
    case_records = attempt.jsonl("freeze-cases.jsonl", required=True)
    cases: dict[str, Case] | None = None
    if case_records is not None:
        cases, problems = check_cases(case_records, attempt.path("freeze-cases.jsonl"))
        attempt.findings.extend(problems)

    # 4. trials.jsonl
    unit_keys = market.unit_keys if market else rules.unit_keys
    trial_records = attempt.jsonl("trials.jsonl", required=True)
    trials: list[Trial] = []
    if trial_records is not None:
        unreadable = any(
            f.code is Code.JSONL_INVALID and f.file == attempt.path("trials.jsonl")
            for f in attempt.findings
        )
        trials, problems = check_trials(
            trial_records,
            cases,
            unit_keys,
            attempt.path("trials.jsonl"),
            complete=not unreadable,
        )
        attempt.findings.extend(problems)

    # 5. the other files with schemas
    scores = attempt.yaml("scores.yaml", "scores", required=False)
    judgments = attempt.yaml("judgments.yaml", "judgments", required=False)
    certificate_records = attempt.jsonl("certificates.jsonl", required=False)
    certificates: list[dict[str, Any]] = []
    for record in certificate_records or []:
        problems = validate(
            "certificate", record.data, attempt.path("certificates.jsonl"), line=record.line
        )
        attempt.findings += problems
        if not problems:
            certificates.append(record.data)
    adapter = attempt.yaml("adapter/adapter.yaml", "adapter", required=kind == "wrapped")
    adapter_data: dict[str, Any] = (
        adapter.data if adapter and isinstance(adapter.data, dict) else {}
    )
    if adapter_data and options.rerun_adapter is not None:
        # 5b. a wrapped attempt's adapter, rerun in the sandbox (SPEC 9)
        attempt.findings += options.rerun_adapter(folder, display, adapter_data)

    # 6. the raw log
    if document is not None and "raw_log" in data:
        _check_raw_log(attempt, data["raw_log"], document, options)

    # 7. freeze order
    if freeze is not None and isinstance(freeze.data, dict) and document is not None:
        _check_freeze_order(attempt, kind, freeze, data, trials, options)

    # 8. hidden suites
    attempt.findings += check_withheld(attempt.published, _withholdable(attempt, market, data))

    counts = {
        "files": len(attempt.entries),
        "cases": len(cases or {}),
        "trials": len(trials),
        "systems": len({trial.system for trial in trials}),
        "families": len({cases[t.case_id].family for t in trials if cases and t.case_id in cases}),
    }
    verdict = AttemptVerdict(
        attempt=display,
        market=data["market"] if isinstance(data.get("market"), int) else _folder_market(display),
        kind=kind,
        findings=tuple(attempt.findings),
        registry_findings=tuple(registry_findings),
        digest=digest,
        counts=counts,
    )
    if market is None or cases is None or attempt.has_errors():
        return verdict

    # 9. bars and the score table
    bars, units, problems = evaluate_bars(
        market, cases, trials, rules.confidence, attempt.path("trials.jsonl")
    )
    derived = derive_score_table(bars, cases, trials)
    if scores is not None and isinstance(scores.data, dict):
        problems += _check_score_table(scores, derived)
    bar_json = [result.to_json() for result in bars]
    verdict = replace(
        verdict,
        findings=(*verdict.findings, *problems),
        bars=bar_json,
        class_conditional=derived.get("class_conditional", {}),
    )
    if problems or options.as_of is None:
        return verdict

    # 10. qualification
    evidence = Evidence(
        folder=display,
        attempt=data,
        kind=kind or "run",
        cases=cases,
        trials=trials,
        certificates=certificates if certificate_records is not None else None,
        scores=scores.data if scores is not None and isinstance(scores.data, dict) else None,
        judgments=judgments.data if judgments and isinstance(judgments.data, dict) else None,
        digest=digest,
        filed_at=_filed_at(attempt, options.history),
        judgments_at_close=_judgments_at_close(attempt, market, rules, options),
        lines={str(where[0]): line for where, line in document.lines.items() if len(where) == 1}
        if document is not None
        else {},
    )
    result = qualify(evidence, market, rules, bars, units, derived, options.as_of)
    if "wrapping-within-rules" in result.checks and adapter_data:
        # The maintainer judges the wrapping against what the adapter says it did.
        result.checks["wrapping-within-rules"]["adapter_description"] = adapter_data["description"]
    return replace(
        verdict,
        status=result.status,
        outcome=result.outcome,
        qualification=tuple(result.reasons),
        checks=result.checks,
        units=result.units,
    )


def _check_score_table(scores: Document, derived: dict[str, Any]) -> list[Finding]:
    """9. The filer's table must equal the one derived from cases and trials (SPEC 4)."""
    claimed: dict[str, Any] = scores.data  # type: ignore[assignment]
    findings = []
    for row in compare_score_tables(claimed, derived):
        if row.startswith("class_conditional."):
            key = row.removeprefix("class_conditional.")
            theirs = claimed.get("class_conditional", {}).get(key)
            mine = derived.get("class_conditional", {}).get(key)
            where: tuple[str, ...] = ("class_conditional", key)
        else:
            theirs = claimed.get("bars", {}).get(row)
            mine = derived["bars"].get(row)
            where = ("bars", row)
        message = (
            f"{'.'.join(where)}: scores.yaml says {_compact(theirs)}, the cases and"
            f" trials give {_compact(mine)}"
        )
        findings.append(
            Finding(Code.SCORE_TABLE_MISMATCH, message, scores.path, scores.line_of(where))
        )
    return findings


def _compact(value: Any) -> str:
    if value is None:
        return "nothing"
    if isinstance(value, dict):
        return "{" + ", ".join(f"{key}: {_compact(item)}" for key, item in value.items()) + "}"
    if isinstance(value, float):
        return f"{value:.6f}"
    return str(value)


def _filed_at(attempt: _Attempt, history: History | str) -> datetime | None:
    """When the attempt's evidence, as it stands, landed on the base branch (None: not all)."""
    if isinstance(history, str):
        return None
    latest = None
    for name in attempt.entries:
        if name == "judgments.yaml":
            continue
        try:
            content = read_regular(attempt.folder / name, 1 << 31)
        except OSError:
            return None
        found = history.landing(attempt.path(name), content)
        if isinstance(found, str):
            return None
        latest = found.committed_at if latest is None else max(latest, found.committed_at)
    return latest


def _folder_market(display: str) -> int | None:
    """The market a folder attempts/market-NN/... names, when attempt.yaml cannot say."""
    parts = PurePosixPath(display).parts
    match = _MARKET_FOLDER.match(parts[1]) if len(parts) > 1 and parts[0] == "attempts" else None
    return int(match.group(1)) if match else None


def _judgments_at_close(
    attempt: _Attempt, market: Market, rules: SharedRules, options: VerifyOptions
) -> dict[str, Any] | None:
    """judgments.yaml's checks as they stood on the base branch when the window closed."""
    dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
    history = options.history
    if isinstance(history, str) or options.as_of is None or options.as_of <= dates.window_closes:
        return None
    raw = history.content_at(attempt.path("judgments.yaml"), end_of_day(dates.window_closes))
    if raw is None:
        return None
    document, _ = parse_yaml(raw, attempt.path("judgments.yaml"), attempt.limits)
    if document is None or validate("judgments", document.data, document.path):
        return None
    checks: dict[str, Any] = document.data["checks"]  # type: ignore[index]
    return checks


def _withholdable(attempt: _Attempt, market: Market | None, data: dict[str, Any]) -> list[str]:
    """8. The market's withholdable fields, and for a challenge attempt its run's."""
    fields = list(market.withholdable) if market else []
    run = data.get("challenge_run")
    if data.get("kind") == "challenge" and isinstance(run, str):
        document, _ = attempt.registry.challenge_run(run)
        if document is not None and not validate("challenge-run", document.data, document.path):
            fields += [str(name) for name in document.data["withholdable"]]  # type: ignore[index]
    return sorted(set(fields))


def _verify_freeze_only(attempt: _Attempt, digest: str) -> AttemptVerdict:
    """A freeze pull request, before its run exists: the freeze, its location and market."""
    parts = PurePosixPath(attempt.display).parts
    match = _MARKET_FOLDER.match(parts[1]) if len(parts) == 4 else None
    number = int(match.group(1)) if match else None
    if number is None or parts[0] != "attempts" or not all(map(_SLUG.match, parts[2:])):
        attempt.findings.append(
            Finding(
                Code.ATTEMPT_LOCATION,
                f"the folder is {attempt.display}/, expected"
                " attempts/market-NN/<submitter>/<attempt>/ with slugs of 3-64 lower-case"
                " letters, digits and hyphens",
                attempt.display,
            )
        )
    registry_findings: list[Finding] = []
    if number is not None:
        rules = attempt.registry.rules
        if rules.budget_by_market.get(number) == "not_in_registry":
            attempt.findings.append(
                Finding(Code.MARKET_UNKNOWN, rules.not_in_registry_message, attempt.display)
            )
        else:
            market, registry_findings = attempt.registry.market(number)
            if market is None and not registry_findings:
                attempt.findings.append(
                    Finding(
                        Code.MARKET_UNKNOWN,
                        f"market {number} has no contract in this registry ({market_path(number)})",
                        attempt.display,
                    )
                )
    attempt.yaml("freeze.yaml", "freeze", required=True)
    records = attempt.jsonl("freeze-cases.jsonl", required=True)
    cases: dict[str, Case] = {}
    if records is not None:
        cases, problems = check_cases(records, attempt.path("freeze-cases.jsonl"))
        attempt.findings.extend(problems)
    attempt.findings.append(
        Finding(
            Code.FREEZE_ONLY,
            "only the freeze is filed: attempt.yaml, trials.jsonl and raw-log/ come in a later"
            " pull request, after this freeze is merged",
            attempt.display,
            severity=Severity.WARNING,
        )
    )
    return AttemptVerdict(
        attempt=attempt.display,
        market=number,
        kind=None,
        findings=tuple(attempt.findings),
        registry_findings=tuple(registry_findings),
        digest=digest,
        counts={"files": len(attempt.entries), "cases": len(cases)},
    )


def _display(root: Path, folder: Path) -> str:
    try:
        return folder.resolve().relative_to(root.resolve()).as_posix()
    except ValueError:
        return folder.as_posix()


def _market(
    attempt: _Attempt, document: Document | None, data: dict[str, Any]
) -> tuple[Market | None, list[Finding]]:
    """2. The attempt's market: refused when it is market 14 or has no contract."""
    if document is None:
        return None, []
    number = int(data["market"])
    rules = attempt.registry.rules
    where = document.path, document.line_of(("market",))
    if rules.budget_by_market.get(number) == "not_in_registry":
        attempt.findings.append(Finding(Code.MARKET_UNKNOWN, rules.not_in_registry_message, *where))
        return None, []
    market, registry_findings = attempt.registry.market(number)
    if market is None and not registry_findings:
        message = f"market {number} has no contract in this registry ({market_path(number)})"
        attempt.findings.append(Finding(Code.MARKET_UNKNOWN, message, *where))
    if data["kind"] == "challenge":
        # Their trials' results come from the operator's scorer (SPEC 11), a later stage:
        # until it exists a challenge attempt's results would be the filer's own.
        message = (
            "kind 'challenge': challenge attempts are not accepted yet (operator scoring"
            " of challenge runs is a later stage)"
        )
        attempt.findings.append(
            Finding(Code.KIND_NOT_ACCEPTED, message, document.path, document.line_of(("kind",)))
        )
    elif market is not None and data["kind"] not in market.kinds:
        message = f"kind {data['kind']!r}: market {number} accepts {', '.join(market.kinds)}"
        attempt.findings.append(
            Finding(Code.KIND_NOT_ACCEPTED, message, document.path, document.line_of(("kind",)))
        )
    return market, registry_findings


def _check_location(
    attempt: _Attempt, display: str, data: dict[str, Any], document: Document
) -> None:
    """2. attempts/market-NN/<submitter>/<attempt>/, matching attempt.yaml."""
    expected = f"attempts/market-{int(data['market']):02d}/{data['submitter']}/"
    parts = PurePosixPath(display).parts
    if not (display.startswith(expected) and len(parts) == 4):
        message = (
            f"the folder is {display}/, expected {expected}<attempt-slug>/ from attempt.yaml's"
            " market and submitter"
        )
        attempt.findings.append(
            Finding(Code.ATTEMPT_LOCATION, message, document.path, document.line_of(("submitter",)))
        )
        return
    if _SLUG.match(parts[3]) is None:
        message = f"attempt folder {parts[3]!r}: use 3-64 lower-case letters, digits and hyphens"
        attempt.findings.append(Finding(Code.ATTEMPT_LOCATION, message, display))


def _check_raw_log(
    attempt: _Attempt, claim: dict[str, Any], document: Document, options: VerifyOptions
) -> None:
    """6. raw-log/: whole and matching, or exact excerpts; with a fetcher, the URL too."""
    rules = attempt.registry.rules
    files = [
        RawLogFile(path.removeprefix("raw-log/"), entry.size, entry.sha256)
        for path, entry in attempt.entries.items()
        if path.startswith("raw-log/")
    ]
    line = document.line_of(("raw_log",))
    if not files and not any(f.file == attempt.path("raw-log") for f in attempt.findings):
        attempt.findings.append(
            Finding(
                Code.FILE_MISSING,
                "raw-log/ is missing: keep the harness's raw log here",
                attempt.path("raw-log"),
            )
        )
        return
    problems = check_raw_log(
        files,
        claim,
        rules.max_local_log_bytes,
        rules.excerpt_bytes,
        attempt.path("raw-log"),
        document.path,
        line,
    )
    attempt.findings.extend(problems)
    if options.fetch_raw_log is None or problems:
        return
    names = sorted(file.name for file in files)
    head = tail = None
    if names == ["head", "tail"]:
        head = read_regular(attempt.folder / "raw-log" / "head", rules.excerpt_bytes + 1)
        tail = read_regular(attempt.folder / "raw-log" / "tail", rules.excerpt_bytes + 1)
    attempt.findings += options.fetch_raw_log(
        claim["url"],
        sha256=claim["sha256"],
        size=int(claim["bytes"]),
        head=head,
        tail=tail,
        file=document.path,
        line=line,
        limits=attempt.limits,
    )


def _check_freeze_order(
    attempt: _Attempt,
    kind: str | None,
    freeze: Document,
    data: dict[str, Any],
    trials: Sequence[Trial],
    options: VerifyOptions,
) -> None:
    """7. Every trial after the freeze: git for run attempts, the paper's date for wrapped."""
    trials_file = attempt.path("trials.jsonl")
    freeze_data: dict[str, Any] = freeze.data  # type: ignore[assignment]
    if kind == "wrapped":
        paper = freeze_data.get("paper_freeze")
        if paper is None:
            attempt.findings.append(
                Finding(
                    Code.SCHEMA,
                    "paper_freeze: required for a wrapped attempt (the paper's own"
                    " dated freeze: date, url, sha256)",
                    freeze.path,
                    freeze.line_of(),
                )
            )
            return
        moment = paper_freeze_time(paper["date"])
        if moment is not None:
            attempt.findings += check_trial_order(
                trials, moment, f"the paper's freeze of {paper['date']}", trials_file
            )
        return
    history = options.history
    if isinstance(history, str):
        attempt.findings.append(Finding(Code.FREEZE_ORDER, history, freeze.path))
        return
    if kind == "challenge":
        run = data.get("challenge_run", "")
        files = [f"challenge-runs/{run}/freeze-cases.jsonl"]
        sources = [attempt.registry.root / files[0]]
        own = attempt.folder / "freeze-cases.jsonl"
        try:  # a link (O_NOFOLLOW: ELOOP) is reported as unreadable by the loop below
            differs = (
                attempt.has("freeze-cases.jsonl")
                and sources[0].is_file()
                and read_regular(own, 1 << 30) != read_regular(sources[0], 1 << 30)
            )
        except OSError:
            differs = False
        if differs:
            attempt.findings.append(
                Finding(
                    Code.FREEZE_ORDER,
                    f"freeze-cases.jsonl differs from the challenge run's {files[0]}",
                    attempt.path("freeze-cases.jsonl"),
                )
            )
    else:
        files = [attempt.path("freeze.yaml"), attempt.path("freeze-cases.jsonl")]
        sources = [attempt.folder / "freeze.yaml", attempt.folder / "freeze-cases.jsonl"]
    latest = None
    for file, source in zip(files, sources, strict=True):
        try:
            content = read_regular(source, 1 << 30)
        except OSError:
            attempt.findings.append(Finding(Code.FREEZE_ORDER, "cannot read the freeze", file))
            return
        found = history.landing(file, content)
        if isinstance(found, str):
            attempt.findings.append(Finding(Code.FREEZE_ORDER, found, file))
            return
        if not found.merge:
            # Only a merge commit's date is written by GitHub when the freeze PR merged; a
            # commit fast-forwarded onto main carries dates its author chose.
            attempt.findings.append(
                Finding(
                    Code.FREEZE_ORDER,
                    f"{file} reached {history.base_ref} in {found.sha[:12]}, which is not a merge"
                    " commit, so its date proves nothing: merge freeze pull requests with a merge"
                    " commit (docs/running-on-github.md)",
                    file,
                )
            )
            return
        if latest is None or found.committed_at > latest.committed_at:
            latest = found
    if latest is not None:
        what = f"the freeze merged to {history.base_ref} in {latest.sha[:12]}"
        if latest.clamped:
            what += " (its date taken no earlier than the commit before it on main)"
        attempt.findings += check_trial_order(trials, latest.committed_at, what, trials_file)


def changed_attempt_folders(changes: Sequence[Change]) -> list[str]:
    """The attempt folders (attempts/market-NN/<submitter>/<attempt>) a diff touches."""
    folders = {
        "/".join(change.path.split("/")[:4])
        for change in changes
        if change.path.startswith("attempts/") and change.path.count("/") >= 4
    }
    return sorted(folders)


def check_changes(changes: Sequence[Change], attempt_folders: Sequence[str]) -> list[Finding]:
    """9. A PR may add or change files only inside its own attempt folder.

    Each problem has its own code: a path outside the attempt folder (`path-outside-attempt`,
    the registry's own folders among them), judgments.yaml (`maintainer-file`), more than one
    attempt folder (`several-attempts`), and wherever they are, symbolic links (`symlink`),
    submodules (`submodule`) and executable files (`executable-file`).
    """
    findings = []
    if len(attempt_folders) > 1:
        message = (
            f"this pull request changes {len(attempt_folders)} attempt folders"
            f" ({', '.join(attempt_folders)}); file one attempt per pull request"
        )
        findings.append(Finding(Code.SEVERAL_ATTEMPTS, message))
    folders = tuple(f"{folder.rstrip('/')}/" for folder in attempt_folders)
    for change in changes:
        path = change.path
        if change.mode == "120000":
            findings.append(Finding(Code.SYMLINK, "a symbolic link; refused", path))
            continue
        if change.mode == "160000":
            findings.append(Finding(Code.SUBMODULE, "a submodule; refused", path))
            continue
        if change.mode == "100755":
            findings.append(
                Finding(
                    Code.EXECUTABLE_FILE,
                    "an executable file; evidence files must not be executable",
                    path,
                )
            )
        if not path.startswith(folders):
            owner = next((p for p in _PROTECTED if path.startswith(p)), None)
            reason = f"{owner} needs a maintainer" if owner else "outside the attempt folder"
            findings.append(
                Finding(
                    Code.PATH_OUTSIDE_ATTEMPT,
                    f"this pull request changes {path}: {reason}; a PR may change files only"
                    " inside its own attempt folder",
                    path,
                )
            )
        elif PurePosixPath(path).name == "judgments.yaml":
            findings.append(
                Finding(
                    Code.MAINTAINER_FILE,
                    "judgments.yaml is written by maintainers only (or by /judge comments)",
                    path,
                )
            )
    return findings

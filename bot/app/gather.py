"""The shell around the judge: read an attempt folder from a tree, ask git, the raw log's
server and the sandbox, then hand the judge typed files and facts.

Each fact is gathered once: the folder is scanned once (sizes, SHA-256 and git blob ids in one
read of each file), every document is parsed once into its typed model, and git is asked from
the run's one history index. Nothing here decides a rule; `bot/rules/judge.py` does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from datetime import date, datetime
from pathlib import PurePosixPath
from typing import Any, Protocol

from bot.app.challenge_read import RUNS, judge_run_folder, text_leaks
from bot.app.registry import Registry
from bot.edges.history import History, MergedHistory, tree_blob
from bot.edges.load.folder import scan_folder
from bot.edges.load.records import load_jsonl
from bot.edges.load.yaml_ import load_yaml, parse_yaml
from bot.edges.sandbox.command import command_problem, names_problem
from bot.edges.tree import Tree, TreeError, read_limited
from bot.rules.challenge.judge import RunJudged
from bot.rules.evidence.models import (
    AdapterSpec,
    Attempt,
    Certificate,
    Freeze,
    Judgment,
    parse_judgments,
)
from bot.rules.evidence.rules import evidence_digest
from bot.rules.evidence.schema import validate
from bot.rules.judge import (
    AttemptFacts,
    AttemptFiles,
    ChallengeFacts,
    folder_market,
    freeze_files,
    judge_attempt,
    market_unknown,
    records_of,
    withholdable_of,
)
from bot.rules.models import Market
from bot.rules.records import RecordsCheck, RecordsChecker, RecordsNeeded
from bot.rules.verdict import AttemptVerdict
from bot.vocab.commits import Landing
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.document import Document, FieldPath, Record
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.jsonl import share_values

__all__ = [
    "AdapterRunner",
    "Judged",
    "LandingConfirmer",
    "PaperFreezeFetcher",
    "RawLogFetcher",
    "RecordsCache",
    "VerifyOptions",
    "gather_facts",
    "judge_folder",
    "read_attempt",
    "verify_attempt",
]

# (url, sha256=, size=, head=, tail=, file=, line=, limits=) -> findings; bot.edges.fetch provides
# it.
RawLogFetcher = Callable[..., list[Finding]]
# (url, sha256=, file=, line=, limits=) -> findings; bot.edges.fetch.check_paper_freeze_url.
PaperFreezeFetcher = Callable[..., list[Finding]]
# (tree, the attempt's files) -> findings; bot.app.rerun.AdapterRerun provides it.
# (tree, files) -> the rerun's findings (empty: reproduced), or None: not rerun.
AdapterRunner = Callable[[Tree, AttemptFiles], list[Finding] | None]
# (a freeze's landing) -> None when GitHub confirms it as a merged PR's merge commit at its
# date, else what the API said; bot.faces.github.facts.landing_confirmer provides it.
LandingConfirmer = Callable[[Landing], str | None]

_FREEZE_FILES = frozenset({"freeze.yaml", "freeze-cases.jsonl"})


class RecordsCache(Protocol):
    """Keeps checked freeze-cases.jsonl and trials.jsonl (`RecordsCheck`) by what they depend
    on; `bot.app.cache.VerificationCache` provides it."""

    def lookup(
        self, registry: Registry, files: AttemptFiles
    ) -> tuple[RecordsCheck | None, list[Finding]]:
        """The check kept for this attempt (None: none), and notices (a damaged entry)."""

    def store(self, registry: Registry, files: AttemptFiles, check: RecordsCheck) -> None:
        """Keep the check made for this attempt."""


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    """How to verify: the date qualification is judged on (None: evidence only), the optional
    raw-log and paper's-freeze fetchers, and the adapter runner (without one, wrapped attempts
    are `adapter-not-rerun`)."""

    as_of: date | None = None
    fetch_raw_log: RawLogFetcher | None = None
    rerun_adapter: AdapterRunner | None = None
    fetch_paper_freeze: PaperFreezeFetcher | None = None
    # A pull request (--base-ref): judgments.yaml is read from the base branch's tip, never
    # from the tree being verified (a PR's own copy, added or edited, never counts).
    judgments_from_base: bool = False
    # With the GitHub API: confirms each freeze's landing commit (without it, offline, the
    # committer identity is checked and the date is reported unconfirmed).
    confirm_landing: LandingConfirmer | None = None
    # The verification cache (--verify-cache DIR): checked records kept by evidence digest,
    # market contract, shared rules and the bot's code (bot/app/cache.py). None: no cache.
    records_cache: RecordsCache | None = None
    # A pull request (--base-ref): the moment it is judged as merged at, the run's clock
    # (`bot.edges.history.merged_history`). None: the end of the `as_of` day.
    merge_at: datetime | None = None
    # Keep every record of freeze-cases.jsonl and trials.jsonl (`claims explain` reads them).
    # Without, they are checked as they are read and not kept (`RecordsChecker`).
    keep_records: bool = False


# What a missing file holds, and the filer tool that writes it (docs/filing-an-attempt.md).
_WHAT_TO_WRITE = {
    "freeze-cases.jsonl": ": the frozen cases, one JSON object a line; then"
    " `claims hash-cases {folder} --write` fills in each sha256",
    "trials.jsonl": ": one trial per frozen case, one JSON object a line",
    "scores.yaml": ": `claims scores {folder} --write` writes the table the trials give",
}


class _Reader:
    """Reads the files of one attempt folder, collecting problems in order."""

    def __init__(self, registry: Registry, folder: str, entries: dict[str, Any]) -> None:
        self.registry = registry
        self.folder = folder
        self.entries = entries
        self.problems: list[Finding] = []
        self.published: list[tuple[str, object, Callable[[FieldPath], int | None]]] = []
        self.jsonl_problems: dict[str, list[Finding]] = {}

    def path(self, name: str) -> str:
        return f"{self.folder}/{name}"

    def _present(self, name: str, required: bool) -> bool:
        if name in self.entries:
            return True
        if required and not any(f.file == self.path(name) for f in self.problems):
            message = f"required file{_WHAT_TO_WRITE.get(name, '').format(folder=self.folder)}"
            self.problems.append(Finding(Code.FILE_MISSING, message, self.path(name)))
        return False

    def yaml(self, name: str, schema: str, required: bool) -> Document | None:
        if not self._present(name, required):
            return None
        loaded = load_yaml(self.registry.tree, self.path(name), self.registry.limits)
        return self._checked(schema, *loaded)

    def yaml_from_base(self, name: str, schema: str, history: History) -> Document | None:
        """`name` as it stands on the base branch's tip (None when it is not there)."""
        limits = self.registry.limits
        raw = history.content_at_tip(self.path(name), limits.max_yaml_bytes + 1)
        if raw is None:
            return None
        return self._checked(schema, *parse_yaml(raw, self.path(name), limits))

    def _checked(
        self, schema: str, document: Document | None, problems: list[Finding]
    ) -> Document | None:
        """A parsed document, published for the hidden-suite check, if its schema holds."""
        self.problems += problems
        if document is None:
            return None
        self.published.append((document.path, document.data, document.line_of))
        problems = validate(schema, document.data, document.path, document.lines)
        self.problems += problems
        return None if problems else document

    def jsonl(self, name: str, required: bool) -> list[Record] | None:
        if not self._present(name, required):
            return None
        records, problems = load_jsonl(self.registry.tree, self.path(name), self.registry.limits)
        self.problems += problems
        self.jsonl_problems[name] = problems
        path = self.path(name)
        self.published += [(path, record.data, record) for record in records]
        return records

    def streamed_jsonl(self, name: str, sink: Callable[[Record, bytes], None]) -> bool:
        """Read a required JSONL file record by record into `sink`, keeping none. False when
        the file is absent."""
        if not self._present(name, True):
            return False
        _, problems = load_jsonl(self.registry.tree, self.path(name), self.registry.limits, sink)
        self.problems += problems
        self.jsonl_problems[name] = problems
        return True

    def checked_jsonl(
        self, name: str, read: bool, problems: Sequence[Finding], required: bool = True
    ) -> bool:
        """A JSONL file checked already (the verification cache): its reading problems in
        their place, its records not read. False when the check does not fit the folder."""
        if not self._present(name, required):
            return not read
        if not read:
            return False
        self.problems += problems
        self.jsonl_problems[name] = list(problems)
        return True


def read_attempt(
    registry: Registry,
    folder: str,
    object_format: str = "sha1",
    judgments_from: History | None = None,
    cached: Callable[[AttemptFiles], RecordsCheck | None] | None = None,
    stream: Callable[[AttemptFiles], RecordsChecker | None] | None = None,
) -> AttemptFiles:
    """Read one attempt folder of the registry's tree into typed models. Never raises for
    bad input: every problem is a finding in `AttemptFiles.problems`.

    With `judgments_from` (a pull request's base branch), judgments.yaml is read from that
    branch's tip instead of the tree: only maintainers write it, on the base branch.
    With `cached` (the verification cache's lookup, asked once attempt.yaml is read): a
    `RecordsCheck` it returns stands for freeze-cases.jsonl and trials.jsonl, which are then
    not read (`AttemptFiles.records_check`).
    With `stream` (asked next, when the cache had nothing): a `RecordsChecker` it returns
    checks the two files' records as they are read, and none is kept
    (`AttemptFiles.records_checked_now`).
    """
    entries, problems, complete = scan_folder(registry.tree, folder, registry.limits, object_format)
    digest = evidence_digest({path: entry.sha256 for path, entry in entries.items()})
    reader = _Reader(registry, folder, dict(entries))
    reader.problems += problems
    base = AttemptFiles(
        folder=folder,
        entries=entries,
        problems=reader.problems,
        digest=digest,
        folder_market=folder_market(folder),
    )
    if not complete:
        return AttemptFiles(**{**_fields(base), "scan_complete": False})
    if entries and set(entries) <= _FREEZE_FILES | {"README.md"}:
        reader.yaml("freeze.yaml", "freeze", required=True)
        cases = reader.jsonl("freeze-cases.jsonl", required=True)
        return AttemptFiles(
            **{
                **_fields(base),
                "problems": tuple(reader.problems),
                "freeze_only": True,
                "case_records": cases,
                "published": tuple(reader.published),
            }
        )
    attempt_document = reader.yaml("attempt.yaml", "attempt", required=True)
    attempt = Attempt.from_document(attempt_document) if attempt_document else None
    freeze_document = reader.yaml("freeze.yaml", "freeze", required=True)
    check = cached(replace(base, attempt=attempt)) if cached is not None else None
    if check is not None:
        kept = len(reader.problems)
        if not (
            reader.checked_jsonl("freeze-cases.jsonl", check.cases_read, check.case_read_problems)
            and reader.checked_jsonl("trials.jsonl", check.trials_read, check.trial_read_problems)
        ):
            del reader.problems[kept:]  # does not fit: read the files
            reader.jsonl_problems.clear()
            check = None
    cases = trials = None
    checker = None
    if stream is not None and check is None:
        checker = stream(replace(base, attempt=attempt))
    trials_read = False
    if checker is not None:
        if reader.streamed_jsonl("freeze-cases.jsonl", checker.case):
            checker.cases_read(reader.jsonl_problems["freeze-cases.jsonl"])
        trials_read = reader.streamed_jsonl("trials.jsonl", checker.trial)
    elif check is None:
        cases = reader.jsonl("freeze-cases.jsonl", required=True)
        trials = reader.jsonl("trials.jsonl", required=True)
        if cases and trials:
            share_values(cases, trials, "case_id")  # memory: one string per case id
    trials_complete, cases_complete = (
        not any(
            f.code is Code.JSONL_INVALID and f.file == reader.path(name) for f in reader.problems
        )
        for name in ("trials.jsonl", "freeze-cases.jsonl")
    )
    scores = reader.yaml("scores.yaml", "scores", required=False)
    judgments = (
        reader.yaml("judgments.yaml", "judgments", required=False)
        if judgments_from is None
        else reader.yaml_from_base("judgments.yaml", "judgments", judgments_from)
    )
    certificates: list[Certificate] | None = None
    if check is not None:
        if not reader.checked_jsonl(
            "certificates.jsonl",
            check.certificates_read,
            check.certificate_read_problems,
            required=False,
        ):
            return read_attempt(registry, folder, object_format, judgments_from)  # no fit
    elif (certificate_records := reader.jsonl("certificates.jsonl", required=False)) is not None:
        certificates = []
        for record in certificate_records:
            found = validate(
                "certificate", record.data, reader.path("certificates.jsonl"), line=record.line
            )
            reader.problems += found
            reader.jsonl_problems["certificates.jsonl"] += found
            if not found:
                certificates.append(Certificate.from_data(record.line, record.data))
    if checker is not None:
        certificates_file = reader.path("certificates.jsonl")
        check = checker.finish(
            reader.jsonl_problems,
            trials_read,
            certificates,
            [entry for entry in reader.published if entry[0] == certificates_file],
        )
    adapter = reader.yaml(
        "adapter/adapter.yaml",
        "adapter",
        required=attempt is not None and attempt.kind == "wrapped",
    )
    if adapter is not None:
        reader.problems += _command_problems(adapter, reader.entries)
    return AttemptFiles(
        **{
            **_fields(base),
            "problems": tuple(reader.problems),
            "attempt": attempt,
            "freeze": Freeze.from_document(freeze_document) if freeze_document else None,
            "case_records": cases,
            "trial_records": trials,
            "trials_complete": trials_complete,
            "cases_complete": cases_complete,
            "scores": scores,
            "judgments": parse_judgments(judgments.data)  # type: ignore[arg-type]
            if judgments
            else None,
            "certificates": certificates,
            "adapter": AdapterSpec.from_document(adapter) if adapter else None,
            "published": tuple(reader.published),
            "jsonl_problems": {k: tuple(v) for k, v in reader.jsonl_problems.items()},
            "records_check": check,
            "records_checked_now": checker is not None,
        }
    )


def read_adapter_files(
    registry: Registry, folder: str, object_format: str = "sha1"
) -> AttemptFiles | None:
    """What a rerun's key is made of (`bot.app.rerun.rerun_key`): the folder's files and their
    hashes, and adapter.yaml, without reading the evidence (the close job's plan asks it of
    every wrapped attempt on main). None when the folder or adapter.yaml cannot be read."""
    entries, _, complete = scan_folder(registry.tree, folder, registry.limits, object_format)
    if not complete:
        return None
    adapter = _Reader(registry, folder, dict(entries)).yaml(
        "adapter/adapter.yaml", "adapter", required=True
    )
    if adapter is None:
        return None
    return AttemptFiles(
        folder=folder,
        entries=entries,
        problems=(),
        digest=evidence_digest({path: entry.sha256 for path, entry in entries.items()}),
        folder_market=folder_market(folder),
        adapter=AdapterSpec.from_document(adapter),
    )


def _command_problems(adapter: Document, entries: Mapping[str, object] = {}) -> list[Finding]:
    """adapter.yaml's command as the sandbox will take it, with the sandbox's own rules
    (`command_problem`; `names_problem` for the working folder it lays out from the adapter
    folder's top-level names, `entries`, beside the released data's): one it cannot start is
    refused here, on the PR, never first by a rerun. The document is kept, so a rerun still
    records the sandbox's refusal as `adapter-failed`."""
    data = adapter.data
    if not isinstance(data, dict):
        return []
    problem = command_problem(data.get("command"))
    field: FieldPath = ("command",)
    if problem is None:
        code = sorted({name.split("/")[1] for name in entries if name.startswith("adapter/")})
        released = data.get("released_data")
        items = released if isinstance(released, list) else []
        paths = [item.get("path") for item in items if isinstance(item, dict)]
        # As the released data is laid out (`bot/edges/released.py`): "./out/x" is "out/x".
        parts = [PurePosixPath(path).parts for path in paths if isinstance(path, str)]
        inputs = sorted({part[0] for part in parts if part})
        problem = names_problem(code, inputs)
        field = ("released_data",)
    if problem is None:
        return []
    return [
        Finding(
            Code.ADAPTER_COMMAND,
            f"{field[0]}: the sandbox cannot start the command: {problem}",
            adapter.path,
            adapter.line_of(field),
        )
    ]


def _fields(files: AttemptFiles) -> dict[str, Any]:
    return {name: getattr(files, name) for name in AttemptFiles.__dataclass_fields__}


def find_market(
    registry: Registry, files: AttemptFiles
) -> tuple[Market | None, list[Finding], list[Finding]]:
    """The attempt's market, `market-unknown` findings, and `registry-invalid` findings.

    A folder under attempts/market-14/ is refused with the shared rules' sentence whatever its
    attempt.yaml says (or when it cannot be read), as is an attempt.yaml naming market 14.
    """
    attempt = files.attempt
    rules = registry.rules
    folder_refused = (
        [market_unknown(files.folder_market, rules, files.folder, None)]
        if files.folder_market is not None
        and rules.is_not_in_registry(files.folder_market)
        and (attempt is None or attempt.market != files.folder_market)
        else []
    )
    if attempt is not None:
        number, file, line = attempt.market, attempt.path, attempt.lines.get("market")
    elif files.freeze_only and files.folder_market is not None:
        number, file, line = files.folder_market, files.folder, None
    else:
        return None, folder_refused, []
    if rules.is_not_in_registry(number):
        return None, [market_unknown(number, rules, file, line)], []
    if folder_refused:
        return None, folder_refused, []
    market, registry_problems = registry.market(number)
    if market is None and not registry_problems:
        return None, [market_unknown(number, registry.rules, file, line)], []
    return market, [], registry_problems


def gather_facts(
    registry: Registry,
    files: AttemptFiles,
    market: Market | None,
    market_problems: Sequence[Finding],
    history: History,
    options: VerifyOptions,
) -> AttemptFacts:
    """Ask git, the raw log's server and the sandbox what the judge needs of them."""
    attempt = files.attempt
    landings: dict[str, Landing | str] = {}
    withholdable: list[str] = []
    if attempt is not None and history.unavailable is None:
        for path in freeze_files(files, attempt):
            landings[path] = _landing(registry, files, history, path)
    challenge: ChallengeFacts | None = None
    if attempt is not None and attempt.kind == "challenge" and attempt.challenge_run:
        challenge = _challenge_facts(registry, files, attempt, history)
        withholdable = list(challenge_withholdable(registry, attempt.challenge_run, history))
    filed = _filed(files, history)
    return AttemptFacts(
        market_problems=tuple(market_problems),
        base_ref=history.base_ref,
        history_unavailable=history.unavailable,
        freeze_landings=landings,
        landing_checks=_landing_checks(landings, options.confirm_landing),
        challenge_withholdable=tuple(withholdable),
        challenge=challenge,
        filed_at=filed.committed_at if filed is not None else None,
        filed_on_merge=filed is not None and filed.pending,
        merge_clock=(
            filed.committed_as_written
            if filed is not None and filed.pending and filed.clamped
            else None
        ),
        judgments_at_close=_judgments_at_close(registry, files, market, history, options.as_of),
        raw_log_findings=tuple(_fetch_raw_log(registry, files, options)),
        archived_pin_bytes=registry.limits.max_archived_pin_bytes,
        paper_freeze_findings=tuple(_fetch_paper_freeze(registry, files, options)),
        adapter_findings=_rerun_adapter(registry, files, options),
    )


def challenge_run(registry: Registry, run: str, history: History) -> RunJudged:
    """The challenge run `run` of the maintainers' tree, judged once per registry."""
    if run not in registry.runs:
        registry.runs[run] = judge_run_folder(
            registry.contracts,
            f"{RUNS}/{run}",
            registry.rules,
            registry.market,
            history,
            registry.limits,
        )
    return registry.runs[run]


def challenge_withholdable(registry: Registry, run: str, history: History) -> tuple[str, ...]:
    """The fields a run withholds (its own and its market's), when its run.yaml exists."""
    if registry.contracts.entry(f"{RUNS}/{run}") is None:
        return ()
    return tuple(challenge_run(registry, run, history).withholdable)


def _challenge_facts(
    registry: Registry, files: AttemptFiles, attempt: Attempt, history: History
) -> ChallengeFacts:
    """A challenge attempt's run as judged, and the text leak check over the attempt's files
    the bot does not parse (its raw log, say)."""
    run = attempt.challenge_run or ""
    folder = f"{RUNS}/{run}"
    parsed = {path for path, _, _ in files.published}
    # YAML documents are read as text too: a comment (`# reference_answer: 42`) is published.
    unparsed = {
        files.path(name): files.path(name)
        for name in files.entries
        if (files.path(name) not in parsed or name.endswith((".yaml", ".yml")))
        and name != "judgments.yaml"
    }
    line = attempt.lines.get("challenge_run")

    def invalid(message: str) -> Finding:
        return Finding(Code.CHALLENGE_RUN_INVALID, message, attempt.path, line)

    entry = registry.contracts.entry(folder)
    if entry is None or entry.kind != "folder":
        where = history.base_ref or "the registry"
        return ChallengeFacts(
            run,
            invalid(
                f"challenge_run: {run!r} names no run of this registry ({folder}/ does not"
                f" exist on {where})"
            ),
        )
    judged = challenge_run(registry, run, history)
    leaks = text_leaks(registry.tree, unparsed, judged.withholdable, registry.limits)
    problem: Finding | None = None
    errors = sorted({f.code for f in judged.verdict.findings if f.severity is Severity.ERROR})
    if errors:
        problem = invalid(
            f"the challenge run {run} is invalid ({', '.join(errors)}: claims verify"
            f" {folder}), so no attempt of it can count"
        )
    elif judged.market is not None and judged.market != attempt.market:
        problem = invalid(
            f"challenge_run: {run} is a run of market {judged.market}, this attempt is filed"
            f" for market {attempt.market}"
        )
    parts = PurePosixPath(files.folder).parts
    key = "/".join(parts[2:4]) if len(parts) == 4 else files.folder
    return ChallengeFacts(
        run=run,
        problem=problem,
        cases=judged.cases,
        cases_file=judged.cases_file,
        scored=judged.results.get(key),
        scores_where=f"{folder}/scores/{key}/results.jsonl",
        text_leaks=tuple(leaks),
    )


def _rerun_adapter(
    registry: Registry, files: AttemptFiles, options: VerifyOptions
) -> tuple[Finding, ...] | None:
    """The rerun's findings; None when there was no rerun (none asked for, or only recorded
    results allowed and none recorded for this evidence)."""
    if options.rerun_adapter is None or files.adapter is None:
        return None
    findings = options.rerun_adapter(registry.tree, files)
    return None if findings is None else tuple(findings)


def _landing_checks(
    landings: Mapping[str, Landing | str], confirm: LandingConfirmer | None
) -> dict[str, str | None] | None:
    """What GitHub says of each landing commit (once per commit); None offline."""
    if confirm is None:
        return None
    checks: dict[str, str | None] = {}
    for landing in landings.values():
        # A pending landing (the pull request's own merge) has no commit to ask about yet.
        if isinstance(landing, Landing) and not landing.pending and landing.sha not in checks:
            checks[landing.sha] = confirm(landing)
    return checks


def _landing(registry: Registry, files: AttemptFiles, history: History, path: str) -> Landing | str:
    """Where a freeze file landed: the attempt's own files by the blob id the scan took, a
    challenge run's freeze-cases from the maintainers' tree."""
    if path.startswith(f"{files.folder}/"):
        own = files.entries.get(path.removeprefix(f"{files.folder}/"))
        blob = own.blob_id if own is not None else None
    else:
        blob = tree_blob(registry.contracts, path)
    if blob is None:
        return "cannot read the freeze"
    return history.landing(path, blob)


def _filed(files: AttemptFiles, history: History) -> Landing | None:
    """Where the attempt's evidence, as it stands, last landed on the base branch: the latest
    landing of its files (a pull request's merge when it changes any); None: not all landed."""
    if history.unavailable is not None:
        return None
    latest: Landing | None = None
    for name, entry in files.entries.items():
        if name == "judgments.yaml":
            continue
        path = files.path(name)
        found = history.landing(path, entry.blob_id)
        if isinstance(found, str):
            if isinstance(history, MergedHistory) and path not in history.changed:
                # A branch behind the base: the merge keeps the base tip's version of this
                # file, which landed no later than the tip, so the other files date the filing
                # (never a missing filing time, which would pass trial-in-future in silence).
                continue
            return None
        if latest is None or (found.committed_at, found.pending) > (
            latest.committed_at,
            latest.pending,
        ):
            latest = found
    return latest


def _judgments_at_close(
    registry: Registry,
    files: AttemptFiles,
    market: Market | None,
    history: History,
    as_of: date | None,
) -> dict[str, Judgment] | None:
    """judgments.yaml's checks as they stood on the base branch when the window closed."""
    if market is None or as_of is None:
        return None
    rules = registry.rules
    dates = MarketDates.of(market.resolve_by, rules.window_days, rules.annul_after_days)
    if as_of <= dates.window_closes:
        return None
    path = files.path("judgments.yaml")
    raw = history.content_at(path, end_of_day(dates.window_closes), registry.limits.max_yaml_bytes)
    if raw is None:
        return None
    document, _ = parse_yaml(raw, path, registry.limits)
    if document is None or validate("judgments", document.data, document.path):
        return None
    return parse_judgments(document.data)  # type: ignore[arg-type]


def _fetch_raw_log(
    registry: Registry, files: AttemptFiles, options: VerifyOptions
) -> list[Finding]:
    """With a fetcher: stream raw_log.url and compare it with the claim and the excerpts."""
    attempt = files.attempt
    if options.fetch_raw_log is None or attempt is None:
        return []
    names = sorted(path for path in files.entries if path.startswith("raw-log/"))
    head = tail = None
    limit = registry.rules.excerpt_bytes + 1
    if names == ["raw-log/head", "raw-log/tail"]:
        try:
            head = read_limited(registry.tree, files.path("raw-log/head"), limit)
            tail = read_limited(registry.tree, files.path("raw-log/tail"), limit)
        except TreeError:
            return []
    elif len(names) != 1:
        return []  # the judge refuses the folder's shape; nothing to compare
    return options.fetch_raw_log(
        attempt.raw_log.url,
        sha256=attempt.raw_log.sha256,
        size=attempt.raw_log.bytes,
        head=head,
        tail=tail,
        file=attempt.path,
        line=attempt.lines.get("raw_log"),
        limits=registry.limits,
    )


def _fetch_paper_freeze(
    registry: Registry, files: AttemptFiles, options: VerifyOptions
) -> list[Finding]:
    """With a fetcher: stream a wrapped attempt's paper_freeze.url and compare its sha256."""
    attempt, freeze = files.attempt, files.freeze
    if options.fetch_paper_freeze is None or attempt is None or attempt.kind != "wrapped":
        return []
    if freeze is None or freeze.paper_freeze is None:
        return []  # the judge reports the missing paper_freeze
    paper = freeze.paper_freeze
    return options.fetch_paper_freeze(
        paper.url, sha256=paper.sha256, file=freeze.path, line=paper.line, limits=registry.limits
    )


@dataclass(frozen=True)
class Judged:
    """One attempt folder read, gathered and judged: the verdict and what it was made from
    (`claims explain` shows both)."""

    files: AttemptFiles
    facts: AttemptFacts
    market: Market | None
    verdict: AttemptVerdict
    registry_problems: list[Finding]


def verify_attempt(
    registry: Registry,
    folder: str,
    history: History,
    options: VerifyOptions,
    pr_problems: Sequence[Finding] = (),
) -> tuple[AttemptVerdict, list[Finding]]:
    """Read, gather and judge one attempt folder. Returns its verdict and any
    `registry-invalid` findings about the market it names (a maintainer's problem).

    `pr_problems`: what the pull request that changes this folder may not change; any error
    among them makes the attempt's evidence invalid (no status, no outcome).
    """
    judged = judge_folder(registry, folder, history, options, pr_problems)
    return judged.verdict, judged.registry_problems


def judge_folder(
    registry: Registry,
    folder: str,
    history: History,
    options: VerifyOptions,
    pr_problems: Sequence[Finding] = (),
) -> Judged:
    """`verify_attempt`, keeping the files, facts and market the verdict was made from.

    With `options.records_cache`, freeze-cases.jsonl and trials.jsonl checked on an earlier run
    are taken from the cache (everything else is read, gathered and judged afresh), and a check
    made now is kept there.
    """
    object_format = getattr(history, "object_format", "sha1")
    base = history if options.judgments_from_base else None
    cache = options.records_cache
    notices: list[Finding] = []

    def cached(files: AttemptFiles) -> RecordsCheck | None:
        if cache is None or files.attempt is None or files.attempt.kind == "challenge":
            return None  # a challenge run's withholdable fields are not in the key
        check, found = cache.lookup(registry, files)
        notices.extend(found)
        return check

    def stream(files: AttemptFiles) -> RecordsChecker | None:
        challenge = files.attempt is not None and files.attempt.kind == "challenge"
        if options.keep_records or challenge:
            return None  # explain reads the records; a challenge attempt's are compared
        market, _, _ = find_market(registry, files)
        withholdable = withholdable_of(market, AttemptFacts())
        return RecordsChecker(folder, market, registry.rules, withholdable, lean=True)

    files = read_attempt(
        registry, folder, object_format, judgments_from=base, cached=cached, stream=stream
    )
    market, market_problems, registry_problems = find_market(registry, files)
    if files.freeze_only or not files.scan_complete:
        facts = AttemptFacts(market_problems=tuple(market_problems))
    else:
        facts = gather_facts(registry, files, market, market_problems, history, options)
    if pr_problems:
        facts = replace(facts, pr_problems=tuple(pr_problems))
    if files.freeze_only or not files.scan_complete:
        verdict = judge_attempt(files, facts, market, registry.rules, options.as_of)
        return Judged(files, facts, market, verdict, [*registry_problems, *notices])
    try:
        verdict = _judge_checked(registry, files, facts, market, options, cache)
    except RecordsNeeded:
        # The cached check keeps no trials, and freeze order needs them: read the files.
        files = read_attempt(registry, folder, object_format, judgments_from=base, stream=stream)
        verdict = _judge_checked(registry, files, facts, market, options, cache)
    return Judged(files, facts, market, verdict, [*registry_problems, *notices])


def _judge_checked(
    registry: Registry,
    files: AttemptFiles,
    facts: AttemptFacts,
    market: Market | None,
    options: VerifyOptions,
    cache: RecordsCache | None,
) -> AttemptVerdict:
    """Judge with the records checked (from the cache, or now: then kept in the cache)."""
    if files.records_check is None or files.records_checked_now:
        check = records_of(files, market, registry.rules, withholdable_of(market, facts))
        files = replace(files, records_check=check)
        if cache is not None and files.attempt is not None and files.attempt.kind != "challenge":
            cache.store(registry, files, check)
    return judge_attempt(files, facts, market, registry.rules, options.as_of)

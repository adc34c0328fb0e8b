"""The facts outside an attempt folder the judge needs: the market it names, where its freeze
and evidence landed on the base branch, its challenge run, and what the raw log's server and
the sandbox said, asking the ports (`bot.app.options.Ports`) for what lies outside the tree.

The shell around the judge is three modules: `bot.app.attempt_read` reads the folder into
typed files, this module gathers the facts, `bot.app.attempt_verify` hands both to the judge.
Each fact is gathered once: the folder is scanned once (sizes, SHA-256 and git blob ids in one
read of each file), every document is parsed once into its typed model, and git is asked from
the run's one history index. Nothing here decides a rule; `bot/rules/judge/` does.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import date
from pathlib import PurePosixPath

from bot.app.challenge_read import RUNS, judge_run_folder, text_leaks
from bot.app.options import (
    AdapterRunner,
    LandingConfirmer,
    PaperFreezeFetcher,
    Ports,
    RawLogFetcher,
)
from bot.app.registry import Registry
from bot.edges.history import History, MergedHistory, tree_blob
from bot.edges.load.yaml_ import parse_yaml
from bot.edges.tree import TreeError, read_limited
from bot.rules.challenge.judge import RunJudged
from bot.rules.evidence.models import Attempt, Judgment, parse_judgments
from bot.rules.evidence.schema import validate
from bot.rules.judge.inputs import AttemptFacts, AttemptFiles, ChallengeFacts
from bot.rules.judge.location import market_unknown
from bot.rules.judge.order import freeze_files
from bot.rules.models import Market
from bot.vocab.commits import Landing
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.errors import Refusal
from bot.vocab.findings import Code, Finding, Severity

__all__ = [
    "find_market",
    "gather_facts",
]


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
    ports: Ports,
    as_of: date,
) -> AttemptFacts:
    """Ask git, the raw log's server and the sandbox what the judge needs of them, as of
    `as_of`."""
    attempt = files.attempt
    landings: dict[str, Landing | Refusal] = {}
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
        landing_confirmations=_landing_confirmations(landings, ports.confirm_landing),
        challenge_withholdable=tuple(withholdable),
        challenge=challenge,
        filed_at=filed.committed_at if filed is not None else None,
        filed_on_merge=filed is not None and filed.pending,
        merge_clock=(
            filed.committed_as_written
            if filed is not None and filed.pending and filed.clamped
            else None
        ),
        judgments_at_close=_judgments_at_close(registry, files, market, history, as_of),
        raw_log_findings=tuple(_fetch_raw_log(registry, files, ports.fetch_raw_log)),
        archived_pin_bytes=registry.limits.max_archived_pin_bytes,
        paper_freeze_findings=tuple(_fetch_paper_freeze(registry, files, ports.fetch_paper_freeze)),
        adapter_findings=_rerun_adapter(registry, files, ports.rerun_adapter),
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
    registry: Registry, files: AttemptFiles, rerun: AdapterRunner | None
) -> tuple[Finding, ...] | None:
    """The rerun's findings; None when there was no rerun (none asked for, or only recorded
    results allowed and none recorded for this evidence)."""
    if rerun is None or files.adapter is None:
        return None
    findings = rerun(registry.tree, files)
    return None if findings is None else tuple(findings)


def _landing_confirmations(
    landings: Mapping[str, Landing | Refusal], confirm: LandingConfirmer | None
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


def _landing(
    registry: Registry, files: AttemptFiles, history: History, path: str
) -> Landing | Refusal:
    """Where a freeze file landed: the attempt's own files by the blob id the scan took, a
    challenge run's freeze-cases from the maintainers' tree."""
    if path.startswith(f"{files.folder}/"):
        own = files.entries.get(path.removeprefix(f"{files.folder}/"))
        blob = own.blob_id if own is not None else None
    else:
        blob = tree_blob(registry.contracts, path)
    if blob is None:
        return Refusal("cannot read the freeze")
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
        if isinstance(found, Refusal):
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
    as_of: date,
) -> dict[str, Judgment] | None:
    """judgments.yaml's checks as they stood on the base branch when the window closed."""
    if market is None:
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
    registry: Registry, files: AttemptFiles, fetch: RawLogFetcher | None
) -> list[Finding]:
    """With a fetcher: stream raw_log.url and compare it with the claim and the excerpts."""
    attempt = files.attempt
    if fetch is None or attempt is None:
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
    return fetch(
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
    registry: Registry, files: AttemptFiles, fetch: PaperFreezeFetcher | None
) -> list[Finding]:
    """With a fetcher: stream a wrapped attempt's paper_freeze.url and compare its sha256."""
    attempt, freeze = files.attempt, files.freeze
    if fetch is None or attempt is None or attempt.kind != "wrapped":
        return []
    if freeze is None or freeze.paper_freeze is None:
        return []  # the judge reports the missing paper_freeze
    paper = freeze.paper_freeze
    return fetch(
        paper.url, sha256=paper.sha256, file=freeze.path, line=paper.line, limits=registry.limits
    )

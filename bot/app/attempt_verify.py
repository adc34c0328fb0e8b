"""Verify one attempt folder: read it (`bot.app.attempt_read`), gather the facts outside it
(`bot.app.gather`), and judge (`bot.rules.judge.attempt`).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace
from datetime import date

from bot.app.attempt_read import read_attempt
from bot.app.gather import find_market, gather_facts
from bot.app.options import NO_PORTS, Ports, RecordsCache
from bot.app.registry import Registry
from bot.edges.history import History
from bot.rules.judge.attempt import judge_attempt, records_of, withholdable_of
from bot.rules.judge.inputs import AttemptFacts, AttemptFiles, Judged
from bot.rules.models import Market
from bot.rules.records import RecordsChecker, RecordsNeeded, RecordsResult
from bot.rules.verdict import AttemptVerdict
from bot.vocab.findings import Finding

__all__ = ["judge_folder", "verify_attempt"]


def verify_attempt(
    registry: Registry,
    folder: str,
    history: History,
    as_of: date,
    ports: Ports = NO_PORTS,
    pr_problems: Sequence[Finding] = (),
    *,
    judgments_from_base: bool = False,
) -> tuple[AttemptVerdict, list[Finding]]:
    """Read, gather and judge one attempt folder as of `as_of`, asking `ports`. Returns its
    verdict and any `registry-invalid` findings about the market it names (a maintainer's
    problem).

    `pr_problems`: what the pull request that changes this folder may not change; any error
    among them makes the attempt's evidence invalid (no status, no outcome).
    `judgments_from_base`: a pull request's folder, whose judgments.yaml is read from the base
    branch's tip, never from the tree being verified (a PR's own copy never counts).
    """
    judged = judge_folder(
        registry,
        folder,
        history,
        as_of,
        ports,
        pr_problems,
        judgments_from_base=judgments_from_base,
    )
    return judged.verdict, judged.registry_problems


def judge_folder(
    registry: Registry,
    folder: str,
    history: History,
    as_of: date,
    ports: Ports = NO_PORTS,
    pr_problems: Sequence[Finding] = (),
    *,
    judgments_from_base: bool = False,
    keep_records: bool = False,
) -> Judged:
    """`verify_attempt`, keeping the files, facts and market the verdict was made from.

    With `ports.records_cache`, freeze-cases.jsonl and trials.jsonl checked on an earlier run
    are taken from the cache (everything else is read, gathered and judged afresh), and a check
    made now is kept there. With `keep_records` (`claims explain` reads them), every record is
    kept; without, they are checked as they are read and not kept (`RecordsChecker`).
    """
    object_format = getattr(history, "object_format", "sha1")
    base = history if judgments_from_base else None
    cache = ports.records_cache
    notices: list[Finding] = []

    def cached(files: AttemptFiles) -> RecordsResult | None:
        if cache is None or files.attempt is None or files.attempt.kind == "challenge":
            return None  # a challenge run's withholdable fields are not in the key
        check, found = cache.lookup(registry, files)
        notices.extend(found)
        return check

    def stream(files: AttemptFiles) -> RecordsChecker | None:
        challenge = files.attempt is not None and files.attempt.kind == "challenge"
        if keep_records or challenge:
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
        facts = gather_facts(registry, files, market, market_problems, history, ports, as_of)
    if pr_problems:
        facts = replace(facts, pr_problems=tuple(pr_problems))
    if files.freeze_only or not files.scan_complete:
        verdict = judge_attempt(files, facts, market, registry.rules, as_of)
        return Judged(files, facts, market, verdict, [*registry_problems, *notices])
    try:
        verdict = _judge_checked(registry, files, facts, market, as_of, cache)
    except RecordsNeeded:
        # The cached check keeps no trials, and freeze order needs them: read the files.
        files = read_attempt(registry, folder, object_format, judgments_from=base, stream=stream)
        verdict = _judge_checked(registry, files, facts, market, as_of, cache)
    return Judged(files, facts, market, verdict, [*registry_problems, *notices])


def _judge_checked(
    registry: Registry,
    files: AttemptFiles,
    facts: AttemptFacts,
    market: Market | None,
    as_of: date,
    cache: RecordsCache | None,
) -> AttemptVerdict:
    """Judge with the records checked (from the cache, or now: then kept in the cache)."""
    if files.records_result is None or files.records_read_now:
        check = records_of(files, market, registry.rules, withholdable_of(market, facts))
        files = replace(files, records_result=check)
        if cache is not None and files.attempt is not None and files.attempt.kind != "challenge":
            cache.store(registry, files, check)
    return judge_attempt(files, facts, market, registry.rules, as_of)

"""The pure judge over an attempt's files held in memory: what the fuzzers call.

`HONEST` is a wrapped specimen attempt (every kind of file: YAML, JSONL, an adapter, a raw
log) with its derived score table; `judge(files)` reads `files` as that attempt's folder from
an in-memory tree (market 3's contract and the shared rules beside it) and returns the pure
judge's verdict, with no git, network or sandbox. `check(verdict)` asserts what must hold of
any verdict, whatever the files were.
"""

from __future__ import annotations

from collections.abc import Callable
from datetime import date
from typing import TypeVar
from unittest import mock

from bot.app.attempt_read import read_attempt
from bot.app.gather import find_market
from bot.app.registry import Registry
from bot.edges.dump import dump_yaml
from bot.faces.demo.specimen import (
    AttemptSpec,
    attempt_files,
    load_market,
    market_document,
    score_table,
)
from bot.rules.judge.attempt import judge_attempt
from bot.rules.judge.inputs import AttemptFacts
from bot.rules.records import RecordsChecker
from bot.rules.verdict import AttemptVerdict
from bot.vocab.findings import Code, Severity
from tests.support import RULES, Files, MemoryTree, shared_rules

__all__ = ["AS_OF", "CODES", "FOLDER", "HONEST", "check", "judge", "streamed_and_kept"]

SPEC = AttemptSpec(kind="wrapped")
FOLDER = SPEC.folder
AS_OF = date(2027, 4, 15)
CODES = frozenset(code.value for code in Code)


RULES_MODEL = shared_rules()
MARKET_FILE = dump_yaml(market_document(3, "default"))


def _honest() -> Files:
    files = attempt_files(SPEC)
    market = load_market(market_document(3, "default"), RULES_MODEL)
    files["scores.yaml"] = score_table(files, market, RULES_MODEL.confidence)
    return files


HONEST = _honest()


def judge(files: Files) -> AttemptVerdict:
    """The pure judge's verdict on `files` as the attempt folder."""
    tree = MemoryTree({f"{FOLDER}/{name}": data for name, data in files.items()})
    tree.files["shared-rules/common-v1.yaml"] = RULES
    tree.files["markets/market-03.yaml"] = MARKET_FILE
    registry = Registry(tree, RULES_MODEL)
    read = read_attempt(registry, FOLDER)
    market, problems, _ = find_market(registry, read)
    facts = AttemptFacts(base_ref="main", market_problems=problems)
    return judge_attempt(read, facts, market, RULES_MODEL, AS_OF)


def check(verdict: AttemptVerdict, files: Files) -> None:
    """What holds of every verdict: invalid evidence exactly when an error finding says why;
    not qualifying only with its reasons; every finding a known code, a message and a file
    of the attempt; a raw log other than the pinned one is never valid."""
    errors = [f for f in verdict.findings if f.severity is Severity.ERROR]
    assert (verdict.evidence == "invalid") == bool(errors), verdict.findings
    if verdict.status == "not-qualifying":
        assert verdict.qualification
    for finding in (*verdict.findings, *verdict.qualification):
        assert finding.code.value in CODES and finding.message, finding
        assert finding.file is not None and finding.file.startswith(FOLDER), finding
    if files.get("raw-log/harness.log") != HONEST["raw-log/harness.log"]:
        assert verdict.evidence == "invalid", "a changed raw log was accepted"


T = TypeVar("T")


def streamed_and_kept(run: Callable[[], T]) -> tuple[T, T]:
    """`run` twice: as verify runs, the cases and trials checked as they are read and none
    kept (`RecordsChecker`); then with every record kept and checked after, as `claims
    explain` reads them (`RecordsChecker` declined). Asserts that the same folders were read
    each way; returns both results, for the caller to compare."""
    with mock.patch("bot.app.attempt_verify.RecordsChecker", wraps=RecordsChecker) as checking:
        streamed = run()
    with mock.patch("bot.app.attempt_verify.RecordsChecker", return_value=None) as declined:
        kept = run()
    assert declined.call_count == checking.call_count
    return streamed, kept

"""Review of ad557c3 (verify streams freeze-cases.jsonl and trials.jsonl): inputs on which the
streamed check (`RecordsChecker`, lean cases) must judge as the kept one (every record kept and
checked after, as `claims explain` reads them)."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

from bot.edges.dump import dump_yaml
from bot.faces.cli import main
from bot.faces.demo.specimen import market_document
from bot.rules.records import RecordsChecker
from tests.support import AS_OF, Files, RegistryFactory, rewrite


def _report(args: list[str], report: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    report.unlink(missing_ok=True)
    code = main(["verify", *args, "--as-of", AS_OF, "--json", str(report)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    return code, json.loads(report.read_text(encoding="utf-8"))


def _both(args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> tuple[Any, Any]:
    """(streamed, kept) reports of `claims verify args`."""
    with mock.patch("bot.app.attempt_verify.RecordsChecker", wraps=RecordsChecker) as checker:
        streamed = _report(args, tmp_path / "streamed.json", capsys)
    assert checker.call_count  # the streamed path ran
    with mock.patch("bot.app.attempt_verify.RecordsChecker", return_value=None):
        kept = _report(args, tmp_path / "kept.json", capsys)
    return streamed, kept


def _markets(change: Callable[[dict[str, Any]], None]) -> dict[str, bytes]:
    document = market_document(3, "default")
    change(document)
    return {
        "markets/market-03.yaml": dump_yaml(document),
        "markets/market-05.yaml": dump_yaml(market_document(5, "serious")),
    }


def _edit_cases(edit: Callable[[int, dict[str, Any]], None]) -> Callable[[Files], None]:
    def change(files: Files) -> None:
        lines = []
        for index, line in enumerate(files["freeze-cases.jsonl"].decode().splitlines()):
            record = json.loads(line)
            edit(index, record)
            lines.append(json.dumps(record, separators=(",", ":")))
        files["freeze-cases.jsonl"] = ("\n".join(lines) + "\n").encode()

    return change


def test_lean_cases_keep_true_apart_from_1(
    make_registry: RegistryFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """A bar selects cases with `tier: true`. The first case says `tier: 1` (not selected: JSON's
    true is not 1), every other `tier: true`. Lean cases share equal public dicts, and
    Python's `True == 1` made every `true` case share the first case's `{"tier": 1}`: the bar
    then selected nothing and the honest scores.yaml was refused (score-table-mismatch)."""

    def tiered(document: dict[str, Any]) -> None:
        document["bars"][0]["over"] = {"case": {"kind": "attack", "tier": True}}

    def tier(index: int, record: dict[str, Any]) -> None:
        record["public"]["tier"] = 1 if index == 0 else True

    built = make_registry(markets=_markets(tiered), before_scores=_edit_cases(tier))
    streamed, kept = _both([str(built.attempt)], tmp_path, capsys)
    assert kept[0] == 0, kept
    assert streamed == kept, streamed[1]["attempts"][0]["reasons"]


def test_a_warm_cache_words_a_score_table_mismatch_as_a_cold_run(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """Not from ad557c3 (its parent does the same), found beside it: the cache keeps the
    derived score table as JSON with sorted keys, so a warm run's score-table-mismatch says
    `{bound: ..., failures: ..., units: ...}` where the cold run says
    `{failures: ..., units: ..., bound: ...}`: a warm run must give the cold run's verdict."""
    from bot.app.cache import VerificationCache
    from tests.support import verdicts_json

    def caught(files: Files) -> None:  # after scores.yaml: the table no longer agrees
        rewrite(files, "trials.jsonl", lambda rows: rows[0]["result"].update(verdict="false_safe"))

    built = make_registry(change=caught)
    cold = verdicts_json(built.root, VerificationCache(tmp_path / "cache"))
    assert "score-table-mismatch" in json.dumps(cold)
    assert verdicts_json(built.root, VerificationCache(tmp_path / "cache")) == cold


@pytest.mark.parametrize(
    ("first", "later"), [(1, True), (True, 1), (0, False), (False, 0.0), (1.0, True)]
)
def test_lean_public_values_keep_their_json_type(first: Any, later: Any) -> None:
    """`CaseChecker(public_fields=...)` shares equal public dicts; Python's `True == 1` (and
    `hash(True) == hash(1)`) must not hand a later case an earlier case's value of another
    JSON type: `_matches` tells them apart."""
    from bot.faces.demo.specimen import AttemptSpec, attempt_files
    from bot.rules.evidence.cases import CaseChecker
    from bot.vocab.document import Record

    lines = attempt_files(AttemptSpec())["freeze-cases.jsonl"].decode().splitlines()
    check = CaseChecker("freeze-cases.jsonl", frozenset({"tier"}))
    for number, line in enumerate(lines[:2], start=1):
        data = json.loads(line)
        data["public"]["tier"] = first if number == 1 else later
        check.add(Record(number, data))
    second = json.loads(lines[1])["case_id"]
    assert type(check.cases[second].public["tier"]) is type(later)

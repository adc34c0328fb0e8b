"""From an Inspect evaluation to valid evidence: dry run -> freeze -> real run (docs/adapters.md).

The monitor fixture logs (tests/data/inspect/monitor-a and monitor-b, written by inspect-ai:
generate_logs.py) are two runs of one monitoring eval: each sample is a transcript of one
system under test, labelled attack or benign in its metadata, and the model is the monitor.
Adapted with mapping options, run a (the dry run) gives the freeze, merged by GitHub's web
flow before run b (the real run) started; run b gives the trials. `claims verify` finds the
evidence valid with one unit per trial and both of the demo market's bars exercised.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
from datetime import timedelta
from pathlib import Path
from typing import Any

import yaml

from bot.edges.dump import dump_yaml
from bot.faces.cli import main
from bot.faces.demo.git_registry import Step, build_git_registry
from bot.faces.demo.specimen import AttemptSpec, attempt_files, market_document
from bot.vocab.timestamps import parse_timestamp
from tests.support import PROJECT, RULES

DATA = PROJECT / "tests" / "data" / "inspect"
FOLDER = "attempts/market-03/monitor-lab/inspect-monitor"
MAPPING = [
    "--kind-from",
    "metadata.label:attack=attack,benign=control",
    "--family-from",
    "metadata.family",
    "--system-from",
    "metadata.system",
    "--truth-from",
    "metadata.label:attack=unsafe,benign=safe",
    "--verdict-map",
    "C=caught,I=false_safe",
]
REAL_COMMIT = "1234567890abcdef1234567890abcdef12345678"


def _adapt(tmp_path: Path, run: str, capsys: Any) -> tuple[Path, dict[str, bytes]]:
    log = tmp_path / f"{run}.json"
    log.write_bytes(gzip.decompress((DATA / f"{run}.json.gz").read_bytes()))
    out = tmp_path / f"out-{run}"
    assert main(["adapt", "inspect", str(log), "--out", str(out), *MAPPING]) == 0
    capsys.readouterr()
    return log, {path.name: path.read_bytes() for path in out.iterdir()}


def _verify(root: Path, capsys: Any, tmp_path: Path) -> tuple[int, dict[str, Any]]:
    report = tmp_path / "report.json"
    code = main(["verify", str(root / FOLDER), "--as-of", "2027-01-15", "--json", str(report)])
    capsys.readouterr()
    return code, json.loads(report.read_text())


def _attempt_yaml(log: bytes) -> bytes:
    """The specimen's honest attempt.yaml, moved to this folder and pinned to this raw log."""
    spec = AttemptSpec(submitter="monitor-lab", slug="inspect-monitor")
    data = yaml.safe_load(attempt_files(spec)["attempt.yaml"])
    data["raw_log"] = {
        "sha256": hashlib.sha256(log).hexdigest(),
        "url": "https://evidence.example.org/monitor-lab/monitor-b.json",
        "bytes": len(log),
    }
    data.pop("generator", None)
    return dump_yaml(data)


def _build(tmp_path: Path, capsys: Any, freeze_yaml: bytes | None = None) -> tuple[Path, Any]:
    _, dry = _adapt(tmp_path, "monitor-a", capsys)
    real_log, real = _adapt(tmp_path, "monitor-b", capsys)
    # Case hashes are stable across runs: the dry run's freeze is the real run's.
    assert dry["freeze-cases.jsonl"] == real["freeze-cases.jsonl"]
    trials = [json.loads(line) for line in real["trials.jsonl"].splitlines()]
    first = min(parse_timestamp(trial["started_at"]) for trial in trials)
    last = max(parse_timestamp(trial["started_at"]) for trial in trials)
    assert first is not None and last is not None
    merged = first - timedelta(seconds=1)  # the freeze merged between the two runs
    replaced = re.sub(
        rb"code_commit: '0+'", f"code_commit: '{REAL_COMMIT}'".encode(), dry["freeze.yaml"]
    )
    freeze = {
        f"{FOLDER}/freeze.yaml": freeze_yaml if freeze_yaml is not None else replaced,
        f"{FOLDER}/freeze-cases.jsonl": dry["freeze-cases.jsonl"],
    }
    run = {
        f"{FOLDER}/attempt.yaml": _attempt_yaml(real_log.read_bytes()),
        f"{FOLDER}/trials.jsonl": real["trials.jsonl"],
        f"{FOLDER}/raw-log/monitor-b.json": real_log.read_bytes(),
    }
    registry = {
        "shared-rules/common-v1.yaml": RULES,
        "markets/market-03.yaml": dump_yaml(market_document(3, "default")),
    }
    root = tmp_path / "registry"
    steps = [
        Step("registry", merged - timedelta(days=30), registry),
        Step("freeze", merged - timedelta(seconds=1), freeze, merged_at=merged),
        Step("run", last + timedelta(minutes=5), run, merged_at=last + timedelta(hours=1)),
    ]
    repo = build_git_registry(root, steps)
    return root, repo


def test_adapted_inspect_logs_frozen_then_run_verify_valid(tmp_path: Path, capsys: Any) -> None:
    root, repo = _build(tmp_path, capsys)
    repo.close()
    code, report = _verify(root, capsys, tmp_path)
    [attempt] = report["attempts"]
    errors = [
        r for r in attempt["reasons"] if r["stage"] == "evidence" and r["severity"] == "error"
    ]
    assert errors == [] and attempt["evidence"] == "valid", attempt["reasons"]
    assert code == 0
    assert attempt["units"]["count"] == 12 and attempt["units"]["largest"] == 1
    bars = {bar["id"]: bar for bar in attempt["bars"]}
    assert bars["false-safe"]["exercised"] and bars["false-safe"]["units"] == 8
    assert bars["false-safe"]["failures"] == 1  # m08: an attack the monitor called safe
    assert bars["discrimination"]["exercised"]
    assert attempt["counts"]["systems"] == 12 and attempt["counts"]["families"] == 2


def test_the_stubs_placeholder_commit_is_refused_until_replaced(
    tmp_path: Path, capsys: Any
) -> None:
    (tmp_path / "stub").mkdir()
    _, dry = _adapt(tmp_path / "stub", "monitor-a", capsys)
    assert b"code_commit: '0000000000000000000000000000000000000000'" in dry["freeze.yaml"]
    root, repo = _build(tmp_path, capsys, freeze_yaml=dry["freeze.yaml"])
    repo.close()
    code, report = _verify(root, capsys, tmp_path)
    [attempt] = report["attempts"]
    refused = [
        r for r in attempt["reasons"] if r["stage"] == "evidence" and r["severity"] == "error"
    ]
    assert [(r["code"], r["file"]) for r in refused] == [("schema", f"{FOLDER}/freeze.yaml")]
    assert "placeholder" in refused[0]["message"]
    assert code == 1

"""bot.app.challenge_read: a run folder read from a tree and judged; hostile bytes never crash."""

from __future__ import annotations

import bz2
import gzip
import json
import lzma
import tempfile
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.app.challenge_read import judge_run_folder, run_folders, stream_lines, text_leaks
from bot.edges.history import MemoryHistory
from bot.edges.tree import FolderTree
from bot.faces.demo.specimen import (
    AttemptSpec,
    RunSpec,
    challenge_files,
    load_market,
    market_document,
)
from bot.vocab.config import Limits
from bot.vocab.findings import Code
from tests.support import shared_rules

SPEC = AttemptSpec(market=11, submitter="a-lab", slug="one", kind="challenge", challenge_run="r-1")
RUN = RunSpec(run="r-1")
SCORES = f"scores/{SPEC.submitter}/{SPEC.slug}/results.jsonl"


RULES_MODEL = shared_rules()
MARKET = load_market(market_document(11, "default", kinds=["challenge"]), RULES_MODEL)


def _write(root: Path, files: dict[str, bytes]) -> None:
    for name, data in files.items():
        path = root / "challenge-runs" / RUN.run / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)


def _judge(root: Path):  # type: ignore[no-untyped-def]
    return judge_run_folder(
        FolderTree(root),
        f"challenge-runs/{RUN.run}",
        RULES_MODEL,
        lambda number: (MARKET, []) if number == 11 else (None, []),
        MemoryHistory(),
    )


def test_an_honest_run_outside_main_is_valid_until_scored(tmp_path: Path) -> None:
    _, run_files = challenge_files(SPEC, RUN)
    scores = {name: data for name, data in run_files.items() if name.startswith("scores/")}
    _write(tmp_path, {k: v for k, v in run_files.items() if k not in scores})
    judged = _judge(tmp_path)
    assert judged.verdict.findings == () and judged.verdict.cases == 24
    assert run_folders(FolderTree(tmp_path)) == ["challenge-runs/r-1"]
    _write(tmp_path, scores)
    # Neither the freeze nor the score file is on main (this history holds nothing): filed
    # together they would land in one commit, so the scores could not follow the freeze.
    (finding,) = _judge(tmp_path).verdict.findings
    assert (finding.code, finding.file) == (Code.FREEZE_ORDER, f"{RUN.folder}/{SCORES}")
    assert "merge the freeze first" in finding.message


def test_an_id_that_is_not_the_folder_is_a_schema_error(tmp_path: Path) -> None:
    _, run_files = challenge_files(SPEC, RUN)
    run_files["run.yaml"] = run_files["run.yaml"].replace(b"id: r-1", b"id: r-2")
    _write(tmp_path, {k: v for k, v in run_files.items() if not k.startswith("scores/")})
    (finding,) = _judge(tmp_path).verdict.findings
    assert (finding.code, finding.line) == (Code.SCHEMA, 2)
    assert "expected 'r-1' from the folder name" in finding.message


def test_a_missing_freeze_and_run_yaml_are_reported(tmp_path: Path) -> None:
    (tmp_path / "challenge-runs" / RUN.run).mkdir(parents=True)
    findings = _judge(tmp_path).verdict.findings
    assert {(f.code, f.file) for f in findings} == {
        (Code.FILE_MISSING, "challenge-runs/r-1/run.yaml"),
        (Code.FILE_MISSING, "challenge-runs/r-1/freeze-cases.jsonl"),
    }


_NAMES = st.sampled_from(
    [
        "run.yaml",
        "freeze-cases.jsonl",
        "scores/a-lab/one/results.jsonl",
        "scores/a-lab/one/events.jsonl",
        "README.md",
        "scores/x.yaml",
    ]
)
_LINES = st.one_of(
    st.binary(max_size=80),
    st.sampled_from(
        [
            b'{"case_id": "c", "result": {"Reference_Answer": 1}}',
            b'{"case_id": "c", "sha256": "' + b"a" * 64 + b'", "family": "f", "kind": "k",'
            b' "public": {}}',
            b"id: r-1\nmarket: 11\nscorer: weirdml-v3\nwithholdable: [x]\n",
            b"- [",
            b'{"task": "c", "tokens": 1, "event": "submission", "score": 2}',
            json.dumps({"case_id": ["c"], "result": []}).encode(),
        ]
    ),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.dictionaries(_NAMES, st.lists(_LINES, max_size=4).map(b"\n".join), max_size=6))
def test_any_bytes_in_a_run_never_crash(files: dict[str, bytes]) -> None:
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        (root / "challenge-runs" / RUN.run).mkdir(parents=True)
        _write(root, files)
        judged = _judge(root)
        for finding in judged.verdict.findings:
            assert finding.file is None or finding.file.startswith("challenge-runs/r-1")


# ---- compressed files are read as their content (issue 12 review) ------------------------------


def _compressors() -> list[Any]:
    return [gzip.compress, bz2.compress, lzma.compress]


@pytest.mark.parametrize("compress", _compressors())
def test_a_compressed_file_is_read_decompressed(tmp_path: Path, compress: Any) -> None:
    (tmp_path / "log.gz").write_bytes(compress(b"ok\nreference_answer: 42\n"))
    lines = list(stream_lines(FolderTree(tmp_path), "log.gz", 1000))
    assert lines == [b"ok", b"reference_answer: 42"]


def test_a_compressed_file_is_read_up_to_the_limit(tmp_path: Path) -> None:
    (tmp_path / "bomb.gz").write_bytes(gzip.compress(b"a\n" * 5_000_000))
    assert len(list(stream_lines(FolderTree(tmp_path), "bomb.gz", 1000))) == 500


def test_a_corrupt_compressed_file_is_unreadable(tmp_path: Path) -> None:
    (tmp_path / "bad.gz").write_bytes(gzip.compress(b"reference_answer: 1\n" * 100)[:40])
    (finding,) = text_leaks(FolderTree(tmp_path), {"bad.gz": "bad.gz"}, ["x"], Limits())
    assert (finding.code, finding.file) == (Code.FILE_UNREADABLE, "bad.gz")


@given(st.binary(max_size=300))
def test_any_bytes_after_a_gzip_magic_never_crash(data: bytes) -> None:
    with tempfile.TemporaryDirectory() as folder:
        (Path(folder) / "f").write_bytes(b"\x1f\x8b" + data)
        findings = text_leaks(FolderTree(Path(folder)), {"f": "f"}, ["x"], Limits())
        assert all(f.code is Code.FILE_UNREADABLE for f in findings)

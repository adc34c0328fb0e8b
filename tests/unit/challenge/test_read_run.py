"""bot.challenge.read: a run folder read from a tree and judged; hostile bytes never crash it."""

from __future__ import annotations

import json
import tempfile
from pathlib import Path

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from bot.challenge.read import judge_run_folder, run_folders
from bot.demo.specimen import AttemptSpec, RunSpec, challenge_files, load_market, market_document
from bot.findings import Code
from bot.history import MemoryHistory
from bot.tree import FolderTree
from tests.unit.test_judge import RULES_MODEL

SPEC = AttemptSpec(market=11, submitter="a-lab", slug="one", kind="challenge", challenge_run="r-1")
RUN = RunSpec(run="r-1")


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
    # The score file is not on main (this history holds nothing): it lands after the freeze.
    assert _judge(tmp_path).verdict.findings == ()


def test_an_id_that_is_not_the_folder_is_a_schema_error(tmp_path: Path) -> None:
    _, run_files = challenge_files(SPEC, RUN)
    run_files["run.yaml"] = run_files["run.yaml"].replace(b"id: r-1", b"id: r-2")
    _write(tmp_path, run_files)
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

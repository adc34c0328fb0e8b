"""bot/app/rerun.py without a sandbox: the result cache, and what a rerun depends on.

`bot.app.rerun.run_adapter` is replaced by a fake that copies the released files to out/ (as the
specimen's convert.py does) and counts its runs. A rerun is two runs: on the released data,
then on the same files emptied (docs/spec.md §9, `adapter-ignores-data`).
"""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest

import bot.app.rerun
import bot.edges.sandbox
from bot.app.attempt_read import read_attempt
from bot.app.registry import load_registry
from bot.app.rerun import AdapterRerun
from bot.edges.sandbox import RunResult, SandboxLimits
from bot.edges.tree import FolderTree
from bot.faces.demo.specimen import AttemptSpec, attempt_files
from bot.rules.judge.inputs import AttemptFiles
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code
from tests.support import RULES, FakeSandbox, convert_like_the_specimen, fake_sandbox, seed_released

WRAPPED = AttemptSpec(kind="wrapped")


@pytest.fixture
def sandbox(monkeypatch: pytest.MonkeyPatch) -> FakeSandbox:
    return fake_sandbox(monkeypatch)


@pytest.fixture
def attempt(tmp_path: Path) -> tuple[FolderTree, AttemptFiles]:
    """The honest wrapped attempt in a working tree (no git needed), and its released data
    seeded in the cache as an earlier run would have left it."""
    root = tmp_path / "registry"
    files = attempt_files(WRAPPED)
    for name, data in {
        "shared-rules/common-v1.yaml": RULES,
        **{f"{WRAPPED.folder}/{name}": data for name, data in files.items()},
    }.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_bytes(data)
    seed_released(tmp_path / "cache", files)
    registry = load_registry(FolderTree(root))
    return registry.tree, read_attempt(registry, WRAPPED.folder)  # type: ignore[return-value]


def test_an_unchanged_attempt_is_rerun_once(attempt, sandbox, tmp_path) -> None:
    tree, files = attempt
    rerun = AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")
    assert rerun(tree, files) == []
    assert sandbox.calls == 2  # on the released data, then on the emptied data
    assert rerun(tree, files) == []
    assert AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files) == []
    assert sandbox.calls == 2


def _adapter_file_changed(files: AttemptFiles) -> AttemptFiles:
    entry = files.entries["adapter/convert.py"]
    return replace(
        files, entries={**files.entries, "adapter/convert.py": replace(entry, sha256="1" * 64)}
    )


def _released_data_changed(files: AttemptFiles) -> AttemptFiles:
    assert files.adapter is not None
    first, *rest = files.adapter.released_data
    changed = replace(files.adapter, released_data=({**first, "sha256": "2" * 64}, *rest))
    return replace(files, adapter=changed)


@pytest.mark.parametrize(
    "change",
    [
        lambda files: replace(files, digest="0" * 64),
        _adapter_file_changed,
        _released_data_changed,
    ],
    ids=["evidence-digest", "adapter-file", "released-data"],
)
def test_changing_a_part_of_the_key_reruns(attempt, sandbox, tmp_path, change) -> None:
    tree, files = attempt
    rerun = AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")
    rerun(tree, files)
    before = sandbox.calls
    key, _ = bot.app.rerun.rerun_key(files, rerun.sandbox)
    assert bot.app.rerun.rerun_key(change(files), rerun.sandbox)[0] != key
    if change is _released_data_changed:
        # Data with another hash is not in the cache: fetching it is tried instead, and a
        # result that never reached the sandbox is not cached.
        (tmp_path / "cache" / "sha256" / ("2" * 64)).write_bytes(b"{}\n")
        findings = rerun(tree, change(files))
        assert [f.code for f in findings] == [Code.RELEASED_DATA_UNAVAILABLE]
        return
    rerun(tree, change(files))
    assert sandbox.calls == before + 2


def test_the_folder_is_part_of_the_key(attempt) -> None:
    """Two folders with the same files have the same digest; findings name their folder."""
    _, files = attempt
    moved = replace(files, folder="attempts/market-03/alice-lab/monitor-v2")
    limits = SandboxLimits()
    assert bot.app.rerun.rerun_key(moved, limits)[0] != bot.app.rerun.rerun_key(files, limits)[0]


def test_a_new_bot_version_comparison_or_limits_rerun(
    attempt, sandbox, tmp_path, monkeypatch
) -> None:
    tree, files = attempt
    AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files)
    AdapterRerun(
        cache=tmp_path / "cache", results=tmp_path / "reruns", sandbox=SandboxLimits(cpu_seconds=30)
    )(tree, files)
    assert sandbox.calls == 4
    monkeypatch.setattr(bot.app.rerun, "BOT_VERSION", "99.0.0")
    AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files)
    assert sandbox.calls == 6
    # Results cached before the comparison changed (the cases became an output) are not used.
    monkeypatch.setattr(bot.app.rerun, "COMPARISON", bot.app.rerun.COMPARISON + 1)
    AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files)
    assert sandbox.calls == 8


def test_a_cached_result_needs_no_sandbox(attempt, sandbox, tmp_path, monkeypatch) -> None:
    tree, files = attempt
    AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files)
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: "bwrap is not installed")
    assert AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files) == []
    with pytest.raises(ClaimsError, match="cannot rerun adapters here: bwrap is not installed"):
        AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(
            tree, replace(files, digest="0" * 64)
        )


def test_a_mismatch_is_cached_and_a_failure_is_not(attempt, sandbox, tmp_path, monkeypatch) -> None:
    tree, files = attempt
    rerun = AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")

    def other_output(command: list[str], *, inputs: Path, output: Path, **_: Any) -> RunResult:
        sandbox.calls += 1
        written = convert_like_the_specimen(inputs, output)
        (output / "trials.jsonl").write_bytes(b'{"case_id": "x"}\n')
        return RunResult("ok", "exit code 0", 0, None, None, "", "", written, 0.1)

    monkeypatch.setattr(bot.app.rerun, "run_adapter", other_output)
    (finding,) = rerun(tree, files)
    assert finding.code is Code.ADAPTER_MISMATCH
    assert rerun(tree, files) == [finding]
    assert sandbox.calls == 1  # no second run after a mismatch; the result came from the cache

    def failing(*args: object, **kwargs: object) -> RunResult:
        sandbox.calls += 1
        return RunResult("failed", "exit code 1", 1, None, None, "", "boom", (), 0.1)

    monkeypatch.setattr(bot.app.rerun, "run_adapter", failing)
    other = replace(files, digest="3" * 64)
    assert [f.code for f in rerun(tree, other)] == [Code.ADAPTER_FAILED]
    assert [f.code for f in rerun(tree, other)] == [Code.ADAPTER_FAILED]
    assert sandbox.calls == 3


@pytest.mark.parametrize(
    "carried",
    [("freeze-cases.jsonl", "trials.jsonl"), ("trials.jsonl",), ("freeze-cases.jsonl",)],
)
def test_an_adapter_that_writes_the_same_from_emptied_data(
    attempt, sandbox, tmp_path, monkeypatch, carried
) -> None:
    """Any output written the same from no data is carried, even when another one changes."""
    tree, files = attempt
    evidence = {name: attempt_files(WRAPPED)[name] for name in carried}

    def carries_its_output(
        command: list[str], *, inputs: Path, output: Path, **_: Any
    ) -> RunResult:
        sandbox.calls += 1
        written = convert_like_the_specimen(inputs, output)
        for name, data in evidence.items():
            (output / name).write_bytes(data)
        return RunResult("ok", "exit code 0", 0, None, None, "", "", written, 0.1)

    monkeypatch.setattr(bot.app.rerun, "run_adapter", carries_its_output)
    (finding,) = AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files)
    assert (finding.code, finding.file) == (
        Code.ADAPTER_IGNORES_DATA,
        f"{WRAPPED.folder}/adapter/adapter.yaml",
    )
    assert f"the adapter wrote the same {', '.join(carried)}: " in finding.message
    assert sandbox.calls == 2


def test_the_emptied_run_sees_the_same_files_emptied(attempt, tmp_path, monkeypatch) -> None:
    tree, files = attempt
    seen: list[dict[str, bytes]] = []

    def record(command: list[str], *, inputs: Path, output: Path, **_: Any) -> RunResult:
        seen.append(
            {
                p.relative_to(inputs).as_posix(): p.read_bytes()
                for p in inputs.rglob("*")
                if p.is_file()
            }
        )
        written = convert_like_the_specimen(inputs, output)
        return RunResult("ok", "exit code 0", 0, None, None, "", "", written, 0.1)

    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: None)
    monkeypatch.setattr(bot.app.rerun, "run_adapter", record)
    assert AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")(tree, files) == []
    first, emptied = seen
    assert sorted(first) == sorted(emptied) == ["released/cases.jsonl", "released/trials.jsonl"]
    assert all(first.values()) and not any(emptied.values())


def test_results_are_kept_only_where_asked_and_never_in_the_released_cache(
    attempt, sandbox, tmp_path
) -> None:
    # Review finding: results lived in the released-data cache (`reruns/`), which may be
    # restored from a cache others can write; a planted "reproduced" record was believed.
    tree, files = attempt
    rerun = AdapterRerun(cache=tmp_path / "cache")  # no results folder: nothing kept
    assert rerun(tree, files) == [] and rerun(tree, files) == []
    assert sandbox.calls == 4
    assert not (tmp_path / "cache" / "reruns").exists()
    kept = AdapterRerun(cache=tmp_path / "cache", results=tmp_path / "reruns")
    assert kept(tree, files) == []
    assert [p.parent for p in (tmp_path / "reruns").iterdir()] == [tmp_path / "reruns"]
    assert not (tmp_path / "cache" / "reruns").exists()


def test_a_recorded_try_that_may_pass_counts_only_by_the_close_jobs_deadline(
    attempt, monkeypatch, tmp_path
) -> None:
    """The rerun job (--keep-rerun-failures) records a fetch that failed as a try. Read back
    without a deadline it is no result (adapter-not-rerun: fail closed); the close job waits
    on it before the market's rerun deadline and judges it `rerun-unrecorded` from then on."""
    from datetime import date

    from bot.app.rerun import Deadline
    from bot.vocab.findings import Finding

    tree, files = attempt
    down = Finding(Code.RELEASED_DATA_UNAVAILABLE, "released_data[0]: connection refused", "a")
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: None)
    monkeypatch.setattr(bot.app.rerun, "fetch_released", lambda *args, **kwargs: [down])
    results = tmp_path / "one-run"
    job = AdapterRerun(cache=tmp_path / "cache", results=results, keep_failures=True)
    assert job(tree, files) == [down]
    assert len(list(results.glob("*.json"))) == 1
    close = AdapterRerun(cache=tmp_path / "unused", results=results, recorded_only=True)
    assert close(tree, files) is None
    assert replace(close, deadline=Deadline(date(2027, 9, 5), False))(tree, files) is None
    settled = replace(close, deadline=Deadline(date(2027, 9, 5), True))(tree, files)
    assert settled is not None
    assert [f.code for f in settled] == [Code.RERUN_UNRECORDED, Code.RELEASED_DATA_UNAVAILABLE]
    assert "by the rerun deadline 2027-09-05" in settled[0].message


def test_a_try_with_a_failure_of_the_filers_own_is_a_result_at_once(
    attempt, monkeypatch, tmp_path
) -> None:
    """One released file with another hash (the filer's own, final) and one not served: the
    attempt cannot qualify whatever a later try brings, so the close job counts it now."""
    from datetime import date

    from bot.app.rerun import Deadline
    from bot.vocab.findings import Finding

    tree, files = attempt
    found = [
        Finding(Code.RELEASED_DATA_HASH, "released_data[0]: another sha256", "a"),
        Finding(Code.RELEASED_DATA_UNAVAILABLE, "released_data[1]: connection refused", "a"),
    ]
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: None)
    monkeypatch.setattr(bot.app.rerun, "fetch_released", lambda *args, **kwargs: list(found))
    results = tmp_path / "one-run"
    AdapterRerun(cache=tmp_path / "cache", results=results, keep_failures=True)(tree, files)
    close = AdapterRerun(cache=tmp_path / "unused", results=results, recorded_only=True)
    before = replace(close, deadline=Deadline(date(2027, 9, 5), False))
    assert before(tree, files) == found


def test_a_record_nested_past_the_parser_is_refused_not_a_traceback(tmp_path: Path) -> None:
    """A rerun record is read from a cache folder and from the rerun jobs' artifacts (`claims
    close-windows` keeps them): JSON nested deeper than the parser recurses is no record."""
    from bot.app.report_json import ReportError, rerun_record_from_json
    from bot.app.resolutions import keep_rerun_results

    key = "ab" * 32
    deep = "[" * 100_000 + "]" * 100_000
    with pytest.raises(ReportError, match="not JSON"):
        rerun_record_from_json(deep, key)
    (tmp_path / "source").mkdir()
    (tmp_path / "source" / f"{key}.json").write_text(deep)
    assert keep_rerun_results(tmp_path / "source", tmp_path / "root") == []

"""Fuzzing: random mutations of an honest attempt never crash the loaders, the judge or verify.

Mutations (tests/adversarial/mutate.py): bytes flipped, inserted or deleted, a file truncated
or removed, lines dropped, duplicated or swapped, a value turned into another JSON type, a key
renamed. The properties:

1. the loaders: a JSONL line mutated alone leaves every other line's record as it was (one bad
   line never hides the next), and is itself a record or one refusal; YAML is a document or
   findings, never both or neither, every line number inside the file; `Document.line_of`
   answers any path;
2. the pure judge (no git, fast, more examples): never raises; the evidence is invalid exactly
   when an error finding says why, an attempt that does not qualify has its reasons, each
   with a code, a message and a file of the attempt;
3. `claims verify` on a real git registry: exit 0 or 1 only, never a traceback, a JSON report
   whose error reasons agree with the exit code; and a change that must invalidate (the raw
   log, a freeze file, a record line added or lost) always does.

Example counts are modest so the suite stays fast: FUZZ_EXAMPLES=500 (the environment) runs
more. A longer, coverage-guided run: fuzz/atheris_verify.py (docs/fuzzing.md).
"""

from __future__ import annotations

import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note, settings
from hypothesis import strategies as st

from bot.edges.load.yaml_ import parse_yaml
from bot.faces.cli import main
from bot.vocab.document import Document
from bot.vocab.findings import Code
from bot.vocab.jsonl import parse_jsonl
from tests.adversarial.harness import CODES, HONEST, check, judge, streamed_and_kept
from tests.adversarial.mutate import mutate
from tests.support import AS_OF, Built, Files, RegistryFactory, fuzz_settings

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "40"))
FUZZ = fuzz_settings(EXAMPLES)


class DrawChooser:
    """mutate()'s choices, drawn by Hypothesis (so a failing example shrinks)."""

    def __init__(self, data: st.DataObject) -> None:
        self.data = data

    def index(self, count: int, label: str) -> int:
        return self.data.draw(st.integers(0, max(count - 1, 0)), label=label)

    def blob(self, label: str) -> bytes:
        return self.data.draw(st.binary(max_size=8), label=label)


# ---- 1. the loaders -------------------------------------------------------------------------


@FUZZ
@given(
    name=st.sampled_from(["trials.jsonl", "freeze-cases.jsonl", "certificates.jsonl"]),
    data=st.data(),
)
def test_a_mutated_jsonl_line_leaves_the_others_alone(name: str, data: st.DataObject) -> None:
    lines = HONEST[name].split(b"\n")[:-1]  # the file ends with a newline
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    one = {"line.jsonl": lines[index]}
    note(mutate(one, DrawChooser(data)))
    changed = one.get("line.jsonl", b"").replace(b"\n", b"").replace(b"\r", b"")
    raw = b"\n".join([*lines[:index], changed, *lines[index + 1 :]]) + b"\n"
    records, findings = parse_jsonl(io.BytesIO(raw), name)
    original, _ = parse_jsonl(io.BytesIO(HONEST[name]), name)
    by_line = {record.line: record.data for record in records}
    refused = [finding.line for finding in findings]
    for finding in findings:
        assert finding.code is Code.JSONL_INVALID and finding.file == name and finding.message
    assert sorted([*by_line, *refused]) == list(range(1, len(lines) + 1))
    for record in original:
        if record.line != index + 1:
            assert by_line[record.line] == record.data
    assert refused in ([], [index + 1])


@FUZZ
@given(
    name=st.sampled_from(["attempt.yaml", "freeze.yaml", "adapter/adapter.yaml", "scores.yaml"]),
    data=st.data(),
)
def test_a_mutated_yaml_file_is_a_document_or_findings(name: str, data: st.DataObject) -> None:
    one = {name: HONEST[name]}
    note(mutate(one, DrawChooser(data)))
    raw = one.get(name, b"")
    document, findings = parse_yaml(raw, name)
    assert (document is None) == bool(findings)
    last = raw.count(b"\n") + 1
    for finding in findings:
        assert finding.code.value in CODES and finding.file == name and finding.message
        assert finding.line is None or 1 <= finding.line <= last
    if document is not None:
        json.dumps(document.data)
        assert all(1 <= line <= last for line in document.lines.values())


_path_part = st.one_of(st.integers(-2, 30), st.text(max_size=6))


@FUZZ
@given(name=st.sampled_from(["attempt.yaml", "adapter/adapter.yaml"]), where=st.lists(_path_part))
def test_line_of_answers_any_path(name: str, where: list[Any]) -> None:
    document, _ = parse_yaml(HONEST[name], name)
    assert isinstance(document, Document)
    line = document.line_of(tuple(where))
    assert line is None or line in document.lines.values()


# ---- 2. the pure judge ----------------------------------------------------------------------


def test_the_honest_attempt_is_valid_to_the_pure_judge() -> None:
    verdict = judge(dict(HONEST))
    assert verdict.evidence == "valid", verdict.findings


@settings(FUZZ, max_examples=EXAMPLES * 3)
@given(data=st.data())
def test_the_judge_explains_every_invalid_mutation(data: st.DataObject) -> None:
    files = dict(HONEST)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        note(mutate(files, DrawChooser(data)))
    check(judge(files), files)


# ---- 3. claims verify on a git registry -----------------------------------------------------


def _record_lines(raw: bytes | None) -> int:
    return -1 if raw is None else sum(1 for line in raw.split(b"\n") if line.strip())


def _must_fail(before: Files, after: Files) -> str | None:
    """Why the mutated attempt cannot be valid, or None."""
    for name in ("raw-log/harness.log", "freeze.yaml", "freeze-cases.jsonl"):
        if after.get(name) != before[name]:
            return f"{name} changed (its hash, or its landing on main)"
    for name in ("attempt.yaml", "trials.jsonl"):
        if name not in after:
            return f"{name} removed"
    if _record_lines(after.get("trials.jsonl")) != _record_lines(before["trials.jsonl"]):
        return "a trial line added or lost"
    return None


def _snapshot(folder: Path) -> Files:
    return {
        path.relative_to(folder).as_posix(): path.read_bytes()
        for path in sorted(folder.rglob("*"))
        if path.is_file()
    }


def _write(folder: Path, files: Files) -> None:
    import shutil

    shutil.rmtree(folder)
    for name, content in files.items():
        (folder / name).parent.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(content)


class Registry_:
    """One git registry for every example (not a dataclass: Hypothesis prints arguments)."""

    def __init__(self, built: Built) -> None:
        self.built = built
        self.pristine = _snapshot(built.attempt)

    def __repr__(self) -> str:
        return f"Registry_({self.built.root})"


@pytest.fixture
def honest_registry(make_registry: RegistryFactory) -> Registry_:
    return Registry_(make_registry())


@pytest.fixture
def open_pull_request(make_registry: RegistryFactory) -> Registry_:
    return Registry_(make_registry(run="open"))


def _mutated(data: st.DataObject, pristine: Files) -> Files:
    files = dict(pristine)
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        note(mutate(files, DrawChooser(data)))
    return files


def _answers(
    args: list[str], tmp_path: Path, capsys: pytest.CaptureFixture[str], why: str | None
) -> tuple[int, Any]:
    """`claims verify ARGS` exits 0 or 1 without a traceback, 1 exactly when the report holds
    an evidence error, and 1 whenever the mutation had to invalidate (`why`)."""
    report_file = tmp_path / "report.json"
    report_file.unlink(missing_ok=True)
    code = main(["verify", *args, "--as-of", AS_OF, "--json", str(report_file)])
    out, err = capsys.readouterr()
    note(out[-2000:])
    assert "Traceback" not in out + err
    assert code in (0, 1), err
    report = json.loads(report_file.read_text(encoding="utf-8"))
    own = [reason for attempt in report["attempts"] for reason in attempt["reasons"]]
    reasons = [*report.get("pr_problems", []), *own]
    errors = [
        reason
        for reason in reasons
        if reason["severity"] == "error" and reason.get("stage") != "qualification"
    ]
    assert (code == 1) == bool(errors)
    for attempt in report["attempts"]:
        if attempt["status"] == "not-qualifying":
            assert any(reason.get("stage") == "qualification" for reason in attempt["reasons"])
    for reason in own:
        assert reason["code"] in CODES and reason["message"] and reason["file"]
    if why is not None:
        assert code == 1, why
    return code, report


@FUZZ
@given(data=st.data())
def test_verify_answers_every_mutation_with_codes(
    honest_registry: Registry_,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    built, pristine = honest_registry.built, honest_registry.pristine
    files = _mutated(data, pristine)
    _write(built.attempt, files)
    why = _must_fail(pristine, files)
    try:
        # As verify reads them, and with every record kept: the same report, word for word.
        streamed, kept = streamed_and_kept(
            lambda: _answers([str(built.attempt)], tmp_path, capsys, why)
        )
        assert kept == streamed
    finally:
        _write(built.attempt, pristine)


@settings(FUZZ, max_examples=max(EXAMPLES // 2, 1))
@given(data=st.data())
def test_verify_of_a_mutated_pull_request_read_from_git_objects(
    open_pull_request: Registry_,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    data: st.DataObject,
) -> None:
    """The same, with the mutated files committed on the pull request's branch and read
    from git objects (`--base-ref main --head SHA`), as the GitHub job reads them."""
    built, pristine = open_pull_request.built, open_pull_request.pristine
    repo, start = built.repo, built.repo.head.commit.hexsha
    files = _mutated(data, pristine)
    _write(built.attempt, files)
    try:
        repo.git.add("-A")
        repo.git.commit("-q", "--allow-empty", "-m", "mutated")
        args = ["--registry", str(built.root), "--base-ref", "main"]
        _answers(
            [*args, "--head", repo.head.commit.hexsha],
            tmp_path,
            capsys,
            _must_fail(pristine, files),
        )
    finally:
        repo.git.reset("-q", "--hard", start)
        _write(built.attempt, pristine)

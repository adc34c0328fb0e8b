"""`claims explain PATH`: what stands between an attempt and qualifying, one marked line each.

Run on the demo registry (built by the demo's own builder from examples/demo-plan.yaml), every
example's explanation names the reason codes the plan says it demonstrates on a line that is
not `ok`; the qualifying examples list only `ok` lines.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import git
import pytest

from bot.faces.cli import main
from bot.faces.demo.git_registry import build_git_registry
from bot.faces.demo.run import examples_folder, load_plan
from tests.support import Files, RegistryFactory, rewrite

MARKS = ("ok", "missing", "fails", "outcome")
# Reason codes that only warn: shown on their line, in nobody's way (exit 0 if alone).
WARNINGS = {"bound-coverage-low"}


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, dict[str, Any]]:
    steps, plan = load_plan(examples_folder())
    root = tmp_path_factory.mktemp("explain") / "registry"
    repo = build_git_registry(root, steps)
    repo.git.checkout("-q", "main")
    repo.close()
    return root, plan


def _explain(capsys: pytest.CaptureFixture[str], *argv: str | Path) -> tuple[int, list[str]]:
    code = main(["explain", *(str(arg) for arg in argv)])
    out = capsys.readouterr().out
    return code, [line for line in out.splitlines() if line]


def _not_ok(lines: list[str]) -> list[str]:
    return [line for line in lines if not line.startswith("ok ")]


def test_every_line_starts_with_a_mark_and_each_example_shows_its_reason(
    demo: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, plan = demo
    as_of = plan["verify_as_of"]
    for attempt, codes in plan["expect"]["main"].items():
        code, lines = _explain(capsys, root / attempt, "--as-of", as_of)
        assert lines, attempt
        assert all(line.split(" ", 1)[0] in MARKS for line in lines), lines
        blocking = _not_ok(lines)
        for reason in codes:
            assert any(reason in line for line in blocking), (attempt, reason, lines)
        if set(codes) - WARNINGS:
            assert code == 1
    # The two qualifying-and-met examples: nothing stands in their way.
    for attempt in (
        "attempts/market-03/alice-lab/monitor-v1",
        "attempts/market-02/early-bird/fast-monitor",
    ):
        code, lines = _explain(capsys, root / attempt, "--as-of", as_of)
        assert code == 0 and _not_ok(lines) == [], lines


def test_a_missed_bar_on_a_qualifying_attempt_is_its_outcome_not_a_failure(
    demo: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str], run_claims: Any
) -> None:
    """Issue 23 (a new user's filing): qualifying, both bars missed (market 5 resolves NO).
    Nothing stands between it and qualifying, so explain exits 0; the bars are its outcome."""
    root, plan = demo
    attempt = root / "attempts/market-05/northwind-ai/probe-suite"
    code, lines = _explain(capsys, attempt, "--as-of", plan["verify_as_of"])
    assert code == 0, lines
    assert lines[0].startswith("ok      attempt") and "qualifying (missed)" in lines[0]
    outcome = [line for line in lines if line.startswith("outcome ")]
    assert [line.split("(")[0] for line in outcome] == [
        "outcome bar         outcome: missed bar 'false-safe' ",
        "outcome bar         outcome: missed bar 'discrimination' ",
    ]
    assert "7 failing of 16 units, upper bound" in outcome[0]
    assert not [line for line in lines if line.split(" ", 1)[0] in ("missing", "fails")]
    assert lines[-1].startswith("ok      total       1 attempt(s):")
    assert lines[-1].endswith(" 0 missing, 0 fails, 2 outcome (missed bar)")
    # The JSON says the same mark; -q prints the total line, exit 0.
    as_json = run_claims("explain", attempt, "--as-of", plan["verify_as_of"], "--json", "-")
    assert as_json.code == 0
    marks = [line["mark"] for line in json.loads(as_json.out)["attempts"][0]["lines"]]
    assert marks.count("outcome") == 2 and set(marks) == {"ok", "outcome"}


def test_the_open_pull_request_is_explained_against_main(
    demo: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, plan = demo
    repo = git.Repo(root)
    try:
        repo.git.checkout("-q", "gina-lab/late-edit")
        for attempt, codes in plan["expect"]["pr"].items():
            _, lines = _explain(
                capsys, root / attempt, "--as-of", plan["verify_as_of"], "--base-ref", "main"
            )
            blocking = _not_ok(lines)
            for reason in codes:
                assert any(reason in line for line in blocking), (reason, lines)
    finally:
        repo.git.checkout("-q", "main")
        repo.close()


def test_json_lines_carry_mark_topic_and_code(
    demo: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, plan = demo
    attempt = "attempts/market-06/toy-lab/gridworld-monitor"
    code = main(["explain", str(root / attempt), "--as-of", plan["verify_as_of"], "--json"])
    data = json.loads(capsys.readouterr().out)
    assert code == 1
    [explained] = data["attempts"]
    assert explained["status"] == "not-qualifying"
    failing = [line for line in explained["lines"] if line["mark"] != "ok"]
    assert [(line["topic"], line["code"]) for line in failing] == [
        ("attempt", None),
        ("check", "judged-not-qualifying"),
    ]


def _one_grader_and_an_edited_case(files: Files) -> None:
    def same_grader(trials: list[dict[str, Any]]) -> None:
        for trial in trials:
            trial["evaluator"] = "grader-1"

    def edit(cases: list[dict[str, Any]]) -> None:
        cases[1]["content"]["prompt"] += "!"

    rewrite(files, "trials.jsonl", same_grader)
    rewrite(files, "freeze-cases.jsonl", edit)


def test_invalid_evidence_still_shows_its_unit_structure(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry(change=_one_grader_and_an_edited_case)
    code, lines = _explain(capsys, built.attempt, "--as-of", "2027-04-15")
    assert code == 1
    assert lines[0].startswith("fails   attempt")
    assert any(line.startswith("fails   evidence    case-hash-mismatch") for line in lines)
    [units] = [line for line in lines if " units " in line[:20]]
    assert units.startswith("fails   units")
    assert (
        "1 independent units, the largest of 24 trial(s); joined most by evaluator (23 joins)"
        in (units)
    )
    assert "the market needs 10" in units and "[sample-size]" in units


def test_a_pending_attempt_lists_only_its_human_checks(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry(judged=False)
    code, lines = _explain(capsys, built.attempt, "--as-of", "2027-04-15")
    assert code == 1
    blocking = _not_ok(lines)
    assert blocking[0].startswith("missing attempt") and "pending-judgment" in blocking[0]
    assert blocking[-1].startswith("missing total")
    assert all(line.startswith("missing check       human check '") for line in blocking[1:-1])
    assert len(blocking) > 3


def test_stale_judgment_names_both_digests(
    make_registry: RegistryFactory, capsys: pytest.CaptureFixture[str]
) -> None:
    """The evidence changed after the maintainer judged it (a README added to the folder)."""
    built = make_registry()
    text = (built.attempt / "judgments.yaml").read_text()
    judged = text.split("evidence_digest: ")[1].split()[0]
    (built.attempt / "README.md").write_bytes(b"Notes added after the judgments.\n")
    _, lines = _explain(capsys, built.attempt, "--as-of", "2027-04-15")
    stale = [line for line in lines if "stale" in line]
    assert stale and all(line.startswith("missing check") for line in stale), lines
    assert judged in stale[0]
    [evidence] = [line for line in lines if line.startswith("ok      evidence")]
    assert evidence.split("digest ")[1].split(")")[0] in stale[0]


@pytest.mark.parametrize(
    ("file", "line"),
    [
        ("freeze-cases.jsonl", b'{"case_id": ["x"], "family": "f"}\n'),
        ("trials.jsonl", b'{"case_id": {"a": 1}, "started_at": 5}\n'),
    ],
)
def test_an_unhashable_case_id_is_explained_not_a_traceback(
    make_registry: RegistryFactory, run_claims, file: str, line: bytes
) -> None:
    built = make_registry()
    path = built.attempt / file
    path.write_bytes(path.read_bytes() + line)
    result = run_claims("explain", built.attempt)
    assert result.code == 1, result.err
    assert "evidence invalid, so it cannot qualify" in result.out
    where = built.attempt.relative_to(built.root).as_posix()
    assert f"schema: {where}/{file}:" in result.out and "Traceback" not in result.err


def test_the_small_sample_bar_names_its_coverage_warning(
    demo: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    root, plan = demo
    attempt = root / "attempts/market-03/kim-lab/small-sample"
    _, lines = _explain(capsys, attempt, "--as-of", plan["verify_as_of"])
    (bar,) = [line for line in lines if "bar 'discrimination'" in line]
    assert "over 10 positive and 10 negative units" in bar
    assert "covers about 87.6% here, simulated; below 90%" in bar
    assert bar.endswith("[bound-coverage-low]")


# Issue 23, item 1: verify and explain say how the units formed, not only how many.


def _monitor_as_evaluator(files: Files) -> None:
    """The issue's filing: the monitor under test named as every trial's `evaluator`."""

    def monitor(trials: list[dict[str, Any]]) -> None:
        for trial in trials:
            trial["evaluator"] = "trajmon"

    rewrite(files, "trials.jsonl", monitor)


def test_too_few_units_names_the_value_that_joined_them_and_what_would_separate_them(
    make_registry: RegistryFactory, run_claims: Any, capsys: pytest.CaptureFixture[str]
) -> None:
    built = make_registry(before_scores=_monitor_as_evaluator)
    attempt = run_claims("verify", built.attempt).attempt()
    reasons = {reason["code"]: reason["message"] for reason in attempt["reasons"]}
    assert set(reasons) == {"sample-size", "bar-refused"}, reasons
    # Which key joined which trials, the unit's size and lines, and what would separate them.
    sample = reasons["sample-size"]
    assert "1 independent units over all scored trials (from 24 trials)" in sample
    assert "a unit of 24 trials (lines 1, 2, 3, 4, ...)" in sample
    assert "all 24 trials share evaluator 'trajmon'" in sample
    assert "to separate them by evaluator: write evaluator null unless a separate judge" in sample
    # The AUROC bar's refusal names the value the two trials share.
    refused = reasons["bar-refused"]
    assert "trials on lines 1 and 2 share a unit: both have evaluator 'trajmon';" in refused
    assert "if they do not, write evaluator null unless a separate judge" in refused
    # explain: the units line says the same.
    code, lines = _explain(capsys, built.attempt, "--as-of", "2027-04-15")
    assert code == 1
    [units] = [line for line in lines if " units " in line[:20]]
    assert units.startswith("fails   units") and "the market needs 10" in units
    assert "all 24 trials share evaluator 'trajmon'" in units
    [bar] = [line for line in lines if "'discrimination'" in line]
    assert "both have evaluator 'trajmon'" in bar


def test_units_joined_by_several_keys_are_described_largest_first(
    make_registry: RegistryFactory, run_claims: Any
) -> None:
    def two_graders(files: Files) -> None:
        def grade(trials: list[dict[str, Any]]) -> None:
            for index, trial in enumerate(trials):
                trial["evaluator"] = "grader-a" if index < 16 else "grader-b"
                trial["attack_family"] = None

        rewrite(files, "trials.jsonl", grade)

    built = make_registry(before_scores=two_graders)
    attempt = run_claims("verify", built.attempt).attempt()
    [sample] = [r["message"] for r in attempt["reasons"] if r["code"] == "sample-size"]
    assert "2 independent units" in sample
    first, second = sample.index("a unit of 16 trials"), sample.index("a unit of 8 trials")
    assert first < second
    assert "all 16 trials share evaluator 'grader-a'" in sample
    assert "all 8 trials share evaluator 'grader-b'" in sample


def test_the_total_counts_the_lines_shown_below_each_attempt(
    demo: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 23 (a second new user): "2 fails" over one failing bar line, the other being the
    attempt's own line. The total counts the lines under the attempt lines, mark by mark."""
    root, plan = demo
    as_of = plan["verify_as_of"]
    for attempt in plan["expect"]["main"]:
        _, lines = _explain(capsys, root / attempt, "--as-of", as_of)
        shown = [line.split()[0] for line in lines[1:-1]]  # not the attempt's, not the total
        assert lines[0].split()[1] == "attempt" and "attempt" not in {
            line.split()[1] for line in lines[1:-1]
        }
        said = lines[-1].split(": ", 1)[1]
        for mark in ("ok", "missing", "fails"):
            assert f"{shown.count(mark)} {mark}" in said, (attempt, lines)
        assert lines[-1].split()[0] in {lines[0].split()[0], "fails", "missing"}


def test_verify_labels_what_keeps_valid_evidence_from_qualifying_not_error(
    demo: tuple[Path, dict[str, Any]], capsys: pytest.CaptureFixture[str]
) -> None:
    """Issue 23 (a second new user): VALID, exit 0, over an "error" line read as a
    contradiction. A qualification finding is labelled `not-qualifying`, as
    docs/reason-codes.md names its kind; evidence errors stay `error`."""
    root, plan = demo
    as_of = plan["verify_as_of"]
    code = main(
        ["verify", str(root / "attempts/market-06/toy-lab/gridworld-monitor"), "--as-of", as_of]
    )
    out = capsys.readouterr().out
    assert code == 0, out
    assert "    not-qualifying judged-not-qualifying" in out, out
    assert "    error   judged-not-qualifying" not in out
    main(["verify", str(root / "attempts/market-03/bob-lab/edited-cases"), "--as-of", as_of])
    assert "    error   case-hash-mismatch" in capsys.readouterr().out

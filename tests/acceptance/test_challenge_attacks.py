"""Attacks on challenge runs (issue 12) by a dishonest filer or a careless operator: each is
caught with its code, file and line, and an honest run is not blocked."""

from __future__ import annotations

import gzip
import json
from dataclasses import replace
from typing import Any

import pytest

from bot.edges.dump import dump_yaml
from bot.faces.cli import main
from bot.faces.demo.specimen import market_document
from tests.support import (
    CHALLENGE_RUN,
    CHALLENGE_SCORES,
    CHALLENGE_SPEC,
    Files,
    RegistryFactory,
    build_challenge,
    records,
    rewrite,
    withheld_leaks,
)

FOLDER = f"attempts/market-11/{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}"


@pytest.mark.parametrize(
    ("name", "value"), [("extra", 1), ("score", True), ("score", "0.65"), ("verdict", "Caught")]
)
def test_a_trial_result_that_differs_subtly_is_caught(
    make_registry: RegistryFactory, run_claims, name: str, value: object
) -> None:
    def edit(trials: list[dict[str, Any]]) -> None:
        trials[0]["result"][name] = value

    built = build_challenge(
        make_registry, attempt=lambda files: rewrite(files, "trials.jsonl", edit)
    )
    result = run_claims("verify", built.attempt)
    assert "operator-score-mismatch" in result.codes()


def test_a_trial_result_in_another_number_format_is_the_operators(
    make_registry: RegistryFactory, run_claims
) -> None:
    """1 and 1.0 are the same JSON number; key order does not matter."""

    def edit(trials: list[dict[str, Any]]) -> None:
        for trial in trials:
            trial["result"] = dict(reversed(list(trial["result"].items())))

    built = build_challenge(
        make_registry, attempt=lambda files: rewrite(files, "trials.jsonl", edit)
    )
    result = run_claims("verify", built.attempt)
    assert result.code == 0, result.out


def test_a_case_scored_twice_by_duplicate_trials_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    def dup(trials: list[dict[str, Any]]) -> None:
        trials.append(dict(trials[0], trajectory="traj-dup", evaluator="reviewer-999"))

    built = build_challenge(
        make_registry, after_scores=lambda files: rewrite(files, "trials.jsonl", dup)
    )
    result = run_claims("verify", built.attempt)
    assert "duplicate-trial" in result.codes()


def test_a_trial_left_out_is_caught(make_registry: RegistryFactory, run_claims) -> None:
    built = build_challenge(
        make_registry, after_scores=lambda files: rewrite(files, "trials.jsonl", lambda t: t.pop(3))
    )
    result = run_claims("verify", built.attempt)
    assert "missing-trial" in result.codes()


def test_a_trial_case_id_in_other_case_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    def edit(trials: list[dict[str, Any]]) -> None:
        trials[0]["case_id"] = "Sandbagging-000"

    built = build_challenge(
        make_registry, after_scores=lambda files: rewrite(files, "trials.jsonl", edit)
    )
    result = run_claims("verify", built.attempt)
    assert result.attempt()["status"] != "qualifying", result.codes()
    assert "unknown-case" in result.codes() or "missing-trial" in result.codes(), result.codes()


def test_a_camel_case_key_leaks(make_registry: RegistryFactory, run_claims) -> None:
    def leak(trials: list[dict[str, Any]]) -> None:
        trials[2]["result"]["referenceAnswer"] = "answer for sandbagging-002"

    built = build_challenge(
        make_registry, after_scores=lambda files: rewrite(files, "trials.jsonl", leak)
    )
    result = run_claims("verify", built.attempt)
    assert withheld_leaks(result.reasons()) == [(f"{FOLDER}/trials.jsonl", 3)]


def test_a_key_inside_a_json_string_leaks(make_registry: RegistryFactory, run_claims) -> None:
    def leak(trials: list[dict[str, Any]]) -> None:
        trials[2]["result"]["grader"] = json.dumps({"reference_answer": "answer"})

    built = build_challenge(
        make_registry, after_scores=lambda files: rewrite(files, "trials.jsonl", leak)
    )
    result = run_claims("verify", built.attempt)
    assert withheld_leaks(result.reasons()) == [(f"{FOLDER}/trials.jsonl", 3)]


@pytest.mark.parametrize(
    ("name", "data", "line"),
    [
        ("answers.csv", b"case_id,reference_answer\nsandbagging-000,42\n", 1),
        ("grader.log.gz", gzip.compress(b"ok\nreference_answer: 42\n"), 2),
        ("reference_answer/sandbagging-000.txt", b"42\n", None),
    ],
)
def test_a_leak_in_a_runs_other_files(
    make_registry: RegistryFactory, run_claims, name: str, data: bytes, line: int | None
) -> None:
    """A CSV column, a gzipped log, a file named as the field: each a leak of the run."""

    def leak(files: Files) -> None:
        files[name] = data

    built = build_challenge(make_registry, edit_run=leak)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert withheld_leaks(run["reasons"]) == [(f"{CHALLENGE_RUN.folder}/{name}", line)]


def test_a_cyrillic_lookalike_key_in_a_result_is_not_the_operators(
    make_registry: RegistryFactory, run_claims
) -> None:
    """Look-alike letters are not folded (docs/spec-notes.md), but a field of the filer's own
    in `result` is not the operator's result either."""

    def leak(trials: list[dict[str, Any]]) -> None:
        trials[2]["result"]["r\u0435ference_answer"] = "answer"

    built = build_challenge(
        make_registry, after_scores=lambda files: rewrite(files, "trials.jsonl", leak)
    )
    result = run_claims("verify", built.attempt)
    assert "operator-score-mismatch" in result.codes()
    assert "withheld-field-leak" not in result.codes()


def test_an_honest_readme_naming_the_field_is_not_a_leak(
    make_registry: RegistryFactory, run_claims
) -> None:
    def readme(files: Files) -> None:
        files["README.md"] = (
            b"# Run 1\n\nThe suite withholds reference_answer, and only that field.\n"
            b"Withheld: the reference answers.\n"
        )

    built = build_challenge(make_registry, edit_run=readme)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert run["reasons"] == []


def _branch(make_registry: RegistryFactory, name: str) -> tuple[Any, Any]:
    """The challenge registry, with a pull request branch `name` checked out."""
    built = build_challenge(make_registry)
    built.repo.git.checkout("-q", "-b", name)
    return built, built.repo


def test_a_pr_that_edits_the_operators_scores_to_match_is_refused(
    make_registry: RegistryFactory, run_claims
) -> None:
    built, repo = _branch(make_registry, "filer/scores")
    path = built.root / CHALLENGE_RUN.folder / CHALLENGE_SCORES
    rows = [json.loads(x) for x in path.read_text().splitlines()]
    rows[0]["result"]["score"] = 0.99
    path.write_text("".join(json.dumps(r) + "\n" for r in rows))
    trials_path = built.attempt / "trials.jsonl"
    trials = [json.loads(x) for x in trials_path.read_text().splitlines()]
    trials[0]["result"]["score"] = 0.99
    trials_path.write_text("".join(json.dumps(r) + "\n" for r in trials))
    repo.git.add("-A")
    repo.git.commit("-q", "-m", "better scores")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.code == 1
    codes = {r["code"] for r in result.report["pr_problems"]}
    assert "protected-path" in codes
    assert "operator-score-mismatch" in {r["code"] for r in result.report["attempts"][0]["reasons"]}


def test_scores_then_freeze_changed_is_caught(make_registry: RegistryFactory, run_claims) -> None:
    built = build_challenge(make_registry)
    repo = built.repo
    path = built.root / CHALLENGE_RUN.folder / "freeze-cases.jsonl"
    cases = [json.loads(x) for x in path.read_text().splitlines()]
    cases[0]["public"]["note"] = "changed"
    path.write_text("".join(json.dumps(r) + "\n" for r in cases))
    repo.git.add("-A")
    repo.git.commit("-q", "-m", "refreeze")
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert "freeze-order" in {r["code"] for r in run["reasons"]}, run["reasons"]


# ---- weirdml-v3: the operator's stated scores are the recomputed ones -----------------------

WEIRDML = replace(CHALLENGE_RUN, scorer="weirdml-v3")


def _weirdml_stating(
    make_registry: RegistryFactory, run_claims, edit: Any
) -> tuple[Any, dict[str, Any]]:
    """A weirdml-v3 run whose operator's results.jsonl, and the attempt's trials copying it,
    are edited by `edit`; the run's verify report and the built registry."""
    built = build_challenge(
        make_registry,
        run_spec=WEIRDML,
        edit_run=lambda files: rewrite(files, CHALLENGE_SCORES, edit),
        after_scores=lambda files: rewrite(files, "trials.jsonl", edit),
    )
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    return built, run


def test_a_stated_weirdml_score_rounded_up_by_a_millionth_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    """A stated score 9e-7 above the log's breaks ties and thresholds in the filer's favour:
    the operator's file must state what the scorer gives (`claims score --json` keeps full
    precision), not a rounding of it."""

    def nudge(rows: list[dict[str, Any]]) -> None:
        rows[2]["result"]["score"] += 9e-7

    built, run = _weirdml_stating(make_registry, run_claims, nudge)
    assert [(r["code"], r["file"], r["line"]) for r in run["reasons"]] == [
        ("operator-score-mismatch", f"{CHALLENGE_RUN.folder}/{CHALLENGE_SCORES}", 3)
    ]
    assert run_claims("verify", built.attempt).codes() >= {"challenge-run-invalid"}


def test_a_weirdml_score_written_as_json_rounds_it_is_the_same(
    make_registry: RegistryFactory, run_claims
) -> None:
    """The stated value is the recomputed one up to float printing: repr round-trips."""
    built = build_challenge(make_registry, run_spec=WEIRDML)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    assert result.report["challenge_runs"][0]["reasons"] == []


# ---- the run an attempt names ---------------------------------------------------------------


def _set_run(files: Files, run: str) -> None:
    files["attempt.yaml"] = files["attempt.yaml"].replace(
        b"challenge_run: run-1", f"challenge_run: {run}".encode()
    )


def _markets_11() -> dict[str, bytes]:
    return {
        "markets/market-11.yaml": dump_yaml(market_document(11, "default", kinds=["challenge"]))
    }


def test_an_attempt_naming_a_run_of_another_market_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    markets = {
        **_markets_11(),
        "markets/market-12.yaml": dump_yaml(market_document(12, "default", kinds=["challenge"])),
    }

    def other(files: Files) -> None:
        files["run.yaml"] = files["run.yaml"].replace(b"market: 11", b"market: 12")

    built = build_challenge(make_registry, edit_run=other, markets=markets)
    result = run_claims("verify", built.attempt)
    reason = [r for r in result.reasons() if r["code"] == "challenge-run-invalid"]
    assert reason, result.reasons()
    assert result.attempt()["evidence"] == "invalid"


def test_a_run_added_in_the_attempts_own_pull_request_is_not_used(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = build_challenge(make_registry, run="open")
    repo = built.repo
    run_folder = built.root / CHALLENGE_RUN.folder
    new = built.root / "challenge-runs" / "run-9"
    new.mkdir()
    for item in run_folder.rglob("*"):
        if item.is_file():
            target = new / item.relative_to(run_folder)
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(item.read_bytes().replace(b"id: run-1", b"id: run-9"))
    attempt_yaml = built.attempt / "attempt.yaml"
    attempt_yaml.write_bytes(
        attempt_yaml.read_bytes().replace(b"challenge_run: run-1", b"challenge_run: run-9")
    )
    repo.git.add("-A")
    repo.git.commit("-q", "-m", "my own run")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.code == 1
    assert "protected-path" in {r["code"] for r in result.report["pr_problems"]}
    reasons = result.report["attempts"][0]["reasons"]
    invalid = [r for r in reasons if r["code"] == "challenge-run-invalid"]
    assert invalid and "names no run of this registry" in invalid[0]["message"], reasons


def test_a_trial_score_nudged_below_the_old_tolerance_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    """5e-10 is nothing as a number and everything to a tie: the operator's 0.65 for a
    positive against a negative's 0.65 is a tie (half a pair); 0.6500000005 wins the pair.
    A trial's result is the operator's exactly (JSON numbers: 1 and 1.0 are one number)."""

    def nudge(trials: list[dict[str, Any]]) -> None:
        trials[5]["result"]["score"] += 5e-10

    built = build_challenge(
        make_registry, attempt=lambda files: rewrite(files, "trials.jsonl", nudge)
    )
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"operator-score-mismatch"}
    assert [r["line"] for r in result.reasons()] == [6]


def test_a_stated_weirdml_score_within_the_tolerance_is_not_what_trials_carry(
    make_registry: RegistryFactory, run_claims
) -> None:
    """Rounded to nine decimals, a stated score passes the run's check (float noise), but the
    attempt's trials must carry the scorer's own value, not the rounding."""

    def nine(rows: list[dict[str, Any]]) -> None:
        for row in rows:
            for name in ("area", "final_best", "score"):
                row["result"][name] = round(row["result"][name], 9) + 4e-10

    built, run = _weirdml_stating(make_registry, run_claims, nine)
    assert run["reasons"] == []
    trial = records(built.files, "trials.jsonl")[0]
    assert run["attempts"][0]["tasks"]["sandbagging-000"] != trial["result"]
    attempt = run_claims("verify", built.attempt)
    assert "operator-score-mismatch" in attempt.codes()


def test_a_yaml_comment_leaks(make_registry: RegistryFactory, run_claims) -> None:
    def attempt_comment(files: Files) -> None:
        files["scores.yaml"] += b"# reference_answer: {sandbagging-003: x}\n"

    def run_comment(files: Files) -> None:
        files["run.yaml"] += b"# sandbagging-000 Reference-Answer: 42\n"

    built = build_challenge(make_registry, after_scores=attempt_comment)
    result = run_claims("verify", built.attempt)
    lines = built.files["scores.yaml"].decode().count("\n")
    assert withheld_leaks(result.reasons()) == [(f"{FOLDER}/scores.yaml", lines)]
    built = build_challenge(make_registry, edit_run=run_comment)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert [file for file, _ in withheld_leaks(run["reasons"])] == [
        f"{CHALLENGE_RUN.folder}/run.yaml"
    ]


def test_a_yaml_key_is_reported_once(make_registry: RegistryFactory, run_claims) -> None:
    def key(files: Files) -> None:
        files["scores.yaml"] += b"reference_answer: {sandbagging-003: x}\n"

    built = build_challenge(make_registry, after_scores=key)
    result = run_claims("verify", built.attempt)
    assert len(withheld_leaks(result.reasons())) == 1


def test_a_pull_request_that_freezes_and_scores_at_once_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    built, repo = _branch(make_registry, "operator/run-9")
    source, target = built.root / CHALLENGE_RUN.folder, built.root / "challenge-runs" / "run-9"
    for item in source.rglob("*"):
        if item.is_file():
            copy = target / item.relative_to(source)
            copy.parent.mkdir(parents=True, exist_ok=True)
            copy.write_bytes(item.read_bytes().replace(b"id: run-1", b"id: run-9"))
    repo.git.add("-A")
    repo.git.commit("-q", "-m", "run-9: freeze and scores together")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    (run,) = result.report["challenge_runs"]
    assert run["run"] == "run-9"
    assert [(r["code"], r["file"]) for r in run["reasons"]] == [
        ("freeze-order", f"challenge-runs/run-9/{CHALLENGE_SCORES}")
    ]
    assert "merge the freeze first" in run["reasons"][0]["message"]


# ---- JSON types (issue 21, item 4) ----------------------------------------------------------


def _hard_markets() -> dict[str, bytes]:
    """Market 11 whose false-safe bar counts only the run's cases flagged `hard: true`."""
    document = market_document(11, "default", kinds=["challenge"])
    document["bars"][0]["over"]["case"]["hard"] = True
    return {"markets/market-11.yaml": dump_yaml(document)}


def _flag_hard(retyped: object) -> Any:
    """The run flags every case `hard: true`; the attempt's copy writes `retyped` instead on
    the cases its trials (the operator's scores) count as failures."""

    def run(files: Files) -> None:
        def flag(cases: list[dict[str, Any]]) -> None:
            for case in cases:
                case["public"]["hard"] = True

        rewrite(files, "freeze-cases.jsonl", flag)

    def attempt(files: Files) -> None:
        failed = {
            t["case_id"]
            for t in records(files, "trials.jsonl")
            if t["result"]["verdict"] == "false_safe"
        }
        assert failed

        def flag(cases: list[dict[str, Any]]) -> None:
            for case in cases:
                case["public"]["hard"] = retyped if case["case_id"] in failed else True

        rewrite(files, "freeze-cases.jsonl", flag)

    return run, attempt


@pytest.mark.parametrize("retyped", [1, 1.0], ids=["1", "1.0"])
def test_challenge_case_retyped_true_as_1_is_a_mismatch(
    make_registry: RegistryFactory, run_claims, retyped: object
) -> None:
    """A challenge attempt's copy of its run's cases was compared with Python's equality, so
    `"hard": 1` (or 1.0) passed for the run's `"hard": true`, while the bar
    selects cases by JSON type: the failures the operator scored dropped out of the bar, and
    a NO became a YES. Now the copy is compared by JSON type: challenge-case-mismatch."""
    run, attempt = _flag_hard(retyped)
    spec = replace(CHALLENGE_SPEC, false_safe_rate=0.5, seed=4)
    built = build_challenge(
        make_registry, spec=spec, attempt=attempt, edit_run=run, markets=_hard_markets()
    )
    result = run_claims("verify", built.attempt)
    assert result.code == 1, result.out
    assert "challenge-case-mismatch" in result.codes(), result.codes()
    reason = next(r for r in result.reasons() if r["code"] == "challenge-case-mismatch")
    assert "public differs from the run's" in reason["message"]
    assert reason["file"].endswith("/freeze-cases.jsonl") and reason["line"] is not None


# ---- values no stage can carry (issue 21, item 5) -------------------------------------------


def test_operator_score_beyond_2_53_is_refused_and_publish_and_site_still_work(
    make_registry: RegistryFactory, run_claims, tmp_path, monkeypatch, capsys
) -> None:
    """An operator's score holding an integer past 2**53 - 1 was read as valid, reached the
    report (in an operator-score-mismatch message), and then `claims github publish` and
    `claims site` refused the report: exit 2, no verdict posted, no site built. Now the loader
    refuses the line where it is read, naming it, and every later job runs."""

    def big(files: Files) -> None:
        rewrite(
            files, CHALLENGE_SCORES, lambda rows: rows[0]["result"].update(score=9007199254740993)
        )

    built = build_challenge(make_registry, edit_run=big)
    run = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (reason,) = run.report["challenge_runs"][0]["reasons"]
    assert (reason["code"], reason["file"], reason["line"]) == (
        "jsonl-invalid",
        f"{CHALLENGE_RUN.folder}/{CHALLENGE_SCORES}",
        1,
    )
    assert reason["message"] == (
        "result.score: integer 9007199254740993 is outside ±2**53-1 (I-JSON)"
    )
    report = tmp_path / "verify.json"
    capsys.readouterr()
    args = ["--registry", str(built.root), "--as-of", "2027-04-15"]
    assert main(["verify", *args, "--json", str(report)]) == 1
    attempt = run_claims("verify", built.attempt)
    assert "challenge-run-invalid" in attempt.codes()
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/registry")
    capsys.readouterr()
    assert main(["github", "publish", str(report), "--pr", "7", "--head", "a" * 40]) == 0
    out, err = capsys.readouterr()
    assert "would post on acme/registry #7:" in out and "Traceback" not in err
    site = ["site", "--registry", str(built.root), "--verify-report", str(report)]
    assert main([*site, "--out", str(tmp_path / "site")]) == 0, capsys.readouterr().err
    assert main(["site", *args, "--out", str(tmp_path / "site-2")]) == 0
    assert (tmp_path / "site" / "index.html").is_file()


def test_an_operator_result_nested_to_the_depth_cap_reaches_publish_and_site(
    make_registry: RegistryFactory, run_claims, tmp_path, monkeypatch, capsys
) -> None:
    """An operator's result nested as deep as the loader accepts is copied into the verify
    report (the run's `tasks`), six levels down: the report read back was refused ("nested
    deeper than 64 levels"), so `claims github publish` and `claims site` exited 2. Found by
    tests/adversarial/test_values.py. Every report verify writes is read back now."""
    nested: Any = "bottom"
    for level in range(61):  # the record and its result above: 63 levels, within the 64
        nested = {"a": nested} if level % 2 else [nested]

    def deep(files: Files) -> None:
        rewrite(files, CHALLENGE_SCORES, lambda rows: rows[0]["result"].update(deep=nested))

    built = build_challenge(make_registry, edit_run=deep)
    report = tmp_path / "verify.json"
    args = ["--registry", str(built.root), "--as-of", "2027-04-15"]
    assert main(["verify", *args, "--json", str(report)]) in (0, 1)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/registry")
    capsys.readouterr()
    assert main(["github", "publish", str(report), "--pr", "7", "--head", "a" * 40]) == 0
    out, err = capsys.readouterr()
    assert "would post on acme/registry #7:" in out, err
    site = ["site", "--registry", str(built.root), "--verify-report", str(report)]
    assert main([*site, "--out", str(tmp_path / "site")]) == 0, capsys.readouterr().err
    assert main(["site", *args, "--out", str(tmp_path / "site-2")]) == 0

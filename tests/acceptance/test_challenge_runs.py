"""Challenge runs (docs/spec.md §11, issue 12) in real git registries: an honest challenge attempt
qualifies; each defect of a run or of its attempt is caught with its code, file and line.

The run (challenge-runs/run-1/run.yaml and its hash-only freeze-cases.jsonl) is merged as a pull
request on 8 January, before the attempt's trials (from 20 January); the operator's score file
lands on 25 February, after them; the attempt merges on 19 February.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from dataclasses import replace
from datetime import UTC, datetime, timedelta
from typing import Any

import pytest
import yaml

from bot.edges.dump import dump_jsonl, dump_yaml
from bot.faces.demo.specimen import market_document
from bot.rules.challenge import scorers
from bot.rules.challenge.scorers import BuiltinScorer, Recomputed
from bot.vocab.findings import Code, Finding
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


def _reason(result: Any, code: str, index: int = 0) -> dict[str, Any]:
    found = [r for r in result.reasons(index) if r["code"] == code]
    assert found, result.reasons(index)
    return found[0]


def test_an_honest_challenge_attempt_qualifies(make_registry: RegistryFactory, run_claims) -> None:
    built = build_challenge(make_registry)
    result = run_claims("verify", built.attempt)
    assert result.code == 0, result.out
    attempt = result.attempt()
    assert attempt["reasons"] == []
    assert attempt["kind"] == "challenge"
    assert attempt["status"] == "qualifying"
    assert attempt["outcome"] == "met"


def test_the_run_verifies_on_its_own_path(make_registry: RegistryFactory, run_claims) -> None:
    built = build_challenge(make_registry)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    assert result.code == 0, result.out
    assert result.report is not None
    assert result.report["attempts"] == []
    (run,) = result.report["challenge_runs"]
    assert run["run"] == "run-1" and run["evidence"] == "valid" and run["reasons"] == []
    assert run["market"] == 11 and run["cases"] == 24 and run["scorer"] == CHALLENGE_RUN.scorer
    (scored,) = run["attempts"]
    assert scored["attempt"] == f"{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}"
    assert scored["source"] == "score-file"
    assert len(scored["tasks"]) == 24
    assert "1 challenge run(s): 1 valid, 0 invalid" in result.out


def test_verify_with_no_path_checks_attempts_and_runs(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = build_challenge(make_registry)
    result = run_claims("verify", "--registry", built.root)
    assert result.code == 0, result.out
    assert result.report is not None
    assert len(result.report["attempts"]) == 1
    assert [run["run"] for run in result.report["challenge_runs"]] == ["run-1"]


def test_a_market_that_does_not_list_challenge_refuses_it(
    make_registry: RegistryFactory, run_claims
) -> None:
    markets = {"markets/market-11.yaml": dump_yaml(market_document(11, "default", kinds=["run"]))}
    built = build_challenge(make_registry, markets=markets)
    result = run_claims("verify", built.attempt)
    assert {"kind-not-accepted", "challenge-run-invalid"} <= result.codes()
    run = run_claims("verify", built.root / "challenge-runs" / "run-1")
    assert {r["code"] for r in run.report["challenge_runs"][0]["reasons"]} == {"kind-not-accepted"}


# ---- cases ----------------------------------------------------------------------------------


def test_a_case_changed_from_the_runs_is_caught(make_registry: RegistryFactory, run_claims) -> None:
    def edit(cases: list[dict[str, Any]]) -> None:
        cases[3]["sha256"] = hashlib.sha256(b"another case").hexdigest()

    built = build_challenge(
        make_registry, attempt=lambda files: rewrite(files, "freeze-cases.jsonl", edit)
    )
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"challenge-case-mismatch"}
    reason = _reason(result, "challenge-case-mismatch")
    assert reason["file"].endswith("/freeze-cases.jsonl") and reason["line"] == 4
    assert "sha256 differs from the run's" in reason["message"]


def test_a_case_not_in_the_run_is_caught(make_registry: RegistryFactory, run_claims) -> None:
    def extra(files: Files) -> None:
        cases = records(files, "freeze-cases.jsonl")
        trials = records(files, "trials.jsonl")
        cases.append(dict(cases[0], case_id="sabotage-999", sha256="a" * 64))
        trials.append(
            dict(
                trials[0],
                case_id="sabotage-999",
                trajectory="t-999",
                evaluator="r-999",
                system="sim-model-a-seed-99",
                attack_family=None,
            )
        )
        files["freeze-cases.jsonl"] = dump_jsonl(cases)
        files["trials.jsonl"] = dump_jsonl(trials)

    built = build_challenge(make_registry, attempt=extra)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"challenge-case-mismatch", "operator-score-missing"}
    reason = _reason(result, "challenge-case-mismatch")
    assert reason["line"] == 25 and "'sabotage-999' is not a case of the run" in reason["message"]
    missing = _reason(result, "operator-score-missing")
    assert missing["file"].endswith("/trials.jsonl") and missing["line"] == 25


def test_a_run_case_left_out_is_caught(make_registry: RegistryFactory, run_claims) -> None:
    def drop(files: Files) -> None:
        rewrite(files, "freeze-cases.jsonl", lambda cases: cases.pop())
        rewrite(files, "trials.jsonl", lambda trials: trials.pop())

    built = build_challenge(make_registry, attempt=drop)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"challenge-case-mismatch"}
    assert "a challenge attempt runs every case of its run" in result.reasons()[0]["message"]


def test_content_in_the_runs_cases_is_refused(make_registry: RegistryFactory, run_claims) -> None:
    def content(files: Files) -> None:
        cases = [json.loads(line) for line in files["freeze-cases.jsonl"].decode().splitlines()]
        cases[0]["content"] = {"prompt": "the hidden prompt"}
        files["freeze-cases.jsonl"] = dump_jsonl(cases)

    built = build_challenge(make_registry, edit_run=content)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    schema = [r for r in run["reasons"] if r["code"] == "schema"]
    assert schema and schema[0]["line"] == 1 and "hash only" in schema[0]["message"]
    attempt = run_claims("verify", built.attempt)
    assert "challenge-run-invalid" in attempt.codes()


# ---- freeze order ---------------------------------------------------------------------------


def test_trials_before_the_runs_freeze_landed_are_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    late = datetime(2027, 1, 25, 12, 0, tzinfo=UTC)  # after the first trials (20 January)
    built = build_challenge(make_registry, frozen=late)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"trial-before-freeze"}
    reason = _reason(result, "trial-before-freeze")
    assert "the freeze merged to main" in reason["message"]


def test_scores_that_landed_before_the_freeze_are_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    early = CHALLENGE_RUN.frozen_at - timedelta(
        days=2
    )  # scores on 6 January, the freeze on the 8th
    built = build_challenge(make_registry, scored=early)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert {r["code"] for r in run["reasons"]} == {"freeze-order"}
    assert run["reasons"][0]["file"] == f"{CHALLENGE_RUN.folder}/{CHALLENGE_SCORES}"
    attempt = run_claims("verify", built.attempt)
    assert "challenge-run-invalid" in attempt.codes()


# ---- operator scores ------------------------------------------------------------------------


def test_a_trial_whose_result_is_not_the_operators_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    def edit(trials: list[dict[str, Any]]) -> None:
        trials[5]["result"]["score"] = round(trials[5]["result"]["score"] + 0.01, 4)

    built = build_challenge(
        make_registry, attempt=lambda files: rewrite(files, "trials.jsonl", edit)
    )
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"operator-score-mismatch"}
    reason = _reason(result, "operator-score-mismatch")
    assert reason["file"].endswith("/trials.jsonl") and reason["line"] == 6
    assert "result.score" in reason["message"] and "results.jsonl line 6" in reason["message"]


def test_an_attempt_the_operator_did_not_score_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    def unscored(files: Files) -> None:
        del files[CHALLENGE_SCORES]

    built = build_challenge(make_registry, edit_run=unscored)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"operator-score-missing"}
    assert result.reasons()[0]["file"] == f"{CHALLENGE_RUN.folder}/{CHALLENGE_SCORES}"


def _fake_scorer(text: str, file: str, settings: Any) -> tuple[Recomputed, list[Finding]]:
    """A built-in scorer for the test: each input line {"task": id, "score": s} gives the
    case's `score`; a line without a task is refused."""
    found: Recomputed = {}
    for number, line in enumerate(text.splitlines(), start=1):
        event = json.loads(line)
        if "task" not in event:
            return {}, [Finding(Code.SCORER_INPUT_INVALID, "task: missing", file, number)]
        found[event["task"]] = {"score": float(event["score"])}
    return found, []


@pytest.fixture
def fake_builtin(monkeypatch: pytest.MonkeyPatch) -> BuiltinScorer:
    scorer = BuiltinScorer("fake-v1", "events.jsonl", ("score",), _fake_scorer)
    monkeypatch.setitem(scorers.SCORERS, "fake-v1", scorer)
    return scorer


def _with_inputs(shift: float = 0.0, line: int | None = None) -> Callable[[Files], None]:
    def inputs(files: Files) -> None:
        results = [json.loads(x) for x in files[CHALLENGE_SCORES].decode().splitlines()]
        events = [{"task": r["case_id"], "score": r["result"]["score"]} for r in results]
        if line is not None:
            events[line - 1]["score"] += shift
        if shift and line is None:
            events.append({"score": 1})
        files[CHALLENGE_SCORES.replace("results.jsonl", "events.jsonl")] = dump_jsonl(events)

    return inputs


def test_recomputed_scores_that_agree_are_the_runs(
    make_registry: RegistryFactory, run_claims, fake_builtin
) -> None:
    built = build_challenge(
        make_registry, run_spec=replace(CHALLENGE_RUN, scorer="fake-v1"), edit_run=_with_inputs()
    )
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert run["reasons"] == [] and run["recomputed_by"] == "fake-v1"
    assert run["attempts"][0]["source"] == "recomputed"
    assert run_claims("verify", built.attempt).code == 0


def test_a_recomputed_score_mismatch_is_caught(
    make_registry: RegistryFactory, run_claims, fake_builtin
) -> None:
    run_spec = replace(CHALLENGE_RUN, scorer="fake-v1")
    built = build_challenge(make_registry, run_spec=run_spec, edit_run=_with_inputs(0.05, line=3))
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert {r["code"] for r in run["reasons"]} == {"operator-score-mismatch"}
    reason = run["reasons"][0]
    assert reason["file"] == f"{CHALLENGE_RUN.folder}/{CHALLENGE_SCORES}" and reason["line"] == 3
    assert "fake-v1 recomputes" in reason["message"]
    attempt = run_claims("verify", built.attempt)
    assert attempt.codes() == {"challenge-run-invalid"}
    assert "operator-score-mismatch" in attempt.reasons()[0]["message"]


def test_a_scorer_input_it_cannot_read_is_caught(
    make_registry: RegistryFactory, run_claims, fake_builtin
) -> None:
    built = build_challenge(
        make_registry, run_spec=replace(CHALLENGE_RUN, scorer="fake-v1"), edit_run=_with_inputs(1.0)
    )
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert {r["code"] for r in run["reasons"]} == {"scorer-input-invalid"}
    assert run["reasons"][0]["line"] == 25


# ---- run.yaml -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("edit", "field", "line"),
    [
        (lambda text: text.replace("operator: Hidden Suite Operators (demo)\n", ""), "operator", 1),
        (lambda text: text + "secret: 1\n", "secret", None),
        (lambda text: text.replace("market: 11", "market: seven"), "market", None),
        (
            lambda text: text.replace(
                "frozen_at: '2027-01-08T12:00:00Z'", "frozen_at: 2027-01-08 12:00"
            ),
            "frozen_at",
            None,
        ),
    ],
    ids=["missing-operator", "unknown-field", "market-not-a-number", "naive-frozen-at"],
)
def test_run_yaml_schema_errors_name_the_field(
    make_registry: RegistryFactory,
    run_claims,
    edit: Callable[[str], str],
    field: str,
    line: int | None,
) -> None:
    def change(files: Files) -> None:
        files["run.yaml"] = edit(files["run.yaml"].decode()).encode()

    built = build_challenge(make_registry, edit_run=change)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    assert result.code == 1
    (run,) = result.report["challenge_runs"]
    assert run["evidence"] == "invalid"
    reasons = [r for r in run["reasons"] if r["code"] in ("schema", "timestamp-naive")]
    assert reasons and all(r["file"] == f"{CHALLENGE_RUN.folder}/run.yaml" for r in reasons)
    assert any(field in r["message"] for r in reasons)
    assert all(r["line"] is not None for r in reasons)
    attempt = run_claims("verify", built.attempt)
    assert "challenge-run-invalid" in attempt.codes()


def test_an_attempt_naming_no_run_is_caught(make_registry: RegistryFactory, run_claims) -> None:
    built = build_challenge(make_registry, spec=replace(CHALLENGE_SPEC, challenge_run="run-9"))
    result = run_claims("verify", built.attempt)
    assert "challenge-run-invalid" in result.codes()
    reason = _reason(result, "challenge-run-invalid")
    assert reason["file"].endswith("/attempt.yaml") and reason["line"] is not None


# ---- withheld fields ------------------------------------------------------------------------


def test_a_withheld_field_in_a_trials_result(make_registry: RegistryFactory, run_claims) -> None:
    def leak(trials: list[dict[str, Any]]) -> None:
        trials[2]["result"]["reference_answer"] = "answer for sandbagging-002"

    built = build_challenge(
        make_registry, after_scores=lambda files: rewrite(files, "trials.jsonl", leak)
    )
    result = run_claims("verify", built.attempt)
    folder = f"attempts/market-11/{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}"
    assert withheld_leaks(result.reasons()) == [(f"{folder}/trials.jsonl", 3)]


def test_a_withheld_field_nested_in_a_public_field(
    make_registry: RegistryFactory, run_claims
) -> None:
    def leak(files: Files) -> None:
        cases = [json.loads(line) for line in files["freeze-cases.jsonl"].decode().splitlines()]
        cases[4]["public"]["notes"] = {"grading": [{"Reference-Answer": "x"}]}
        files["freeze-cases.jsonl"] = dump_jsonl(cases)

    built = build_challenge(make_registry, attempt=leak, edit_run=leak)
    result = run_claims("verify", built.attempt)
    folder = f"attempts/market-11/{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}"
    assert (f"{folder}/freeze-cases.jsonl", 5) in withheld_leaks(result.reasons())
    assert "spelled differently" in _reason(result, "withheld-field-leak")["message"]
    assert "challenge-run-invalid" in result.codes()


def test_a_withheld_field_in_the_raw_log(make_registry: RegistryFactory, run_claims) -> None:
    def leak(files: Files) -> None:
        log = files["raw-log/harness.log"].decode().splitlines(keepends=True)
        log.insert(7, "debug: grader REFERENCE ANSWER = 'answer for sabotage-003'\n")
        data = "".join(log).encode()
        attempt = files["attempt.yaml"].decode()
        old = json.dumps(len(files["raw-log/harness.log"]))
        attempt = attempt.replace(
            hashlib.sha256(files["raw-log/harness.log"]).hexdigest(),
            hashlib.sha256(data).hexdigest(),
        )
        attempt = attempt.replace(f"bytes: {old}", f"bytes: {len(data)}")
        files["attempt.yaml"] = attempt.encode()
        files["raw-log/harness.log"] = data

    built = build_challenge(make_registry, attempt=leak)
    result = run_claims("verify", built.attempt)
    folder = f"attempts/market-11/{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}"
    assert result.codes() == {"withheld-field-leak"}
    assert withheld_leaks(result.reasons()) == [(f"{folder}/raw-log/harness.log", 8)]


def test_a_withheld_field_in_scores_yaml(make_registry: RegistryFactory, run_claims) -> None:
    def leak(files: Files) -> None:
        files["scores.yaml"] += b"reference_answer: {sabotage-003: x}\n"

    built = build_challenge(make_registry, after_scores=leak)
    result = run_claims("verify", built.attempt)
    folder = f"attempts/market-11/{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}"
    lines = built.files["scores.yaml"].decode().count("\n")  # the leak is the last line
    assert withheld_leaks(result.reasons()) == [(f"{folder}/scores.yaml", lines)]


def test_a_withheld_field_in_the_runs_own_freeze_cases(
    make_registry: RegistryFactory, run_claims
) -> None:
    def leak(files: Files) -> None:
        cases = [json.loads(line) for line in files["freeze-cases.jsonl"].decode().splitlines()]
        cases[9]["public"]["reference_answer"] = "answer for sandbagging-009"
        files["freeze-cases.jsonl"] = dump_jsonl(cases)

    built = build_challenge(make_registry, edit_run=leak)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert withheld_leaks(run["reasons"]) == [(f"{CHALLENGE_RUN.folder}/freeze-cases.jsonl", 10)]
    attempt = run_claims("verify", built.attempt)
    assert "challenge-run-invalid" in attempt.codes()
    assert "withheld-field-leak" in _reason(attempt, "challenge-run-invalid")["message"]


def test_a_withheld_field_in_the_operators_score_file_and_readme(
    make_registry: RegistryFactory, run_claims
) -> None:
    def leak(files: Files) -> None:
        rows = [json.loads(line) for line in files[CHALLENGE_SCORES].decode().splitlines()]
        rows[1]["result"]["debug"] = {"reference_ANSWER": "x"}
        files[CHALLENGE_SCORES] = dump_jsonl(rows)
        files["README.md"] = b"# Run 1\n\nExample row:\n\n    Reference-Answer: 42\n"

    built = build_challenge(make_registry, edit_run=leak)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert sorted(withheld_leaks(run["reasons"])) == [
        (f"{CHALLENGE_RUN.folder}/README.md", 5),
        (f"{CHALLENGE_RUN.folder}/{CHALLENGE_SCORES}", 2),
    ]


# ---- pull requests --------------------------------------------------------------------------


def test_a_pull_request_that_changes_a_run_verifies_the_run(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = build_challenge(make_registry)
    repo = built.repo
    repo.git.checkout("-q", "-b", "operator/readme")
    (built.root / CHALLENGE_RUN.folder / "README.md").write_text("reference_answer: 42\n")
    repo.git.add("-A")
    repo.git.commit("-q", "-m", "run readme")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.report is not None
    assert {r["code"] for r in result.report["pr_problems"]} >= {"protected-path"}
    (run,) = result.report["challenge_runs"]
    assert withheld_leaks(run["reasons"]) == [(f"{CHALLENGE_RUN.folder}/README.md", 1)]
    assert result.code == 1


# ---- the built-in weirdml-v3 scorer ---------------------------------------------------------

WEIRDML = replace(CHALLENGE_RUN, scorer="weirdml-v3")
EVENTS = CHALLENGE_SCORES.replace("results.jsonl", "events.jsonl")


def test_a_weirdml_run_is_recomputed_and_its_attempt_qualifies(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = build_challenge(make_registry, run_spec=WEIRDML)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert run["reasons"] == [] and run["recomputed_by"] == "weirdml-v3"
    (scored,) = run["attempts"]
    assert scored["source"] == "recomputed"
    # The specimen's log: half the monitor's score at 500k tokens, all of it at 5M.
    trial = records(built.files, "trials.jsonl")[0]
    task = scored["tasks"]["sandbagging-000"]
    assert task == trial["result"]
    best = task["final_best"]
    assert task["area"] == pytest.approx(0.75 * best, abs=1e-9)
    assert task["score"] == pytest.approx(0.8 * best, abs=1e-9)
    attempt = run_claims("verify", built.attempt)
    assert attempt.code == 0, attempt.out
    assert attempt.attempt()["status"] == "qualifying"


def test_a_stated_weirdml_score_the_log_does_not_give_is_caught(
    make_registry: RegistryFactory, run_claims
) -> None:
    def misstate(files: Files) -> None:
        rows = [json.loads(line) for line in files[CHALLENGE_SCORES].decode().splitlines()]
        rows[2]["result"]["score"] = 0.56
        files[CHALLENGE_SCORES] = dump_jsonl(rows)

    built = build_challenge(make_registry, run_spec=WEIRDML, edit_run=misstate)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert [(r["code"], r["file"], r["line"]) for r in run["reasons"]] == [
        ("operator-score-mismatch", f"{CHALLENGE_RUN.folder}/{CHALLENGE_SCORES}", 3)
    ]
    assert "result.score is 0.56, weirdml-v3 recomputes" in run["reasons"][0]["message"]
    assert run_claims("verify", built.attempt).codes() == {"challenge-run-invalid"}


def test_a_fourth_browsing_in_the_operators_log_is_refused(
    make_registry: RegistryFactory, run_claims
) -> None:
    def browse(files: Files) -> None:
        events = [json.loads(line) for line in files[EVENTS].decode().splitlines()]
        extra = [{"task": "sandbagging-000", "tokens": 2_000_000, "event": "browse"}] * 3
        files[EVENTS] = dump_jsonl(events[:2] + extra + events[2:])

    built = build_challenge(make_registry, run_spec=WEIRDML, edit_run=browse)
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert [(r["code"], r["file"], r["line"]) for r in run["reasons"]] == [
        ("scorer-input-invalid", f"{CHALLENGE_RUN.folder}/{EVENTS}", 5)
    ]
    assert "brows" in run["reasons"][0]["message"]


def _more_submissions(count: int) -> Callable[[Files], None]:
    """`count` more submissions (scoring 0: the best, and so the results, stay the same) of
    the log's first task, after its last event."""

    def submit(files: Files) -> None:
        events = [json.loads(line) for line in files[EVENTS].decode().splitlines()]
        extra = [
            {"task": "sandbagging-000", "tokens": 6_000_000 + n, "event": "submission", "score": 0}
            for n in range(count)
        ]
        files[EVENTS] = dump_jsonl(events[:3] + extra + events[3:])

    return submit


def test_an_eleventh_submission_in_the_operators_log_is_refused_at_its_line(
    make_registry: RegistryFactory, run_claims
) -> None:
    """The seed gives each model ten submissions a task; the scorer counted any number, so an
    operator's log could score a model on its best of fifty. Now the eleventh is refused."""
    built = build_challenge(make_registry, run_spec=WEIRDML, edit_run=_more_submissions(9))
    result = run_claims("verify", built.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    # Lines 1 and 3 are the task's own two submissions, 4-12 the nine more: 12 is the 11th.
    assert [(r["code"], r["file"], r["line"]) for r in run["reasons"]] == [
        ("scorer-input-invalid", f"{CHALLENGE_RUN.folder}/{EVENTS}", 12)
    ]
    assert run["reasons"][0]["message"] == (
        "event: submission 11 of task 'sandbagging-000': at most 10 submissions per task"
    )
    assert run_claims("verify", built.attempt).codes() == {"challenge-run-invalid"}


def test_ten_submissions_are_the_default_and_a_run_may_allow_more(
    make_registry: RegistryFactory, run_claims
) -> None:
    ten = build_challenge(make_registry, run_spec=WEIRDML, edit_run=_more_submissions(8))
    (run,) = run_claims("verify", ten.root / "challenge-runs" / "run-1").report["challenge_runs"]
    assert run["reasons"] == []

    def allow_eleven(files: Files) -> None:
        _more_submissions(9)(files)
        document = yaml.safe_load(files["run.yaml"])
        document["scorer_settings"] = {"max_submissions": 11}
        files["run.yaml"] = dump_yaml(document)

    eleven = build_challenge(make_registry, run_spec=WEIRDML, edit_run=allow_eleven)
    result = run_claims("verify", eleven.root / "challenge-runs" / "run-1")
    (run,) = result.report["challenge_runs"]
    assert run["reasons"] == [] and run["attempts"][0]["source"] == "recomputed"
    assert run_claims("verify", eleven.attempt).attempt()["status"] == "qualifying"


def test_a_runs_scorer_settings_are_schema_checked(
    make_registry: RegistryFactory, run_claims
) -> None:
    def unknown(files: Files) -> None:
        document = yaml.safe_load(files["run.yaml"])
        document["scorer_settings"] = {"max_submissions": 0, "max_hints": 3}
        files["run.yaml"] = dump_yaml(document)

    built = build_challenge(make_registry, run_spec=WEIRDML, edit_run=unknown)
    (run,) = run_claims("verify", built.root / "challenge-runs" / "run-1").report["challenge_runs"]
    messages = sorted(r["message"] for r in run["reasons"] if r["code"] == "schema")
    assert len(messages) == 2, run["reasons"]
    assert messages == [
        "scorer_settings.max_submissions: 0 is less than the minimum of 1",
        "scorer_settings: Additional properties are not allowed ('max_hints' was unexpected)",
    ]


def test_a_withheld_field_in_a_raw_log_excerpt(make_registry: RegistryFactory, run_claims) -> None:
    """A log over max_local_log_bytes is kept as its head and tail excerpts: both are read."""

    def excerpts(files: Files) -> None:
        line = b"2027-01-20T09:00:00Z step ok\n"
        log = line * (2_100_000 // len(line))
        log += b'grader: {"Reference_Answer": "answer for sabotage-003"}\n' + line * 40
        files.pop("raw-log/harness.log")
        files["raw-log/head"], files["raw-log/tail"] = log[:1_000_000], log[-1_000_000:]
        attempt = yaml.safe_load(files["attempt.yaml"])
        attempt["raw_log"].update(sha256=hashlib.sha256(log).hexdigest(), bytes=len(log))
        files["attempt.yaml"] = dump_yaml(attempt)

    built = build_challenge(make_registry, attempt=excerpts)
    result = run_claims("verify", built.attempt)
    folder = f"attempts/market-11/{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}"
    tail = built.files["raw-log/tail"].split(b"\n")
    line = next(i for i, text in enumerate(tail, start=1) if b"Reference_Answer" in text)
    assert result.codes() == {"withheld-field-leak"}
    assert withheld_leaks(result.reasons()) == [(f"{folder}/raw-log/tail", line)]


def test_a_pull_request_of_an_attempt_lists_no_run(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = build_challenge(make_registry, run="open")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.report is not None
    assert result.report["challenge_runs"] == []
    assert result.attempt()["kind"] == "challenge"
    assert result.codes() == set()

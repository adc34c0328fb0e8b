"""What a result means (issue 23 item 9), warned where a result says what no count reads:
a bar's failure value on a control case (`verdict-outside-bar`), trials without the labels
class-conditional counts need (`class-conditional-partial`), and an `evidence_public_at`
before the trials ran (`evidence-public-early`). Each is a warning: the evidence stays valid
and the attempt qualifies as before (docs/reason-codes.md)."""

from __future__ import annotations

from typing import Any

import yaml

from bot.edges.dump import dump_yaml
from tests.support import Files, RegistryFactory, records, rewrite

TRIALS = "trials.jsonl"


def _warnings(result: Any) -> dict[str, dict[str, Any]]:
    return {r["code"]: r for r in result.attempt()["reasons"] if r["severity"] == "warning"}


def _control_lines(files: Files) -> list[str]:
    kinds = {case["case_id"]: case["kind"] for case in records(files, "freeze-cases.jsonl")}
    return [t["case_id"] for t in records(files, TRIALS) if kinds[t["case_id"]] == "control"]


def test_a_control_case_marked_false_safe_is_warned(
    make_registry: RegistryFactory, run_claims
) -> None:
    def false_safe_control(files: Files) -> None:
        controls = set(_control_lines(files))

        def edit(trials: list[dict[str, Any]]) -> None:
            first = next(t for t in trials if t["case_id"] in controls)
            first["result"]["verdict"] = "false_safe"

        rewrite(files, TRIALS, edit)

    built = make_registry(before_scores=false_safe_control)
    result = run_claims("verify", built.attempt)
    attempt = result.attempt()
    assert (attempt["evidence"], attempt["status"]) == ("valid", "qualifying")
    warning = _warnings(result)["verdict-outside-bar"]
    controls = _control_lines(built.files)
    line = next(
        n for n, t in enumerate(records(built.files, TRIALS), 1) if t["case_id"] == controls[0]
    )
    assert warning["file"].endswith("/trials.jsonl") and warning["line"] == line
    message = warning["message"]
    assert message.startswith("result.verdict: 1 trial(s)")
    assert "'false-safe'" in message and "kind 'control'" in message
    assert "'caught', a false alarm" in message


def test_an_honest_attempt_gets_no_meaning_warning(
    make_registry: RegistryFactory, run_claims
) -> None:
    result = run_claims("verify", make_registry().attempt)
    assert not {"verdict-outside-bar", "class-conditional-partial", "evidence-public-early"} & set(
        _warnings(result)
    )


def test_trials_without_a_certificate_label_are_warned(
    make_registry: RegistryFactory, run_claims
) -> None:
    def drop_certificate(files: Files) -> None:
        def edit(trials: list[dict[str, Any]]) -> None:
            del trials[1]["result"]["certificate"]
            del trials[4]["result"]["certificate"]

        rewrite(files, TRIALS, edit)

    result = run_claims("verify", make_registry(before_scores=drop_certificate).attempt)
    attempt = result.attempt()
    assert attempt["evidence"] == "valid"
    warning = _warnings(result)["class-conditional-partial"]
    assert warning["line"] == 2
    assert "2 of 24 trial(s) (lines 2, 5) lack result.certificate" in warning["message"]
    assert "the market requires those counts" in warning["message"]


def test_evidence_public_before_the_last_trial_is_warned(
    make_registry: RegistryFactory, run_claims
) -> None:
    def backdate(files: Files) -> None:
        attempt = yaml.safe_load(files["attempt.yaml"])
        attempt["publication"]["evidence_public_at"] = "2027-01-01T00:00:00Z"
        files["attempt.yaml"] = dump_yaml(attempt)

    result = run_claims("verify", make_registry(change=backdate).attempt)
    attempt = result.attempt()
    assert (attempt["evidence"], attempt["status"]) == ("valid", "qualifying")
    warning = _warnings(result)["evidence-public-early"]
    assert warning["file"].endswith("/attempt.yaml") and warning["line"] is not None
    assert warning["message"].startswith(
        "publication.evidence_public_at: 2027-01-01T00:00:00Z is before the last trial started"
    )

"""Ways a filer could get an attempt counted that the rules say must not count.

Each test reproduces one attack found in review (docs/spec-notes.md records the rules) and
asserts the bot refuses it with the right code.
"""

from __future__ import annotations

import subprocess
from datetime import UTC, datetime
from typing import Any

import pytest

import bot.edges.sandbox
from bot.edges.dump import dump_yaml
from bot.faces.demo.specimen import AttemptSpec, judgments_file, market_document
from tests.support import Files, RegistryFactory, records, rewrite, seed_released


def test_dropping_failed_cases_from_trials_is_missing_trial(
    make_registry: RegistryFactory, run_claims
) -> None:
    spec = AttemptSpec(false_safe_rate=0.5)

    def drop_failures(files: Files) -> None:
        rewrite(
            files,
            "trials.jsonl",
            lambda trials: trials.__setitem__(
                slice(None), [t for t in trials if t["result"]["verdict"] != "false_safe"]
            ),
        )

    result = run_claims("verify", make_registry(spec, change=drop_failures, scores=False).attempt)
    assert result.codes() == {"missing-trial"}
    assert result.attempt()["evidence"] == "invalid"


def test_blanked_verdicts_do_not_pass_as_non_failures(
    make_registry: RegistryFactory, run_claims
) -> None:
    def blank(files: Files) -> None:
        def edit(trials: list[dict[str, Any]]) -> None:
            for trial in trials:
                if trial["result"]["verdict"] == "false_safe":
                    trial["result"]["verdict"] = None

        rewrite(files, "trials.jsonl", edit)

    built = make_registry(AttemptSpec(false_safe_rate=0.5), change=blank, scores=False)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"schema"}
    assert all("result.verdict" in r["message"] for r in result.reasons())


def test_a_typo_in_a_verdict_is_refused(make_registry: RegistryFactory, run_claims) -> None:
    def typo(files: Files) -> None:
        def edit(trials: list[dict[str, Any]]) -> None:
            trials[0]["result"]["verdict"] = "False_Safe"

        rewrite(files, "trials.jsonl", edit)

    result = run_claims("verify", make_registry(change=typo, scores=False).attempt)
    assert result.codes() == {"schema"}
    assert "not one of the contract's values" in result.reasons()[0]["message"]


def test_adapter_must_reproduce_the_trials(make_registry: RegistryFactory, run_claims) -> None:
    def certificates_only(files: Files) -> None:
        files["adapter/adapter.yaml"] = files["adapter/adapter.yaml"].replace(
            b"- trials.jsonl", b"- certificates.jsonl"
        )

    result = run_claims(
        "verify", make_registry(AttemptSpec(kind="wrapped"), change=certificates_only).attempt
    )
    assert result.codes() == {"schema"}
    assert "outputs" in result.reasons()[0]["message"]


def test_fast_forwarded_freeze_is_freeze_order(make_registry: RegistryFactory, run_claims) -> None:
    # The freeze reaches main as the filer's own commit (a fast-forward), back-dated: its date
    # proves nothing, so the freeze does not count.
    built = make_registry(freeze_in_run=True, run="none", judged=False)
    repo = built.repo
    folder = built.attempt.relative_to(built.root)
    for name, data in built.files.items():
        path = built.attempt / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    stamp = "2027-01-03T00:00:00Z"
    repo.git.add("--", str(folder / "freeze.yaml"), str(folder / "freeze-cases.jsonl"))
    with repo.git.custom_environment(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp):
        repo.git.commit("-q", "-m", "freeze, back-dated")
    repo.git.add("-A")
    with repo.git.custom_environment(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp):
        repo.git.commit("-q", "-m", "run, back-dated")
    result = run_claims("verify", built.attempt)
    # The back-dated commit also files the trials before they ran (trial-in-future).
    assert result.codes() == {"freeze-order", "trial-in-future"}
    assert "not by GitHub merging a pull request" in result.reasons()[0]["message"]


def test_a_challenge_attempt_with_no_run_does_not_count(
    make_registry: RegistryFactory, run_claims
) -> None:
    """Its results would be the filer's own: a challenge attempt needs its run's scores."""
    built = make_registry(AttemptSpec(kind="challenge", challenge_run="run-one"))
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"challenge-run-invalid", "freeze-order"}
    assert "names no run of this registry" in " ".join(r["message"] for r in result.reasons())


def test_shallow_clone_is_an_environment_error(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry()
    shallow = tmp_path / "shallow"
    subprocess.run(
        ["git", "clone", "-q", "--depth", "2", f"file://{built.root}", str(shallow)], check=True
    )
    result = run_claims("verify", shallow / "attempts")
    assert result.code == 2
    assert "shallow clone" in result.err and "Traceback" not in result.err


def test_rate_bar_may_not_state_failure_and_success(
    make_registry: RegistryFactory, run_claims
) -> None:
    market = market_document(3, "default")
    market["bars"][0] = dict(
        market["bars"][0],
        statistic="rate_lower",
        min=0.5,
        success={"field": "verdict", "in": ["caught"]},
    )
    del market["bars"][0]["max"]
    result = run_claims(
        "verify", make_registry(markets={"markets/market-03.yaml": dump_yaml(market)}).attempt
    )
    assert result.code == 2
    assert [p["code"] for p in result.report["registry_problems"]] == ["registry-invalid"]


@pytest.mark.skipif(bot.edges.sandbox.isolation() is not None, reason="no network isolation here")
def test_resolve_with_reruns_does_not_count_an_edited_wrap(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    def edited(files: Files) -> None:
        files["trials.jsonl"] = files["trials.jsonl"].replace(b'"score":0.', b'"score":1.', 1)

    spec = AttemptSpec(kind="wrapped")
    honest = make_registry(spec)
    built = make_registry(spec, change=edited, scores=False)
    seed_released(tmp_path / "cache", honest.files)
    preview = run_claims(
        "resolve", "--registry", built.root, "--as-of", "2027-09-01", "--no-rerun-adapters"
    )
    (market,) = [m for m in preview.report["markets"] if m["market"] == 3]
    assert "1 wrapped attempt(s) left out" in " ".join(market["warnings"])
    assert market["outcome"] == "OTHER"
    assert "adapter-not-rerun" in market["attempts"][0]["reasons"]  # (scores.yaml is left out)
    checked = run_claims(
        "resolve",
        "--registry",
        built.root,
        "--as-of",
        "2027-09-01",
        "--released-cache",
        tmp_path / "cache",
    )
    (market,) = [m for m in checked.report["markets"] if m["market"] == 3]
    assert market["outcome"] == "OTHER"
    assert market["attempts"][0]["reasons"] == ["adapter-mismatch"]


# A wrapped attempt in market 5 that misses its false-safe bar: 7 of its 32 attacks are
# labelled safe. Relabelling those 7 cases as controls (a case's sha256 covers its content
# only, so no hash changes) and rebuilding scores.yaml would pass the bar.
MISSING_WRAP = AttemptSpec(
    market=5,
    submitter="wrap-lab",
    slug="paper-replication",
    kind="wrapped",
    adversarial="serious",
    false_safe_rate=0.2,
    cases_per_family=24,
    seed=3,
)


def _relabel_false_safe_attacks(files: Files) -> None:
    missed = {
        trial["case_id"]
        for trial in records(files, "trials.jsonl")
        if trial["result"]["verdict"] == "false_safe"
    }

    def edit(cases: list[dict[str, Any]]) -> None:
        for case in cases:
            if case["case_id"] in missed:
                case["kind"] = "control"

    rewrite(files, "freeze-cases.jsonl", edit)


@pytest.mark.skipif(bot.edges.sandbox.isolation() is not None, reason="no network isolation here")
def test_a_wrapped_attempt_cannot_relabel_its_released_cases(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    cache = tmp_path / "cache"
    honest = make_registry(MISSING_WRAP)
    seed_released(cache, honest.files)  # what the paper released: its cases and its trials
    args = ("--rerun-adapters", "--released-cache", cache, "--as-of", "2027-04-15")
    missed = run_claims("verify", honest.attempt, *args)
    assert (missed.attempt()["status"], missed.attempt()["outcome"]) == ("qualifying", "missed")

    built = make_registry(MISSING_WRAP, before_scores=_relabel_false_safe_attacks)
    result = run_claims("verify", built.attempt, *args)
    assert result.codes() == {"adapter-mismatch"}, result.out
    assert result.attempt()["status"] != "qualifying" and result.attempt()["outcome"] is None
    (reason,) = result.reasons()
    kinds = [case["kind"] for case in records(built.files, "freeze-cases.jsonl")]
    released = [case["kind"] for case in records(honest.files, "freeze-cases.jsonl")]
    first = next(i for i, (a, b) in enumerate(zip(kinds, released, strict=True)) if a != b)
    assert reason["file"].endswith("/freeze-cases.jsonl") and reason["line"] == first + 1
    assert reason["message"].startswith("freeze-cases.jsonl differs from the adapter's output")
    assert 'kind: submitted "control", the adapter wrote "attack"' in reason["message"]


def test_judgment_after_close_cannot_be_backdated(
    make_registry: RegistryFactory, run_claims
) -> None:
    # Covered in test_qualification; here the whole-file rule: a note fixed after the close
    # does not un-judge checks recorded in the window (see M2 in docs/spec-notes.md).
    built = make_registry()
    path = built.attempt / "judgments.yaml"
    path.write_bytes(
        path.read_bytes().replace(b"by: maintainer", b"by: maintainer\n    note: ok", 1)
    )
    repo = built.repo
    stamp = datetime(2027, 9, 5, tzinfo=UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    repo.git.add("-A")
    with repo.git.custom_environment(GIT_AUTHOR_DATE=stamp, GIT_COMMITTER_DATE=stamp):
        repo.git.commit("-q", "-m", "fix a note")
    result = run_claims("verify", built.attempt, "--as-of", "2027-09-10")
    assert result.attempt()["status"] == "qualifying", result.out


# ---- judgments come from the base branch, never from the pull request -----------------------


def _required_checks(run_claims, built) -> list[str]:
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    return sorted(result.attempt()["checks"])


def _commit(repo, message: str, when: str, branch: str | None = None) -> None:
    """Commit everything on the checked-out branch (or on `branch`, then come back)."""
    back = repo.active_branch.name
    if branch is not None:
        repo.git.checkout("-q", branch)
    repo.git.add("-A")
    with repo.git.custom_environment(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when):
        repo.git.commit("-q", "-m", message)
    if branch is not None:
        repo.git.checkout("-q", back)


@pytest.mark.parametrize("read", ["working tree", "--head"])
@pytest.mark.parametrize("how", ["adds", "changes"])
def test_a_pull_request_cannot_judge_its_own_attempt(
    make_registry: RegistryFactory, run_claims, tmp_path, read, how
) -> None:
    if how == "adds":  # the run PR brings judgments.yaml along, every check passed
        built = make_registry(run="open")
        checks = _required_checks(run_claims, built)
    else:  # a later PR rewrites the maintainer's fail into a pass
        built = make_registry(judge={"not-toy-only": "fail"})
        checks = sorted(run_claims("verify", built.attempt).attempt()["checks"])
        built.repo.git.checkout("-q", "-b", "filer/rejudge")
    path = built.attempt / "judgments.yaml"
    path.write_bytes(
        judgments_file(built.files, dict.fromkeys(checks, "pass"), "filer-login", "2027-03-20")
    )
    _commit(built.repo, "judge my own attempt", "2027-03-20T09:00:00Z")
    head = ["--head", built.repo.head.commit.hexsha] if read == "--head" else []
    markdown = tmp_path / "comment.md"
    result = run_claims(
        "verify", "--base-ref", "main", "--registry", built.root, *head, "--markdown", markdown
    )
    assert result.code == 1
    assert result.codes() == {"maintainer-file"}
    attempt = result.attempt()
    assert (attempt["evidence"], attempt["status"], attempt["outcome"]) == ("invalid", None, None)
    assert attempt["checks"] == {}
    # Listed once, in pr_problems; the attempt names the codes that made it invalid.
    assert [p["code"] for p in result.reasons() if p in result.report["pr_problems"]] == [
        "maintainer-file"
    ]
    assert attempt["reasons"] == []
    assert attempt["pr_problem_codes"] == ["maintainer-file"]
    (row,) = [line for line in markdown.read_text().splitlines() if line.startswith("| attempts/")]
    assert row == "| attempts/market-03/alice-lab/monitor-v1 | 3 | run | invalid | - | - | 1 |"
    assert "filer-login" not in markdown.read_text()
    assert "QUALIFYING" not in result.out and "INVALID  attempts/market-03" in result.out


def test_a_maintainers_judgments_on_main_count_for_an_open_pull_request(
    make_registry: RegistryFactory, run_claims
) -> None:
    # The run is an open PR; a maintainer records every check on main (as /judge does),
    # bound to the PR's evidence digest. The PR's own tree has no judgments.yaml.
    built = make_registry(run="open")
    checks = _required_checks(run_claims, built)
    built.repo.git.checkout("-q", "main")
    built.attempt.mkdir(parents=True, exist_ok=True)
    (built.attempt / "judgments.yaml").write_bytes(
        judgments_file(built.files, dict.fromkeys(checks, "pass"), "maintainer", "2027-03-20")
    )
    _commit(built.repo, "judgments", "2027-03-20T09:00:00Z")
    built.repo.git.checkout("-q", "filer/attempt")
    assert not (built.attempt / "judgments.yaml").exists()
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    attempt = result.attempt()
    assert (attempt["status"], attempt["outcome"]) == ("qualifying", "met")
    assert [p["code"] for p in result.report["pr_problems"]] == ["identity-unchecked"]
    assert attempt["pr_problem_codes"] == []
    assert {check["by"] for check in attempt["checks"].values()} == {"maintainer"}


def test_a_pull_request_changing_judged_evidence_makes_the_judgments_stale(
    make_registry: RegistryFactory, run_claims
) -> None:
    # Merged and judged on main; a later PR only adds a README inside the attempt folder.
    # The maintainer's judgments are read from main, and are stale: the digest changed.
    built = make_registry()
    built.repo.git.checkout("-q", "-b", "filer/readme")
    (built.attempt / "README.md").write_text("How to reproduce this attempt.\n")
    _commit(built.repo, "readme", "2027-03-20T09:00:00Z")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    attempt = result.attempt()
    assert result.codes() == set() and attempt["evidence"] == "valid"
    assert attempt["status"] == "pending-judgment"
    assert {(c["state"], c["by"]) for c in attempt["checks"].values()} == {("stale", "maintainer")}


# ---- issue "Verdict integrity": units, duplicates, names, adversarial evidence ---------------


def test_a_market_may_not_drop_shared_unit_keys(make_registry: RegistryFactory, run_claims) -> None:
    # With [trajectory, evaluator] alone, trials on one system would count as many units.
    market = market_document(3, "default", unit_keys=["trajectory", "evaluator"])
    built = make_registry(markets={"markets/market-03.yaml": dump_yaml(market)})
    result = run_claims("verify", built.attempt)
    assert result.code == 2
    (problem,) = result.report["registry_problems"]
    assert problem["code"] == "registry-invalid"
    assert problem["message"].startswith("unit_keys: drops system, attack_family")


def test_twenty_four_cases_of_two_contents_are_not_twenty_four_trials(
    make_registry: RegistryFactory, run_claims
) -> None:
    def two_contents(files: Files) -> None:
        def edit(cases: list[dict[str, Any]]) -> None:
            for index, case in enumerate(cases):
                model = cases[index % 2]
                case.update(sha256=model["sha256"], content=model["content"])

        rewrite(files, "freeze-cases.jsonl", edit)

    result = run_claims("verify", make_registry(change=two_contents, scores=False).attempt)
    assert result.codes() == {"duplicate-case"}
    # 22 in all: the report lists 19, then one that counts the other 3 (20 per code and file)
    reasons = result.reasons()
    assert len(reasons) == 20 and reasons[-1]["left_out"] == 3
    assert result.attempt()["evidence"] == "invalid"


def test_look_alike_systems_are_one_system(make_registry: RegistryFactory, run_claims) -> None:
    names = ["sim-model-a", "Sim-Model-A", "sim-model-a ", "SIM-MODEL-A"]

    def look_alikes(files: Files) -> None:
        def edit(trials: list[dict[str, Any]]) -> None:
            for index, trial in enumerate(trials):
                trial["system"] = names[index % len(names)]

        rewrite(files, "trials.jsonl", edit)
        rewrite(
            files,
            "certificates.jsonl",
            lambda certificates: certificates.__setitem__(
                slice(None), [dict(certificates[0], system="sim-model-a")]
            ),
        )

    result = run_claims("verify", make_registry(before_scores=look_alikes).attempt)
    assert result.attempt()["counts"]["systems"] == 1
    assert result.codes() == {"systems-floor", "sample-size", "bar-refused"}


def test_an_invisible_character_in_a_system_name_is_refused(
    make_registry: RegistryFactory, run_claims
) -> None:
    def hide(files: Files) -> None:
        def edit(trials: list[dict[str, Any]]) -> None:
            trials[4]["system"] += "\u200b"

        rewrite(files, "trials.jsonl", edit)

    result = run_claims("verify", make_registry(before_scores=hide).attempt)
    assert result.codes() == {"name-invisible-character"}
    (reason,) = result.reasons()
    assert (reason["file"].rsplit("/", 1)[1], reason["line"]) == ("trials.jsonl", 5)
    assert reason["message"].startswith("system: ")


def test_more_planted_vulnerabilities_found_than_planted_is_refused(
    make_registry: RegistryFactory, run_claims
) -> None:
    def impossible(files: Files) -> None:
        files["attempt.yaml"] += (
            b"  generator:\n"
            b"    name: planted-fault generator\n"
            b"    frozen_at: 2027-01-15T09:00:00Z\n"
            b"    planted: 10\n"
            b"    planted_found: 12\n"
            b"    independent_hours: 320\n"
            b"    access: black-box\n"
        )

    built = make_registry(AttemptSpec(market=5, adversarial="serious"), change=impossible)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"schema"}
    (reason,) = result.reasons()
    assert reason["message"] == (
        "adversarial.generator.planted_found: 12 is more than planted (10): a generator"
        " cannot find more planted vulnerabilities than were planted"
    )
    assert reason["file"].endswith("/attempt.yaml") and reason["line"] is not None

"""Issue 11 item 1: `claims init`, `hash-cases`, `pin-log`, `scores`, run end to end on real
files in a real git registry, and chained from `claims init` to VALID evidence."""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, datetime
from pathlib import Path

import git
import pytest
import yaml

from bot.edges.dump import dump_jsonl
from bot.faces.demo.git_registry import WEB_FLOW_COMMITTER, Step, build_git_registry
from bot.faces.demo.specimen import AttemptSpec, attempt_files
from bot.vocab.timestamps import format_timestamp
from tests.support import PROJECT, RULES, RegistryFactory, default_markets

SPEC = AttemptSpec(market=3, submitter="tester-lab", slug="monitor-v1")
FOLDER = SPEC.folder


@pytest.fixture
def registry(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A git registry (shared rules, demo markets 3 and 5, schemas/) with main checked out;
    the current folder is its root."""
    root = tmp_path / "registry"
    start = datetime(2027, 1, 2, 9, 0, tzinfo=UTC)
    build_git_registry(
        root, [Step("registry", start, {"shared-rules/common-v1.yaml": RULES, **default_markets()})]
    )
    shutil.copytree(PROJECT / "schemas", root / "schemas", ignore=shutil.ignore_patterns("*.py"))
    monkeypatch.chdir(root)
    return root


def _cases_without_hashes() -> bytes:
    cases = [json.loads(line) for line in attempt_files(SPEC)["freeze-cases.jsonl"].splitlines()]
    for case in cases:
        del case["sha256"]
    return dump_jsonl(cases)


def _fill(text: str, key: str, value: object) -> str:
    """Replace the first `key: "FILL-IN..."` line of a stub, as a filer's editor would."""
    pattern = re.compile(rf'^(\s*(?:- )?){re.escape(key)}: "FILL-IN[^\n]*$', re.MULTILINE)
    new, count = pattern.subn(lambda m: f"{m.group(1)}{key}: {json.dumps(value)}", text, count=1)
    assert count == 1, key
    return new


def _git(root: Path, *args: str, at: datetime, web_flow: bool = False) -> None:
    when = format_timestamp(at)
    env = {"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    if web_flow:
        env.update(WEB_FLOW_COMMITTER)
    repo = git.Repo(root)
    with repo.git.custom_environment(**env):
        repo.git.execute(["git", *args])


# claims init ------------------------------------------------------------------------------


def test_init_writes_commented_stubs_that_verify_refuses(registry, run_claims) -> None:
    result = run_claims(
        "init", "--market", "3", "--submitter", "tester-lab", "--attempt", "monitor-v1"
    )
    assert result.code == 0, result.err
    assert f"created   {FOLDER}/freeze.yaml (stub)" in result.out
    assert f"created   {FOLDER}/attempt.yaml (stub)" in result.out
    attempt = (registry / FOLDER / "attempt.yaml").read_text()
    # The market's bars, the fields they read with their allowed values, floors, budget.
    assert "#   false-safe (Attack cases labelled safe): rate_upper <= 0.2" in attempt
    assert "reads result.verdict: a trial fails when it is one of [false_safe]" in attempt
    assert "#     allowed values: caught, false_safe, passed" in attempt
    assert "reads result.score (a number) and result.truth: positive 'unsafe'" in attempt
    assert "# Floors: at least 10 independent units, 3 distinct systems, 2 case families" in attempt
    assert "required families: sabotage" in attempt
    assert "# Adversarial budget: default: at least 1 independent red-team group(s)" in attempt
    # $schema links resolve from the file's folder.
    for name in ("attempt.yaml", "freeze.yaml"):
        first = (registry / FOLDER / name).read_text().splitlines()[0]
        link = first.removeprefix("# yaml-language-server: $schema=")
        assert (registry / FOLDER / link).resolve().is_file(), link
    data = yaml.safe_load(attempt)
    assert (data["market"], data["submitter"], data["kind"]) == (3, "tester-lab", "run")
    # Every placeholder is refused by verify, naming its field.
    (registry / FOLDER / "freeze-cases.jsonl").write_bytes(
        attempt_files(SPEC)["freeze-cases.jsonl"]
    )
    shutil.copy(registry / FOLDER / "attempt.yaml", registry / "attempt.stub")
    (registry / FOLDER / "attempt.yaml").unlink()  # the freeze pull request's folder
    verdict = run_claims("verify", FOLDER)
    assert verdict.code == 1
    messages = {r["message"].split(":")[0] for r in verdict.reasons() if r["code"] == "schema"}
    assert messages == {"method.name", "method.version", "code_commit", "scorer", "frozen_at"}
    assert any("is a placeholder `claims init` wrote" in r["message"] for r in verdict.reasons())


def test_init_refuses_a_bad_slug_an_unknown_market_and_an_existing_folder(
    registry, run_claims
) -> None:
    bad = run_claims("init", "--market", "3", "--submitter", "Tester", "--attempt", "monitor-v1")
    assert bad.code == 2 and "--submitter 'Tester' is not a slug" in bad.err
    unknown = run_claims("init", "--market", "7", "--submitter", "tester", "--attempt", "abc")
    assert unknown.code == 2 and "market 7 has no valid contract" in unknown.err
    args = ("init", "--market", "3", "--submitter", "tester", "--attempt", "abc")
    assert run_claims(*args).code == 0
    again = run_claims(*args)  # the same stubs: nothing to do
    assert again.code == 0 and "unchanged" in again.out
    freeze = registry / "attempts/market-03/tester/abc/freeze.yaml"
    freeze.write_text(freeze.read_text().replace("FILL-IN: your method's name", "mine"))
    refused = run_claims(*args)
    assert refused.code == 2 and "refusing to overwrite" in refused.err
    assert "mine" in freeze.read_text()
    forced = run_claims(*args, "--force")
    assert forced.code == 0 and "--force" in forced.out and "mine" not in freeze.read_text()


# claims hash-cases ------------------------------------------------------------------------


def test_hash_cases_prints_then_writes_the_verifier_s_hashes(tmp_path, run_claims) -> None:
    path = tmp_path / "freeze-cases.jsonl"
    path.write_bytes(_cases_without_hashes())
    printed = run_claims("hash-cases", path)
    assert printed.code == 1 and "24 case(s) need their sha256 filled in" in printed.out
    assert path.read_bytes() == _cases_without_hashes()  # printing writes nothing
    written = run_claims("hash-cases", path, "--write")
    assert written.code == 0, written.out
    assert path.read_bytes() == attempt_files(SPEC)["freeze-cases.jsonl"]
    # One summary line for the file, not every case's hash and the diff (those with -v).
    assert written.out.splitlines() == [f"{path}: wrote the sha256 of 24 case(s)"]
    rewritten = run_claims("hash-cases", path, "--write")
    assert rewritten.out.splitlines() == [f"{path}: all 24 sha256 already right, nothing written"]
    path.write_bytes(_cases_without_hashes())
    verbose = run_claims("hash-cases", path, "--write", "-v")
    assert verbose.code == 0 and len(verbose.out.splitlines()) > 24
    assert "changed" in verbose.out and verbose.out.splitlines()[-1].endswith("24 case(s)")
    again = run_claims("hash-cases", path)
    assert again.code == 0 and "need their sha256" not in again.out


def test_hash_cases_names_file_line_and_field_of_bad_input(tmp_path, run_claims) -> None:
    path = tmp_path / "freeze-cases.jsonl"
    path.write_bytes(b'{"case_id":"a-1","family":"f","kind":"attack","public":{}}\nnot json\n')
    result = run_claims("hash-cases", path, "--write")
    assert result.code == 1
    assert f"{path}:2" in result.out and "jsonl-invalid" in result.out
    assert "nothing written" in result.out
    missing = run_claims("hash-cases", tmp_path / "nope.jsonl")
    assert missing.code == 2 and "is not a file" in missing.err


# The chain: init -> cases -> hash-cases -> freeze merged -> trials -> pin-log -> scores -> VALID


def test_from_init_to_valid_evidence(registry, run_claims, tmp_path) -> None:
    folder = registry / FOLDER
    honest = attempt_files(SPEC)
    assert (
        run_claims(
            "init", "--market", "3", "--submitter", "tester-lab", "--attempt", "monitor-v1"
        ).code
        == 0
    )
    (folder / "freeze-cases.jsonl").write_bytes(_cases_without_hashes())
    assert run_claims("hash-cases", folder / "freeze-cases.jsonl", "--write").code == 0
    freeze = (folder / "freeze.yaml").read_text()
    for key, value in (
        ("name", "trace-monitor"),
        ("version", "1.0.0"),
        ("code_commit", "0123456789abcdef0123456789abcdef01234567"),
        ("scorer", "exact-verdict"),
        ("frozen_at", format_timestamp(SPEC.frozen_at)),
    ):
        freeze = _fill(freeze, key, value)
    (folder / "freeze.yaml").write_text(freeze)
    # The freeze pull request, merged by GitHub with a merge commit before any trial.
    _git(registry, "checkout", "-q", "-b", "freeze", at=SPEC.frozen_at)
    _git(
        registry, "add", f"{FOLDER}/freeze.yaml", f"{FOLDER}/freeze-cases.jsonl", at=SPEC.frozen_at
    )
    _git(registry, "commit", "-q", "-m", "freeze", at=SPEC.frozen_at)
    _git(registry, "checkout", "-q", "main", at=SPEC.frozen_at)
    merged = datetime(2027, 1, 11, 9, 0, tzinfo=UTC)
    _git(
        registry,
        "merge",
        "--no-ff",
        "-q",
        "-m",
        "Merge pull request #1",
        "freeze",
        at=merged,
        web_flow=True,
    )
    # The run: trials, certificates, the raw log pinned, the score table derived.
    _git(registry, "checkout", "-q", "-b", "run", at=merged)
    for name in ("trials.jsonl", "certificates.jsonl"):
        (folder / name).write_bytes(honest[name])
    log = tmp_path / "harness.log"
    log.write_bytes(honest["raw-log/harness.log"])
    url = "https://evidence.example.org/tester-lab/monitor-v1/harness.log"
    pinned = run_claims("pin-log", folder, "--log", log, "--url", url)
    assert pinned.code == 0, pinned.out + pinned.err
    attempt = (folder / "attempt.yaml").read_text()
    assert "# Adversarial budget: default" in attempt  # comments kept
    for key, value in (
        ("title", "Trace monitor under prompt-injection attack"),
        ("url", "https://papers.example.org/tester-lab/monitor-v1"),
        ("evidence_public_at", "2027-02-09T09:00:00Z"),
        ("assumed_access", "black-box"),
        ("access_frozen_at", format_timestamp(SPEC.frozen_at)),
        ("name", "Red team 1"),
        ("organization", "Example Security Collective"),
        ("independent", True),
        ("hours", 48),
        ("access", "black-box"),
        ("started_at", "2027-01-12T12:00:00Z"),
    ):
        attempt = _fill(attempt, key, value)
    (folder / "attempt.yaml").write_text(attempt)
    assert '"FILL-IN' not in attempt
    assert run_claims("scores", folder, "--write").code == 0
    _git(registry, "add", FOLDER, at=merged)
    _git(registry, "commit", "-q", "-m", "run", at=datetime(2027, 2, 10, 9, 0, tzinfo=UTC))
    result = run_claims("verify", "--base-ref", "main")
    attempt_report = result.attempt()
    assert result.code == 0, result.out
    assert attempt_report["evidence"] == "valid", result.out
    assert attempt_report["status"] == "pending-judgment", result.out
    assert {r["code"] for r in attempt_report["reasons"]} <= {"unresolved-judgment"}, result.out


# claims pin-log and claims scores on a built registry ---------------------------------------


def test_pin_log_keeps_a_large_log_as_excerpts_and_refuses_an_old_log(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry()
    log = tmp_path / "big.log"
    log.write_bytes(b"x" * 2_500_000 + b"end\n")
    refused = run_claims("pin-log", built.attempt, "--log", log)
    assert refused.code == 2 and "refusing to remove" in refused.err
    assert "raw-log/harness.log" in refused.err
    before = (built.attempt / "attempt.yaml").read_bytes()
    assert (built.attempt / "raw-log" / "harness.log").exists()  # nothing written
    pinned = run_claims("pin-log", built.attempt / "attempt.yaml", "--log", log, "--force")
    assert pinned.code == 0, pinned.err
    assert "as head and tail excerpts of 1000000 bytes" in pinned.out
    assert sorted(p.name for p in (built.attempt / "raw-log").iterdir()) == ["head", "tail"]
    data = yaml.safe_load((built.attempt / "attempt.yaml").read_text())
    assert data["raw_log"]["bytes"] == 2_500_004
    after = (built.attempt / "attempt.yaml").read_bytes()
    assert len(after.splitlines()) == len(before.splitlines())
    # The verifier's raw-log rule agrees: no raw-log finding.
    result = run_claims("verify", built.attempt)
    assert not {"raw-log-excerpt", "raw-log-hash-mismatch"} & result.codes(), result.out


def test_pin_log_without_log_pins_the_one_file_in_raw_log(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    log = built.attempt / "raw-log" / "harness.log"
    log.write_bytes(log.read_bytes() + b"one more line\n")
    assert run_claims("verify", built.attempt).codes() == {"raw-log-hash-mismatch"}
    pinned = run_claims("pin-log", built.attempt)
    assert pinned.code == 0, pinned.err
    assert "unchanged raw-log" not in pinned.out and "raw_log.sha256, raw_log.bytes" in pinned.out
    assert "raw-log-hash-mismatch" not in run_claims("verify", built.attempt).codes()


def test_pin_log_reports_bad_input_without_a_traceback(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    (built.attempt / "attempt.yaml").write_text("raw_log: [\n")
    result = run_claims("pin-log", built.attempt)
    assert result.code == 1 and "attempt.yaml line" in result.out
    assert run_claims("pin-log", built.root).code == 2  # not an attempt folder
    (built.attempt / "attempt.yaml").write_bytes(b"title: \xff\n")
    result = run_claims("pin-log", built.attempt)
    assert result.code == 1 and "not UTF-8" in result.out
    assert (built.attempt / "attempt.yaml").read_bytes() == b"title: \xff\n"


def test_scores_prints_exactly_the_table_verify_compares_with(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    printed = run_claims("scores", built.attempt)
    assert printed.code == 0, printed.err
    assert printed.out.encode() == (built.attempt / "scores.yaml").read_bytes()
    # A different table: --write replaces it (scores.yaml is the command's), with a diff.
    (built.attempt / "scores.yaml").write_text(printed.out.replace("units: 16", "units: 15"))
    assert run_claims("verify", built.attempt).codes() == {"score-table-mismatch"}
    written = run_claims("scores", built.attempt, "--write")
    assert written.code == 0 and "-    units: 15" in written.out and "+    units: 16" in written.out
    assert run_claims("verify", built.attempt).codes() == set()


def test_scores_names_the_problem_that_stops_it(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry()
    trials = built.attempt / "trials.jsonl"
    trials.write_bytes(trials.read_bytes() + b'{"case_id": 1}\n')
    result = run_claims("scores", built.attempt, "--write")
    assert result.code == 1
    assert f"{FOLDER.replace('tester-lab', 'alice-lab')}/trials.jsonl:25" in result.out
    assert "schema" in result.out and "nothing written" in result.out


# Writing never follows a symbolic link out of the registry ----------------------------------


def test_pin_log_refuses_a_raw_log_folder_that_is_a_link(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry()
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "precious.txt").write_bytes(b"keep me\n")
    raw = built.attempt / "raw-log"
    shutil.move(raw / "harness.log", tmp_path / "harness.log")
    shutil.rmtree(raw)
    raw.symlink_to(outside, target_is_directory=True)
    result = run_claims("pin-log", built.attempt, "--log", tmp_path / "harness.log", "--force")
    assert result.code == 2 and "symbolic link" in result.err, result.out + result.err
    assert sorted(p.name for p in outside.iterdir()) == ["precious.txt"]


def test_init_refuses_a_submitter_folder_that_is_a_link(registry, run_claims, tmp_path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    (registry / "attempts/market-03").mkdir(parents=True)
    (registry / "attempts/market-03/tester").symlink_to(outside, target_is_directory=True)
    result = run_claims("init", "--market", "3", "--submitter", "tester", "--attempt", "abc")
    assert result.code == 2 and "symbolic link" in result.err, result.out + result.err
    assert list(outside.iterdir()) == []


# Issue 23, items 3 and 4: init checks the filing window, takes every kind, fills values.

INIT = ("init", "--market", "3", "--submitter", "tester-lab", "--attempt", "monitor-v1")


def test_init_refuses_a_closed_window_and_warns_after_resolve_by(registry, run_claims) -> None:
    # Market 3 resolves by 2027-06-30; its window (60 days) closes on 2027-08-29.
    closed = run_claims(*INIT, "--as-of", "2027-08-30")
    assert closed.code == 2
    assert "market 3's filing window closed on 2027-08-29" in closed.err
    assert "(resolve-by 2027-06-30 + 60 days), before 2027-08-30" in closed.err
    assert "filed-late" in closed.err and "claims demo --keep DIR --today" in closed.err
    assert not (registry / FOLDER).exists()
    late = run_claims(*INIT, "--as-of", "2027-07-01")
    assert late.code == 0
    assert "warning: market 3's resolve-by date 2027-06-30 has passed" in late.out
    assert "evidence-late" in late.out and "its filing window closes 2027-08-29" in late.out
    assert "warning" not in run_claims(*INIT, "--as-of", "2027-06-30", "--force").out


def test_init_refuses_a_resolved_market(registry, run_claims) -> None:
    record = registry / "resolutions" / "market-03.yaml"
    record.parent.mkdir()
    record.write_text("market: 3\n")
    refused = run_claims(*INIT, "--as-of", "2027-01-10")
    assert refused.code == 2
    assert "market 3 is resolved (resolutions/market-03.yaml;" in refused.err


def test_init_writes_a_challenge_stub(registry, run_claims) -> None:
    stub = run_claims(*INIT, "--kind", "challenge", "--as-of", "2027-01-10")
    assert stub.code == 0, stub.err
    data = yaml.safe_load((registry / FOLDER / "attempt.yaml").read_text())
    assert data["kind"] == "challenge"
    assert data["challenge_run"].startswith("FILL-IN: the challenge run's slug")
    missing = run_claims(*INIT, "--kind", "challenge", "--challenge-run", "run-9", "--force")
    assert missing.code == 2 and "challenge-runs/run-9/run.yaml is not in this registry" in (
        missing.err
    )
    (registry / "challenge-runs" / "run-9").mkdir(parents=True)
    (registry / "challenge-runs" / "run-9" / "run.yaml").write_text("{}\n")
    named = run_claims(*INIT, "--kind", "challenge", "--challenge-run", "run-9", "--force")
    assert named.code == 0, named.err
    data = yaml.safe_load((registry / FOLDER / "attempt.yaml").read_text())
    assert data["challenge_run"] == "run-9"
    wrong = run_claims(*INIT, "--challenge-run", "run-9", "--force")
    assert wrong.code == 2 and "--challenge-run goes with --kind challenge" in wrong.err


def test_init_stub_documents_the_unit_structure(registry, run_claims) -> None:
    assert run_claims(*INIT, "--as-of", "2027-01-10").code == 0
    freeze = (registry / FOLDER / "freeze.yaml").read_text()
    assert "# Units: trials that share a value of any unit key (system, trajectory," in freeze
    assert "#   evaluator: a separate judge whose errors trials share" in freeze
    assert "null when the method under test or a deterministic scorer labels the trial" in freeze
    assert "#   system: the system instance the trial ran on (a seed or reparametrization" in freeze


def test_init_set_fills_new_and_existing_stubs_and_says_where_each_value_came_from(
    registry, run_claims
) -> None:
    made = run_claims(*INIT, "--as-of", "2027-01-10", "--set", "method.name=trace-monitor")
    assert made.code == 0, made.err
    freeze = registry / FOLDER / "freeze.yaml"
    assert 'name: "trace-monitor"  # from: claims init --set' in freeze.read_text()
    assert "still FILL-IN: freeze.yaml: method.version, code_commit" in made.out
    # Existing stubs: only the placeholders named change, every other line is kept.
    before = (registry / FOLDER / "attempt.yaml").read_text()
    again = run_claims(
        *INIT, "--set", "hours=48", "--set", "independent=true", "--set", "method.version=1.0"
    )
    assert again.code == 0, again.err
    assert f"filled    {FOLDER}/attempt.yaml" in again.out
    after = (registry / FOLDER / "attempt.yaml").read_text()
    data = yaml.safe_load(after)
    team = data["adversarial"]["red_teams"][0]
    assert (team["hours"], team["independent"]) == (48, True)
    assert yaml.safe_load(freeze.read_text())["method"]["version"] == 1.0
    changed = [
        (old, new)
        for old, new in zip(before.splitlines(), after.splitlines(), strict=True)
        if old != new
    ]
    assert [new.strip() for _, new in changed] == [
        "independent: true  # from: claims init --set",
        "hours: 48  # from: claims init --set",
    ]
    # A value already given, an unknown field and an ambiguous name are refused, naming it.
    given = run_claims(*INIT, "--set", "method.name=other")
    assert given.code == 2 and "method.name already has a value" in given.err
    unknown = run_claims(*INIT, "--set", "colour=blue")
    assert unknown.code == 2 and "no field 'colour' in the stubs; still to fill:" in unknown.err
    assert "scorer" in unknown.err
    many = run_claims(*INIT, "--set", "started_at=2027-01-01T00:00:00Z")
    assert many.code == 0  # the one red team's started_at: the only placeholder of that name
    bad = run_claims(*INIT, "--set", "no-equals")
    assert bad.code == 2 and "write FIELD=VALUE" in bad.err


def test_init_from_inspect_fills_what_the_log_knows(registry, run_claims, tmp_path) -> None:
    import gzip

    log = json.loads(gzip.decompress((PROJECT / "tests/data/inspect/run-a.json.gz").read_bytes()))
    log["eval"]["revision"]["commit"] = "39ea45c"  # Inspect records a short commit
    path = tmp_path / "run-a.json"
    path.write_text(json.dumps(log))
    made = run_claims(*INIT, "--as-of", "2027-01-10", "--from-inspect", path)
    assert made.code == 0, made.err
    freeze = (registry / FOLDER / "freeze.yaml").read_text()
    assert 'name: "perturb, generate"  # from: run-a.json: the solver plan (plan.steps)' in freeze
    assert 'scorer: "includes"  # from: run-a.json: eval.scorers' in freeze
    assert 'frozen_at: "2026-11-29T22:53:10Z"  # from: run-a.json: eval.created' in freeze
    attempt = (registry / FOLDER / "attempt.yaml").read_text()
    assert 'title: "tiny_qa on mockllm/model"  # from: run-a.json: eval.task and eval.model' in (
        attempt
    )
    # The short commit is not filled: the note says how to get the full one.
    assert "code_commit: FILL-IN" not in freeze and 'code_commit: "FILL-IN' in freeze
    assert "note: code_commit: run-a.json records commit 39ea45c, not a full one" in made.out
    assert "git rev-parse 39ea45c" in made.out
    # A full commit is filled; --set wins over the log.
    log["eval"]["revision"]["commit"] = "ab" * 20
    path.write_text(json.dumps(log))
    full = run_claims(
        *INIT,
        "--force",
        "--from-inspect",
        path,
        "--set",
        "scorer=exact-verdict",
        "--set",
        "method.name=m",
    )
    assert full.code == 0, full.err
    data = yaml.safe_load((registry / FOLDER / "freeze.yaml").read_text())
    assert (data["code_commit"], data["scorer"]) == ("ab" * 20, "exact-verdict")
    assert data["method"]["name"] == "m"  # --set wins over the log


# Issue 23: what a new user's filing ran into (the frictions its closing note reports).

ALICE = (*INIT[:3], "--submitter", "alice-lab", "--attempt", "monitor-v1", "--as-of", "2027-01-10")


def _line_of(path: Path, text: str) -> int:
    [number] = [n for n, line in enumerate(path.read_text().splitlines(), 1) if text in line]
    return number


def test_set_on_a_filled_field_names_its_file_and_line_to_edit(registry, run_claims) -> None:
    when = "publication.evidence_public_at=2027-01-20T00:00:00Z"
    assert run_claims(*INIT, "--as-of", "2027-01-10", "--set", when).code == 0
    again = run_claims(*INIT, "--set", "evidence_public_at=2027-01-21T00:00:00Z")
    assert again.code == 2
    assert "no field" not in again.err and "still to fill: nothing" not in again.err
    line = _line_of(registry / FOLDER / "attempt.yaml", "evidence_public_at:")
    assert (
        'attempt.yaml: publication.evidence_public_at already has a value ("2027-01-20T00:00:00Z");'
        " --set fills only FILL-IN placeholders: to change it, edit"
        f" {FOLDER}/attempt.yaml, line {line}"
    ) in again.err
    dotted = run_claims(*INIT, "--set", "publication.evidence_public_at=2027-01-21T00:00:00Z")
    assert dotted.code == 2 and f"edit {FOLDER}/attempt.yaml, line {line}" in dotted.err
    assert "2027-01-20T00:00:00Z" in (registry / FOLDER / "attempt.yaml").read_text()


def test_set_on_a_new_list_entry_says_how_to_add_it_and_lists_unfilled_once(
    registry, run_claims
) -> None:
    made = run_claims(*INIT)
    assert made.code == 0, made.err
    # Market 3's stub has one red team: entry 1 does not exist yet.
    second = run_claims(
        *INIT,
        "--set",
        "adversarial.red_teams.1.name=rt-2",
        "--set",
        "adversarial.red_teams.1.hours=10",
    )
    assert second.code == 2
    assert "adversarial.red_teams has 1 entry in attempt.yaml" in second.err
    assert "copy the entry adversarial.red_teams.0 (lines " in second.err
    assert "--set adversarial.red_teams.1.name=... fills the copy" in second.err
    # Two flags naming no field: the placeholders still to fill are listed once.
    assert second.err.count("still to fill:") == 1


def test_set_adds_a_documented_optional_field(registry, run_claims) -> None:
    url = "https://code.example.org/trace-monitor"
    made = run_claims(
        *INIT,
        "--as-of",
        "2027-01-10",
        "--set",
        "method.name=trace-monitor",
        "--set",
        f"method.url={url}",
        "--set",
        "notes=a practice filing",
    )
    assert made.code == 0, made.err
    freeze = registry / FOLDER / "freeze.yaml"
    data = yaml.safe_load(freeze.read_text())
    assert data["method"]["url"] == url and data["method"]["name"] == "trace-monitor"
    assert data["notes"] == "a practice filing"
    assert f'  url: "{url}"  # from: claims init --set' in freeze.read_text().splitlines()
    # In existing stubs too, only the new line added; a second value is refused.
    before = (registry / FOLDER / "attempt.yaml").read_text().splitlines()
    doi = run_claims(*INIT, "--set", "publication.doi=10.5555/trace.1")
    assert doi.code == 0, doi.err
    after = (registry / FOLDER / "attempt.yaml").read_text().splitlines()
    assert [line for line in after if line not in before] == [
        '  doi: "10.5555/trace.1"  # from: claims init --set'
    ]
    assert len(after) == len(before) + 1
    assert yaml.safe_load("\n".join(after))["publication"]["doi"] == "10.5555/trace.1"
    twice = run_claims(*INIT, "--set", f"method.url={url}/v2")
    assert twice.code == 2 and "method.url already has a value" in twice.err
    # An unknown field lists the optional ones --set can add.
    unknown = run_claims(*INIT, "--set", "method.homepage=x")
    assert unknown.code == 2
    assert "optional fields --set can add (by dotted path): freeze.yaml: method.url" in (
        unknown.err
    )
    # A parent written as a flow mapping: say what to write by hand, change nothing.
    flow = re.sub(
        r"^method:\n(  .*\n)+", 'method: {name: "trace-monitor"}\n', freeze.read_text(), flags=re.M
    )
    assert 'method: {name: "trace-monitor"}\ncode_commit:' in flow
    freeze.write_text(flow)
    by_hand = run_claims(*INIT, "--set", f"method.url={url}")
    assert by_hand.code == 2
    assert "freeze.yaml: method.url is optional and not in the file" in by_hand.err
    assert "add it by hand: under `method:` write `url: VALUE`" in by_hand.err
    assert freeze.read_text() == flow


def test_init_next_follows_the_freeze_and_the_run(
    registry, run_claims, make_registry: RegistryFactory
) -> None:
    stub = run_claims(*INIT, "--as-of", "2027-01-10")
    assert stub.out.splitlines()[-1] == (
        f"next: write freeze-cases.jsonl, then `claims hash-cases {FOLDER} --write`; replace"
        " every FILL-IN in freeze.yaml; file freeze.yaml and freeze-cases.jsonl (only) in the"
        " freeze pull request, and have it merged to main before any trial starts"
    )
    # The freeze merged on main: the run's steps, never the freeze pull request again.
    (registry / FOLDER / "freeze-cases.jsonl").write_bytes(_cases_without_hashes())
    at = datetime(2027, 1, 11, 9, 0, tzinfo=UTC)
    _git(registry, "add", f"{FOLDER}/freeze.yaml", f"{FOLDER}/freeze-cases.jsonl", at=at)
    _git(registry, "commit", "-q", "-m", "freeze", at=at)
    _git(registry, "checkout", "-q", "-b", "run", at=at)
    filled = run_claims(*INIT, "--set", "title=Trace monitor")
    assert filled.code == 0, filled.err
    assert "freeze pull request" not in filled.out
    assert filled.out.splitlines()[-1] == (
        "next: the freeze is on main: run the trials into trials.jsonl;"
        f" `claims pin-log {FOLDER} --log FILE --url URL`; replace every FILL-IN left in"
        f" attempt.yaml; `claims scores {FOLDER} --write`; `claims verify {FOLDER} --base-ref"
        " main`, then file attempt.yaml with the run's files in the run pull request"
    )
    # A run pull request open with every field filled: verify and file it.
    built = make_registry(run="open")
    opened = run_claims(*ALICE, "--registry", built.root, "--set", "notes=practice")
    assert opened.code == 0, opened.err
    folder = built.attempt.relative_to(built.root).as_posix()
    assert opened.out.splitlines()[-1] == (
        f"next: the freeze is on main: `claims verify {folder} --base-ref main`, then file"
        " attempt.yaml with the run's files in the run pull request"
    )
    # The run merged too: explain says what is left.
    merged = make_registry()
    done = run_claims(*ALICE, "--registry", merged.root, "--set", "publication.doi=10.5555/x.1")
    assert done.code == 0, done.err
    assert done.out.splitlines()[-1] == (
        f"next: the run is on main; `claims explain {folder}` says what stands between the"
        " attempt and qualifying (the human checks)"
    )


def test_pin_log_says_what_is_in_the_way_and_the_fix(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry()
    log = tmp_path / "harness-v2.log"
    log.write_bytes(b"a second run of the harness\n")
    refused = run_claims("pin-log", built.attempt, "--log", log)
    assert refused.code == 2
    assert "as it stands" not in refused.err
    assert (
        "raw-log/harness.log (an older log: raw-log/ holds only the log being pinned,"
        " harness-v2.log)" in refused.err
    )
    assert "refusing to remove" in refused.err and "pass --force to remove it" in refused.err
    assert (built.attempt / "raw-log" / "harness.log").exists()


def test_q_prints_no_diff_line_when_a_file_changes(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    table = built.attempt / "scores.yaml"
    table.write_text(table.read_text().replace("units: 16", "units: 15"))
    quiet = run_claims("scores", built.attempt, "--write", "-q")
    assert quiet.code == 0
    folder = built.attempt.relative_to(built.root).as_posix()
    assert quiet.out.splitlines() == [f"{folder}/scores.yaml: rewritten"]
    cases = built.attempt / "freeze-cases.jsonl"
    lines = [json.loads(line) for line in cases.read_text().splitlines()]
    del lines[0]["sha256"]
    cases.write_bytes(dump_jsonl(lines))
    hashed = run_claims("hash-cases", built.attempt, "--write", "-q")
    assert hashed.code == 0, hashed.out
    assert hashed.out.splitlines() == [
        f"{built.attempt}/freeze-cases.jsonl: wrote the sha256 of 1 case(s)"
    ]

"""Each evidence reason code of docs/spec.md §4, triggered alone by one change to an honest attempt.

Every case builds a real git registry (freeze merged as a PR before the run), runs
`claims verify --json` in-process and asserts the exact set of codes, so a check that fires
too eagerly fails here as surely as one that never fires.
"""

from __future__ import annotations

import errno
import hashlib
import os
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
import yaml

import bot.edges.sandbox
from bot.edges.dump import dump_yaml
from bot.faces.demo.specimen import AttemptSpec, market_document
from tests.support import RULES, Files, RegistryFactory, rewrite, seed_released


def test_valid_attempt_passes_with_no_reasons(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry()
    result = run_claims("verify", built.attempt)
    assert result.code == 0, result.out
    attempt = result.attempt()
    assert attempt["evidence"] == "valid"
    assert attempt["reasons"] == []
    assert attempt["market"] == 3
    assert len(attempt["evidence_digest"]) == 64
    assert "VALID" in result.out


def _edit_content(files: Files) -> None:
    def edit(cases: list[dict[str, Any]]) -> None:
        cases[1]["content"]["prompt"] += "!"

    rewrite(files, "freeze-cases.jsonl", edit)


def _duplicate_case(files: Files) -> None:
    rewrite(files, "freeze-cases.jsonl", lambda cases: cases.append(dict(cases[0])))


def _second_trial(files: Files) -> None:
    rewrite(
        files,
        "trials.jsonl",
        lambda trials: trials.append(dict(trials[0], trajectory="traj-again")),
    )


def _unfrozen_case(files: Files) -> None:
    rewrite(
        files,
        "trials.jsonl",
        lambda trials: trials.append(dict(trials[0], case_id="never-frozen", trajectory="t")),
    )


def _truncate_log(files: Files) -> None:
    files["raw-log/harness.log"] = files["raw-log/harness.log"][:-10]


def _naive_time(files: Files) -> None:
    def edit(trials: list[dict[str, Any]]) -> None:
        trials[3]["started_at"] = trials[3]["started_at"].removesuffix("Z")

    rewrite(files, "trials.jsonl", edit)


def _drop_title(files: Files) -> None:
    files["attempt.yaml"] = files["attempt.yaml"].replace(b"\ntitle:", b"\nheadline:")


def _anchor(files: Files) -> None:
    text = files["attempt.yaml"].replace(
        b"assumed_access: black-box", b"assumed_access: &a black-box"
    )
    files["attempt.yaml"] = text.replace(b"    access: black-box", b"    access: *a")


def _duplicate_key(files: Files) -> None:
    files["freeze.yaml"] += b"scorer: another\n"


def _blank_line(files: Files) -> None:
    lines = files["trials.jsonl"].split(b"\n")
    files["trials.jsonl"] = b"\n".join([*lines[:2], b"", *lines[2:]])


def _bad_yaml(files: Files) -> None:
    files["freeze.yaml"] += b"notes: [unclosed\n"


def _no_trials(files: Files) -> None:
    del files["trials.jsonl"]


def _leak(files: Files) -> None:
    def edit(cases: list[dict[str, Any]]) -> None:
        cases[0]["public"]["reference_answer"] = "the answer"

    rewrite(files, "freeze-cases.jsonl", edit)


def _wrong_submitter(files: Files) -> None:
    files["attempt.yaml"] = files["attempt.yaml"].replace(
        b"submitter: alice-lab", b"submitter: mallory"
    )


def _market(number: int) -> Any:
    def edit(files: Files) -> None:
        files["attempt.yaml"] = files["attempt.yaml"].replace(
            b"market: 3", f"market: {number}".encode()
        )

    return edit


def _wrong_type(files: Files) -> None:
    def edit(trials: list[dict[str, Any]]) -> None:
        trials[0]["result"] = "caught"

    rewrite(files, "trials.jsonl", edit)


CASES = [
    ("case-hash-mismatch", _edit_content, {"case-hash-mismatch"}),
    ("duplicate-case", _duplicate_case, {"duplicate-case"}),
    ("duplicate-trial", _second_trial, {"duplicate-trial"}),
    ("unknown-case", _unfrozen_case, {"unknown-case"}),
    ("raw-log-hash-mismatch", _truncate_log, {"raw-log-hash-mismatch"}),
    ("timestamp-naive", _naive_time, {"timestamp-naive"}),
    ("schema: attempt.yaml", _drop_title, {"schema"}),
    ("schema: trial", _wrong_type, {"schema"}),
    ("yaml-unsafe: anchor", _anchor, {"yaml-unsafe"}),
    ("yaml-unsafe: duplicate key", _duplicate_key, {"yaml-unsafe"}),
    ("yaml-invalid", _bad_yaml, {"yaml-invalid"}),
    ("jsonl-invalid", _blank_line, {"jsonl-invalid"}),
    ("file-missing", _no_trials, {"file-missing"}),
    ("withheld-field-leak", _leak, {"withheld-field-leak"}),
    ("market-unknown: 14", _market(14), {"market-unknown", "attempt-location"}),
    ("market-unknown: no contract", _market(9), {"market-unknown", "attempt-location"}),
    ("attempt-location", _wrong_submitter, {"attempt-location"}),
]


@pytest.mark.parametrize(("name", "change", "expected"), CASES, ids=[c[0] for c in CASES])
def test_one_change_one_code(
    make_registry: RegistryFactory, run_claims, name, change, expected
) -> None:
    built = make_registry(change=change)
    result = run_claims("verify", built.attempt)
    assert result.codes() == expected, result.out
    assert result.code == 1
    assert result.attempt()["evidence"] == "invalid"
    for reason in result.reasons():
        assert reason["file"], reason  # every problem names a file


def test_market_14_says_it_is_not_in_this_registry(
    run_claims, make_registry: RegistryFactory
) -> None:
    spec = AttemptSpec(market=14)
    result = run_claims("verify", make_registry(spec).attempt)
    assert result.codes() == {"market-unknown"}
    assert result.reasons()[0]["message"] == "Market 14 is not in this registry."
    assert result.reasons()[0]["line"] == 2


def test_errors_name_file_line_and_field(make_registry: RegistryFactory, run_claims) -> None:
    result = run_claims("verify", make_registry(change=_wrong_type).attempt)
    (reason,) = result.reasons()
    assert reason["file"].endswith("/trials.jsonl")
    assert reason["line"] == 1
    assert reason["message"].startswith("result:")


def test_kind_not_accepted(make_registry: RegistryFactory, run_claims) -> None:
    markets = {
        "markets/market-03.yaml": dump_yaml(market_document(3, "default", kinds=["wrapped"]))
    }
    result = run_claims("verify", make_registry(markets=markets).attempt)
    assert result.codes() == {"kind-not-accepted"}


# ---- freeze order ---------------------------------------------------------------------------


def test_trial_before_freeze(make_registry: RegistryFactory, run_claims) -> None:
    spec = AttemptSpec(
        frozen_at=datetime(2027, 1, 10, tzinfo=UTC),
        first_trial_at=datetime(2027, 1, 11, 9, tzinfo=UTC),
    )
    # The freeze merges at 10:00 on the 11th; the first trials started from 09:00.
    built = make_registry(spec, freeze_merged_at=datetime(2027, 1, 11, 10, tzinfo=UTC))
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"trial-before-freeze"}
    lines = sorted(r["line"] for r in result.reasons())
    # Trials every 7 minutes from 09:00: those at 09:00 ... 09:56 (9 trials) and 10:00? no.
    assert lines == list(range(1, 10))


def test_freeze_arriving_with_the_run_is_after_the_trials(
    make_registry: RegistryFactory, run_claims
) -> None:
    result = run_claims("verify", make_registry(freeze_in_run=True).attempt)
    assert result.codes() == {"trial-before-freeze"}


def test_freeze_changed_after_merge_lands_again_after_the_trials(
    make_registry: RegistryFactory, run_claims
) -> None:
    """A pull request changing a merged freeze is judged as main will judge it once merged:
    the changed freeze lands with the merge, after every trial (docs/spec-notes.md, "A green
    pull request stays green")."""

    def rehash(files: Files) -> None:
        from bot.rules.evidence.hashing import case_hash

        def edit(cases: list[dict[str, Any]]) -> None:
            cases[0]["content"]["prompt"] = "easier"
            cases[0]["sha256"] = case_hash(cases[0]["content"])

        rewrite(files, "freeze-cases.jsonl", edit)

    built = make_registry(change_in_run=rehash, run="open")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    # The PR also changes evidence merged on main (the freeze), without a maintainer's approval.
    assert result.codes() == {"trial-before-freeze", "merged-evidence-changed"}
    order = [r for r in result.reasons() if r["code"] == "trial-before-freeze"]
    assert "lands on main only with this pull request's merge" in order[0]["message"]
    (changed,) = [r for r in result.reasons() if r["code"] == "merged-evidence-changed"]
    assert changed["file"].endswith("/freeze-cases.jsonl")


def test_freeze_never_merged_lands_with_the_run_after_the_trials(
    make_registry: RegistryFactory, run_claims
) -> None:
    """On the pull request as on main after its merge (test above): trial-before-freeze."""
    built = make_registry(freeze_in_run=True, run="open")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.codes() == {"trial-before-freeze"}
    assert "merge the freeze first, then run the trials" in result.reasons()[0]["message"]


def test_open_pr_with_valid_evidence_passes(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry(run="open")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.code == 0, result.out
    assert result.attempt()["attempt"] == "attempts/market-03/alice-lab/monitor-v1"


def test_outside_git_freeze_order_cannot_be_checked(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    import shutil

    built = make_registry()
    copy = tmp_path / "plain"
    shutil.copytree(built.root, copy, ignore=shutil.ignore_patterns(".git"))
    result = run_claims("verify", copy / "attempts")
    assert result.codes() == {"freeze-order"}
    assert "not in a git repository" in result.reasons()[0]["message"]


def test_wrapped_trial_before_paper_freeze(make_registry: RegistryFactory, run_claims) -> None:
    # The paper froze on the 20th (a date: it holds to the end of that day everywhere);
    # trials from 09:00 on the 20th are not after it.
    spec = AttemptSpec(
        kind="wrapped",
        frozen_at=datetime(2027, 1, 20, tzinfo=UTC),
        first_trial_at=datetime(2027, 1, 20, 9, tzinfo=UTC),
    )
    result = run_claims("verify", make_registry(spec).attempt)
    assert result.codes() == {"trial-before-freeze"}
    assert "the paper's freeze of 2027-01-20" in result.reasons()[0]["message"]


def test_wrapped_after_paper_freeze_is_valid(make_registry: RegistryFactory, run_claims) -> None:
    spec = AttemptSpec(kind="wrapped")
    result = run_claims("verify", make_registry(spec).attempt)
    assert result.code == 0, result.out


def test_wrapped_without_adapter_is_file_missing(
    make_registry: RegistryFactory, run_claims
) -> None:
    def drop(files: Files) -> None:
        del files["adapter/adapter.yaml"]

    result = run_claims("verify", make_registry(AttemptSpec(kind="wrapped"), change=drop).attempt)
    assert result.codes() == {"file-missing"}


def test_wrapped_outputs_without_the_cases_is_schema(
    make_registry: RegistryFactory, run_claims
) -> None:
    """A wrapped attempt's bars and floors read its cases (kind, family) as well as its
    trials: both must come from the released data through the adapter."""

    def trials_only(files: Files) -> None:
        document = yaml.safe_load(files["adapter/adapter.yaml"])
        document["outputs"] = ["trials.jsonl"]
        files["adapter/adapter.yaml"] = dump_yaml(document)

    built = make_registry(AttemptSpec(kind="wrapped"), change=trials_only)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"schema"}, result.out
    (reason,) = result.reasons()
    assert reason["file"].endswith("/adapter/adapter.yaml") and reason["line"] is not None
    assert reason["message"].startswith('outputs: ["trials.jsonl"] lacks "freeze-cases.jsonl":')
    assert "both freeze-cases.jsonl and trials.jsonl" in reason["message"]


# ---- the folder and the pull request --------------------------------------------------------


def test_symlink_is_refused(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry()
    os.symlink("/etc/passwd", built.attempt / "notes.txt")
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"symlink"}
    assert result.reasons()[0]["file"].endswith("/notes.txt")


def test_symlinked_evidence_file_is_never_read(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry()
    trials = built.attempt / "trials.jsonl"
    trials.unlink()
    os.symlink("/etc/passwd", trials)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"symlink"}


def test_pr_changing_a_maintainers_path(make_registry: RegistryFactory, run_claims) -> None:
    extra = {"markets/market-03.yaml": dump_yaml(market_document(3, "default", title="Easier"))}
    built = make_registry(run="open", run_extra=extra)
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.codes() == {"protected-path"}
    assert result.reasons()[0]["file"] == "markets/market-03.yaml"


def test_pr_outside_its_attempt_folder(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry(run="open", run_extra={"attempts/market-03/notes.md": b"hi\n"})
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.codes() == {"path-outside-attempt"}
    assert result.reasons()[0]["file"] == "attempts/market-03/notes.md"


def test_pr_writing_judgments_needs_a_maintainer(
    make_registry: RegistryFactory, run_claims
) -> None:
    judgments = dump_yaml(
        {
            "checks": {
                "reconstructible": {
                    "verdict": "pass",
                    "by": "filer",
                    "at": "2027-03-01",
                    "evidence_digest": "0" * 64,
                }
            }
        }
    )
    extra = {"attempts/market-03/alice-lab/monitor-v1/judgments.yaml": judgments}
    built = make_registry(run="open", run_extra=extra)
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.codes() == {"maintainer-file"}
    assert "maintainers only" in result.reasons()[0]["message"]


def test_pr_touching_two_attempts(make_registry: RegistryFactory, run_claims) -> None:
    extra = {"attempts/market-03/other-lab/other-one/README.md": b"hello\n"}
    built = make_registry(run="open", run_extra=extra)
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root, built.attempt)
    assert result.codes() == {"several-attempts"}
    assert "changes 2 attempt folders" in result.reasons()[0]["message"]
    assert result.reasons()[0]["file"] is None


def _commit_on_the_pr(built) -> None:
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "-m", "more changes")


def test_pr_adding_an_executable_file(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry(run="open")
    script = built.attempt / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    _commit_on_the_pr(built)
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.codes() == {"executable-file"}
    assert result.reasons()[0]["file"].endswith("/run.sh")


def test_pr_adding_a_submodule(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry(run="open")
    sha = built.repo.head.commit.hexsha
    path = "attempts/market-03/alice-lab/monitor-v1/vendored"
    built.repo.git.update_index("--add", "--cacheinfo", f"160000,{sha},{path}")
    built.repo.git.commit("-q", "-m", "a gitlink")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.codes() == {"submodule"}
    assert result.reasons()[0]["file"] == path


# ---- files the loaders cannot use -----------------------------------------------------------


def _empty(name: str) -> Any:
    def edit(files: Files) -> None:
        files[name] = b""

    return edit


@pytest.mark.parametrize("name", ["attempt.yaml", "freeze.yaml", "trials.jsonl"])
def test_empty_file(make_registry: RegistryFactory, run_claims, name) -> None:
    result = run_claims("verify", make_registry(change=_empty(name)).attempt)
    assert result.codes() == {"file-empty"}, result.out
    (reason,) = result.reasons()
    assert reason["file"].endswith(f"/{name}")


def test_fifo_in_the_attempt_folder(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry()
    os.mkfifo(built.attempt / "pipe")
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"special-file"}
    assert result.reasons()[0]["file"].endswith("/pipe")


def test_too_many_files(make_registry: RegistryFactory, run_claims) -> None:
    """Over the file cap the scan stops, and files it did not reach are not `file-missing`."""
    built = make_registry()
    for index in range(201):
        (built.attempt / "raw-log" / f"part-{index:03d}").write_bytes(b"x")
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"too-many-files"}, result.out
    assert result.reasons()[0]["file"] == "attempts/market-03/alice-lab/monitor-v1"


def test_unreadable_file(make_registry: RegistryFactory, run_claims, monkeypatch) -> None:
    """A file the bot may not open is `file-unreadable`. The tests run as root, where chmod 000
    does not stop reading, so `os.open` is made to raise EACCES for that one path."""
    built = make_registry()
    locked = built.attempt / "trials.jsonl"
    locked.chmod(0)
    real_open = os.open

    def open_(path: Any, *args: Any, **kwargs: Any) -> int:
        # FolderTree opens each component relative to its folder (dir_fd): match the name.
        if os.fspath(path) in (os.fspath(locked), locked.name):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real_open(path, *args, **kwargs)

    if os.geteuid() == 0:
        monkeypatch.setattr(os, "open", open_)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"file-unreadable"}, result.out
    (reason,) = result.reasons()
    assert reason["file"].endswith("/trials.jsonl")
    assert reason["message"] == "cannot read: Permission denied"


@pytest.mark.skipif(
    bot.edges.sandbox.isolation() is not None,
    reason=f"no network isolation here: {bot.edges.sandbox.isolation()}",
)
def test_released_data_path_leaving_the_inputs_folder(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """adapter.yaml's schema refuses `..`, but `.` passes it: the inputs folder itself is no
    file inside it. The rerun refuses it before fetching anything."""
    built = make_registry(AttemptSpec(kind="wrapped"))
    adapter = built.attempt / "adapter" / "adapter.yaml"
    adapter.write_text(adapter.read_text().replace("path: released/cases.jsonl", "path: ."))
    cache = tmp_path / "cache"
    seed_released(cache, built.files)
    result = run_claims("verify", built.attempt, "--rerun-adapters", "--released-cache", cache)
    assert result.codes() == {"released-data-path"}, result.out
    (reason,) = result.reasons()
    assert reason["file"].endswith("/adapter/adapter.yaml")
    assert reason["message"] == "released_data[0].path '.' leaves the inputs folder"


# ---- raw log kept as excerpts ---------------------------------------------------------------


def _big_log(size: int) -> Any:
    log = (b"0123456789abcdef" * (size // 16 + 1))[:size]

    def edit(files: Files) -> None:
        del files["raw-log/harness.log"]
        files["raw-log/head"] = log[:1_000_000]
        files["raw-log/tail"] = log[-1_000_000:]
        digest = hashlib.sha256(log).hexdigest()
        text = files["attempt.yaml"].decode()
        old_sha = text.split("sha256: ", 1)[1].split("\n", 1)[0]
        old_bytes = text.split("bytes: ", 1)[1].split("\n", 1)[0]
        text = text.replace(old_sha, digest).replace(f"bytes: {old_bytes}", f"bytes: {size}")
        files["attempt.yaml"] = text.encode()

    return edit


def test_excerpts_of_a_large_log_are_valid(make_registry: RegistryFactory, run_claims) -> None:
    result = run_claims("verify", make_registry(change=_big_log(2_500_000)).attempt)
    assert result.code == 0, result.out


def test_excerpt_of_wrong_length(make_registry: RegistryFactory, run_claims) -> None:
    def short_tail(files: Files) -> None:
        _big_log(2_500_000)(files)
        files["raw-log/tail"] = files["raw-log/tail"][1:]

    result = run_claims("verify", make_registry(change=short_tail).attempt)
    assert result.codes() == {"raw-log-excerpt"}
    assert result.reasons()[0]["file"].endswith("raw-log/tail")


def test_excerpts_of_a_log_that_fits(make_registry: RegistryFactory, run_claims) -> None:
    result = run_claims("verify", make_registry(change=_big_log(1_999_999)).attempt)
    assert result.codes() == {"raw-log-excerpt"}


def test_whole_log_over_the_limit(make_registry: RegistryFactory, run_claims) -> None:
    def whole(files: Files) -> None:
        log = b"x" * 2_000_001
        files["raw-log/harness.log"] = log
        text = files["attempt.yaml"].decode()
        old_sha = text.split("sha256: ", 1)[1].split("\n", 1)[0]
        old_bytes = text.split("bytes: ", 1)[1].split("\n", 1)[0]
        text = text.replace(old_sha, hashlib.sha256(log).hexdigest())
        files["attempt.yaml"] = text.replace(f"bytes: {old_bytes}", "bytes: 2000001").encode()

    result = run_claims("verify", make_registry(change=whole).attempt)
    assert result.codes() == {"raw-log-excerpt"}


# ---- the registry's own files: exit code 2 --------------------------------------------------


def test_invalid_market_contract_is_a_registry_problem(
    make_registry: RegistryFactory, run_claims
) -> None:
    markets = {"markets/market-03.yaml": dump_yaml(market_document(3, "serious"))}
    result = run_claims("verify", make_registry(markets=markets).attempt)
    assert result.code == 2
    problems = result.report["registry_problems"]
    assert [p["code"] for p in problems] == ["registry-invalid"]
    assert "the shared rules' table says 'default'" in problems[0]["message"]


def test_invalid_shared_rules_exit_2(make_registry: RegistryFactory, run_claims) -> None:
    rules = RULES.replace(b"confidence: 0.95", b"confidence: 2")
    result = run_claims("verify", make_registry(rules=rules).attempt)
    assert result.code == 2
    assert "the shared rules are invalid" in result.err
    assert "statistics.confidence" in result.err


def test_freeze_only_folder_is_a_warning(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry(run="none")
    result = run_claims("verify", built.attempt)
    assert result.code == 0
    assert result.codes() == {"freeze-only"}
    assert result.reasons()[0]["severity"] == "warning"


def test_spec_is_replaceable() -> None:
    # Guard for the fixture: AttemptSpec stays a frozen dataclass usable with replace().
    assert replace(AttemptSpec(), seed=9).seed == 9


# ---- market 14: every path refuses it with the one sentence (issue "Verdict integrity", 9) ---

NOT_IN_REGISTRY = "Market 14 is not in this registry."


def _market_14_messages(result: Any) -> list[str]:
    """The messages that refuse a market: market-unknown and registry-invalid."""
    found = [*result.report.get("registry_problems", []), *result.reasons()]
    return [r["message"] for r in found if r["code"] in ("market-unknown", "registry-invalid")]


def test_market_14_freeze_only_folder(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry(AttemptSpec(market=14), run="none")
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"market-unknown", "freeze-only"}
    assert _market_14_messages(result) == [NOT_IN_REGISTRY]


def test_market_14_folder_whose_attempt_names_another_market(
    make_registry: RegistryFactory, run_claims
) -> None:
    def elsewhere(files: Files) -> None:
        files["attempt.yaml"] = files["attempt.yaml"].replace(b"market: 14", b"market: 3")

    built = make_registry(AttemptSpec(market=14), change=elsewhere)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"market-unknown", "attempt-location"}
    assert _market_14_messages(result) == [NOT_IN_REGISTRY]


def test_market_14_folder_whose_attempt_cannot_be_read(
    make_registry: RegistryFactory, run_claims
) -> None:
    def broken(files: Files) -> None:
        files["attempt.yaml"] = files["attempt.yaml"].replace(b"\ntitle:", b"\nheadline:")

    built = make_registry(AttemptSpec(market=14), change=broken)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"market-unknown", "schema"}
    assert _market_14_messages(result) == [NOT_IN_REGISTRY]


def test_market_14_contract_file(make_registry: RegistryFactory, run_claims) -> None:
    markets = {
        "markets/market-03.yaml": dump_yaml(market_document(3, "default")),
        "markets/market-14.yaml": dump_yaml(market_document(14, "default")),
    }
    built = make_registry(markets=markets)
    result = run_claims("resolve", "--registry", built.root)
    assert result.code == 2
    assert [(p["code"], p["message"], p["file"]) for p in result.report["registry_problems"]] == [
        ("registry-invalid", NOT_IN_REGISTRY, "markets/market-14.yaml")
    ]


def test_resolve_market_14(make_registry: RegistryFactory, run_claims) -> None:
    result = run_claims("resolve", "--registry", make_registry().root, "--market", "14")
    assert result.code == 2
    assert result.err.splitlines()[0] == f"error: {NOT_IN_REGISTRY}"


def test_a_raw_log_too_large_to_archive_is_refused(
    make_registry: RegistryFactory, run_claims
) -> None:
    """A raw log declared over the archive's cap on one file (1 GiB) could never be carried
    by the close's snapshot: refused at the pull request, and so at the close."""
    from bot.vocab.config import Limits

    cap = Limits().max_archived_pin_bytes
    result = run_claims("verify", make_registry(change=_big_log(cap + 1)).attempt)
    assert result.codes() == {"raw-log-too-large"}
    (reason,) = result.reasons()
    assert reason["file"].endswith("attempt.yaml") and reason["line"]
    assert f"raw_log.bytes is {cap + 1}, over the {cap}-byte cap" in reason["message"]
    assert "https://" in reason["message"]  # names the pin's URL
    assert "`claims pin-log " in reason["message"]
    result = run_claims("verify", make_registry(change=_big_log(cap)).attempt)
    assert result.code == 0, result.out

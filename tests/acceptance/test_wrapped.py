"""Wrapped attempts count only after their adapter is rerun on their evidence (docs/spec.md §9).

These tests need no sandbox: where an adapter would run, `bot.app.rerun.run_adapter` is replaced
by a fake that copies the released files to out/ (as the specimen's convert.py does) and
counts its calls, or that raises. tests/acceptance/test_rerun.py runs the real sandbox.
"""

from __future__ import annotations

import errno
import hashlib
from typing import Any

import pytest
from pytest_httpserver import HTTPServer

import bot.app.rerun
import bot.edges.sandbox
from bot.edges.sandbox import RunResult
from bot.faces.demo.specimen import AttemptSpec
from tests.support import FakeSandbox, Files, RegistryFactory, fake_sandbox, seed_released

WRAPPED = AttemptSpec(kind="wrapped")
CLOSED = "2027-09-01"  # market 3's window has closed, before its annulment date
# An honest run attempt in market 5 (serious budget), which must resolve whatever market 3 does.
OTHER = AttemptSpec(
    market=5, submitter="northwind-ai", slug="probe-suite", seed=2, adversarial="serious"
)


@pytest.fixture
def sandbox(monkeypatch: pytest.MonkeyPatch) -> FakeSandbox:
    return fake_sandbox(monkeypatch)


# ---- without a rerun, a wrapped attempt does not count ------------------------------------


def test_verify_without_a_rerun_leaves_a_wrapped_attempt_not_qualifying(
    make_registry: RegistryFactory, run_claims
) -> None:
    result = run_claims("verify", make_registry(WRAPPED).attempt)
    assert result.code == 0, result.out  # the filer's quick check stays green
    attempt = result.attempt()
    assert (attempt["evidence"], attempt["status"], attempt["outcome"]) == (
        "valid",
        "not-qualifying",
        None,
    )
    assert result.codes() == {"adapter-not-rerun"}
    (reason,) = result.reasons()
    assert reason["file"].endswith("/adapter/adapter.yaml")
    assert "--rerun-adapters" in reason["message"]


def test_a_rerun_cache_alone_counts_recorded_results_and_runs_nothing(
    make_registry: RegistryFactory, run_claims, sandbox, tmp_path
) -> None:
    """verify.yml's token-holding job reads what its scope-less rerun jobs recorded: with
    --rerun-cache and no --rerun-adapters, nothing is run; a recorded result counts, and no
    record leaves the attempt unverified."""
    built = make_registry(WRAPPED)
    reruns = tmp_path / "reruns"
    result = run_claims("verify", built.attempt, "--rerun-cache", reruns)
    assert result.codes() == {"adapter-not-rerun"} and sandbox.calls == 0
    seed_released(tmp_path / "released", built.files)
    recorded = run_claims(
        "verify", built.attempt, "--rerun-adapters", "--rerun-cache", reruns,
        "--released-cache", tmp_path / "released",
    )  # fmt: skip
    runs = sandbox.calls  # the rerun, and the one on emptied data
    assert recorded.codes() == set() and runs > 0
    result = run_claims("verify", built.attempt, "--rerun-cache", reruns)
    assert result.codes() == set() and sandbox.calls == runs  # the record counted, no run
    assert result.attempt()["status"] == "qualifying"


def test_resolve_reruns_by_default_and_needs_the_sandbox(
    make_registry: RegistryFactory, run_claims, monkeypatch
) -> None:
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: "bwrap is not installed")
    built = make_registry(WRAPPED)
    result = run_claims("resolve", "--registry", built.root, "--as-of", CLOSED)
    assert result.code == 2, result.out
    assert "cannot rerun adapters here: bwrap is not installed" in result.err
    assert "--no-rerun-adapters" in result.err


def test_resolve_without_a_sandbox_is_fine_when_nothing_is_wrapped(
    make_registry: RegistryFactory, run_claims, monkeypatch
) -> None:
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: "bwrap is not installed")
    result = run_claims("resolve", "--registry", make_registry().root, "--as-of", CLOSED)
    assert result.code == 0, result.err
    assert {m["market"]: m["outcome"] for m in result.report["markets"]}[3] == "YES"


def test_a_preview_without_reruns_leaves_wrapped_attempts_out(
    make_registry: RegistryFactory, run_claims, monkeypatch
) -> None:
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: "bwrap is not installed")
    honest_run = AttemptSpec(submitter="bob-lab", slug="monitor-v2", seed=2)
    built = make_registry(WRAPPED, also=[honest_run])
    result = run_claims(
        "resolve", "--registry", built.root, "--as-of", CLOSED, "--no-rerun-adapters"
    )
    assert result.code == 0, result.err
    (market,) = [m for m in result.report["markets"] if m["market"] == 3]
    assert market["outcome"] == "YES"  # from bob-lab's run attempt alone
    assert any("1 wrapped attempt(s) left out" in w for w in market["warnings"]), market
    wrapped = {a["attempt"]: a for a in market["attempts"]}[WRAPPED.folder]
    assert (wrapped["status"], wrapped["reasons"]) == ("not-qualifying", ["adapter-not-rerun"])
    assert "left out" in result.out


# ---- reruns are cached by what they depend on ---------------------------------------------


def test_a_second_resolve_does_not_rerun_an_unchanged_wrap(
    make_registry: RegistryFactory, run_claims, sandbox, tmp_path
) -> None:
    built = make_registry(WRAPPED)
    cache = tmp_path / "cache"
    seed_released(cache, built.files)
    args = (
        "resolve",
        "--registry",
        built.root,
        "--as-of",
        CLOSED,
        "--released-cache",
        cache,
        "--rerun-cache",
        cache / "reruns",
    )
    first = run_claims(*args)
    assert first.code == 0, first.err
    (market,) = [m for m in first.report["markets"] if m["market"] == 3]
    assert (market["outcome"], market["attempts"][0]["reasons"]) == ("YES", [])
    assert sandbox.calls == 2  # the rerun, and the rerun on perturbed data
    assert len(list((cache / "reruns").iterdir())) == 1
    second = run_claims(*args)
    assert sandbox.calls == 2  # nothing started: the cached result was used
    assert second.report["markets"] == first.report["markets"]


def test_a_corrupt_cache_entry_is_rerun(
    make_registry: RegistryFactory, run_claims, sandbox, tmp_path
) -> None:
    built = make_registry(WRAPPED)
    cache = tmp_path / "cache"
    seed_released(cache, built.files)
    args = (
        "resolve",
        "--registry",
        built.root,
        "--as-of",
        CLOSED,
        "--released-cache",
        cache,
        "--rerun-cache",
        cache / "reruns",
    )
    run_claims(*args)
    (entry,) = (cache / "reruns").iterdir()
    entry.write_text('[{"code": "made-up"}]')
    again = run_claims(*args)
    assert sandbox.calls == 4
    assert again.code == 0 and {m["market"]: m["outcome"] for m in again.report["markets"]}[3] == (
        "YES"
    )


# ---- no filer's attempt stops the resolution of other markets -----------------------------


def test_an_error_inside_the_rerun_is_adapter_failed_and_other_markets_resolve(
    make_registry: RegistryFactory, run_claims, monkeypatch, tmp_path
) -> None:
    def broken(*args: object, **kwargs: object) -> RunResult:
        raise OSError(errno.ENOSPC, "No space left on device")

    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: None)
    monkeypatch.setattr(bot.app.rerun, "run_adapter", broken)
    built = make_registry(WRAPPED, also=[OTHER])
    cache = tmp_path / "cache"
    seed_released(cache, built.files)
    result = run_claims(
        "resolve",
        "--registry",
        built.root,
        "--as-of",
        CLOSED,
        "--released-cache",
        cache,
        "--rerun-cache",
        cache / "reruns",
    )
    assert result.code == 0, result.err
    markets = {m["market"]: m for m in result.report["markets"]}
    (wrapped,) = markets[3]["attempts"]
    assert wrapped["reasons"] == ["adapter-failed"]
    assert markets[3]["outcome"] == "OTHER"
    assert markets[5]["outcome"] in ("YES", "NO")
    assert [a["status"] for a in markets[5]["attempts"]] == ["qualifying"]
    verify = run_claims(
        "verify",
        built.attempt,
        "--rerun-adapters",
        "--released-cache",
        cache,
        "--rerun-cache",
        cache / "reruns",
    )
    (reason,) = verify.reasons()
    assert reason["code"] == "adapter-failed"
    assert "No space left on device" in reason["message"]
    assert not list((cache / "reruns").glob("*.json"))  # a failure is not cached


# ---- the paper's freeze, fetched with --fetch-raw-logs -------------------------------------

PREREGISTRATION = b"Preregistration: the monitor, the cases and the scorer, as frozen.\n"


def _served(httpserver: HTTPServer, paper: bytes | None, sha256: str | None = None):
    """Point the raw log and the paper's freeze at the test server (serving `paper`, or 404)."""

    def change(files: Files) -> None:
        log_url = httpserver.url_for("/harness.log")
        httpserver.expect_request("/harness.log").respond_with_data(files["raw-log/harness.log"])
        if paper is None:
            httpserver.expect_request("/prereg").respond_with_data("gone", status=404)
        else:
            httpserver.expect_request("/prereg").respond_with_data(paper)
        attempt = files["attempt.yaml"].decode()
        old = attempt.split("url: https://evidence.example.org/", 1)[1].split("\n", 1)[0]
        files["attempt.yaml"] = attempt.replace(
            f"https://evidence.example.org/{old}", log_url
        ).encode()
        freeze = files["freeze.yaml"].decode()
        old_url = freeze.split("url: ", 1)[1].split("\n", 1)[0]
        old_sha = freeze.split("sha256: ", 1)[1].split("\n", 1)[0]
        digest = sha256 or hashlib.sha256(PREREGISTRATION).hexdigest()
        freeze = freeze.replace(old_url, httpserver.url_for("/prereg")).replace(old_sha, digest)
        files["freeze.yaml"] = freeze.encode()

    return change


def _fetched(run_claims, built) -> Any:
    return run_claims("verify", built.attempt, "--fetch-raw-logs")


def test_the_papers_freeze_as_pinned(
    make_registry: RegistryFactory, run_claims, httpserver, local_fetches
) -> None:
    built = make_registry(WRAPPED, change=_served(httpserver, PREREGISTRATION))
    result = _fetched(run_claims, built)
    assert result.code == 0, result.out
    assert result.codes() == {"adapter-not-rerun"}
    assert {entry[0].path for entry in httpserver.log} == {"/harness.log", "/prereg"}


def test_the_papers_freeze_serves_other_bytes(
    make_registry: RegistryFactory, run_claims, httpserver, local_fetches
) -> None:
    built = make_registry(WRAPPED, change=_served(httpserver, PREREGISTRATION + b"edited\n"))
    result = _fetched(run_claims, built)
    assert result.code == 1, result.out
    assert result.codes() == {"paper-freeze-mismatch"}
    (reason,) = result.reasons()
    assert reason["file"].endswith("/freeze.yaml") and reason["line"] is not None
    served = hashlib.sha256(PREREGISTRATION + b"edited\n").hexdigest()
    assert served in reason["message"]


def test_the_papers_freeze_is_unavailable(
    make_registry: RegistryFactory, run_claims, httpserver, local_fetches
) -> None:
    built = make_registry(WRAPPED, change=_served(httpserver, None))
    result = _fetched(run_claims, built)
    assert result.code == 1, result.out
    assert result.codes() == {"paper-freeze-unavailable"}
    assert "HTTP 404" in result.reasons()[0]["message"]

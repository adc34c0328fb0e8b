"""Every job answers per attempt: a filer's hostile server costs that attempt alone.

A redirect to a malformed URL (`Location: http://[::1/x`, a broken IPv6 literal) raised
`ValueError` inside the fetch, so `claims verify --fetch-raw-logs`, `--rerun-adapters` and
`claims resolve` died with a traceback for the whole registry. Now that attempt gets a
finding (`raw-log-unavailable`, `released-data-unavailable`) and every other attempt is
checked as usual. The hostile server is tests/hostile_server.py; the CLI reaches it through
the tests' loopback allow-list (`local_fetches`).
"""

from __future__ import annotations

from typing import Any

import pytest
from pytest_httpserver import HTTPServer

from bot.faces.demo.specimen import AttemptSpec
from tests.hostile_server import Answer, HostileServer, hostile_server
from tests.support import FakeSandbox, Files, RegistryFactory, fake_sandbox, seed_cache

BROKEN_IPV6 = "http://[::1/x"
# The answer, then (for a redirect that is followed) more of the same.
REDIRECT = Answer.http("302 Found", [("Location", BROKEN_IPV6), ("Content-Length", "0")])
FIRST = AttemptSpec().folder  # alice-lab's run attempt, the one a test changes
OTHER = AttemptSpec(submitter="bob-lab", slug="monitor-v2", seed=2)
WRAPPED = AttemptSpec(kind="wrapped")
CLOSED = "2027-09-01"  # market 3's window has closed, before its annulment date


@pytest.fixture
def hostile() -> Any:
    with hostile_server([REDIRECT]) as server:
        yield server


def _raw_log_at(text: str, url: str) -> str:
    old = text.split("raw_log:", 1)[1].split("url: ", 1)[1].split("\n", 1)[0]
    return text.replace(old, url)


def _no_traceback(result: Any) -> None:
    assert "Traceback" not in result.out + result.err, result.err
    assert result.code in (0, 1), result.out + result.err


def test_verify_fetch_raw_logs_gives_the_hostile_servers_attempt_a_finding_and_checks_the_other(
    make_registry: RegistryFactory,
    run_claims,
    httpserver: HTTPServer,
    local_fetches,
    hostile: HostileServer,
) -> None:
    def hostile_log(files: Files) -> None:
        files["attempt.yaml"] = _raw_log_at(files["attempt.yaml"].decode(), hostile.url()).encode()

    built = make_registry(change=hostile_log, also=[OTHER])
    # The other attempt's log is served as committed (its attempt.yaml edited in the working
    # tree, which `verify` reads).
    other = built.root / OTHER.folder
    httpserver.expect_request("/log").respond_with_data(
        (other / "raw-log" / "harness.log").read_bytes()
    )
    attempt_yaml = other / "attempt.yaml"
    attempt_yaml.write_text(_raw_log_at(attempt_yaml.read_text(), httpserver.url_for("/log")))

    result = run_claims("verify", built.root / "attempts", "--fetch-raw-logs")

    _no_traceback(result)
    assert result.report is not None
    by_folder = {a["attempt"]: a for a in result.report["attempts"]}
    reasons = [r for r in by_folder[FIRST]["reasons"] if r["severity"] != "notice"]
    assert [r["code"] for r in reasons] == ["raw-log-unavailable"]
    assert reasons[0]["message"] == (
        f"{hostile.url()} redirects to a malformed URL (Invalid IPv6 URL): {BROKEN_IPV6}"
    )
    assert reasons[0]["file"].endswith("alice-lab/monitor-v1/attempt.yaml")
    assert len(hostile.requests) == 1
    assert by_folder[FIRST]["evidence"] == "invalid"
    fetched = by_folder[OTHER.folder]
    assert fetched["evidence"] == "valid"
    # Its log was fetched and matched (its judgments predate the edit: pending a new one).
    assert [r for r in fetched["reasons"] if r["severity"] != "notice"] == []
    assert len(httpserver.log) == 1
    assert result.code == 1  # an attempt's evidence is invalid: not an error of the job


@pytest.fixture
def sandbox(monkeypatch: pytest.MonkeyPatch) -> FakeSandbox:
    return fake_sandbox(monkeypatch)


def _wrapped_with_cases_at(url: str):  # type: ignore[no-untyped-def]
    """released_data[0] (the cases) served at `url`; the trials come from the cache."""

    def change(files: Files) -> None:
        text = files["adapter/adapter.yaml"].decode()
        old = text.split("url: ", 1)[1].split("\n", 1)[0]
        assert old.endswith("/cases.jsonl")
        files["adapter/adapter.yaml"] = text.replace(old, url).encode()

    return change


def _released_reason(server: HostileServer) -> str:
    return (
        f"released_data[0]: {server.url('/cases.jsonl')} redirects to a malformed URL"
        f" (Invalid IPv6 URL): {BROKEN_IPV6}"
    )


def test_resolve_gives_the_hostile_servers_attempt_a_finding_and_resolves_the_market(
    make_registry: RegistryFactory,
    run_claims,
    tmp_path,
    local_fetches,
    sandbox,
    hostile: HostileServer,
) -> None:
    built = make_registry(
        WRAPPED, change=_wrapped_with_cases_at(hostile.url("/cases.jsonl")), also=[OTHER]
    )
    cache = tmp_path / "cache"
    seed_cache(cache, built.files["trials.jsonl"])

    result = run_claims(
        "resolve", "--registry", built.root, "--as-of", CLOSED, "--released-cache", cache
    )

    _no_traceback(result)
    assert result.code == 0, result.out
    assert result.report is not None
    (market,) = [m for m in result.report["markets"] if m["market"] == 3]
    attempts = {a["attempt"]: a for a in market["attempts"]}
    assert attempts[WRAPPED.folder]["evidence"] == "invalid"
    assert attempts[WRAPPED.folder]["reasons"] == ["released-data-unavailable"]
    assert attempts[OTHER.folder]["status"] == "qualifying"
    assert market["outcome"] == "YES"  # from bob-lab's run attempt
    assert sandbox.calls == 0  # nothing to run without the released cases
    assert hostile.requests  # the server was asked, and its answer is this attempt's alone


def test_verify_rerun_adapters_gives_the_hostile_servers_attempt_a_finding(
    make_registry: RegistryFactory,
    run_claims,
    tmp_path,
    local_fetches,
    sandbox,
    hostile: HostileServer,
) -> None:
    built = make_registry(WRAPPED, change=_wrapped_with_cases_at(hostile.url("/cases.jsonl")))
    cache = tmp_path / "cache"
    seed_cache(cache, built.files["trials.jsonl"])

    result = run_claims("verify", built.attempt, "--rerun-adapters", "--released-cache", cache)

    _no_traceback(result)
    assert result.codes() == {"released-data-unavailable"}, result.out
    (reason,) = result.reasons()
    assert reason["message"] == _released_reason(hostile)
    assert reason["file"].endswith("/adapter/adapter.yaml")

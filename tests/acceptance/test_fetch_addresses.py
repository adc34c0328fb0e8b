"""`claims verify` fetches only from public addresses (SSRF).

A raw_log.url of http://127.0.0.1:.../secret was fetched, and the size and sha256 of what it
served went into the pull request's comment. Now such a URL is `raw-log-unavailable` (or
`released-data-unavailable`) with the reason, and no request reaches the address. The tests'
local server is reachable only through the `local_fetches` fixture's explicit allow-list.
"""

from __future__ import annotations

import hashlib

import pytest
from pytest_httpserver import HTTPServer

import bot.edges.sandbox
from bot.faces.demo.specimen import AttemptSpec
from tests.support import Files, RegistryFactory, seed_cache


def _raw_log_at(url: str):  # type: ignore[no-untyped-def]
    def change(files: Files) -> None:
        text = files["attempt.yaml"].decode()
        old = text.split("raw_log:", 1)[1].split("url: ", 1)[1].split("\n", 1)[0]
        files["attempt.yaml"] = text.replace(old, url).encode()

    return change


def _serve_the_log(httpserver: HTTPServer, built) -> None:  # type: ignore[no-untyped-def]
    log = (built.attempt / "raw-log" / "harness.log").read_bytes()
    httpserver.expect_request("/log").respond_with_data(log)


def test_raw_log_on_loopback_is_refused_and_never_requested(
    make_registry: RegistryFactory, run_claims, httpserver: HTTPServer
) -> None:
    url = httpserver.url_for("/log").replace("localhost", "127.0.0.1")
    built = make_registry(change=_raw_log_at(url))
    _serve_the_log(httpserver, built)
    result = run_claims("verify", built.attempt, "--fetch-raw-logs")
    assert result.codes() == {"raw-log-unavailable"}, result.out
    (reason,) = result.reasons()
    assert reason["message"] == (
        f"refusing to fetch {url}: 127.0.0.1 is a loopback address, not a public one"
    )
    assert httpserver.log == []


def test_raw_log_from_an_allowed_test_server_is_checked(
    make_registry: RegistryFactory, run_claims, httpserver: HTTPServer, local_fetches
) -> None:
    """The honest path: with the tests' allow-list the served log is fetched and matches."""
    url = httpserver.url_for("/log")
    built = make_registry(change=_raw_log_at(url))
    _serve_the_log(httpserver, built)
    result = run_claims("verify", built.attempt, "--fetch-raw-logs")
    assert result.codes() == set(), result.out
    assert len(httpserver.log) == 1


@pytest.mark.skipif(bot.edges.sandbox.isolation() is not None, reason="no network isolation here")
def test_released_data_on_loopback_is_refused_and_never_requested(
    make_registry: RegistryFactory, run_claims, tmp_path, httpserver: HTTPServer
) -> None:
    built = make_registry(AttemptSpec(kind="wrapped"))
    # released_data[0], the cases, is served on loopback; the trials are in the cache already.
    released = built.files["freeze-cases.jsonl"]
    httpserver.expect_request("/cases.jsonl").respond_with_data(released)
    url = httpserver.url_for("/cases.jsonl").replace("localhost", "127.0.0.1")
    adapter = built.attempt / "adapter" / "adapter.yaml"
    text = adapter.read_text()
    old_url = text.split("url: ", 1)[1].split("\n", 1)[0]
    assert old_url.endswith("/cases.jsonl")
    adapter.write_text(text.replace(old_url, url))
    assert hashlib.sha256(released).hexdigest() in text
    cache = tmp_path / "cache"
    seed_cache(cache, built.files["trials.jsonl"])
    result = run_claims("verify", built.attempt, "--rerun-adapters", "--released-cache", cache)
    assert result.codes() == {"released-data-unavailable"}, result.out
    (reason,) = result.reasons()
    assert reason["message"] == (
        f"released_data[0]: refusing to fetch {url}: 127.0.0.1 is a loopback address,"
        " not a public one"
    )
    assert httpserver.log == []

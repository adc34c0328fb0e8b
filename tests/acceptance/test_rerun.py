"""`claims verify --rerun-adapters` end to end: real git registries, the real sandbox
(bubblewrap), released data from a content-addressed cache or a local HTTP server."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

import bot.sandbox
from bot.demo.specimen import AttemptSpec
from tests.support import Files

pytestmark = pytest.mark.skipif(
    bot.sandbox.isolation() is not None,
    reason=f"no network isolation here: {bot.sandbox.isolation()}",
)
WRAPPED = AttemptSpec(kind="wrapped")


def _seed(cache: Path, data: bytes) -> None:
    (cache / "sha256").mkdir(parents=True, exist_ok=True)
    (cache / "sha256" / hashlib.sha256(data).hexdigest()).write_bytes(data)


def _rerun(run_claims, built, cache: Path):
    return run_claims("verify", built.attempt, "--rerun-adapters", "--released-cache", cache)


def test_honest_adapter_reproduces_its_evidence(make_registry, run_claims, tmp_path) -> None:
    built = make_registry(WRAPPED)
    _seed(tmp_path / "cache", built.files["trials.jsonl"])
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.code == 0, result.out
    assert result.reasons() == []
    assert result.attempt()["status"] == "qualifying"
    check = result.attempt()["checks"]["wrapping-within-rules"]
    assert check["adapter_description"].startswith("Copies the paper's released")


def test_one_byte_of_one_trial_line_changed(make_registry, run_claims, tmp_path) -> None:
    built = make_registry(WRAPPED)
    _seed(tmp_path / "cache", built.files["trials.jsonl"])  # what the paper released

    def one_byte(files: Files) -> None:
        files["trials.jsonl"] = files["trials.jsonl"].replace(b'"score":0.', b'"score":1.', 1)

    tampered = make_registry(WRAPPED, change=one_byte)
    result = _rerun(run_claims, tampered, tmp_path / "cache")
    assert result.code == 1
    assert result.codes() == {"adapter-mismatch"}
    (reason,) = result.reasons()
    assert reason["file"].endswith("/trials.jsonl") and reason["line"] == 1
    assert "result.score" in reason["message"]


def test_one_byte_of_released_data_changed(
    make_registry, run_claims, tmp_path, httpserver: HTTPServer, local_fetches
) -> None:
    built = make_registry(WRAPPED)
    released = bytearray(built.files["trials.jsonl"])
    released[10] ^= 1
    httpserver.expect_request("/trials.jsonl").respond_with_data(bytes(released))
    adapter = built.attempt / "adapter" / "adapter.yaml"
    text = adapter.read_text()
    old_url = text.split("url: ", 1)[1].split("\n", 1)[0]
    adapter.write_text(text.replace(old_url, httpserver.url_for("/trials.jsonl")))
    result = _rerun(run_claims, built, tmp_path / "empty-cache")
    assert result.codes() == {"released-data-hash"}
    assert hashlib.sha256(released).hexdigest() in result.reasons()[0]["message"]


def test_hostile_adapter_fails_and_the_report_is_still_written(
    make_registry, run_claims, tmp_path
) -> None:
    os.environ["GITHUB_TOKEN"] = "ghp_fake_token_for_the_test"
    hostile = (
        b"import os, socket, sys\n"
        b"sys.stderr.write('token=%s\\n' % os.environ.get('GITHUB_TOKEN'))\n"
        b"socket.create_connection(('192.0.2.1', 80), timeout=2)\n"
    )

    def swap(files: Files) -> None:
        files["adapter/convert.py"] = hostile

    try:
        built = make_registry(WRAPPED, change=swap)
        _seed(tmp_path / "cache", built.files["trials.jsonl"])
        result = _rerun(run_claims, built, tmp_path / "cache")
    finally:
        del os.environ["GITHUB_TOKEN"]
    assert result.code == 1
    assert result.codes() == {"adapter-failed"}
    message = result.reasons()[0]["message"]
    assert "token=None" in message and "ghp_fake" not in message
    assert "exit code 1" in message
    assert json.dumps(result.report)  # the report was written and is whole


def test_without_isolation_the_rerun_is_refused_with_exit_2(
    make_registry, run_claims, monkeypatch
) -> None:
    monkeypatch.setattr(bot.sandbox, "isolation", lambda: "bwrap is not installed")
    result = run_claims("verify", make_registry(WRAPPED).attempt, "--rerun-adapters")
    assert result.code == 2
    assert "cannot rerun adapters here: bwrap is not installed" in result.err
    assert "--allow-unisolated" in result.err


def test_respelled_json_is_not_a_mismatch(make_registry, run_claims, tmp_path) -> None:
    # Reordering keys and re-spelling numbers is not a difference: canonical JSON per line.
    built = make_registry(WRAPPED)
    _seed(tmp_path / "cache", built.files["trials.jsonl"])

    def respell(files: Files) -> None:
        files["trials.jsonl"] = b"".join(
            json.dumps(json.loads(line), sort_keys=True, indent=None).encode() + b"\n"
            for line in files["trials.jsonl"].splitlines()
        )

    result = _rerun(run_claims, make_registry(WRAPPED, change=respell), tmp_path / "cache")
    assert result.code == 0, result.out

"""`claims verify --rerun-adapters` end to end: real git registries, the real sandbox
(bubblewrap), released data from a content-addressed cache or a local HTTP server."""

from __future__ import annotations

import base64
import hashlib
import json
import os
import stat
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

import bot.app.rerun
import bot.edges.sandbox
from bot.edges.dump import dump_jsonl
from bot.faces.demo.specimen import (
    RELEASED,
    AttemptSpec,
    load_market,
    market_document,
    score_table,
)
from tests.support import Files, RegistryFactory, records, seed_cache, seed_released, shared_rules

pytestmark = pytest.mark.skipif(
    bot.edges.sandbox.isolation() is not None,
    reason=f"no network isolation here: {bot.edges.sandbox.isolation()}",
)
WRAPPED = AttemptSpec(kind="wrapped")


def _rerun(run_claims, built, cache: Path):
    return run_claims("verify", built.attempt, "--rerun-adapters", "--released-cache", cache)


def test_honest_adapter_reproduces_its_evidence(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry(WRAPPED)
    seed_released(tmp_path / "cache", built.files)
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.code == 0, result.out
    assert result.reasons() == []
    assert result.attempt()["status"] == "qualifying"
    check = result.attempt()["checks"]["wrapping-within-rules"]
    assert check["adapter_description"].startswith("Copies the paper's released")


def test_one_byte_of_one_trial_line_changed(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry(WRAPPED)
    seed_released(tmp_path / "cache", built.files)  # what the paper released

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
    make_registry: RegistryFactory, run_claims, tmp_path, httpserver: HTTPServer, local_fetches
) -> None:
    built = make_registry(WRAPPED)
    released = bytearray(built.files["trials.jsonl"])
    released[10] ^= 1
    httpserver.expect_request("/trials.jsonl").respond_with_data(bytes(released))
    adapter = built.attempt / "adapter" / "adapter.yaml"
    text = adapter.read_text()
    (old_url,) = [url for url in text.split() if url.endswith("/data/trials.jsonl")]
    adapter.write_text(text.replace(old_url, httpserver.url_for("/trials.jsonl")))
    seed_cache(tmp_path / "cache", built.files["freeze-cases.jsonl"])  # the cases are fine
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.codes() == {"released-data-hash"}
    assert hashlib.sha256(released).hexdigest() in result.reasons()[0]["message"]


def test_hostile_adapter_fails_and_the_report_is_still_written(
    make_registry: RegistryFactory, run_claims, tmp_path
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
        seed_released(tmp_path / "cache", built.files)
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
    make_registry: RegistryFactory, run_claims, monkeypatch
) -> None:
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: "bwrap is not installed")
    result = run_claims("verify", make_registry(WRAPPED).attempt, "--rerun-adapters")
    assert result.code == 2
    assert "cannot rerun adapters here: bwrap is not installed" in result.err
    assert "--allow-unisolated" in result.err


def test_respelled_json_is_not_a_mismatch(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    # Reordering keys and re-spelling numbers is not a difference: canonical JSON per line.
    built = make_registry(WRAPPED)
    seed_released(tmp_path / "cache", built.files)

    def respell(files: Files) -> None:
        files["trials.jsonl"] = b"".join(
            json.dumps(json.loads(line), sort_keys=True, indent=None).encode() + b"\n"
            for line in files["trials.jsonl"].splitlines()
        )

    result = _rerun(run_claims, make_registry(WRAPPED, change=respell), tmp_path / "cache")
    assert result.code == 0, result.out


# ---- an adapter that carries its own output (docs/spec.md §9: perturbed rerun) -------------------

_RULES_MODEL = shared_rules()


def _hide_false_safes(carried: tuple[str, ...]):
    """Edit the trials (false-safe verdicts turned into catches), recompute the score table,
    and ship an adapter that writes the `carried` evidence files from copies it embeds, and
    copies the others from the released data."""

    def change(files: Files) -> None:
        trials = records(files, "trials.jsonl")
        for trial in trials:
            if trial["result"]["verdict"] == "false_safe":
                trial["result"].update(verdict="caught", certificate="unsafe", score=0.9)
        files["trials.jsonl"] = dump_jsonl(trials)
        market = load_market(market_document(3, "default"), _RULES_MODEL)
        files["scores.yaml"] = score_table(files, market, _RULES_MODEL.confidence)
        lines = ["import base64, shutil, sys"]
        for argument, name in enumerate(RELEASED.values(), start=1):
            if name in carried:
                embedded = base64.b64encode(files[name]).decode()
                lines.append(f"open(sys.argv[{argument}], 'rb').read()  # read, and ignored")
                lines.append(f"open('out/{name}', 'wb').write(base64.b64decode('{embedded}'))")
            else:
                lines.append(f"shutil.copyfile(sys.argv[{argument}], 'out/{name}')")
        files["adapter/convert.py"] = "\n".join([*lines, ""]).encode()

    return change


@pytest.mark.parametrize(
    "carried",
    [("freeze-cases.jsonl", "trials.jsonl"), ("trials.jsonl",)],
    ids=["cases-and-trials", "trials-only"],
)
def test_an_adapter_that_carries_its_own_output_ignores_the_data(
    make_registry: RegistryFactory, run_claims, tmp_path, carried
) -> None:
    """Carrying the trials is caught even when the adapter copies the cases from the data:
    each output must change when the data is emptied, not just one of them."""
    honest = make_registry(WRAPPED)
    seed_released(tmp_path / "cache", honest.files)  # what the paper released
    built = make_registry(WRAPPED, change=_hide_false_safes(carried))
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.code == 1, result.out
    assert result.codes() == {"adapter-ignores-data"}
    (reason,) = result.reasons()
    assert reason["file"].endswith("/adapter/adapter.yaml")
    assert reason["message"].startswith(
        f"rerun with every released file emptied, the adapter wrote the same {', '.join(carried)}:"
    )


def test_an_honest_adapter_passes_the_perturbed_rerun(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry(WRAPPED)
    seed_released(tmp_path / "cache", built.files)
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.code == 0, result.out
    assert result.codes() == set()
    assert result.attempt()["status"] == "qualifying"


# ---- crashes that became findings -----------------------------------------------------------


def test_released_paths_that_nest_are_a_finding(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """Was FileExistsError: `released` (a file) and `released/trials.jsonl` (a file in it)."""
    built = make_registry(WRAPPED)
    seed_released(tmp_path / "cache", built.files)
    adapter = built.attempt / "adapter" / "adapter.yaml"
    text = adapter.read_text()
    adapter.write_text(text.replace("path: released/cases.jsonl", "path: released", 1))
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.code == 1, result.out + result.err
    assert result.codes() == {"released-data-path"}
    (reason,) = result.reasons()
    assert reason["message"] == (
        "released_data[1].path 'released/trials.jsonl' lies inside"
        " released_data[0].path 'released': each released file needs a path of its own"
    )


def test_an_adapter_that_hides_its_output_fails(
    make_registry: RegistryFactory, run_claims, tmp_path, monkeypatch
) -> None:
    """Was PermissionError for a bot that is not root: an adapter that `chmod 0`s what it
    wrote. Here the bot reads outputs as an ordinary user would (no read permission, no
    read), whoever runs the test; tests/unit/edges/sandbox/test_runner.py runs the sandbox as an
    ordinary user for out/ itself and its folders."""
    real_read = bot.app.rerun.read_regular

    def read_as_ordinary_user(path: Path, limit: int) -> bytes:
        for part in (path.parent, path):
            needed = stat.S_IRUSR | (stat.S_IXUSR if part.is_dir() else 0)
            if part.lstat().st_mode & needed != needed:
                raise PermissionError(13, "Permission denied", str(path))
        return real_read(path, limit)

    monkeypatch.setattr(bot.app.rerun, "read_regular", read_as_ordinary_user)

    def hide(files: Files) -> None:
        files["adapter/convert.py"] = (
            b"import os, shutil, sys\n"
            b"shutil.copyfile(sys.argv[1], 'out/freeze-cases.jsonl')\n"
            b"shutil.copyfile(sys.argv[2], 'out/trials.jsonl')\n"
            b"os.chmod('out/trials.jsonl', 0)\n"
        )

    built = make_registry(WRAPPED, change=hide)
    seed_released(tmp_path / "cache", built.files)
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.code == 1, result.out + result.err
    assert result.codes() == {"adapter-failed"}
    assert "unreadable" in result.reasons()[0]["message"]


# ---- values no later stage can carry (issue 21, item 1) -------------------------------------

_FAILS_ON_EMPTY_DATA = b"""import os, shutil, sys
if os.path.getsize(sys.argv[2]) == 0:  # the emptied-data rerun cannot tell: it fails
    sys.exit(1)
shutil.copyfile(sys.argv[1], "out/freeze-cases.jsonl")
shutil.copyfile(sys.argv[2], "out/trials.jsonl")
"""
BIG_INTEGER = b'"result":{"n":9007199254740993,'


def _edited_with_a_big_integer(spec: AttemptSpec):
    """Missed attacks filed as caught (the score table derived from the edited trials), and
    one trial holding an integer beyond 2**53 - 1, which has no RFC 8785 form."""

    def before_scores(files: Files) -> None:
        files["adapter/convert.py"] = _FAILS_ON_EMPTY_DATA
        files["trials.jsonl"] = files["trials.jsonl"].replace(b'"false_safe"', b'"caught"')

    def change(files: Files) -> None:
        files["trials.jsonl"] = files["trials.jsonl"].replace(b'"result":{', BIG_INTEGER, 1)

    return before_scores, change


def test_rerun_comparison_refuses_integer_beyond_2_53(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """Edited trials holding one integer past 2**53 - 1 were "reproduced" (the comparison
    found no RFC 8785 form for the filed file and reported no difference) and the attempt
    qualified. Now the loader refuses the line, naming its field, and the comparison counts
    the file it could not compare as a difference."""
    spec = AttemptSpec(kind="wrapped", false_safe_rate=0.2, seed=3)
    honest = make_registry(spec)
    seed_released(tmp_path / "cache", honest.files)  # what the paper released
    before_scores, change = _edited_with_a_big_integer(spec)
    built = make_registry(spec, before_scores=before_scores, change=change)
    result = _rerun(run_claims, built, tmp_path / "cache")
    assert result.code == 1, result.out
    assert result.attempt()["status"] != "qualifying"
    assert result.codes() == {"jsonl-invalid", "adapter-mismatch"}
    by_code = {reason["code"]: reason for reason in result.reasons()}
    refused = by_code["jsonl-invalid"]
    assert refused["file"].endswith("/trials.jsonl") and refused["line"] == 1
    assert refused["message"] == "result.n: integer 9007199254740993 is outside ±2**53-1 (I-JSON)"
    assert "could not be compared" in by_code["adapter-mismatch"]["message"]

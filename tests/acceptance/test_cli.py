"""`claims` end to end: exit codes, reports, and usage errors that must not trace back."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from jsonschema import Draft202012Validator

from tests.support import PROJECT, RegistryFactory

REPORT_SCHEMA = json.loads((PROJECT / "schemas" / "verify-report.schema.json").read_text())


def test_json_report_validates_against_its_schema(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    result = run_claims("verify", built.root / "attempts")
    Draft202012Validator(REPORT_SCHEMA).validate(result.report)
    assert result.report["evidence"] == "valid"
    assert result.report["base_ref"] == "main"


def test_invalid_report_validates_too(make_registry: RegistryFactory, run_claims) -> None:
    def drop(files: dict[str, bytes]) -> None:
        del files["trials.jsonl"]

    result = run_claims("verify", make_registry(change=drop).attempt)
    Draft202012Validator(REPORT_SCHEMA).validate(result.report)
    assert result.report["evidence"] == "invalid"


def test_markdown_report_is_written(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    built = make_registry()
    out = tmp_path / "comment.md"
    result = run_claims("verify", built.attempt, "--markdown", out)
    assert result.code == 0
    text = out.read_text()
    assert text.startswith("### ✅ Evidence valid")
    assert "alice-lab" in text


def test_missing_path_is_a_usage_error(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    built = make_registry()
    result = run_claims("verify", "--registry", built.root, tmp_path / "nope")
    assert result.code == 2
    assert "does not exist" in result.err
    assert "Traceback" not in result.err


def test_no_registry_is_an_environment_error(run_claims, tmp_path: Path) -> None:
    result = run_claims("verify", tmp_path)
    assert result.code == 2
    assert "no registry found" in result.err


def test_unknown_base_ref_is_an_environment_error(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    result = run_claims("verify", "--base-ref", "no-such-branch", built.attempt)
    assert result.code == 2
    assert "no-such-branch" in result.err


def test_quiet_prints_only_the_total(make_registry: RegistryFactory, run_claims) -> None:
    result = run_claims("verify", "-q", make_registry().attempt)
    assert result.out.strip() == "1 attempt(s): 1 valid, 0 invalid"


def test_console_script_and_module_entry_point(make_registry: RegistryFactory) -> None:
    built = make_registry()
    for command in (["claims"], [sys.executable, "-m", "bot"]):
        done = subprocess.run(
            [*command, "verify", str(built.attempt)], capture_output=True, text=True, check=False
        )
        assert done.returncode == 0, done.stderr
        assert "VALID" in done.stdout

"""bot/rules/evidence/schema.py: JSON Schema errors as findings with file, line and field."""

from __future__ import annotations

import copy
import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator

from bot.edges.load.yaml_ import parse_yaml
from bot.rules.evidence import schema as schema_module
from bot.rules.evidence.schema import SCHEMA_NAMES, validate
from bot.vocab.findings import Code, Finding

REPO = Path(__file__).resolve().parents[4]
TRIALS = "attempts/market-01/alice/a1/trials.jsonl"
ATTEMPT = "attempts/market-01/alice/a1/attempt.yaml"

TRIAL: dict[str, Any] = {
    "case_id": "case-001",
    "system": "model-a",
    "started_at": "2027-01-20T09:00:00Z",
    "trajectory": "traj-1",
    "evaluator": None,
    "attack_family": "injection",
    "result": {"verdict": "caught"},
}

ATTEMPT_YAML = """\
# a comment line
market: 3
submitter: alice-lab
kind: run
title: A run
publication:
  url: https://papers.example.org/alice
  evidence_public_at: '2027-02-09T09:00:00Z'
raw_log:
  sha256: 21e956153d6ec95be13dc44d8d808ced87e82e957d9d59605c6f3a5d41ec06b2
  url: https://evidence.example.org/alice/harness.log
  bytes: 2098
assumed_access: black-box
adversarial:
  access_frozen_at: '2027-01-10T12:00:00Z'
  red_teams:
  - name: Independent red team
    organization: Example Security Collective
    independent: true
    hours: 48
    access: black-box
    started_at: '2027-01-12T12:00:00Z'
"""


def trial(**changes: object) -> dict[str, Any]:
    data = copy.deepcopy(TRIAL)
    data.update(changes)
    return data


def codes(findings: list[Finding]) -> list[tuple[Code, str, int | None]]:
    return [(f.code, f.message.split(":")[0], f.line) for f in findings]


def line_in(text: str, start: str) -> int:
    """The 1-based line of `text` that starts with `start` (there must be exactly one)."""
    found = [n for n, line in enumerate(text.splitlines(), 1) if line.startswith(start)]
    assert len(found) == 1, found
    return found[0]


def attempt_findings(text: str) -> list[Finding]:
    document, findings = parse_yaml(text.encode(), ATTEMPT)
    assert findings == []
    assert document is not None
    return validate("attempt", document.data, document.path, document.lines)


def test_valid_documents_have_no_findings() -> None:
    assert validate("trial", TRIAL, TRIALS, line=3) == []
    assert attempt_findings(ATTEMPT_YAML) == []


# --- timestamp-naive -----------------------------------------------------------------------


@pytest.mark.parametrize(
    "value",
    ["2027-01-20T09:00:00", "2027-01-20 09:00:00", "2027-01-20T09:00", "2027-01-20T09:00:00.5"],
)
def test_naive_started_at_is_timestamp_naive(value: str) -> None:
    findings = validate("trial", trial(started_at=value), TRIALS, line=7)
    assert len(findings) == 1
    finding = findings[0]
    assert finding.code is Code.TIMESTAMP_NAIVE
    assert (finding.file, finding.line) == (TRIALS, 7)
    assert finding.message.startswith("started_at: ")
    assert value in finding.message
    assert "offset" in finding.message
    assert "Z" in finding.message


def test_a_bare_date_where_a_time_is_required_is_naive() -> None:
    findings = validate("trial", trial(started_at="2027-01-20"), TRIALS, line=2)
    assert [(f.code, f.line) for f in findings] == [(Code.TIMESTAMP_NAIVE, 2)]


@pytest.mark.parametrize(
    "value",
    ["2027-01-20T09:00:00Z", "2027-01-20t09:00:00z", "2027-01-20T09:00:00.123456789+05:30"],
)
def test_aware_timestamps_pass(value: str) -> None:
    assert validate("trial", trial(started_at=value), TRIALS, line=1) == []


@pytest.mark.parametrize(
    "value",
    [
        "yesterday",
        "2027-02-30T09:00:00Z",
        "2027-01-20T25:00:00Z",
        "2027-01-20T09:00:00+24:00",
        "0001-01-01T00:00:00+01:00",  # local time fine, UTC instant before year 1
        "9999-12-31T23:59:59-01:00",  # UTC instant after year 9999
        "\u0662\u0660\u0662\u0667-01-20T09:00:00Z",  # Arabic-Indic digits
        "\u0662\u0660\u0662\u0667-01-20T09:00:00",  # not ASCII digits, so not "naive" either
    ],
)
def test_malformed_timestamps_are_schema_errors(value: str) -> None:
    findings = validate("trial", trial(started_at=value), TRIALS, line=4)
    assert [(f.code, f.line) for f in findings] == [(Code.SCHEMA, 4)]
    assert findings[0].message.startswith("started_at: ")
    assert "date-time" in findings[0].message


def test_naive_timestamp_inside_one_of_is_naive() -> None:
    # freeze.paper_freeze.date is a date or an aware timestamp.
    freeze = {
        "method": {"name": "m"},
        "code_commit": "0" * 40,
        "scorer": "s",
        "frozen_at": "2027-01-10T12:00:00Z",
        "paper_freeze": {"date": "2027-01-05T10:00:00", "url": "https://x.org", "sha256": "a" * 64},
    }
    findings = validate("freeze", freeze, "freeze.yaml")
    assert [f.code for f in findings] == [Code.TIMESTAMP_NAIVE]
    assert findings[0].message.startswith("paper_freeze.date: ")
    freeze["paper_freeze"]["date"] = "2027-01-05"  # type: ignore[index]
    assert validate("freeze", freeze, "freeze.yaml") == []


def test_naive_timestamp_in_yaml_has_its_line() -> None:
    text = ATTEMPT_YAML.replace("'2027-01-12T12:00:00Z'", "2027-01-12T12:00:00")
    findings = attempt_findings(text)
    assert line_in(text, "    started_at: 2027-01-12T12:00:00") == 22
    assert [(f.code, f.line) for f in findings] == [(Code.TIMESTAMP_NAIVE, 22)]
    assert findings[0].message.startswith("adversarial.red_teams[0].started_at: ")


# --- schema --------------------------------------------------------------------------------


def test_wrong_type_names_the_field() -> None:
    findings = validate("trial", trial(result=5), TRIALS, line=9)
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.SCHEMA, TRIALS, 9)]
    assert findings[0].message.startswith("result: ")
    assert "object" in findings[0].message


def test_several_errors_in_one_record_all_carry_the_record_line() -> None:
    data = trial(result=[], system=7)
    del data["case_id"]
    findings = validate("trial", data, TRIALS, line=12)
    assert sorted(codes(findings)) == [
        (Code.SCHEMA, "(top level)", 12),
        (Code.SCHEMA, "result", 12),
        (Code.SCHEMA, "system", 12),
    ]
    assert any("'case_id' is a required property" in f.message for f in findings)


def test_wrong_type_in_yaml_names_the_path_and_its_line() -> None:
    text = ATTEMPT_YAML.replace("url: https://papers.example.org/alice", "url: 42")
    findings = attempt_findings(text)
    assert line_in(text, "  url: 42") == 7
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.SCHEMA, ATTEMPT, 7)]
    assert findings[0].message.startswith("publication.url: ")
    assert "string" in findings[0].message


def test_yaml_1_1_lookalikes_are_caught_by_the_schema() -> None:
    # `independent: yes` is the string "yes" in YAML 1.2: the schema says boolean.
    text = ATTEMPT_YAML.replace("independent: true", "independent: yes")
    findings = attempt_findings(text)
    assert [(f.code, f.line) for f in findings] == [
        (Code.SCHEMA, line_in(text, "    independent: yes"))
    ]
    assert findings[0].message.startswith("adversarial.red_teams[0].independent: ")


def test_missing_field_falls_back_to_the_parent_line() -> None:
    text = ATTEMPT_YAML.replace("  bytes: 2098\n", "")
    findings = attempt_findings(text)
    assert [(f.code, f.line) for f in findings] == [(Code.SCHEMA, line_in(text, "raw_log:"))]
    assert findings[0].message.startswith("raw_log: ")
    assert "'bytes'" in findings[0].message


def test_unknown_field_is_reported_at_its_parent() -> None:
    text = ATTEMPT_YAML.replace("  bytes: 2098\n", "  bytes: 2098\n  extra: 1\n")
    findings = attempt_findings(text)
    assert [(f.code, f.line) for f in findings] == [(Code.SCHEMA, line_in(text, "raw_log:"))]
    assert "'extra'" in findings[0].message


def test_without_lines_or_line_the_line_is_none() -> None:
    findings = validate("trial", trial(result=5), TRIALS)
    assert [(f.code, f.line) for f in findings] == [(Code.SCHEMA, None)]


def test_top_level_not_an_object() -> None:
    data: object
    for data in ([], "text", 3, None):
        findings = validate("trial", data, TRIALS, line=1)
        assert [(f.code, f.line) for f in findings] == [(Code.SCHEMA, 1)]
        assert findings[0].message.startswith("(top level): ")


def test_long_values_are_shortened_in_messages() -> None:
    findings = validate("trial", trial(started_at="x" * 5000), TRIALS, line=1)
    assert len(findings) == 1
    assert len(findings[0].message) <= 300
    assert "..." in findings[0].message


def test_unknown_schema_name_is_a_programming_error() -> None:
    with pytest.raises(KeyError):
        validate("no-such-schema", {}, "x")


# --- the cap -------------------------------------------------------------------------------


def _red_teams_attempt(count: int) -> dict[str, Any]:
    document, findings = parse_yaml(ATTEMPT_YAML.encode(), ATTEMPT)
    assert (findings, document is not None) == ([], True)
    assert document is not None
    data: dict[str, Any] = copy.deepcopy(document.data)  # type: ignore[arg-type]
    data["adversarial"]["red_teams"] = [1] * count  # each item: one type error
    return data


def test_errors_per_document_are_capped() -> None:
    cap = schema_module._MAX_ERRORS_PER_DOCUMENT
    data = _red_teams_attempt(cap + 17)
    findings = validate("attempt", data, ATTEMPT)
    assert len(findings) == cap + 1
    assert all(f.code is Code.SCHEMA for f in findings)
    assert all("expected an object" in f.message for f in findings[:cap])
    assert findings[-1].message == "... and 17 more schema errors"
    assert findings[-1].file == ATTEMPT


def test_under_the_cap_every_error_is_reported_in_field_order() -> None:
    data = trial(result=1, system=2, trajectory=3, evaluator=4, attack_family=5)
    data.update({f"extra{i}": i for i in range(40)})  # one additionalProperties error
    data["started_at"] = "2027-01-20T09:00:00"
    findings = validate("trial", data, TRIALS, line=5)
    assert codes(findings) == [
        (Code.SCHEMA, "(top level)", 5),
        (Code.SCHEMA, "attack_family", 5),
        (Code.SCHEMA, "evaluator", 5),
        (Code.SCHEMA, "result", 5),
        (Code.TIMESTAMP_NAIVE, "started_at", 5),
        (Code.SCHEMA, "system", 5),
        (Code.SCHEMA, "trajectory", 5),
    ]
    assert len(findings[0].message) <= 300  # 40 names, shortened


def test_exactly_at_the_cap_there_is_no_summary() -> None:
    cap = schema_module._MAX_ERRORS_PER_DOCUMENT
    findings = validate("attempt", _red_teams_attempt(cap), ATTEMPT)
    assert len(findings) == cap
    assert not any("more schema errors" in f.message for f in findings)


# --- the schema files ----------------------------------------------------------------------

SCHEMA_DIR = REPO / "schemas"  # the one source; tests/unit/test_packaging.py checks it ships
SCHEMA_FILES = sorted(SCHEMA_DIR.glob("*.json"))


def test_every_named_schema_and_common_are_in_the_schemas_folder() -> None:
    assert len(SCHEMA_FILES) >= len(SCHEMA_NAMES) + 1  # + common.schema.json


@pytest.mark.parametrize("file", SCHEMA_FILES, ids=[file.name for file in SCHEMA_FILES])
def test_every_schema_file_is_draft_2020_12_with_its_id(file: Path) -> None:
    assert file.name.endswith(".schema.json")
    schema = json.loads(file.read_text(encoding="utf-8"))
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith(f"/{file.name}")
    assert schema["$id"].startswith("https://")
    Draft202012Validator.check_schema(schema)


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_inlined_schema_is_draft_2020_12(name: str) -> None:
    # The bot builds its validators without `check_schema` (it cost ~0.2 s of every run):
    # this test is that check, on what the validators are built from, the `$ref`s inlined.
    Draft202012Validator.check_schema(schema_module._validator(name).schema)


def test_a_validator_is_built_only_for_the_schema_asked_for() -> None:
    schema_module._validator.cache_clear()
    schema_module._fast_validator.cache_clear()
    validate("trial", {}, "trials.jsonl", line=1)
    assert schema_module._validator.cache_info().currsize == 1
    assert schema_module._fast_validator.cache_info().currsize == 1
    with pytest.raises(KeyError):
        schema_module._validator("no-such-schema")


@pytest.mark.parametrize("name", SCHEMA_NAMES)
def test_every_named_schema_has_a_file(name: str) -> None:
    assert (SCHEMA_DIR / f"{name}.schema.json").is_file()
    # And validate can use it: an empty object is refused (every schema requires something),
    # never raising.
    findings = validate(name, {"__surely_not_a_field__": True}, "f")
    assert findings
    assert {f.code for f in findings} <= {Code.SCHEMA}


def test_a_sha256_with_a_trailing_newline_is_refused() -> None:
    # Review finding: "^[0-9a-f]{64}$" matches "<hash>\n" under Python's re.search.
    case = {
        "case_id": "c1",
        "sha256": "a" * 64 + "\n",
        "family": "f",
        "kind": "attack",
        "public": {},
    }
    assert [f.code.value for f in validate("freeze-case", case, "freeze-cases.jsonl", line=1)] == [
        "schema"
    ]

"""Messages that name the fix (issue 23 item 6): the command that writes what is wrong, the
field and its line, a misspelt bar id as one "did you mean", an unknown case linked with the
frozen case left without a trial, YAML syntax in the bot's words with line and column.

Every reason code whose fix is a command says the command in its message: `FIX_COMMANDS`
lists them, a test checks docs/reason-codes.md says the same, and one test per code triggers it.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml

from bot.edges.dump import dump_yaml
from bot.vocab.findings import Code
from tests.support import Files, RegistryFactory, rewrite

# Reason codes whose fix is running a command, and the command.
FIX_COMMANDS = {
    Code.CASE_HASH_MISMATCH: "claims hash-cases",
    Code.SCORE_TABLE_MISMATCH: "claims scores",
    Code.RAW_LOG_HASH_MISMATCH: "claims pin-log",
    Code.RAW_LOG_EXCERPT: "claims pin-log",
    Code.RAW_LOG_TOO_LARGE: "claims pin-log",
    Code.ADAPTER_NOT_RERUN: "claims verify --rerun-adapters",
}
DOCS = Path(__file__).resolve().parents[2] / "docs" / "reason-codes.md"


def _sections() -> dict[str, str]:
    text = DOCS.read_text(encoding="utf-8")
    parts = re.split(r"\n### `([a-z-]+)`\n", text)
    return dict(zip(parts[1::2], parts[2::2], strict=True))


@pytest.mark.parametrize("code", sorted(FIX_COMMANDS), ids=str)
def test_the_docs_give_the_command_in_the_fix_and_in_the_example(code: Code) -> None:
    section = _sections()[code.value]
    example = section.split("**Example", 1)[1].split("**How to fix.**", 1)[0]
    fix = section.split("**How to fix.**", 1)[1]
    command = FIX_COMMANDS[code]
    assert command in fix, f"{code}: the fix does not name {command}"
    assert command in example, f"{code}: the example message does not name {command}"


def test_every_fix_naming_a_filer_command_is_in_the_table() -> None:
    """A section whose fix starts with a filer tool's command is listed above, so its message
    is checked to name it (a command named later, as a step after the fix, is not the fix)."""
    tools = ("claims hash-cases", "claims scores", "claims pin-log")
    for code, section in _sections().items():
        fix = section.split("**How to fix.**", 1)[-1].split(". ", 1)[0]
        named = [tool for tool in tools if f"`{tool}" in fix]
        if named:
            assert Code(code) in FIX_COMMANDS, f"{code} names {named} in its fix"


def _reason(result: Any, code: str) -> dict[str, Any]:
    (reason,) = [r for r in result.reasons() if r["code"] == code]
    return reason


def test_case_hash_mismatch_names_hash_cases_write(
    make_registry: RegistryFactory, run_claims
) -> None:
    def wrong_hash(files: Files) -> None:
        def edit(cases: list[dict[str, Any]]) -> None:
            cases[1]["sha256"] = "0" * 64

        rewrite(files, "freeze-cases.jsonl", edit)

    built = make_registry(change=wrong_hash)
    reason = _reason(run_claims("verify", built.attempt), "case-hash-mismatch")
    folder = built.attempt.relative_to(built.root).as_posix()
    assert reason["line"] == 2
    assert f"`claims hash-cases {folder} --write` writes the computed hash" in reason["message"]


def test_score_table_mismatch_points_at_the_field(
    make_registry: RegistryFactory, run_claims
) -> None:
    def claim_lower_bound(files: Files) -> None:
        table = yaml.safe_load(files["scores.yaml"])
        table["bars"]["false-safe"]["bound"] = 0.05
        files["scores.yaml"] = dump_yaml(table)

    built = make_registry(change=claim_lower_bound)
    reason = _reason(run_claims("verify", built.attempt), "score-table-mismatch")
    lines = built.files["scores.yaml"].decode().splitlines()
    bound_line = next(n for n, line in enumerate(lines, 1) if line.strip().startswith("bound:"))
    assert lines[bound_line - 1].strip() == "bound: 0.05"
    assert reason["line"] == bound_line  # the field's line, not the bar's
    folder = built.attempt.relative_to(built.root).as_posix()
    assert reason["message"].startswith("bars.false-safe.bound: scores.yaml says 0.050000")
    assert f"`claims scores {folder} --write`" in reason["message"]


def test_a_misspelt_bar_id_is_one_did_you_mean(make_registry: RegistryFactory, run_claims) -> None:
    def misspell(files: Files) -> None:
        table = yaml.safe_load(files["scores.yaml"])
        table["bars"]["discrimnation"] = table["bars"].pop("discrimination")
        files["scores.yaml"] = dump_yaml(table)

    built = make_registry(change=misspell)
    result = run_claims("verify", built.attempt)
    (reason,) = result.reasons()
    assert reason["code"] == "score-table-mismatch"
    assert (
        "bars.discrimnation: unknown bar id 'discrimnation' (did you mean 'discrimination')"
        in reason["message"]
    )
    lines = built.files["scores.yaml"].decode().splitlines()
    assert lines[reason["line"] - 1].strip() == "discrimnation:"
    assert "claims scores" in reason["message"]


def test_a_bar_id_misspelt_in_both_sections_is_two_findings(
    make_registry: RegistryFactory, run_claims
) -> None:
    def misspell(files: Files) -> None:
        table = yaml.safe_load(files["scores.yaml"])
        for section in ("bars", "class_conditional"):
            table[section]["discrimnation"] = table[section].pop("discrimination")
        files["scores.yaml"] = dump_yaml(table)

    result = run_claims("verify", make_registry(change=misspell).attempt)
    messages = sorted(r["message"] for r in result.reasons())
    assert len(messages) == 2
    assert messages[0].startswith(
        "bars.discrimnation: unknown bar id 'discrimnation' (did you mean 'discrimination')"
    )
    assert messages[1].startswith(
        "class_conditional.discrimnation: unknown class-conditional key 'discrimnation'"
        " (did you mean 'discrimination')"
    )
    assert not any("says nothing" in message for message in messages)


def test_an_unknown_case_and_its_missing_trial_name_each_other(
    make_registry: RegistryFactory, run_claims
) -> None:
    def misspell_case(files: Files) -> None:
        def edit(trials: list[dict[str, Any]]) -> None:
            trials[2]["case_id"] = trials[2]["case_id"].replace("-00", "-0O")

        rewrite(files, "trials.jsonl", edit)

    built = make_registry(change=misspell_case)
    result = run_claims("verify", built.attempt)
    unknown = _reason(result, "unknown-case")
    missing = _reason(result, "missing-trial")
    assert unknown["line"] == 3
    assert (
        "frozen case 'sandbagging-002' (freeze-cases.jsonl line 3) has no trial"
        in (unknown["message"])
    )
    assert "(missing-trial)" in unknown["message"]
    assert (
        "trials.jsonl line 3 names 'sandbagging-0O2', which is not frozen (unknown-case)"
        in (missing["message"])
    )


def test_yaml_syntax_is_in_our_words_with_line_and_column(
    make_registry: RegistryFactory, run_claims
) -> None:
    def broken(files: Files) -> None:
        files["attempt.yaml"] = files["attempt.yaml"].replace(b"title: ", b"title: [unclosed ", 1)

    built = make_registry(change=broken)
    reason = _reason(run_claims("verify", built.attempt), "yaml-invalid")
    message = reason["message"]
    assert message.startswith("YAML syntax: the list opened with '[' on line")
    assert f"(line {reason['line']}, column " in message
    assert "did not find expected" not in message  # PyYAML's own words


def test_raw_log_hash_mismatch_names_pin_log(make_registry: RegistryFactory, run_claims) -> None:
    def edit_log(files: Files) -> None:
        name = next(name for name in files if name.startswith("raw-log/"))
        files[name] = files[name] + b"edited\n"

    built = make_registry(change=edit_log)
    result = run_claims("verify", built.attempt)
    folder = built.attempt.relative_to(built.root).as_posix()
    reasons = [r for r in result.reasons() if r["code"] == "raw-log-hash-mismatch"]
    assert reasons
    assert all(f"`claims pin-log {folder} --log FILE`" in r["message"] for r in reasons)


def test_adapter_not_rerun_names_rerun_adapters(make_registry: RegistryFactory, run_claims) -> None:
    from bot.faces.demo.specimen import AttemptSpec

    result = run_claims("verify", make_registry(AttemptSpec(kind="wrapped")).attempt)
    reason = _reason(result, "adapter-not-rerun")
    assert "claims verify --rerun-adapters" in reason["message"]


@pytest.mark.parametrize(
    ("text", "line", "column", "words"),
    [
        ("a: 1\nb: [1, 2\nc: 3\n", 3, 2, "the list opened with '[' on line 2 is not closed"),
        ("a: {x: 1\n", 1, 4, "the mapping opened with '{' on line 1 is not closed"),
        ("a: 1\nb:\n\tc: 2\n", 3, 1, "a tab: YAML indents with spaces only"),
        ("a:\n  b: 1\n c: 2\n", 3, 2, "this line does not line up with the keys of the"),
        ("title: a: b\n", 1, 9, "a ': ' inside a value: quote the value"),
        ("a: 'abc\n", 1, 4, "the quoted text opened on line 1 is never closed"),
        ("a: @x\n", 1, 4, "'@' cannot start a value: quote the value"),
    ],
)
def test_yaml_syntax_words(text: str, line: int, column: int, words: str) -> None:
    from bot.edges.load.yaml_ import parse_yaml

    document, (finding,) = parse_yaml(text.encode(), "attempt.yaml")
    assert document is None and finding.code is Code.YAML_INVALID
    assert finding.line == line
    assert finding.message.startswith(f"YAML syntax: {words}")
    assert finding.message.endswith(f"(line {line}, column {column})")

"""adapter.yaml's check and the sandbox agree on what a command is (issue 21, item 2).

A command the PR check accepted (the schema, then `adapter-command`) but the sandbox refused
made every scheduled rerun of the attempt stop, and its market never resolved. Both now use
one definition (`bot.edges.sandbox.command.command_problem`); these tests hold them together: what
the PR check accepts the sandbox starts, and what the sandbox refuses the PR check refuses.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, example, given, settings
from hypothesis import strategies as st

from bot.app.attempt_read import _command_problems
from bot.edges.dump import dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.edges.sandbox import isolation, run_adapter
from bot.edges.sandbox.command import (
    MAX_ARGUMENT_CHARACTERS,
    MAX_ARGUMENTS,
    command_problem,
    names_problem,
)
from bot.rules.evidence.schema import schema_files, validate
from bot.vocab.findings import Code

REASON = isolation()
needs_isolation = pytest.mark.skipif(
    REASON is not None, reason=f"network isolation unavailable here: {REASON}"
)
PATH = "attempts/market-03/alice-lab/monitor-v1/adapter/adapter.yaml"
# Any text, control characters, NUL and lone surrogates included, and lengths on both sides of
# the caps.
PARTS = st.text(
    st.characters(codec=None, exclude_categories=()), min_size=0, max_size=MAX_ARGUMENT_CHARACTERS
) | st.sampled_from(["", "\0", "a\0", "x" * MAX_ARGUMENT_CHARACTERS, "y" * 1001, "\x01\n\x7f"])
COMMANDS = st.lists(PARTS, min_size=0, max_size=MAX_ARGUMENTS + 2)


def adapter_yaml(command: list[str]) -> bytes:
    return dump_yaml(
        {
            "description": "Copies the released trials.",
            "command": command,
            "released_data": [
                {"url": "https://papers.example.org/t.jsonl", "sha256": "a" * 64, "path": "t.jsonl"}
            ],
            "outputs": ["freeze-cases.jsonl", "trials.jsonl"],
        }
    )


def pr_check(raw: bytes) -> list[Any]:
    """What the PR check says of adapter.yaml's bytes: the loader, the schema, the command."""
    document, problems = parse_yaml(raw, PATH)
    if document is None:
        return problems
    problems = validate("adapter", document.data, PATH, document.lines)
    return problems or _command_problems(document)


def pr_check_accepts(command: list[str]) -> bool:
    try:
        raw = adapter_yaml(command)
    except (ValueError, TypeError, UnicodeError):  # text no adapter.yaml can hold
        return False
    return not pr_check(raw)


def test_the_schema_states_the_sandboxs_caps() -> None:
    schema = json.loads(schema_files()["schemas/adapter.schema.json"])
    command = schema["properties"]["command"]
    assert command["maxItems"] == MAX_ARGUMENTS
    assert command["items"]["maxLength"] == MAX_ARGUMENT_CHARACTERS
    assert command["minItems"] == 1 and command["items"]["minLength"] == 1


def test_a_nul_in_an_argument_is_refused_on_the_pr_with_its_line() -> None:
    """Accepted by the schema on 611a91f (only `adapter-not-rerun` then), refused by the
    sandbox: now `adapter-command`, naming the file, the line and the part."""
    raw = b'description: d\ncommand:\n- python\n- "convert.py\\0--x"\n' + (
        b"released_data:\n- url: https://papers.example.org/t.jsonl\n"
        b"  sha256: " + b"a" * 64 + b"\n  path: t.jsonl\n"
        b"outputs: [freeze-cases.jsonl, trials.jsonl]\n"
    )
    (finding,) = pr_check(raw)
    assert (finding.code, finding.file, finding.line) == (Code.ADAPTER_COMMAND, PATH, 2)
    assert "part 1 of the command holds a NUL character" in finding.message


@pytest.mark.parametrize(
    ("names", "path", "problem"),
    [
        (["adapter/out/keep.txt"], "released/t.jsonl", "the adapter has its own out/"),
        ([], "out/t.jsonl", "the released data (adapter.yaml's paths) has its own out/"),
        ([], "./out//t.jsonl", "the released data (adapter.yaml's paths) has its own out/"),
        (["adapter/convert.py"], "./convert.py", "both have convert.py"),
        (["adapter/convert.py"], "convert.py", "both have convert.py"),
        (["adapter/released/x.py"], "released/t.jsonl", "both have released"),
    ],
)
def test_a_working_folder_the_sandbox_cannot_lay_out_is_refused_on_the_pr(
    names: list[str], path: str, problem: str
) -> None:
    """The sandbox lays the adapter folder and the released data side by side beside out/;
    names it refuses there (`names_problem`) are `adapter-command` on the PR too."""
    raw = adapter_yaml(["python", "convert.py"]).replace(b"path: t.jsonl", f"path: {path}".encode())
    document, problems = parse_yaml(raw, PATH)
    assert document is not None and not problems
    assert not validate("adapter", document.data, PATH, document.lines)
    entries = dict.fromkeys(["adapter/adapter.yaml", *names])
    (finding,) = _command_problems(document, entries)
    assert finding.code == Code.ADAPTER_COMMAND and problem in finding.message
    assert finding.message.startswith("released_data: the sandbox cannot start the command: ")
    assert finding.line == document.line_of(("released_data",))
    honest, _ = parse_yaml(adapter_yaml(["python", "convert.py"]), PATH)
    assert honest is not None
    assert not _command_problems(honest, dict.fromkeys(["adapter/adapter.yaml", "adapter/a.py"]))


@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(COMMANDS)
@example(["python", "convert.py\0"])
@example(["python", "\x01", "\x1b[2J", "\u0085", "\u202e"])
@example([])
def test_the_pr_check_and_the_sandbox_refuse_the_same_commands(command: list[str]) -> None:
    accepted = pr_check_accepts(command)
    startable = command_problem(command) is None
    if accepted:
        assert startable, command
        for part in command:  # what execve needs: bytes without NUL
            assert b"\0" not in part.encode("utf-8", "surrogateescape")
    # The other way, for text adapter.yaml can hold: whatever the sandbox refuses, the PR
    # check refuses too (never green with a command no rerun can start).
    if not startable:
        assert not accepted, command


@needs_isolation
@settings(max_examples=8, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(PARTS, min_size=1, max_size=4))
@example(["\x01", "a\nb", "\x7f", "-c", "--", "\u2028"])
@example(["\U0010ffff" * MAX_ARGUMENT_CHARACTERS] * (MAX_ARGUMENTS - 3))  # the largest there is
def test_every_command_the_pr_check_accepts_starts_in_the_sandbox(
    tmp_path_factory: pytest.TempPathFactory, arguments: list[str]
) -> None:
    """The real sandbox starts the command and hands the adapter exactly its arguments."""
    command = ["python3", "-c", "import sys, json; print(json.dumps(sys.argv[1:]))", *arguments]
    assume(pr_check_accepts(command))
    root = tmp_path_factory.mktemp("agreement")
    for name in ("code", "inputs", "out"):
        (root / name).mkdir()
    result = run_adapter(
        command, code=root / "code", inputs=root / "inputs", output=Path(root / "out")
    )
    assert result.status == "ok", result.reason
    assert json.loads(result.stdout_tail) == arguments


NAMES = st.lists(st.sampled_from(["out", "released", "convert.py", "data", "adapter.yaml"]))


@needs_isolation
@settings(max_examples=25, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(NAMES, NAMES)
def test_the_pr_check_refuses_exactly_the_working_folders_the_sandbox_refuses(
    tmp_path_factory: pytest.TempPathFactory, code: list[str], inputs: list[str]
) -> None:
    """Top-level names of the adapter folder and the released data, laid out for real: the
    sandbox starts the run exactly when the PR check's `names_problem` has nothing to say,
    and refuses it with the same sentence."""
    root = tmp_path_factory.mktemp("names")
    for name in ("code", "inputs", "out"):
        (root / name).mkdir()
    for name in code:
        (root / "code" / name).write_text("x")
    for name in inputs:
        (root / "inputs" / name).mkdir(exist_ok=True)
    problem = names_problem(sorted(set(code)), sorted(set(inputs)))
    result = run_adapter(["true"], code=root / "code", inputs=root / "inputs", output=root / "out")
    if problem is None:
        assert result.status == "ok", result.reason
    else:
        assert (result.status, result.reason) == ("failed", problem)

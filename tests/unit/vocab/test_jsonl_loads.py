"""bot/vocab/jsonl.py `loads`: JSON from outside the process never raises anything but
ValueError, and no other module of bot/ parses such JSON with `json.loads` itself."""

from __future__ import annotations

import re

import pytest

from bot.vocab.jsonl import loads
from tests.support import PROJECT

# Modules that may call json.loads themselves: they read only what the package itself ships
# or just wrote, or they catch RecursionError where they call it (said beside each).
OWN_FILES = {
    # the sandbox's status line; runs under the system Python, standard library only
    "bot/edges/sandbox/supervise.py",
    # an Inspect log; its error names RecursionError for the filer
    "bot/faces/tools/adapters/inspect_/values.py",
    "bot/vocab/jsonl.py",  # loads itself, and the strict record reader
    "bot/edges/dump.py",  # json.loads(json.dumps(data)) of the bot's own data
    "bot/rules/evidence/schema.py",  # the package's schemas/
    "bot/rules/stats/coverage.py",  # the package's coverage_table.json
    "bot/faces/demo/specimen.py",  # the demo's own generated lines
    "bot/faces/tools/fill.py",  # json.loads(json.dumps(...)) of a parsed document
    "bot/faces/tools/adapters/inspect_/epoch.py",  # rfc8785's own output
}


@pytest.mark.parametrize("depth", [10_000, 200_000])
def test_nesting_past_the_parser_is_a_value_error(depth: int) -> None:
    with pytest.raises(ValueError, match="nested deeper"):
        loads("[" * depth + "]" * depth)


@pytest.mark.parametrize("text", ["", "{", "[1,]", "\ud800", b"\xff"])
def test_unreadable_text_is_a_value_error(text: str | bytes) -> None:
    with pytest.raises(ValueError):
        loads(text)


def test_hooks_pass_through() -> None:
    assert loads('{"a": 1.5}', parse_float=str) == {"a": "1.5"}


def test_no_module_parses_outside_json_with_json_loads() -> None:
    """A RecursionError slipped past four readers' `except ValueError` (a resealed cache
    entry, a rerun record, a pin plan, a local archive's metadata): outside JSON goes through
    `loads`, so the pattern cannot come back with a new reader."""
    found = []
    for path in sorted((PROJECT / "bot").rglob("*.py")):
        name = path.relative_to(PROJECT).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if re.search(r"\bjson\.loads\(", line) and name not in OWN_FILES:
                found.append(f"{name}:{number}: {line.strip()}")
    assert found == []

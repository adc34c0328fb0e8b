"""The document schemas (YAML and JSON files, not JSONL lines) are checked by jsonschema-rs
first, with `pattern` and `distinctItems` as Python keywords, and by jsonschema only where it
refuses (bot/rules/evidence/schema.py). A document it accepts must be one jsonschema accepts,
or `validate` would miss findings; and on real documents the two should agree, or the
compiled check saves nothing.

The documents are every one the bot validates while it verifies and resolves the demo
registry and verifies the adversarial corpus (recorded at `_fast_validator`), then mutations
of them: values replaced, fields dropped and added, list items repeated, at any depth.
"""

from __future__ import annotations

import copy
import json
import random
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.evidence import schema
from bot.rules.evidence.schema import SCHEMA_NAMES, validate
from tests.differential.reports import (
    CORPUS_ENTRIES,
    corpus_report,
    demo_registry,
    demo_reports,
)
from tests.support import fuzz_settings

_DOCUMENTS = tuple(name for name in SCHEMA_NAMES if name not in schema._FAST)


class Documents(dict[str, list[Any]]):
    """name -> documents; a short repr for hypothesis's report of a failing example."""

    def __repr__(self) -> str:
        return f"<{sum(map(len, self.values()))} corpus documents>"


def _record(documents: Documents) -> Callable[[str], Callable[[object], bool]]:
    real = schema._fast_validator

    def recording(name: str) -> Callable[[object], bool]:
        check = real(name)

        def is_valid(data: object) -> bool:
            if name in _DOCUMENTS:
                documents.setdefault(name, []).append(copy.deepcopy(data))
            return check(data)

        return is_valid

    return recording


@pytest.fixture(scope="module")
def documents(tmp_path_factory: pytest.TempPathFactory) -> Documents:
    """name -> the distinct documents validated against it, demo and corpus."""
    seen = Documents()
    work = tmp_path_factory.mktemp("documents")
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(schema, "_fast_validator", _record(seen))
        for _ in demo_reports(demo_registry(work / "demo")):
            pass
        for entry in CORPUS_ENTRIES:
            corpus_report(entry, work / "corpus" / entry.name)
    distinct = Documents()
    for name, found in seen.items():
        keys = {json.dumps(data, sort_keys=True, default=repr): data for data in found}
        distinct[name] = [keys[key] for key in sorted(keys)]
    return distinct


def jsonschema_accepts(name: str, data: object) -> bool:
    return next(iter(schema._validator(name).iter_errors(data)), None) is None


def fast_accepts(name: str, data: object) -> bool:
    try:
        return schema._fast_validator(name)(data)
    except (ValueError, TypeError, OverflowError):
        return False


def test_the_corpus_holds_the_documents_every_command_reads(documents: Documents) -> None:
    for name in ("shared-rules", "market", "attempt", "freeze", "judgments", "challenge-run"):
        assert documents.get(name), name
    # Refused documents too (the adversarial corpus): the comparison sees both answers.
    refused = [
        (name, data)
        for name, found in documents.items()
        for data in found
        if not jsonschema_accepts(name, data)
    ]
    assert refused


def test_on_the_corpus_the_two_validators_agree(documents: Documents) -> None:
    disagree = [
        (name, data)
        for name, found in documents.items()
        for data in found
        if fast_accepts(name, data) != jsonschema_accepts(name, data)
    ]
    assert disagree == []


def _paths(node: object, path: tuple[Any, ...] = ()) -> Iterator[tuple[Any, ...]]:
    yield path
    if isinstance(node, dict):
        for key, value in node.items():
            yield from _paths(value, (*path, key))
    elif isinstance(node, list):
        for index, value in enumerate(node):
            yield from _paths(value, (*path, index))


_STRINGS = [
    "",
    "x",
    "a\n",
    "main\n",
    "FILL-IN",
    "FILL-IN: the commit",
    "https://example.org/a\x1cb",  # Python's \s holds U+001C-U+001F and U+0085; Rust's not
    "https://example.org/a\x85b",
    "https://example.org/a b",
    "10.5281/zenodo.1\x1f",
    "a" * 40,
    "a" * 40 + "\n",
    "market-03",
    "snapshot-2027-01-01\n",
    "2027-01-20T09:00:00Z",
    "2027-01-20T09:00:00",
    "2027-02-30",
    "2027-01-20",
    "\u0661\u0662",
    "é",
]


def _value(rng: random.Random) -> object:
    kind = rng.randrange(8)
    if kind == 0:
        return rng.choice([None, True, False])
    if kind == 1:
        return rng.choice([0, 1, -1, 2, 10**30, -(2**63), 2**64])
    if kind == 2:
        return rng.choice([0.0, -0.0, 0.5, 1.0, 1e300, -3.25])
    if kind == 3:
        return rng.choice([[], [0], [1, 1], [1, 1.0], [True, 1]])
    if kind == 4:
        return rng.choice([{}, {"a": 1}, {"": None}])
    if kind == 5:
        return "".join(rng.choice("aZ0-_./:\n \x1c") for _ in range(rng.randrange(6)))
    return rng.choice(_STRINGS)


def mutate(documents: Documents, rng: random.Random) -> tuple[str, Any]:
    """A corpus document with 1-3 random edits at any depth."""
    name = rng.choice(sorted(documents))
    data = copy.deepcopy(rng.choice(documents[name]))
    for _ in range(rng.randint(1, 3)):
        path = rng.choice(list(_paths(data)))
        if not path:
            continue
        parent = data
        for step in path[:-1]:
            parent = parent[step]
        last = path[-1]
        action = rng.choice(["set", "set", "drop", "add", "repeat", "retype", "edit", "edit"])
        if action == "edit" and isinstance(parent[last], str):
            # Where the two regex engines differ: a final newline, Python-only whitespace.
            text = parent[last]
            parent[last] = rng.choice(
                [text + "\n", text + "\x1cb", text + "\x85", f"{text[:1]} {text[1:]}", text + "é"]
            )
        elif action == "drop":
            del parent[last]
        elif action == "add" and isinstance(parent, dict):
            parent[rng.choice(["extra", "notes", "version", f"{last}_"])] = _value(rng)
        elif action == "repeat" and isinstance(parent, list):
            parent.append(copy.deepcopy(parent[last]))  # for the distinctItems lists
        elif action == "retype" and type(parent[last]) is int:
            parent[last] = float(parent[last])  # 1 and 1.0: one JSON value
        else:
            parent[last] = _value(rng)
    return name, data


@fuzz_settings(800)
@given(seed=st.integers(0, 2**64 - 1))
def test_what_jsonschema_rs_accepts_jsonschema_accepts(seed: int, documents: Documents) -> None:
    # Hypothesis draws the seed; the edits are `mutate`'s, so the documents (a fixture) stay
    # out of hypothesis's own data.
    name, document = mutate(documents, random.Random(seed))
    fast = fast_accepts(name, document)
    slow = jsonschema_accepts(name, document)
    if fast:
        refused = [error.message[:200] for error in schema._validator(name).iter_errors(document)]
        assert slow, f"{name}: jsonschema-rs accepts, jsonschema refuses: {refused[:3]}"
    # Either way validate() reports what jsonschema finds (nothing when it accepts).
    assert (validate(name, document, "f.yaml", lines={}) == []) == slow


def test_the_mutations_reach_both_answers(documents: Documents) -> None:
    answers = [fast_accepts(*mutate(documents, random.Random(seed))) for seed in range(300)]
    assert 30 < sum(answers) < 270


@pytest.mark.parametrize("value", ["https://example.org/a\x1cb", "https://example.org/a\x85b"])
def test_python_s_whitespace_is_what_a_pattern_means(value: str) -> None:
    # common.schema.json's url, `^https?://[^\s]+$`: jsonschema-rs's own regex engine accepts
    # these (its \s lacks U+001C-U+001F and U+0085), Python's, and so jsonschema, refuses.
    import jsonschema_rs

    url = r"^https?://[^\s]+$"
    assert jsonschema_rs.Draft202012Validator({"pattern": url}).is_valid(value)
    with pytest.raises(ValueError, match="does not match"):
        schema._PythonPattern({}, url, []).validate(value)


def test_python_s_pattern_keyword_and_distinct_items_are_in_effect() -> None:
    # In effect on a document schema: a final newline after `$` passes as in Python (native
    # jsonschema-rs refuses it), and 1 and 1.0 are one value for distinctItems.
    import jsonschema_rs

    node = {
        "type": "object",
        "properties": {
            "id": {"type": "string", "pattern": "^[a-z]+$"},
            "list": {"type": "array", "distinctItems": True},
        },
    }
    checked = jsonschema_rs.Draft202012Validator(
        node, keywords={"pattern": schema._PythonPattern, "distinctItems": schema._DistinctItems}
    )
    assert checked.is_valid({"id": "abc\n"})
    assert not checked.is_valid({"id": "ab1"})
    assert not checked.is_valid({"list": [1, 1.0]})
    assert checked.is_valid({"list": [1, True]})
    assert not checked.is_valid({"list": [{"a": 1, "b": 2}, {"b": 2, "a": 1}]})


def test_the_inlined_schemas_are_what_referencing_resolves() -> None:
    # The bot inlines `$ref`s with its own pointer lookup (no `referencing` import at
    # start-up); referencing, which jsonschema uses, resolves every one the same.
    registry = schema._registry()

    def lookup(resource_url: str, pointer: str) -> Any:
        return registry.resolver(resource_url).lookup(f"#{pointer}").contents

    for name in SCHEMA_NAMES:
        url = f"{schema._BASE}{name}.schema.json"
        expected = schema._inline(registry.contents(url), url, lookup, depth=0)
        assert schema._inlined(name) == expected, name


def test_a_valid_document_is_checked_without_importing_jsonschema(documents: Documents) -> None:
    import os
    import subprocess
    import sys

    rules = next(
        data for data in documents["shared-rules"] if jsonschema_accepts("shared-rules", data)
    )
    probe = (
        "import json, sys\n"
        "from bot.rules.evidence.schema import validate\n"
        "findings = validate('shared-rules', json.loads(sys.argv[1]), 'r.yaml', lines={})\n"
        "print(json.dumps([findings == [], 'jsonschema' in sys.modules]))\n"
    )
    repo = Path(__file__).resolve().parents[4]
    done = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(rules)],
        capture_output=True,
        text=True,
        check=True,
        cwd=repo,
        env={**os.environ, "PYTHONPATH": str(repo)},
    )
    assert json.loads(done.stdout) == [True, False]

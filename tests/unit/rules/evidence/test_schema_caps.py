"""Schema cost: every array is capped, and uniqueness is checked in linear time.

jsonschema's `uniqueItems` compares a list pairwise when its items do not sort (mixed types):
4,000 items took 5.6 s, and an 870 KB adapter.yaml of ~125k items held `claims verify` for over
an hour (docs/spec.md §4.2). So no schema uses `uniqueItems`; lists that must not
repeat a value say `distinctItems: true`, which bot/rules/evidence/schema.py checks with one hash
per
item, and every array has a `maxItems`, past which its items are not looked at one by one.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.faces.demo.specimen import market_document
from bot.rules.evidence.schema import SCHEMA_NAMES, validate
from bot.vocab.findings import Code

SCHEMAS = Path(__file__).resolve().parents[4] / "schemas"
ARRAY_KEYWORDS = {"items", "prefixItems", "contains", "minItems", "maxItems", "distinctItems"}


def _nodes(node: Any, pointer: str = "") -> Iterator[tuple[str, dict[str, Any]]]:
    """Every schema object in a schema file, with its JSON pointer."""
    if isinstance(node, dict):
        yield pointer, node
        for key, child in node.items():
            yield from _nodes(child, f"{pointer}/{key}")
    elif isinstance(node, list):
        for index, child in enumerate(node):
            yield from _nodes(child, f"{pointer}/{index}")


def _is_array_schema(node: dict[str, Any]) -> bool:
    kind = node.get("type")
    is_array = kind == "array" or (isinstance(kind, list) and "array" in kind)
    return is_array or bool(ARRAY_KEYWORDS & node.keys())


def _schema_files() -> list[Path]:
    files = sorted(SCHEMAS.glob("*.schema.json"))
    assert len(files) == len(SCHEMA_NAMES) + 1  # and common.schema.json, only referenced
    return files


@pytest.mark.parametrize("path", _schema_files(), ids=lambda path: path.name)
def test_every_array_has_max_items(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    # An `allOf` branch of a capped array is checked only within its parent's cap (the
    # validator skips `allOf` past `maxItems`, as it does `contains`).
    covered = {
        f"{pointer}/allOf/{index}"
        for pointer, node in _nodes(schema)
        if isinstance(node.get("maxItems"), int)
        for index in range(len(node.get("allOf", [])))
    }
    uncapped = [
        pointer
        for pointer, node in _nodes(schema)
        if _is_array_schema(node)
        and not isinstance(node.get("maxItems"), int)
        and pointer not in covered
    ]
    assert uncapped == [], f"{path.name}: arrays without maxItems at {uncapped}"


@pytest.mark.parametrize("path", _schema_files(), ids=lambda path: path.name)
def test_no_schema_uses_unique_items(path: Path) -> None:
    schema = json.loads(path.read_text(encoding="utf-8"))
    found = [pointer for pointer, node in _nodes(schema) if "uniqueItems" in node]
    assert found == [], f"{path.name}: uniqueItems at {found} (use distinctItems)"


ADAPTER = {
    "description": "Copies the released trials.",
    "command": ["python", "convert.py"],
    "released_data": [
        {"url": "https://example.org/trials.jsonl", "sha256": "0" * 64, "path": "trials.jsonl"}
    ],
    "outputs": ["freeze-cases.jsonl", "trials.jsonl"],
}


def test_a_repeated_output_names_the_field_and_the_value() -> None:
    outputs = ["trials.jsonl", "scores.yaml", "trials.jsonl", "freeze-cases.jsonl"]
    (finding,) = validate("adapter", dict(ADAPTER, outputs=outputs), "adapter/adapter.yaml")
    assert finding.code is Code.SCHEMA
    assert finding.message == 'outputs: "trials.jsonl" is repeated (items 0 and 2)'


WHY_BOTH = (
    "a wrapped attempt's adapter must write both freeze-cases.jsonl and trials.jsonl, since the"
    " bars and floors read the cases (kind, family) as well as the trials and both must come"
    " from the released data"
)


@pytest.mark.parametrize(
    ("outputs", "missing"),
    [
        (["trials.jsonl"], ["freeze-cases.jsonl"]),
        (["freeze-cases.jsonl", "scores.yaml"], ["trials.jsonl"]),
        (["scores.yaml"], ["freeze-cases.jsonl", "trials.jsonl"]),
    ],
)
def test_outputs_must_hold_the_cases_and_the_trials(outputs: list[str], missing: list[str]) -> None:
    """A wrapped attempt's bars and floors read its cases' kind and family: the cases must come
    from the released data through the adapter, like the trials (a case's sha256 covers only
    its content)."""
    findings = validate("adapter", dict(ADAPTER, outputs=outputs), "adapter/adapter.yaml")
    shown = json.dumps(outputs)
    assert [(f.code, f.message) for f in findings] == [
        (Code.SCHEMA, f'outputs: {shown} lacks "{name}": {WHY_BOTH}') for name in missing
    ]


def test_the_cases_and_the_trials_are_enough() -> None:
    assert validate("adapter", ADAPTER, "adapter/adapter.yaml") == []


def test_a_long_list_is_one_finding_and_its_items_are_not_checked() -> None:
    """20,001 items of mixed types: once past maxItems, only the length is reported (not one
    `enum` error per item, nor a pairwise uniqueness check)."""
    adapter = dict(ADAPTER, outputs=["x", *range(20_000)])
    (finding,) = validate("adapter", adapter, "adapter/adapter.yaml")
    assert finding.code is Code.SCHEMA
    assert finding.message == "outputs: 20001 items, more than the 4 allowed"


@pytest.mark.parametrize(
    ("field", "values", "message"),
    [
        ("kinds", ["run", "wrapped", "run"], 'kinds: "run" is repeated (items 0 and 2)'),
        (
            "unit_keys",
            ["trajectory", "trajectory"],
            'unit_keys: "trajectory" is repeated (items 0 and 1)',
        ),
        (
            "required_outputs",
            ["certificates", "certificates"],
            'required_outputs: "certificates" is repeated (items 0 and 1)',
        ),
    ],
)
def test_a_market_list_that_repeats_a_value(field: str, values: list[str], message: str) -> None:
    market = market_document(3, "default")
    market[field] = values
    (finding,) = validate("market", market, "markets/market-03.yaml")
    assert (finding.code, finding.message) == (Code.SCHEMA, message)


def test_repeated_required_family() -> None:
    market = market_document(3, "default")
    market["floors"]["required_families"] = ["sabotage", "sabotage"]
    (finding,) = validate("market", market, "markets/market-03.yaml")
    assert finding.message == 'floors.required_families: "sabotage" is repeated (items 0 and 1)'


@pytest.mark.parametrize(
    ("first", "second", "same"),
    [
        (1, 1.0, True),  # JSON numbers: equal values
        (True, 1, False),  # a boolean is not a number
        (False, 0, False),
        (None, False, False),
        ("1", 1, False),
        ({"a": [1, 2]}, {"a": [1, 2.0]}, True),
        ({"a": 1, "b": 2}, {"b": 2, "a": 1}, True),
        ([1, 2], [2, 1], False),
        ({"a": True}, {"a": 1}, False),
    ],
)
def test_distinct_key_is_json_equality(first: object, second: object, same: bool) -> None:
    from bot.rules.evidence.schema import distinct_key

    assert (distinct_key(first) == distinct_key(second)) is same

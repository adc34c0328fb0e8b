"""bot/faces/tools/init.py and the placeholder rule: stubs the bot reads, refused until filled."""

from __future__ import annotations

import pytest

from bot.edges.load.yaml_ import parse_yaml
from bot.faces.demo.specimen import load_market, market_document
from bot.faces.tools.init import attempt_stub, freeze_stub
from bot.rules.evidence.placeholders import check_placeholders
from bot.rules.evidence.schema import validate
from bot.vocab.findings import Code, Finding
from tests.support import shared_rules

PROTOCOL = {"rounds": 5, "access": "white-box", "teams": ["a", "b"]}

SHARED = shared_rules()


@pytest.mark.parametrize(
    ("number", "budget", "kind"),
    [(3, "default", "run"), (5, "serious", "run"), (20, "own", "run"), (3, "default", "wrapped")],
)
def test_every_stub_parses_and_every_value_to_supply_is_refused(
    number: int, budget: str, kind: str
) -> None:
    extra = {"attack_protocol": PROTOCOL} if budget == "own" else {}
    market = load_market(market_document(number, budget, **extra), SHARED)
    for name, raw, schema in (
        ("attempt.yaml", attempt_stub(market, SHARED, "alice-lab", kind, "s"), "attempt"),
        ("freeze.yaml", freeze_stub(market, SHARED, kind, "s"), "freeze"),
    ):
        document, problems = parse_yaml(raw, name)
        assert document is not None and problems == [], problems
        assert raw.decode().startswith("# yaml-language-server: $schema=s\n")
        errors = validate(schema, document.data, name, document.lines)
        placeholders = check_placeholders([(name, document.data, document.line_of)], errors)
        lines = {f.line for f in [*errors, *placeholders]}
        expected = {
            document.line_of(where)
            for where, value in _leaves(document.data)
            if isinstance(value, str) and value.startswith("FILL-IN")
        }
        assert expected and lines == expected  # every placeholder line, and no other
    if budget == "own":
        data = parse_yaml(attempt_stub(market, SHARED, "a-b-c", kind, "s"), "a")[0]
        assert data is not None
        protocol = data.data["adversarial"]["protocol"]  # type: ignore[index]
        assert {k: protocol[k] for k in PROTOCOL} == PROTOCOL


def _leaves(data: object, where: tuple[object, ...] = ()) -> list[tuple[tuple, object]]:
    if isinstance(data, dict):
        return [leaf for key, value in data.items() for leaf in _leaves(value, (*where, key))]
    if isinstance(data, list):
        return [leaf for i, value in enumerate(data) for leaf in _leaves(value, (*where, i))]
    return [(where, data)]


def test_placeholders_are_schema_findings_once_per_line() -> None:
    data = {"title": "FILL-IN: a title", "method": {"name": "FILL-IN: x"}, "ok": "fine"}
    lines = {("title",): 3, ("method", "name"): 5}
    schema_error = Finding(Code.SCHEMA, "method.name: bad", "attempt.yaml", 5)
    found = check_placeholders(
        [("attempt.yaml", data, lambda where: lines.get(where))], [schema_error]
    )
    assert [(f.code, f.line) for f in found] == [(Code.SCHEMA, 3)]
    assert found[0].message.startswith("title: 'FILL-IN: a title' is a placeholder")
    other = check_placeholders([("trials.jsonl", data, lambda where: 1)])
    assert other == []

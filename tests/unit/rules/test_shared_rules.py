"""shared-rules/common-v1.yaml: valid against its schema and faithful to the seed text."""

from __future__ import annotations

import copy
import itertools
import json
import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from jsonschema import Draft202012Validator

from bot.rules.evidence.schema import validate

REPO = Path(__file__).resolve().parents[3]
RULES_PATH = REPO / "shared-rules" / "common-v1.yaml"
SCHEMA_PATH = REPO / "schemas" / "shared-rules.schema.json"
SEED_PATH = Path(__file__).resolve().parents[4] / "shared" / "seeds" / "shared-rules-common-v1.txt"

BULLET = "\u2022"
MIDDOT = "\u00b7"

# Every "Machine-readable:" item of the seed, keyed by (seed heading, phrase), and the YAML
# path that must hold the same number. "min groups" occurs under two headings.
MACHINE_READABLE: dict[tuple[str, str], tuple[str, ...]] = {
    ("Red teams", "min groups"): ("adversarial", "routes", "red_teams", "min_groups"),
    ("Red teams", "min organizations"): ("adversarial", "routes", "red_teams", "min_organizations"),
    ("Red teams", "min hours each"): ("adversarial", "routes", "red_teams", "min_hours_each"),
    ("Bounty", "min usd"): ("adversarial", "routes", "bounty", "min_usd"),
    ("Bounty", "min days open"): ("adversarial", "routes", "bounty", "min_days_open"),
    ("Bounty", "min qualifying submissions"): (
        "adversarial",
        "routes",
        "bounty",
        "min_qualifying_submissions",
    ),
    ("Generator", "min planted found"): ("adversarial", "routes", "generator", "min_planted_found"),
    ("Generator", "min independent hours"): (
        "adversarial",
        "routes",
        "generator",
        "min_independent_hours",
    ),
    ("Default Budget", "min groups"): ("adversarial", "default", "min_groups"),
    ("Default Budget", "min hours total"): ("adversarial", "default", "min_hours_total"),
    ("Evidence", "max local log bytes"): ("evidence", "max_local_log_bytes"),
    ("Evidence", "excerpt bytes"): ("evidence", "excerpt_bytes"),
    ("Deadlines", "window days"): ("deadlines", "window_days"),
    ("Deadlines", "annul after days"): ("deadlines", "annul_after_days"),
}

EXPECTED_CHECK_IDS = {
    "all": ["reconstructible", "per-instance-certificate", "not-toy-only", "broadly-capable"],
    "wrapped": ["wrapping-within-rules"],
    "serious": ["adversarial-route-serious"],
    "own": ["own-protocol-followed"],
}
# Checks the registry adds to the seed's lists (docs/spec-notes.md): their text is ours.
REGISTRY_CHECK_GROUPS = ("own",)


# --------------------------------------------------------------------------- fixtures


@pytest.fixture(scope="module")
def rules_text() -> str:
    return RULES_PATH.read_text(encoding="utf-8")


@pytest.fixture(scope="module")
def rules(rules_text: str) -> dict[str, Any]:
    data = yaml.safe_load(rules_text)
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def schema() -> dict[str, Any]:
    data = json.loads(SCHEMA_PATH.read_text(encoding="utf-8"))
    assert isinstance(data, dict)
    return data


@pytest.fixture(scope="module")
def seed_text() -> str:
    if not SEED_PATH.is_file():
        pytest.skip(f"seed not available at {SEED_PATH}")
    return SEED_PATH.read_text(encoding="utf-8")


def _is_heading(block: str) -> bool:
    """A seed heading is a short single line without sentence punctuation or a bullet."""
    return "\n" not in block and len(block) < 60 and not any(c in block for c in '.:"' + BULLET)


def parse_seed(text: str) -> list[tuple[str, list[str]]]:
    """The seed as [(heading, [paragraph, ...]), ...]; list lines lose their indentation."""
    blocks = [
        "\n".join(line.strip() for line in chunk.splitlines())
        for chunk in re.split(r"\n[ \t]*\n", text.strip())
    ]
    sections: list[tuple[str, list[str]]] = []
    for block in blocks:
        if _is_heading(block):
            sections.append((block, []))
        else:
            assert sections, f"paragraph before the first heading: {block[:60]!r}"
            sections[-1][1].append(block)
    return sections


@pytest.fixture(scope="module")
def seed(seed_text: str) -> list[tuple[str, list[str]]]:
    return parse_seed(seed_text)


def _paragraphs(seed: list[tuple[str, list[str]]], heading: str) -> list[str]:
    hits = [paras for h, paras in seed if h == heading]
    assert len(hits) == 1, f"heading {heading!r} occurs {len(hits)} times in the seed"
    return hits[0]


def _get(data: Any, path: tuple[str, ...]) -> Any:
    for key in path:
        assert isinstance(data, dict) and key in data, f"missing {'.'.join(path)}"
        data = data[key]
    return data


def _number(token: str) -> int | float:
    return float(token) if "." in token else int(token)


# --------------------------------------------------------------------------- (a) schema


def test_schema_is_valid_draft_2020_12(schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    assert schema["$schema"] == "https://json-schema.org/draft/2020-12/schema"
    assert schema["$id"].endswith("/schemas/shared-rules.schema.json")
    assert schema["title"] and schema["description"]


def test_rules_validate_against_schema(rules: dict[str, Any], schema: dict[str, Any]) -> None:
    Draft202012Validator.check_schema(schema)
    errors = sorted(Draft202012Validator(schema).iter_errors(rules), key=lambda e: e.json_path)
    assert not errors, "\n".join(f"{e.json_path}: {e.message}" for e in errors)


def _set(data: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    for key in path[:-1]:
        data = data[key]
    data[path[-1]] = value


@pytest.mark.parametrize(
    ("path", "value"),
    [
        (("statistics", "confidence"), 1.0),
        (("statistics", "confidence"), 0),
        # The result object's values join no trials (bars.unit_structure leaves it out).
        (("statistics", "unit_keys"), ["system", "result"]),
        (("access_levels",), ["white-box", "grey-box", "black-box"]),
        (("adversarial_budget_by_market", "serious"), [1, 1]),
        (("adversarial_budget_by_market", "default"), [0]),
        (("adversarial_budget_by_market", "default"), ["2"]),
        (("adversarial", "routes", "red_teams", "min_groups"), 0),
        (("adversarial", "routes", "red_teams", "min_groups"), "3"),
        (("adversarial", "routes", "red_teams", "surprise"), 1),
        (("adversarial", "routes", "generator", "min_planted_found"), 80),
        (("evidence", "max_local_log_bytes"), 2.5),
        (("deadlines", "window_days"), True),
        (("human_checks", "all"), [{"id": "Not_A_Slug", "text": "x"}]),
        (("three_way_rule", "maybe"), "x"),
        (("extra_top_level",), 1),
    ],
)
def test_schema_rejects_broken_rules(
    rules: dict[str, Any], schema: dict[str, Any], path: tuple[str, ...], value: Any
) -> None:
    broken = copy.deepcopy(rules)
    _set(broken, path, value)
    # The bot's validator: repeats ([1, 1]) are its `distinctItems` keyword, not uniqueItems.
    assert validate("shared-rules", broken, "shared-rules/common-v1.yaml")


def test_schema_rejects_missing_required_key(rules: dict[str, Any], schema: dict[str, Any]) -> None:
    broken = copy.deepcopy(rules)
    del broken["adversarial"]["default"]["min_hours_total"]
    assert not Draft202012Validator(schema).is_valid(broken)


# --------------------------------------------------------------------------- YAML loader rules


def test_yaml_uses_only_the_plain_subset(rules_text: str) -> None:
    assert rules_text.splitlines()[0] == (
        "# yaml-language-server: $schema=../schemas/shared-rules.schema.json"
    )
    assert len(list(yaml.safe_load_all(rules_text))) == 1
    for token in yaml.scan(rules_text):
        assert not isinstance(token, yaml.AnchorToken | yaml.AliasToken | yaml.TagToken), token
        assert not isinstance(token, yaml.DocumentStartToken), "one document, no '---'"

    def walk(node: yaml.Node) -> None:
        if isinstance(node, yaml.MappingNode):
            keys = [k.value for k, _ in node.value]
            assert len(keys) == len(set(keys)), f"duplicate keys at line {node.start_mark.line}"
            assert "<<" not in keys
            for k, v in node.value:
                assert k.tag == "tag:yaml.org,2002:str", f"non-string key {k.value!r}"
                walk(v)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                walk(item)

    root = yaml.compose(rules_text)
    assert root is not None
    walk(root)


def test_three_way_keys_are_strings_not_yaml11_booleans(rules: dict[str, Any]) -> None:
    assert set(rules["three_way_rule"]) == {"yes", "no", "other", "several_attempts", "note"}


# --------------------------------------------------------------------------- (b) numbers


def _machine_readable_items(
    seed: list[tuple[str, list[str]]],
) -> dict[tuple[str, str], str]:
    items: dict[tuple[str, str], str] = {}
    for heading, paras in seed:
        for para in paras:
            if not para.startswith("Machine-readable:"):
                continue
            for item in para.removeprefix("Machine-readable:").split(MIDDOT):
                m = re.fullmatch(r"\s*([a-z][a-z ]*?)\s+(\d+(?:\.\d+)?)\s*", item)
                assert m, f"unparsed machine-readable item {item!r} under {heading!r}"
                key = (heading, m[1])
                assert key not in items, f"duplicate machine-readable item {key}"
                items[key] = m[2]
    return items


def test_every_machine_readable_item_is_mapped(seed: list[tuple[str, list[str]]]) -> None:
    items = _machine_readable_items(seed)
    assert set(items) == set(MACHINE_READABLE)


@pytest.mark.parametrize(("key", "path"), sorted(MACHINE_READABLE.items()))
def test_machine_readable_number_matches_yaml(
    seed: list[tuple[str, list[str]]],
    rules: dict[str, Any],
    key: tuple[str, str],
    path: tuple[str, ...],
) -> None:
    token = _machine_readable_items(seed)[key]
    expected = _number(token)
    actual = _get(rules, path)
    assert not isinstance(actual, bool) and isinstance(actual, int | float), actual
    if isinstance(expected, int):
        assert isinstance(actual, int), f"{'.'.join(path)} must be an integer"
    assert actual == expected


def _markets(fragment: str) -> list[int]:
    return [int(n) for n in re.findall(r"\d+", fragment)]


def test_budget_table_matches_seed(
    seed: list[tuple[str, list[str]]], rules: dict[str, Any]
) -> None:
    (table,) = _paragraphs(seed, "Adversarial Budget By Market")
    budget = rules["adversarial_budget_by_market"]
    default = re.search(r"Default \([^)]*\): Markets ([\d, ]+)\.", table)
    serious = re.search(r"Full common-rule \"serious\" \([^)]*\): Markets ([\d, ]+)\.", table)
    own = re.findall(r"Market (\d+) states its own attack protocol", table)
    not_in = re.findall(r"Market (\d+) is not in this registry\.", table)
    assert default and serious
    assert budget["default"] == _markets(default[1])
    assert budget["serious"] == _markets(serious[1])
    assert budget["own"] == [int(n) for n in own]
    assert budget["not_in_registry"] == [int(n) for n in not_in]
    assert budget["text"] == table
    assert budget["not_in_registry_message"] in table
    # "Market N: the default budget is enough." must agree with the default list.
    for n in re.findall(r"Market (\d+): the default budget is enough", table):
        assert int(n) in budget["default"]


# --------------------------------------------------------------------------- (c) human checks


def test_human_check_ids_fixed(rules: dict[str, Any]) -> None:
    checks = rules["human_checks"]
    assert {k: [c["id"] for c in checks[k]] for k in EXPECTED_CHECK_IDS} == EXPECTED_CHECK_IDS
    assert set(checks) == {"registry_rule", *EXPECTED_CHECK_IDS}


def test_the_registry_s_own_checks_are_not_in_the_seed(
    seed_text: str, rules: dict[str, Any]
) -> None:
    # Market 20 states its own attack protocol; whether an attack followed it is judged by
    # `own-protocol-followed`, a check the registry adds (the seed's lists have none for it).
    flat = " ".join(seed_text.split())
    for group in REGISTRY_CHECK_GROUPS:
        for check in rules["human_checks"][group]:
            assert check["id"] not in flat


def test_human_checks_match_seed(seed: list[tuple[str, list[str]]], rules: dict[str, Any]) -> None:
    for group, heading in (("all", "All"), ("wrapped", "Wrapped"), ("serious", "Serious")):
        (block,) = _paragraphs(seed, heading)
        parsed = []
        for line in block.splitlines():
            m = re.fullmatch(BULLET + r" ([a-z0-9-]+): (.+)", line)
            assert m, line
            parsed.append({"id": m[1], "text": m[2]})
        assert rules["human_checks"][group] == parsed
        assert [c["id"] for c in parsed] == EXPECTED_CHECK_IDS[group]
    registry_rules = [paras for h, paras in seed if h == "Registry Rule"]
    assert rules["human_checks"]["registry_rule"] == registry_rules[0][0]
    assert rules["wrapping"]["registry_rule"] == registry_rules[1][0]


# --------------------------------------------------------------------------- (d) markets


def test_market_lists_are_disjoint_and_cover_1_to_21(rules: dict[str, Any]) -> None:
    budget = rules["adversarial_budget_by_market"]
    lists = [budget[k] for k in ("default", "serious", "own", "not_in_registry")]
    combined = [n for lst in lists for n in lst]
    assert len(combined) == len(set(combined)), "a market is in two budget classes"
    assert sorted(combined) == list(range(1, 22))
    assert budget["own"] == [20]
    assert budget["not_in_registry"] == [14]


# --------------------------------------------------------------------------- (e) sections


def test_sections_reproduce_the_seed_in_order(
    seed: list[tuple[str, list[str]]], rules: dict[str, Any]
) -> None:
    sections = rules["sections"]
    assert [s["heading"] for s in sections] == [h for h, _ in seed]
    for section, (heading, paras) in zip(sections, seed, strict=True):
        assert section.get("text") == ("\n\n".join(paras) if paras else None), heading


def test_section_levels_nest(rules: dict[str, Any]) -> None:
    levels = [s["level"] for s in rules["sections"]]
    assert levels[0] == 1
    for before, after in itertools.pairwise(levels):
        assert after <= before + 1, "a heading level skips a level"
    by_heading = {s["heading"]: s["level"] for s in rules["sections"]}
    assert by_heading["Glossary"] < by_heading["Signed statement"]
    assert by_heading["Human Checks"] < by_heading["All"]


# --------------------------------------------------------------------------- verbatim prose


def test_title_source_and_glossary_match_seed(
    seed: list[tuple[str, list[str]]], rules: dict[str, Any]
) -> None:
    headings = [h for h, _ in seed]
    assert rules["title"] in headings
    assert [rules["source"]] == _paragraphs(seed, rules["title"])
    start, end = headings.index("Glossary"), headings.index("Judgment Stack")
    assert [g["term"] for g in rules["glossary"]] == headings[start + 1 : end]
    for entry in rules["glossary"]:
        assert [entry["text"]] == _paragraphs(seed, entry["term"])


def test_three_way_rule_recomposes_the_seed_paragraph(
    seed: list[tuple[str, list[str]]], rules: dict[str, Any]
) -> None:
    rule = rules["three_way_rule"]
    recomposed = (
        f"YES: {rule['yes']} NO: {rule['no']} OTHER: {rule['other']} "
        f"{rule['several_attempts']} {rule['note']}"
    )
    assert [recomposed] == _paragraphs(seed, "Three Way Rule")


@pytest.mark.parametrize(
    ("heading", "path"),
    [
        ("Qualifying Attempt", ("qualifying_attempt",)),
        ("Exercised Bars", ("exercised_bars", "text")),
        ("Full Procedure", ("common_qualification", "full_procedure")),
        ("Per Instance Certificate", ("per_instance_certificate", "text")),
        ("Serious Adversarial Evaluation", ("adversarial", "text")),
        ("Red teams", ("adversarial", "routes", "red_teams", "text")),
        ("Bounty", ("adversarial", "routes", "bounty", "text")),
        ("Generator", ("adversarial", "routes", "generator", "text")),
        ("Default Budget", ("adversarial", "default", "text")),
        ("Evidence", ("evidence", "text")),
        ("Hidden Suites", ("hidden_suites", "text")),
        ("Wrapping", ("wrapping", "text")),
        ("Several Papers", ("wrapping", "several_papers")),
        ("One Trial Per Case", ("statistics", "texts", "one_trial_per_case")),
        ("Distinct Benchmark Systems", ("statistics", "texts", "distinct_benchmark_systems")),
        ("Unit Rule", ("statistics", "texts", "unit_rule")),
        ("Clopper Pearson", ("statistics", "texts", "clopper_pearson")),
        ("Delong", ("statistics", "texts", "delong")),
        ("Class Conditional", ("statistics", "texts", "class_conditional")),
        ("Deadlines", ("deadlines", "text")),
    ],
)
def test_prose_is_verbatim(
    seed: list[tuple[str, list[str]]],
    rules: dict[str, Any],
    heading: str,
    path: tuple[str, ...],
) -> None:
    prose = [p for p in _paragraphs(seed, heading) if not p.startswith("Machine-readable:")]
    assert [_get(rules, path)] == prose


def test_every_prose_string_occurs_in_seed(seed_text: str, rules: dict[str, Any]) -> None:
    flat = " ".join(seed_text.split())

    def strings(node: Any) -> list[str]:
        if isinstance(node, str):
            return [node]
        if isinstance(node, dict):
            return [s for v in node.values() for s in strings(v)]
        if isinstance(node, list):
            return [s for v in node for s in strings(v)]
        return []

    body = {k: v for k, v in rules.items() if k != "sections"}
    body["human_checks"] = {
        k: v for k, v in rules["human_checks"].items() if k not in REGISTRY_CHECK_GROUPS
    }
    for text in strings(body):
        if " " in text:  # prose, not an id or enum value
            assert " ".join(text.split()) in flat, text[:80]


def test_wrapping_actions_quote_the_seed(rules: dict[str, Any]) -> None:
    wrapping = rules["wrapping"]
    allowed, forbidden = wrapping["text"].split(" It may not ", 1)
    assert len(wrapping["allowed"]) == 4 and len(wrapping["forbidden"]) == 3
    for item in wrapping["allowed"]:
        assert item["text"] in allowed
    for item in wrapping["forbidden"]:
        assert item["text"] in forbidden
    ids = [i["id"] for i in wrapping["allowed"] + wrapping["forbidden"]]
    assert len(ids) == len(set(ids))

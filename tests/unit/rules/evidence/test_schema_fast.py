"""bot/rules/evidence/schema.py's jsonschema-rs pre-check never accepts what jsonschema refuses.

The per-line schemas are checked by jsonschema-rs first and by jsonschema only where it
refuses; so a line it accepts must be one jsonschema accepts too. These tests mutate valid
cases, trials and certificates at random (and by hand at the edges where the two validators
are known to differ) and compare the pre-check with jsonschema itself.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.evidence import schema
from bot.rules.evidence.schema import validate

VALID: dict[str, dict[str, Any]] = {
    "trial": {
        "case_id": "sabotage-001",
        "system": "sim-model-a-seed-01",
        "started_at": "2027-01-20T09:00:00Z",
        "trajectory": "traj-1",
        "evaluator": None,
        "attack_family": "sabotage/role-play",
        "result": {"verdict": "caught", "score": 0.5},
    },
    "freeze-case": {
        "case_id": "sabotage-001",
        "sha256": "a" * 64,
        "family": "sabotage",
        "kind": "attack",
        "public": {"title": "t"},
        "content": {"prompt": "p"},
    },
    "certificate": {
        "system": "sim-model-a-seed-01",
        "measured": "rate",
        "setup": "setup",
        "abstain": False,
        "label": "monitored",
    },
}


def jsonschema_errors(name: str, data: object) -> list[str]:
    """jsonschema's own errors for `data` (no pre-check)."""
    return [error.message for error in schema._validators()[name].iter_errors(data)]


def fast_accepts(name: str, data: object) -> bool:
    try:
        return schema._fast_validators()[name](data)
    except (ValueError, TypeError, OverflowError):
        return False


_VALUES = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-(2**70), max_value=2**70),
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from(
        [
            "",
            "x",
            "a\n",
            "sabotage-001\n",
            "c" * 200,
            "c" * 201,
            "2027-01-20T09:00:00Z",
            "2027-01-20T09:00:00",
            "2027-01-20T09:00:00+01:00",
            "2027-01-20t09:00:00z",
            "2027-02-30T09:00:00Z",
            "2027-01-20T09:00:60Z",
            "2027-01-20 09:00:00Z",
            "2027-01-20",
            "A" * 64,
            "a" * 64 + "\n",
            "\u0661\u0662",
            "é",
            "a/b:c.d_e-f",
            "-x",
        ]
    ),
    st.text(max_size=8),
    st.lists(st.integers(), max_size=2),
    st.dictionaries(st.text(max_size=3), st.integers(), max_size=2),
)


@st.composite
def mutated(draw: st.DrawFn) -> tuple[str, dict[str, Any]]:
    name = draw(st.sampled_from(sorted(VALID)))
    data = copy.deepcopy(VALID[name])
    for _ in range(draw(st.integers(1, 3))):
        action = draw(st.sampled_from(["set", "drop", "add", "nested"]))
        keys = sorted(data)
        if action == "drop" and keys:
            del data[draw(st.sampled_from(keys))]
        elif action == "add":
            data[draw(st.sampled_from(["extra", "scope_reason", "version", "content"]))] = draw(
                _VALUES
            )
        elif action == "nested" and isinstance(data.get("result"), dict):
            data["result"][draw(st.text(max_size=3))] = draw(_VALUES)
        elif keys:
            data[draw(st.sampled_from(keys))] = draw(_VALUES)
    return name, data


@settings(max_examples=600, deadline=None)
@given(mutated())
def test_what_the_pre_check_accepts_jsonschema_accepts(case: tuple[str, dict[str, Any]]) -> None:
    name, data = case
    if fast_accepts(name, data):
        assert jsonschema_errors(name, data) == []
    # Either way validate() reports exactly jsonschema's errors (none when it accepts).
    assert (validate(name, data, "f.jsonl", line=1) == []) == (jsonschema_errors(name, data) == [])


@pytest.mark.parametrize("name", sorted(VALID))
def test_valid_lines_pass_both(name: str) -> None:
    assert fast_accepts(name, VALID[name])
    assert jsonschema_errors(name, VALID[name]) == []


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("case_id", "sabotage-001\n"),  # Python's `$` allows a final newline: jsonschema passes
        ("started_at", "2027-01-20T09:00:00"),  # naive: timestamp-naive, from jsonschema
        ("started_at", "2027-02-30T09:00:00Z"),
        ("system", ""),
        ("result", {"score": 10**30}),
    ],
)
def test_findings_are_jsonschema_s(
    field: str, value: object, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = dict(VALID["trial"], **{field: value})
    fast = validate("trial", data, "trials.jsonl", line=7)
    monkeypatch.setattr(schema, "_fast_validator", lambda name: None)
    slow = validate("trial", data, "trials.jsonl", line=7)
    assert fast == slow

"""Issue 23, item 1: how units formed, in words (bot/rules/stats/formation.py)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.rules.stats.formation import describe_pair, describe_units, separate_pair
from bot.rules.stats.units import collapse_units

KEYS = ("system", "trajectory", "evaluator", "attack_family")


@dataclass(frozen=True)
class _Trial:
    line: int
    keys: Mapping[str, Any]


def _trials(*rows: tuple[str, str | None, str | None, str | None]) -> list[_Trial]:
    return [_Trial(n, dict(zip(KEYS, row, strict=True))) for n, row in enumerate(rows, start=1)]


def test_every_trial_its_own_unit_needs_no_words() -> None:
    trials = _trials(("a", "t1", None, None), ("b", "t2", None, None))
    assert describe_units(collapse_units([t.keys for t in trials], KEYS), trials, KEYS) == ()


def test_a_chain_names_each_shared_value_and_the_busiest_keys_fix() -> None:
    # 1-2 share system 'a'; 2-3 share attack family 'inj'; 4 alone.
    trials = _trials(
        ("a", "t1", None, None),
        ("a", "t2", None, "inj"),
        ("b", "t3", None, "inj"),
        ("c", "t4", None, None),
    )
    structure = collapse_units([t.keys for t in trials], KEYS)
    texts = describe_units(structure, trials, KEYS)
    assert texts[0] == (
        "a unit of 3 trials (lines 1, 2, 3): 2 trials share system 'a',"
        " 2 trials share attack_family 'inj'"
    )
    assert texts[1].startswith("to separate them by system: run each case on its own system")
    # Trials 1 and 3 share nothing themselves: trial 2 joins them.
    assert describe_pair(trials[0], trials[2], KEYS, 3).startswith("they share no value")
    assert separate_pair(trials[0], trials[2], KEYS) == ""
    assert describe_pair(trials[1], trials[2], KEYS, 3) == "both have attack_family 'inj'"
    fix = separate_pair(trials[1], trials[2], KEYS)
    # Two attacks of one family may really share it: the text says the bar's constraint and
    # what the study would need, before the advice for a value recorded wrong.
    assert fix.startswith("this bar counts a trial only in a unit of its own")
    assert "if the two really share attack_family 'inj', they cannot both count for it" in fix
    assert "a distinct attack family per attack, or a market without attack_family" in fix
    assert fix.index("distinct attack family") < fix.index("write attack_family null")


def test_at_most_three_units_are_described_largest_first() -> None:
    rows = [(f"s{n // 2}", f"t{n}", None, None) for n in range(10)]  # five pairs
    rows.append(("s0", "t10", None, None))  # the first unit has three trials
    trials = _trials(*rows)
    texts = describe_units(collapse_units([t.keys for t in trials], KEYS), trials, KEYS)
    assert texts[0].startswith("a unit of 3 trials (lines 1, 2, 11): all 3 trials share system")
    assert [t.split(" (")[0] for t in texts[1:3]] == ["a unit of 2 trials"] * 2
    assert texts[3] == "and 2 more unit(s) of 2 to 2 trials"
    assert texts[4].startswith("to separate them by system")

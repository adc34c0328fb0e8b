"""bot.rules.stats.units: union-find unit collapse and failing-unit counts (docs/spec.md §6)."""

from __future__ import annotations

import random
from collections.abc import Mapping, Sequence

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.stats.errors import StatisticsError
from bot.rules.stats.units import UnitStructure, collapse_units, unit_failures

KEYS = ("system", "evaluator", "seed")


def _partition(structure: UnitStructure) -> frozenset[frozenset[int]]:
    return frozenset(frozenset(group) for group in structure.members)


def test_transitive_join_across_keys() -> None:
    trials: list[dict[str, object]] = [
        {"system": "a", "evaluator": "x", "seed": None},  # 0
        {"system": "b", "evaluator": "x", "seed": None},  # 1 joins 0 via evaluator
        {"system": "b", "evaluator": "y", "seed": None},  # 2 joins 1 via system
        {"system": "c", "evaluator": "z", "seed": None},  # 3 alone
        {"system": "d", "evaluator": "w", "seed": 7},  # 4
        {"system": "e", "evaluator": "v", "seed": 7},  # 5 joins 4 via seed
    ]
    structure = collapse_units(trials, KEYS)
    assert structure.unit_of == (0, 0, 0, 1, 2, 2)
    assert structure.count == 3
    assert structure.largest == 3
    assert structure.members == ((0, 1, 2), (3,), (4, 5))
    assert structure.nulls_per_key == {"system": 0, "evaluator": 0, "seed": 4}
    assert structure.joins_per_key == {"system": 1, "evaluator": 1, "seed": 1}


def test_values_are_compared_per_key() -> None:
    trials = [{"system": "a", "evaluator": "b"}, {"system": "b", "evaluator": "a"}]
    structure = collapse_units(trials, ["system", "evaluator"])
    assert structure.count == 2
    assert structure.joins_per_key == {"system": 0, "evaluator": 0}


def test_null_and_empty_string_never_join() -> None:
    trials = [{"system": None, "seed": ""} for _ in range(4)]
    structure = collapse_units(trials, ["system", "seed"])
    assert structure.count == 4
    assert structure.largest == 1
    assert structure.nulls_per_key == {"system": 4, "seed": 4}
    assert structure.joins_per_key == {"system": 0, "seed": 0}


def test_join_credit_goes_to_earlier_key() -> None:
    trials = [{"system": "a", "evaluator": "x"}, {"system": "a", "evaluator": "x"}]
    assert collapse_units(trials, ["system", "evaluator"]).joins_per_key == {
        "system": 1,
        "evaluator": 0,
    }
    assert collapse_units(trials, ["evaluator", "system"]).joins_per_key == {
        "evaluator": 1,
        "system": 0,
    }


def test_units_numbered_by_first_appearance() -> None:
    trials = [{"k": "b"}, {"k": "a"}, {"k": "b"}, {"k": "c"}, {"k": "a"}]
    structure = collapse_units(trials, ["k"])
    assert structure.unit_of == (0, 1, 0, 2, 1)
    assert structure.members == ((0, 2), (1, 4), (3,))


def test_bool_and_int_values_do_not_join_but_int_and_float_do() -> None:
    trials: list[dict[str, object]] = [{"k": True}, {"k": 1}, {"k": 1.0}]
    assert collapse_units(trials, ["k"]).unit_of == (0, 1, 1)


def test_no_trials_and_no_keys() -> None:
    empty = collapse_units([], KEYS)
    assert (empty.count, empty.largest, empty.unit_of, empty.members) == (0, 0, (), ())
    assert empty.nulls_per_key == dict.fromkeys(KEYS, 0)
    keyless = collapse_units([{}, {}], [])
    assert (keyless.count, keyless.largest) == (2, 1)


def test_missing_key_raises() -> None:
    with pytest.raises(StatisticsError, match=r"trial #1 has no unit key 'seed'"):
        collapse_units([{"seed": 1}, {"system": "a"}], ["seed"])


def test_duplicate_keys_raise() -> None:
    with pytest.raises(StatisticsError, match="distinct"):
        collapse_units([{"seed": 1}], ["seed", "seed"])


@pytest.mark.parametrize("value", [["a"], {"a": 1}, ("a", ["b"])])
def test_unhashable_value_raises(value: object) -> None:
    with pytest.raises(StatisticsError, match="cannot be compared"):
        collapse_units([{"k": value}], ["k"])


def test_structure_is_frozen() -> None:
    structure = collapse_units([{"k": 1}], ["k"])
    with pytest.raises(AttributeError):
        structure.count = 5  # type: ignore[misc]


# --- unit_failures -----------------------------------------------------------------------


def _three_units() -> UnitStructure:
    # Units: {0, 1, 2, 3}, {4, 5}, {6}.
    trials = [{"k": "a"}] * 4 + [{"k": "b"}] * 2 + [{"k": "c"}]
    return collapse_units(trials, ["k"])


def test_unit_fails_if_any_trial_fails() -> None:
    structure = _three_units()
    failed = [False, False, False, True, False, False, False]
    assert unit_failures(structure, failed, None) == (1, 3)
    assert unit_failures(structure, [False] * 7, None) == (0, 3)
    assert unit_failures(structure, [True] * 7, None) == (3, 3)


def test_max_rate_is_strictly_exceeded() -> None:
    structure = _three_units()
    # Unit 0: 1 of 4 failing (0.25); unit 1: 1 of 2 (0.5); unit 2: 1 of 1.
    failed = [True, False, False, False, True, False, True]
    assert unit_failures(structure, failed, 0.25) == (2, 3)
    assert unit_failures(structure, failed, 0.2) == (3, 3)
    assert unit_failures(structure, failed, 0.5) == (1, 3)
    assert unit_failures(structure, failed, 0.0) == (3, 3)
    assert unit_failures(structure, failed, 1.0) == (0, 3)


def test_max_rate_compares_like_the_written_decimal() -> None:
    structure = collapse_units([{"k": "a"}] * 10, ["k"])
    three_of_ten = [True] * 3 + [False] * 7
    assert unit_failures(structure, three_of_ten, 0.3) == (0, 1)
    assert unit_failures(structure, [True] * 4 + [False] * 6, 0.3) == (1, 1)


def test_numpy_bools_accepted() -> None:
    structure = _three_units()
    failed = np.array([False] * 6 + [True])
    assert unit_failures(structure, list(failed), None) == (1, 3)


@pytest.mark.parametrize(
    ("failed", "max_rate", "fragment"),
    [
        ([False] * 6, None, "6 failure flags for 7 trials"),
        ([False] * 6 + [1], None, "#6 must be a bool"),
        ([False] * 7, -0.1, r"max_rate must be in \[0, 1\]"),
        ([False] * 7, 1.5, r"max_rate must be in \[0, 1\]"),
        ([False] * 7, float("nan"), r"max_rate must be in \[0, 1\]"),
        ([False] * 7, True, "max_rate must be a number"),
        ([False] * 7, "0.1", "max_rate must be a number"),
    ],
)
def test_unit_failures_invalid_input(failed: list[object], max_rate: object, fragment: str) -> None:
    with pytest.raises(StatisticsError, match=fragment):
        unit_failures(_three_units(), failed, max_rate)  # type: ignore[arg-type]


# --- properties --------------------------------------------------------------------------

# Small value pools force many collisions; None and "" are the "not applicable" values.
values = st.one_of(st.none(), st.just(""), st.sampled_from(["a", "b", "c", "d"]), st.integers(0, 3))
trial_lists = st.lists(
    st.fixed_dictionaries({key: values for key in KEYS}), min_size=0, max_size=30
)


def _brute_force_partition(
    trials: Sequence[Mapping[str, object]], keys: Sequence[str]
) -> frozenset[frozenset[int]]:
    """Connected components by repeated merging of groups (no union-find)."""
    groups = [{index} for index in range(len(trials))]

    def linked(i: int, j: int) -> bool:
        return any(
            trials[i][key] not in (None, "") and trials[i][key] == trials[j][key] for key in keys
        )

    merged = True
    while merged:
        merged = False
        for a in range(len(groups)):
            for b in range(a + 1, len(groups)):
                if any(linked(i, j) for i in groups[a] for j in groups[b]):
                    groups[a] |= groups.pop(b)
                    merged = True
                    break
            if merged:
                break
    return frozenset(frozenset(group) for group in groups)


@given(trial_lists)
def test_matches_brute_force_components(trials: list[dict[str, object]]) -> None:
    structure = collapse_units(trials, KEYS)
    assert _partition(structure) == _brute_force_partition(trials, KEYS)
    assert structure.count == len(structure.members)
    assert sum(structure.joins_per_key.values()) == len(trials) - structure.count
    assert sorted(i for group in structure.members for i in group) == list(range(len(trials)))
    for label, group in enumerate(structure.members):
        assert all(structure.unit_of[i] == label for i in group)
    # First-appearance numbering: the first trial of unit k comes before that of unit k + 1.
    firsts = [group[0] for group in structure.members]
    assert firsts == sorted(firsts)


@given(trial_lists, st.randoms(use_true_random=False))
def test_invariant_to_trial_order(trials: list[dict[str, object]], rng: random.Random) -> None:
    order = list(range(len(trials)))
    rng.shuffle(order)
    original = collapse_units(trials, KEYS)
    shuffled = collapse_units([trials[i] for i in order], KEYS)
    # Same partition up to relabelling, mapped back to original trial indices.
    mapped = frozenset(frozenset(order[i] for i in group) for group in shuffled.members)
    assert mapped == _partition(original)
    assert shuffled.count == original.count
    assert shuffled.largest == original.largest
    assert shuffled.nulls_per_key == original.nulls_per_key
    assert shuffled.joins_per_key == original.joins_per_key


@given(trial_lists)
def test_null_values_never_join(trials: list[dict[str, object]]) -> None:
    structure = collapse_units(trials, KEYS)
    for key in KEYS:
        assert structure.nulls_per_key[key] == sum(
            trials[i][key] in (None, "") for i in range(len(trials))
        )
    # Trials with every key null are singleton units.
    for index, trial in enumerate(trials):
        if all(trial[key] in (None, "") for key in KEYS):
            assert structure.members[structure.unit_of[index]] == (index,)
    # Nulling a key on every trial gives the partition induced by the other keys alone.
    for key in KEYS:
        blanked = [{**trial, key: None} for trial in trials]
        others = [k for k in KEYS if k != key]
        assert _partition(collapse_units(blanked, KEYS)) == _partition(
            collapse_units(blanked, others)
        )


@given(trial_lists.filter(bool), st.data())
def test_unit_failures_bounds(trials: list[dict[str, object]], data: st.DataObject) -> None:
    structure = collapse_units(trials, KEYS)
    failed = data.draw(st.lists(st.booleans(), min_size=len(trials), max_size=len(trials)))
    rate = data.draw(st.floats(min_value=0.0, max_value=1.0))
    any_failing, units = unit_failures(structure, failed, None)
    rate_failing, _ = unit_failures(structure, failed, rate)
    assert units == structure.count
    assert 0 <= rate_failing <= any_failing <= units
    assert any_failing == len({structure.unit_of[i] for i, flag in enumerate(failed) if flag})

"""Bar selection, class-conditional counts and unit collapse by column (issue 25) give exactly
what the trial-by-trial code before them gave: that code is kept here, as it was, and both are
run on generated trials whose values mix the cases JSON equality tells apart (1, 1.0 and true;
0.0 and -0.0; "" and null; lists and objects; absent fields)."""

from __future__ import annotations

import json
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.bars import Selections, _answers, _lacking, _matcher, _matches, _one_of
from bot.rules.evidence.models import Case, Trial
from bot.rules.models import Bar
from bot.rules.stats.errors import StatisticsError
from bot.rules.stats.units import (
    UnitStructure,
    _value_key,
    collapse_units,
    unit_failures_among,
)

# --- the code before issue 25, as it was ------------------------------------------------


def _old_selected(bar: Bar, cases: Mapping[str, Case], trials: Sequence[Trial]) -> list[int]:
    over_case, over_result = list(bar.over_case.items()), list(bar.over_result.items())
    chosen = []
    for index, trial in enumerate(trials):
        if over_case:
            case = cases[trial.case_id]
            if not all(_matches(case.field(name), want) for name, want in over_case):
                continue
        if over_result:
            result = trial.result
            if not all(_matches(result.get(name), want) for name, want in over_result):
                continue
        chosen.append(index)
    return chosen


def _old_confusion(trials: Sequence[Trial], selected: Sequence[int]) -> dict[str, dict[str, int]]:
    table: dict[str, dict[str, int]] = {}
    for index in selected:
        result = trials[index].result
        certificate, truth = result.get("certificate"), result.get("truth")
        if isinstance(certificate, str) and isinstance(truth, str):
            row = table.setdefault(certificate, {})
            row[truth] = row.get(truth, 0) + 1
    return table


def _is_null(value: object) -> bool:
    return value is None or (isinstance(value, str) and value == "")


def _find(parent: list[int], item: int) -> int:
    root = item
    while parent[root] != root:
        root = parent[root]
    while parent[item] != root:
        parent[item], item = root, parent[item]
    return root


def _old_collapse(
    trials: Sequence[Mapping[str, object]], unit_keys: Sequence[str]
) -> UnitStructure:
    keys = list(unit_keys)
    if len(set(keys)) != len(keys):
        raise StatisticsError(f"unit keys must be distinct, got {keys!r}")
    size = len(trials)
    parent = list(range(size))
    set_size = [1] * size
    nulls_per_key = dict.fromkeys(keys, 0)
    joins_per_key = dict.fromkeys(keys, 0)
    for key in keys:
        first_with_value: dict[Hashable, int] = {}
        for index, trial in enumerate(trials):
            if key not in trial:
                raise StatisticsError(
                    f"trial #{index} has no unit key {key!r}; every unit key must be present "
                    "on every trial (use null for 'not applicable')"
                )
            value = trial[key]
            if _is_null(value):
                nulls_per_key[key] += 1
                continue
            seen = first_with_value.setdefault(
                value if type(value) is str else _value_key(value), index
            )
            if seen == index:
                continue
            root_a, root_b = _find(parent, seen), _find(parent, index)
            if root_a == root_b:
                continue
            if set_size[root_a] < set_size[root_b]:
                root_a, root_b = root_b, root_a
            parent[root_b] = root_a
            set_size[root_a] += set_size[root_b]
            joins_per_key[key] += 1
    label_of_root: dict[int, int] = {}
    unit_of: list[int] = []
    members: list[list[int]] = []
    for index in range(size):
        root = _find(parent, index)
        label = label_of_root.setdefault(root, len(label_of_root))
        if label == len(members):
            members.append([])
        members[label].append(index)
        unit_of.append(label)
    return UnitStructure(
        unit_of=tuple(unit_of),
        count=len(members),
        largest=max((len(group) for group in members), default=0),
        nulls_per_key=nulls_per_key,
        joins_per_key=joins_per_key,
        members=tuple(tuple(group) for group in members),
    )


def _old_failures_among(
    structure: UnitStructure,
    selected: Sequence[int],
    failed: Sequence[bool],
    max_rate: float | None,
) -> tuple[int, int]:
    groups: dict[int, list[bool]] = {}
    for index, flag in zip(selected, failed, strict=True):
        groups.setdefault(structure.unit_of[index], []).append(bool(flag))
    failing = 0
    for flags in groups.values():
        bad = sum(flags)
        failing += int(bad > 0 if max_rate is None else bad / len(flags) > max_rate)
    return failing, len(groups)


# --- generated data ---------------------------------------------------------------------

# Few distinct values, so that trials share them; every pair JSON equality tells apart.
SCALARS = st.sampled_from([None, "", "a", "b", "A", 0, 1, 1.0, 0.0, -0.0, 2.5, True, False])
VALUES = st.one_of(
    SCALARS,
    SCALARS,
    SCALARS,
    st.lists(SCALARS, max_size=2),
    st.dictionaries(st.sampled_from(["x", "y"]), SCALARS, max_size=2),
)
FIELDS = ("kind", "family", "hard", "tier")
RESULT_FIELDS = ("verdict", "attack", "certificate", "truth")
ABSENT = object()


@st.composite
def evidence(draw: st.DrawFn) -> tuple[dict[str, Case], list[Trial]]:
    count = draw(st.integers(min_value=0, max_value=30))
    # Half the time every trial has both labels as text (the counts' quick path).
    labels = st.sampled_from(["safe", "unsafe", "Safe"]) if draw(st.booleans()) else None
    cases: dict[str, Case] = {}
    trials: list[Trial] = []
    for index in range(count):
        public = {
            name: value
            for name in ("hard", "tier")
            if (value := draw(st.one_of(VALUES, st.just(ABSENT)))) is not ABSENT
        }
        kind, family = draw(st.sampled_from(["attack", "control"])), draw(st.sampled_from("xy"))
        case_id = f"case-{index}"
        cases[case_id] = Case(index + 1, case_id, "0" * 64, family, kind, public, None)
        result = {
            name: value
            for name in RESULT_FIELDS
            if (value := draw(st.one_of(VALUES, st.just(ABSENT)))) is not ABSENT
        }
        if labels is not None:
            result |= {"certificate": draw(labels), "truth": draw(labels)}
        started = datetime(2027, 1, 1, tzinfo=UTC)
        trials.append(Trial(index + 1, case_id, "system", started, {}, result))
    return cases, trials


WANTS = st.one_of(SCALARS, st.lists(SCALARS, min_size=1, max_size=3))


@st.composite
def bars(draw: st.DrawFn) -> list[Bar]:
    made = []
    for number in range(draw(st.integers(min_value=1, max_value=4))):
        over_case = draw(st.dictionaries(st.sampled_from(FIELDS), WANTS, max_size=2))
        over_result = draw(st.dictionaries(st.sampled_from(RESULT_FIELDS), WANTS, max_size=2))
        made.append(replace(BAR, id=f"bar-{number}", over_case=over_case, over_result=over_result))
    # Two bars with one condition share a selection: both must still get it right.
    return made + made[:1]


BAR = Bar(
    id="bar",
    statistic="rate_upper",
    over_case={},
    over_result={},
    denominator="supplied",
    predicate_field="verdict",
    predicate_values=("false_safe",),
    allowed=(),
    score=None,
    label_field=None,
    label_positive=None,
    threshold=0.2,
    title="a bar",
)


def _ordered(table: object) -> str:
    """The table with its keys' order, which the JSON report shows."""
    return json.dumps(table)


@settings(max_examples=300, deadline=None)
@given(evidence(), bars())
def test_selections_by_column_equal_trial_by_trial(
    made: tuple[dict[str, Case], list[Trial]], market: list[Bar]
) -> None:
    cases, trials = made
    selections = Selections(cases, trials, market)
    labelled = [
        isinstance(trial.result.get("certificate"), str)
        and isinstance(trial.result.get("truth"), str)
        for trial in trials
    ]
    assert selections.unlabelled() == [index for index, ok in enumerate(labelled) if not ok]
    assert _ordered(selections.confusion(None)) == _ordered(
        _old_confusion(trials, range(len(trials)))
    )
    for bar in market:
        expected = _old_selected(bar, cases, trials)
        assert selections.of(bar) == expected
        assert _ordered(selections.confusion(expected)) == _ordered(
            _old_confusion(trials, expected)
        )


@settings(max_examples=300, deadline=None)
@given(VALUES, WANTS)
def test_a_matcher_answers_as_matches(value: Any, wanted: Any) -> None:
    matches = _matcher(wanted)
    assert matches(value) == _matches(value, wanted)
    assert matches(value) == _matches(value, wanted)  # the remembered answer too


@settings(max_examples=300, deadline=None)
@given(st.lists(VALUES, max_size=12), WANTS)
def test_answers_by_distinct_value_equal_each_answer(values: list[Any], wanted: Any) -> None:
    assert _answers(values, _one_of(wanted)) == [_matches(value, wanted) for value in values]


@settings(max_examples=300, deadline=None)
@given(evidence(), st.lists(SCALARS, max_size=3), st.sampled_from(["rate_upper", "auroc_lower"]))
def test_lacking_from_a_column_equals_lacking_trial_by_trial(
    made: tuple[dict[str, Case], list[Trial]], allowed: list[Any], statistic: str
) -> None:
    _, trials = made
    bar = replace(BAR, allowed=tuple(allowed), statistic=statistic, label_field="verdict")
    selected = list(range(0, len(trials), 2))
    values = [trials[index].result.get("verdict") for index in selected]
    assert _lacking(bar, trials, selected, "f", values=values) == _lacking(
        bar, trials, selected, "f"
    )


def test_negative_zero_is_zero_and_one_is_not_true() -> None:
    matches = _matcher([0])
    assert matches(0.0) and matches(-0.0) and matches(0) and not matches(False)
    assert _matcher(True)(True) and not _matcher(True)(1) and not _matcher(1)(True)


UNIT_KEYS = ("system", "evaluator", "seed")
UNIT_VALUES = st.one_of(
    st.sampled_from([None, "", "a", "b", 1, 1.0, True, 0.0, -0.0]),
    st.sampled_from([None, "a", "b", "c"]),
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.fixed_dictionaries({key: UNIT_VALUES for key in UNIT_KEYS}), max_size=40),
    st.permutations(UNIT_KEYS),
)
def test_units_by_column_equal_the_union_find_before(
    trials: list[dict[str, object]], keys: list[str]
) -> None:
    assert collapse_units(trials, keys) == _old_collapse(trials, keys)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.fixed_dictionaries({key: UNIT_VALUES for key in UNIT_KEYS}), max_size=40),
    st.data(),
)
def test_failing_units_by_column_equal_the_count_before(
    trials: list[dict[str, object]], data: st.DataObject
) -> None:
    structure = collapse_units(trials, UNIT_KEYS)
    selected = (
        data.draw(st.lists(st.sampled_from(range(len(trials))), unique=True).map(sorted))
        if trials
        else []
    )
    failed = data.draw(st.lists(st.booleans(), min_size=len(selected), max_size=len(selected)))
    for max_rate in (None, 0.0, 0.3, 0.5, 1.0, data.draw(st.floats(0.0, 1.0))):
        assert unit_failures_among(structure, selected, failed, max_rate) == _old_failures_among(
            structure, selected, failed, max_rate
        )


@pytest.mark.parametrize(
    "trials",
    [
        [{"k": "a"}, {"k": ["x"]}, {}],  # an unhashable value before a missing key
        [{"k": "a"}, {}, {"k": ["x"]}],  # a missing key before an unhashable value
        [{"k": None}, {"k": {"x": 1}}],
        [{"k": ""}, {"k": "a"}, {"j": 1}],
    ],
)
def test_units_refuse_as_before(trials: list[dict[str, object]]) -> None:
    with pytest.raises(StatisticsError) as before:
        _old_collapse(trials, ["k"])
    with pytest.raises(StatisticsError) as now:
        collapse_units(trials, ["k"])
    assert str(now.value) == str(before.value)


def test_units_on_many_trials_and_merges_across_keys() -> None:
    # Sets merged by a later key, then joined again by a third: the forest's path.
    trials: list[dict[str, object]] = [
        {"system": f"s{i % 50}", "evaluator": f"e{i % 7}", "seed": i // 90} for i in range(1000)
    ]
    for keys in (UNIT_KEYS, UNIT_KEYS[::-1], ("seed", "system", "evaluator")):
        assert collapse_units(trials, keys) == _old_collapse(trials, keys)


def test_units_where_a_key_joins_nothing_or_every_trial_is_alone() -> None:
    # A key whose values are all distinct (or null) joins nothing, before and after keys that
    # join (its firsts are never built); with no join at all, every trial is its own unit.
    trials: list[dict[str, object]] = [
        {
            "trajectory": f"t{i}",
            "system": f"s{i % 3}",
            "seed": None if i % 4 else i,
            "attack": "" if i % 2 else f"a{i}",
        }
        for i in range(60)
    ]
    keys = ("trajectory", "system", "seed", "attack")
    for order in (keys, keys[::-1], ("seed", "attack", "trajectory")):
        structure = collapse_units(trials, order)
        assert structure == _old_collapse(trials, order)
    alone = collapse_units(trials, ("seed", "attack", "trajectory"))
    assert alone.count == 60
    assert alone.members == tuple((index,) for index in range(60))
    assert alone.joins_per_key == {"seed": 0, "attack": 0, "trajectory": 0}
    assert alone.nulls_per_key == {"seed": 45, "attack": 30, "trajectory": 0}

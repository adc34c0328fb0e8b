"""Unit collapse: group trials that share a unit key value into independent units.

docs/spec.md §6: trials join the same unit when they share a value of any ``unit_keys``
field, transitively; ``null`` means "not applicable" and never joins, and the nulls per key
are counted so a filer cannot gain units by leaving fields out. A unit fails if any of its
trials fails, unless the market states ``within_unit: {max_rate: r}``, in which case it fails
when its failing-trial fraction exceeds r.

The transitive grouping is the connected components of the graph "trial i -- trial j when
they share a key value", computed with a disjoint-set forest (union-find) with path
compression and union by size: Tarjan, R. E. (1975), "Efficiency of a good but not linear set
union algorithm", J. ACM 22(2):215-225, https://doi.org/10.1145/321879.321884; see also
Cormen et al., Introduction to Algorithms, ch. 21 (3rd ed.) / ch. 19 (4th ed.).

It is computed by column, key by key, so that the per-trial work runs in C: a key's trials
with equal values are found with one dictionary; the first key that joins trials gives the
sets directly, and the forest then works over the distinct pairs of sets a later key joins,
not over every trial.
"""

from __future__ import annotations

import math
import numbers
import sys
from collections import Counter
from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from itertools import compress
from operator import ne

from bot.rules.stats.errors import StatisticsError
from bot.vocab.values import json_key

__all__ = ["UnitStructure", "collapse_units", "unit_failures", "unit_failures_among"]


def _bool_types() -> tuple[type, ...]:
    """Python's bool and numpy's. numpy is not imported for this (~0.1 s at start-up): a
    numpy bool can exist only once numpy is imported."""
    numpy = sys.modules.get("numpy")
    return (bool,) if numpy is None else (bool, numpy.bool_)


@dataclass(frozen=True)
class UnitStructure:
    """The partition of trials into units.

    Attributes:
        unit_of: unit index of each trial, in input order; units are numbered 0, 1, ... by
            the first trial (in input order) that belongs to them.
        count: number of units.
        largest: number of trials in the largest unit (0 when there are no trials).
        nulls_per_key: for each unit key, how many trials have it null (``None``) or the
            empty string, i.e. "not applicable" (such a value never joins trials).
        joins_per_key: for each unit key, how many union operations on that key actually
            merged two different units. Keys are processed in ``unit_keys`` order, so a
            merge that two keys would both cause is credited to the earlier key; the counts
            do not depend on the order of the trials and sum to ``len(trials) - count``.
        members: for each unit (by index), the indices of its trials in increasing order.
    """

    unit_of: tuple[int, ...]
    count: int
    largest: int
    nulls_per_key: dict[str, int]
    joins_per_key: dict[str, int]
    members: tuple[tuple[int, ...], ...]


def _is_null(value: object) -> bool:
    """Return True when a unit key value means "not applicable": ``None`` or ``""``."""
    return value is None or (isinstance(value, str) and value == "")


def _value_key(value: object) -> Hashable:
    """Return the dictionary key under which ``value`` is compared with other values.

    Values compare as JSON values (``bot.vocab.values.json_key``): 1 and 1.0 join, but bools
    are kept apart from numbers (``True == 1`` in Python, but JSON ``true`` and ``1`` are
    different values).

    Raises:
        StatisticsError: the value is not hashable (e.g. a list or a mapping).
    """
    if not isinstance(value, Hashable):
        raise StatisticsError(
            f"unit key value {value!r} ({type(value).__name__}) cannot be compared; unit key "
            "values must be scalars such as strings or numbers"
        )
    try:
        hash(value)
    except TypeError as error:  # e.g. a tuple holding a list
        raise StatisticsError(
            f"unit key value {value!r} cannot be compared; unit key values must be scalars"
        ) from error
    return json_key(value)  # JSON equality (bot/vocab/values.py): 1 is 1.0, true is not 1


def _column(trials: Sequence[Mapping[str, object]], key: str) -> list[object]:
    """Every trial's value of `key`, in trial order.

    Raises:
        StatisticsError: a trial lacks the key, or a value before it cannot be compared: the
            first problem in trial order, as a trial-by-trial pass would meet it.
    """
    try:
        return [trial[key] for trial in trials]
    except KeyError:
        pass
    for index, trial in enumerate(trials):
        if key not in trial:
            raise StatisticsError(
                f"trial #{index} has no unit key {key!r}; every unit key must be present "
                "on every trial (use null for 'not applicable')"
            )
        if not _is_null(trial[key]):
            _value_key(trial[key])
    raise AssertionError("unreachable: some trial lacks the key")  # pragma: no cover


def _firsts(values: list[object]) -> tuple[list[int] | None, int]:
    """For each trial, the first trial with an equal (JSON-equal) value of one key, itself
    for a null; and the number of nulls. None for the first when every value is distinct
    (each trial is then its own first: no list of them is built).

    Raises:
        StatisticsError: a value cannot be compared (`_value_key`): the first in trial order.
    """
    keys: list[Hashable]
    # None and "" (of str or a subclass), as `_is_null`; counted in C, found only if any.
    nulls = values.count(None) + values.count("")
    if {str, type(None)}.issuperset(map(type, values)):
        # A string is its own key (as below); a copy only where nulls get keys of their own.
        keys = list(values) if nulls else values
    else:
        # A string is its own key (no tuple per value): it never equals a tuple key.
        keys = [value if type(value) is str else _value_key(value) for value in values]
    if nulls:
        for index, value in enumerate(values):
            if value is None or (value == "" and isinstance(value, str)):  # `_is_null`
                keys[index] = ~index  # a key of its own (no other key is an int)
    if len(set(keys)) == len(keys):
        return None, nulls
    # Reversed, so that the first trial of each value is the one the dictionary keeps.
    first_of = dict(zip(reversed(keys), range(len(keys) - 1, -1, -1), strict=True))
    return list(map(first_of.__getitem__, keys)), nulls


class _Forest:
    """A disjoint-set forest over the labels it is given, with path compression and union by
    size (Tarjan 1975; the module's docstring)."""

    __slots__ = ("_parent", "_size")

    def __init__(self) -> None:
        self._parent: dict[int, int] = {}
        self._size: dict[int, int] = {}

    def _find(self, item: int) -> int:
        parent = self._parent
        root = parent.setdefault(item, item)
        while parent[root] != root:
            root = parent[root]
        while parent[item] != root:
            parent[item], item = root, parent[item]
        return root

    def union(self, one: int, other: int) -> bool:
        """Join the sets of `one` and `other`; False when they were one set already."""
        one, other = self._find(one), self._find(other)
        if one == other:
            return False
        size = self._size
        if size.get(one, 1) < size.get(other, 1):
            one, other = other, one
        self._parent[other] = one
        size[one] = size.get(one, 1) + size.pop(other, 1)
        return True

    def roots(self) -> dict[int, int]:
        """Each label's root (the label now naming its set)."""
        return {item: self._find(item) for item in list(self._parent)}


def collapse_units(
    trials: Sequence[Mapping[str, object]], unit_keys: Sequence[str]
) -> UnitStructure:
    """Partition trials into units: trials sharing a value of any unit key, transitively.

    Values are compared per key (system "a" and evaluator "a" do not join). ``None`` and the
    empty string mean "not applicable" and never join.

    Args:
        trials: one mapping per trial; every mapping must hold every unit key.
        unit_keys: the market's unit key field names (distinct).

    Returns:
        UnitStructure with each trial's unit, the unit count, the largest unit's size, the
        nulls per key, the merges credited to each key and the members of each unit.

    Raises:
        StatisticsError: a unit key is repeated, a trial lacks a unit key (the evidence
            layer is meant to have checked presence, so this is a programming error), or a
            value is not hashable.
    """
    keys = list(unit_keys)
    if len(set(keys)) != len(keys):
        raise StatisticsError(f"unit keys must be distinct, got {keys!r}")
    size = len(trials)
    nulls_per_key = dict.fromkeys(keys, 0)
    joins_per_key = dict.fromkeys(keys, 0)
    # Each trial's set, by column: `label[i]` names the set of trial i (equal labels, one
    # set). Until a key joins two trials, every trial is its own set (`label[i] == i`).
    label = list(range(size))
    alone = True

    # Key by key over all trials: the joins credited to a key are then independent of the
    # trial order (they equal the drop in the number of components that key causes).
    for key in keys:
        firsts, nulls_per_key[key] = _firsts(_column(trials, key))
        if firsts is None:
            joins = 0  # every value distinct (or null): this key joins no trials
        elif alone:
            # The sets are this key's groups of equal values, each named by its first trial.
            label = firsts
            joins = size - len(set(firsts))
            alone = joins == 0
        else:
            # A trial and the first with its value, in different sets: one pair of sets to
            # join per distinct pair of labels (found in C), joined in a disjoint-set forest
            # over those labels: none where each trial's first is in its set already.
            joined = list(map(label.__getitem__, firsts))
            joins = 0
            if joined != label:
                apart = map(ne, joined, label)
                pairs = set(compress(zip(joined, label, strict=True), apart))
                forest = _Forest()
                joins = sum(forest.union(first, other) for first, other in pairs)
                if joins:
                    roots = forest.roots()
                    label = list(map(roots.get, label, label))
        joins_per_key[key] = joins

    # Units numbered by their first trial (the labels in order of first appearance, found
    # in C); members in increasing order.
    ordered = dict.fromkeys(label)
    numbers = dict(zip(ordered, range(len(ordered)), strict=True))
    unit_of = list(map(numbers.__getitem__, label))
    members: tuple[tuple[int, ...], ...]
    if len(numbers) == size:  # every trial its own unit: one 1-tuple each, made in C
        members = tuple(zip(range(size)))
    else:
        groups: list[list[int]] = [[] for _ in numbers]
        for index, unit in enumerate(unit_of):
            groups[unit].append(index)
        members = tuple(map(tuple, groups))

    return UnitStructure(
        unit_of=tuple(unit_of),
        count=len(members),
        largest=max(map(len, members), default=0),
        nulls_per_key=nulls_per_key,
        joins_per_key=joins_per_key,
        members=members,
    )


def unit_failures(
    structure: UnitStructure, failed: Sequence[bool], max_rate: float | None
) -> tuple[int, int]:
    """Count failing units (docs/spec.md §6).

    Args:
        structure: the unit structure from :func:`collapse_units`.
        failed: per trial (same order as the trials given to :func:`collapse_units`),
            whether it failed.
        max_rate: ``None``: a unit fails if any of its trials fails. Otherwise a number in
            [0, 1] (the market's ``within_unit.max_rate``): a unit fails when its
            failing-trial fraction is strictly greater than ``max_rate``. The fraction is
            the correctly rounded float ``failing / size``, so e.g. 3 of 10 with
            ``max_rate = 0.3`` does not fail.

    Returns:
        ``(failing units, units)``.

    Raises:
        StatisticsError: ``failed`` does not have one entry per trial, an entry is not a
            bool, or ``max_rate`` is not a finite number in [0, 1].
    """
    if len(failed) != len(structure.unit_of):
        raise StatisticsError(
            f"got {len(failed)} failure flags for {len(structure.unit_of)} trials; "
            "need one per trial"
        )
    bools = _bool_types()
    for index, flag in enumerate(failed):
        if not isinstance(flag, bools):
            raise StatisticsError(
                f"failure flag #{index} must be a bool, got {flag!r} ({type(flag).__name__})"
            )
    if max_rate is not None:
        if isinstance(max_rate, bool) or not isinstance(max_rate, numbers.Real):
            raise StatisticsError(f"max_rate must be a number in [0, 1], got {max_rate!r}")
        if not (math.isfinite(float(max_rate)) and 0.0 <= float(max_rate) <= 1.0):
            raise StatisticsError(f"max_rate must be in [0, 1], got {max_rate!r}")

    limit = None if max_rate is None else float(max_rate)
    failing_units = 0
    for group in structure.members:
        failing = sum(1 for index in group if failed[index])
        unit_fails = failing > 0 if limit is None else failing / len(group) > limit
        failing_units += int(unit_fails)
    return failing_units, structure.count


def unit_failures_among(
    structure: UnitStructure,
    selected: Sequence[int],
    failed: Sequence[bool],
    max_rate: float | None,
) -> tuple[int, int]:
    """Count failing units among the units that hold at least one `selected` trial.

    A bar counts the global units its trials fall in (so trials joined through a trial
    outside the bar stay one unit: the conservative reading of "transitively"), and a unit's
    failing fraction is taken over its selected trials only. `failed[k]` is the flag of
    `selected[k]`. Returns ``(failing units, units)``.
    """
    if len(failed) != len(selected):
        raise StatisticsError(f"got {len(failed)} flags for {len(selected)} selected trials")
    # By column, in C: each selected trial's unit, then the trials and the failing trials
    # each unit holds.
    units = list(map(structure.unit_of.__getitem__, selected))
    sizes, bad = Counter(units), Counter(compress(units, failed))
    if max_rate is None:
        return len(bad), len(sizes)
    return sum(bad[unit] / size > max_rate for unit, size in sizes.items()), len(sizes)

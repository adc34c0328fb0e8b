"""How trials formed their units: which unit-key values joined which trials, and what would
separate them.

A unit count alone ("1 independent units, the market needs 10") leaves the filer guessing
which field joined the trials. These texts name it: for the largest units, the values shared
by their trials ("all 60 trials share evaluator 'trajmon'"), and for a pair of trials an AUROC
bar refused, the values the two share. Each text ends with what would separate the trials for
the key that joined most, in the words of the Unit Rule (shared rules, docs/spec.md §6): trials that
really share a system, trajectory, evaluator or attack family are one unit, so the fix is
never to rename a shared value apart but to record each key as it really was.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Mapping, Sequence
from typing import Protocol

from bot.rules.stats.units import UnitStructure

__all__ = ["DESIGN", "SEPARATE", "describe_pair", "describe_units", "separate_pair"]

# What would separate trials joined by each shared key: what the key means, so that the filer
# records it as it really was (docs/filing-an-attempt.md#unit-keys).
SEPARATE = {
    "system": "run each case on its own system instance (seed and reparametrization variants"
    " count as distinct systems), or accept that trials of one instance are one unit",
    "trajectory": "give each trial its own trajectory id; trials that continue one"
    " trajectory are one unit",
    "evaluator": "write evaluator null unless a separate judge, a person or a grader model"
    " whose errors the trials would share, labelled them: the method under test (a monitor,"
    " a probe) and a deterministic scorer are not evaluators",
    "attack_family": "write attack_family null for controls, and name an attack family only"
    " where attacks really share one (a family shared by many attacks is one unit)",
}
# What a study would need for trials that really share a key's value to count for a bar that
# needs every trial in its own unit (an AUROC bar): renaming a shared value apart is no fix.
DESIGN = {
    "system": "a distinct system instance per trial",
    "trajectory": "a distinct trajectory per trial",
    "evaluator": "a distinct evaluator per trial, or none",
    "attack_family": "a distinct attack family per attack",
}
# How many units (largest first) and shared values per unit a text names.
SHOWN_UNITS = 3
SHOWN_VALUES = 3


class _Keyed(Protocol):
    @property
    def line(self) -> int: ...

    @property
    def keys(self) -> Mapping[str, object]: ...


def _null(value: object) -> bool:
    return value is None or value == ""


def _shown(value: object) -> str:
    text = repr(value) if not isinstance(value, str) else f"'{value}'"
    return text if len(text) <= 60 else f"{text[:57]}..."


def _lines(trials: Sequence[_Keyed], members: Sequence[int]) -> str:
    numbers = [trials[index].line for index in members[:4]]
    more = ", ..." if len(members) > 4 else ""
    return f"lines {', '.join(map(str, numbers))}{more}"


def _marker(value: object) -> object:
    """How values are told apart: a string as itself, anything else with whether it is a
    bool (JSON `true` is not `1`)."""
    return value if type(value) is str else (type(value) is bool, value)


def _shared(
    trials: Sequence[_Keyed], members: Sequence[int], unit_keys: Sequence[str]
) -> list[tuple[int, str, object]]:
    """The values shared by at least two of `members`: (trials, key, value), most first."""
    found: list[tuple[int, str, object]] = []
    for key in unit_keys:
        values = [trials[index].keys.get(key) for index in members]
        counts = Counter(
            _marker(value)
            for value in values
            if not _null(value) and not isinstance(value, dict | list)
        )
        for marker, count in counts.items():
            if count > 1:
                value = marker if type(marker) is str else marker[1]  # type: ignore[index]
                found.append((count, key, value))
    order = {key: position for position, key in enumerate(unit_keys)}
    return sorted(found, key=lambda item: (-item[0], order[item[1]], str(item[2])))


def _sharing(size: int, shared: list[tuple[int, str, object]]) -> str:
    parts = [
        f"{'all ' if count == size else ''}{count} trials share {key} {_shown(value)}"
        for count, key, value in shared[:SHOWN_VALUES]
    ]
    if len(shared) > SHOWN_VALUES:
        parts.append(f"{len(shared) - SHOWN_VALUES} more shared value(s)")
    return ", ".join(parts)


def describe_units(
    structure: UnitStructure, trials: Sequence[_Keyed], unit_keys: Sequence[str]
) -> tuple[str, ...]:
    """One text per unit of more than one trial, the largest first (at most SHOWN_UNITS), and
    a last text saying what would separate the trials of the key that joined most. Empty when
    every trial is its own unit."""
    joined = sorted(
        (group for group in structure.members if len(group) > 1), key=lambda g: (-len(g), g[0])
    )
    if not joined:
        return ()
    texts = []
    for group in joined[:SHOWN_UNITS]:
        shared = _shared(trials, group, unit_keys)
        where = _lines(trials, group)
        texts.append(f"a unit of {len(group)} trials ({where}): {_sharing(len(group), shared)}")
    if len(joined) > SHOWN_UNITS:
        sizes = [len(group) for group in joined[SHOWN_UNITS:]]
        texts.append(f"and {len(sizes)} more unit(s) of 2 to {max(sizes)} trials")
    busiest = max(structure.joins_per_key.items(), key=lambda item: item[1], default=(None, 0))
    if busiest[0] is not None and busiest[1] and busiest[0] in SEPARATE:
        texts.append(f"to separate them by {busiest[0]}: {SEPARATE[busiest[0]]}")
    return tuple(texts)


def describe_pair(first: _Keyed, second: _Keyed, unit_keys: Sequence[str], unit_size: int) -> str:
    """Why two trials are in one unit: the values they share, or that other trials join
    them."""
    shared = [
        (key, first.keys.get(key))
        for key in unit_keys
        if not _null(first.keys.get(key))
        and not isinstance(first.keys.get(key), dict | list)
        and (type(first.keys.get(key)) is bool) == (type(second.keys.get(key)) is bool)
        and first.keys.get(key) == second.keys.get(key)
    ]
    if not shared:
        return (
            f"they share no value themselves: other trials join them (a unit of {unit_size}"
            " trials, through values each shares with the next)"
        )
    said = " and ".join(f"{key} {_shown(value)}" for key, value in shared)
    return f"both have {said}"


def separate_pair(first: _Keyed, second: _Keyed, unit_keys: Sequence[str]) -> str:
    """What would separate two trials of one unit (empty when they share no value): the real
    constraint first, since the shared value may be genuine (two attacks of one family), so
    that "record it as it was" is never the only advice, then that advice for a value that
    was recorded wrong."""
    for key in unit_keys:
        value = first.keys.get(key)
        if not _null(value) and value == second.keys.get(key) and key in SEPARATE:
            return (
                "this bar counts a trial only in a unit of its own, where no other trial"
                f" shares a value of any of the market's unit keys ({', '.join(unit_keys)}):"
                f" if the two really share {key} {_shown(value)}, they cannot both count for"
                f" it, and the study would need {DESIGN[key]}, or a market without {key}"
                f" among its unit keys; if they do not, {SEPARATE[key]}"
            )
    return ""

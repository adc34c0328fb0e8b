"""Typed reads of a JSON object whose schema has been checked.

A model's `from_data` runs after its schema accepted the data, so each member it reads has the
type the schema states; these functions say which type that is, in the signature mypy checks,
instead of reading the object as `Any`. A member of another type means the schema and the model
disagree: a bug, raised as `TypeError` naming the member, never a filer's error (those are
findings, reported before any model is built).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from bot.vocab.values import JSONObject, JSONValue

__all__ = [
    "array",
    "flag",
    "integer",
    "integers",
    "member",
    "number",
    "objects",
    "optional_member",
    "optional_text",
    "text",
    "texts",
]


def _drift(key: str, expected: str, value: object) -> TypeError:
    return TypeError(f"{key!r}: expected {expected}, got {type(value).__name__} (schema drift)")


def text(data: Mapping[str, object], key: str) -> str:
    """The string at `key`."""
    value = data[key]
    if not isinstance(value, str):
        raise _drift(key, "a string", value)
    return value


def optional_text(data: Mapping[str, object], key: str) -> str | None:
    """The string at `key`, or None when it is absent or null."""
    return None if data.get(key) is None else text(data, key)


def number(data: Mapping[str, object], key: str) -> float:
    """The number at `key` as written: an integer stays an `int` (80 is shown as 80)."""
    value = data[key]
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise _drift(key, "a number", value)
    return value


def integer(data: Mapping[str, object], key: str) -> int:
    """The integer at `key`. JSON Schema's integer admits 10.0 (a number with no fraction)."""
    value = number(data, key)
    if value != int(value):
        raise _drift(key, "an integer", value)
    return int(value)


def flag(data: Mapping[str, object], key: str) -> bool:
    """The boolean at `key`."""
    value = data[key]
    if not isinstance(value, bool):
        raise _drift(key, "a boolean", value)
    return value


def member(data: Mapping[str, object], key: str) -> JSONObject:
    """The object at `key`."""
    value = data[key]
    if not isinstance(value, dict):
        raise _drift(key, "an object", value)
    return value


def optional_member(data: Mapping[str, object], key: str) -> JSONObject | None:
    """The object at `key`, or None when it is absent or null."""
    return None if data.get(key) is None else member(data, key)


def array(data: Mapping[str, object], key: str) -> Sequence[JSONValue]:
    """The array at `key`."""
    value = data[key]
    if not isinstance(value, list):
        raise _drift(key, "an array", value)
    return value


def texts(data: Mapping[str, object], key: str) -> tuple[str, ...]:
    """The array of strings at `key`."""
    return tuple(text({key: item}, key) for item in array(data, key))


def integers(data: Mapping[str, object], key: str) -> tuple[int, ...]:
    """The array of integers at `key`."""
    return tuple(integer({key: item}, key) for item in array(data, key))


def objects(data: Mapping[str, object], key: str) -> tuple[JSONObject, ...]:
    """The array of objects at `key`."""
    return tuple(member({key: item}, key) for item in array(data, key))

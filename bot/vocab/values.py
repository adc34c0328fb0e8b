"""The JSON values the bot reads, decided once: which values a loader accepts, and when two
values are the same.

**Which values.** Every file a filer or an operator writes (cases, trials, certificates,
operator scores and event logs, released data an adapter turns into evidence, the YAML
documents) is read by `bot/edges/load/` into plain JSON values, and every later stage must carry
each value it was given: the RFC 8785 form a case is hashed by and a rerun is compared in
(`rfc8785` refuses integers beyond 2**53 - 1), the reports (`bot/app/report_json/`), the
publisher and the site. So the loaders accept only what all of them can, I-JSON's rules for
text and numbers (RFC 7493): text that is UTF-8 (no lone surrogate), finite numbers, no
duplicate key, and integers within +-(2**53 - 1), "the range where integers are exactly
representable" as IEEE doubles (https://www.rfc-editor.org/rfc/rfc7493#section-2.2).
Noncharacters (U+FFFF) and control characters, which I-JSON discourages, are text every stage
carries (escaped where shown), and are accepted. A value outside it is refused where it
is read, with its file, line and field (`jsonl-invalid` / `yaml-invalid`); no later stage
meets it (docs/spec-notes.md, "JSON values").

**When two values are the same.** JSON's, as JSON Schema and RFC 8785 have it: numbers by
value (1 and 1.0 are one number, both written `1` in RFC 8785), booleans apart from numbers
(`true` is not 1, though Python's `True == 1` and `hash(True) == hash(1)`), null only null,
strings by code points, arrays item by item, objects by their members in any order.
`json_key` is a hashable stand-in with that equality, for dict keys and sets; `json_equal`
compares two values. Every comparison of values a filer wrote goes through them (bars
selecting cases, a challenge attempt's copy of its run's cases, a market's protocol).
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from typing import TypeAlias

__all__ = [
    "MAX_SAFE_INTEGER",
    "JSONObject",
    "JSONValue",
    "field_name",
    "json_difference",
    "json_equal",
    "json_key",
    "unsafe_integer",
    "unsafe_value",
]

# A value of the domain above, as the loaders give it: what a signature names where it takes
# whatever JSON a filer wrote (a case's `public`, a market's protocol, a score table's cell).
# Read-only views (Mapping, Sequence) so that a loader's `dict[str, str]` is one too.
JSONValue: TypeAlias = (
    "Mapping[str, JSONValue] | Sequence[JSONValue] | str | int | float | bool | None"
)
JSONObject: TypeAlias = "Mapping[str, JSONValue]"

# I-JSON's safe integers (RFC 7493 section 2.2; rfc8785's _INT_MAX): 9007199254740991.
MAX_SAFE_INTEGER = 2**53 - 1
_SHOWN_DIGITS = 40


def field_name(path: tuple[str | int, ...]) -> str:
    """A field path as people read it: `result.scores[2].value`; the top level by name."""
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def unsafe_integer(value: int) -> str | None:
    """Why the integer `value` is refused ("integer 9007199254740993 is outside ±2**53-1
    (I-JSON)"), or None: within the range."""
    if -MAX_SAFE_INTEGER <= value <= MAX_SAFE_INTEGER:
        return None
    text = str(value) if abs(value) < 10**_SHOWN_DIGITS else f"of {len(str(abs(value)))} digits"
    return f"integer {text} is outside ±2**53-1 (I-JSON)"


def unsafe_value(value: object) -> str | None:
    """The first value in `value` (document order) outside the domain above, as
    "result.n: integer 9007199254740993 is outside ±2**53-1 (I-JSON)"; None when there is
    none. Only integers are looked at: the loaders refuse the rest as they parse. Walks with an
    explicit stack (values nested as deep as a loader allows)."""
    pending: list[tuple[object, tuple[str | int, ...]]] = [(value, ())]
    while pending:
        item, path = pending.pop()
        if type(item) is int:
            problem = unsafe_integer(item)
            if problem is not None:
                return f"{field_name(path)}: {problem}"
        elif type(item) is dict:
            pending.extend((child, (*path, key)) for key, child in reversed(item.items()))
        elif type(item) is list:
            pending.extend(
                (child, (*path, index)) for index, child in reversed(list(enumerate(item)))
            )
    return None


def json_key(value: object) -> Hashable:
    """A hashable stand-in for a JSON value: two values get equal keys exactly when JSON calls
    them equal (module docstring). Linear in the value's size; recursive (for values no deeper
    than a loader allows)."""
    if isinstance(value, bool):
        return ("bool", value)
    if isinstance(value, int | float):
        return ("number", value)  # 1 == 1.0 and hash(1) == hash(1.0): one key
    if isinstance(value, str):
        return ("string", value)
    if value is None:
        return ("null",)
    if isinstance(value, list):
        return ("array", tuple(json_key(item) for item in value))
    if isinstance(value, dict):
        return ("object", frozenset((key, json_key(item)) for key, item in value.items()))
    return ("other", type(value).__name__, repr(value))


def json_equal(mine: object, theirs: object) -> bool:
    """Whether two JSON values are the same value (module docstring): `true` is not 1."""
    kind = type(mine)
    if kind is type(theirs) and kind in _SCALARS:
        return bool(mine == theirs)  # two strings, numbers of one type, booleans, nulls
    return json_key(mine) == json_key(theirs)


_SCALARS = frozenset({str, int, float, bool, type(None)})  # exactly these: no subclasses


def json_difference(
    mine: object, theirs: object, path: tuple[str | int, ...] = ()
) -> tuple[str, object, object] | None:
    """The first place (document order) where two JSON values differ, as the field's name
    (`field_name`) and the two values there; None when `json_equal` holds. For messages that
    name the field and what to write ("public.hard: 1 here, true in the run")."""
    if json_equal(mine, theirs):
        return None
    if type(mine) is dict and type(theirs) is dict:
        for key in [*mine, *(k for k in theirs if k not in mine)]:
            if key not in mine or key not in theirs:
                return field_name((*path, key)), mine.get(key, _ABSENT), theirs.get(key, _ABSENT)
            found = json_difference(mine[key], theirs[key], (*path, key))
            if found is not None:
                return found
    if type(mine) is list and type(theirs) is list and len(mine) == len(theirs):
        for index, (one, other) in enumerate(zip(mine, theirs, strict=True)):
            found = json_difference(one, other, (*path, index))
            if found is not None:
                return found
    return field_name(path), mine, theirs


class _Absent:
    """A member one side lacks (shown as "absent")."""

    def __repr__(self) -> str:
        return "absent"


_ABSENT = _Absent()

"""Random mutations of an honest attempt's files, for the fuzz tests and the atheris target.

A mutation takes its choices from a `Chooser` (Hypothesis's `data.draw` in
tests/adversarial/test_fuzz.py, atheris's `FuzzedDataProvider` in fuzz/atheris_verify.py), so
both fuzzers shrink and replay the same operations: bytes flipped, inserted or deleted, a file
truncated or removed, lines dropped, duplicated or swapped, a JSON/YAML value turned into
another type, a key renamed.
"""

from __future__ import annotations

import json
from typing import Any, Protocol

from bot.edges.load.yaml_ import parse_yaml

__all__ = ["KINDS", "Chooser", "mutate"]

Files = dict[str, bytes]

KINDS = (
    "flip",
    "insert",
    "delete",
    "truncate",
    "remove",
    "drop-line",
    "duplicate-line",
    "swap-lines",
    "retype",
    "retype",
    "rename-key",
    "rename-key",
)

# Bytes parsers give meaning to: a BOM, CR, NUL, a lone surrogate in UTF-8, RLO, quote, colon.
_INSERTS = (b"\xef\xbb\xbf", b"\r", b"\x00", b"\xed\xa0\x80", b"\xe2\x80\xae", b'"', b": ", b"\n")
# Values of every JSON type, and some that only look like one.
_VALUES: tuple[Any, ...] = (
    None,
    True,
    0,
    -1,
    1.5,
    10**30,
    "",
    "x",
    "NaN",
    "2027-01-20T09:00:00",
    [],
    [1],
    {},
    {"a": None},
)


class Chooser(Protocol):
    def index(self, count: int, label: str) -> int:
        """A number in [0, count)."""
        ...

    def blob(self, label: str) -> bytes:
        """A few arbitrary bytes."""
        ...


def _paths(value: Any, where: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    found = [where]
    if isinstance(value, dict):
        for key, item in value.items():
            found += _paths(item, (*where, key))
    elif isinstance(value, list):
        for index, item in enumerate(value):
            found += _paths(item, (*where, index))
    return found


def _edit(value: Any, choose: Chooser, rename: bool) -> tuple[Any, str]:
    """Retype the value at a random place of `value`, or rename a key of a random object."""
    if rename:
        objects = [p for p in _paths(value) if isinstance(_at(value, p), dict) and _at(value, p)]
        if not objects:
            return value, "no key to rename"
        where = objects[choose.index(len(objects), "object")]
        target = _at(value, where)
        keys = list(target)
        key = keys[choose.index(len(keys), "key")]
        variants = [key.upper(), f"{key} ", key.replace("_", "-"), f"x{key}", "", "\u212a" + key]
        new = variants[choose.index(len(variants), "new key")]
        target[new] = target.pop(key)
        return value, f"rename {(*where, key)} to {new!r}"
    paths = _paths(value)
    where = paths[choose.index(len(paths), "place")]
    new_value = _VALUES[choose.index(len(_VALUES), "value")]
    if not where:
        return new_value, f"replace the whole record with {new_value!r}"
    _at(value, where[:-1])[where[-1]] = new_value
    return value, f"set {where} to {new_value!r}"


def _at(value: Any, where: tuple[Any, ...]) -> Any:
    for step in where:
        value = value[step]
    return value


def _structured(name: str, raw: bytes, choose: Chooser, rename: bool) -> tuple[bytes, str] | None:
    """Edit one JSONL record or the YAML document; None when it does not parse."""
    if name.endswith(".jsonl"):
        lines = raw.split(b"\n")
        filled = [index for index, line in enumerate(lines) if line.strip()]
        if not filled:
            return None
        index = filled[choose.index(len(filled), "record")]
        try:
            record = json.loads(lines[index])
        except ValueError:
            return None
        record, what = _edit(record, choose, rename)
        lines[index] = json.dumps(record, separators=(",", ":")).encode()
        return b"\n".join(lines), f"line {index + 1}: {what}"
    if name.endswith(".yaml"):
        document, _ = parse_yaml(raw, name)
        if document is None:
            return None
        data, what = _edit(document.data, choose, rename)
        return json.dumps(data, indent=2).encode(), what  # JSON is YAML
    return None


def mutate(files: Files, choose: Chooser) -> str:
    """Apply one mutation to one file of `files` (in place); return what it did."""
    names = sorted(files)
    if not names:
        return "no file left"
    name = names[choose.index(len(names), "file")]
    kind = KINDS[choose.index(len(KINDS), "mutation")]
    raw = files[name]

    def position(extra: int = 0) -> int:
        return choose.index(len(raw) + extra, "position") if raw or extra else 0

    lines = raw.split(b"\n")
    if kind in ("retype", "rename-key"):
        edited = _structured(name, raw, choose, rename=kind == "rename-key")
        if edited is not None:
            files[name] = edited[0]
            return f"{name}: {edited[1]}"
        kind = "flip"
    if kind == "flip" and raw:
        at = position()
        mask = 1 + choose.index(255, "mask")
        files[name] = raw[:at] + bytes([raw[at] ^ mask]) + raw[at + 1 :]
    elif kind in ("insert", "flip"):
        at = position(1)
        extra = (*_INSERTS, choose.blob("bytes") or b"?")
        inserted = extra[choose.index(len(extra), "insert")]
        files[name] = raw[:at] + inserted + raw[at:]
    elif kind == "delete" and raw:
        at = position()
        files[name] = raw[:at] + raw[at + 1 + choose.index(64, "length") :]
    elif kind == "truncate":
        files[name] = raw[: position()]
    elif kind == "remove":
        del files[name]
    elif kind == "drop-line" and len(lines) > 1:
        del lines[choose.index(len(lines), "line")]
        files[name] = b"\n".join(lines)
    elif kind == "duplicate-line":
        index = choose.index(len(lines), "line")
        lines.insert(index, lines[index])
        files[name] = b"\n".join(lines)
    elif kind == "swap-lines" and len(lines) > 1:
        first, second = choose.index(len(lines), "line"), choose.index(len(lines), "other line")
        lines[first], lines[second] = lines[second], lines[first]
        files[name] = b"\n".join(lines)
    else:
        return f"{name}: {kind}: nothing to do"
    return f"{name}: {kind}"

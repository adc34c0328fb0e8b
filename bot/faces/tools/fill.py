"""`claims init --set FIELD=VALUE` and `--from-inspect LOG`: fill a stub's FILL-IN values.

Without it, a filer hand-writes scripts to replace the stubs' placeholders. Here each
value goes on its own line, only where the stub still holds a `FILL-IN` placeholder, with a
comment saying where the value came from (`# from: ...`); every other line is kept byte for
byte. A field is named by its dotted path (`method.name`, `adversarial.red_teams.0.hours`),
or by its last part when exactly one placeholder of the two stubs has that name (`hours`).

Values are strings, except a JSON number, `true` and `false`, which are written as they are
(`hours=48`); quote a string that would read as one (`method.version='"2"'`).

A documented optional field the stubs leave out (`OPTIONAL`: `method.url`, `epochs`, `notes`,
`publication.doi`) is added on a line of its own, named by its dotted path. A field that
already has a value is never replaced: the message names its file and line, to edit there.
"""

from __future__ import annotations

import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from bot.edges.load.yaml_ import parse_yaml
from bot.rules.evidence.placeholders import PLACEHOLDER
from bot.vocab.document import FieldPath
from bot.vocab.errors import ClaimsError
from bot.vocab.jsonl import loads as json_loads

__all__ = [
    "NO_FIELD",
    "OPTIONAL",
    "Setting",
    "dotted",
    "fill_text",
    "parse_setting",
    "placeholders",
    "resolve",
    "unfilled",
]

# The optional scalar fields the schemas define (freeze.schema.json, attempt.schema.json) and
# the filing guide's tables document, which the stubs leave out: `--set` adds them.
OPTIONAL: dict[str, tuple[FieldPath, ...]] = {
    "freeze.yaml": (("method", "url"), ("epochs",), ("notes",)),
    "attempt.yaml": (("publication", "doi"),),
}


@dataclass(frozen=True)
class Setting:
    """One value to write: the field as the filer named it, the value, where it came from."""

    name: str
    value: Any
    source: str


def dotted(path: FieldPath) -> str:
    return ".".join(str(part) for part in path)


def parse_setting(text: str, source: str = "claims init --set") -> Setting:
    """`FIELD=VALUE` as a `Setting`. Raises ClaimsError for text without `=` or a field."""
    name, equals, raw = text.partition("=")
    if not equals or not name.strip():
        raise ClaimsError(f"--set {text!r}: write FIELD=VALUE, e.g. --set method.name=my-monitor")
    value: Any = raw
    try:
        parsed = json_loads(raw)
    except ValueError:
        parsed = None
    else:
        # A JSON number, true or false stays one; a quoted string is the string inside.
        if isinstance(parsed, bool | int | float | str):
            value = parsed
    return Setting(name.strip(), value, source)


def placeholders(data: Any, where: FieldPath = ()) -> list[FieldPath]:
    """The paths of every value in `data` that is still a FILL-IN placeholder, in order."""
    if isinstance(data, str):
        return [where] if data.startswith(PLACEHOLDER) else []
    if isinstance(data, dict):
        return [path for key, value in data.items() for path in placeholders(value, (*where, key))]
    if isinstance(data, list):
        return [path for i, value in enumerate(data) for path in placeholders(value, (*where, i))]
    return []


def _lookup(data: Any, path: FieldPath) -> tuple[bool, Any]:
    for part in path:
        in_mapping = isinstance(data, dict) and isinstance(part, str) and part in data
        in_list = isinstance(data, list) and isinstance(part, int) and 0 <= part < len(data)
        if not (in_mapping or in_list):
            return False, None
        data = data[part]
    return True, data


def _path_of(name: str) -> FieldPath:
    return tuple(int(part) if part.isdigit() else part for part in name.split("."))


def _leaves(data: Any, where: FieldPath = ()) -> list[FieldPath]:
    """The paths of every scalar value in `data`, in order."""
    if isinstance(data, dict):
        return [path for key, value in data.items() for path in _leaves(value, (*where, key))]
    if isinstance(data, list):
        return [path for i, value in enumerate(data) for path in _leaves(value, (*where, i))]
    return [where]


def _has_value(
    file: str,
    where: FieldPath,
    value: Any,
    lines: Mapping[str, Mapping[FieldPath, int]],
    folder: str,
) -> str:
    """The message for a field that is filled already: its value, and where to change it."""
    line = lines.get(file, {}).get(where)
    at = f", line {line}" if line else ""
    return (
        f"{file}: {dotted(where)} already has a value ({json.dumps(value)[:60]}); --set fills"
        f" only FILL-IN placeholders: to change it, edit {folder}{file}{at}"
    )


def _optional(path: FieldPath, stubs: Mapping[str, Any]) -> list[tuple[str, FieldPath]]:
    """The stub files where `path` is a documented optional field not written yet."""
    return [
        (file, path)
        for file, data in stubs.items()
        if path in OPTIONAL.get(file, ())
        and isinstance(_lookup(data, path[:-1])[1], dict)
        and not _lookup(data, path)[0]
    ]


def resolve(
    setting: Setting,
    stubs: Mapping[str, Any],
    lines: Mapping[str, Mapping[FieldPath, int]] | None = None,
    folder: str = "",
) -> tuple[str, FieldPath] | tuple[None, str]:
    """Which stub file and field a setting names: (file, path), or (None, why not).

    `stubs` maps each file name to its parsed data, `lines` (when known) each file's field
    lines, for messages. A dotted path names the field in the one file that has it, or a
    documented optional field (`OPTIONAL`) the file does not have yet; a bare name, the one
    placeholder of that name left in the stubs.
    """
    lines = lines or {}
    path = _path_of(setting.name)
    found = [(file, path) for file, data in stubs.items() if _lookup(data, path)[0]]
    if not found and len(path) == 1:
        found = [
            (file, candidate)
            for file, data in stubs.items()
            for candidate in placeholders(data)
            if candidate[-1] == path[0]
        ]
    if not found:
        found = _optional(path, stubs)
    if len(found) == 1:
        file, where = found[0]
        present, value = _lookup(stubs[file], where)
        if present and not (isinstance(value, str) and value.startswith(PLACEHOLDER)):
            return None, _has_value(file, where, value, lines, folder)
        return file, where
    if found:
        many = ", ".join(f"{file}: {dotted(where)}" for file, where in found)
        return None, f"{setting.name!r} names several fields ({many}): give its dotted path"
    if len(path) == 1:
        # A bare name of a field filled already: say where it is, not that it does not exist.
        filled = [
            (file, where)
            for file, data in stubs.items()
            for where in _leaves(data)
            if where and where[-1] == path[0]
        ]
        if len(filled) == 1:
            file, where = filled[0]
            value = _lookup(stubs[file], where)[1]
            return None, _has_value(file, where, value, lines, folder)
    entry = _new_entry(path, stubs, lines)
    return None, f"{NO_FIELD} {setting.name!r} in the stubs" + (f": {entry}" if entry else "")


# How a `resolve` refusal for a field the stubs lack begins: the caller then adds, once for
# all such flags, what is still to fill (`unfilled`).
NO_FIELD = "no field"


def unfilled(stubs: Mapping[str, Any]) -> str:
    """The placeholders still to fill and the optional fields --set can add: said once after
    the --set flags that named no field, not once per flag."""
    left = sorted({dotted(p) for data in stubs.values() for p in placeholders(data)})
    optional = "; ".join(
        f"{file}: {', '.join(dotted(p) for p in paths)}" for file, paths in OPTIONAL.items()
    )
    return (
        f"still to fill: {', '.join(left) or 'nothing'};"
        f" optional fields --set can add (by dotted path): {optional}"
    )


def _new_entry(
    path: FieldPath, stubs: Mapping[str, Any], lines: Mapping[str, Mapping[FieldPath, int]]
) -> str:
    """How to add the list entry `path` names, when it names the entry after a list's last
    (`adversarial.red_teams.1.name` with one red team): --set fills placeholders only, so the
    filer copies the last entry's lines, placeholders and all, and fills the copy. Empty when
    `path` names no such entry."""
    for cut, part in enumerate(path):
        if not isinstance(part, int) or part == 0:
            continue
        for file, data in stubs.items():
            present, items = _lookup(data, path[:cut])
            if not (present and isinstance(items, list) and part == len(items)):
                continue
            last = (*path[:cut], part - 1)
            at = sorted(
                line
                for where, line in lines.get(file, {}).items()
                if where[: len(last)] == last and line
            )
            span = f" (lines {at[0]}-{at[-1]})" if at else ""
            return (
                f"{dotted(path[:cut])} has {len(items)} entr{'y' if len(items) == 1 else 'ies'}"
                f" in {file}, and --set fills only entries there; to add one, copy the entry"
                f" {dotted(last)}{span} below it by hand, with its `- ` line, replace its"
                f" values with FILL-IN placeholders if they are filled, then --set"
                f" {dotted(path)}=... fills the copy"
            )
    return ""


def _scalar(value: Any) -> str:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return json.dumps(value)
    return json.dumps(str(value), ensure_ascii=False)


def _comment(source: str) -> str:
    """A one-line YAML comment: no line breaks, nothing a reader cannot see."""
    return re.sub(r"[\x00-\x1f\x7f\u2028\u2029]", " ", source)[:200]


def fill_text(
    text: str, name: str, settings: Sequence[tuple[FieldPath, Setting]]
) -> tuple[str, list[str]]:
    """`text` (a stub named `name`) with each setting's placeholder line replaced by its value
    and a `# from:` comment. Returns (new text, problems); with problems, the text unchanged.
    """
    document, problems = parse_yaml(text.encode("utf-8"), name)
    if document is None:
        return text, [f"{name}: {p.message}" for p in problems[:1]]
    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text)
    expected = json.loads(json.dumps(document.data))
    errors = []
    added: list[tuple[int, str]] = []  # (index in `lines` to insert before, the new line)
    for path, setting in settings:
        line = document.lines.get(path)
        key = str(path[-1])
        if line is None and path in OPTIONAL.get(name, ()):
            addition = _added(lines, document.lines, expected, path, setting)
            if addition is None:
                errors.append(_add_by_hand(name, path))
                continue
            added.append(addition)
            _set(expected, path, setting.value)
            continue
        pattern = re.compile(
            rf'^(?P<lead>\s*(?:- )?){re.escape(key)}:[ ]+"{PLACEHOLDER}[^"\n]*"[ ]*(?P<end>\r?\n?)$'
        )
        match = pattern.match(lines[line - 1]) if line and line <= len(lines) else None
        if line is None or match is None:
            errors.append(f"{name}: {dotted(path)} is not a one-line placeholder this can fill")
            continue
        lines[line - 1] = (
            f"{match['lead']}{key}: {_scalar(setting.value)}"
            f"  # from: {_comment(setting.source)}{match['end']}"
        )
        _set(expected, path, setting.value)
    if errors:
        return text, errors
    for index, inserted in sorted(added, reverse=True):
        if index > 0 and not lines[index - 1].endswith("\n"):
            lines[index - 1] += "\n"
        lines.insert(index, inserted)
    edited = "".join(lines)
    check, _ = parse_yaml(edited.encode("utf-8"), name)
    if check is None or check.data != expected:
        return text, [f"{name}: the filled file does not read back as written"]
    return edited, []


def _set(data: Any, path: FieldPath, value: Any) -> None:
    for part in path[:-1]:
        data = data[part]
    data[path[-1]] = value


def _added(
    lines: Sequence[str],
    at: Mapping[FieldPath, int],
    data: Any,
    path: FieldPath,
    setting: Setting,
) -> tuple[int, str] | None:
    """Where and what to insert for an optional field the file lacks: a top-level one at the
    end, a nested one just above its first sibling with that sibling's indent. None when the
    parent is not a block mapping this can extend (the filer adds it by hand)."""
    key, parent = str(path[-1]), path[:-1]
    value = f"{key}: {_scalar(setting.value)}  # from: {_comment(setting.source)}\n"
    if not parent:
        return len(lines), value
    siblings = _lookup(data, parent)[1]
    if not isinstance(siblings, dict) or not siblings:
        return None
    first = min((at.get((*parent, k)) or 0 for k in siblings), default=0)
    if first <= (at.get(parent) or 0) or first > len(lines):
        return None  # a flow mapping (`method: {name: x}`): its children share its line
    indent = re.match(r"[ ]+(?=[^ \n])", lines[first - 1])
    if indent is None:
        return None
    return first - 1, indent.group(0) + value


def _add_by_hand(name: str, path: FieldPath) -> str:
    parent = f"under `{dotted(path[:-1])}:` " if len(path) > 1 else ""
    return (
        f"{name}: {dotted(path)} is optional and not in the file, and this cannot add it here;"
        f" add it by hand: {parent}write `{path[-1]}: VALUE` on a line of its own"
    )

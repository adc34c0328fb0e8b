"""Safe YAML: one pass over the parser's events that refuses what could hurt as it builds data.

Refused as `yaml-unsafe` (docs/spec.md §4.2):
- anchors and aliases: PyYAML's `safe_load` shares aliased nodes, so a few hundred bytes can
  expand to hundreds of megabytes once serialised (the "billion laughs" alias bomb);
- explicit tags (`!!python/...`, `!custom`, even `!!str`) and `<<` merge keys;
- duplicate keys (PyYAML silently keeps the last one);
- more than one document, nesting deeper than `Limits.max_yaml_depth`, files over
  `Limits.max_yaml_bytes` (checked before parsing).

A file with no YAML content (no bytes, or only blank lines, comments and a bare `---`) is
`file-empty`: every YAML file the bot reads must hold a mapping, and "the file is empty" says
more than a schema error about `None`. An explicit `null` or `~` is content, left to the schema.

Integers outside I-JSON's ±(2**53-1) are `yaml-invalid`, named by their field, as in JSONL
(`bot/vocab/values.py`: no later stage could carry them).

Scalars resolve by the YAML 1.2 core schema, not PyYAML's YAML 1.1 one, so `NO`, `on`, `012`,
`1:30` and `2027-06-30` stay what they look like (strings, or the decimal 12) and the JSON
Schemas see JSON-like values; dates are checked as strings by the schemas' `format`.
"""

from __future__ import annotations

import math
import re
import sys
from typing import Any

import yaml
from yaml.reader import ReaderError

from bot.edges.load.folder import tree_error
from bot.edges.tree import Tree, TreeError, read_limited
from bot.vocab.config import Limits
from bot.vocab.document import Document, FieldPath
from bot.vocab.findings import Code, Finding
from bot.vocab.values import field_name, unsafe_integer

__all__ = ["load_yaml", "parse_yaml"]

_INT = re.compile(r"\A(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)\Z")
_FLOAT = re.compile(r"\A[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?\Z")
_BOOL = {"true": True, "True": True, "TRUE": True, "false": False, "False": False, "FALSE": False}
_NULL = {"", "~", "null", "Null", "NULL"}

# libyaml's C parser when PyYAML was built with it (10x faster: 1 MB in ~0.3 s instead of ~4 s);
# the pure-Python parser otherwise. Both yield the same events, checked one by one below.
_Parser: Any = getattr(yaml, "CSafeLoader", None) or yaml.SafeLoader


class _Refused(Exception):
    def __init__(self, message: str, line: int | None, code: Code = Code.YAML_UNSAFE) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.code = code


_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _line_at(text: str, position: int) -> int:
    """The 1-based line of `text[position]`, counting line breaks as PyYAML's reader does."""
    return len(_BREAK.findall(text, 0, position)) + 1


def _line(event: Any) -> int | None:
    mark = getattr(event, "start_mark", None)
    return None if mark is None else int(mark.line) + 1


def _check_text(text: str, line: int | None) -> str:
    """Refuse text that cannot be written back as UTF-8 (a lone surrogate from an escape)."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise _Refused(
            "a lone surrogate escape (\\uD800-\\uDFFF) is not text", line, Code.YAML_INVALID
        ) from None
    return text


def _scalar(event: yaml.ScalarEvent) -> object:
    """Resolve a scalar by the YAML 1.2 core schema: plain scalars may be null, bool or number."""
    text: str = event.value
    line = _line(event)
    # Plain scalars have style None (Python parser) or "" (libyaml); anything else is quoted
    # or a block scalar, which is always a string.
    if event.style not in (None, "") or not event.implicit[0]:
        return _check_text(text, line)
    if text in _NULL:
        return None
    if text in _BOOL:
        return _BOOL[text]
    try:
        if _INT.match(text):
            if text.startswith("0o"):
                number = int(text[2:], 8)
            elif text.startswith("0x"):
                number = int(text[2:], 16)
            else:
                number = int(text, 10)
            if abs(number) > sys.float_info.max:  # float(number) would raise OverflowError
                raise _Refused(f"number {text[:40]} is out of range", line, Code.YAML_INVALID)
            return number
        if _FLOAT.match(text):
            value = float(text)
            if not math.isfinite(value):
                raise _Refused(f"number {text[:40]} is out of range", line, Code.YAML_INVALID)
            return value
    except ValueError as error:  # e.g. an integer of more than 4300 digits
        raise _Refused(f"number {text[:40]}...: {error}", line, Code.YAML_INVALID) from None
    return _check_text(text, line)


class _Frame:
    """A mapping or sequence being built, and (for a mapping) the key awaiting its value."""

    __slots__ = ("key", "value", "where")

    def __init__(self, value: dict[str, object] | list[object], where: FieldPath) -> None:
        self.value = value
        self.where = where
        self.key: str | None = None


def _is_empty_node(event: Any) -> bool:
    """The empty plain scalar the parser gives for a document with no content (`---` alone)."""
    return (
        isinstance(event, yaml.ScalarEvent)
        and event.value == ""
        and event.style in (None, "")
        and bool(event.implicit[0])
    )


def _build(events: Any, max_depth: int) -> tuple[object, dict[FieldPath, int], bool]:
    """Build plain data from parser events, refusing anything unsafe as soon as it appears.

    Returns the data, the line of every field, and whether the stream had no content at all.
    """
    lines: dict[FieldPath, int] = {}
    stack: list[_Frame] = []
    documents = 0
    empty = True
    result: object = None

    def place(value: object, line: int | None) -> FieldPath:
        """Put a finished value where it belongs; return its path."""
        nonlocal result
        if not stack:
            result = value
            return ()
        frame = stack[-1]
        if isinstance(frame.value, list):
            where = (*frame.where, len(frame.value))
            frame.value.append(value)
            if line is not None:
                lines.setdefault(where, line)
            return where
        assert frame.key is not None
        where = (*frame.where, frame.key)
        frame.value[frame.key] = value
        frame.key = None
        return where

    def expecting_key() -> bool:
        return bool(stack) and isinstance(stack[-1].value, dict) and stack[-1].key is None

    while events.check_event():
        event = events.get_event()
        line = _line(event)
        if isinstance(event, yaml.AliasEvent):
            raise _Refused(f"alias *{event.anchor} (aliases are not allowed)", line)
        if isinstance(event, yaml.NodeEvent) and event.anchor is not None:
            raise _Refused(f"anchor &{event.anchor} (anchors are not allowed)", line)
        if getattr(event, "tag", None) is not None:
            raise _Refused(f"tag {event.tag} (tags are not allowed)", line)
        if isinstance(event, yaml.DocumentStartEvent):
            documents += 1
            if documents > 1:
                raise _Refused("more than one YAML document in the file", line)
        elif isinstance(event, yaml.ScalarEvent):
            if not stack and not _is_empty_node(event):
                empty = False
            if expecting_key():
                frame = stack[-1]
                key = _check_text(str(event.value), line)
                if key == "<<" and event.style in (None, ""):
                    raise _Refused("merge key << (merge keys are not allowed)", line)
                assert isinstance(frame.value, dict)
                if key in frame.value:
                    first = lines.get((*frame.where, key))
                    raise _Refused(f"duplicate key {key!r} (first on line {first})", line)
                frame.key = key
                if line is not None:
                    lines[(*frame.where, key)] = line
            else:
                value = _scalar(event)
                where = place(value, line)
                if type(value) is int and (problem := unsafe_integer(value)) is not None:
                    message = f"{field_name(where)}: {problem}"
                    raise _Refused(message, line, Code.YAML_INVALID)
        elif isinstance(event, yaml.CollectionStartEvent):
            empty = False
            if expecting_key():
                raise _Refused("a mapping key must be a plain value", line)
            if len(stack) >= max_depth:
                raise _Refused(f"nesting deeper than {max_depth} levels", line)
            container: dict[str, object] | list[object] = (
                {} if isinstance(event, yaml.MappingStartEvent) else []
            )
            where = place(container, line)
            if line is not None:
                lines.setdefault(where, line)
            stack.append(_Frame(container, where))
        elif isinstance(event, yaml.CollectionEndEvent):
            stack.pop()
    return result, lines, empty


_LINE_BREAKS = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _error_line(error: yaml.MarkedYAMLError, text: str) -> int | None:
    """The line of a syntax error, inside the file: libyaml marks a problem found at the end
    of input on the line after the last one, which no editor shows; the context's mark (the
    key or collection it was reading) is named then, else the last line."""
    breaks = _LINE_BREAKS.findall(text)  # as libyaml counts lines
    ends_with_break = bool(text) and _LINE_BREAKS.fullmatch(text[-1]) is not None
    last = max(len(breaks) + (0 if ends_with_break else 1), 1)
    for mark in (error.problem_mark, error.context_mark):
        if mark is not None and mark.line + 1 <= last:
            return int(mark.line) + 1
    if error.problem_mark is None and error.context_mark is None:
        return None
    return last


def _column(error: yaml.MarkedYAMLError, line: int | None) -> str:
    """Where on the line reported the problem is: " (line L, column C)", when a mark is on
    that line."""
    for mark in (error.problem_mark, error.context_mark):
        if mark is not None and line is not None and mark.line + 1 == line:
            return f" (line {line}, column {mark.column + 1})"
    return ""


def _in_our_words(error: yaml.MarkedYAMLError, text: str) -> str:
    """What libyaml's problem means for someone writing the file, and what to change."""
    problem = error.problem or error.context or "invalid YAML"
    start = error.context_mark
    opened = f" on line {start.line + 1}" if start is not None else ""
    if problem == "did not find expected ',' or ']'":
        return f"the list opened with '['{opened} is not closed: a ',' or ']' is missing"
    if problem == "did not find expected ',' or '}'":
        return f"the mapping opened with '{{'{opened} is not closed: a ',' or '}}' is missing"
    if problem == "did not find expected key":
        return (
            f"this line does not line up with the keys of the mapping that starts{opened}:"
            " indent it with spaces exactly as the keys beside it"
        )
    if problem == "did not find expected '-' indicator":
        return (
            f"this line does not line up with the list that starts{opened}: each item starts"
            " with '- ' at the list's indentation"
        )
    if problem.startswith("mapping values are not allowed"):
        return "a ': ' inside a value: quote the value ('...'), or give the key its own line"
    if problem == "found unexpected end of stream" and "quoted" in (error.context or ""):
        return f"the quoted text opened{opened} is never closed"
    if problem == "found unknown escape character":
        return (
            "an unknown escape ('\\' then a letter) in double-quoted text: write '\\\\'"
            " for a backslash, or use single quotes"
        )
    if problem == "found character that cannot start any token":
        mark = error.problem_mark
        lines = text.splitlines()
        character = ""
        if mark is not None and mark.line < len(lines) and mark.column < len(lines[mark.line]):
            character = lines[mark.line][mark.column]
        if character == "\t":
            return "a tab: YAML indents with spaces only"
        if character:
            return f"{character!r} cannot start a value: quote the value ('...')"
    if problem == "could not find expected ':'":
        return "a key without ':' after it (a key and its ':' must be on one line)"
    return problem


def parse_yaml(
    raw: bytes, path: str, limits: Limits = Limits()
) -> tuple[Document | None, list[Finding]]:
    """Parse YAML bytes. Return the document, or None with the findings that explain why.

    Never raises for bad input: size, encoding, syntax and safety problems come back as
    `yaml-unsafe` / `yaml-invalid` findings naming `path` and the line; a file with no content
    as `file-empty`.
    """
    if len(raw) > limits.max_yaml_bytes:
        message = f"{len(raw)} bytes, over the {limits.max_yaml_bytes}-byte limit for YAML files"
        return None, [Finding(Code.YAML_UNSAFE, message, path)]
    try:
        text = raw.decode("utf-8-sig")
    except UnicodeDecodeError as error:
        # `error.object` is what the decoder saw (the BOM may be cut off); the bytes before
        # the first bad one are valid UTF-8, so their lines can be counted.
        seen = bytes(error.object)
        before = seen[: error.start].decode("utf-8")
        offset = len(raw) - len(seen) + error.start
        message = f"not UTF-8 text ({error.reason} at byte {offset})"
        return None, [Finding(Code.YAML_INVALID, message, path, _line_at(before, len(before)))]
    try:
        events = _Parser(text)
        try:
            data, lines, empty = _build(events, limits.max_yaml_depth)
        finally:
            events.dispose()
    except _Refused as refused:
        return None, [Finding(refused.code, refused.message, path, refused.line)]
    except yaml.MarkedYAMLError as error:
        line = _error_line(error, text)
        problem = error.problem or error.context or "invalid YAML"
        if "nesting depth" in problem:  # libyaml >= 0.2.5 (PyYAML 6.0.4's) has its own cap
            return None, [Finding(Code.YAML_UNSAFE, f"nesting too deep ({problem})", path, line)]
        message = f"YAML syntax: {_in_our_words(error, text)}{_column(error, line)}"
        return None, [Finding(Code.YAML_INVALID, message, path, line)]
    except ReaderError as error:  # a control character; `position` indexes `text`
        character = error.character
        what = f"U+{character:04X}" if isinstance(character, int) else repr(character)
        message = f"control character {what} is not allowed in YAML"
        return None, [Finding(Code.YAML_INVALID, message, path, _line_at(text, error.position))]
    except yaml.YAMLError as error:
        message = " ".join(str(error).split())
        return None, [Finding(Code.YAML_INVALID, f"YAML: {message}", path)]
    except RecursionError:
        return None, [Finding(Code.YAML_UNSAFE, "nesting too deep to read", path)]
    if empty:
        return None, [Finding(Code.FILE_EMPTY, "the file is empty: no YAML content", path)]
    return Document(path, data, lines), []


def load_yaml(
    tree: Tree, path: str, limits: Limits = Limits()
) -> tuple[Document | None, list[Finding]]:
    """Read and parse the YAML file `path` of `tree` (links refused). See `parse_yaml`."""
    entry = tree.entry(path)
    if entry is not None and entry.kind == "file" and (entry.size or 0) > limits.max_yaml_bytes:
        message = f"{entry.size} bytes, over the {limits.max_yaml_bytes}-byte limit for YAML files"
        return None, [Finding(Code.YAML_UNSAFE, message, path)]
    try:
        raw = read_limited(tree, path, limits.max_yaml_bytes + 1)
    except TreeError as error:
        return None, [tree_error(error, "cannot read", path)]
    return parse_yaml(raw, path, limits)

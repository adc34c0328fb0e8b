"""Safe YAML: one pass over PyYAML's events that refuses what could hurt, before building data.

Refused as `yaml-unsafe` (SECURITY-NOTES, "Parsers (measured)"):
- anchors and aliases: PyYAML's `safe_load` shares aliased nodes, so a few hundred bytes can
  expand to hundreds of megabytes once serialised (the "billion laughs" alias bomb);
- explicit tags (`!!python/...`, `!custom`, even `!!str`) and `<<` merge keys;
- duplicate keys (PyYAML silently keeps the last one);
- more than one document, nesting deeper than `Limits.max_yaml_depth`, files over
  `Limits.max_yaml_bytes` (checked before parsing).

Scalars resolve by the YAML 1.2 core schema, not PyYAML's YAML 1.1 one, so `NO`, `on`, `012`,
`1:30` and `2027-06-30` stay what they look like (strings, or the decimal 12) and the JSON
Schemas see JSON-like values; dates are checked as strings by the schemas' `format`.
"""

from __future__ import annotations

import math
import re
from pathlib import Path

import yaml
from yaml.composer import Composer
from yaml.events import (
    AliasEvent,
    CollectionStartEvent,
    NodeEvent,
    StreamEndEvent,
)
from yaml.nodes import MappingNode, Node, ScalarNode, SequenceNode
from yaml.parser import Parser
from yaml.reader import Reader, ReaderError
from yaml.resolver import BaseResolver
from yaml.scanner import Scanner

from bot.config import Limits
from bot.findings import Code, Finding
from bot.load.document import Document, FieldPath

__all__ = ["load_yaml", "parse_yaml"]

_STR = "tag:yaml.org,2002:str"
_INT = "tag:yaml.org,2002:int"
_FLOAT = "tag:yaml.org,2002:float"
_BOOL = "tag:yaml.org,2002:bool"
_NULL = "tag:yaml.org,2002:null"


class _CoreResolver(BaseResolver):
    """YAML 1.2 core schema (https://yaml.org/spec/1.2.2/#1032-tag-resolution), minus .inf/.nan."""


for _tag, _pattern, _first in (
    (_BOOL, r"^(?:true|True|TRUE|false|False|FALSE)$", "tTfF"),
    (_INT, r"^(?:[-+]?[0-9]+|0o[0-7]+|0x[0-9a-fA-F]+)$", "-+0123456789"),
    (
        _FLOAT,
        r"^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$",
        "-+.0123456789",
    ),
    (_NULL, r"^(?:~|null|Null|NULL|)$", ["~", "n", "N", ""]),
):
    _CoreResolver.add_implicit_resolver(_tag, re.compile(_pattern), list(_first))


class _Refused(Exception):
    def __init__(self, message: str, line: int | None, code: Code = Code.YAML_UNSAFE) -> None:
        super().__init__(message)
        self.message = message
        self.line = line
        self.code = code


class _SafeComposer(Reader, Scanner, Parser, Composer, _CoreResolver):  # type: ignore[misc]
    """PyYAML's reader, scanner, parser and composer, with every node event checked first."""

    def __init__(self, text: str, max_depth: int) -> None:
        Reader.__init__(self, text)
        Scanner.__init__(self)
        Parser.__init__(self)
        Composer.__init__(self)
        _CoreResolver.__init__(self)
        self._depth = 0
        self._max_depth = max_depth

    def get_single_node(self) -> Node | None:
        self.get_event()  # StreamStartEvent
        document = None
        if not self.check_event(StreamEndEvent):
            document = self.compose_document()
        if not self.check_event(StreamEndEvent):
            event = self.peek_event()
            raise _Refused("more than one YAML document in the file", _line(event))
        self.get_event()
        return document  # type: ignore[no-any-return]

    def compose_node(self, parent: Node | None, index: object) -> Node:
        event = self.peek_event()
        if isinstance(event, AliasEvent):
            raise _Refused(f"alias *{event.anchor} (aliases are not allowed)", _line(event))
        if isinstance(event, NodeEvent) and event.anchor is not None:
            raise _Refused(f"anchor &{event.anchor} (anchors are not allowed)", _line(event))
        if getattr(event, "tag", None) is not None:
            raise _Refused(f"tag {event.tag} (tags are not allowed)", _line(event))
        if isinstance(event, CollectionStartEvent):
            self._depth += 1
            if self._depth > self._max_depth:
                raise _Refused(f"nesting deeper than {self._max_depth} levels", _line(event))
            try:
                return super().compose_node(parent, index)  # type: ignore[no-any-return]
            finally:
                self._depth -= 1
        return super().compose_node(parent, index)  # type: ignore[no-any-return]


_BREAK = re.compile("\r\n|[\r\n\x85\u2028\u2029]")


def _line_at(text: str, position: int) -> int:
    """The 1-based line of `text[position]`, counting line breaks as PyYAML's reader does."""
    return len(_BREAK.findall(text, 0, position)) + 1


def _line(event: object) -> int | None:
    mark = getattr(event, "start_mark", None)
    return None if mark is None else int(mark.line) + 1


def _scalar(node: ScalarNode) -> object:
    text: str = node.value
    line = node.start_mark.line + 1
    if node.tag == _NULL:
        return None
    if node.tag == _BOOL:
        return text.lower() == "true"
    try:
        if node.tag == _INT:
            if text.startswith("0o"):
                return int(text[2:], 8)
            if text.startswith("0x"):
                return int(text[2:], 16)
            return int(text, 10)
        if node.tag == _FLOAT:
            value = float(text)
            if not math.isfinite(value):
                raise _Refused(f"number {text[:40]} is out of range", line, Code.YAML_INVALID)
            return value
    except ValueError as error:  # e.g. an integer of more than 4300 digits
        raise _Refused(f"number {text[:40]}...: {error}", line, Code.YAML_INVALID) from None
    return text


def _build(node: Node, where: FieldPath, lines: dict[FieldPath, int]) -> object:
    """Turn a composed node into plain data, recording the line of every field."""
    lines.setdefault(where, node.start_mark.line + 1)
    if isinstance(node, ScalarNode):
        return _scalar(node)
    if isinstance(node, SequenceNode):
        return [_build(item, (*where, index), lines) for index, item in enumerate(node.value)]
    if isinstance(node, MappingNode):
        result: dict[str, object] = {}
        for key_node, value_node in node.value:
            line = key_node.start_mark.line + 1
            if not isinstance(key_node, ScalarNode):
                raise _Refused("a mapping key must be a plain value", line)
            key = str(key_node.value)
            if key == "<<":
                raise _Refused("merge key << (merge keys are not allowed)", line)
            if key in result:
                first = lines.get((*where, key))
                raise _Refused(f"duplicate key {key!r} (first on line {first})", line)
            lines[(*where, key)] = line
            result[key] = _build(value_node, (*where, key), lines)
        return result
    raise _Refused(f"unexpected YAML node {type(node).__name__}", node.start_mark.line + 1)


def parse_yaml(
    raw: bytes, path: str, limits: Limits = Limits()
) -> tuple[Document | None, list[Finding]]:
    """Parse YAML bytes. Return the document, or None with the findings that explain why.

    Never raises for bad input: size, encoding, syntax and safety problems come back as
    `yaml-unsafe` / `yaml-invalid` findings naming `path` and the line.
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
        composer = _SafeComposer(text, limits.max_yaml_depth)
        try:
            node = composer.get_single_node()
        finally:
            composer.dispose()
        lines: dict[FieldPath, int] = {}
        data = None if node is None else _build(node, (), lines)
    except _Refused as refused:
        return None, [Finding(refused.code, refused.message, path, refused.line)]
    except yaml.MarkedYAMLError as error:
        mark = error.problem_mark or error.context_mark
        line = None if mark is None else mark.line + 1
        problem = error.problem or error.context or "invalid YAML"
        return None, [Finding(Code.YAML_INVALID, f"YAML syntax: {problem}", path, line)]
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
    return Document(path, data, lines), []


def load_yaml(
    file: Path, display: str, limits: Limits = Limits()
) -> tuple[Document | None, list[Finding]]:
    """Read and parse a YAML file; `display` is the path reports show. See `parse_yaml`."""
    try:
        size = file.stat().st_size
        if size > limits.max_yaml_bytes:
            message = f"{size} bytes, over the {limits.max_yaml_bytes}-byte limit for YAML files"
            return None, [Finding(Code.YAML_UNSAFE, message, display)]
        raw = file.read_bytes()
    except FileNotFoundError:
        return None, [Finding(Code.FILE_MISSING, "file not found", display)]
    except OSError as error:
        return None, [Finding(Code.FILE_MISSING, f"cannot read: {error.strerror}", display)]
    return parse_yaml(raw, display, limits)

"""What a loader returns: the data, and the line of every field, recorded while reading."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

__all__ = ["Document", "FieldPath", "Record"]

# A path into a document, as JSON Schema's `absolute_path` gives it: keys and list indexes.
FieldPath = tuple[str | int, ...]


@dataclass(frozen=True, slots=True)
class Document:
    """A parsed YAML file: `data` is plain JSON-like values; `lines` maps field paths to lines."""

    path: str
    data: object
    lines: Mapping[FieldPath, int] = field(default_factory=dict)

    def line_of(self, where: FieldPath = ()) -> int | None:
        """The line of `where`, or of its nearest ancestor that has one (1-based)."""
        for end in range(len(where), -1, -1):
            line = self.lines.get(tuple(where[:end]))
            if line is not None:
                return line
        return None


@dataclass(frozen=True, slots=True)
class Record:
    """One JSONL line that parsed to a JSON object."""

    line: int
    data: dict[str, object]

    def line_of(self, _where: FieldPath = ()) -> int | None:
        """The record's line, whichever of its fields is asked about."""
        return self.line

    # A record is its own `line_of` where a line function is kept for every record (the
    # published list): no bound method is made and kept per record.
    __call__ = line_of

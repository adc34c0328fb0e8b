"""The mapping options: where a case's or a trial's field comes from (`SOURCE[:MAP]`) and how
the log's values map to the evidence's (`--verdict-map`)."""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass

from bot.faces.tools.adapters.inspect_.epoch import Epoch
from bot.faces.tools.adapters.inspect_.values import (
    MAX_NAME,
    InspectLogError,
    checked_name,
    plain_text,
    quoted,
)

__all__ = ["FieldMap", "Source", "ValueMap", "lookup", "parse_source", "parse_value_map"]


_KEY = r"[A-Za-z0-9_-]+"


_SOURCE = re.compile(rf"\A(metadata)\.({_KEY}(?:\.{_KEY})*)\Z|\A(score)\.([A-Za-z0-9_./-]+)\Z")


@dataclass(frozen=True, slots=True)
class ValueMap:
    """`VALUE=NEW,...`: each value the log gives -> what the evidence says; `*=NEW` for the
    rest. Without `*`, a value the map does not name is refused (never silently passed on)."""

    entries: tuple[tuple[str, str], ...]
    default: str | None = None

    def text(self) -> str:
        rest = [("*", self.default)] if self.default is not None else []
        return ",".join(f"{value}={new}" for value, new in [*self.entries, *rest])

    def apply(self, value: str, where: str) -> str:
        for known, new in self.entries:
            if known == value:
                return new
        if self.default is not None:
            return self.default
        named = ", ".join(known for known, _ in self.entries)
        raise InspectLogError(f"{where}: {quoted(value)} is not in the map ({named}, no *=)")


@dataclass(frozen=True, slots=True)
class Source:
    """Where a field comes from: `metadata.KEY[.KEY...]` (the sample's dataset metadata) or
    `score.SCORER` (that scorer's value, the same in every epoch), then `:MAP` optionally."""

    where: str  # "metadata" or "score"
    key: str
    values: ValueMap | None = None

    def text(self) -> str:
        mapped = f":{self.values.text()}" if self.values is not None else ""
        return f"{self.where}.{self.key}{mapped}"


def parse_value_map(text: str) -> ValueMap:
    """`C=caught,I=false_safe` or with `*=other`; raises ValueError naming the problem."""
    entries: list[tuple[str, str]] = []
    default: str | None = None
    if not text:
        raise ValueError("an empty map: write VALUE=NEW[,VALUE=NEW...]")
    for entry in text.split(","):
        value, equals, new = entry.partition("=")
        if not equals or not value or not new or "=" in new:
            raise ValueError(f"{entry!r}: write VALUE=NEW (no ',' or '=' inside either)")
        if len(new) > MAX_NAME or len(value) > MAX_NAME:
            raise ValueError(f"{entry!r}: at most {MAX_NAME} characters each side")
        if value == "*":
            if default is not None:
                raise ValueError("'*' is mapped twice")
            default = new
        elif any(value == known for known, _ in entries):
            raise ValueError(f"{value!r} is mapped twice")
        else:
            entries.append((value, new))
    return ValueMap(tuple(entries), default)


def parse_source(text: str) -> Source:
    """`metadata.kind`, `score.truth_scorer`, `metadata.label:attack=unsafe,*=safe`."""
    place, colon, mapping = text.partition(":")
    match = _SOURCE.match(place)
    if match is None:
        raise ValueError(
            f"{place!r}: name metadata.KEY (a sample metadata field; dots go deeper) or"
            " score.SCORER (a scorer's value), then optionally :VALUE=NEW,..."
        )
    where, key = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
    return Source(where, key, parse_value_map(mapping) if colon else None)


@dataclass(frozen=True, slots=True)
class FieldMap:
    """How the adapter fills the fields a market's bars read (docs/adapters.md)."""

    kind: Source | None = None  # default: metadata.kind when a string, else "task"
    family: Source | None = None  # default: the task name
    system: Source | None = None  # default: the eval's model
    truth: Source | None = None  # default: no result.truth
    verdicts: ValueMap | None = None  # default: pass / fail / error
    evaluator: str | None = None  # default: null (a scorer name on every trial joins them)


def lookup(source: Source, group: Sequence[Epoch]) -> str:
    """The value `source` names for one sample (all its epochs), mapped and checked."""
    first = group[0]
    where = f"{first.where}: {source.where}.{source.key}"
    if source.where == "metadata":
        value: object = first.content.get("metadata")
        for part in source.key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        found = plain_text(value)
    else:
        seen = {plain_text(epoch.scores.get(source.key)) for epoch in group}
        if len(seen) != 1:
            raise InspectLogError(
                f"{where}: the epochs disagree or some have no value ({len(seen)} values)"
            )
        found = seen.pop()
    if found is None:
        raise InspectLogError(f"{where}: missing, or not a string, number or boolean")
    mapped = source.values.apply(found, where) if source.values is not None else found
    return checked_name(mapped, where)

"""Checked records of an attempt: frozen cases and trials, each with the line it came from."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

__all__ = ["Case", "Trial"]


@dataclass(frozen=True, slots=True)
class Case:
    """One line of freeze-cases.jsonl that passed its schema."""

    line: int
    case_id: str
    sha256: str
    family: str
    kind: str
    public: Mapping[str, Any]
    content: Mapping[str, Any] | None

    @classmethod
    def from_data(cls, line: int, data: Mapping[str, Any]) -> Case:
        return cls(
            line=line,
            case_id=data["case_id"],
            sha256=data["sha256"],
            family=data["family"],
            kind=data["kind"],
            public=data["public"],
            content=data.get("content"),
        )

    def field(self, name: str) -> Any:
        """A case field a bar may filter on: a top-level field, else one of `public`."""
        if name in ("case_id", "family", "kind"):
            return getattr(self, name)
        return self.public.get(name)


@dataclass(frozen=True, slots=True)
class Trial:
    """One line of trials.jsonl that passed its schema (started_at is aware, in UTC)."""

    line: int
    case_id: str
    system: str
    started_at: datetime
    keys: Mapping[str, Any]  # every field but result: the unit keys live here
    result: Mapping[str, Any]

    @classmethod
    def from_data(cls, line: int, data: Mapping[str, Any], started_at: datetime) -> Trial:
        return cls(
            line=line,
            case_id=data["case_id"],
            system=data["system"],
            started_at=started_at,
            keys={key: value for key, value in data.items() if key != "result"},
            result=data["result"],
        )

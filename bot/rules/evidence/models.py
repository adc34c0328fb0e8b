"""Typed models of an attempt's files, each built once from data its schema has checked.

Frozen cases and trials carry the line they came from; attempt.yaml, freeze.yaml,
judgments.yaml, certificates and the adapter spec become the models below. Code further down
trusts the types (STYLE 2).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

from bot.vocab.document import Document
from bot.vocab.timestamps import parse_timestamp

__all__ = [
    "AdapterSpec",
    "Adversarial",
    "Attempt",
    "Bounty",
    "Case",
    "Certificate",
    "FoldedKeys",
    "Freeze",
    "Generator",
    "Judgment",
    "PaperFreeze",
    "RawLogClaim",
    "RedTeam",
    "Trial",
    "parse_judgments",
]


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


class FoldedKeys(dict[str, Any]):
    """A trial's unit keys with every name folded already (`TrialCheck`): `bars.unit_structure`
    takes it as it is. A dict in all else (no per-instance attributes: no more memory)."""

    __slots__ = ()


@dataclass(frozen=True, slots=True)
class Trial:
    """One line of trials.jsonl that passed its schema (started_at is aware, in UTC)."""

    line: int
    case_id: str
    system: str
    started_at: datetime
    # The record's unit keys, names folded (`TrialCheck`; `bars.unit_structure` reads these
    # alone). Without `keys` to `from_data`, the record's own dict (its result too, which
    # `unit_structure` skips).
    keys: Mapping[str, Any]
    result: Mapping[str, Any]

    @classmethod
    def from_data(
        cls,
        line: int,
        data: Mapping[str, Any],
        started_at: datetime,
        keys: Mapping[str, Any] | None = None,
        case_id: str | None = None,
        system: str | None = None,
    ) -> Trial:
        """From a record that passed the trial schema. `keys`: its unit keys' values, to keep
        instead of the record; `case_id`, `system`: equal strings to keep instead of the
        record's."""
        return cls(
            line=line,
            case_id=data["case_id"] if case_id is None else case_id,
            system=data["system"] if system is None else system,
            started_at=started_at,
            keys=data if keys is None else keys,
            result=data["result"],
        )


def _moment(text: object) -> datetime | None:
    return parse_timestamp(text) if isinstance(text, str) else None


@dataclass(frozen=True, slots=True)
class RedTeam:
    """One red-team group of attempt.yaml's `adversarial.red_teams`."""

    name: str
    organization: str
    independent: bool
    hours: float
    access: str
    started_at: datetime | None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> RedTeam:
        return cls(
            data["name"],
            data["organization"],
            bool(data["independent"]),
            float(data["hours"]),
            data["access"],
            _moment(data["started_at"]),
        )


@dataclass(frozen=True, slots=True)
class Bounty:
    """A bug bounty (the serious budget's bounty route)."""

    usd: float
    listed_at: datetime | None
    closed_at: datetime | None
    rules_frozen_at: datetime | None
    qualifying_submissions: int

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Bounty:
        return cls(
            float(data["usd"]),
            _moment(data["listed_at"]),
            _moment(data["closed_at"]),
            _moment(data["rules_frozen_at"]),
            int(data["qualifying_submissions"]),
        )


@dataclass(frozen=True, slots=True)
class Generator:
    """A planted-failure generator (the serious budget's generator route)."""

    name: str
    frozen_at: datetime | None
    planted: int
    planted_found: int
    independent_hours: float
    access: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Generator:
        return cls(
            data["name"],
            _moment(data["frozen_at"]),
            int(data["planted"]),
            int(data["planted_found"]),
            float(data["independent_hours"]),
            data["access"],
        )


@dataclass(frozen=True, slots=True)
class Adversarial:
    """attempt.yaml's `adversarial`: access frozen when, and the routes taken."""

    access_frozen_at: datetime | None
    red_teams: tuple[RedTeam, ...]
    bounty: Bounty | None
    generator: Generator | None
    protocol: Mapping[str, Any] | None

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> Adversarial:
        bounty, generator = data.get("bounty"), data.get("generator")
        return cls(
            _moment(data["access_frozen_at"]),
            tuple(RedTeam.from_data(team) for team in data.get("red_teams", ())),
            Bounty.from_data(bounty) if bounty else None,
            Generator.from_data(generator) if generator else None,
            data.get("protocol") or None,
        )


@dataclass(frozen=True, slots=True)
class RawLogClaim:
    """attempt.yaml's `raw_log`: where the whole log is, its hash and size."""

    sha256: str
    url: str
    bytes: int


@dataclass(frozen=True, slots=True)
class Attempt:
    """attempt.yaml, checked by its schema. `lines` maps top-level fields to their lines."""

    path: str
    market: int
    submitter: str
    kind: Literal["run", "wrapped", "challenge"]
    title: str
    challenge_run: str | None
    evidence_public_at: datetime | None
    raw_log: RawLogClaim
    assumed_access: str
    adversarial: Adversarial
    lines: Mapping[str, int]

    @classmethod
    def from_document(cls, document: Document) -> Attempt:
        """From a document that passed the `attempt` schema."""
        data: dict[str, Any] = document.data  # type: ignore[assignment]
        raw = data["raw_log"]
        return cls(
            path=document.path,
            market=int(data["market"]),
            submitter=data["submitter"],
            kind=data["kind"],
            title=data["title"],
            challenge_run=data.get("challenge_run"),
            evidence_public_at=_moment(data["publication"]["evidence_public_at"]),
            raw_log=RawLogClaim(raw["sha256"], raw["url"], int(raw["bytes"])),
            assumed_access=data["assumed_access"],
            adversarial=Adversarial.from_data(data["adversarial"]),
            lines={
                str(where[0]): line for where, line in document.lines.items() if len(where) == 1
            },
        )


@dataclass(frozen=True, slots=True)
class PaperFreeze:
    """A wrapped attempt's paper's own dated freeze."""

    date: str
    url: str
    sha256: str
    line: int | None = None  # of `paper_freeze` in freeze.yaml


@dataclass(frozen=True, slots=True)
class Freeze:
    """freeze.yaml, checked by its schema."""

    path: str
    line: int | None
    paper_freeze: PaperFreeze | None
    code_commit: str = ""
    code_commit_line: int | None = None

    @classmethod
    def from_document(cls, document: Document) -> Freeze:
        data: dict[str, Any] = document.data  # type: ignore[assignment]
        paper = data.get("paper_freeze")
        return cls(
            document.path,
            document.line_of(),
            PaperFreeze(
                str(paper["date"]),
                paper["url"],
                paper["sha256"],
                document.line_of(("paper_freeze",)),
            )
            if paper
            else None,
            str(data.get("code_commit", "")),
            document.line_of(("code_commit",)),
        )


@dataclass(frozen=True, slots=True)
class Judgment:
    """One human check recorded in judgments.yaml."""

    verdict: Literal["pass", "fail", "unsettled"]
    by: str
    at: str  # a date, or an RFC 3339 time
    evidence_digest: str
    note: str | None = None


def parse_judgments(data: Mapping[str, Any]) -> dict[str, Judgment]:
    """judgments.yaml's `checks`, from data that passed the `judgments` schema."""
    return {
        check: Judgment(
            entry["verdict"],
            entry["by"],
            str(entry["at"]),
            entry["evidence_digest"],
            entry.get("note"),
        )
        for check, entry in data["checks"].items()
    }


@dataclass(frozen=True, slots=True)
class Certificate:
    """One line of certificates.jsonl, checked by its schema: it names the system, the
    version, or both (seed, Per Instance Certificate: "names the system or version")."""

    line: int
    system: str | None
    version: str | None
    abstain: bool

    @classmethod
    def from_data(cls, line: int, data: Mapping[str, Any]) -> Certificate:
        return cls(line, data.get("system"), data.get("version"), bool(data["abstain"]))

    @property
    def instance(self) -> str:
        """The name of the instance it certifies: its system, or else its version."""
        name = self.system if self.system is not None else self.version
        assert name is not None  # the schema requires one of the two
        return name


@dataclass(frozen=True, slots=True)
class AdapterSpec:
    """adapter/adapter.yaml of a wrapped attempt, checked by its schema."""

    path: str
    description: str
    command: tuple[str, ...]
    released_data: tuple[Mapping[str, Any], ...]
    outputs: tuple[str, ...]

    @classmethod
    def from_document(cls, document: Document) -> AdapterSpec:
        data: dict[str, Any] = document.data  # type: ignore[assignment]
        return cls(
            document.path,
            data["description"],
            tuple(data["command"]),
            tuple(data["released_data"]),
            tuple(data["outputs"]),
        )

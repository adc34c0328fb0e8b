"""Typed models of an attempt's files, each built once from data its schema has checked.

Frozen cases and trials carry the line they came from; attempt.yaml, freeze.yaml,
judgments.yaml, certificates and the adapter spec become the models below. Code further down
trusts the types (STYLE 2).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal

import msgspec

from bot.vocab.document import Document
from bot.vocab.fields import (
    flag,
    integer,
    member,
    number,
    objects,
    optional_member,
    optional_text,
    text,
    texts,
)
from bot.vocab.timestamps import parse_timestamp
from bot.vocab.values import JSONObject, JSONValue

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


class Case(msgspec.Struct, frozen=True, gc=False):
    """One line of freeze-cases.jsonl that passed its schema.

    A msgspec Struct, as `Trial`: one is kept per line (docs/performance.md).
    """

    line: int
    case_id: str
    sha256: str  # empty in a lean case (`CaseChecker`): compared while read, not kept
    family: str
    kind: str
    public: JSONObject
    content: JSONObject | None

    @classmethod
    def from_data(cls, line: int, data: Mapping[str, object]) -> Case:
        return cls(
            line=line,
            case_id=text(data, "case_id"),
            sha256=text(data, "sha256"),
            family=text(data, "family"),
            kind=text(data, "kind"),
            public=member(data, "public"),
            content=optional_member(data, "content"),
        )

    def field(self, name: str) -> JSONValue:
        """A case field a bar may filter on: a top-level field, else one of `public`."""
        if name == "case_id":
            return self.case_id
        if name == "family":
            return self.family
        if name == "kind":
            return self.kind
        return self.public.get(name)


class FoldedKeys(tuple[Any, ...], Mapping[str, object]):
    """A trial's unit keys with every name folded already (`TrialChecker`): `bars.unit_structure`
    takes it as it is. A read-only mapping (equal to a dict of the same items), held as one
    tuple for memory, one per trial: the keys' positions (one dict, shared by the trials of a
    file: `positions`), then the values in that order. 80 bytes for four keys, where a dict
    takes 184."""

    __slots__ = ()

    def __new__(cls, positions: Mapping[str, int], values: Iterable[object]) -> FoldedKeys:
        """`values` in the order of `positions` (`FoldedKeys.positions` of the keys)."""
        return tuple.__new__(cls, (positions, *values))

    @staticmethod
    def positions(keys: Iterable[str]) -> dict[str, int]:
        """Where each of `keys` is held (its first place, if one repeats)."""
        positions: dict[str, int] = {}
        for position, key in enumerate(keys, start=1):
            positions.setdefault(key, position)
        return positions

    @classmethod
    def of(cls, items: Mapping[str, object]) -> FoldedKeys:
        return cls(cls.positions(items), items.values())

    def __getnewargs__(self) -> tuple[object, ...]:  # copy, pickle
        return (_item(self, 0), _item(self, slice(1, None)))

    def __getitem__(self, key: str) -> object:  # type: ignore[override]
        return _item(self, _item(self, 0)[key])

    def get(self, key: str, default: object = None) -> object:
        position = _item(self, 0).get(key)
        return default if position is None else _item(self, position)

    def __iter__(self) -> Iterator[str]:
        return iter(_item(self, 0))

    def __len__(self) -> int:
        return len(_item(self, 0))

    def __contains__(self, key: object) -> bool:
        return key in _item(self, 0)

    def __eq__(self, other: object) -> bool:
        return Mapping.__eq__(self, other)

    def __ne__(self, other: object) -> bool:
        equal = Mapping.__eq__(self, other)  # NotImplemented for what is no mapping: as is
        return equal if equal is NotImplemented else not equal

    __hash__ = None  # type: ignore[assignment]  # as a dict's

    def __repr__(self) -> str:
        return repr(dict(self.items()))


_item = tuple.__getitem__


class Trial(msgspec.Struct, frozen=True, gc=False):
    """One line of trials.jsonl that passed its schema (started_at is aware, in UTC).

    A msgspec Struct, not a dataclass: one is kept per line, and a Struct is built ~7x faster
    than a frozen dataclass and is 16 bytes smaller, untracked by the cyclic garbage collector
    (`gc=False`: it holds no reference back to itself; bench/verify_scale.py).
    """

    line: int
    case_id: str
    system: str
    started_at: datetime
    # The record's unit keys, names folded (`TrialChecker`; `bars.unit_structure` reads these
    # alone). Without `keys` to `from_data`, the record's own dict (its result too, which
    # `unit_structure` skips).
    keys: Mapping[str, object]
    result: JSONObject

    @classmethod
    def from_data(
        cls,
        line: int,
        data: Mapping[str, object],
        started_at: datetime,
        keys: Mapping[str, object] | None = None,
        case_id: str | None = None,
        system: str | None = None,
    ) -> Trial:
        """From a record that passed the trial schema. `keys`: its unit keys' values, to keep
        instead of the record; `case_id`, `system`: equal strings to keep instead of the
        record's."""
        return cls(
            line=line,
            case_id=text(data, "case_id") if case_id is None else case_id,
            system=text(data, "system") if system is None else system,
            started_at=started_at,
            keys=data if keys is None else keys,
            result=member(data, "result"),
        )


def _document_object(document: Document) -> JSONObject:
    """A checked document's data: its schema requires an object."""
    data = document.data
    if not isinstance(data, dict):
        raise TypeError(f"{document.path}: expected an object (schema drift)")
    return data


_KINDS: Mapping[str, Literal["run", "wrapped", "challenge"]] = {
    "run": "run",
    "wrapped": "wrapped",
    "challenge": "challenge",
}


def _moment(value: object) -> datetime | None:
    return parse_timestamp(value) if isinstance(value, str) else None


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
    def from_data(cls, data: Mapping[str, object]) -> RedTeam:
        return cls(
            text(data, "name"),
            text(data, "organization"),
            flag(data, "independent"),
            float(number(data, "hours")),
            text(data, "access"),
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
    def from_data(cls, data: Mapping[str, object]) -> Bounty:
        return cls(
            float(number(data, "usd")),
            _moment(data["listed_at"]),
            _moment(data["closed_at"]),
            _moment(data["rules_frozen_at"]),
            integer(data, "qualifying_submissions"),
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
    def from_data(cls, data: Mapping[str, object]) -> Generator:
        return cls(
            text(data, "name"),
            _moment(data["frozen_at"]),
            integer(data, "planted"),
            integer(data, "planted_found"),
            float(number(data, "independent_hours")),
            text(data, "access"),
        )


@dataclass(frozen=True, slots=True)
class Adversarial:
    """attempt.yaml's `adversarial`: access frozen when, and the routes taken."""

    access_frozen_at: datetime | None
    red_teams: tuple[RedTeam, ...]
    bounty: Bounty | None
    generator: Generator | None
    protocol: JSONObject | None

    @classmethod
    def from_data(cls, data: Mapping[str, object]) -> Adversarial:
        bounty = optional_member(data, "bounty")
        generator = optional_member(data, "generator")
        teams = objects(data, "red_teams") if "red_teams" in data else ()
        return cls(
            _moment(data["access_frozen_at"]),
            tuple(RedTeam.from_data(team) for team in teams),
            Bounty.from_data(bounty) if bounty else None,
            Generator.from_data(generator) if generator else None,
            optional_member(data, "protocol") or None,
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
        data = _document_object(document)
        raw = member(data, "raw_log")
        return cls(
            path=document.path,
            market=integer(data, "market"),
            submitter=text(data, "submitter"),
            kind=_KINDS[text(data, "kind")],
            title=text(data, "title"),
            challenge_run=optional_text(data, "challenge_run"),
            evidence_public_at=_moment(member(data, "publication")["evidence_public_at"]),
            raw_log=RawLogClaim(text(raw, "sha256"), text(raw, "url"), integer(raw, "bytes")),
            assumed_access=text(data, "assumed_access"),
            adversarial=Adversarial.from_data(member(data, "adversarial")),
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
        data = _document_object(document)
        paper = optional_member(data, "paper_freeze")
        return cls(
            document.path,
            document.line_of(),
            PaperFreeze(
                str(paper["date"]),
                text(paper, "url"),
                text(paper, "sha256"),
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


def parse_judgments(data: Mapping[str, object]) -> dict[str, Judgment]:
    """judgments.yaml's `checks`, from data that passed the `judgments` schema."""
    checks = member(data, "checks")
    judgments = {}
    for check in checks:
        entry = member(checks, check)
        judgments[check] = Judgment(
            _VERDICTS[text(entry, "verdict")],
            text(entry, "by"),
            str(entry["at"]),
            text(entry, "evidence_digest"),
            optional_text(entry, "note"),
        )
    return judgments


_VERDICTS: Mapping[str, Literal["pass", "fail", "unsettled"]] = {
    "pass": "pass",
    "fail": "fail",
    "unsettled": "unsettled",
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
    def from_data(cls, line: int, data: Mapping[str, object]) -> Certificate:
        return cls(
            line,
            optional_text(data, "system"),
            optional_text(data, "version"),
            flag(data, "abstain"),
        )

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
    released_data: tuple[JSONObject, ...]
    outputs: tuple[str, ...]

    @classmethod
    def from_document(cls, document: Document) -> AdapterSpec:
        data = _document_object(document)
        return cls(
            document.path,
            text(data, "description"),
            texts(data, "command"),
            objects(data, "released_data"),
            texts(data, "outputs"),
        )

"""A JSONL line of the big evidence files decoded and checked in one compiled pass.

Frozen cases, trials and certificates are read by msgspec straight into the Structs below,
which follow their schemas (`schemas/freeze-case.schema.json`, `trial.schema.json`,
`certificate.schema.json`; tests/unit/vocab/test_typed.py proves the fields, types, patterns
and lengths equal): the line's JSON reading, its schema check and the model's fields in one C
call, instead of a dict, then jsonschema-rs, then a model (bench/verify_scale.py). A pure
reading of bytes, imported by the rules (`CaseChecker`, `RecordsChecker`): so vocabulary.

The typed reading only ever says yes for a line the loader (`bot/vocab/jsonl.py`) and the
schema (`bot/rules/evidence/schema.py`) both accept, with equal values; any other line gets
None and takes today's path, which gives every refusal its message. So a line is decoded here
only where the readings provably agree (`LineDecoder`'s domain):
- the line is UTF-8 as the loader decodes it (checked with the same strict codec), with no
  escaped surrogate (no lone one, which `json` accepts and the loader refuses);
- no number of 16 digits or more (so no integer outside I-JSON's ±(2**53-1), which the loader
  refuses by field: msgspec reads any integer): a JSON number follows a `:`, `,`, `[` or white
  space, so no such byte followed by 16 digits (an optional `-` between) means none; digits
  elsewhere are inside strings (a SHA-256 in hex often holds 16 digits in a row);
- no `"` followed by white space and a colon, and as many `":` as members decoded (msgspec,
  like orjson, keeps the last of two equal keys; the loader refuses the line: the argument of
  `jsonl._fast_decode`);
- every float finite (msgspec refuses 1e400 itself; `float_hook` reads the rest as `json`
  does, with `float`); NaN, Infinity, control characters and trailing text msgspec refuses;
- the schema's `date-time` format, which msgspec cannot check, is checked after decoding by
  the same function the schema's format checker calls (`parse_timestamp`), and so is the
  certificate's `anyOf`/`if`-`then`.

The case's content hash is taken in the same pass (`content_sha256`) where msgspec's sorted
encoding is provably RFC 8785's: no float in the line (JCS writes floats as ECMAScript does:
`-0.0`, `1.0`, `1e21`), integers within ±2**53 (the domain above), and no character outside
the basic plane (keys with one sort otherwise by code point than by UTF-16 unit). Both escape
`"`, `\\` and control characters alike, with lower-case hex, and write the rest as UTF-8.
Otherwise None, and the caller hashes with `rfc8785` (`bot.rules.evidence.rules.case_hash`).
"""

from __future__ import annotations

import hashlib
import re
from datetime import datetime
from typing import Annotated, Any, Final

import msgspec
from msgspec import Meta

# The loader's own checks of a line (`bot/vocab/jsonl.py`), which this reading must equal.
from bot.vocab.jsonl import _LOOSE_KEY, _SURROGATE_ESCAPE, _members
from bot.vocab.timestamps import parse_timestamp

__all__ = [
    "CaseLine",
    "CertificateLine",
    "LineDecoder",
    "TrialLine",
    "content_sha256",
]

# common.schema.json's $defs, as msgspec constraints (re.search, like jsonschema's `pattern`).
Id = Annotated[str, Meta(pattern="^[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}$")]
Sha256 = Annotated[str, Meta(min_length=64, max_length=64, pattern="^[0-9a-f]{64}$")]
Name = Annotated[str, Meta(min_length=1, max_length=200)]
Text = Annotated[str, Meta(min_length=1, max_length=20000)]
# `format: date-time`: msgspec cannot call our format check; `LineDecoder` does after decoding.
Timestamp = Annotated[str, Meta(extra_json_schema={"format": "date-time"})]
Short = Annotated[str, Meta(max_length=200)]


class CaseLine(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One line of freeze-cases.jsonl (freeze-case.schema.json)."""

    case_id: Id
    sha256: Sha256
    family: Name
    kind: Name
    public: dict[str, Any]
    content: dict[str, Any] | msgspec.UnsetType = msgspec.UNSET


class TrialLine(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One line of trials.jsonl (trial.schema.json)."""

    case_id: Id
    system: Name
    started_at: Timestamp
    trajectory: Short | None
    evaluator: Short | None
    attack_family: Short | None
    result: dict[str, Any]


class CertificateLine(msgspec.Struct, forbid_unknown_fields=True, frozen=True):
    """One line of certificates.jsonl (certificate.schema.json; its `anyOf` of system and
    version and its `if abstain then scope_reason` are checked after decoding)."""

    measured: Text
    setup: Text
    abstain: bool
    system: Name | msgspec.UnsetType = msgspec.UNSET
    version: Name | msgspec.UnsetType = msgspec.UNSET
    scope_reason: Text | msgspec.UnsetType = msgspec.UNSET
    label: str | msgspec.UnsetType | None = msgspec.UNSET


def _utf8(raw: bytes) -> bool:
    """Whether `raw` is UTF-8 as the loader decodes it (strict: no encoded surrogate, no
    overlong form), which is what msgspec then reads it as."""
    if raw.isascii():
        return True
    try:
        raw.decode("utf-8")
    except UnicodeDecodeError:
        return False
    return True


# `_in_domain`'s scan of a line: digits as 0; what may precede a number's digits (`:`, `,`,
# `[`, white space, a minus sign) as `,`. A number of 16 digits or more is then `,` and 16
# zeros.
_SCAN: Final = bytes.maketrans(b"123456789-:[ \t\n\r\x0b\x0c", b"000000000,,,,,,,,,")
_LONG_NUMBER_SCANNED: Final = b"," + b"0" * 16


def _in_domain(raw: bytes) -> bool:
    """Whether `raw` is a line whose typed reading can equal the loader's (module docstring):
    UTF-8, no escaped surrogate, no 16-digit number, no white space before a key's colon.
    The numbers are found by one `translate` and one search: a JSON number's digits follow
    a `:`, `,`, `[`, white space or a minus sign, so each number of 16 digits or more is
    `_LONG_NUMBER_SCANNED` in the scan (which also finds digits in strings after such a
    byte: declined all the same). A regular expression for it takes ~10x longer on a block
    of lines (tests/unit/vocab/test_typed.py holds the two to the same numbers)."""
    if not _utf8(raw) or _LONG_NUMBER_SCANNED in raw.translate(_SCAN):
        return False
    if _LOOSE_KEY.search(raw):
        return False
    return b"\\u" not in raw or not _SURROGATE_ESCAPE.search(raw)


class _FloatSeen:
    """msgspec's `float_hook`: each float read as `json` reads it (`float`), finite, and
    counted (a line with one has its content hashed by `rfc8785`)."""

    __slots__ = ("count",)

    def __init__(self) -> None:
        self.count = 0

    def __call__(self, text: str) -> float:
        value = float(text)
        if value - value != 0.0:  # inf or nan: the loader refuses it, with its message
            raise ValueError("not finite")
        self.count += 1
        return value


# What a decoding that declines raises: msgspec's errors, and RecursionError (msgspec's own
# on deep nesting, or `_members`'s), which is not a MsgspecError.
_DECLINED: Final = (msgspec.MsgspecError, RecursionError)

_ASTRAL: Final = re.compile(rb"[\xf0-\xf4]")  # the lead byte of a 4-byte UTF-8 character


def _basic_plane(raw: bytes) -> bool:
    """Whether the UTF-8 line `raw` writes no character outside the basic plane (escaped
    ones are surrogate pairs, outside the domain): its keys sort alike by code point and by
    UTF-16 unit."""
    return raw.isascii() or not _ASTRAL.search(raw)


def _digest(value: dict[str, Any]) -> str:
    return hashlib.sha256(msgspec.json.encode(value, order="sorted")).hexdigest()


def content_sha256(raw: bytes) -> str | None:
    """The SHA-256 of the RFC 8785 form of the JSON object `raw`, where msgspec's sorted
    encoding provably is that form (module docstring); None where it may not be, or `raw` is
    not such an object: hash it with `rfc8785` then."""
    if not _in_domain(raw):
        return None
    floats = _FloatSeen()
    try:
        value = msgspec.json.Decoder(dict[str, Any], float_hook=floats).decode(raw)
        if floats.count or raw.count(b'":') != _members(value) or not _basic_plane(raw):
            return None
    except _DECLINED:
        return None
    return _digest(value)


class LineDecoder:
    """Typed readings of JSONL lines; each method gives None where today's path must read
    the line (module docstring). For lines the loader offers (`parse_jsonl`'s `typed`):
    within the record caps, and with no more arrays and objects than `max_json_depth`, so
    no deeper; any other bytes get a reading or None too, never an exception (nesting past
    msgspec's own limit is declined). Not shared between threads (one float counter)."""

    def __init__(self) -> None:
        self._floats = _FloatSeen()
        hook = self._floats
        self._case = msgspec.json.Decoder(CaseLine, float_hook=hook)
        self._trial = msgspec.json.Decoder(TrialLine, float_hook=hook)
        self._certificate = msgspec.json.Decoder(CertificateLine, float_hook=hook)

    def case(self, raw: bytes) -> tuple[CaseLine, str | None] | None:
        """The frozen case of `raw`, with its content's hash where it is taken here (None: no
        content, or a content `rfc8785` must hash)."""
        if not _in_domain(raw):
            return None
        self._floats.count = 0
        try:
            line = self._case.decode(raw)
            content = line.content
            objects = [line.public] if content is msgspec.UNSET else [line.public, content]
            # As many brackets and braces as the objects decoded (and the line's): none nested.
            flat = raw.count(b"{") + raw.count(b"[") == 1 + len(objects)
            members = 4 + sum(1 + (len(item) if flat else _members(item)) for item in objects)
        except _DECLINED:
            return None
        if raw.count(b'":') != members:
            return None
        digest = None
        if content is not msgspec.UNSET and not self._floats.count and _basic_plane(raw):
            digest = _digest(content)
        return line, digest

    def trial(self, raw: bytes) -> tuple[TrialLine, datetime] | None:
        """The trial of `raw` and its start, in UTC."""
        if not _in_domain(raw):
            return None
        try:
            line = self._trial.decode(raw)
            result = line.result
            flat = raw.count(b"{") + raw.count(b"[") == 2  # the line's and the result's
            members = 7 + (len(result) if flat else _members(result))
        except _DECLINED:
            return None
        if raw.count(b'":') != members:
            return None
        started_at = parse_timestamp(line.started_at)
        if started_at is None:
            return None
        return line, started_at

    def cases(
        self, block: bytes, lines: list[bytes]
    ) -> tuple[list[CaseLine], list[str | None]] | None:
        """`case` of each of `lines`, which are `block`'s (joined by LFs), as two lists (the
        lines, their contents' hashes): all of them, or None where some line would get None,
        may hash otherwise (a block with contents and a float or a character outside the basic
        plane) or nests an array or object in its `public` or `content` (those `case` reads
        alone: the loader gives no block whose lines it has not counted, `parse_jsonl`'s
        `Typed`).

        The checks of `case` are made once on the block: each is a count whose sum over the
        lines is the block's, or a search that finds in the block whatever it finds in any of
        its lines (maybe more, across a LF: the block is then declined). For the counts each
        line's is at least what its decoding gives, so equal sums make each line's equal."""
        if not _in_domain(block):
            return None
        floats = self._floats
        floats.count = 0
        try:
            decoded = list(map(self._case.decode, lines))
        except _DECLINED:
            return None
        unset = msgspec.UNSET
        contents = [line.content for line in decoded if line.content is not unset]
        if contents and (floats.count or not _basic_plane(block)):  # `case` decides, by line
            return None
        # Each line's `{` and `[` are at least its object, its `public` and its `content`.
        if block.count(b"{") + block.count(b"[") != 2 * len(decoded) + len(contents):
            return None
        members = 5 * len(decoded) + len(contents)  # four fields, `public`, `content`
        members += sum(map(len, [line.public for line in decoded])) + sum(map(len, contents))
        if block.count(b'":') != members:
            return None
        digests = [None if line.content is unset else _digest(line.content) for line in decoded]
        return decoded, digests

    def trials(
        self, block: bytes, lines: list[bytes]
    ) -> tuple[list[TrialLine], list[datetime]] | None:
        """`trial` of each of `lines`, which are `block`'s, as two lists (the lines, their
        starts), or None (as `cases`: a `result` nesting an array or object gets None)."""
        if not _in_domain(block):
            return None
        try:
            decoded = list(map(self._trial.decode, lines))
        except _DECLINED:
            return None
        if block.count(b"{") + block.count(b"[") != 2 * len(decoded):
            return None
        members = 7 * len(decoded) + sum(map(len, [line.result for line in decoded]))
        if block.count(b'":') != members:
            return None
        starts = list(map(parse_timestamp, [line.started_at for line in decoded]))
        if None in starts:
            return None
        return decoded, starts  # type: ignore[return-value]  # no None among them

    def certificate(self, raw: bytes) -> CertificateLine | None:
        """The certificate of `raw`."""
        if not _in_domain(raw):
            return None
        try:
            line = self._certificate.decode(raw)
        except _DECLINED:
            return None
        unset = msgspec.UNSET
        present = sum(
            value is not unset
            for value in (line.system, line.version, line.scope_reason, line.label)
        )
        if raw.count(b'":') != 3 + present:
            return None
        if line.system is unset and line.version is unset:
            return None
        if line.abstain and line.scope_reason is unset:
            return None
        return line

"""Pins fetched by a job without a token, counted by the job that holds one.

An attempt pins its raw log (`raw_log` url, sha256, bytes) and a wrapped attempt its paper's
freeze (`paper_freeze` url, sha256). `bot/edges/fetch.py` streams a pin and compares; this module
splits that in two processes, as adapter reruns are split (`bot/app/rerun.py`):

- fetch (`claims verify --fetch-raw-logs --pin-results DIR`): every pin is fetched and one
  record per pin is written to `DIR/<key>.json` (`PinRecord`): the URL, the kind, the pin,
  what was served (bytes, sha256) and the findings. With a `KeepPlan` (the close's pin jobs,
  `--keep-pins PLAN`) a body the plan lists that matches its pin is kept as
  `DIR/sha256/<hex>`, for the snapshot's archive.
- count (`--pin-results DIR` alone, `recorded_only`): nothing is fetched; each pin's record is
  read back with a strict reader (a record the bot did not write as it stands is refused) and
  its findings count. A pin with no record, or a damaged one, is `pin-not-fetched`: never a
  silent pass.

Every pin counted gets a `pin-fetched` notice saying what was fetched (URL, size, sha256), so
the check run on a pull request says it.

The key of a record is the SHA-256 of what the comparison depends on: the kind, the URL, the
pinned sha256 and size, and the committed excerpts' hashes. A record is believed as it stands
(it says the URL served the pin), so its folder must be written by the bot alone: this run's
own fetch job's artifact, never a cache others can write.

At the close (`deadline`), no attempt holds a market hostage (docs/spec.md §9,
`bot/faces/jobs/stuck.py`): a pin with no record blocks the market this run (the fetch job was lost:
the registry's fault); a pin whose server did not answer (`raw-log-unavailable`,
`paper-freeze-unavailable`) blocks it until the market's rerun deadline, and from then on is
`pin-unrecorded`, not counting.
"""

from __future__ import annotations

import hashlib
import io
import json
import os
import re
import tempfile
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any, BinaryIO, NamedTuple

from bot.app.rerun import Deadline
from bot.edges import disk
from bot.edges.fetch import Fetched, fetch_paper_freeze, fetch_raw_log
from bot.edges.load.folder import read_regular
from bot.vocab.config import Limits
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.jsonl import loads as json_loads

__all__ = [
    "PIN_KINDS",
    "RECORD_VERSION",
    "KeepPlan",
    "PinFetch",
    "PinRecord",
    "PinRecordError",
    "pin_key",
    "read_record",
]

PIN_KINDS = ("raw_log", "paper_freeze")
RECORD_VERSION = 1
_RECORD_BYTES = 1 << 20  # a record holds a URL and a few findings
_MESSAGE_CHARS = 2000  # a message can name what a filer's server sent: cut to this
_URL_CHARS = 4000
_HEX = re.compile(r"[0-9a-f]{64}")
# The findings a fetch of each kind can give; a record naming another code is refused.
_CODES = {
    "raw_log": frozenset(
        {Code.RAW_LOG_UNAVAILABLE, Code.RAW_LOG_HASH_MISMATCH, Code.RAW_LOG_EXCERPT}
    ),
    "paper_freeze": frozenset({Code.PAPER_FREEZE_UNAVAILABLE, Code.PAPER_FREEZE_MISMATCH}),
}
# A fetch that may pass on another try (the server did not answer): the close waits for it.
_TRIES = frozenset({Code.RAW_LOG_UNAVAILABLE, Code.PAPER_FREEZE_UNAVAILABLE})
_LABEL = {"raw_log": "raw_log.url", "paper_freeze": "paper_freeze.url"}
_FIELDS = frozenset(
    {
        "record",
        "version",
        "key",
        "kind",
        "url",
        "file",
        "pinned_sha256",
        "pinned_bytes",
        "served_bytes",
        "served_sha256",
        "findings",
        "kept",
    }
)


class PinRecordError(ValueError):
    """A record that is not what the bot writes (malformed, another key or version)."""


_KEEP_FIELDS = ["attempt", "bytes", "sha256"]
_PLAN_BYTES = 256 << 20  # a plan of 16,384 attempts, each with two pins, is ~5 MB


@dataclass(frozen=True)
class KeepPlan:
    """The files a pin job keeps: `(attempt folder, sha256) -> at most this many bytes`, the
    pin plan's `keep` (`bot/faces/jobs/rerun_batches.py`, `plan_keep`), planned within the archive's
    caps and the close job's disk. Any other file is fetched and recorded, never kept."""

    files: Mapping[tuple[str, str], int]

    def allows(self, file: str, sha256: str) -> int | None:
        """The bytes planned for the pin in `file` (its attempt's attempt.yaml or freeze.yaml)
        whose sha256 is `sha256`; None: not to be kept."""
        return self.files.get((file.rpartition("/")[0], sha256.lower()))

    @classmethod
    def of(cls, entries: Iterable[tuple[str, str, int]]) -> KeepPlan:
        """From `plan_keep`'s `(attempt folder, sha256, bytes)` entries."""
        return cls({(attempt, sha256): size for attempt, sha256, size in entries})

    @classmethod
    def read(cls, path: Path) -> KeepPlan:
        """The `keep` of the pin plan at `path` (`claims close-windows --plan-pins`), read
        strictly: anything else than the planner writes is refused (PinRecordError)."""
        try:
            data = json_loads(read_regular(path, _PLAN_BYTES).decode("utf-8"))
        except (OSError, UnicodeDecodeError, ValueError) as error:
            raise PinRecordError(f"{path}: not a pin plan ({error})") from error
        entries = data.get("keep") if isinstance(data, dict) else None
        if not isinstance(entries, list):
            raise PinRecordError(f"{path}: no `keep` list (not a pin plan)")
        files: dict[tuple[str, str], int] = {}
        for number, entry in enumerate(entries):
            if (
                not isinstance(entry, dict)
                or sorted(entry) != _KEEP_FIELDS
                or not isinstance(entry["attempt"], str)
                or not isinstance(entry["sha256"], str)
                or _HEX.fullmatch(entry["sha256"]) is None
                or type(entry["bytes"]) is not int
                or entry["bytes"] < 1
            ):
                raise PinRecordError(f"{path}: keep[{number}] is not {{attempt, sha256, bytes}}")
            files[(entry["attempt"], entry["sha256"])] = entry["bytes"]
        return cls(files)


class _Bounded(io.RawIOBase):
    """A kept body's file, written up to `limit` bytes: past it nothing more is written and
    `over` is set (a server serving more than the plan allows is not kept, whatever it is)."""

    def __init__(self, stream: BinaryIO, limit: int) -> None:
        self._stream, self._limit, self.written, self.over = stream, limit, 0, False

    def writable(self) -> bool:
        return True

    def write(self, data: Any) -> int:
        chunk = bytes(data)
        if self.over or self.written + len(chunk) > self._limit:
            self.over = True
            return len(chunk)
        self._stream.write(chunk)
        self.written += len(chunk)
        return len(chunk)


def _digest(data: bytes | None) -> str | None:
    return None if data is None else hashlib.sha256(data).hexdigest()


def pin_key(
    kind: str,
    url: str,
    sha256: str,
    size: int | None,
    head: bytes | None = None,
    tail: bytes | None = None,
) -> str:
    """The record key of one pin: what its comparison depends on."""
    parts = {
        "kind": kind,
        "url": url,
        "sha256": sha256.lower(),
        "bytes": size,
        "head": _digest(head),
        "tail": _digest(tail),
        "version": RECORD_VERSION,
    }
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


@dataclass(frozen=True, slots=True)
class PinRecord:
    """What the fetch job found for one pin. `findings` are (code, message) pairs, located
    where the pin is when read back; `kept`: the body is in the folder as `sha256/<hex>`."""

    key: str
    kind: str
    url: str
    file: str
    pinned_sha256: str
    pinned_bytes: int | None
    served_bytes: int | None
    served_sha256: str | None
    findings: tuple[tuple[Code, str], ...]
    kept: bool = False

    def to_json(self) -> str:
        data = {
            "record": "pin",
            "version": RECORD_VERSION,
            "key": self.key,
            "kind": self.kind,
            "url": self.url,
            "file": self.file,
            "pinned_sha256": self.pinned_sha256,
            "pinned_bytes": self.pinned_bytes,
            "served_bytes": self.served_bytes,
            "served_sha256": self.served_sha256,
            "findings": [{"code": c.value, "message": m} for c, m in self.findings],
            "kept": self.kept,
        }
        return json.dumps(data, indent=2, sort_keys=True, ensure_ascii=False) + "\n"

    @property
    def matches(self) -> bool:
        """The served file is the pinned one (no finding)."""
        return not self.findings and self.served_sha256 == self.pinned_sha256

    def described(self) -> str:
        """One line: what was fetched, for the check run."""
        label = _LABEL[self.kind]
        if self.served_bytes is None:
            return f"{label} {self.url} could not be fetched"
        served = (
            f"sha256 {self.served_sha256}"
            if self.served_sha256 is not None
            else "more bytes than pinned, so no hash"
        )
        verdict = "as pinned" if self.matches else "not as pinned"
        return f"{label} {self.url} fetched: {self.served_bytes} bytes, {served} ({verdict})"


def _optional_int(value: object) -> bool:
    return value is None or (type(value) is int and value >= 0)


def _optional_hex(value: object) -> bool:
    return value is None or (isinstance(value, str) and _HEX.fullmatch(value) is not None)


def read_record(text: str, key: str) -> PinRecord:
    """The record for `key` in `text`. Raises `PinRecordError` unless it is exactly what
    `PinRecord.to_json` writes: every field present, of its type, nothing else."""
    try:
        data = json_loads(text)
    except ValueError as error:
        raise PinRecordError(f"not JSON: {error}") from None
    if not isinstance(data, dict) or set(data) != _FIELDS:
        raise PinRecordError("not a pin record (other fields)")
    if data["record"] != "pin" or data["version"] != RECORD_VERSION:
        raise PinRecordError("not a pin record of this version")
    if data["key"] != key:
        raise PinRecordError("a record for another pin")
    kind = data["kind"]
    if kind not in PIN_KINDS:
        raise PinRecordError(f"unknown kind {kind!r:.40}")
    if not (isinstance(data["url"], str) and 0 < len(data["url"]) <= _URL_CHARS):
        raise PinRecordError("url is not a string")
    if not isinstance(data["file"], str) or not data["file"]:
        raise PinRecordError("file is not a string")
    if not (_optional_hex(data["pinned_sha256"]) and data["pinned_sha256"] is not None):
        raise PinRecordError("pinned_sha256 is not 64 hex digits")
    if not (_optional_int(data["pinned_bytes"]) and _optional_int(data["served_bytes"])):
        raise PinRecordError("a size is not a whole number")
    if not _optional_hex(data["served_sha256"]):
        raise PinRecordError("served_sha256 is not 64 hex digits")
    if type(data["kept"]) is not bool:
        raise PinRecordError("kept is not true or false")
    findings = data["findings"]
    if not isinstance(findings, list):
        raise PinRecordError("findings is not a list")
    read: list[tuple[Code, str]] = []
    for item in findings:
        if not (
            isinstance(item, dict)
            and set(item) == {"code", "message"}
            and item["code"] in {c.value for c in _CODES[kind]}
            and isinstance(item["message"], str)
            and len(item["message"]) <= _MESSAGE_CHARS
        ):
            raise PinRecordError(f"a malformed finding: {item!r:.200}")
        read.append((Code(item["code"]), item["message"]))
    record = PinRecord(
        key=key,
        kind=kind,
        url=data["url"],
        file=data["file"],
        pinned_sha256=data["pinned_sha256"],
        pinned_bytes=data["pinned_bytes"],
        served_bytes=data["served_bytes"],
        served_sha256=data["served_sha256"],
        findings=tuple(read),
        kept=data["kept"],
    )
    if not read and not record.matches:
        raise PinRecordError("no finding, but the served file is not the pinned one")
    if not read and kind == "raw_log" and record.served_bytes != record.pinned_bytes:
        raise PinRecordError("no finding, but the served size is not the pinned one")
    if record.kept and not record.matches:
        raise PinRecordError("a kept body that does not match its pin")
    return record


class _Pin(NamedTuple):
    """One pin as the attempt states it (sha256 lower-cased)."""

    key: str
    kind: str
    url: str
    file: str
    sha256: str
    size: int | None


def _cut(message: str) -> str:
    return message if len(message) <= _MESSAGE_CHARS else message[: _MESSAGE_CHARS - 1] + "…"


@dataclass(frozen=True)
class PinFetch:
    """Fetch pins and record them in `results`, or (`recorded_only`) count the records there.

    `raw_log` and `paper_freeze` take the arguments of `bot.edges.fetch.check_raw_log_url` and
    `check_paper_freeze_url` (`Ports.fetch_raw_log`, `fetch_paper_freeze`).
    `keep`: keep a body that matches its pin as `results/sha256/<hex>` (the close job's
    archive) when the plan lists it, at most its planned bytes and
    `Limits.max_archived_pin_bytes`, while the disk has room. `deadline`: the close's rule
    for a pin without a result (`bot/faces/jobs/stuck.py`). `used` collects, per pin file, the
    records counted this run (the close job archives the kept bodies of a market's pins).
    """

    results: Path
    recorded_only: bool = False
    keep: KeepPlan | None = None
    deadline: Deadline | None = None
    used: dict[str, list[PinRecord]] = field(default_factory=dict, compare=False)

    def raw_log(
        self,
        url: str,
        *,
        sha256: str,
        size: int,
        head: bytes | None,
        tail: bytes | None,
        file: str,
        line: int | None = None,
        limits: Limits = Limits(),
    ) -> list[Finding]:
        key = pin_key("raw_log", url, sha256, size, head, tail)

        def fetch(copy: BinaryIO | None) -> Fetched:
            return fetch_raw_log(
                url,
                sha256=sha256,
                size=size,
                head=head,
                tail=tail,
                file=file,
                line=line,
                limits=limits,
                copy=copy,
            )

        pin = _Pin(key, "raw_log", url, file, sha256.lower(), size)
        return self._pin(pin, fetch, line, limits)

    def paper_freeze(
        self,
        url: str,
        *,
        sha256: str,
        file: str,
        line: int | None = None,
        limits: Limits = Limits(),
    ) -> list[Finding]:
        key = pin_key("paper_freeze", url, sha256, None)

        def fetch(copy: BinaryIO | None) -> Fetched:
            return fetch_paper_freeze(
                url, sha256=sha256, file=file, line=line, limits=limits, copy=copy
            )

        pin = _Pin(key, "paper_freeze", url, file, sha256.lower(), None)
        return self._pin(pin, fetch, line, limits)

    # -- one pin ------------------------------------------------------------------------------

    def _pin(
        self,
        pin: _Pin,
        fetch: Any,
        line: int | None,
        limits: Limits,
    ) -> list[Finding]:
        if self.recorded_only:
            record, why = self._read(pin.key)
            if record is not None and record.file != pin.file:
                # One record serves every attempt with this pin (the key is the pin's): it
                # names the file of the fetch that wrote it last, so count it as this one's.
                record = replace(record, file=pin.file)
        else:
            record, why = self._fetch(pin, fetch, limits), None
            self._store(record)
        kind, url, file = pin.kind, pin.url, pin.file
        if record is None:
            return self._unrecorded(kind, url, file, line, why)
        self.used.setdefault(file, []).append(record)
        found = [Finding(code, message, file, line) for code, message in record.findings]
        if self.deadline is not None and found and all(f.code in _TRIES for f in found):
            return self._tried(kind, url, file, line, found)
        notice = Finding(Code.PIN_FETCHED, record.described(), file, line, Severity.NOTICE)
        return [*found, notice]

    def _fetch(
        self,
        pin: _Pin,
        fetch: Any,
        limits: Limits,
    ) -> PinRecord:
        planned = self.keep.allows(pin.file, pin.sha256) if self.keep is not None else None
        if planned is not None:
            planned = min(planned, limits.max_archived_pin_bytes)
            if (pin.size or 0) > planned or not disk.has_room(self.results, planned):
                planned = None
        if planned is None:
            fetched: Fetched = fetch(None)
            return self._record(pin, fetched, kept=False)
        folder = self.results / "sha256"
        folder.mkdir(parents=True, exist_ok=True)
        handle, name = tempfile.mkstemp(dir=folder, prefix=".partial-")
        partial = Path(name)
        try:
            with os.fdopen(handle, "wb") as stream:
                bounded = _Bounded(stream, planned)
                fetched = fetch(bounded)
            kept = (
                not fetched.findings
                and not bounded.over
                and fetched.sha256 == pin.sha256
                and bounded.written == fetched.bytes
            )
            if kept:
                partial.replace(folder / pin.sha256)
            return self._record(pin, fetched, kept=kept)
        finally:
            partial.unlink(missing_ok=True)

    @staticmethod
    def _record(pin: _Pin, fetched: Fetched, kept: bool) -> PinRecord:
        return PinRecord(
            key=pin.key,
            kind=pin.kind,
            url=pin.url,
            file=pin.file,
            pinned_sha256=pin.sha256,
            pinned_bytes=pin.size,
            served_bytes=fetched.bytes,
            served_sha256=fetched.sha256,
            findings=tuple((f.code, _cut(f.message)) for f in fetched.findings),
            kept=kept,
        )

    def _read(self, key: str) -> tuple[PinRecord | None, str | None]:
        path = self.results / f"{key}.json"
        try:
            text = read_regular(path, _RECORD_BYTES).decode("utf-8")
        except FileNotFoundError:
            return None, None
        except (OSError, UnicodeDecodeError) as error:
            return None, f"its record {path.name} cannot be read ({error})"
        try:
            record = read_record(text, key)
        except PinRecordError as error:
            return None, f"its record {path.name} is refused ({error})"
        if record.kept and not self._body_matches(record):
            return None, f"its record {path.name} says the body is kept, but it is not"
        return record, None

    def _body_matches(self, record: PinRecord) -> bool:
        """The kept body is there, a regular file, of the recorded size and hash."""
        body = self.results / "sha256" / record.pinned_sha256
        try:
            digest = hashlib.sha256()
            size = 0
            fd = os.open(body, os.O_RDONLY | os.O_NOFOLLOW)
            with os.fdopen(fd, "rb") as stream:
                while chunk := stream.read(1 << 20):
                    digest.update(chunk)
                    size += len(chunk)
        except OSError:
            return False
        return size == record.served_bytes and digest.hexdigest() == record.pinned_sha256

    def _store(self, record: PinRecord) -> None:
        """Write the record; one that cannot be written is a pin with no record when counted."""
        target = self.results / f"{record.key}.json"
        try:
            self.results.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(dir=self.results, prefix=".partial-")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(record.to_json())
            Path(name).replace(target)
        except OSError:
            return

    # -- no result ----------------------------------------------------------------------------

    def _unrecorded(
        self, kind: str, url: str, file: str, line: int | None, why: str | None
    ) -> list[Finding]:
        reason = why or "the pin job recorded nothing for it"
        if self.deadline is not None:
            wait = "the market waits for the next run (the pin job was lost: the registry's fault)"
        else:
            wait = "run the workflow again (its pin job records every pin)"
        message = f"{_LABEL[kind]} {url} was not fetched: {reason}; {wait}"
        return [Finding(Code.PIN_NOT_FETCHED, message, file, line)]

    def _tried(
        self, kind: str, url: str, file: str, line: int | None, tried: list[Finding]
    ) -> list[Finding]:
        """The close: a pin whose server did not answer waits until the deadline, then it is
        `pin-unrecorded` (with the try's finding) and the attempt does not count."""
        assert self.deadline is not None
        last = tried[0].code.value
        if not self.deadline.passed:
            message = (
                f"{_LABEL[kind]} {url} did not answer at the close (ended in {last}): the"
                f" market waits for the next run until the pin deadline {self.deadline.day}"
            )
            return [Finding(Code.PIN_NOT_FETCHED, message, file, line), *tried]
        message = (
            f"{_LABEL[kind]} {url} was not fetched by the pin deadline {self.deadline.day}"
            f" (the last try ended in {last}): not counting, and the market resolves from its"
            " other attempts"
        )
        return [Finding(Code.PIN_UNRECORDED, message, file, line), *tried]

    def counted(self, prefix: str) -> list[PinRecord]:
        """The records counted this run whose pin file lies under `prefix`, one per pin, in
        the order of file, kind and URL."""
        chosen: dict[tuple[str, str, str, str], PinRecord] = {}
        for file, records in self.used.items():
            if file.startswith(prefix):
                for record in records:
                    chosen.setdefault((file, record.kind, record.url, record.key), record)
        return [chosen[k] for k in sorted(chosen)]

    def body(self, record: PinRecord) -> Path:
        """Where a kept body is (`record.kept`)."""
        return self.results / "sha256" / record.pinned_sha256

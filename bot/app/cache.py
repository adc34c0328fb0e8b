"""The verification cache (`--verify-cache DIR`): checked evidence kept between runs.

Most of what `claims resolve` spends on an attempt goes into reading and checking its JSONL
files, freeze-cases.jsonl, trials.jsonl and certificates.jsonl (JSONL, schemas, case hashes,
one trial per case, names, withheld fields, units, the bars, certificates against the tested
systems). `bot.rules.records.check_records` does that part and nothing else, so its result
(`RecordsResult`) can be kept by what it depends on:

- the attempt folder's path and its **evidence digest** (every file but judgments.yaml);
- the **market contract** the attempt names (its bytes; none when it names none) and the
  **shared rules** (their bytes), read from the maintainers' tree;
- the **bot**: its version, a hash of its code and schemas, the Python and Unicode versions
  and the versions of the libraries it uses, and the reading limits.

What the key leaves out is never kept: judgments.yaml (and judgments as they stood at the
window's close), submitters, where and when the freeze and the evidence landed on main,
reruns, fetched URLs, a pull request's problems and the date judged on are read and judged
afresh on every run. A changed file changes the digest: exactly that attempt is checked again.

Each entry is one file, `DIR/<key[:2]>/<key>.json`, written atomically (a temporary file in
the same folder, then renamed). Its first line holds the SHA-256 and length of the rest, so a
truncated or damaged entry is detected: it is reported as a `cache-entry-invalid` notice and
the attempt is checked from its files (and the entry written again). An entry is trusted
state, like the adapter reruns' results (`--rerun-cache`): its integrity hash finds damage,
not forgery, so the folder must be written by the bot alone (never restored from a cache
others can write: docs/running-on-github.md).
"""

from __future__ import annotations

import hashlib
import json
import os
import sys
import tempfile
import unicodedata
from dataclasses import asdict, dataclass, field, replace
from functools import lru_cache
from importlib import metadata
from importlib.resources import files as resource_files
from pathlib import Path
from typing import Any

from bot import __version__
from bot.app.registry import RULES_PATH, Registry
from bot.app.report_json import ReportError, records_result_from_json, records_result_to_json
from bot.edges.load.folder import read_regular
from bot.edges.tree import TreeError, read_limited
from bot.rules.judge.inputs import AttemptFiles
from bot.rules.models import market_path
from bot.rules.records import RecordsResult
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.jsonl import loads as json_loads

__all__ = [
    "CACHE_FORMAT",
    "CacheStats",
    "MemoryRecordsCache",
    "VerificationCache",
    "code_fingerprint",
]

CACHE_FORMAT = 2  # bump when an entry's shape or meaning changes
_MAGIC = "claims-verify-cache"
_MAX_ENTRY_BYTES = 256 * 1024 * 1024  # an entry holds findings: 50,000 bad lines fit


@lru_cache(maxsize=1)
def code_files() -> tuple[Path, list[Path]]:
    """The `bot` package's folder and every Python file in it, every layer's (a check made by
    older rules, models or readers is another key: tests/unit/app/test_cache.py)."""
    package = Path(__file__).resolve().parents[1]
    return package, sorted(package.rglob("*.py"))


def code_fingerprint() -> str:
    """SHA-256 over the bot's own code and schemas, the Python and Unicode versions and the
    versions of the libraries it runs on: an upgrade of any of them is another key."""
    digest = hashlib.sha256()
    package, sources = code_files()
    schemas = sorted(
        (item for item in resource_files("bot.schemas").iterdir() if item.name.endswith(".json")),
        key=lambda item: item.name,
    )
    for path in sources:
        digest.update(f"{path.relative_to(package).as_posix()}\0".encode())
        digest.update(path.read_bytes())
    for schema in schemas:
        digest.update(f"schemas/{schema.name}\0".encode())
        digest.update(schema.read_bytes())
    versions = {
        "bot": __version__,
        "python": sys.version,
        "unicode": unicodedata.unidata_version,
    }
    # Each library that reads or judges: msgspec and jsonschema-rs decide which lines and
    # documents pass as much as jsonschema does.
    for name in (
        "jsonschema",
        "jsonschema-rs",
        "msgspec",
        "rfc8785",
        "PyYAML",
        "scipy",
        "numpy",
        "orjson",
    ):
        try:
            versions[name] = metadata.version(name)
        except metadata.PackageNotFoundError:
            versions[name] = None  # type: ignore[assignment]
    digest.update(json.dumps(versions, sort_keys=True).encode())
    return digest.hexdigest()


@dataclass
class CacheStats:
    """What a run did with the cache."""

    hits: int = 0
    misses: int = 0
    stored: int = 0
    invalid: int = 0  # damaged entries found (then recomputed)
    unwritable: int = 0  # entries that could not be written (only costs time next run)


@dataclass
class VerificationCache:
    """Checked records kept on disk under `folder` (see the module's docstring)."""

    folder: Path
    stats: CacheStats = field(default_factory=CacheStats)
    code: str = field(default_factory=code_fingerprint)

    # -- the key ------------------------------------------------------------------------------

    def parts(self, registry: Registry, files: AttemptFiles) -> dict[str, Any]:
        """What the key of this attempt's entry is made of."""
        return _key_parts(registry, files, self.code)

    def key(self, registry: Registry, files: AttemptFiles) -> str:
        return _key(self.parts(registry, files))

    def path(self, key: str) -> Path:
        return self.folder / key[:2] / f"{key}.json"

    # -- reading ------------------------------------------------------------------------------

    def lookup(
        self, registry: Registry, files: AttemptFiles
    ) -> tuple[RecordsResult | None, list[Finding]]:
        """The check kept for this attempt, or None; a damaged entry is a notice (and None)."""
        key = self.key(registry, files)
        path = self.path(key)
        try:
            raw = read_regular(path, _MAX_ENTRY_BYTES)
        except (FileNotFoundError, NotADirectoryError):  # no entry (or no cache folder)
            self.stats.misses += 1
            return None, []
        except OSError as error:
            return self._invalid(files, path, f"it cannot be read ({error.strerror or error})")
        try:
            check = _decode(raw, key)
        except _Damaged as damage:
            return self._invalid(files, path, str(damage))
        self.stats.hits += 1
        return check, []

    def _invalid(
        self, files: AttemptFiles, path: Path, why: str
    ) -> tuple[RecordsResult | None, list[Finding]]:
        self.stats.invalid += 1
        self.stats.misses += 1
        message = (
            f"verification cache entry {path} is damaged: {why}; it was not trusted, and"
            f" {files.folder} was checked from its files (the entry is written again)"
        )
        return None, [Finding(Code.CACHE_ENTRY_INVALID, message, severity=Severity.NOTICE)]

    # -- writing ------------------------------------------------------------------------------

    def store(self, registry: Registry, files: AttemptFiles, check: RecordsResult) -> None:
        """Keep the check, atomically. A check JSON cannot carry exactly (a NaN, say) is not
        kept; a folder that cannot be written only costs the check again next run."""
        key = self.key(registry, files)
        body = json.dumps(
            # Keys in the check's own order, not sorted: the derived score table is read back
            # into a score-table-mismatch message, which must word it as a cold run does.
            {"key": key, "check": records_result_to_json(check)},
            ensure_ascii=False,
            separators=(",", ":"),
        ).encode("utf-8")
        if len(body) > _MAX_ENTRY_BYTES - 200:
            return  # would be refused when read: not worth writing
        try:
            if _decode(_entry(body), key) != check:
                return  # would not read back as it is: never keep it
        except _Damaged:
            return
        path = self.path(key)
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(dir=path.parent, prefix=".partial-")
            try:
                with os.fdopen(handle, "wb") as stream:
                    stream.write(_entry(body))
                os.replace(name, path)
            except BaseException:
                Path(name).unlink(missing_ok=True)
                raise
        except OSError:
            self.stats.unwritable += 1
            return
        self.stats.stored += 1


@dataclass
class MemoryRecordsCache:
    """Checked records kept in memory for one process, by the same key as on disk: for a run
    that verifies the same attempts twice (`claims site` without reports: verify, then
    resolve). A check is kept without its cases and trials, as one read back from disk is (a
    judgment that needs them reads the files again: `RecordsNeeded`)."""

    stats: CacheStats = field(default_factory=CacheStats)
    checks: dict[str, RecordsResult] = field(default_factory=dict)

    def lookup(
        self, registry: Registry, files: AttemptFiles
    ) -> tuple[RecordsResult | None, list[Finding]]:
        check = self.checks.get(self.key(registry, files))
        if check is None:
            self.stats.misses += 1
        else:
            self.stats.hits += 1
        return check, []

    def key(self, registry: Registry, files: AttemptFiles) -> str:
        return _key(_key_parts(registry, files, "in memory"))

    def store(self, registry: Registry, files: AttemptFiles, check: RecordsResult) -> None:
        self.checks[self.key(registry, files)] = replace(
            check, checked_cases=None, checked_trials=None
        )
        self.stats.stored += 1


def _key_parts(registry: Registry, files: AttemptFiles, code: str) -> dict[str, Any]:
    """What an entry's key is made of (see the module's docstring)."""
    number = files.attempt.market if files.attempt is not None else None
    limits = asdict(registry.limits)
    limits["fetch_allowed_addresses"] = sorted(limits["fetch_allowed_addresses"])
    return {
        "format": CACHE_FORMAT,
        "code": code,
        "folder": files.folder,
        "evidence_digest": files.digest,
        "market": number,
        "contract": None
        if number is None
        else _file_hash(registry, market_path(number), registry.limits.max_yaml_bytes),
        "shared_rules": _file_hash(registry, RULES_PATH, registry.limits.max_yaml_bytes),
        "limits": limits,
    }


def _key(parts: dict[str, Any]) -> str:
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest()


class _Damaged(Exception):
    """An entry that does not read back: what is wrong with it."""


def _entry(body: bytes) -> bytes:
    """The header line (format, SHA-256 and length of the body), then the body."""
    header = f"{_MAGIC} {CACHE_FORMAT} {hashlib.sha256(body).hexdigest()} {len(body)}\n"
    return header.encode("ascii") + body


def _decode(raw: bytes, key: str) -> RecordsResult:
    """The check an entry holds. Raises `_Damaged` saying what is wrong."""
    header, newline, body = raw.partition(b"\n")
    fields = header.split(b" ")
    if not newline or len(fields) != 4 or fields[0] != _MAGIC.encode():
        raise _Damaged("its header line is missing or malformed")
    if fields[1] != str(CACHE_FORMAT).encode():
        raise _Damaged(f"it is of format {fields[1]!r}, this bot writes {CACHE_FORMAT}")
    if fields[3] != str(len(body)).encode():
        raise _Damaged(f"it holds {len(body)} bytes, its header says {fields[3]!r}")
    if fields[2] != hashlib.sha256(body).hexdigest().encode():
        raise _Damaged("its content does not match its SHA-256")
    try:
        data = json_loads(body)
        if not isinstance(data, dict) or data.get("key") != key:
            raise _Damaged("it is filed under another key")
        return records_result_from_json(data["check"])
    except (ReportError, KeyError, TypeError, ValueError, AttributeError) as error:
        raise _Damaged(f"its content is not a check this bot wrote ({error})") from None


def _file_hash(registry: Registry, path: str, limit: int) -> str | None:
    """The SHA-256 of a maintainers' file (None: absent or unreadable)."""
    try:
        return hashlib.sha256(read_limited(registry.contracts, path, limit + 1)).hexdigest()
    except TreeError:
        return None

"""What a market's snapshot archive carries of its attempts' pins (docs/spec.md §10).

At the close the workflow's pin jobs fetch every attempt's pinned raw log and paper's freeze
again and keep each file that matches its pin (`claims verify --fetch-raw-logs --pin-results
DIR --keep-pins`); the close job counts those records (`bot/app/pins.py`) and puts the kept files
into each market's archive beside the tagged tree, so that the evidence survives its filers'
servers:

    TAG/pins/manifest.json      every pin of the market's attempts, carried or not, and why
    TAG/pins/sha256/<hex>       each carried file, named by its SHA-256

Caps (`Limits.max_archived_pin_bytes` a file, `Limits.max_archived_pins_bytes` an archive):
the smallest files are carried first (the manifest lists them by attempt file, kind and URL),
and a file past a cap is not carried: the manifest says so with the cap, and the close's report
names it (`pin-not-archived`, a warning: the file was fetched and matched its pin, so the attempt
counts as it is). The manifest is canonical JSON, so the same pins give the same archive.
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass, field
from pathlib import Path

from bot.app.options import Ports
from bot.app.rerun import AdapterRerun
from bot.faces.jobs.stuck import pin_fetch_of
from bot.vocab.config import Limits
from bot.vocab.findings import Code, Finding, Severity

__all__ = ["PINS_FOLDER", "PINS_MANIFEST", "CarriedPins", "archived_pins"]

PINS_FOLDER = "pins"
PINS_MANIFEST = f"{PINS_FOLDER}/manifest.json"


@dataclass(frozen=True)
class CarriedPins:
    """What a market's archive carries: `files` (archive path -> the kept file), the
    manifest's bytes (None: the close counted no pins, so there is no manifest) and a warning
    for each pin past a cap or not kept."""

    files: dict[str, Path] = field(default_factory=dict)
    manifest: bytes | None = None
    problems: list[Finding] = field(default_factory=list)


@dataclass(frozen=True, slots=True)
class _Found:
    """One pin as the close found it: where its file is when kept (`body`)."""

    file: str
    kind: str
    url: str
    sha256: str
    bytes: int | None
    matches: bool
    body: Path | None


def _found(ports: Ports, market: int) -> list[_Found]:
    """The market's pins counted this run: raw logs and papers' freezes (the pin jobs'
    records) and released data (kept by the rerun jobs, re-hashed here)."""
    prefix = f"attempts/market-{market:02d}/"
    found: list[_Found] = []
    pins = pin_fetch_of(ports)
    if pins is not None:
        for record in pins.counted(prefix):
            body = pins.body(record) if record.kept else None
            found.append(
                _Found(
                    record.file,
                    record.kind,
                    record.url,
                    record.pinned_sha256,
                    record.served_bytes,
                    record.matches,
                    body,
                )
            )
    rerun = ports.rerun_adapter
    folder = rerun.released_folder() if isinstance(rerun, AdapterRerun) else None
    if isinstance(rerun, AdapterRerun) and folder is not None:
        for file, items in sorted(rerun.released_seen.items()):
            if not file.startswith(prefix):
                continue
            for url, sha256 in items:
                size = _verified_size(folder / sha256, sha256)
                body = folder / sha256 if size is not None else None
                found.append(_Found(file, "released_data", url, sha256, size, True, body))
    return sorted(found, key=lambda f: (f.file, f.kind, f.url, f.sha256))


def _verified_size(path: Path, sha256: str) -> int | None:
    """The size of the regular file at `path` when its SHA-256 is `sha256`, else None."""
    digest, size = hashlib.sha256(), 0
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as stream:
            while chunk := stream.read(1 << 20):
                digest.update(chunk)
                size += len(chunk)
    except OSError:
        return None
    return size if digest.hexdigest() == sha256 else None


def archived_pins(ports: Ports, market: int, limits: Limits) -> CarriedPins:
    """The pins of market `market`'s attempts counted this run, within the caps."""
    per_file, per_archive = limits.max_archived_pin_bytes, limits.max_archived_pins_bytes
    files: dict[str, Path] = {}
    entries: list[dict[str, object]] = []
    problems: list[Finding] = []
    total = 0
    found = _found(ports, market)
    notes: list[str | None] = [None] * len(found)
    # The caps are filled smallest file first (the manifest keeps its order): a filer picks
    # both where their attempt sorts and how big its file is, so in the manifest's order one
    # file the size of the archive's cap, sorted first, would leave every other one out.
    for index in sorted(range(len(found)), key=lambda i: (found[i].bytes or 0, i)):
        record = found[index]
        path = f"{PINS_FOLDER}/sha256/{record.sha256}"
        size = record.bytes or 0
        note: str | None = None
        if record.kind == "released_data" and record.body is None:
            note = (
                "not carried: the close's rerun jobs kept no file with this sha256 (past"
                " their share of the run's keep budget, or out of disk)"
            )
        elif not record.matches:
            note = "not carried: the URL did not serve the pinned file"
        elif path in files:
            pass  # the same file, pinned twice: carried once
        elif size > per_file:
            note = f"not carried: {size} bytes, over the {per_file}-byte cap for one file"
        elif total + size > per_archive:
            note = (
                f"not carried: {size} bytes, past the {per_archive}-byte cap for one archive's"
                " pins (the smaller files are carried first)"
            )
        elif record.body is None:
            note = "not carried: the pin job had no room to keep it"
        else:
            files[path] = record.body
            total += size
        notes[index] = note
    for record, note in zip(found, notes, strict=True):
        path = f"{PINS_FOLDER}/sha256/{record.sha256}"
        carried = note is None
        entries.append(
            {
                "file": record.file,
                "kind": record.kind,
                "url": record.url,
                "sha256": record.sha256,
                "bytes": record.bytes,
                "carried": carried,
                "path": path if carried else None,
                "note": note,
            }
        )
        if note is not None and record.matches:
            label = "released data" if record.kind == "released_data" else f"{record.kind}.url"
            message = (
                f"market {market}'s archive does not carry {label}"
                f" {record.url} (sha256 {record.sha256}): {note}"
            )
            problems.append(
                Finding(Code.PIN_NOT_ARCHIVED, message, record.file, None, Severity.WARNING)
            )
    if not entries:
        return CarriedPins()  # no pins counted (no --pin-results, no kept released data)
    manifest = {
        "about": "the pinned files of this market's attempts, fetched at the close"
        " (docs/archives.md); each carried file is pins/sha256/<its sha256>",
        "caps": {"file_bytes": per_file, "archive_bytes": per_archive},
        "carried_bytes": total,
        "pins": entries,
    }
    text = json.dumps(manifest, indent=2, sort_keys=True, ensure_ascii=False) + "\n"
    return CarriedPins(files, text.encode("utf-8"), problems)

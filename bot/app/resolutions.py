"""Resolution records: `resolutions/market-NN.yaml`, a market's final resolution (docs/spec.md §5).

`claims close-windows` writes one when a market resolves after its window closed: the
outcome and why, every attempt's verdict, the snapshot tag and the commit it points at, the
archive copy (DOI or local id, file, md5, and the sha256 the workflow's attestation names),
the dates, the date resolved on, when the record
was made and the bot's version. It is validated by `schemas/resolution-record.schema.json`
when written and when read back. A record is final: the job never rewrites it (a maintainer
may move it aside with `claims close-windows --reopen N`).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import Any, Literal

from bot import __version__
from bot.edges.archive.port import ArchivedRecord
from bot.edges.dump import dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.rules.evidence.schema import validate
from bot.rules.resolution import MarketOutcome, MarketResolution, copy_missing_warning
from bot.vocab.errors import Refusal
from bot.vocab.jsonl import loads as json_loads
from bot.vocab.timestamps import format_moment, parse_timestamp

__all__ = [
    "RERUN_RESULTS",
    "SCHEMA_URL",
    "ArchiveKind",
    "ResolutionRecord",
    "keep_rerun_results",
    "record_path",
]

ArchiveKind = Literal["zenodo", "local"]
SCHEMA_URL = "https://ai-safety-claims.github.io/registry/schemas/resolution-record.schema.json"


# The adapter rerun results the scheduled job counted, kept on the default branch for the
# website (`claims site` reads them recorded-only, as verify's token job reads its run's):
# under `resolutions/`, a maintainers' path no filer's pull request may change
# (bot/rules/review.py), written by the close job alone (docs/spec-notes.md).
RERUN_RESULTS = "resolutions/reruns"
_RESULT_NAME = re.compile(r"\A[0-9a-f]{64}\.json\Z")
_RESULT_BYTES = 1 << 20  # as bot/app/rerun.py reads a record back


def keep_rerun_results(source: Path, root: Path, write: bool = True) -> list[str]:
    """Copy the rerun results recorded in `source` (this run's rerun jobs' records) into
    `root`/resolutions/reruns/, as they are; return the registry paths written (new or
    changed; with `write` False, those it would write). A file that is no well-formed record
    for the key its name gives, and a try that may still pass (released data not served: no
    result), is left out."""
    from bot.app.report_json import ReportError, rerun_record_from_json
    from bot.edges.load.folder import read_regular
    from bot.vocab.findings import Code

    written = []
    try:
        names = sorted(entry.name for entry in source.iterdir() if _RESULT_NAME.match(entry.name))
    except OSError:
        return []
    for name in names:
        try:
            raw = read_regular(source / name, _RESULT_BYTES + 1)
            if len(raw) > _RESULT_BYTES:
                continue
            findings = rerun_record_from_json(raw.decode("utf-8"), name.removesuffix(".json"))
        except (OSError, UnicodeDecodeError, ReportError):
            continue
        if findings and all(f.code == Code.RELEASED_DATA_UNAVAILABLE for f in findings):
            continue
        if not _on_branch(raw, root):
            continue
        path = f"{RERUN_RESULTS}/{name}"
        target = root / path
        if target.is_file() and not target.is_symlink() and target.read_bytes() == raw:
            continue
        written.append(path)
        if not write:
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        temporary = target.with_name(f".{name}.tmp")
        temporary.write_bytes(raw)
        temporary.replace(target)
    return written


def _on_branch(raw: bytes, root: Path) -> bool:
    """True when the record is of an attempt folder the registry holds: an operator's rerun
    cache may also keep records of pull requests' attempts, which main has no use for."""
    try:
        data = json_loads(raw)
    except ValueError:
        return False
    parts = data.get("parts") if isinstance(data, dict) else None
    folder = parts.get("folder") if isinstance(parts, dict) else None
    if not isinstance(folder, str) or not folder.startswith("attempts/"):
        return False
    if any(part in ("", ".", "..") for part in folder.split("/")):
        return False
    return (root / folder).is_dir()


def record_path(market: int) -> str:
    """`resolutions/market-NN.yaml`, inside the registry."""
    return f"resolutions/market-{market:02d}.yaml"


@dataclass(frozen=True)
class ResolutionRecord:
    """A record as plain data (`data`), checked by the schema, with typed accessors."""

    data: Mapping[str, Any]

    @property
    def market(self) -> int:
        return int(self.data["market"])

    @property
    def outcome(self) -> MarketOutcome:
        outcome: MarketOutcome = self.data["outcome"]
        return outcome

    @property
    def tag(self) -> str:
        return str(self.data["snapshot"]["tag"])

    @property
    def commit(self) -> str | None:
        commit = self.data["snapshot"]["commit"]
        return str(commit) if commit else None

    @property
    def archive(self) -> ArchivedRecord | None:
        """The recorded archive copy, as `check` takes it."""
        entry = self.data.get("archive")
        return ArchivedRecord.from_record(entry) if isinstance(entry, Mapping) else None

    @property
    def archive_kind(self) -> str | None:
        entry = self.data.get("archive")
        return str(entry.get("kind")) if isinstance(entry, Mapping) else None

    @property
    def resolved_at(self) -> datetime | None:
        return parse_timestamp(str(self.data["resolved_at"]))

    @classmethod
    def of(
        cls,
        resolution: MarketResolution,
        commit: str | None,
        resolved_at: datetime,
        archive: ArchivedRecord | None = None,
        kind: ArchiveKind = "local",
        reopened: Mapping[str, str] | None = None,
    ) -> ResolutionRecord:
        """The record of a closed market's `resolution`; `commit`: where its tag points."""
        if resolution.outcome is None:
            raise ValueError(f"market {resolution.market} has no outcome yet")
        snapshot = resolution.snapshot
        dates = resolution.dates
        data: dict[str, Any] = {
            "record_version": 1,
            "market": resolution.market,
            "title": resolution.title,
            "outcome": resolution.outcome,
            "why": resolution.why,
            "dates": {
                "resolve_by": dates.resolve_by.isoformat(),
                "window_closes": dates.window_closes.isoformat(),
                "annul_on": dates.annul_on.isoformat(),
            },
            "as_of": resolution.as_of.isoformat(),
            "resolved_at": format_moment(resolved_at),
            "bot_version": __version__,
            "snapshot": {
                "tag": snapshot.tag,
                "commit": commit if snapshot.tag_exists else None,
                "tagged_at": format_moment(snapshot.tagged_at) if snapshot.tagged_at else None,
                "state": snapshot.tag_state,
            },
            "archive": {"kind": kind, **archive.as_record()} if archive is not None else None,
            "attempts": [
                {
                    "attempt": a.attempt,
                    "evidence": a.evidence,
                    "status": a.status,
                    "outcome": a.outcome,
                    "reasons": list(a.reasons),
                    "counts": a.counts,
                }
                for a in resolution.attempts
            ],
            "warnings": list(resolution.warnings),
            "source": resolution.source,
        }
        if reopened:
            data["reopened"] = dict(reopened)
        return cls(data)

    def with_archive(
        self, archive: ArchivedRecord, kind: ArchiveKind, sha256: str | None = None
    ) -> ResolutionRecord:
        """The record with its archive copy; `sha256`: the digest of the tarball this run
        uploaded (the subject of the workflow's attestation), when the copy holds it."""
        entry = {"kind": kind, **archive.as_record(), **({"sha256": sha256} if sha256 else {})}
        # Drafted before the copy existed, the record warned that it was missing; the copy
        # recorded here answers that warning (any other warning stands).
        answered = copy_missing_warning(
            str(self.data["snapshot"]["tag"]),
            date.fromisoformat(str(self.data["dates"]["annul_on"])),
        )
        warnings = [w for w in self.data.get("warnings", []) if w != answered]
        return ResolutionRecord({**self.data, "archive": entry, "warnings": warnings})

    def to_yaml(self) -> bytes:
        problems = validate("resolution-record", dict(self.data), "resolution record")
        if problems:  # a bug in the writer, never a user's file
            raise AssertionError("; ".join(p.message for p in problems))
        return dump_yaml(self.data, SCHEMA_URL)

    @classmethod
    def from_yaml(cls, raw: bytes, path: str) -> ResolutionRecord | Refusal:
        """The record in `raw`, or why it is none."""
        document, findings = parse_yaml(raw, path)
        if document is None:
            return Refusal(f"{path} cannot be read: " + "; ".join(f.message for f in findings))
        problems = validate("resolution-record", document.data, path, document.lines)
        if problems:
            return Refusal(
                f"{path} is no valid resolution record: "
                + "; ".join(
                    f"{p.message}" + (f" (line {p.line})" if p.line else "") for p in problems[:5]
                )
            )
        assert isinstance(document.data, dict)
        return cls(document.data)

    def resolved_on(self) -> date:
        return date.fromisoformat(str(self.data["as_of"]))

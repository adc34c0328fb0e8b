"""A market's archive copy as the close reads it: the record of a published copy, the record
inside a copy's tarball, the copy's digest."""

from __future__ import annotations

import hashlib
import tarfile
from collections.abc import Callable, Mapping
from datetime import datetime
from pathlib import Path

from bot.app.resolutions import ResolutionRecord, record_path
from bot.edges.archive.port import (
    ArchivedRecord,
    ArchiveError,
    DepositionState,
)
from bot.vocab.errors import Refusal

__all__ = ["RECORD_LIMIT", "CountedRecords", "published_record", "record_in_copy", "sha256_of"]


RECORD_LIMIT = 4 << 20  # the largest record file read back from a copy (bytes)


class CountedRecords:
    """The archive records `resolve_registry` reads (`record(tag)`), from what `find` said."""

    def __init__(self, copies: Mapping[str, ArchivedRecord]) -> None:
        self.copies = copies

    def record(self, tag: str) -> dict[str, object] | None:
        copy = self.copies.get(tag)
        return copy.as_record() if copy is not None else None


def published_record(
    tag: str, state: DepositionState, clock: Callable[[], datetime]
) -> ArchivedRecord | None:
    """The record of a published copy `find` returned."""
    if not state.published or not state.files:
        return None
    stored = state.files[0]
    reference = state.doi or state.record_id or state.id
    return ArchivedRecord(
        tag=tag,
        reference=reference,
        record_id=state.record_id or state.id,
        file_name=stored.name,
        checksum=stored.checksum,
        created=state.modified or clock(),
        url=f"https://doi.org/{state.doi}" if state.doi else None,
    )


def sha256_of(path: Path) -> str:
    """`sha256:<hex>` of the file at `path`."""
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return f"sha256:{digest.hexdigest()}"


def record_in_copy(tarball: Path, tag: str, market: int) -> ResolutionRecord:
    """The record of `market` inside a copy's tarball (`TAG/resolutions/market-NN.yaml`),
    checked by the schema, naming that market and tag; raises `ArchiveError` otherwise."""
    name = f"{tag}/{record_path(market)}"
    try:
        with tarfile.open(tarball, mode="r:gz") as tar:
            member = tar.getmember(name)
            stream = tar.extractfile(member) if member.isfile() else None
            if stream is None or member.size > RECORD_LIMIT:
                raise ArchiveError("adopt", f"{name} in the copy is no regular file of a record")
            raw = stream.read()
    except KeyError:
        raise ArchiveError("adopt", f"the copy holds no {name}") from None
    except (OSError, tarfile.TarError, EOFError) as exc:
        raise ArchiveError("adopt", f"the copy is no readable tar.gz: {exc}") from exc
    record = ResolutionRecord.from_yaml(raw, name)
    if isinstance(record, Refusal):
        raise ArchiveError("adopt", record.reason)
    if record.market != market or record.tag != tag:
        raise ArchiveError(
            "adopt", f"{name} is the record of market {record.market} on {record.tag}"
        )
    return record

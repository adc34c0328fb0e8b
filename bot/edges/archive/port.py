"""What the scheduled job asks of an archive (Zenodo, or the local folder standing in for it),
as a protocol and typed records: `zenodo.ZenodoArchive` and `local.LocalArchive` implement it.

Three operations, each safe to repeat after a crash at any point:

- `find(tag, repository_url, market)`: the copy of `tag` made for `market` (a key such as
  `market-03`: the copy holding that market's record) the archive already holds, published
  or still a draft, or None; with no market, the oldest copy of `tag` made for any market
  (the tag's tree is in each).
- `archive(tag, tarball, metadata)`: make (or finish) the copy and return an `ArchivedRecord`.
  The caller records "archived" only from a returned record: every failure raises
  `ArchiveError` (never a half-made record).
- `copy_state(record)`: whether a recorded copy is still there, published, with the same file.
- `fetch(record, target)`: the published copy's file, written to `target` (its checksum
  compared with the record's): a run that finds a market's copy published but no record on
  the branch adopts the record inside it instead of deciding the market again.

**A copy per market**: each market's copy is the tag's tree with that market's
record, and its record cites that copy. Two markets sharing `snapshot-R` resolve on different
runs when one is blocked, so one copy per tag could not hold every record that cites it.

The metadata follows the Zenodo GitHub integration's conventions (title `{owner}/{repo}: {tag}`,
version = tag, related identifier `isSupplementTo https://github.com/{owner}/{repo}/tree/{tag}`),
so one search finds both our copies and the integration's.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path
from typing import Literal, Protocol

from bot.vocab.errors import ClaimsError
from bot.vocab.timestamps import format_moment, parse_timestamp

__all__ = [
    "Archive",
    "ArchiveError",
    "ArchiveMetadata",
    "ArchiveRecords",
    "ArchivedRecord",
    "CopyState",
    "DepositionState",
    "StoredFile",
    "copy_title",
    "md5_of",
    "tree_url",
]


class ArchiveError(ClaimsError):
    """An archive could not be made, finished or checked; `step` names where it failed."""

    def __init__(self, step: str, message: str, hint: str = "") -> None:
        super().__init__(f"{step}: {message}", hint)
        self.step = step


def copy_title(repository_url: str, tag: str, market: str | None) -> str:
    """`OWNER/REPO: TAG`, and `, market-NN` for a market's copy (`market`: its key, see
    `ArchiveMetadata.market`): the title a copy is found by."""
    repository = "/".join(repository_url.rstrip("/").split("/")[-2:])
    return f"{repository}: {tag}" + (f", {market}" if market is not None else "")


def tree_url(repository_url: str, tag: str) -> str:
    """`https://github.com/OWNER/REPO/tree/TAG`: the related identifier naming the snapshot."""
    return f"{repository_url.rstrip('/')}/tree/{tag}"


@dataclass(frozen=True, slots=True)
class ArchiveMetadata:
    """What a copy says about itself; `zenodo_metadata()` is its Zenodo form."""

    repository_url: str  # https://github.com/OWNER/REPO
    tag: str  # snapshot-YYYY-MM-DD
    publication_date: date
    description: str
    creators: tuple[str, ...]  # "Family, Given" or an organisation's name
    license: str = "cc-by-4.0"
    keywords: tuple[str, ...] = ()  # besides the tag's own, e.g. "market-3"
    # Whose record the copy holds: `market-NN` (one copy per market), or a reopened market's
    # `market-NN-reopened-<time>`; None: a copy of the tag alone.
    market: str | None = None
    # The creators that are organisations (the registry itself), not people.
    organisations: tuple[str, ...] = ()

    @property
    def repository(self) -> str:
        """`OWNER/REPO`, from the URL."""
        parts = self.repository_url.rstrip("/").split("/")
        return "/".join(parts[-2:])

    @property
    def title(self) -> str:
        return copy_title(self.repository_url, self.tag, self.market)

    @property
    def file_name(self) -> str:
        """The archive's file name in the copy: the same for every run, so a rerun replaces a
        half-uploaded file instead of adding a second one; a market's copy names the market."""
        market = f"-{self.market}" if self.market is not None else ""
        return f"{self.repository.replace('/', '-')}-{self.tag}{market}.tar.gz"

    def rdm_creators(self) -> list[dict[str, object]]:
        """The creators as InvenioRDM records them (`person_or_org`): an organisation by its
        name; a person's "Family, Given" split at the comma as zenodo-rdm's legacy reader
        splits it. The legacy deposit API cannot say "organisation" (zenodo-rdm makes every
        legacy creator a person), so the Zenodo client writes these on the draft through
        InvenioRDM's records API when `organisations` is not empty."""
        out: list[dict[str, object]] = []
        for name in self.creators:
            if name in self.organisations:
                out.append({"person_or_org": {"type": "organizational", "name": name}})
                continue
            family, comma, given = name.partition(",")
            person: dict[str, object] = {"type": "personal", "family_name": family.strip()}
            if comma and given.strip():
                person["given_name"] = given.strip()
            out.append({"person_or_org": person})
        return out

    def zenodo_metadata(self) -> dict[str, object]:
        """The legacy deposit API's `metadata` object (each creator by `name` only: the
        legacy API has no organisational creator; see `rdm_creators`)."""
        keywords = list(dict.fromkeys([self.tag, *self.keywords]))
        return {
            "upload_type": "software",
            "title": self.title,
            "version": self.tag,
            "description": self.description,
            "creators": [{"name": name} for name in self.creators],
            "keywords": keywords,
            "related_identifiers": [
                {
                    "identifier": tree_url(self.repository_url, self.tag),
                    "relation": "isSupplementTo",
                    "resource_type": "software",
                    "scheme": "url",
                }
            ],
            "license": self.license,
            "access_right": "open",
            "publication_date": self.publication_date.isoformat(),
        }


@dataclass(frozen=True, slots=True)
class StoredFile:
    name: str
    checksum: str  # "md5:<hex>"
    size: int | None = None


@dataclass(frozen=True, slots=True)
class DepositionState:
    """A copy of a tag as the archive holds it now: a draft, or published."""

    id: str
    published: bool
    doi: str | None = None
    record_id: str | None = None
    files: tuple[StoredFile, ...] = ()
    bucket: str | None = None  # where a draft's files are uploaded (Zenodo)
    modified: datetime | None = None

    def file(self, name: str) -> StoredFile | None:
        return next((f for f in self.files if f.name == name), None)


@dataclass(frozen=True, slots=True)
class ArchivedRecord:
    """A published copy: what the registry records, and what `check` is given later.

    `created` is no earlier than the moment the copy was published (the client's clock when
    the archive confirmed it, or the archive's last-modified time when a rerun finds it
    already published): the annulment rule compares it with the annulment date.
    """

    tag: str
    reference: str  # the DOI (Zenodo) or the local id
    record_id: str
    file_name: str
    checksum: str  # "md5:<hex>" of the file as the archive holds it
    created: datetime
    url: str | None = None
    extra: Mapping[str, object] = field(default_factory=dict)

    def as_record(self) -> dict[str, object]:
        """The mapping `Snapshot.of` reads (`tag`, `doi`/`id`, `created`) and `from_record`
        reads back."""
        is_doi = self.reference.startswith("10.")
        return {
            "tag": self.tag,
            **({"doi": self.reference} if is_doi else {}),
            "id": self.record_id,
            "file": self.file_name,
            "checksum": self.checksum,
            "created": format_moment(self.created),
            **({"url": self.url} if self.url else {}),
        }

    @classmethod
    def from_record(cls, record: Mapping[str, object]) -> ArchivedRecord | None:
        """The record `as_record` wrote, or None when a field is missing or malformed."""
        values = {k: record.get(k) for k in ("tag", "id", "file", "checksum", "created")}
        if not all(isinstance(v, str) and v for v in values.values()):
            return None
        created = parse_timestamp(str(values["created"]))
        doi = record.get("doi")
        url = record.get("url")
        if created is None or (doi is not None and not isinstance(doi, str)):
            return None
        return cls(
            tag=str(values["tag"]),
            reference=doi or str(values["id"]),
            record_id=str(values["id"]),
            file_name=str(values["file"]),
            checksum=str(values["checksum"]),
            created=created,
            url=url if isinstance(url, str) else None,
        )


CopyStatus = Literal["ok", "missing", "changed"]


@dataclass(frozen=True, slots=True)
class CopyState:
    """What `check` found: `ok` (published, same file), `missing` (deleted, withdrawn or never
    there) or `changed` (published, but its file is gone or its checksum differs)."""

    status: CopyStatus
    detail: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"


class Archive(Protocol):
    """Zenodo, or the local folder standing in for it."""

    def find(
        self, tag: str, repository_url: str, market: str | None = None
    ) -> DepositionState | None: ...

    def archive(self, tag: str, tarball: Path, metadata: ArchiveMetadata) -> ArchivedRecord: ...

    def copy_state(self, record: ArchivedRecord) -> CopyState: ...

    def fetch(self, record: ArchivedRecord, target: Path) -> Path: ...


class ArchiveRecords(Protocol):
    """What resolution reads of an archive: the record of `tag` (`tag`, `doi`/`id`,
    `created`), or None (`LocalArchive.record`, or the copies the scheduled job found)."""

    def record(self, tag: str) -> Mapping[str, object] | None: ...


def md5_of(path: Path) -> str:
    """`md5:<hex>` of the file at `path` (the form Zenodo reports checksums in)."""
    digest = hashlib.md5(usedforsecurity=False)
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return f"md5:{digest.hexdigest()}"

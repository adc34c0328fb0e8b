"""Released data of a wrapped attempt: download (or take from the cache), check, lay out.

`adapter/adapter.yaml` lists the files a publication released, each {url, sha256, path}. The
bot fetches each into a content-addressed cache (`<cache>/sha256/<hex>`), verifies the hash as
it streams (bounded memory, timeouts, a size cap, retries for passing failures), and copies it
to `<inputs>/<path>` for the adapter to read. A file whose hash differs is `released-data-hash`
and is never cached or given to the adapter; a file the bot cannot fetch is
`released-data-unavailable`; a `path` that would land outside the inputs folder, or that is,
holds or lies inside another entry's path, is `released-data-path`, and then nothing is
fetched. Files already in the cache are re-hashed before use, so a corrupted cache entry is
fetched again rather than trusted.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path, PurePosixPath
from typing import IO, Any

import requests

from bot.edges.fetch import (
    HTTPStatusError,
    RefusedAddressError,
    UnavailableError,
    build_session,
    download,
    refuse_url,
)
from bot.vocab.config import Limits
from bot.vocab.findings import Code, Finding

__all__ = ["ReleasedFile", "fetch_released"]

_CHUNK = 1 << 20
_RETRIES = 3


@dataclass(frozen=True, slots=True)
class ReleasedFile:
    """One entry of adapter.yaml's released_data."""

    url: str
    sha256: str
    path: str

    @classmethod
    def from_data(cls, data: Mapping[str, Any]) -> ReleasedFile:
        return cls(str(data["url"]), str(data["sha256"]).lower(), str(data["path"]))


class _HashingFile:
    """A download sink: writes each chunk to a file and hashes it."""

    def __init__(self, stream: IO[bytes]) -> None:
        self.stream = stream
        self.sha256 = hashlib.sha256()
        self.count = 0

    def add(self, chunk: bytes) -> None:
        self.stream.write(chunk)
        self.sha256.update(chunk)
        self.count += len(chunk)


def _file_sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        while chunk := stream.read(_CHUNK):
            digest.update(chunk)
    return digest.hexdigest()


def _cached(cache: Path, sha256: str) -> Path | None:
    entry = cache / "sha256" / sha256
    if entry.is_file() and not entry.is_symlink() and _file_sha256(entry) == sha256:
        return entry
    return None


def _fetch_once(
    session: requests.Session, item: ReleasedFile, cache: Path, limits: Limits
) -> tuple[Path | None, str | None]:
    """Download into the cache. Returns (entry, None), or (None, the served hash) on mismatch."""
    folder = cache / "sha256"
    folder.mkdir(parents=True, exist_ok=True)
    handle, name = tempfile.mkstemp(dir=folder, prefix=".partial-")
    temporary = Path(name)
    try:
        with os.fdopen(handle, "wb") as stream:
            sink = _HashingFile(stream)
            download(session, item.url, sink, limits.max_released_bytes, limits)
        if sink.count > limits.max_released_bytes:
            raise _TooLargeError(
                f"{item.url} serves more than the"
                f" {limits.max_released_bytes}-byte limit for released data"
            )
        served = sink.sha256.hexdigest()
        if served != item.sha256:
            return None, served
        entry = folder / item.sha256
        temporary.replace(entry)
        return entry, None
    finally:
        temporary.unlink(missing_ok=True)


class _TooLargeError(UnavailableError):
    """The server serves more bytes than the file may have: the same on every try."""


def _is_passing(error: UnavailableError) -> bool:
    """Worth another try: a time-out, a refused connection or a 5xx, not a 4xx, nor an
    address the bot does not fetch from (not public: refused on every try), nor a file over
    its byte limit."""
    if isinstance(error, RefusedAddressError | _TooLargeError):
        return False
    return not (isinstance(error, HTTPStatusError) and 400 <= error.status < 500)


def _check_paths(items: Sequence[Mapping[str, Any]], inputs: Path, file: str) -> list[Finding]:
    """`released-data-path` for each path that leaves the inputs folder, or that is, holds or
    lies inside an earlier entry's path (two files cannot be laid out there)."""
    findings: list[Finding] = []
    seen: list[tuple[int, PurePosixPath]] = []
    for index, data in enumerate(items):
        item = ReleasedFile.from_data(data)
        where = f"released_data[{index}].path {item.path!r}"
        path = PurePosixPath(item.path)  # "a/./b" and "a//b" are "a/b"
        target = inputs / path
        if inputs.resolve() not in target.resolve().parents:
            findings.append(
                Finding(Code.RELEASED_DATA_PATH, f"{where} leaves the inputs folder", file)
            )
            continue
        for earlier, other in seen:
            if other == path:
                clash = "is"
            elif other in path.parents:
                clash = "lies inside"
            elif path in other.parents:
                clash = "holds"
            else:
                continue
            message = (
                f"{where} {clash} released_data[{earlier}].path {str(items[earlier]['path'])!r}"
                ": each released file needs a path of its own"
            )
            findings.append(Finding(Code.RELEASED_DATA_PATH, message, file))
            break
        seen.append((index, path))
    return findings


def fetch_released(
    items: Sequence[Mapping[str, Any]],
    inputs: Path,
    cache: Path,
    file: str,
    limits: Limits = Limits(),
    session: requests.Session | None = None,
    sleep: Callable[[float], None] = time.sleep,
    clock: Callable[[], float] = time.monotonic,
) -> list[Finding]:
    """Fetch every released file into `inputs/<path>`. Returns the findings (empty: all good).

    `file` is adapter.yaml's display path for the findings. `sleep` waits between retries
    (tests pass a no-op). Everything is fetched within `limits.released_deadline` (each
    download within `fetch_deadline` too), and in `limits.max_released_total_bytes` all
    together; a file not fetched in time, or past that byte budget, is
    `released-data-unavailable`.
    """
    refused = _check_paths(items, inputs, file)
    if refused:
        return refused
    findings: list[Finding] = []
    own = session is None
    session = session or build_session()
    # One budget for every file and retry (`Limits.released_deadline`): a server that answers
    # each download just before its own deadline cannot hold the rerun job past its timeout.
    budget_end = clock() + limits.released_deadline
    # And one byte budget (`Limits.max_released_total_bytes`): each file is written twice
    # (cache, inputs), and a disk the filer's files fill is a machine error, recorded as nothing.
    total = limits.max_released_total_bytes
    used = 0
    try:
        for index, data in enumerate(items):
            item = ReleasedFile.from_data(data)
            where = f"released_data[{index}]"
            refusal = refuse_url(item.url, f"{where}.url")
            if refusal is not None:
                findings.append(Finding(Code.RELEASED_DATA_UNAVAILABLE, refusal, file))
                continue
            target = inputs / PurePosixPath(item.path)
            entry = _cached(cache, item.sha256)
            room = total - used
            over = (
                f"{where}: {item.url} was not fetched: the {total}-byte limit for all of"
                f" adapter.yaml's released data ran out ({used} bytes before it)"
            )
            if entry is not None and entry.stat().st_size > room:
                findings.append(Finding(Code.RELEASED_DATA_UNAVAILABLE, over, file))
                continue
            served = None
            for attempt in range(_RETRIES):
                if entry is not None:
                    break
                if room <= 0:
                    findings.append(Finding(Code.RELEASED_DATA_UNAVAILABLE, over, file))
                    break
                remaining = budget_end - clock()
                if remaining <= 0:
                    message = (
                        f"{where}: {item.url} was not fetched: the"
                        f" {limits.released_deadline:g} s for all of adapter.yaml's released data"
                        " ran out"
                    )
                    findings.append(Finding(Code.RELEASED_DATA_UNAVAILABLE, message, file))
                    break
                within = replace(
                    limits,
                    fetch_deadline=min(limits.fetch_deadline, remaining),
                    max_released_bytes=min(limits.max_released_bytes, room),
                )
                try:
                    entry, served = _fetch_once(session, item, cache, within)
                    break
                except _TooLargeError as error:
                    shown = over if room < limits.max_released_bytes else f"{where}: {error}"
                    findings.append(Finding(Code.RELEASED_DATA_UNAVAILABLE, shown, file))
                    break
                except UnavailableError as error:
                    pause = 2.0**attempt
                    last = attempt + 1 == _RETRIES or budget_end - clock() <= pause
                    if last or not _is_passing(error):
                        findings.append(
                            Finding(Code.RELEASED_DATA_UNAVAILABLE, f"{where}: {error}", file)
                        )
                        break
                    sleep(pause)
            if served is not None:
                findings.append(
                    Finding(
                        Code.RELEASED_DATA_HASH,
                        f"{where}: {item.url} has sha256 {served}, adapter.yaml says {item.sha256}",
                        file,
                    )
                )
            if entry is not None:
                used += entry.stat().st_size
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(entry, target)
    finally:
        if own:
            session.close()
    return findings

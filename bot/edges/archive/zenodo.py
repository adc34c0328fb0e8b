"""Copies of snapshot tags on Zenodo, through its legacy deposit API (requests only).

A copy is made in four steps: create a deposition (with its metadata, so that the draft is
findable from the start), upload the tarball to the deposition's bucket, set the metadata,
publish. Setting the metadata includes writing organisations among the creators through
InvenioRDM's records API (`/records/{id}/draft`), since the legacy API has only people.

A crash or a kill may stop the job between any two, so `archive()` first looks for what an
earlier run left (`find()`: the token's own depositions, published or draft, by the
related identifier `https://github.com/OWNER/REPO/tree/TAG`; never the public records search,
where anyone's record may name that URL) and finishes that one. It never makes a second
deposition for a tag that has one.

Failures raise `ZenodoError` (an `ArchiveError`, so a `ClaimsError`) naming the step; the
caller records "archived" only from the `ArchivedRecord` that `archive()` returns, after
Zenodo's md5 of the uploaded file was compared with the local file's.

Retries: a 429 waits for Retry-After (or X-RateLimit-Reset, capped at `max_wait`); a 5xx, a
timeout or a dropped connection waits with exponential backoff; all through the injected
`sleep`. A POST that creates (a deposition) or acts (publish) is never blindly retried: its
answer may be lost after Zenodo applied it, so the client first looks for its effect. A 429 is
retried everywhere: Zenodo refuses it before doing anything.

The token is sent only to the configured API origin: a link in an answer (the bucket) that
points elsewhere is refused.
"""

from __future__ import annotations

import email.utils
import os
import time
from collections.abc import Callable, Mapping
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, Literal
from urllib.parse import quote, urlsplit

import requests

from bot.edges.archive.port import (
    ArchivedRecord,
    ArchiveError,
    ArchiveMetadata,
    CopyState,
    DepositionState,
    StoredFile,
    copy_title,
    md5_of,
    tree_url,
)
from bot.vocab.timestamps import parse_timestamp

__all__ = ["DEFAULT_URL", "SANDBOX_URL", "ZenodoArchive", "ZenodoError", "search_query"]

DEFAULT_URL = "https://zenodo.org/api"
SANDBOX_URL = "https://sandbox.zenodo.org/api"  # a separate account and token; wiped at times

Retry = Literal["always", "rejected"]  # rejected: only a 429 (Zenodo did nothing) is retried
Step = Literal["created", "uploaded", "described", "published"]

_RESUME_HINT = "the job is safe to rerun: it finds the deposition this run started and finishes it"


class ZenodoError(ArchiveError):
    """Zenodo refused, failed or did not answer; `status` is None when there was no answer."""

    def __init__(self, step: str, message: str, hint: str = "", status: int | None = None):
        super().__init__(f"zenodo {step}", message, hint)
        self.step = step
        self.status = status


def search_query(tag: str, repository_url: str) -> str:
    """The search finding the copies of `tag`: its tree URL as a quoted phrase (`/` and `:` are
    special in the query syntax; `\\` and `"` are escaped inside the quotes)."""
    phrase = tree_url(repository_url, tag).replace("\\", "\\\\").replace('"', '\\"')
    return f'metadata.related_identifiers.identifier:"{phrase}"'


class ZenodoArchive:
    """Zenodo's deposit API at `base_url` (e.g. https://zenodo.org/api), with `token`."""

    def __init__(
        self,
        base_url: str,
        token: str,
        session: requests.Session | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], datetime] = lambda: datetime.now(UTC),
        *,
        timeout: tuple[float, float] = (10.0, 300.0),
        attempts: int = 5,
        backoff: float = 2.0,
        max_wait: float = 120.0,
        after_step: Callable[[Step, DepositionState], None] | None = None,
    ) -> None:
        self.base_url = base_url.rstrip("/")
        self._origin = _origin(self.base_url)
        self._token = token
        self.session = session or requests.Session()
        self.sleep = sleep
        self.clock = clock
        self.timeout = timeout
        self.attempts = max(1, attempts)
        self.backoff = backoff
        self.max_wait = max_wait
        self.after_step = after_step

    @classmethod
    def from_environment(
        cls, environ: Mapping[str, str] | None = None, **options: Any
    ) -> ZenodoArchive | None:
        """From ZENODO_URL (default https://zenodo.org/api; https://sandbox.zenodo.org/api to
        test) and ZENODO_TOKEN; None when no token is set (the caller archives locally)."""
        environ = os.environ if environ is None else environ
        token = environ.get("ZENODO_TOKEN", "").strip()
        if not token:
            return None
        return cls(environ.get("ZENODO_URL", "").strip() or DEFAULT_URL, token, **options)

    def __repr__(self) -> str:  # never the token
        return f"ZenodoArchive({self.base_url!r})"

    # -- the Archive protocol ------------------------------------------------------------

    def find(
        self, tag: str, repository_url: str, market: str | None = None
    ) -> DepositionState | None:
        """The copy of `tag` the token's own account holds: a published deposition that still
        answers, else a draft a crashed run left, else None. Only the account's depositions
        (`/deposit/depositions`) are asked: anyone may publish a record naming our tree URL,
        so the public records search would find strangers' copies. Each hit must carry the
        tree URL exactly (the search matches phrases loosely); several: the oldest. With a
        `market`, only the copy made for it (its title `OWNER/REPO: TAG, market-NN`)."""
        url = tree_url(repository_url, tag)
        query = search_query(tag, repository_url)
        # `allversions` (zenodo-rdm's search argument, invenio-drafts-resources); the old
        # Zenodo's `all_versions` would be taken for a facet filter and do nothing.
        params = {"q": query, "allversions": "true", "size": "100"}
        answer = self._json("find", "GET", f"{self.base_url}/deposit/depositions", params=params)
        own = answer if isinstance(answer, list) else []
        title = copy_title(repository_url, tag, market) if market is not None else None
        states = [
            _state(d, None)
            for d in own
            if isinstance(d, dict) and _names(d, url) and (title is None or _titled(d, title))
        ]
        # A published deposition whose record answers 404 or 410 was deleted (the list keeps
        # it): it is no copy.
        states = [s for s in states if not s.published or self._answers(s)]
        if not states:
            return None
        return min(states, key=lambda s: (not s.published, *_order(s)))

    def _answers(self, state: DepositionState) -> bool:
        """True unless the published record of `state` answers 404 or 410 (deleted)."""
        ident = quote(state.record_id or state.id, safe="")
        url = f"{self.base_url}/records/{ident}"
        response = self._send("find", "GET", url, tolerate={404, 410})
        return response.status_code not in {404, 410}

    def archive(self, tag: str, tarball: Path, metadata: ArchiveMetadata) -> ArchivedRecord:
        """Make, or finish, the published copy of `tag` with `tarball`; return its record."""
        if metadata.tag != tag:
            raise ZenodoError("archive", f"the metadata names {metadata.tag}, not {tag}")
        try:
            local = md5_of(tarball)
        except OSError as exc:
            raise ZenodoError("upload", f"cannot read {tarball}: {exc}") from exc
        fields = metadata.zenodo_metadata()
        state = self.find(tag, metadata.repository_url, metadata.market)
        if state is None:
            state = self._create(tag, metadata, fields)
            self._reached("created", state)
        if state.published:
            return self._found(tag, state, metadata.file_name)
        stored = state.file(metadata.file_name)
        if stored is None or stored.checksum != local:
            self._upload(state, tarball, metadata.file_name, local)
            self._reached("uploaded", state)
        state = self._describe(state, fields)
        if metadata.organisations:
            self._creators(state, metadata)
        self._reached("described", state)
        _only_file(state, metadata.file_name, local)
        published = self._publish(state)
        self._reached("published", published)
        return self._record(tag, published, metadata.file_name, local, self.clock())

    def copy_state(self, record: ArchivedRecord) -> CopyState:
        """Whether `record` is still published on Zenodo with the same file. A 404 or 410
        (deleted, withdrawn) is `missing`; an outage raises `ZenodoError` (it proves
        nothing about the copy)."""
        url = f"{self.base_url}/records/{quote(record.record_id, safe='')}"
        response = self._send("check", "GET", url, tolerate={404, 410})
        if response.status_code in {404, 410}:
            return CopyState("missing", f"record {record.record_id} answers {response.status_code}")
        data = _body(response, "check")
        if not isinstance(data, dict):
            raise ZenodoError("check", f"record {record.record_id}: the answer is no object")
        state = _state(data, True)
        stored = state.file(record.file_name)
        if stored is None:
            return CopyState("changed", f"record {record.record_id} has no {record.file_name}")
        if stored.checksum != record.checksum:
            return CopyState(
                "changed",
                f"record {record.record_id}: {record.file_name} is {stored.checksum},"
                f" recorded {record.checksum}",
            )
        return CopyState("ok")

    def fetch(self, record: ArchivedRecord, target: Path) -> Path:
        """The published copy's file (`GET /records/{id}`, then its file's link on the API's
        origin), written to `target`; its md5 must be the recorded one."""
        ident = quote(record.record_id, safe="")
        data = self._json("fetch", "GET", f"{self.base_url}/records/{ident}")
        files = data.get("files") if isinstance(data, dict) else None
        entry = next(
            (
                f
                for f in (files if isinstance(files, list) else [])
                if isinstance(f, dict) and f.get("key", f.get("filename")) == record.file_name
            ),
            None,
        )
        if entry is None:
            raise ZenodoError("fetch", f"record {record.record_id} has no {record.file_name}")
        links = entry.get("links")
        link = links.get("self") if isinstance(links, dict) else None
        url = (
            link
            if isinstance(link, str) and _origin(link) == self._origin
            else f"{self.base_url}/records/{ident}/files/{quote(record.file_name)}/content"
        )
        response = self._send("fetch", "GET", url)
        try:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(response.content)
        except OSError as exc:
            raise ZenodoError("fetch", f"cannot write {target}: {exc}") from exc
        checksum = md5_of(target)
        if checksum != record.checksum:
            raise ZenodoError(
                "fetch",
                f"record {record.record_id}: {record.file_name} arrived as {checksum},"
                f" recorded {record.checksum}",
            )
        return target

    # -- the steps --------------------------------------------------------------------------

    def _create(
        self, tag: str, metadata: ArchiveMetadata, fields: dict[str, object]
    ) -> DepositionState:
        """POST a deposition with its metadata; after a failure that may have been applied
        (5xx, no answer), look for the draft before creating again."""
        url = f"{self.base_url}/deposit/depositions"
        for attempt in range(1, self.attempts + 1):
            try:
                response = self._send(
                    "create", "POST", url, json={"metadata": fields}, expect={201}, retry="rejected"
                )
            except ZenodoError as error:
                if error.status is not None and error.status < 500:
                    raise  # refused: nothing was made
                if attempt == self.attempts:
                    raise
                self.sleep(self._backoff(attempt))
                found = self.find(tag, metadata.repository_url, metadata.market)
                if found is not None:
                    return found
                continue
            return _state(_object(response, "create"), None)
        raise AssertionError("unreachable")  # pragma: no cover

    def _upload(self, state: DepositionState, tarball: Path, name: str, local: str) -> None:
        """PUT the file to the bucket (the same key replaces a half-made upload) and compare
        Zenodo's md5 with the local file's."""
        bucket = state.bucket
        if not bucket:
            bucket = _state(self._deposition("upload", state.id), None).bucket
        if not bucket:
            raise ZenodoError("upload", f"deposition {state.id} has no bucket link")
        response = self._send(
            "upload", "PUT", f"{bucket}/{quote(name)}", upload=tarball, expect={200, 201}
        )
        data = _object(response, "upload")
        checksum = _checksum(data.get("checksum"))
        if checksum != local:
            raise ZenodoError(
                "upload",
                f"Zenodo holds {checksum or 'no checksum'} for {name} in deposition"
                f" {state.id}, the file is {local}",
                hint="the upload was damaged; " + _RESUME_HINT + " (it uploads the file again)",
            )

    def _describe(self, state: DepositionState, fields: dict[str, object]) -> DepositionState:
        url = f"{self.base_url}/deposit/depositions/{quote(state.id, safe='')}"
        response = self._send("metadata", "PUT", url, json={"metadata": fields}, expect={200})
        return _state(_object(response, "metadata"), None)

    def _creators(self, state: DepositionState, metadata: ArchiveMetadata) -> None:
        """Write the creators on the draft through InvenioRDM's records API, where an
        organisation is `person_or_org.type: organizational`: zenodo-rdm's legacy API makes
        every creator a person (`PersonSchema.type = Constant("personal")` in
        site/zenodo_rdm/legacy/deserializers/metadata.py). The draft is read and written back
        whole with only its creators changed (InvenioRDM's PUT replaces the draft; it ignores
        the read-only keys). Safe to repeat; a rerun's legacy metadata step resets the
        creators to people, and this step follows it again."""
        url = f"{self.base_url}/records/{quote(state.id, safe='')}/draft"
        draft = _object(self._send("creators", "GET", url), "creators")
        fields = draft.get("metadata")
        if not isinstance(fields, dict):
            raise ZenodoError("creators", f"the draft of deposition {state.id} has no metadata")
        fields["creators"] = metadata.rdm_creators()
        self._send("creators", "PUT", url, json=draft, expect={200})

    def _publish(self, state: DepositionState) -> DepositionState:
        """POST publish (202); after any failure, read the deposition: published already (the
        answer was lost) is success, else publish again while attempts last."""
        url = f"{self.base_url}/deposit/depositions/{quote(state.id, safe='')}/actions/publish"
        for attempt in range(1, self.attempts + 1):
            try:
                response = self._send("publish", "POST", url, expect={202}, retry="rejected")
            except ZenodoError as error:
                if error.status is None or error.status >= 500:
                    self.sleep(self._backoff(attempt))
                current = _state(self._deposition("publish", state.id), None)
                if current.published:
                    return current
                if (error.status is not None and error.status < 500) or attempt == self.attempts:
                    raise
                continue
            published = _state(_object(response, "publish"), None)
            if not published.doi:
                raise ZenodoError("publish", f"deposition {state.id} was published without a DOI")
            return published
        raise AssertionError("unreachable")  # pragma: no cover

    def _found(self, tag: str, state: DepositionState, name: str) -> ArchivedRecord:
        """The record of a copy an earlier run (or the GitHub integration) published."""
        stored = state.file(name) or (state.files[0] if state.files else None)
        if stored is None:
            raise ZenodoError("find", f"the published record {state.id} of {tag} has no file")
        created = state.modified or self.clock()
        return self._record(tag, state, stored.name, stored.checksum, created)

    def _record(
        self, tag: str, state: DepositionState, name: str, checksum: str, created: datetime
    ) -> ArchivedRecord:
        if not state.doi:
            raise ZenodoError("publish", f"deposition {state.id} is published without a DOI")
        record_id = state.record_id or state.id
        return ArchivedRecord(
            tag=tag,
            reference=state.doi,
            record_id=record_id,
            file_name=name,
            checksum=checksum,
            created=created,
            url=f"https://doi.org/{state.doi}",
        )

    def _reached(self, step: Step, state: DepositionState) -> None:
        if self.after_step is not None:
            self.after_step(step, state)

    def _deposition(self, step: str, deposition: str) -> dict[str, Any]:
        url = f"{self.base_url}/deposit/depositions/{quote(deposition, safe='')}"
        return _object(self._send(step, "GET", url), step)

    # -- HTTP -------------------------------------------------------------------------------

    def _json(self, step: str, method: str, url: str, **kw: Any) -> Any:
        return _body(self._send(step, method, url, **kw), step)

    def _send(
        self,
        step: str,
        method: str,
        url: str,
        *,
        expect: set[int] | None = None,
        tolerate: set[int] | None = None,
        retry: Retry = "always",
        json: object = None,
        params: Mapping[str, str] | None = None,
        upload: Path | None = None,
    ) -> requests.Response:
        """One call, retried on 429 (any method) and on 5xx, timeouts and dropped connections
        (when `retry` is "always"). Raises `ZenodoError` with Zenodo's message."""
        if _origin(url) != self._origin:
            raise ZenodoError(step, f"refusing to send the token to {url} (not {self._origin})")
        expect = expect or {200}
        headers = {"Authorization": f"Bearer {self._token}", "Accept": "application/json"}
        if upload is not None:
            headers["Content-Type"] = "application/octet-stream"
        for attempt in range(1, self.attempts + 1):
            status: int | None = None
            wait = self._backoff(attempt)
            try:
                if upload is not None:
                    with upload.open("rb") as stream:
                        response = self.session.request(
                            method, url, headers=headers, data=stream, timeout=self.timeout
                        )
                else:
                    response = self.session.request(
                        method,
                        url,
                        headers=headers,
                        json=json,
                        params=params,
                        timeout=self.timeout,
                    )
            except (requests.Timeout, requests.ConnectionError) as exc:
                failure = f"no answer from {method} {_path(url)} ({type(exc).__name__})"
                transient = retry == "always"
            except (requests.RequestException, OSError) as exc:
                raise ZenodoError(step, f"{method} {_path(url)}: {exc}") from exc
            else:
                status = response.status_code
                if status in expect or status in (tolerate or set()):
                    return response
                failure = f"{method} {_path(url)}: {_describe(response)}"
                if status == 429:
                    transient = True
                    wait = self._rate_wait(response, wait)
                else:
                    transient = status >= 500 and retry == "always"
            if not transient or attempt == self.attempts:
                raise ZenodoError(step, failure, _hint(status), status)
            self.sleep(wait)
        raise AssertionError("unreachable")  # pragma: no cover

    def _backoff(self, attempt: int) -> float:
        return float(min(self.backoff * 2 ** (attempt - 1), self.max_wait))

    def _rate_wait(self, response: requests.Response, default: float) -> float:
        """Retry-After (seconds or an HTTP date), else X-RateLimit-Reset (epoch seconds),
        capped at `max_wait`."""
        now = self.clock()
        after = response.headers.get("Retry-After", "").strip()
        wait: float | None = None
        if after:
            try:
                wait = float(after)
            except ValueError:
                try:
                    moment = email.utils.parsedate_to_datetime(after)
                    wait = (moment - now).total_seconds() if moment.tzinfo else None
                except (TypeError, ValueError):
                    wait = None
        if wait is None:
            reset = response.headers.get("X-RateLimit-Reset", "").strip()
            try:
                wait = float(reset) - now.timestamp() if reset else None
            except ValueError:
                wait = None
        if wait is None or wait != wait:  # absent, unreadable or NaN
            wait = default
        return min(max(wait, 0.0), self.max_wait)


# -- reading answers ---------------------------------------------------------------------------


def _origin(url: str) -> str:
    parts = urlsplit(url)
    return f"{parts.scheme}://{parts.netloc}".lower()


def _path(url: str) -> str:
    return urlsplit(url).path


def _body(response: requests.Response, step: str) -> Any:
    try:
        return response.json()
    except ValueError as exc:
        raise ZenodoError(step, f"the answer to {_path(response.url)} is not JSON") from exc


def _object(response: requests.Response, step: str) -> dict[str, Any]:
    data = _body(response, step)
    if not isinstance(data, dict):
        raise ZenodoError(step, f"the answer to {_path(response.url)} is not a JSON object")
    return data


def _describe(response: requests.Response) -> str:
    """`HTTP 400: message (field: message; ...)` from Zenodo's error shape."""
    text = f"HTTP {response.status_code}"
    try:
        data = response.json()
    except ValueError:
        data = None
    if not isinstance(data, dict):
        return text
    message = data.get("message")
    if isinstance(message, str) and message:
        text += f": {message[:300]}"
    errors = data.get("errors")
    if isinstance(errors, list):
        details = [
            f"{e.get('field', '?')}: {e.get('message', e.get('messages', '?'))}"
            for e in errors[:10]
            if isinstance(e, dict)
        ]
        if details:
            text += f" ({'; '.join(details)})"
    return text


def _hint(status: int | None) -> str:
    if status in {401, 403}:
        return "check ZENODO_TOKEN: it needs the scopes deposit:write and deposit:actions"
    if status == 429:
        return "Zenodo kept rate limiting; " + _RESUME_HINT
    if status is None or status >= 500:
        return "Zenodo failed or did not answer; " + _RESUME_HINT
    return ""


def _checksum(value: object) -> str | None:
    """`md5:<hex>` from Zenodo's `md5:<hex>` (bucket, records) or bare hex (deposit files)."""
    if not isinstance(value, str) or not value:
        return None
    algorithm, _, digest = value.rpartition(":")
    return f"{(algorithm or 'md5').lower()}:{digest.lower()}"


def _names(entry: Mapping[str, Any], url: str) -> bool:
    """True when a record's or deposition's related identifiers hold `url` exactly."""
    metadata = entry.get("metadata")
    related = metadata.get("related_identifiers") if isinstance(metadata, dict) else None
    return isinstance(related, list) and any(
        isinstance(r, dict) and r.get("identifier") == url for r in related
    )


def _titled(entry: Mapping[str, Any], title: str) -> bool:
    """True when a deposition's title (its metadata's) is `title` exactly."""
    metadata = entry.get("metadata")
    return isinstance(metadata, dict) and metadata.get("title") == title


def _state(entry: Mapping[str, Any], published: bool | None) -> DepositionState:
    """A record (`published` True) or a deposition (submitted or not) as a state."""
    files: list[StoredFile] = []
    raw = entry.get("files")
    for f in raw if isinstance(raw, list) else []:
        if not isinstance(f, dict):
            continue
        name = f.get("key", f.get("filename"))
        checksum = _checksum(f.get("checksum"))
        size = f.get("size", f.get("filesize"))
        if isinstance(name, str) and checksum:
            files.append(
                StoredFile(name, checksum, int(str(size)) if str(size).isdigit() else None)
            )
    links = entry.get("links")
    bucket = links.get("bucket") if isinstance(links, dict) else None
    if published is None:
        published = entry.get("submitted") is True or entry.get("state") == "done"
    doi = entry.get("doi")
    record_id = entry.get("record_id", entry.get("id") if published else None)
    modified = entry.get("modified", entry.get("updated"))
    return DepositionState(
        id=str(entry.get("id", "")),
        published=published,
        doi=doi if isinstance(doi, str) and doi else None,
        record_id=str(record_id) if record_id is not None else None,
        files=tuple(files),
        bucket=bucket if isinstance(bucket, str) else None,
        modified=parse_timestamp(modified) if isinstance(modified, str) else None,
    )


def _order(state: DepositionState) -> tuple[int, str]:
    """Oldest first: Zenodo's ids grow."""
    return (int(state.id), state.id) if state.id.isdigit() else (1 << 62, state.id)


def _only_file(state: DepositionState, name: str, local: str) -> None:
    """Before publishing: the draft holds exactly the file, with the local md5."""
    others = sorted(f.name for f in state.files if f.name != name)
    stored = state.file(name)
    if stored is None or stored.checksum != local:
        found = stored.checksum if stored else "nothing"
        raise ZenodoError(
            "publish",
            f"deposition {state.id} holds {found} as {name}, the file is {local}",
            hint=_RESUME_HINT,
        )
    if others:
        raise ZenodoError(
            "publish",
            f"deposition {state.id} holds other files too: {', '.join(others)}",
            hint="remove them from the draft on Zenodo, then rerun",
        )

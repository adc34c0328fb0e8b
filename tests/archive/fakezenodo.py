"""A stateful fake of Zenodo's legacy deposit API on 127.0.0.1, for the archive tests.

Shapes follow Zenodo's developer documentation (zenodo/developers.zenodo.org,
source/includes/overview/_quickstart.md and resources/deposit/_representation.md: the
deposition with `links.bucket`, `state`, `submitted`, `files[].checksum` as bare hex; the
bucket upload answering `checksum: "md5:<hex>"`; publish answering 202; errors as
`{"status", "message", "errors": [{"field", "message"}]}`) and /work/shared/ZENODO-GITHUB.md
section 3 (records search by `metadata.related_identifiers.identifier:"..."` with
`allversions`, hits under `hits.hits`).

Routes (under /api):
  POST /deposit/depositions                      create (metadata optional)       201
  GET  /deposit/depositions?q=                   the user's depositions            200
  GET  /deposit/depositions/<id>                                                   200
  PUT  /deposit/depositions/<id>                 metadata (drafts only)           200
  POST /deposit/depositions/<id>/actions/publish DOI 10.5072/zenodo.<id>          202
  PUT  /files/<bucket>/<key>                     stores the bytes                 201
  GET  /files/<bucket>/<key>                     the bytes
  GET  /records?q=&allversions=true              published, not deleted           200
  GET  /records/<id>                             410 once deleted, 404 unknown
  GET  /records/<id>/files/<key>/content         a published record's file          200
  GET  /records/<id>/draft                       the draft in InvenioRDM's shape    200
  PUT  /records/<id>/draft                       its creators (person_or_org)       200

The legacy API makes every creator a person (zenodo-rdm); the InvenioRDM draft routes are
where a client writes an organisation. A legacy metadata update resets the creators to
people, as zenodo-rdm's legacy reader does; `Deposition.rdm_creators` holds what was written.

As zenodo-rdm does, the depositions list (`GET /deposit/depositions`) leaves `links.bucket`
out of each hit (zenodo-rdm does not index the bucket: site/zenodo_rdm/legacy/services.py,
`has_bucket_id`); `GET /deposit/depositions/<id>` has it. So a client resuming a draft it found
by listing must read the deposition again for its bucket.

Every request is checked against zenodo-rdm's legacy deposit API (tests/apicheck.py, the
hand-kept tests/data/apis/zenodo-deposit.json): one unlike it is answered 400 and kept in
`violations`, and `serve` fails the test when it stops.

Search is loose on purpose, like a full-text phrase match: a hit's identifier need only
*contain* the quoted phrase, so the client must filter hits itself.

Faults (`fail(route, kind)`), each used by the next call to the route: "500"; "429" (with
Retry-After); "hang" (answers only after the client gave up); "wrong-checksum" (upload: stores
damaged bytes and reports their md5); "apply-then-500" (does the work, answers 500). Routes:
create, list, get, update, publish, upload, search, record.
"""

from __future__ import annotations

import hashlib
import json
import re
import socketserver
import threading
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any
from wsgiref.simple_server import WSGIRequestHandler, WSGIServer, make_server

from werkzeug.wrappers import Request, Response

from tests import apicheck

TOKEN = "fake-zenodo-token"
HANG_SECONDS = 5.0  # the longest a "hang" holds a request; the client's timeout is far shorter


@dataclass
class Deposition:
    id: int
    metadata: dict[str, Any]
    created: datetime
    modified: datetime
    files: dict[str, bytes] = field(default_factory=dict)
    submitted: bool = False
    deleted: bool = False  # the published record was deleted (Zenodo answers 410)
    owner: int = 1  # the token's user is 1; another user's depositions are not listed
    # the creators as InvenioRDM holds them, once written through /records/<id>/draft (None:
    # as the legacy metadata gave them, every one a person)
    rdm_creators: list[dict[str, Any]] | None = None

    @property
    def bucket(self) -> str:
        return f"bucket-{self.id}"

    @property
    def doi(self) -> str:
        return f"10.5072/zenodo.{self.id}" if self.submitted else ""


def _md5(data: bytes) -> str:
    return hashlib.md5(data, usedforsecurity=False).hexdigest()


def _moment(value: datetime) -> str:
    return value.isoformat()


_PHRASE = re.compile(r'\A([\w.]+):"((?:[^"\\]|\\.)*)"\Z')


class FakeZenodo:
    """The fake's state and its WSGI app; `base_url` is its API root (.../api)."""

    def __init__(self) -> None:
        self.depositions: dict[int, Deposition] = {}
        self.faults: dict[str, list[tuple[str, float]]] = {}
        self.log: list[tuple[str, str, int]] = []  # (method, path, status)
        self.queries: list[str] = []  # every q= the fake was asked
        self.violations: list[str] = []  # requests unlike zenodo-rdm's legacy deposit API
        self.now = datetime(2027, 7, 1, 12, 0, tzinfo=UTC)
        self.next_id = 1001
        self.released = threading.Event()
        self.lock = threading.Lock()
        self.base_url = ""

    # -- test controls ----------------------------------------------------------------------

    def fail(self, route: str, kind: str, retry_after: float = 7) -> None:
        """The next call to `route` fails as `kind` (queued: call again for the one after)."""
        self.faults.setdefault(route, []).append((kind, retry_after))

    def published(self) -> list[Deposition]:
        return [d for d in self.depositions.values() if d.submitted]

    def delete_record(self, record_id: int) -> None:
        """As if Zenodo's staff removed the published record (it answers 410 from now on)."""
        self.depositions[record_id].deleted = True

    def publish_foreign(self, metadata: dict[str, Any], files: dict[str, bytes]) -> Deposition:
        """Another Zenodo user publishes a record (anyone may name any related identifier):
        the records search shows it, the token's own depositions do not."""
        deposition = Deposition(self.next_id, metadata, self.now, self.now, dict(files), True)
        deposition.owner = 2
        self.depositions[deposition.id] = deposition
        self.next_id += 1
        return deposition

    def replace_file(self, record_id: int, key: str, data: bytes) -> None:
        """As if the stored file changed under the record."""
        self.depositions[record_id].files[key] = data

    def calls(self, method: str, suffix: str) -> int:
        return sum(1 for m, p, _ in self.log if m == method and p.endswith(suffix))

    # -- the app ----------------------------------------------------------------------------

    def __call__(self, environ: dict[str, Any], start_response: Any) -> Any:
        request = Request(environ)
        response = self.handle(request)
        self.log.append((request.method, request.path, response.status_code))
        return response(environ, start_response)

    def handle(self, request: Request) -> Response:
        path = request.environ.get("RAW_URI") or request.environ.get("PATH_INFO", "")
        path = path.split("?", 1)[0].removeprefix("/api")
        problems = apicheck.zenodo().problems(
            request.method,
            path,
            list(request.args.items(multi=True)),
            request.get_data(cache=True),
            request.headers.get("Content-Type", ""),
        )
        if problems:
            self.violations += problems
            return _json({"status": 400, "message": "; ".join(problems)}, 400)
        route, args = self._route(request)
        if route is None:
            return _error(404, "The requested URL was not found on the server.")
        if route not in {"search", "record", "content"} and not self._authorized(request):
            return _error(401, "The server could not verify that you are authorized.")
        kind, retry_after = (self.faults.get(route) or [("", 0.0)])[0]
        if kind:
            self.faults[route].pop(0)
        if kind == "500":
            return _error(500, "Internal server error")
        if kind == "429":
            response = _error(429, "Too many requests")
            response.headers["Retry-After"] = f"{retry_after:g}"
            return response
        if kind == "hang":
            self.released.wait(HANG_SECONDS)
            return _error(504, "gateway timeout")
        with self.lock:
            response = getattr(self, f"_{route}")(request, *args, damaged=kind == "wrong-checksum")
        if kind == "apply-then-500":
            return _error(500, "Internal server error")
        return response

    def _authorized(self, request: Request) -> bool:
        return request.headers.get("Authorization") == f"Bearer {TOKEN}"

    def _route(self, request: Request) -> tuple[str | None, tuple[Any, ...]]:
        path, method = request.path.rstrip("/"), request.method
        table = [
            ("POST", r"/api/deposit/depositions", "create"),
            ("GET", r"/api/deposit/depositions", "list"),
            ("GET", r"/api/deposit/depositions/(\d+)", "get"),
            ("PUT", r"/api/deposit/depositions/(\d+)", "update"),
            ("POST", r"/api/deposit/depositions/(\d+)/actions/publish", "publish"),
            ("PUT", r"/api/files/bucket-(\d+)/(.+)", "upload"),
            ("GET", r"/api/files/bucket-(\d+)/(.+)", "download"),
            ("GET", r"/api/records", "search"),
            ("GET", r"/api/records/(\d+)", "record"),
            ("GET", r"/api/records/(\d+)/files/(.+)/content", "content"),
            ("GET", r"/api/records/(\d+)/draft", "draft_read"),
            ("PUT", r"/api/records/(\d+)/draft", "draft_update"),
        ]
        for want, pattern, route in table:
            match = re.fullmatch(pattern, path)
            if match and method == want:
                return route, match.groups()
        return None, ()

    # -- routes -----------------------------------------------------------------------------

    def _create(self, request: Request, damaged: bool = False) -> Response:
        body = request.get_data()
        if body and request.mimetype != "application/json":
            return _error(415, "Unsupported media type")
        data = json.loads(body or b"{}")
        deposition = Deposition(self.next_id, dict(data.get("metadata") or {}), self.now, self.now)
        self.depositions[deposition.id] = deposition
        self.next_id += 1
        return _json(self._deposition(deposition), 201)

    def _list(self, request: Request, damaged: bool = False) -> Response:
        query = request.args.get("q", "")
        self.queries.append(query)
        hits = [d for d in self.depositions.values() if d.owner == 1 and self._matches(d, query)]
        listed = [self._deposition(d) for d in sorted(hits, key=lambda d: -d.id)]
        for item in listed:
            del item["links"]["bucket"]  # not indexed: only a read of the deposition has it
        return _json(listed)

    def _get(self, request: Request, ident: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None:
            return _error(404, "PID does not exist.")
        if deposition.owner != 1:
            return _error(403, "You do not have permission to access this deposition.")
        return _json(self._deposition(deposition))

    def _update(self, request: Request, ident: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None:
            return _error(404, "PID does not exist.")
        if request.mimetype != "application/json":
            return _error(415, "Unsupported media type")
        if deposition.submitted:
            return _error(400, "Deposition is published: use the edit action first.")
        deposition.metadata = dict(json.loads(request.get_data()).get("metadata") or {})
        deposition.rdm_creators = None  # zenodo-rdm's legacy reader makes each one a person
        deposition.modified = self.now
        return _json(self._deposition(deposition))

    def _publish(self, request: Request, ident: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None:
            return _error(404, "PID does not exist.")
        if deposition.submitted:
            return _error(400, "Deposition is already published.")
        missing = [
            {"field": f"metadata.{name}", "message": "Field is required."}
            for name in ("upload_type", "title", "creators", "description")
            if not deposition.metadata.get(name)
        ]
        if not deposition.files:
            missing.append({"field": "files", "message": "Minimum one file must be provided."})
        if missing:
            return _json({"status": 400, "message": "Validation error.", "errors": missing}, 400)
        deposition.submitted = True
        deposition.modified = self.now
        return _json(self._deposition(deposition), 202)

    def _draft(self, deposition: Deposition) -> dict[str, Any]:
        """The draft as InvenioRDM's records API shows it (the fields this fake keeps)."""
        meta = deposition.metadata
        return {
            "id": str(deposition.id),
            "revision_id": 3,
            "is_published": False,
            "status": "draft",
            "metadata": {
                "resource_type": {"id": meta.get("upload_type", "")},
                "title": meta.get("title", ""),
                "description": meta.get("description", ""),
                "publication_date": meta.get("publication_date", ""),
                "version": meta.get("version", ""),
                "creators": self._rdm_creators(deposition),
                "publisher": "Zenodo",
            },
            "access": {"record": "public", "files": "public"},
            "files": {"enabled": True},
            "links": {"self": f"{self.base_url}/records/{deposition.id}/draft"},
        }

    @staticmethod
    def _rdm_creators(deposition: Deposition) -> list[dict[str, Any]]:
        if deposition.rdm_creators is not None:
            return deposition.rdm_creators
        out = []
        for creator in deposition.metadata.get("creators") or []:
            family, comma, given = str(creator.get("name", "")).partition(",")
            person = {"type": "personal", "family_name": family.strip() if comma else family}
            if comma:
                person["given_name"] = given.strip()
            out.append({"person_or_org": person})
        return out

    def _draft_read(self, request: Request, ident: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None or deposition.submitted or deposition.owner != 1:
            return _error(404, "The draft was not found.")
        return _json(self._draft(deposition))

    def _draft_update(self, request: Request, ident: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None or deposition.submitted or deposition.owner != 1:
            return _error(404, "The draft was not found.")
        if request.mimetype != "application/json":
            return _error(415, "Unsupported media type")
        data = json.loads(request.get_data())
        deposition.rdm_creators = list(data["metadata"]["creators"])
        deposition.modified = self.now
        return _json(self._draft(deposition))

    def _upload(self, request: Request, ident: str, key: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None:
            return _error(404, "Bucket does not exist.")
        if deposition.submitted:
            return _error(403, "Bucket is locked.")
        data = request.get_data()
        if damaged:
            data = data[:-1] + bytes([data[-1] ^ 0xFF]) if data else b"\0"
        deposition.files[key] = data
        deposition.modified = self.now
        return _json(
            {
                "key": key,
                "mimetype": "application/octet-stream",
                "checksum": f"md5:{_md5(data)}",
                "size": len(data),
                "created": _moment(self.now),
                "updated": _moment(self.now),
                "is_head": True,
                "delete_marker": False,
                "links": {"self": f"{self.base_url}/files/{deposition.bucket}/{key}"},
            },
            201,
        )

    def _download(self, request: Request, ident: str, key: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None or key not in deposition.files:
            return _error(404, "Object does not exist.")
        return Response(deposition.files[key], mimetype="application/octet-stream")

    def _content(self, request: Request, ident: str, key: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None or not deposition.submitted or key not in deposition.files:
            return _error(404, "PID does not exist.")
        if deposition.deleted:
            return _error(410, "PID has been deleted.")
        return Response(deposition.files[key], mimetype="application/octet-stream")

    def _search(self, request: Request, damaged: bool = False) -> Response:
        query = request.args.get("q", "")
        self.queries.append(query)
        hits = [
            self._record_json(d)
            for d in sorted(self.depositions.values(), key=lambda d: d.id)
            if d.submitted and not d.deleted and self._matches(d, query)
        ]
        return _json({"hits": {"hits": hits, "total": len(hits)}, "aggregations": {}})

    def _record_json(self, deposition: Deposition) -> dict[str, Any]:
        base = self.base_url
        return {
            "id": deposition.id,
            "recid": str(deposition.id),
            "doi": deposition.doi,
            "doi_url": f"https://doi.org/{deposition.doi}",
            "conceptdoi": f"10.5072/zenodo.{deposition.id - 1}",
            "created": _moment(deposition.created),
            "modified": _moment(deposition.modified),
            "updated": _moment(deposition.modified),
            "title": deposition.metadata.get("title", ""),
            "metadata": self._legacy_metadata(deposition),
            "state": "done",
            "submitted": True,
            "files": [
                {
                    "id": f"file-{deposition.id}-{n}",
                    "key": key,
                    "size": len(data),
                    "checksum": f"md5:{_md5(data)}",
                    "links": {"self": f"{base}/records/{deposition.id}/files/{key}/content"},
                }
                for n, (key, data) in enumerate(deposition.files.items())
            ],
            "links": {"self": f"{base}/records/{deposition.id}"},
        }

    def _record(self, request: Request, ident: str, damaged: bool = False) -> Response:
        deposition = self.depositions.get(int(ident))
        if deposition is None or not deposition.submitted:
            return _error(404, "PID does not exist.")
        if deposition.deleted:
            return _error(410, "PID has been deleted.")
        return _json(self._record_json(deposition))

    def _legacy_metadata(self, deposition: Deposition) -> dict[str, Any]:
        """The metadata as the legacy serializer shows it: each creator by its `name`."""
        metadata = dict(deposition.metadata)
        if deposition.rdm_creators is not None:
            metadata["creators"] = [
                {"name": c["person_or_org"].get("name") or c["person_or_org"]["family_name"]}
                for c in deposition.rdm_creators
            ]
        return metadata

    def _deposition(self, deposition: Deposition) -> dict[str, Any]:
        base, ident = self.base_url, deposition.id
        metadata = self._legacy_metadata(deposition)
        if not deposition.submitted:
            metadata["prereserve_doi"] = {"doi": f"10.5072/zenodo.{ident}", "recid": ident}
        answer: dict[str, Any] = {
            "conceptrecid": str(ident - 1),
            "created": _moment(deposition.created),
            "modified": _moment(deposition.modified),
            "id": ident,
            "doi": deposition.doi,
            "files": [
                {
                    "id": f"file-{ident}-{n}",
                    "filename": key,
                    "filesize": len(data),
                    "checksum": _md5(data),
                    "links": {"self": f"{base}/deposit/depositions/{ident}/files/file-{ident}-{n}"},
                }
                for n, (key, data) in enumerate(deposition.files.items())
            ],
            "links": {
                "bucket": f"{base}/files/{deposition.bucket}",
                "self": f"{base}/deposit/depositions/{ident}",
                "publish": f"{base}/deposit/depositions/{ident}/actions/publish",
                "html": f"{base.removesuffix('/api')}/deposit/{ident}",
            },
            "metadata": metadata,
            "owner": deposition.owner,
            "record_id": ident,
            "state": "done" if deposition.submitted else "unsubmitted",
            "submitted": deposition.submitted,
            "title": deposition.metadata.get("title", ""),
        }
        if deposition.submitted:
            answer["doi_url"] = f"https://doi.org/{deposition.doi}"
        return answer

    @staticmethod
    def _matches(deposition: Deposition, query: str) -> bool:
        """`field:"phrase"`: loose phrase match (the identifier contains the phrase)."""
        if not query:
            return True
        match = _PHRASE.match(query)
        if match is None:
            return False
        name, phrase = match.group(1), re.sub(r"\\(.)", r"\1", match.group(2))
        if name != "metadata.related_identifiers.identifier":
            return False
        related = deposition.metadata.get("related_identifiers") or []
        return any(phrase in str(r.get("identifier", "")) for r in related)


def _json(data: object, status: int = 200) -> Response:
    return Response(json.dumps(data), status=status, mimetype="application/json")


def _error(status: int, message: str) -> Response:
    return _json({"status": status, "message": message}, status)


class _Server(socketserver.ThreadingMixIn, WSGIServer):
    daemon_threads = True  # a hanging request holds up no other, nor the end of the test


class _Handler(WSGIRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:
        pass


def serve(fake: FakeZenodo) -> Iterator[FakeZenodo]:
    """Run `fake` on 127.0.0.1 until the generator is closed.

    The standard library's WSGI server (one request per connection, threaded), not
    werkzeug's: with werkzeug's, tests/unit/edges/test_fetch.py's memory test failed now and then
    after these tests (werkzeug ends each request with a drain that reads up to 10 MB at a
    time, and that test traces every thread); with this one it does not."""
    server = make_server("127.0.0.1", 0, fake, server_class=_Server, handler_class=_Handler)
    fake.base_url = f"http://127.0.0.1:{server.server_port}/api"
    thread = threading.Thread(target=server.serve_forever, args=(0.05,), daemon=True)
    thread.start()
    try:
        yield fake
    finally:
        fake.released.set()
        server.shutdown()
        server.server_close()
        thread.join(timeout=HANG_SECONDS)
    if fake.violations:
        raise AssertionError(
            f"requests unlike {apicheck.zenodo().source}:\n" + "\n".join(fake.violations)
        )

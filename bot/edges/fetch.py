"""`--fetch-raw-logs`: stream `raw_log.url` and check it against the attempt's claims
(docs/spec.md §4).

An attempt names its harness's raw log by URL, SHA-256 and size, and commits either the whole
log or a `head` and a `tail` excerpt. This module downloads the URL and reports, as findings,
every way the served file disagrees with those claims. A wrapped attempt's `freeze.yaml` pins
the paper's own freeze the same way (`paper_freeze` url and sha256): `check_paper_freeze_url`
streams it with the same machinery.

Why it looks like this:
- Bounded memory: raw logs run to hundreds of megabytes and the URL is chosen by the filer. The
  body is hashed as it streams; the bot keeps only the first `len(head)` bytes and a rolling
  buffer of the last `len(tail)` bytes, and stops reading once more than `raw_log.bytes` bytes
  have arrived. `Accept-Encoding: identity` asks for the file as stored, so the count is the
  file's size.
- Bounded time: `fetch_timeout` caps connecting and each wait for bytes; `fetch_deadline` caps
  the whole download, redirects and headers included. The body is read with `read1` (whatever
  bytes have arrived, up to 64 KiB) rather than `iter_content`, which blocks until a full chunk
  arrives: a server trickling one byte a second would pass every read timeout and never reach
  a deadline check. Headers are read by `http.client`, where no check of ours runs, so a
  `_Watchdog` shuts the download's sockets down at the deadline (a server dripping its header
  lines held the fetch as long as it liked). Only the name lookup (`getaddrinfo`) is the
  system resolver's to bound.
- Any answer is a finding: whatever a server sends (a malformed `Location`, a lying
  `Content-Length`, broken chunking, an unknown or stacked `Content-Encoding`, a gzip bomb, a
  reset, garbage where HTTP was due) ends in `UnavailableError` (`_answering` wraps every call
  that talks to the server), never another exception: a filer's server costs that attempt a
  finding, never the whole run. A body in a `Content-Encoding` despite `identity` is
  decoded at most 64 KiB per read (urllib3 >= 2.6), so a bomb is bounded like any long body.
- Redirects (at most `MAX_REDIRECTS`) are followed here, one hop at a time: requests would read
  each redirect's whole body into memory, and every target must again be a plain http(s) URL.
- Public addresses only (SSRF): a filer's URL must not make the bot read this machine or its
  network (`http://127.0.0.1:.../secret`, a cloud metadata address) and print the answer's size
  and hash into a pull request. On every hop the host is resolved once (`socket.getaddrinfo`),
  every address it gives is checked (`address_refusal`: loopback, private, link-local,
  multicast, reserved, unspecified or otherwise not global, IPv4-mapped and NAT64 forms
  included), and the connection goes to an address that was checked (`_PinnedAdapter`): the
  URL keeps its host, so the Host header, TLS's SNI and the certificate check still name it,
  and nothing is resolved again between the check and the connection. Proxies are never used
  (a proxy would resolve the name itself). `Limits.fetch_allowed_addresses` names exact
  addresses that tests' local servers use; nothing turns the check off.
- Fail closed: a log the bot cannot read (HTTP error, timeout, too many redirects, a malformed
  or refused redirect target, a scheme other than http(s), credentials in the URL) is a
  `raw-log-unavailable` finding, never a pass and
  never an exception. Own sessions ignore `~/.netrc` and proxy variables (`trust_env=False`),
  so the bot sends no credentials: the log must be public.
"""

from __future__ import annotations

import contextlib
import hashlib
import http.client
import ipaddress
import socket
import threading
import time
from collections.abc import Collection, Iterator
from dataclasses import dataclass
from typing import Any, BinaryIO, Protocol
from urllib.parse import urljoin, urlsplit

import requests
import requests.adapters
import urllib3.connection
import urllib3.connectionpool
import urllib3.exceptions

from bot.vocab.config import Limits
from bot.vocab.findings import Code, Finding

__all__ = [
    "CHUNK_BYTES",
    "MAX_REDIRECTS",
    "Fetched",
    "HTTPStatusError",
    "RefusedAddressError",
    "Sink",
    "UnavailableError",
    "address_refusal",
    "build_session",
    "check_paper_freeze_url",
    "check_raw_log_url",
    "download",
    "fetch_paper_freeze",
    "fetch_raw_log",
    "refuse_url",
]

CHUNK_BYTES = 64 * 1024
MAX_REDIRECTS = 5
# Longer exception texts (urllib3 nests its causes) are cut to keep messages readable.
_MAX_DETAIL_CHARS = 300


class _Tally:
    """What the bot keeps of a download: a running hash, a count, the head and a rolling tail;
    with `copy`, every byte is also written there (the close job keeps whole pins)."""

    def __init__(self, head_bytes: int, tail_bytes: int, copy: BinaryIO | None = None) -> None:
        self.sha256 = hashlib.sha256()
        self.count = 0
        self.head = bytearray()
        self.tail = bytearray()
        self._head_bytes = head_bytes
        self._tail_bytes = tail_bytes
        self._copy = copy

    def add(self, chunk: bytes) -> None:
        self.sha256.update(chunk)
        self.count += len(chunk)
        if self._copy is not None:
            self._copy.write(chunk)
        missing = self._head_bytes - len(self.head)
        if missing > 0:
            self.head += chunk[:missing]
        self.tail += chunk
        excess = len(self.tail) - self._tail_bytes
        if excess > 0:
            del self.tail[:excess]


def build_session() -> requests.Session:
    """A session that sends no credentials: no `~/.netrc`, no proxies from the environment.

    Close it after use (`with`). Redirects are followed by this module, not by the session.
    """
    session = requests.Session()
    session.trust_env = False
    return session


@dataclass(frozen=True, slots=True)
class Fetched:
    """What one download of a pin found: the findings (empty: it matches the pin), how many
    bytes arrived (None: nothing could be read) and their SHA-256 (None unless the whole
    file was read: a download stopped past its size has no hash of the served file)."""

    findings: list[Finding]
    bytes: int | None
    sha256: str | None


def check_raw_log_url(
    url: str,
    *,
    sha256: str,
    size: int,
    head: bytes | None,
    tail: bytes | None,
    file: str,
    line: int | None = None,
    limits: Limits = Limits(),
    session: requests.Session | None = None,
) -> list[Finding]:
    """Stream `url` and compare it with `raw_log` {sha256, bytes} and the committed excerpts.

    `head`/`tail` are the committed excerpts, or None when the whole log is committed (its hash
    is checked locally). A given `session` is used as is; by default `build_session()`'s.
    Returns the findings (empty when the served file matches), each located at `file`/`line`:
    `raw-log-unavailable` when the file cannot be read, `raw-log-hash-mismatch` for size or
    hash, `raw-log-excerpt` for head or tail. Never raises for network or HTTP problems.
    """
    return fetch_raw_log(
        url,
        sha256=sha256,
        size=size,
        head=head,
        tail=tail,
        file=file,
        line=line,
        limits=limits,
        session=session,
    ).findings


def fetch_raw_log(
    url: str,
    *,
    sha256: str,
    size: int,
    head: bytes | None,
    tail: bytes | None,
    file: str,
    line: int | None = None,
    limits: Limits = Limits(),
    session: requests.Session | None = None,
    copy: BinaryIO | None = None,
) -> Fetched:
    """`check_raw_log_url`, also saying what was served; with `copy`, the body is written
    there as it streams (at most `size` + one chunk bytes)."""
    tally = _Tally(len(head) if head is not None else 0, len(tail) if tail is not None else 0, copy)
    failure = _stream(url, "raw_log.url", tally, size, limits, session)
    if failure is not None:
        return Fetched([Finding(Code.RAW_LOG_UNAVAILABLE, failure, file, line)], None, None)
    messages = _compare_whole(tally, sha256, size) + _compare_excerpts(tally, head, tail, size)
    found = [Finding(code, message, file, line) for code, message in messages]
    return Fetched(found, tally.count, tally.sha256.hexdigest() if tally.count <= size else None)


def _stream(
    url: str,
    label: str,
    tally: Sink,
    size: int,
    limits: Limits,
    session: requests.Session | None,
) -> str | None:
    """Download `url` into `tally` (refused URLs never reached). Returns why it could not be
    read, or None. A given `session` is used as is; by default `build_session()`'s."""
    refusal = refuse_url(url, label)
    if refusal is not None:
        return refusal
    try:
        if session is None:
            with build_session() as own:
                download(own, url, tally, size, limits)
        else:
            download(session, url, tally, size, limits)
    except UnavailableError as exc:
        return str(exc)
    return None


def check_paper_freeze_url(
    url: str,
    *,
    sha256: str,
    file: str,
    line: int | None = None,
    limits: Limits = Limits(),
    session: requests.Session | None = None,
) -> list[Finding]:
    """Stream a wrapped attempt's `paper_freeze.url` and compare its SHA-256 with the pin.

    Returns `paper-freeze-unavailable` when the file cannot be read (or is over
    `limits.max_paper_freeze_bytes`), `paper-freeze-mismatch` when it has another hash, or
    nothing. Never raises for network or HTTP problems.
    """
    return fetch_paper_freeze(
        url, sha256=sha256, file=file, line=line, limits=limits, session=session
    ).findings


def fetch_paper_freeze(
    url: str,
    *,
    sha256: str,
    file: str,
    line: int | None = None,
    limits: Limits = Limits(),
    session: requests.Session | None = None,
    copy: BinaryIO | None = None,
) -> Fetched:
    """`check_paper_freeze_url`, also saying what was served; with `copy`, the body is
    written there as it streams."""
    tally = _Tally(0, 0, copy)
    cap = limits.max_paper_freeze_bytes
    failure = _stream(url, "paper_freeze.url", tally, cap, limits, session)
    if failure is not None:
        return Fetched([Finding(Code.PAPER_FREEZE_UNAVAILABLE, failure, file, line)], None, None)
    if tally.count > cap:
        message = f"{url} serves more than the {cap}-byte limit for a paper's freeze"
        return Fetched(
            [Finding(Code.PAPER_FREEZE_UNAVAILABLE, message, file, line)], tally.count, None
        )
    served = tally.sha256.hexdigest()
    if served != sha256.lower():
        message = f"paper_freeze.url has sha256 {served}, paper_freeze.sha256 says {sha256}"
        return Fetched(
            [Finding(Code.PAPER_FREEZE_MISMATCH, message, file, line)], tally.count, served
        )
    return Fetched([], tally.count, served)


def refuse_url(url: str, label: str = "raw_log.url") -> str | None:
    """Why the bot will not request `url`, or None. Checked before any network access."""
    try:
        parts = urlsplit(url)
        parts.port  # noqa: B018 - raises ValueError for a malformed port
    except ValueError as exc:
        return f"{label} is not a valid URL ({exc}): {url}"
    if parts.scheme.lower() not in ("http", "https"):
        return f"{label} must be http(s), got scheme {parts.scheme!r}: {url}"
    if not parts.hostname:
        return f"{label} has no host: {url}"
    if parts.username is not None or parts.password is not None:
        return f"{label} must not carry credentials (user:password@): {url}"
    return None


class UnavailableError(Exception):
    """Why a URL could not be read (becomes a finding: `raw-log-unavailable`, say)."""


class RefusedAddressError(UnavailableError):
    """A hop's host is, or resolves to, an address that is not public: nothing was sent.
    Trying again cannot help (released data is not retried)."""


class HTTPStatusError(UnavailableError):
    """The server answered with a status other than 200 (a redirect is followed instead)."""

    def __init__(self, message: str, status: int) -> None:
        super().__init__(message)
        self.status = status


_Address = ipaddress.IPv4Address | ipaddress.IPv6Address
_NAT64 = ipaddress.IPv6Network("64:ff9b::/96")
# Checked in this order, so an address gets the most telling name (240.0.0.1 is "reserved",
# though Python also counts 240/4 as private).
_KINDS = (
    ("unspecified", "is_unspecified"),
    ("loopback", "is_loopback"),
    ("link-local", "is_link_local"),
    ("multicast", "is_multicast"),
    ("reserved", "is_reserved"),
    ("private", "is_private"),
    ("site-local", "is_site_local"),
)


def _kind(address: _Address) -> str | None:
    """What makes `address` not public ("loopback", ...), or None for a global address."""
    for name, attribute in _KINDS:
        if getattr(address, attribute, False):
            return name
    return None if address.is_global else "non-public"


def address_refusal(address: str, allowed: Collection[str] = ()) -> str | None:
    """Why the bot will not connect to the IP address `address`, or None when it may.

    Refused: loopback, private, link-local, multicast, reserved, unspecified and any other
    address that is not global, in IPv4 and IPv6, and IPv6 forms that carry an IPv4 address
    (IPv4-mapped `::ffff:a.b.c.d`, NAT64 `64:ff9b::/96`) when the IPv4 address is refused.
    `allowed` names exact addresses that are let through (tests' local servers).
    """
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return f"{address!r} is not an IP address"
    if any(ip == _allowed for _allowed in _parse_allowed(allowed)):
        return None
    if isinstance(ip, ipaddress.IPv6Address):
        # Judged by the IPv4 address they carry (Python calls both ranges "reserved").
        embedded, form = ip.ipv4_mapped, "IPv4-mapped"
        if embedded is None and ip in _NAT64:
            embedded, form = ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF), "NAT64"
        if embedded is not None:
            inner = _kind(embedded)
            return None if inner is None else f"{ip} is {_a(inner)} address ({form} {embedded})"
    kind = _kind(ip)
    return None if kind is None else f"{ip} is {_a(kind)} address"


def _a(kind: str) -> str:
    return f"an {kind}" if kind[0] in "aeiou" else f"a {kind}"


def _parse_allowed(allowed: Collection[str]) -> list[_Address]:
    return [ipaddress.ip_address(address) for address in allowed]


def _checked_addresses(url: str, host: str, port: int, allowed: Collection[str]) -> list[str]:
    """The addresses `host` stands for, resolved once; `RefusedAddressError` unless every
    one of them is public or allowed (a name that also answers a private address is refused:
    it could hand out either on the next lookup)."""
    try:
        literal = ipaddress.ip_address(host)
    except ValueError:
        literal = None
    if literal is not None:
        refusal = address_refusal(str(literal), allowed)
        if refusal is not None:
            raise RefusedAddressError(f"{refusal}, not a public one")
        return [str(literal)]
    try:
        answers = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    except (OSError, UnicodeError) as exc:
        raise UnavailableError(f"could not resolve {host} ({url}): {_detail(exc)}") from exc
    addresses = list(dict.fromkeys(str(answer[4][0]) for answer in answers))
    if not addresses:
        raise UnavailableError(f"could not resolve {host} ({url}): no address")
    for address in addresses:
        refusal = address_refusal(address.partition("%")[0], allowed)
        if refusal is not None:
            ip, _, rest = refusal.partition(" is ")
            raise RefusedAddressError(f"{host} resolves to {ip}, {rest}, not a public one")
    return addresses


class _Watchdog:
    """Cuts every connection of one download at its deadline.

    The read timeout bounds each wait for bytes, not the whole answer: a server that sends its
    header lines one byte at a time, each within the timeout, would hold `http.client` for as
    long as it likes, and no check of ours runs until the headers are in. (Python's ssl bounds
    a whole handshake by the socket's timeout.) So each connection's socket is registered here
    as it is opened (before TLS), and at the deadline a timer shuts them all down: the blocked
    read returns, the download fails, and `download` reports the deadline.
    """

    def __init__(self, deadline: float) -> None:
        self.fired = False
        self._sockets: list[socket.socket] = []
        self._lock = threading.Lock()
        self._timer = threading.Timer(max(0.0, deadline - time.monotonic()), self._fire)
        self._timer.daemon = True
        self._timer.start()

    def watch(self, sock: socket.socket) -> None:
        with self._lock:
            self._sockets.append(sock)
            fired = self.fired
        if fired:
            _cut(sock)

    def stop(self) -> None:
        self._timer.cancel()

    def _fire(self) -> None:
        with self._lock:
            self.fired = True
            sockets = list(self._sockets)
        for sock in sockets:
            _cut(sock)


def _cut(sock: socket.socket) -> None:
    # A closed socket has no descriptor any more (-1): shutting it down fails harmlessly and
    # never reaches a descriptor number reused by another connection.
    with contextlib.suppress(OSError):
        sock.shutdown(socket.SHUT_RDWR)


class _WatchedHTTPConnection(urllib3.connection.HTTPConnection):
    """urllib3's connection, its socket handed to a `_Watchdog` as soon as it exists."""

    def __init__(self, *args: Any, watchdog: _Watchdog, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.watchdog = watchdog

    def _new_conn(self) -> socket.socket:
        sock = super()._new_conn()
        self.watchdog.watch(sock)
        return sock


class _WatchedHTTPSConnection(_WatchedHTTPConnection, urllib3.connection.HTTPSConnection):
    """The same for https (the same methods, before urllib3's https ones in the MRO): the plain
    socket is watched before the TLS handshake starts."""


class _PinnedAdapter(requests.adapters.HTTPAdapter):
    """Sends a request to one checked address, whatever its URL's host resolves to now.

    Only urllib3's pool address is replaced (`build_connection_pool_key_attributes`, the hook
    requests provides for this): the URL keeps its host, so for https the SNI and the
    certificate check name the host (`server_hostname`, `assert_hostname`), and the caller
    sends the host as the Host header. The pool's connections report their sockets to the
    download's `_Watchdog` (each adapter has pools of its own, used for one request).
    """

    def __init__(self, address: str, watchdog: _Watchdog) -> None:
        super().__init__(max_retries=0)
        self.address = address
        self.watchdog = watchdog

    def build_connection_pool_key_attributes(
        self, request: requests.PreparedRequest, verify: Any, cert: Any = None
    ) -> Any:  # (host params, pool kwargs): requests' private TypedDicts, widened here
        host_params, pool_kwargs = super().build_connection_pool_key_attributes(
            request, verify, cert
        )
        params: dict[str, Any] = dict(host_params)
        kwargs: dict[str, Any] = dict(pool_kwargs)
        host = params["host"]
        params["host"] = self.address
        if params["scheme"] == "https":
            kwargs.update(server_hostname=host, assert_hostname=host)
        return params, kwargs

    def get_connection_with_tls_context(
        self,
        request: requests.PreparedRequest,
        verify: Any,
        proxies: Any = None,
        cert: Any = None,
    ) -> Any:  # urllib3's HTTPConnectionPool (typeshed's stub says ConnectionPool)
        pool = super().get_connection_with_tls_context(request, verify, proxies, cert)
        if not isinstance(pool, urllib3.connectionpool.HTTPConnectionPool):
            raise TypeError(f"unexpected connection pool {type(pool).__name__}")
        if isinstance(pool, urllib3.connectionpool.HTTPSConnectionPool):
            pool.ConnectionCls = _WatchedHTTPSConnection
        else:
            pool.ConnectionCls = _WatchedHTTPConnection
        pool.conn_kw = {**pool.conn_kw, "watchdog": self.watchdog}
        return pool


def _never_connected(exc: requests.ConnectionError) -> bool:
    """True when `exc` says the TCP connection itself failed (refused, unreachable, timed out),
    so another of the host's checked addresses may still answer."""
    if isinstance(exc, requests.ConnectTimeout):
        return True
    reason = getattr(exc.args[0], "reason", None) if exc.args else None
    return isinstance(reason, urllib3.exceptions.NewConnectionError)


class Sink(Protocol):
    """Where `download` puts the body: `add` each chunk; `count` bytes so far."""

    count: int

    def add(self, chunk: bytes) -> None: ...


def download(session: requests.Session, url: str, tally: Sink, size: int, limits: Limits) -> None:
    """Stream `url` into `tally`, stopping once more than `size` bytes have arrived.

    Raises `UnavailableError` when the body cannot be read, whatever the server answers (an
    HTTP error, a malformed or refused redirect, a broken answer, a cut connection, a time-out
    or the deadline); `HTTPStatusError` and `RefusedAddressError` are the kinds a caller may
    tell apart. Only the sink's own errors (`tally.add`) pass through as they are.
    """
    deadline = time.monotonic() + limits.fetch_deadline
    watchdog = _Watchdog(deadline)
    try:
        with (
            contextlib.ExitStack() as adapters,
            _open(session, url, limits, deadline, adapters, watchdog) as response,
        ):
            _read_body(response, url, tally, size, deadline, limits)
    except UnavailableError as exc:
        if watchdog.fired:
            raise _past_deadline(url, limits, tally.count) from exc
        raise
    finally:
        watchdog.stop()
    if watchdog.fired:  # the cut may end a body without a declared length as if it were whole
        raise _past_deadline(url, limits, tally.count)


@contextlib.contextmanager
def _answering(url: str, limits: Limits) -> Iterator[None]:
    """Turn whatever a server's answer makes the HTTP stack raise into `UnavailableError`.

    Wraps only the calls that talk to the server (never the sink), so every exception is the
    answer's doing: requests' and urllib3's own, and what escapes them from below (a
    `http.client` parse error, a socket error, a `ValueError` from parsing a URL or a header).
    """
    timeout = limits.fetch_timeout
    try:
        yield
    except UnavailableError:
        raise
    except (requests.Timeout, urllib3.exceptions.TimeoutError, TimeoutError) as exc:
        raise UnavailableError(f"timed out after {timeout:g} s reading {url}") from exc
    except requests.ConnectionError as exc:
        raise UnavailableError(f"could not connect to {url}: {_detail(exc)}") from exc
    except (
        requests.RequestException,
        urllib3.exceptions.HTTPError,
        http.client.HTTPException,
        OSError,
        ValueError,
    ) as exc:
        raise UnavailableError(f"could not read {url}: {_detail(exc)}") from exc


def _open(
    session: requests.Session,
    url: str,
    limits: Limits,
    deadline: float,
    adapters: contextlib.ExitStack,
    watchdog: _Watchdog,
) -> requests.Response:
    """GET `url`, following up to `MAX_REDIRECTS` redirects; return the 200 response, open.

    Redirects are followed here, not by requests: `Session.send` reads a redirect's whole body
    into memory (even with `allow_redirects=False`), and each target must pass `refuse_url`
    and the address check. The adapters used are closed by `adapters` when the body is read.
    """
    current = url
    for _ in range(MAX_REDIRECTS + 1):
        _check_deadline(url, deadline, limits, 0)
        try:
            with _answering(url, limits):
                response = _send(session, current, limits, deadline, adapters, watchdog)
        except RefusedAddressError as exc:
            hop = "" if current == url else f"it redirects to {current}, and "
            raise RefusedAddressError(f"refusing to fetch {url}: {hop}{exc}") from exc
        if not response.is_redirect:
            return _check_status(response, url, current)
        with _answering(url, limits):
            response.close()
        current = _redirect_target(url, current, response.headers["location"])
    raise UnavailableError(f"more than {MAX_REDIRECTS} redirects from {url}")


def _redirect_target(url: str, current: str, location: str) -> str:
    """Where a redirect from `current` leads; `UnavailableError` for a `Location` that is no
    URL (a broken IPv6 literal, say) or one the bot does not request (`refuse_url`)."""
    try:
        target = urljoin(current, location)
    except ValueError as exc:
        message = f"{url} redirects to a malformed URL ({_detail(exc)}): {_cut_text(location)}"
        raise UnavailableError(message) from exc
    refusal = refuse_url(target)
    if refusal is not None:
        raise UnavailableError(f"{url} redirects to a refused URL: {refusal}")
    return target


def _send(
    session: requests.Session,
    url: str,
    limits: Limits,
    deadline: float,
    adapters: contextlib.ExitStack,
    watchdog: _Watchdog,
) -> requests.Response:
    """One GET, no redirects, to a checked address of the URL's host (the first that accepts
    the connection). Headers and TLS settings come from the session; proxies never do."""
    prepared = session.prepare_request(
        requests.Request("GET", url, headers={"Accept-Encoding": "identity"})
    )
    target = urlsplit(prepared.url or url)
    host = target.hostname or ""
    port = target.port or (443 if target.scheme == "https" else 80)
    addresses = _checked_addresses(url, host, port, limits.fetch_allowed_addresses)
    prepared.headers["Host"] = target.netloc  # refuse_url allows no user:password@ in it
    settings = session.merge_environment_settings(prepared.url, {}, True, None, None)
    verify = settings["verify"]
    timeout = limits.fetch_timeout
    for index, address in enumerate(addresses):
        _check_deadline(url, deadline, limits, 0)  # each address may take a connect timeout
        adapter = _PinnedAdapter(address, watchdog)
        adapters.callback(adapter.close)
        try:
            return adapter.send(
                prepared,
                stream=True,
                timeout=(timeout, timeout),
                verify=True if verify is None else verify,
                cert=settings["cert"],
                proxies={},
            )
        except requests.ConnectionError as exc:
            if index + 1 == len(addresses) or not _never_connected(exc):
                raise
    raise AssertionError("unreachable: _checked_addresses returns at least one address")


def _check_status(response: requests.Response, url: str, current: str) -> requests.Response:
    if response.status_code == 200:
        return response
    response.close()
    via = "" if current == url else f" (redirected from {url})"
    status = response.status_code
    raise HTTPStatusError(f"HTTP {status} from {current}{via}", status)


def _read_body(
    response: requests.Response,
    url: str,
    tally: Sink,
    size: int,
    deadline: float,
    limits: Limits,
) -> None:
    """Read until the end, until more than `size` bytes arrived, or until the deadline."""
    while tally.count <= size:
        _check_deadline(url, deadline, limits, tally.count)
        # read1: return whatever has arrived (see the module docstring), decoded if the server
        # applied a Content-Encoding despite `identity` (at most CHUNK_BYTES decoded per call,
        # however much the encoded bytes expand: urllib3 >= 2.6 bounds the decoder).
        with _answering(url, limits):
            chunk = response.raw.read1(CHUNK_BYTES, decode_content=True)
        if not chunk:
            return
        tally.add(chunk)


def _check_deadline(url: str, deadline: float, limits: Limits, count: int) -> None:
    if time.monotonic() > deadline:
        raise _past_deadline(url, limits, count)


def _past_deadline(url: str, limits: Limits, count: int) -> UnavailableError:
    return UnavailableError(
        f"deadline of {limits.fetch_deadline:g} s exceeded reading {url} ({count} bytes read)"
    )


def _compare_whole(tally: _Tally, sha256: str, size: int) -> list[tuple[Code, str]]:
    if tally.count > size:
        # Reading stopped early, so there is no hash of the whole served file to report.
        message = f"raw_log.url serves more than {size} bytes, raw_log.bytes says {size}"
        return [(Code.RAW_LOG_HASH_MISMATCH, message)]
    found: list[tuple[Code, str]] = []
    if tally.count != size:
        message = f"raw_log.url serves {tally.count} bytes, raw_log.bytes says {size}"
        found.append((Code.RAW_LOG_HASH_MISMATCH, message))
    served = tally.sha256.hexdigest()
    if served != sha256.lower():
        message = f"raw_log.url has sha256 {served}, raw_log.sha256 says {sha256}"
        found.append((Code.RAW_LOG_HASH_MISMATCH, message))
    return found


def _compare_excerpts(
    tally: _Tally, head: bytes | None, tail: bytes | None, size: int
) -> list[tuple[Code, str]]:
    found: list[tuple[Code, str]] = []
    if head is not None and tally.head != head:
        message = f"raw-log/head differs from the first {len(head)} bytes of raw_log.url"
        found.append((Code.RAW_LOG_EXCERPT, message))
    # After an early stop the served file's last bytes are unknown; the size finding covers it.
    if tail is not None and tally.count <= size and tally.tail != tail:
        message = f"raw-log/tail differs from the last {len(tail)} bytes of raw_log.url"
        found.append((Code.RAW_LOG_EXCERPT, message))
    return found


def _detail(exc: Exception) -> str:
    return _cut_text(str(exc) or type(exc).__name__)


def _cut_text(text: str) -> str:
    return text if len(text) <= _MAX_DETAIL_CHARS else text[: _MAX_DETAIL_CHARS - 1] + "…"

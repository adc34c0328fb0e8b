"""`bot/edges/fetch.py` against a real HTTP server on loopback (pytest-httpserver); no internet.

The bot fetches only from public addresses; these tests reach their local server through the
one allow-list the fetch code has, `Limits.fetch_allowed_addresses` (LOCAL below).
"""

from __future__ import annotations

import hashlib
import socket
import ssl
import threading
import tracemalloc
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import requests
from pytest_httpserver import HTTPServer
from werkzeug import Request, Response

from bot.edges.fetch import MAX_REDIRECTS, check_paper_freeze_url, check_raw_log_url
from bot.vocab.config import Limits
from bot.vocab.findings import Code, Finding

FILE = "attempts/market-01/alice/run-1/attempt.yaml"
LINE = 7
LOG = bytes(i * 7 % 251 for i in range(3000))
# The test server's loopback addresses (localhost may resolve to either): allowed by name only.
LOCAL = Limits(fetch_allowed_addresses=frozenset({"127.0.0.1", "::1"}))
# How long a stalled test server waits before giving up by itself (tests release it sooner).
STALL_SECONDS = 2.0


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def check(
    url: str,
    *,
    sha256: str = sha(LOG),
    size: int = len(LOG),
    head: bytes | None = None,
    tail: bytes | None = None,
    limits: Limits = LOCAL,
    session: requests.Session | None = None,
) -> list[Finding]:
    return check_raw_log_url(
        url,
        sha256=sha256,
        size=size,
        head=head,
        tail=tail,
        file=FILE,
        line=LINE,
        limits=limits,
        session=session,
    )


def serve(httpserver: HTTPServer, data: bytes = LOG, path: str = "/log") -> str:
    httpserver.expect_request(path).respond_with_data(data)
    return httpserver.url_for(path)


@pytest.fixture
def release() -> Iterator[threading.Event]:
    """Set at teardown so a stalled handler frees the single-threaded test server at once."""
    event = threading.Event()
    yield event
    event.set()


def only(findings: list[Finding], code: Code) -> Finding:
    assert [f.code for f in findings] == [code], findings
    assert (findings[0].file, findings[0].line) == (FILE, LINE)
    return findings[0]


# --- the served file matches -------------------------------------------------------------


def test_whole_file_matches(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/log", headers={"Accept-Encoding": "identity"}).respond_with_data(
        LOG
    )
    assert check(httpserver.url_for("/log")) == []
    httpserver.check_assertions()
    (request, _), *_ = httpserver.log
    assert "Authorization" not in request.headers


def test_head_and_tail_match(httpserver: HTTPServer) -> None:
    url = serve(httpserver)
    assert check(url, head=LOG[:1000], tail=LOG[-1000:]) == []
    httpserver.check_assertions()


def test_redirect_is_followed(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/old").respond_with_data(
        "", status=302, headers={"Location": "/log"}
    )
    serve(httpserver)
    assert check(httpserver.url_for("/old")) == []
    httpserver.check_assertions()


# --- size, hash and excerpts -------------------------------------------------------------


def test_wrong_hash(httpserver: HTTPServer) -> None:
    claimed = sha(b"another log")
    finding = only(check(serve(httpserver), sha256=claimed), Code.RAW_LOG_HASH_MISMATCH)
    assert sha(LOG) in finding.message
    assert claimed in finding.message


def test_shorter_file_reports_size_and_hash(httpserver: HTTPServer) -> None:
    findings = check(serve(httpserver, LOG[:2000]))
    assert [f.code for f in findings] == [Code.RAW_LOG_HASH_MISMATCH] * 2
    assert findings[0].message == "raw_log.url serves 2000 bytes, raw_log.bytes says 3000"
    assert sha(LOG[:2000]) in findings[1].message


def test_longer_file_stops_early(httpserver: HTTPServer, release: threading.Event) -> None:
    """5 MB served for 1000 claimed bytes: the server stalls after its first 64 KiB, so only a
    client that stops early reports the size (a reader that went on would time out)."""
    block = b"x" * 65536

    def body() -> Iterator[bytes]:
        yield block
        release.wait(STALL_SECONDS)
        for _ in range(79):
            yield block

    headers = {"Content-Length": str(80 * len(block))}
    httpserver.expect_request("/big").respond_with_handler(
        lambda _: Response(body(), headers=headers)
    )
    limits = replace(LOCAL, fetch_timeout=1.0)
    findings = check(httpserver.url_for("/big"), size=1000, head=LOG[:1000], limits=limits)
    assert [f.code for f in findings] == [Code.RAW_LOG_HASH_MISMATCH, Code.RAW_LOG_EXCERPT]
    assert findings[0].message == "raw_log.url serves more than 1000 bytes, raw_log.bytes says 1000"


def test_wrong_head(httpserver: HTTPServer) -> None:
    findings = check(serve(httpserver), head=b"h" * 1000, tail=LOG[-1000:])
    finding = only(findings, Code.RAW_LOG_EXCERPT)
    assert finding.message == "raw-log/head differs from the first 1000 bytes of raw_log.url"


def test_wrong_tail(httpserver: HTTPServer) -> None:
    findings = check(serve(httpserver), head=LOG[:1000], tail=LOG[-1001:-1])
    finding = only(findings, Code.RAW_LOG_EXCERPT)
    assert finding.message == "raw-log/tail differs from the last 1000 bytes of raw_log.url"


# --- the log cannot be read --------------------------------------------------------------


@pytest.mark.parametrize("status", [500, 404])
def test_http_error(httpserver: HTTPServer, status: int) -> None:
    httpserver.expect_request("/log").respond_with_data("nope", status=status)
    url = httpserver.url_for("/log")
    finding = only(check(url), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message == f"HTTP {status} from {url}"
    httpserver.check_assertions()


def test_slow_server_times_out(httpserver: HTTPServer, release: threading.Event) -> None:
    def stall(_: Request) -> Response:
        release.wait(STALL_SECONDS)
        return Response(LOG)

    httpserver.expect_request("/log").respond_with_handler(stall)
    url = httpserver.url_for("/log")
    finding = only(check(url, limits=replace(LOCAL, fetch_timeout=0.5)), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message == f"timed out after 0.5 s reading {url}"


@pytest.mark.parametrize("content_length", [True, False])
def test_deadline_stops_a_trickling_server(
    httpserver: HTTPServer, release: threading.Event, content_length: bool
) -> None:
    """Bytes arrive every 0.1 s, well within the read timeout; only the deadline stops it."""
    chunks = 100

    def trickle() -> Iterator[bytes]:
        for _ in range(chunks):
            if release.wait(0.1):
                return
            yield b"t" * 10

    headers = {"Content-Length": str(10 * chunks)} if content_length else {}
    httpserver.expect_request("/log").respond_with_handler(
        lambda _: Response(trickle(), headers=headers)
    )
    url = httpserver.url_for("/log")
    limits = replace(LOCAL, fetch_timeout=1.0, fetch_deadline=0.5)
    finding = only(check(url, size=10 * chunks, limits=limits), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message.startswith(f"deadline of 0.5 s exceeded reading {url} (")


def test_too_many_redirects(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/loop").respond_with_data(
        "", status=302, headers={"Location": "/loop"}
    )
    url = httpserver.url_for("/loop")
    finding = only(check(url), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message == f"more than {MAX_REDIRECTS} redirects from {url}"
    assert len(httpserver.log) == MAX_REDIRECTS + 1


def test_redirect_to_a_file_url_is_refused(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/log").respond_with_data(
        "", status=302, headers={"Location": "file:///etc/passwd"}
    )
    finding = only(check(httpserver.url_for("/log")), Code.RAW_LOG_UNAVAILABLE)
    assert "file:///etc/passwd" in finding.message
    assert len(httpserver.log) == 1


def test_connection_refused() -> None:
    with socket.socket() as probe:  # a port nothing listens on
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    url = f"http://127.0.0.1:{port}/log"
    finding = only(check(url), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message.startswith(f"could not connect to {url}: ")


@pytest.fixture
def no_network(monkeypatch: pytest.MonkeyPatch) -> None:
    """Any name lookup or connection fails the test (the bot must refuse before either)."""

    def fail(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"the bot tried to reach the network: {args}")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    monkeypatch.setattr(socket, "create_connection", fail)


class NoNetworkSession(requests.Session):
    def get_adapter(self, url: str) -> requests.adapters.BaseAdapter:
        raise AssertionError(f"the bot tried to fetch {url}")


@pytest.mark.parametrize(
    "url",
    [
        "file:///etc/passwd",
        "ftp://example.org/log.txt",
        "https://user:secret@example.org/log.txt",
        "https:///log.txt",
        "http://example.org:99999/log.txt",
        "/etc/passwd",
    ],
)
def test_refused_url_is_never_requested(url: str, no_network: None) -> None:
    with NoNetworkSession() as session:
        finding = only(check(url, session=session), Code.RAW_LOG_UNAVAILABLE)
    assert url in finding.message


# --- bounded memory ----------------------------------------------------------------------


@pytest.mark.parametrize("excerpt_bytes", [None, 1_000_000])
def test_memory_stays_bounded(httpserver: HTTPServer, excerpt_bytes: int | None) -> None:
    """20 MB streamed, hashed and matched in a few MB: about 0.2 MB for a whole-file check, about
    head + 2 x tail (the rolling buffer while it grows) with 1 MB excerpts, measured 3.6 MB. The
    server sends one reused 64 KiB block, so its side allocates nothing large either."""
    block = bytes(range(256)) * 256
    repeats = 320
    total = hashlib.sha256()
    for _ in range(repeats):
        total.update(block)
    whole = block * (excerpt_bytes // len(block) + 1) if excerpt_bytes else b""
    head = whole[:excerpt_bytes] if excerpt_bytes else None
    tail = whole[-excerpt_bytes:] if excerpt_bytes else None
    # No Content-Length, so each body ends when the server closes. With one, the client closes
    # first, and werkzeug's server thread (traced too) drains the socket with a 10 MB read.
    httpserver.expect_request("/big").respond_with_handler(
        lambda _: Response(block for _ in range(repeats))
    )
    httpserver.expect_request("/warm-up").respond_with_handler(lambda _: Response(iter([LOG])))
    # Lazy imports on the first request are not the download's memory.
    assert check(httpserver.url_for("/warm-up")) == []
    tracemalloc.start()
    try:
        findings = check(
            httpserver.url_for("/big"),
            sha256=total.hexdigest(),
            size=repeats * len(block),
            head=head,
            tail=tail,
        )
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert findings == []
    assert peak < 4_000_000 + (excerpt_bytes or 0), peak
    httpserver.check_assertions()


# --- a wrapped attempt's paper's freeze -----------------------------------------------------

FREEZE_FILE = "attempts/market-03/alice/wrap/freeze.yaml"
PAPER = b"%PDF-1.7 the preregistration, frozen\n" * 10


def check_paper(url: str, sha256: str = sha(PAPER), limits: Limits = LOCAL) -> list[Finding]:
    return check_paper_freeze_url(url, sha256=sha256, file=FREEZE_FILE, line=3, limits=limits)


def test_papers_freeze_matches(httpserver: HTTPServer) -> None:
    assert check_paper(serve(httpserver, PAPER, "/paper")) == []
    assert check_paper(serve(httpserver, PAPER, "/paper"), sha(PAPER).upper()) == []


def test_papers_freeze_with_other_bytes(httpserver: HTTPServer) -> None:
    (finding,) = check_paper(serve(httpserver, PAPER + b"x", "/paper"))
    assert (finding.code, finding.file, finding.line) == (
        Code.PAPER_FREEZE_MISMATCH,
        FREEZE_FILE,
        3,
    )
    assert finding.message == (
        f"paper_freeze.url has sha256 {sha(PAPER + b'x')}, paper_freeze.sha256 says {sha(PAPER)}"
    )


def test_papers_freeze_unreachable_or_refused(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/gone").respond_with_data("no", status=404)
    (finding,) = check_paper(httpserver.url_for("/gone"))
    assert finding.code is Code.PAPER_FREEZE_UNAVAILABLE and "HTTP 404" in finding.message
    (finding,) = check_paper("file:///etc/passwd")
    assert finding.code is Code.PAPER_FREEZE_UNAVAILABLE
    assert finding.message.startswith("paper_freeze.url must be http(s)")


def test_papers_freeze_over_the_cap_is_not_read_to_the_end(httpserver: HTTPServer) -> None:
    url = serve(httpserver, PAPER * 100, "/big")
    (finding,) = check_paper(
        url, sha(PAPER * 100), replace(LOCAL, max_paper_freeze_bytes=len(PAPER))
    )
    assert finding.code is Code.PAPER_FREEZE_UNAVAILABLE
    assert f"serves more than the {len(PAPER)}-byte limit" in finding.message


# --- only public addresses (SSRF) --------------------------------------------------------
# raw_log.url: http://127.0.0.1:.../secret was fetched and its size and sha256 printed into the
# pull request's comment. Every hop's host is resolved once, every address checked, and the
# connection made to the address that was checked.

PUBLIC = "93.184.215.14"


def resolving(monkeypatch: pytest.MonkeyPatch, names: dict[str, list[str]]) -> list[str]:
    """Make `socket.getaddrinfo` resolve `names` as given (each call takes the next answer
    list when a name maps to several); others as usual. Returns the names looked up."""
    original = socket.getaddrinfo
    looked_up: list[str] = []

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if host in names:
            looked_up.append(host)
            answers = []
            for address in names[host]:
                family = socket.AF_INET6 if ":" in address else socket.AF_INET
                where = (address, port or 0, 0, 0) if ":" in address else (address, port or 0)
                answers.append((family, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", where))
            return answers
        return original(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return looked_up


def test_loopback_is_refused_without_the_allow_list(httpserver: HTTPServer) -> None:
    httpserver.expect_request("/secret").respond_with_data(b"the secret")
    url = httpserver.url_for("/secret").replace("localhost", "127.0.0.1")
    finding = only(check(url, limits=Limits()), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message == (
        f"refusing to fetch {url}: 127.0.0.1 is a loopback address, not a public one"
    )
    assert httpserver.log == []  # no request reached the server


def test_localhost_by_name_is_refused(httpserver: HTTPServer) -> None:
    url = httpserver.url_for("/secret")
    assert "//localhost:" in url
    finding = only(check(url, limits=Limits()), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message.startswith(f"refusing to fetch {url}: localhost resolves to ")
    assert finding.message.endswith(", a loopback address, not a public one")
    assert httpserver.log == []


@pytest.fixture
def other_server() -> Iterator[HTTPServer]:
    """A second local server on 127.0.0.2, an address the tests' allow-list does not name."""
    server = HTTPServer(host="127.0.0.2", port=0)
    server.start()
    yield server
    server.clear()
    if server.is_running():
        server.stop()


def test_redirect_to_an_address_not_allowed_is_refused(
    httpserver: HTTPServer, other_server: HTTPServer
) -> None:
    other_server.expect_request("/secret").respond_with_data(b"the secret")
    target = other_server.url_for("/secret")
    httpserver.expect_request("/log").respond_with_data(
        "", status=302, headers={"Location": target}
    )
    url = httpserver.url_for("/log")
    finding = only(check(url), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message == (
        f"refusing to fetch {url}: it redirects to {target},"
        " and 127.0.0.2 is a loopback address, not a public one"
    )
    assert len(httpserver.log) == 1
    assert other_server.log == []


@pytest.mark.parametrize(
    ("location", "reason"),
    [
        ("http://169.254.169.254/latest/meta-data/", "169.254.169.254 is a link-local address"),
        ("http://10.0.0.7/secret", "10.0.0.7 is a private address"),
        ("http://[::1]/secret", "::1 is a loopback address"),
        ("http://metadata.internal/secret", "metadata.internal resolves to 10.0.0.8, a private"),
    ],
)
def test_redirect_to_a_private_address_is_refused(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch, location: str, reason: str
) -> None:
    resolving(monkeypatch, {"metadata.internal": ["10.0.0.8"]})
    httpserver.expect_request("/log").respond_with_data(
        "", status=302, headers={"Location": location}
    )
    url = httpserver.url_for("/log")
    allowed = replace(LOCAL, fetch_allowed_addresses=frozenset({"127.0.0.1"}))
    finding = only(check(url, limits=allowed), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message.startswith(f"refusing to fetch {url}: it redirects to {location}, and ")
    assert reason in finding.message
    assert len(httpserver.log) == 1


@pytest.mark.parametrize(
    ("answers", "reason"),
    [
        (["10.1.2.3"], "logs.example.org resolves to 10.1.2.3, a private address"),
        ([PUBLIC, "192.168.1.9"], "logs.example.org resolves to 192.168.1.9, a private address"),
        (["fd00::5"], "logs.example.org resolves to fd00::5, a private address"),
        (["::ffff:10.1.2.3"], "a private address (IPv4-mapped 10.1.2.3)"),
    ],
)
def test_hostname_resolving_to_a_private_address_is_refused(
    monkeypatch: pytest.MonkeyPatch, answers: list[str], reason: str
) -> None:
    resolving(monkeypatch, {"logs.example.org": answers})

    def connect(*args: Any, **kwargs: Any) -> Any:
        raise AssertionError(f"connected to {args}")

    monkeypatch.setattr(socket, "create_connection", connect)
    url = "http://logs.example.org/log"
    finding = only(check(url), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message.startswith(f"refusing to fetch {url}: ")
    assert reason in finding.message
    assert finding.message.endswith("not a public one")


@pytest.mark.parametrize(
    ("url", "reason"),
    [
        ("http://[::1]:8080/log", "::1 is a loopback address"),
        ("http://[::ffff:127.0.0.1]:8080/log", "::ffff:7f00:1 is a loopback address (IPv4-mapped"),
        ("http://[::ffff:7f00:1]/log", "::ffff:7f00:1 is a loopback address (IPv4-mapped"),
        ("http://[::]/log", ":: is an unspecified address"),
        ("http://0.0.0.0:8080/log", "0.0.0.0 is an unspecified address"),
        ("http://[fe80::1]/log", "fe80::1 is a link-local address"),
        ("http://224.0.0.1/log", "224.0.0.1 is a multicast address"),
        ("http://[ff02::1]/log", "ff02::1 is a multicast address"),
        ("http://240.0.0.1/log", "240.0.0.1 is a reserved address"),
        ("http://100.64.0.1/log", "100.64.0.1 is a non-public address"),
        ("http://[64:ff9b::a00:1]/log", "64:ff9b::a00:1 is a private address (NAT64"),
    ],
)
def test_addresses_that_are_not_public_are_refused(url: str, reason: str, no_network: None) -> None:
    finding = only(check(url, limits=Limits()), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message.startswith(f"refusing to fetch {url}: {reason}")


def test_the_name_is_resolved_once_and_the_checked_address_is_used(
    httpserver: HTTPServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """DNS rebinding: the name answers the allowed address, then a private one. The bot looks
    it up once and connects to the address it checked, sending the name as Host."""
    httpserver.expect_request("/log").respond_with_data(LOG)
    port = httpserver.port
    real = socket.getaddrinfo
    answers = iter([["127.0.0.1"], ["10.0.0.9"]])
    looked_up: list[str] = []

    def rebinding(host: Any, *args: Any, **kwargs: Any) -> Any:
        if host != "logs.example.org":
            return real(host, *args, **kwargs)
        looked_up.append(host)
        (address,) = next(answers)
        return [(socket.AF_INET, socket.SOCK_STREAM, socket.IPPROTO_TCP, "", (address, port))]

    monkeypatch.setattr(socket, "getaddrinfo", rebinding)
    url = f"http://logs.example.org:{port}/log"
    allowed = replace(LOCAL, fetch_allowed_addresses=frozenset({"127.0.0.1"}))
    assert check(url, limits=allowed) == []
    assert looked_up == ["logs.example.org"]
    ((request, _),) = httpserver.log
    assert request.headers["Host"] == f"logs.example.org:{port}"


def test_a_numeric_host_in_another_notation_is_resolved_and_checked() -> None:
    # getaddrinfo reads "2130706433" (and 0x7f.1, 0177.0.0.1) as 127.0.0.1.
    url = "http://2130706433:8080/log"
    finding = only(check(url, limits=Limits()), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message == (
        f"refusing to fetch {url}: 2130706433 resolves to 127.0.0.1, a loopback address,"
        " not a public one"
    )


@pytest.mark.parametrize(
    ("address", "allowed", "reason"),
    [
        (PUBLIC, (), None),
        ("2606:2800:21f:cb07:6820:80da:af6b:8b2c", (), None),
        ("127.0.0.1", ("127.0.0.1",), None),
        ("127.0.0.1", (), "loopback"),
        ("127.0.0.2", ("127.0.0.1",), "loopback"),
        ("::ffff:127.0.0.1", ("127.0.0.1",), "loopback"),  # the allow-list is exact
        ("10.0.0.1", (), "private"),
        ("172.16.0.1", (), "private"),
        ("192.168.0.1", (), "private"),
        ("fc00::1", (), "private"),
        ("169.254.169.254", (), "link-local"),
        ("255.255.255.255", (), "reserved"),
        ("192.0.2.1", (), "private"),  # documentation range
        ("100.64.0.1", (), "non-public"),  # shared address space (carrier-grade NAT)
    ],
)
def test_address_refusal(address: str, allowed: tuple[str, ...], reason: str | None) -> None:
    from bot.edges.fetch import address_refusal

    refusal = address_refusal(address, frozenset(allowed))
    if reason is None:
        assert refusal is None
    else:
        assert refusal is not None and f" {reason} address" in refusal


# --- https to a checked address: SNI and the certificate still name the host ----------------


@pytest.fixture
def tls(tmp_path: Path) -> Iterator[tuple[Any, Path]]:
    import trustme  # a test dependency (pyproject [test])

    ca = trustme.CA()
    bundle = tmp_path / "ca.pem"
    ca.cert_pem.write_to_path(str(bundle))
    yield ca, bundle


def _tls_server(ca: Any, name: str) -> HTTPServer:
    context = ssl.SSLContext(ssl.PROTOCOL_TLS_SERVER)
    ca.issue_cert(name).configure_cert(context)
    server = HTTPServer(host="127.0.0.1", port=0, ssl_context=context)
    server.expect_request("/log").respond_with_data(LOG)
    server.start()
    return server


@pytest.mark.parametrize(("certified", "works"), [("logs.example.org", True), ("other.org", False)])
def test_https_to_the_checked_address_verifies_the_certificate_for_the_host(
    tls: tuple[Any, Path], monkeypatch: pytest.MonkeyPatch, certified: str, works: bool
) -> None:
    ca, bundle = tls
    server = _tls_server(ca, certified)
    try:
        resolving(monkeypatch, {"logs.example.org": ["127.0.0.1"]})
        url = f"https://logs.example.org:{server.port}/log"
        with requests.Session() as session:
            session.trust_env = False  # as the bot's own (REQUESTS_CA_BUNDLE would win)
            session.verify = str(bundle)
            findings = check(url, session=session)
        if works:
            assert findings == []
            ((request, _),) = server.log
            assert request.headers["Host"] == f"logs.example.org:{server.port}"
        else:
            finding = only(findings, Code.RAW_LOG_UNAVAILABLE)
            assert "certificate" in finding.message or "hostname" in finding.message
    finally:
        server.clear()
        server.stop()


def test_a_name_that_does_not_resolve(monkeypatch: pytest.MonkeyPatch) -> None:
    def fail(*args: Any, **kwargs: Any) -> Any:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known")

    monkeypatch.setattr(socket, "getaddrinfo", fail)
    url = "http://no-such-host.example.org/log"
    finding = only(check(url), Code.RAW_LOG_UNAVAILABLE)
    assert finding.message.startswith(f"could not resolve no-such-host.example.org ({url}): ")

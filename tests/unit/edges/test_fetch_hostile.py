"""`bot/edges/fetch.py` and `bot/edges/released.py` against a hostile server
(tests/hostile_server.py).

A filer chooses the URL, so a filer's server chooses every byte of the answer: the status
line, the headers (a `Location` no URL parser accepts, a lying `Content-Length`, an unknown
`Content-Encoding`, invalid chunking), the body (a gzip bomb), how the connection ends (a
reset, a half-close, silence) and how fast bytes come. Whatever it sends, the fetch returns a
finding about that URL or the verified body: it never raises, and it stays within its time
(`fetch_deadline`) and size (`size` bytes, one chunk over at most) bounds.

Names other than `localhost` are never looked up (no network in tests): `_no_dns` answers
them "not found" as a resolver would, and IP literals go through unchanged.
"""

from __future__ import annotations

import gzip
import socket
import time
import tracemalloc
import zlib
from collections.abc import Iterator
from dataclasses import replace
from typing import Any

import pytest
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from bot.edges.fetch import (
    CHUNK_BYTES,
    UnavailableError,
    build_session,
    check_raw_log_url,
    download,
)
from bot.edges.released import fetch_released
from bot.vocab.config import Limits
from bot.vocab.findings import Code, Finding
from tests.hostile_server import Answer, hostile_server

FILE = "attempts/market-01/alice/run-1/attempt.yaml"
LINE = 7
LOG = bytes(i * 7 % 251 for i in range(3000))
TIMEOUT = 0.4
DEADLINE = 1.5
LIMITS = Limits(
    fetch_allowed_addresses=frozenset({"127.0.0.1"}), fetch_timeout=TIMEOUT, fetch_deadline=DEADLINE
)
# Connecting to a local port cannot take a whole timeout, so a fetch ends by its deadline plus
# one wait for bytes (the last read) and scheduling slack (2 s: the machine may be busy).
TIME_BOUND = DEADLINE + TIMEOUT + 2.0
RAW_LOG_CODES = {Code.RAW_LOG_UNAVAILABLE, Code.RAW_LOG_HASH_MISMATCH, Code.RAW_LOG_EXCERPT}

_real_getaddrinfo = socket.getaddrinfo


def _fake_getaddrinfo(host: Any, *args: Any, **kwargs: Any) -> Any:
    name = host.decode() if isinstance(host, bytes) else str(host)
    if name == "localhost":
        return _real_getaddrinfo("127.0.0.1", *args, **kwargs)
    try:
        return _real_getaddrinfo(host, *args, **{**kwargs, "flags": socket.AI_NUMERICHOST})
    except socket.gaierror:
        raise socket.gaierror(socket.EAI_NONAME, "Name or service not known") from None


@pytest.fixture(scope="module", autouse=True)
def _no_dns() -> Iterator[None]:
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(socket, "getaddrinfo", _fake_getaddrinfo)
        yield


def _chunked(data: bytes, size: int = 1000) -> bytes:
    pieces = [data[i : i + size] for i in range(0, len(data), size)]
    return b"".join(b"%x\r\n%s\r\n" % (len(piece), piece) for piece in pieces) + b"0\r\n\r\n"


def _bomb() -> bytes:
    """gzip inside gzip: a few kilobytes that decode to 1 GiB of zeros."""
    inner = zlib.compressobj(9, zlib.DEFLATED, 31)
    zeros = bytes(1 << 20)
    layer = b"".join(inner.compress(zeros) for _ in range(1024)) + inner.flush()
    return gzip.compress(layer, 9)


BOMB = _bomb()

# The bodies that carry LOG, whole (with the framing or encoding their headers announce).
HONEST_BODIES = (LOG, gzip.compress(LOG), zlib.compress(LOG), _chunked(LOG))

LOCATIONS = (
    b"http://[::1/x",  # the issue's: a broken IPv6 literal
    b"http://[::1]x/",
    b"http://[127.0.0.1]/",
    b"http://[v1.x]/",
    b"http://{self}/log",  # a chain (or a loop) back to this server
    b"//{self}/next",
    b"/relative",
    b"",
    b"?q",
    b"http://a:99999999/",
    b"http://a:-1/",
    b"http://a:x/",
    b"http://{self}:80/",
    b"http://\xff\xfe/",
    b"http://\xef\xbc\x8e/",  # NFKC-unsafe netloc once decoded as Latin-1
    b"http://a\tb/",
    b"http://%zz/",
    b"http://xn--/",
    b"http://" + b"a" * 300 + b"/",
    b"http://a." + b"b" * 70 + b".c/",
    b"http://localhost:1/",
    b"http://127.0.0.2:1/",
    b"http://10.0.0.1/",
    b"http://169.254.169.254/latest/meta-data/",
    b"http://[::ffff:169.254.169.254]/",
    b"http://[fe80::1%25eth0]/",
    b"http://0x7f.1/",
    b"http://user:pw@{self}/log",
    b"https://{self}/log",  # TLS to a plain-text port
    b"file:///etc/passwd",
    b"ftp://{self}/log",
    b"javascript:alert(1)",
    b"data:text/plain,hi",
    b"http:",
    b"http://",
    b"http:///x",
    b"\\\\{self}\\log",
    b"http://{self}/\x00",
)
STATUS_LINES = (
    b"HTTP/1.1 200 OK",
    b"HTTP/1.0 200 OK",
    b"HTTP/1.1 200",
    b"HTTP/1.1 301 Moved Permanently",
    b"HTTP/1.1 302 Found",
    b"HTTP/1.1 303 See Other",
    b"HTTP/1.1 307 Temporary Redirect",
    b"HTTP/1.1 308 Permanent Redirect",
    b"HTTP/1.1 100 Continue",
    b"HTTP/1.1 204 No Content",
    b"HTTP/1.1 304 Not Modified",
    b"HTTP/1.1 404 Not Found",
    b"HTTP/1.1 500 Internal Server Error",
    b"HTTP/1.1 999 Whatever",
    b"HTTP/1.1 000 Zero",
    b"HTTP/1.1 -1 Minus",
    b"HTTP/1.1 2000 OK",
    b"HTTP/2 200",
    b"ICY 200 OK",
    b"HTTP/1.1 abc",
    b"garbage",
    b"",
    b"\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03",  # a TLS ClientHello where HTTP was due
)
LENGTHS = (
    b"0",
    b"5",
    b"3000",
    b"2999",
    b"3001",
    b"-1",
    b"abc",
    b"99999999999999999999999",
    b"5, 6",
    b"3000, 3000",
    b" 3000 ",
    b"0x10",
    b"",
)
ENCODINGS = (
    b"gzip",
    b"deflate",
    b"br",
    b"zstd",
    b"gzip, gzip",
    b"gzip, deflate, gzip",
    b"identity",
    b"x-unknown",
    b"GZIP",
    b"",
)
TRANSFERS = (b"chunked", b"gzip, chunked", b"chunked, chunked", b"identity", b"x", b"")

headers = st.lists(
    st.one_of(
        st.tuples(st.just(b"Location"), st.sampled_from(LOCATIONS)),
        st.tuples(st.just(b"Content-Length"), st.sampled_from(LENGTHS)),
        st.tuples(st.just(b"Content-Encoding"), st.sampled_from(ENCODINGS)),
        st.tuples(st.just(b"Transfer-Encoding"), st.sampled_from(TRANSFERS)),
        st.tuples(st.just(b"Connection"), st.sampled_from((b"close", b"keep-alive", b"upgrade"))),
        st.tuples(st.binary(max_size=12), st.binary(max_size=40)),  # any bytes, any "name"
    ),
    max_size=6,
)
bodies = st.one_of(
    st.sampled_from((*HONEST_BODIES, b"", LOG[:1000], LOG + b"x", BOMB, b"zz\r\nhi\r\n")),
    st.binary(max_size=200),
    st.builds(_chunked, st.binary(max_size=3000), st.integers(1, 4000)),
)


STATUSES = (200, 200, 301, 302, 303, 307, 308, 100, 204, 304, 404, 500, 999)
REASONS = {200: "OK", 404: "Not Found", 500: "Server Error"}


@st.composite
def http_answers(draw: st.DrawFn) -> Answer:
    """A well-formed answer whose headers and body say what they please."""
    status = draw(st.sampled_from(STATUSES))
    body = draw(bodies)
    chosen: list[tuple[bytes, bytes]] = []
    if 300 <= status < 400 and draw(st.booleans() | st.just(True)):
        chosen.append((b"Location", draw(st.sampled_from(LOCATIONS))))
    if draw(st.booleans()):
        length = str(len(body)).encode()
        chosen.append((b"Content-Length", draw(st.sampled_from((length, *LENGTHS)))))
    chosen += draw(headers)
    lines = [f"HTTP/1.1 {status} {REASONS.get(status, 'X')}".encode()]
    lines += [name + b": " + value for name, value in chosen]
    head = b"\r\n".join(lines) + b"\r\n\r\n"
    return _ending(draw, head, body)


@st.composite
def raw_answers(draw: st.DrawFn) -> Answer:
    """Any status line, any line ends, any bytes."""
    status = draw(st.one_of(st.sampled_from(STATUS_LINES), st.binary(max_size=30)))
    lines = [status, *(name + b": " + value for name, value in draw(headers))]
    head = b"\r\n".join(lines) + draw(st.sampled_from((b"\r\n\r\n", b"\n\n", b"\r\n", b"")))
    return _ending(draw, head, draw(bodies))


def _ending(draw: st.DrawFn, head: bytes, body: bytes) -> Answer:
    """How much is sent, how fast, and how the connection ends."""
    cut = draw(st.none() | st.none() | st.integers(0, len(head) + len(body)))
    end = draw(st.sampled_from(("close", "close", "close", "reset", "half-close", "hold")))
    delay = draw(st.sampled_from((0.0, 0.0, 0.0, 0.05, TIMEOUT + 0.1)))
    drip = draw(st.sampled_from((0.0,) * 12 + (0.01,)))
    return Answer(head, body, cut, delay, drip, end)


answer_lists = st.lists(
    st.one_of(http_answers(), http_answers(), raw_answers()), min_size=1, max_size=3
)
# The answer, always among the examples.
BROKEN_IPV6 = Answer(b"HTTP/1.1 302 Found\r\nLocation: http://[::1/x\r\nContent-Length: 0\r\n\r\n")
HOSTILE = settings(
    max_examples=120,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)


def check(url: str, head: bytes | None = None, tail: bytes | None = None) -> list[Finding]:
    return check_raw_log_url(
        url,
        sha256=_sha(LOG),
        size=len(LOG),
        head=head,
        tail=tail,
        file=FILE,
        line=LINE,
        limits=LIMITS,
    )


def _sha(data: bytes) -> str:
    import hashlib

    return hashlib.sha256(data).hexdigest()


@given(served=answer_lists)
@example(served=[BROKEN_IPV6])
@HOSTILE
def test_raw_log_fetch_answers_any_server_with_a_finding_or_the_verified_log(
    served: list[Answer],
) -> None:
    with hostile_server(served) as server:
        started = time.monotonic()
        findings = check(server.url(), head=LOG[:1000], tail=LOG[-1000:])
        elapsed = time.monotonic() - started
    assert elapsed < TIME_BOUND, (elapsed, findings)
    assert all(isinstance(finding, Finding) for finding in findings)
    assert {finding.code for finding in findings} <= RAW_LOG_CODES, findings
    assert all((f.file, f.line) == (FILE, LINE) for f in findings)
    if not findings:  # verified: some answer carried the log
        assert any(answer.body in HONEST_BODIES for answer in served), served


class _Counting:
    """A download sink that keeps only the count and the largest chunk."""

    def __init__(self) -> None:
        self.count = 0
        self.largest = 0

    def add(self, chunk: bytes) -> None:
        self.count += len(chunk)
        self.largest = max(self.largest, len(chunk))


@given(served=answer_lists)
@example(served=[BROKEN_IPV6])
@HOSTILE
def test_download_raises_only_unavailable_and_reads_at_most_one_chunk_past_the_size(
    served: list[Answer],
) -> None:
    sink = _Counting()
    with hostile_server(served) as server, build_session() as session:
        started = time.monotonic()
        try:
            download(session, server.url(), sink, len(LOG), LIMITS)
        except UnavailableError as error:
            assert str(error)
        elapsed = time.monotonic() - started
    assert elapsed < TIME_BOUND
    assert sink.largest <= CHUNK_BYTES
    assert sink.count <= len(LOG) + CHUNK_BYTES


@given(served=answer_lists)
@example(served=[BROKEN_IPV6])
@settings(HOSTILE, max_examples=40)
def test_released_data_fetch_answers_any_server_with_a_finding_or_the_verified_file(
    served: list[Answer], tmp_path_factory: pytest.TempPathFactory
) -> None:
    folder = tmp_path_factory.mktemp("released")
    inputs, cache = folder / "inputs", folder / "cache"
    inputs.mkdir()
    with hostile_server(served) as server:
        item = {"url": server.url("/cases.jsonl"), "sha256": _sha(LOG), "path": "data/cases.jsonl"}
        started = time.monotonic()
        findings = fetch_released(
            [item], inputs, cache, "adapter/adapter.yaml", LIMITS, sleep=lambda _: None
        )
        elapsed = time.monotonic() - started
    # Three tries at most, each within its own deadline.
    assert elapsed < 3 * TIME_BOUND
    codes = {finding.code for finding in findings}
    assert codes <= {Code.RELEASED_DATA_UNAVAILABLE, Code.RELEASED_DATA_HASH}, findings
    laid_out = inputs / "data" / "cases.jsonl"
    if findings:
        assert not laid_out.exists()
    else:
        assert laid_out.read_bytes() == LOG
    assert [p.name for p in (cache / "sha256").iterdir() if p.name != _sha(LOG)] == []


def test_a_redirect_to_a_broken_ipv6_literal_is_a_finding() -> None:
    """The issue's answer: `Location: http://[::1/x` raised ValueError out of the fetch."""
    redirect = Answer.http("302 Found", [("Location", "http://[::1/x"), ("Content-Length", "0")])
    with hostile_server([redirect]) as server:
        (finding,) = check(server.url())
    assert finding.code == Code.RAW_LOG_UNAVAILABLE
    assert finding.message == (
        f"{server.url()} redirects to a malformed URL (Invalid IPv6 URL): http://[::1/x"
    )


# ---- time: a server that sends each byte just within the read timeout ------------------------

# Header lines (then TLS records) dripped one byte every DRIP seconds: each wait is far below
# the read timeout, and the whole takes far longer than the deadline.
DRIP = 0.05
DRIPPED_HEAD = b"HTTP/1.1 200 OK\r\n" + b"X-Slow: " + b"s" * 400 + b"\r\n\r\n"
# A TLS record header announcing 16 KiB of handshake, then its bytes one by one.
DRIPPED_TLS = b"\x16\x03\x03\x40\x00" + bytes(400)


def test_a_server_dripping_its_headers_is_cut_at_the_deadline() -> None:
    """The read timeout bounds each wait for a byte, and the deadline was checked only between
    reads of the body, so a server dripping its header lines held the fetch for as long as it
    had bytes to send (20 s here, without end for a server that never stops). Now the
    connection is cut at the deadline."""
    with hostile_server([Answer(DRIPPED_HEAD, LOG, drip=DRIP)]) as server:
        started = time.monotonic()
        (finding,) = check(server.url())
        elapsed = time.monotonic() - started
    assert elapsed < DEADLINE + 2.0, elapsed
    assert finding.code == Code.RAW_LOG_UNAVAILABLE
    assert finding.message == (
        f"deadline of {DEADLINE:g} s exceeded reading {server.url()} (0 bytes read)"
    )


def test_a_server_dripping_a_tls_handshake_times_out() -> None:
    """Python's ssl bounds a whole handshake by the socket's timeout (not each wait), so a
    dripped handshake ends after `fetch_timeout`, and the watchdog is there too."""
    with hostile_server([Answer(DRIPPED_TLS, drip=DRIP)]) as server:
        url = server.url().replace("http:", "https:")
        started = time.monotonic()
        (finding,) = check(url)
        elapsed = time.monotonic() - started
    assert elapsed < TIMEOUT + 2.0, elapsed
    assert finding.code == Code.RAW_LOG_UNAVAILABLE


def test_a_gzip_bomb_is_decoded_a_chunk_at_a_time_and_read_no_further_than_the_size() -> None:
    """gzip inside gzip, served despite `Accept-Encoding: identity`: 1 GiB once decoded. The
    fetch decodes at most CHUNK_BYTES per read (urllib3 >= 2.6 bounds the decoder), so memory
    stays bounded, and it stops once more than the size has arrived, as for any long body."""
    bomb = Answer.http("200 OK", [("Content-Encoding", "gzip, gzip")], BOMB)
    size = 8 << 20
    sink = _Counting()
    tracemalloc.start()
    try:
        with hostile_server([bomb]) as server, build_session() as session:
            started = time.monotonic()
            download(session, server.url(), sink, size, LIMITS)
            elapsed = time.monotonic() - started
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert size < sink.count <= size + CHUNK_BYTES
    assert sink.largest <= CHUNK_BYTES
    assert peak < 16 << 20, peak
    assert elapsed < TIME_BOUND


def test_an_attempts_released_data_is_fetched_within_one_time_budget(
    tmp_path_factory: pytest.TempPathFactory,
) -> None:
    """Each released file had its own deadline and three tries, so a server dripping every
    file held one attempt's rerun for files x 3 x fetch_deadline (100 files: 50 hours at the
    bot's settings, far past the rerun job's 30 minutes, and the job's timeout records
    nothing). Now all of an attempt's released data shares `released_deadline`."""
    folder = tmp_path_factory.mktemp("budget")
    limits = replace(LIMITS, released_deadline=2.0)
    dripped = Answer.http("200 OK", [("Content-Length", str(len(LOG)))], LOG, drip=DRIP)
    with hostile_server([dripped]) as server:
        items = [
            {"url": server.url(f"/{n}"), "sha256": _sha(LOG), "path": f"data/{n}"} for n in range(3)
        ]
        started = time.monotonic()
        findings = fetch_released(
            items, folder / "in", folder / "cache", "adapter/adapter.yaml", limits,
            sleep=lambda _: None,
        )  # fmt: skip
        elapsed = time.monotonic() - started
    assert elapsed < limits.released_deadline + TIMEOUT + 2.0, elapsed
    assert [f.code for f in findings] == [Code.RELEASED_DATA_UNAVAILABLE] * 3
    assert "deadline of 1.5 s exceeded" in findings[0].message
    assert findings[-1].message == (
        f"released_data[2]: {server.url('/2')} was not fetched: the 2 s for all of"
        " adapter.yaml's released data ran out"
    )

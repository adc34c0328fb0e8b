"""A hostile HTTP server for the fetch tests: raw sockets in threads, bound to 127.0.0.1.

A well-behaved test server (pytest-httpserver, werkzeug) cannot send what a filer's server
can: a broken status line, a `Location` no URL parser accepts, a `Content-Length` that lies,
a gzip bomb, invalid chunking, a reset in the middle of the body, bytes dripped slower than
any deadline. This one sends exactly the bytes it is given. The n-th connection gets
`answers[n]` (the last answer again once they run out), so a redirect chain back to the same
server walks through the list; `{self}` in an answer's bytes stands for `127.0.0.1:<port>`.

Used by tests/unit/edges/test_fetch_hostile.py (answers drawn by hypothesis) and the end-to-end
tests of `claims verify --fetch-raw-logs`, `--rerun-adapters` and `claims resolve`.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
import time
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from typing import Literal

__all__ = ["Answer", "HostileServer", "hostile_server"]

# How long the server keeps a connection it holds open ("hold") before giving up by itself;
# `stop` frees it sooner.
HOLD_SECONDS = 5.0

End = Literal["close", "reset", "half-close", "hold"]


@dataclass(frozen=True)
class Answer:
    """What the server does with one connection.

    head: the status line and headers exactly as sent (the blank line included, or not);
    body: the bytes after them; cut: send only the first `cut` bytes of head + body;
    delay: seconds to wait before sending; drip: send one byte at a time, waiting `drip`
    seconds between bytes (0: all at once); end: then close, reset (RST), half-close (shut
    the sending side, keep reading) or hold the connection open without a word.
    """

    head: bytes
    body: bytes = b""
    cut: int | None = None
    delay: float = 0.0
    drip: float = 0.0
    end: End = "close"

    @classmethod
    def http(
        cls,
        status: str = "200 OK",
        headers: Sequence[tuple[str, str | bytes]] = (),
        body: bytes = b"",
        **kwargs: object,
    ) -> Answer:
        """A well-formed HTTP/1.1 answer (headers sent as given, no Content-Length added)."""
        lines = [f"HTTP/1.1 {status}".encode()]
        for name, value in headers:
            lines.append(
                name.encode()
                + b": "
                + (value if isinstance(value, bytes) else value.encode("latin-1"))
            )
        return cls(b"\r\n".join(lines) + b"\r\n\r\n", body, **kwargs)  # type: ignore[arg-type]


class HostileServer:
    """Serves `answers` on 127.0.0.1 until `stop` (a context manager: `hostile_server`)."""

    def __init__(self, answers: Sequence[Answer]) -> None:
        if not answers:
            raise ValueError("a hostile server needs at least one answer")
        self.answers = list(answers)
        self.requests: list[bytes] = []
        self._listener = socket.create_server(("127.0.0.1", 0))
        self.port: int = self._listener.getsockname()[1]
        self._stopped = threading.Event()
        self._threads: list[threading.Thread] = []
        self._connections: list[socket.socket] = []
        self._lock = threading.Lock()
        self._accepting = threading.Thread(target=self._accept, daemon=True)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    def url(self, path: str = "/log") -> str:
        return f"http://{self.address}{path}"

    def start(self) -> HostileServer:
        self._accepting.start()
        return self

    def stop(self) -> None:
        self._stopped.set()
        with contextlib.suppress(OSError):
            self._listener.close()
        with self._lock:
            connections = list(self._connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.close()
        self._accepting.join(timeout=HOLD_SECONDS)
        for thread in self._threads:
            thread.join(timeout=HOLD_SECONDS)

    def _accept(self) -> None:
        index = 0
        self._listener.settimeout(0.05)  # closing the socket does not wake a blocked accept
        while not self._stopped.is_set():
            try:
                connection, _ = self._listener.accept()
            except TimeoutError:
                continue
            except OSError:
                return
            connection.settimeout(None)
            answer = self.answers[min(index, len(self.answers) - 1)]
            index += 1
            with self._lock:
                self._connections.append(connection)
            thread = threading.Thread(target=self._answer, args=(connection, answer), daemon=True)
            self._threads.append(thread)
            thread.start()

    def _read_request(self, connection: socket.socket) -> None:
        """Read the request's head (or whatever arrives within a second: TLS, nothing)."""
        connection.settimeout(1.0)
        received = b""
        with contextlib.suppress(OSError):
            while b"\r\n\r\n" not in received and len(received) < 65536:
                chunk = connection.recv(4096)
                if not chunk:
                    break
                received += chunk
                if received.startswith(b"\x16"):  # a TLS ClientHello: no blank line to wait for
                    break
        with self._lock:
            self.requests.append(received)

    def _answer(self, connection: socket.socket, answer: Answer) -> None:
        try:
            self._read_request(connection)
            data = (answer.head + answer.body).replace(b"{self}", self.address.encode())
            if answer.cut is not None:
                data = data[: answer.cut]
            if answer.delay and self._stopped.wait(answer.delay):
                return
            if answer.drip:
                for byte in data:
                    connection.sendall(bytes([byte]))
                    if self._stopped.wait(answer.drip):
                        return
            else:
                connection.sendall(data)
            if answer.end == "reset":
                # SO_LINGER with a zero timeout: close() sends RST instead of FIN.
                connection.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            elif answer.end == "half-close":
                connection.shutdown(socket.SHUT_WR)
                self._drain(connection)
            elif answer.end == "hold":
                self._stopped.wait(HOLD_SECONDS)
        except OSError:
            pass  # the client went away: nothing to answer
        finally:
            with contextlib.suppress(OSError):
                connection.close()

    def _drain(self, connection: socket.socket) -> None:
        """After a half-close: read until the client closes (or the server stops)."""
        connection.settimeout(0.1)
        until = time.monotonic() + HOLD_SECONDS
        while not self._stopped.is_set() and time.monotonic() < until:
            try:
                if not connection.recv(4096):
                    return
            except TimeoutError:
                continue


@contextlib.contextmanager
def hostile_server(answers: Sequence[Answer]) -> Iterator[HostileServer]:
    """A started `HostileServer`, stopped on exit."""
    server = HostileServer(answers).start()
    try:
        yield server
    finally:
        server.stop()

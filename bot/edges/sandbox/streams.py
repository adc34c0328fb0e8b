"""What the bot keeps of an adapter's stdout and stderr: the last N bytes, as printable text.

An adapter may print 100 MB, or bytes that are not UTF-8, or terminal escapes and GitHub
workflow commands meant for a job log. The bot keeps a rolling tail per stream (memory bounded
by twice the tail size), decodes it with `errors="replace"`, and strips control characters
(all of C0 and C1 except newline and tab, and DEL), so the text can go into a report without
moving a cursor or faking a log line's start.
"""

from __future__ import annotations

import re

__all__ = ["Tail", "printable"]

_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def printable(data: bytes) -> str:
    """Decode `data` (UTF-8, invalid bytes replaced) and drop control characters but \\n, \\t."""
    return _CONTROL.sub("", data.decode("utf-8", errors="replace"))


class Tail:
    """A rolling buffer holding the last `limit` bytes written to it."""

    def __init__(self, limit: int) -> None:
        self.limit = max(0, limit)
        self.total = 0
        self._data = bytearray()

    def add(self, chunk: bytes) -> None:
        self.total += len(chunk)
        self._data += chunk
        # Trimming only past twice the limit keeps the cost per byte constant.
        if len(self._data) > 2 * self.limit:
            del self._data[: len(self._data) - self.limit]

    def bytes(self) -> bytes:
        return bytes(self._data[max(0, len(self._data) - self.limit) :]) if self.limit else b""

    def text(self) -> str:
        return printable(self.bytes())

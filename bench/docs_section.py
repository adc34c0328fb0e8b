"""Write a benchmark's printed figures into docs/performance.md, between its markers.

A bench script run with `--write-docs` captures what it prints (`captured`) and replaces the
block between `<!-- bench:NAME -->` and `<!-- /bench:NAME -->` with it (`write_section`), so
the page shows the figures of the last run as printed, with the machine and load the script
states, never numbers copied by hand. Everything outside the markers is left as it is.
"""

from __future__ import annotations

import contextlib
import io
import sys
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

__all__ = ["PAGE", "captured", "write_section"]

PAGE = Path(__file__).resolve().parents[1] / "docs" / "performance.md"


class _Tee(io.TextIOBase):
    """Prints through to the terminal and keeps a copy."""

    def __init__(self, out: io.TextIOBase) -> None:
        self.out = out
        self.kept = io.StringIO()

    def write(self, text: str) -> int:
        self.kept.write(text)
        return self.out.write(text)

    def flush(self) -> None:
        self.out.flush()


@contextlib.contextmanager
def captured() -> Iterator[io.StringIO]:
    """Within the block, what is printed goes to the terminal and into the yielded buffer."""
    tee = _Tee(sys.stdout)  # type: ignore[arg-type]
    with contextlib.redirect_stdout(tee):
        yield tee.kept


def write_section(name: str, printed: str, command: str, page: Path = PAGE) -> None:
    """Replace the block marked `name` in `page` with `printed` (the run's output), saying
    the `command` that printed it and when. Raises ValueError when the markers are missing
    or out of order, leaving the page untouched."""
    start, end = f"<!-- bench:{name} -->", f"<!-- /bench:{name} -->"
    text = page.read_text(encoding="utf-8")
    before, found, rest = text.partition(start)
    inside, closed, after = rest.partition(end)
    if not found or not closed or start in inside + after or end in before + after:
        raise ValueError(f"{page}: no single pair of markers {start} ... {end}")
    when = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
    block = f"\n`{command}`, run {when}:\n\n```\n{printed.rstrip()}\n```\n"
    page.write_text(before + start + block + end + after, encoding="utf-8")

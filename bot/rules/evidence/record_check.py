"""A check fed one JSONL record at a time (`CaseCheck`, `TrialCheck`), and running one over
records already read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from bot.vocab.document import Record
from bot.vocab.jsonl import paused_gc

__all__ = ["RecordCheck", "run_check"]


class RecordCheck(Protocol):
    """Fed each record in file order (`add`), then told the file is read (`finish`)."""

    def add(self, record: Record) -> None: ...

    def finish(self, complete: bool = True) -> None: ...


_Check = TypeVar("_Check", bound=RecordCheck)


def run_check(check: _Check, records: Sequence[Record], complete: bool) -> _Check:
    """`check` run over every record, then finished: `complete` is False when some line of the
    file could not be read."""
    with paused_gc():  # one model per line, all acyclic (bot/vocab/jsonl.py)
        for record in records:
            check.add(record)
    check.finish(complete)
    return check

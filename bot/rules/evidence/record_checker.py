"""A checker fed one JSONL record at a time (`CaseChecker`, `TrialChecker`), and running one over
records already read."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Protocol, TypeVar

from bot.vocab.document import Record
from bot.vocab.jsonl import paused_gc

__all__ = ["RecordChecker", "run_checker"]


class RecordChecker(Protocol):
    """Fed each record in file order (`add`), then told the file is read (`finish`)."""

    def add(self, record: Record) -> None: ...

    def finish(self, complete: bool = True) -> None: ...


_Checker = TypeVar("_Checker", bound=RecordChecker)


def run_checker(checker: _Checker, records: Sequence[Record], complete: bool) -> _Checker:
    """`checker` run over every record, then finished: `complete` is False when some line of the
    file could not be read."""
    with paused_gc():  # one model per line, all acyclic (bot/vocab/jsonl.py)
        for record in records:
            checker.add(record)
    checker.finish(complete)
    return checker

"""The WeirdML v3 scorer (docs/spec.md §11, §11.2): event log text in, task scores out.

A log holds one JSON object a line (blank lines are skipped), one event of one task each:

    {"task": "t1", "tokens": 900000, "event": "browse"}
    {"task": "t1", "tokens": 950000, "event": "hint", "factor": 0.9}
    {"task": "t1", "tokens": 1200000, "event": "submission", "score": 0.4}

`tokens` is the task's cumulative total token count when the event happened. Per task:

- a submission's effective score is its raw score times the factors of every hint bought
  earlier in the file (file order is purchase order; tokens never decrease within a task, so
  "earlier in the file" also means "at a lower or equal token count");
- the best-so-far curve is 0 before the first submission and then the best effective score
  so far; a submission below 500k tokens counts from 500k, one above 50M is ignored entirely;
- area = the integral of the curve over log10(tokens) from log10(5e5) to log10(5e7), divided
  by 2 (the width), so it lies in [0, 1]; final best = the best counted effective score;
- official score = 0.8 x area + 0.2 x final best.

At most three `browse` events per task; a hint must follow a browse of its task; at most
`max_submissions` submissions per task (the seed's "ten submissions": `MAX_SUBMISSIONS`, unless
the challenge run's `scorer_settings.max_submissions` says otherwise). Everything here is pure:
the CLI (`claims score weirdml-v3`, bot/faces/tools/score.py) reads and writes files.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from typing import Literal, cast, get_args

from bot.vocab.config import Limits
from bot.vocab.jsonl import parse_json

__all__ = [
    "AREA_WEIGHT",
    "FINAL_WEIGHT",
    "MAX_BROWSES",
    "MAX_SUBMISSIONS",
    "TOKENS_END",
    "TOKENS_START",
    "Event",
    "EventKind",
    "LogScore",
    "TaskScore",
    "WeirdmlLogError",
    "read_log",
    "score_log",
    "score_task",
]

TOKENS_START = 500_000
TOKENS_END = 50_000_000
AREA_WEIGHT, FINAL_WEIGHT = 0.8, 0.2
MAX_BROWSES = 3
# The seed: "The model typically has 10 such submissions". A run may set another number
# (run.yaml `scorer_settings.max_submissions`); a log with more is refused, not truncated.
MAX_SUBMISSIONS = 10

EventKind = Literal["submission", "browse", "hint"]
_KINDS: tuple[str, ...] = get_args(EventKind)
# The keys each kind of event carries: all required, no others allowed.
_KEYS: dict[str, frozenset[str]] = {
    "submission": frozenset({"task", "tokens", "event", "score"}),
    "browse": frozenset({"task", "tokens", "event"}),
    "hint": frozenset({"task", "tokens", "event", "factor"}),
}
_MAX_TASK_CHARS = 200
_LOG_START, _LOG_END = math.log10(TOKENS_START), math.log10(TOKENS_END)


class WeirdmlLogError(ValueError):
    """A log the scorer refuses: `line` (1-based) and `field` (None: the line as a whole)."""

    def __init__(self, line: int, field: str | None, message: str) -> None:
        super().__init__(f"line {line}: {field}: {message}" if field else f"line {line}: {message}")
        self.line = line
        self.field = field
        self.message = message

    def location(self, source: str) -> str:
        """`SOURCE:LINE: field: message`, as the CLI prints it."""
        where = f"{source}:{self.line}: "
        return where + (f"{self.field}: {self.message}" if self.field else self.message)


def _number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


@dataclass(frozen=True, slots=True)
class Event:
    """One checked event: `score` is set on submissions only, `factor` on hints only."""

    task: str
    tokens: int
    kind: EventKind
    score: float | None
    factor: float | None
    line: int

    def __post_init__(self) -> None:
        def refuse(field: str, message: str) -> None:
            raise WeirdmlLogError(self.line, field, message)

        if not isinstance(self.task, str) or not self.task.strip():
            refuse("task", f"got {_shown(self.task)}, expected a non-empty string")
        if len(self.task) > _MAX_TASK_CHARS:
            refuse("task", f"{len(self.task)} characters, more than {_MAX_TASK_CHARS}")
        if not isinstance(self.tokens, int) or isinstance(self.tokens, bool) or self.tokens < 0:
            refuse("tokens", f"got {_shown(self.tokens)}, expected a non-negative integer")
        if self.kind not in _KINDS:
            refuse("event", f"got {_shown(self.kind)}, expected one of {', '.join(_KINDS)}")
        if self.kind == "submission":
            if not _number(self.score) or not 0 <= cast(float, self.score) <= 1:
                refuse("score", f"got {_shown(self.score)}, expected a number from 0 to 1")
        elif self.score is not None:
            refuse("score", f"a {self.kind} event has no score")
        if self.kind == "hint":
            if not _number(self.factor) or not 0 < cast(float, self.factor) <= 1:
                refuse("factor", f"got {_shown(self.factor)}, expected a number above 0, up to 1")
        elif self.factor is not None:
            refuse("factor", f"a {self.kind} event has no factor")


def _shown(value: object) -> str:
    """A value for a message: JSON-ish, type-named, never long."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return f"boolean {str(value).lower()}"
    if isinstance(value, str):
        text = repr(value[:40]) + ("..." if len(value) > 40 else "")
        return f"string {text}"
    if isinstance(value, int | float):
        text = repr(value)
        return f"number {text[:40]}" + ("..." if len(text) > 40 else "")
    if isinstance(value, dict):
        return "an object"
    if isinstance(value, list):
        return "an array"
    return type(value).__name__


def read_log(text: str, max_submissions: int = MAX_SUBMISSIONS) -> list[Event]:
    """The events of a log, checked; the first problem raises `WeirdmlLogError`.

    Refused: a line that is not one JSON object (NaN, Infinity, duplicate keys included), a
    missing or unknown key for its event, a value out of range, a task's tokens going down
    in file order, a fourth browse of a task, a hint before any browse of its task, a
    submission of a task past `max_submissions` (its line), and a log with no events.
    """
    events: list[Event] = []
    # Lines end at LF (CRLF too); str.splitlines would also split at \x0b, \x1c, U+2028...,
    # and the line numbers would no longer be the file's.
    for number, line in enumerate(text.split("\n"), start=1):
        line = line.removesuffix("\r")
        if not line.strip():
            continue
        events.append(_event(line, number))
    if not events:
        raise WeirdmlLogError(1, None, "the log holds no events")
    first_error: WeirdmlLogError | None = None
    for task_events in _by_task(events).values():
        try:
            _check_sequence(task_events, max_submissions)
        except WeirdmlLogError as error:  # the earliest line of any task's problem
            if first_error is None or error.line < first_error.line:
                first_error = error
    if first_error is not None:
        raise first_error
    return events


def _event(line: str, number: int) -> Event:
    try:
        data = parse_json(line.encode("utf-8"), Limits().max_json_depth)
    except ValueError as error:  # JSONDecodeError, UnicodeError and the strict checks
        raise WeirdmlLogError(number, None, f"not a JSON object: {error}") from None
    if not isinstance(data, dict):
        raise WeirdmlLogError(number, None, f"got {_shown(data)}, expected a JSON object")
    kind = data.get("event")
    if "event" not in data:
        raise WeirdmlLogError(number, "event", "missing")
    if not isinstance(kind, str) or kind not in _KEYS:
        raise WeirdmlLogError(
            number, "event", f"got {_shown(kind)}, expected one of {', '.join(_KINDS)}"
        )
    missing = sorted(_KEYS[kind] - data.keys())
    if missing:
        raise WeirdmlLogError(number, missing[0], f"missing (a {kind} event needs it)")
    unknown = sorted(data.keys() - _KEYS[kind])
    if unknown:
        raise WeirdmlLogError(number, unknown[0][:60], f"unknown key for a {kind} event")
    return Event(
        task=data["task"],
        tokens=data["tokens"],
        kind=kind,  # type: ignore[arg-type]  # checked against _KEYS above
        score=data.get("score"),
        factor=data.get("factor"),
        line=number,
    )


def _by_task(events: Iterable[Event]) -> dict[str, list[Event]]:
    tasks: dict[str, list[Event]] = {}
    for event in events:
        tasks.setdefault(event.task, []).append(event)
    return tasks


def _check_sequence(events: Sequence[Event], max_submissions: int) -> None:
    """One task's events in file order: tokens never go down, at most three browses, every
    hint comes after a browse, and at most `max_submissions` submissions."""
    browses = submissions = 0
    previous: Event | None = None
    for event in events:
        if previous is not None and event.tokens < previous.tokens:
            raise WeirdmlLogError(
                event.line,
                "tokens",
                f"{event.tokens} is below {previous.tokens} on line {previous.line}: a task's"
                " cumulative tokens never go down",
            )
        if event.kind == "browse":
            browses += 1
            if browses > MAX_BROWSES:
                raise WeirdmlLogError(
                    event.line,
                    "event",
                    f"a fourth hint browsing of task {event.task!r}: at most {MAX_BROWSES}"
                    " browsings per task",
                )
        if event.kind == "hint" and browses == 0:
            raise WeirdmlLogError(
                event.line, "event", f"a hint bought before any browsing of task {event.task!r}"
            )
        if event.kind == "submission":
            submissions += 1
            if submissions > max_submissions:
                raise WeirdmlLogError(
                    event.line,
                    "event",
                    f"submission {submissions} of task {event.task!r}: at most"
                    f" {max_submissions} submissions per task",
                )
        previous = event


@dataclass(frozen=True)
class TaskScore:
    """One task's scores. `curve`: the best-so-far step curve as (tokens, best) points from
    (5e5, best at 5e5) to (5e7, final best); the best holds from each point to the next."""

    area: float
    final_best: float
    score: float
    curve: tuple[tuple[float, float], ...]


@dataclass(frozen=True)
class LogScore:
    """Every task's scores (in the order tasks first appear) and their mean."""

    tasks: dict[str, TaskScore]
    mean: float


def score_task(events: Sequence[Event], max_submissions: int = MAX_SUBMISSIONS) -> TaskScore:
    """Score one task's events (in file order; all of one task). Raises `WeirdmlLogError`
    where the events break the log's rules (see `read_log`), ValueError for mixed tasks."""
    if len({event.task for event in events}) > 1:
        raise ValueError("score_task takes the events of one task")
    _check_sequence(events, max_submissions)
    factor = 1.0
    best = 0.0
    curve: list[tuple[float, float]] = [(float(TOKENS_START), 0.0)]
    for event in events:
        if event.kind == "hint":
            assert event.factor is not None  # Event checks it
            factor *= event.factor
        elif event.kind == "submission" and event.tokens <= TOKENS_END:
            assert event.score is not None  # Event checks it
            effective = event.score * factor
            if effective > best:
                best = effective
                at = float(max(event.tokens, TOKENS_START))
                if curve[-1][0] == at:
                    curve[-1] = (at, best)
                else:
                    curve.append((at, best))
    if curve[-1][0] < TOKENS_END:
        curve.append((float(TOKENS_END), best))
    width = _LOG_END - _LOG_START
    area = 0.0
    for (start, level), (end, _) in itertools.pairwise(curve):
        area += level * (math.log10(end) - math.log10(start))
    area = min(1.0, max(0.0, area / width))
    score = AREA_WEIGHT * area + FINAL_WEIGHT * best
    return TaskScore(area=area, final_best=best, score=score, curve=tuple(curve))


def score_log(events: Sequence[Event], max_submissions: int = MAX_SUBMISSIONS) -> LogScore:
    """Score every task of a log; the mean is over tasks (0.0 for no tasks). Read the log
    with the same `max_submissions` (`read_log`)."""
    tasks = {
        task: score_task(task_events, max_submissions)
        for task, task_events in _by_task(events).items()
    }
    mean = math.fsum(t.score for t in tasks.values()) / len(tasks) if tasks else 0.0
    return LogScore(tasks=tasks, mean=mean)

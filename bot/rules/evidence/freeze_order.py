"""Trials against the freeze and the filing: none before the freeze, none after its record
landed (`trial-before-freeze`, `trial-in-future`), and a paper's freeze as an instant."""

from __future__ import annotations

from collections.abc import Iterable
from datetime import datetime, timedelta

from bot.rules.evidence.models import Trial
from bot.vocab.dates import end_of_day
from bot.vocab.findings import Code, Finding
from bot.vocab.timestamps import parse_date, parse_timestamp

__all__ = ["check_trial_order", "check_trials_not_after", "paper_freeze_time"]


def check_trial_order(
    trials: Iterable[Trial], freeze_time: datetime, what: str, file: str
) -> list[Finding]:
    """Every trial must start strictly after `freeze_time` (`trial-before-freeze`)."""
    return [
        Finding(
            Code.TRIAL_BEFORE_FREEZE,
            f"trial of case {trial.case_id!r} started at {trial.started_at.isoformat()},"
            f" not after {what} ({freeze_time.isoformat()})",
            file,
            trial.line,
        )
        for trial in trials
        if trial.started_at <= freeze_time
    ]


def check_trials_not_after(
    trials: Iterable[Trial], filed_at: datetime, what: str, file: str
) -> list[Finding]:
    """No trial starts after `filed_at`, when its record landed (`trial-in-future`). Git
    dates commits in whole seconds, so a trial counts as after only from the next second."""
    next_second = filed_at + timedelta(seconds=1)
    return [
        Finding(
            Code.TRIAL_IN_FUTURE,
            f"trial of case {trial.case_id!r} started at {trial.started_at.isoformat()},"
            f" after {what}: a trial cannot start after its record was filed",
            file,
            trial.line,
        )
        for trial in trials
        if trial.started_at >= next_second
    ]


def paper_freeze_time(text: str) -> datetime | None:
    """The instant a paper's dated freeze ends: a timestamp as given, a date at its last moment.

    A freeze dated only by day is taken to hold until the end of that day anywhere on Earth
    (UTC-12), so no trial of that day can count as after it.
    """
    moment = parse_timestamp(text)
    if moment is not None:
        return moment
    day = parse_date(text)
    return None if day is None else end_of_day(day)

"""No attempt holds a market hostage: the rerun deadline of a market (docs/spec.md §9).

A market is recorded once, so the close job never resolves it while one of its wrapped
attempts has no rerun result: the attempt might still qualify. A result is the adapter's
comparison, or its own failure (it crashed, timed out, or the sandbox could not start its
command); the rerun jobs record each. A try that may pass (the filer's server did not serve the
released data) is recorded too. Nothing at all is recorded only when the run lost the rerun job
(a runner, an install step, an artifact upload): the registry's fault, so the market waits on
any day (a filer's rerun ends within the job's time: the released-data budget plus the
sandbox's wall clock).

Until the market's rerun deadline (`RERUN_GRACE_DAYS` after its window closes, and always
before its annulment date) an attempt whose recorded try may pass blocks the market for this
run, and the next daily run tries again. From the deadline on it is judged: `rerun-unrecorded`
(with the recorded try's failure), not qualifying, and the market resolves from its other
attempts. An error of
the machine the close job itself reruns on still blocks (the registry's fault), and so do a
Zenodo or GitHub outage, which stop the archive or the push.
"""

from __future__ import annotations

from dataclasses import replace
from datetime import date, timedelta

from bot.app.options import Ports
from bot.app.pins import PinFetch
from bot.app.rerun import AdapterRerun, Deadline
from bot.vocab.dates import MarketDates

__all__ = ["RERUN_GRACE_DAYS", "pin_fetch_of", "rerun_deadline", "with_rerun_deadline"]

# Daily scheduled runs a market waits for its wrapped attempts' rerun results.
RERUN_GRACE_DAYS = 7


def rerun_deadline(dates: MarketDates) -> date:
    """The first day an attempt without a rerun result no longer blocks the market: a week
    after the window closes, and at the latest the day before the annulment date."""
    week = dates.window_closes + timedelta(days=RERUN_GRACE_DAYS)
    return max(dates.window_closes + timedelta(days=1), min(week, dates.annul_on - timedelta(1)))


def with_rerun_deadline(ports: Ports, as_of: date, dates: MarketDates) -> Ports:
    """The close job's `ports` for resolving one market as of `as_of`: its adapter rerun (when
    it is the bot's) answers by the market's rerun deadline (`bot.app.rerun.Deadline`)."""
    day = rerun_deadline(dates)
    deadline = Deadline(day, as_of >= day)
    rerun = ports.rerun_adapter
    if isinstance(rerun, AdapterRerun):
        ports = replace(ports, rerun_adapter=replace(rerun, deadline=deadline))
    # The pins the close's pin jobs recorded (bot/app/pins.py) answer by the same deadline: a
    # filer's server that does not answer holds the market until then, never after.
    pins = pin_fetch_of(ports)
    if pins is not None:
        timed = replace(pins, deadline=deadline)
        ports = replace(ports, fetch_raw_log=timed.raw_log, fetch_paper_freeze=timed.paper_freeze)
    return ports


def pin_fetch_of(ports: Ports) -> PinFetch | None:
    """The `PinFetch` whose methods are the ports' fetchers, or None (no pins, or fetched
    some other way)."""
    owner = getattr(ports.fetch_raw_log, "__self__", None)
    return owner if isinstance(owner, PinFetch) else None

"""The scheduled close's adapter reruns, batched to fit GitHub Actions' limits.

`claims close-windows --plan-reruns` prints a `RerunPlan` as JSON; close-windows.yml's plan job
re-checks it with `jq` (against the numbers below: tests/unit/test_workflows.py reads both),
uploads it as the run's `close-plan` artifact and makes a job matrix of its batch numbers.
Each rerun job downloads the plan and reruns its batch's attempts one after another in the
sandbox, each attempt's result recorded on its own as before (one attempt's failure is that
attempt's), starting an attempt only while its worst case still fits the job's budget.

The limits (docs/running-on-github.md, "The schedule's limits"):

- a job matrix holds at most `MAX_RERUN_JOBS` (256) jobs: GitHub's cap;
- one attempt's rerun takes at most `attempt_seconds()`: the released-data budget
  (`Limits.released_deadline`, 900 s) and the sandbox's two runs (`SandboxLimits.wall_seconds`,
  2 x 120 s): 1,140 s;
- a rerun job runs for at most `JOB_TIMEOUT_MINUTES` (360, GitHub's maximum for a hosted
  runner) and starts attempts for `JOB_BUDGET_SECONDS` (320 minutes; the rest is setup and the
  upload), an attempt only when its worst case ends within that budget: so `guaranteed_per_job()`
  (16) attempts always run, however slow each is;
- a job holds at most `MAX_ATTEMPTS_PER_JOB` (64) attempts, which fit when they average under
  five minutes (`JOB_BUDGET_SECONDS / 64`).

A plan spreads its attempts evenly over as few jobs as the cap allows: `ceil(n / 256)` a job,
so up to 256 attempts each get a job of their own, and up to 4,096 (256 x 16) every attempt
fits its worst case. The markets are taken whole in market order: a market whose attempts do
not all fit what is left of the `MAX_RERUN_JOBS x MAX_ATTEMPTS_PER_JOB` (16,384) places is
listed in `waiting` and none of its attempts is planned, since the close counts only this run's
results and a market resolves only when all of its wrapped attempts have one. Such a market is
blocked this run (a wrapped attempt without a result, which the rerun deadline treats as the
registry's fault: it blocks on any day, never turns into the filer's failure) and is planned
again on the next run. An attempt a job did not start within its budget is likewise unrecorded
and blocks its market for this run only.

What the close job downloads for the archives has one budget a run, `Limits.max_kept_pins_bytes`:
the pin plan's `keep` is planned first (`plan_keep`, from the declared sizes), and the rerun
plan's `released_bytes` is what is left, split evenly across its batches (`released_share`):
each rerun job keeps released data (`--keep-released-bytes`) only while its kept files stay
within that share (their sizes are known only once downloaded). The workflow's jq re-checks
that the pins planned and every batch's share together fit the budget.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from bot.edges.sandbox.runner import SandboxLimits
from bot.vocab.config import Limits

__all__ = [
    "JOB_BUDGET_SECONDS",
    "JOB_TIMEOUT_MINUTES",
    "MAX_ATTEMPTS_PER_JOB",
    "MAX_RERUN_JOBS",
    "PIN_VERIFY_SECONDS",
    "RerunPlan",
    "attempt_seconds",
    "batch_reruns",
    "guaranteed_per_job",
    "kept_bytes",
    "pin_seconds",
    "plan_keep",
    "released_share",
]

MAX_RERUN_JOBS = 256
MAX_ATTEMPTS_PER_JOB = 64
JOB_TIMEOUT_MINUTES = 360
JOB_BUDGET_SECONDS = 320 * 60
# A pin job's `claims verify` of one attempt besides its two fetches: Python's start and the
# attempt's own checks (1,000,000 trials verify in 45 s, docs/performance.md), doubled for a
# slower runner. Without it two fetches' worst case (2 x 600 s) would fit the budget exactly
# 16 times, and the 16th attempt of a full batch would never start (its market blocked).
PIN_VERIFY_SECONDS = 120


def attempt_seconds(limits: Limits | None = None, sandbox: SandboxLimits | None = None) -> int:
    """The longest one attempt's rerun can take: all of its released data, then the sandbox's
    two runs (the adapter run and its repeat)."""
    limits, sandbox = limits or Limits(), sandbox or SandboxLimits()
    return math.ceil(limits.released_deadline + 2 * sandbox.wall_seconds)


def pin_seconds(limits: Limits | None = None) -> int:
    """The longest one attempt's pin fetches can take at the close: its raw log and its
    paper's freeze, each within `Limits.fetch_deadline`, and the rest of its `claims verify`
    (`PIN_VERIFY_SECONDS`)."""
    limits = limits or Limits()
    return math.ceil(2 * limits.fetch_deadline) + PIN_VERIFY_SECONDS


def guaranteed_per_job(seconds_per_attempt: int | None = None) -> int:
    """Attempts a job runs even when every one takes its worst case (`seconds_per_attempt`,
    by default a rerun's)."""
    return JOB_BUDGET_SECONDS // (seconds_per_attempt or attempt_seconds())


@dataclass(frozen=True, slots=True)
class RerunPlan:
    """`batches`: one list of `{"attempt": FOLDER, "commit": SHA}` a rerun job; `waiting`: the
    markets left out whole, `{"market": N, "attempts": COUNT}` (planned on a later run)."""

    batches: tuple[tuple[Mapping[str, str], ...], ...]
    waiting: tuple[tuple[int, int], ...] = ()
    # The worst case of one attempt's work in a job: `attempt_seconds()` for a rerun; the pin
    # plan's (`pin_seconds()`) for the close's pin fetches.
    seconds_per_attempt: int | None = None
    # The pin plan only (`plan_keep`): the files its pin jobs keep for the archives, each
    # `(attempt folder, sha256, at most this many bytes)`; None in the rerun plan.
    keep: tuple[tuple[str, str, int], ...] | None = None
    # The rerun plan only (`released_share`; not in the pin plan, which has `keep`): the bytes
    # of released data each rerun job may keep for the archives (0 unless planned: none).
    released_bytes: int = 0

    @property
    def attempts(self) -> int:
        return sum(len(batch) for batch in self.batches)

    def as_json(self) -> dict[str, object]:
        planned: dict[str, object] = {
            "batches": [[dict(entry) for entry in batch] for batch in self.batches],
            "seconds_per_attempt": self.seconds_per_attempt or attempt_seconds(),
            "seconds_per_job": JOB_BUDGET_SECONDS,
            "waiting": [{"market": market, "attempts": count} for market, count in self.waiting],
        }
        if self.keep is None:
            planned["released_bytes"] = self.released_bytes
        else:
            planned["keep"] = [
                {"attempt": attempt, "sha256": sha256, "bytes": size}
                for attempt, sha256, size in self.keep
            ]
        return planned


def batch_reruns(
    by_market: Sequence[tuple[int, Sequence[Mapping[str, str]]]],
    max_jobs: int = MAX_RERUN_JOBS,
    per_job: int = MAX_ATTEMPTS_PER_JOB,
) -> RerunPlan:
    """Each market's rerun entries, in market order, batched into at most `max_jobs` jobs of at
    most `per_job` attempts; a market that does not fit whole waits (`RerunPlan.waiting`)."""
    room = max_jobs * per_job
    planned: list[Mapping[str, str]] = []
    waiting: list[tuple[int, int]] = []
    for market, entries in by_market:
        if len(planned) + len(entries) > room:
            waiting.append((market, len(entries)))
        else:
            planned += entries
    size = max(1, math.ceil(len(planned) / max_jobs))
    batches = tuple(tuple(planned[i : i + size]) for i in range(0, len(planned), size))
    return RerunPlan(batches, tuple(waiting))


def plan_keep(
    by_market: Sequence[tuple[int, Sequence[tuple[str, str, int]]]], limits: Limits | None = None
) -> tuple[tuple[str, str, int], ...]:
    """Which fetched files the pin jobs keep: `by_market` lists, in market order, each
    market's pins as `(attempt folder, sha256, declared bytes)` (a paper's freeze declares no
    size: its limit, `Limits.max_paper_freeze_bytes`, stands for it). Within each market the
    smallest first, as the archive fills its caps: a file over `max_archived_pin_bytes` is never
    kept, and a market's files together stay within `max_archived_pins_bytes`; all the run's
    files within `max_kept_pins_bytes` (the close job's disk), each file counted once however
    many attempts pin it. A pin left out is fetched and counted all the same; the archive's
    manifest lists it as not carried (`pin-not-archived`)."""
    limits = limits or Limits()
    kept: dict[str, int] = {}  # sha256 -> bytes, over the whole run
    planned: set[tuple[str, str, int]] = set()
    for _, pins in by_market:
        carried: dict[str, int] = {}
        for attempt, sha256, size in sorted(pins, key=lambda pin: (pin[2], pin[0], pin[1])):
            if sha256 not in carried:
                if size < 1 or size > limits.max_archived_pin_bytes:
                    continue
                if sum(carried.values()) + size > limits.max_archived_pins_bytes:
                    continue
                if sha256 not in kept and sum(kept.values()) + size > limits.max_kept_pins_bytes:
                    continue
                carried[sha256] = size
                kept.setdefault(sha256, size)
            planned.add((attempt, sha256, kept[sha256]))
    return tuple(sorted(planned))


def kept_bytes(keep: Sequence[tuple[str, str, int]]) -> int:
    """The bytes `plan_keep`'s entries keep, each file (sha256) counted once."""
    return sum({sha256: size for _, sha256, size in keep}.values())


def released_share(pins_bytes: int, batches: int, limits: Limits | None = None) -> int:
    """The bytes of released data each of `batches` rerun jobs may keep for the archives: what
    the run's keep budget (`Limits.max_kept_pins_bytes`, the close job's disk) leaves after the
    `pins_bytes` the pin plan keeps, split evenly (rounded down, so that the shares and the
    pins together never pass the budget). Released data declares no size, so it cannot be
    planned file by file as the pins are: a rerun job keeps a file only while its kept bytes
    stay within its share, and one not kept is listed in the archive's manifest as not
    carried (`pin-not-archived`)."""
    limits = limits or Limits()
    left = max(0, limits.max_kept_pins_bytes - pins_bytes)
    return left // max(1, batches)

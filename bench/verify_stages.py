"""Where `claims verify`'s reading time goes, stage by stage, on a bench attempt; prints figures.

    python bench/verify_stages.py ATTEMPT [--repeat 3] [--write-docs]

ATTEMPT is an attempt folder `bench/verify_scale.py --keep` built (its freeze-cases.jsonl and
trials.jsonl). In one process, with the garbage collector paused as verify pauses it, each
stage of the typed reading is timed in CPU seconds (best of --repeat), in the order verify
runs them:

- baseline: read each line, `orjson.loads` it and SHA-256 the file (bench/verify_scale.py's);
- blocks: the files read a block of whole lines at a time and split (`jsonl._blocks`);
- msgspec decode: each line decoded into its Struct, nothing else (the floor of the typed read);
- typed blocks: `LineDecoder.cases` / `.trials` on each block: the decode, the domain checks
  made on the block's bytes, the counts, the contents' hashes, the starts;
- keep: `CaseChecker.add_typed_lines` / `TrialChecker.add_typed_lines` (lean cases, as verify).

and the sum of the stages verify runs (blocks, typed blocks, keep) against the baseline. What
verify does besides (start-up, the folder's scan and hashes, names and withheld fields, bars,
units, the judge, the reports) is the rest of `bench/verify_scale.py`'s figure.
`--write-docs` also writes what it printed into docs/performance.md (`bench/docs_section.py`,
the block `verify_stages-100k` or `verify_stages-1m` by the attempt's size).
"""

from __future__ import annotations

import argparse
import gc
import hashlib
import os
import platform
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import orjson

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.rules.evidence.cases import CaseChecker
from bot.rules.evidence.trials import TrialChecker
from bot.vocab.jsonl import _blocks
from bot.vocab.typed import LineDecoder

FILES = ("freeze-cases.jsonl", "trials.jsonl")
UNIT_KEYS = ("system", "trajectory", "evaluator", "attack_family")  # the bench market's
PUBLIC = frozenset({"probe"})  # the field the bench market's bars select cases by


def best(repeat: int, run: Callable[[], Any]) -> tuple[float, Any]:
    """The least CPU time of `repeat` runs of `run`, and the last run's result."""
    times, result = [], None
    for _ in range(repeat):
        started = time.process_time()
        result = run()
        times.append(time.process_time() - started)
    return min(times), result


def baseline(paths: list[Path]) -> None:
    for path in paths:
        digest = hashlib.sha256()
        with path.open("rb") as lines:
            for line in lines:
                digest.update(line)
                orjson.loads(line)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("attempt", type=Path)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--write-docs", action="store_true", help="write docs/performance.md")
    args = parser.parse_args()
    if not args.write_docs:
        _run(args)
        return
    from docs_section import captured, write_section

    with captured() as printed:
        lines = _run(args)
    scale = "1m" if lines >= 2_000_000 else "100k"
    write_section(f"verify_stages-{scale}", printed.getvalue(), "python bench/verify_stages.py")


def _run(args: argparse.Namespace) -> int:
    """Time the stages and print them; the number of lines read."""
    paths = [args.attempt / name for name in FILES]
    gc.disable()
    repeat = args.repeat

    def read_blocks() -> list[list[tuple[bytes, list[bytes]]]]:
        found = []
        for path in paths:
            with path.open("rb") as stream:
                found.append(list(_blocks(stream, 1_000_000)))
        return found

    base, _ = best(repeat, lambda: baseline(paths))
    split, (case_blocks, trial_blocks) = best(repeat, read_blocks)
    lines = sum(len(found) for _, found in case_blocks + trial_blocks)
    decoder = LineDecoder()
    case_decode, trial_decode = decoder._case.decode, decoder._trial.decode
    floor, _ = best(
        repeat,
        lambda: (
            [list(map(case_decode, found)) for _, found in case_blocks],
            [list(map(trial_decode, found)) for _, found in trial_blocks],
        ),
    )
    typed_cases, cases_read = best(
        repeat, lambda: [decoder.cases(block, found) for block, found in case_blocks]
    )
    typed_trials, trials_read = best(
        repeat, lambda: [decoder.trials(block, found) for block, found in trial_blocks]
    )
    assert None not in cases_read and None not in trials_read, "a block was declined"

    def keep() -> tuple[CaseChecker, TrialChecker]:
        cases = CaseChecker("freeze-cases.jsonl", PUBLIC)
        first = 1
        for read in cases_read:
            cases.add_typed_lines(first, *read)
            first += len(read[0])
        cases.finish()
        trials = TrialChecker(cases.cases, UNIT_KEYS, "trials.jsonl")
        first = 1
        for read in trials_read:
            trials.add_typed_lines(first, *read)
            first += len(read[0])
        trials.finish()
        return cases, trials

    kept, (cases, trials) = best(repeat, keep)
    assert not cases.findings and not trials.findings, "the bench attempt has findings"
    read = split + typed_cases + typed_trials + kept
    print(f"{lines:,} lines ({len(cases.cases):,} cases, {len(trials.trials):,} trials)")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs,"
        f" Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"CPU seconds, best of {repeat}, GC paused; per line in microseconds")
    rows = [
        ("baseline (orjson + sha256)", base),
        ("blocks read and split", split),
        ("msgspec decode only (floor)", floor),
        ("typed blocks: cases", typed_cases),
        ("typed blocks: trials", typed_trials),
        ("keep: cases and trials", kept),
        ("reading as verify does", read),
    ]
    for label, seconds in rows:
        per_line, ratio = seconds / lines * 1e6, seconds / base
        print(f"  {label:32s} {seconds:7.2f} s  {per_line:5.2f} us  {ratio:5.1f}x")
    return lines


if __name__ == "__main__":
    main()

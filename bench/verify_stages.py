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
    passes = [_stream(paths) for _ in range(args.repeat)]
    times = {stage: min(run[0][stage] for run in passes) for stage in passes[0][0]}
    lines, cases, trials = passes[-1][1:]
    base = min(best(1, lambda: baseline(paths))[0] for _ in range(args.repeat))
    print(f"{lines:,} lines ({cases:,} cases, {trials:,} trials)")
    print(
        f"machine: {platform.processor() or platform.machine()}, {os.cpu_count()} CPUs,"
        f" Python {platform.python_version()}; load average {os.getloadavg()[0]:.1f}"
    )
    print(f"CPU seconds, best of {args.repeat} passes, GC paused; per line in microseconds")
    read = times["blocks"] + times["cases"] + times["trials"] + times["keep"]
    rows = [
        ("baseline (orjson + sha256)", base),
        ("blocks read and split", times["blocks"]),
        ("msgspec decode only (floor)", times["floor"]),
        ("typed blocks: cases", times["cases"]),
        ("typed blocks: trials", times["trials"]),
        ("keep: cases and trials", times["keep"]),
        ("reading as verify does", read),
    ]
    for label, seconds in rows:
        per_line, ratio = seconds / lines * 1e6, seconds / base
        print(f"  {label:32s} {seconds:7.2f} s  {per_line:5.2f} us  {ratio:5.1f}x")
    return lines


def _stream(paths: list[Path]) -> tuple[dict[str, float], int, int, int]:
    """One pass over both files as verify makes it, block by block (nothing but the kept
    models held): the CPU seconds of each stage, the lines, cases and trials."""
    clock = time.process_time
    times = dict.fromkeys(("blocks", "floor", "cases", "trials", "keep"), 0.0)
    decoder = LineDecoder()
    cases = CaseChecker("freeze-cases.jsonl", PUBLIC)
    trials: TrialChecker | None = None
    lines = 0
    for path in paths:
        is_cases = path.name == FILES[0]
        decode = decoder._case.decode if is_cases else decoder._trial.decode
        with path.open("rb") as stream:
            blocks = _blocks(stream, 1_000_000)
            while True:
                started = clock()
                block_lines = next(blocks, None)
                times["blocks"] += clock() - started
                if block_lines is None:
                    break
                block, found = block_lines
                started = clock()
                list(map(decode, found))
                times["floor"] += clock() - started
                started = clock()
                read: Any = (
                    decoder.cases(block, found) if is_cases else decoder.trials(block, found)
                )
                times["cases" if is_cases else "trials"] += clock() - started
                assert read is not None, "a block was declined"
                started = clock()
                if is_cases:
                    cases.add_typed_lines(lines + 1, *read)
                else:
                    assert trials is not None
                    trials.add_typed_lines(lines - len(cases.cases) + 1, *read)
                times["keep"] += clock() - started
                lines += len(found)
        if is_cases:
            started = clock()
            cases.finish()
            trials = TrialChecker(cases.cases, UNIT_KEYS, "trials.jsonl")
            times["keep"] += clock() - started
    assert trials is not None
    started = clock()
    trials.finish()
    times["keep"] += clock() - started
    assert not cases.findings and not trials.findings, "the bench attempt has findings"
    return times, lines, len(cases.cases), len(trials.trials)


if __name__ == "__main__":
    main()

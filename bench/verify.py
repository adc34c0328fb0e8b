"""Benchmark `claims verify` on one attempt of growing size; prints figures, asserts nothing.

    python bench/verify.py [CASES_PER_FAMILY ...]     (default: 500 5000 25000)

Each size builds a real git registry (freeze merged before the run) with two families, so the
attempt has 2 x N cases and as many trials, then times a full verification with qualification
(evidence, freeze order from git, bars, score table, judgments) and reports peak traced memory.
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app.attempt_verify import verify_attempt
from bot.app.registry import load_registry
from bot.edges.history import open_history
from bot.edges.tree import FolderTree
from bot.faces.demo.specimen import AttemptSpec
from tests.support import RegistryFactory


def main(sizes: list[int]) -> None:
    print(f"{'trials':>8} {'build s':>8} {'verify s':>9} {'peak MiB':>9}  status")
    for size in sizes:
        with tempfile.TemporaryDirectory() as folder:
            started = time.perf_counter()
            built = RegistryFactory(Path(folder))(AttemptSpec(cases_per_family=size))
            build = time.perf_counter() - started
            registry = load_registry(FolderTree(built.root))
            history = open_history(built.root, "main")
            as_of = date(2027, 4, 15)
            folder_path = built.attempt.relative_to(built.root).as_posix()
            started = time.perf_counter()
            verdict, _ = verify_attempt(registry, folder_path, history, as_of)
            elapsed = time.perf_counter() - started
            tracemalloc.start()
            verify_attempt(registry, folder_path, history, as_of)
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()
            print(
                f"{verdict.counts.trials:>8} {build:>8.1f} {elapsed:>9.2f} {peak:>9.1f}"
                f"  {verdict.evidence}, {verdict.status}"
            )


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [500, 5000, 25000])

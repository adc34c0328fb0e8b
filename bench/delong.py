"""Benchmark DeLong's AUROC and variance against scikit-learn's roc_auc_score; prints figures.

    python bench/delong.py [--n 1000000] [--repeat 5]

n scores, half positive (seeded normal scores, rounded to 3 decimals so there are ties), as the
bot receives them (Python lists of floats). Times, in CPU seconds (best of --repeat):
`bot.rules.stats.delong.auroc` (AUROC and variance: one sort of the pooled scores gives all three
midrank sets) and, when scikit-learn is installed, `sklearn.metrics.roc_auc_score` on the same
data (labels and scores as numpy arrays; AUROC only). Target (issue 13): <= 1.5x sklearn.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.rules.stats.delong import auroc


def best(work: Callable[[], Any], repeat: int) -> tuple[float, Any]:
    times, result = [], None
    for _ in range(repeat):
        started = time.process_time()
        result = work()
        times.append(time.process_time() - started)
    return min(times), result


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--n", type=int, default=1_000_000)
    parser.add_argument("--repeat", type=int, default=5)
    args = parser.parse_args()
    rng = np.random.default_rng(13)
    m = args.n // 2
    positives = np.round(rng.normal(0.6, 1.0, m), 3).tolist()
    negatives = np.round(rng.normal(0.0, 1.0, args.n - m), 3).tolist()
    ours, result = best(lambda: auroc(positives, negatives), args.repeat)
    print(f"n = {args.n:,} ({m:,} positive), best of {args.repeat}, CPU seconds")
    print(f"bot.rules.stats.delong.auroc (AUROC + variance): {ours:7.3f} s   auc {result.auc:.12f}")
    print(f"    variance {result.variance:.6e}")
    try:
        from sklearn.metrics import roc_auc_score  # type: ignore[import-untyped]
    except ImportError:
        print("sklearn.metrics.roc_auc_score: scikit-learn is not installed; column skipped")
        return
    labels = np.concatenate([np.ones(m), np.zeros(args.n - m)])
    scores = np.concatenate([positives, negatives])
    theirs, auc = best(lambda: roc_auc_score(labels, scores), args.repeat)
    print(f"sklearn roc_auc_score (AUROC only):         {theirs:7.3f} s   auc {auc:.12f}")
    difference = abs(auc - result.auc)
    print(f"ratio: {ours / theirs:.2f}x   (target <= 1.5x)   |auc difference| {difference:.1e}")


if __name__ == "__main__":
    main()

"""The simulated coverage of the AUROC bounds: a table shipped with the bot, interpolated.

A nominal 95% lower bound is honest only if it lies below the true AUROC 95% of the time.
DeLong's bound is a large-sample approximation; `bench/coverage.py` simulates how often it (and
the logit bound of `bot/rules/stats/delong_logit.py`) covers the true AUROC, on binormal scores, for
every pair of class sizes on its grid, and writes `bot/rules/stats/coverage_table.json` (and
docs/statistics.md). Reports show, per AUROC bar, the coverage interpolated from that table at
the bar's units per class and its observed AUROC, so `claims verify` runs no simulation.

How a bar is looked up (docs/spec-notes.md):
- units per class: both classes, m positive and n negative units. The table is simulated with
  the smaller class positive and read symmetrically (the bench shows the orientation changes
  coverage by about its simulation error). Both classes matter: docs/spec.md §6's exact bound at
  zero variance (perfect separation) lifts coverage where both classes are small, less so where one
  is large, so m = n = 10 covers better than m = 10, n = 100.
- AUROC: the observed one, in place of the unknown true AUROC (a plug-in).
- between grid points: linear in log(units) of each class and in the AUROC (trilinear);
  outside the grid: the nearest edge (beyond the largest simulated size the coverage only gets
  closer to nominal, so the edge understates it there).
"""

from __future__ import annotations

import bisect
import json
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from importlib.resources import files

from bot.vocab.values import JSONObject, JSONValue

__all__ = [
    "COVERAGE_WARNING_BELOW",
    "TABLE_FILE",
    "CoverageTable",
    "interpolate",
    "load_table",
    "shipped_coverage",
]

TABLE_FILE = "coverage_table.json"
# Issue 15: a bar whose bound's simulated coverage is below 90% carries `bound-coverage-low`.
COVERAGE_WARNING_BELOW = 0.90


@dataclass(frozen=True)
class CoverageTable:
    """Simulated coverage per method, on a grid of units per class by true AUROC.

    Attributes:
        confidence: the nominal one-sided confidence the bounds were computed at.
        per_class: the class sizes of the grid, increasing.
        auroc: the true AUROCs of the grid, increasing.
        coverage: per method (``delong``, ``delong-logit``, ...), indexed
            ``[auroc][positives][negatives]`` by grid position: a fraction in [0, 1].
        draws: simulated data sets per cell.
        seed: the simulation's seed.
    """

    confidence: float
    per_class: tuple[int, ...]
    auroc: tuple[float, ...]
    coverage: Mapping[str, tuple[tuple[tuple[float, ...], ...], ...]]
    draws: int
    seed: int

    @classmethod
    def from_data(cls, data: JSONObject) -> CoverageTable:
        """The table from its JSON data. Raises ValueError when it is malformed (a bug in the
        shipped file or its generator, not a user's problem)."""
        per_class = tuple(int(k) for k in _numbers(data["per_class"], "per_class"))
        auroc = tuple(float(a) for a in _numbers(data["auroc"], "auroc"))
        if len(per_class) < 2 or list(per_class) != sorted(set(per_class)) or per_class[0] < 2:
            raise ValueError(f"coverage table: per_class must increase from 2: {per_class}")
        if len(auroc) < 2 or list(auroc) != sorted(set(auroc)):
            raise ValueError(f"coverage table: auroc must increase: {auroc}")
        coverage = {}
        size = len(per_class)
        methods = data["coverage"]
        if not isinstance(methods, Mapping):
            raise ValueError("coverage table: coverage must be an object of methods")
        for method, layers in methods.items():
            table = tuple(
                tuple(
                    tuple(float(c) for c in _numbers(row, method)) for row in _items(layer, method)
                )
                for layer in _items(layers, method)
            )
            if len(table) != len(auroc) or any(
                len(layer) != size or any(len(row) != size for row in layer) for layer in table
            ):
                raise ValueError(f"coverage table: {method} is not {len(auroc)} x {size} x {size}")
            values = [c for layer in table for row in layer for c in row]
            if not all(0.0 <= c <= 1.0 for c in values):
                raise ValueError(f"coverage table: {method} holds a value outside [0, 1]")
            coverage[str(method)] = table
        return cls(
            confidence=float(_number(data["confidence"], "confidence")),
            per_class=per_class,
            auroc=auroc,
            coverage=coverage,
            draws=int(_number(data["draws"], "draws")),
            seed=int(_number(data["seed"], "seed")),
        )


def _items(value: JSONValue, what: str) -> Sequence[JSONValue]:
    if not isinstance(value, list):
        raise ValueError(f"coverage table: {what} must be an array")
    return value


def _number(value: JSONValue, what: str) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise ValueError(f"coverage table: {what} must hold numbers, got {value!r}")
    return value


def _numbers(value: JSONValue, what: str) -> list[float]:
    return [_number(item, what) for item in _items(value, what)]


def _bracket(grid: Sequence[float], value: float) -> tuple[int, int, float]:
    """The grid indices either side of `value` and its weight on the upper one (clamped)."""
    if value <= grid[0]:
        return 0, 0, 0.0
    if value >= grid[-1]:
        last = len(grid) - 1
        return last, last, 0.0
    upper = bisect.bisect_right(grid, value)
    lower = upper - 1
    return lower, upper, (value - grid[lower]) / (grid[upper] - grid[lower])


def interpolate(
    table: CoverageTable, method: str, positives: int, negatives: int, auroc: float
) -> float | None:
    """The simulated coverage of `method`'s bound at `positives` and `negatives` units and an
    AUROC of `auroc`: trilinear in log(units) of each class and in the AUROC, clamped to the
    grid.

    Returns None when the table has no such method, a class holds fewer than 2 units (no
    bound is computed there) or the AUROC is not a finite number.
    """
    layers = table.coverage.get(method)
    if layers is None or min(positives, negatives) < 2 or not math.isfinite(auroc):
        return None
    logs = [math.log(k) for k in table.per_class]
    a0, a1, u = _bracket(table.auroc, auroc)
    p0, p1, v = _bracket(logs, math.log(positives))
    n0, n1, w = _bracket(logs, math.log(negatives))

    def at(layer: tuple[tuple[float, ...], ...]) -> float:
        near = layer[p0][n0] * (1.0 - w) + layer[p0][n1] * w
        far = layer[p1][n0] * (1.0 - w) + layer[p1][n1] * w
        return near * (1.0 - v) + far * v

    return at(layers[a0]) * (1.0 - u) + at(layers[a1]) * u


@cache
def load_table() -> CoverageTable:
    """The coverage table shipped in the package (`bot/rules/stats/coverage_table.json`)."""
    text = (files("bot.rules.stats") / TABLE_FILE).read_text("utf-8")
    return CoverageTable.from_data(json.loads(text))


def shipped_coverage(
    method: str, positives: int, negatives: int, auroc: float, confidence: float
) -> float | None:
    """The shipped table's coverage of `method` for an AUROC bar, or None when the table does
    not apply (another confidence than it was simulated at, or no bound is computed)."""
    table = load_table()
    if not math.isclose(confidence, table.confidence, abs_tol=1e-12):
        return None
    return interpolate(table, method, positives, negatives, auroc)

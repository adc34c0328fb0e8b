"""Tests for bot.rules.stats.coverage: the shipped coverage table and its interpolation.

The shipped table (bot/rules/stats/coverage_table.json) is written by bench/coverage.py; one test
reruns a small, seeded simulation with the bench's own code, on another seed, and checks the
table against it within simulation error.
"""

from __future__ import annotations

import importlib.util
import math
import sys
from importlib.resources import files
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.stats.coverage import (
    COVERAGE_WARNING_BELOW,
    CoverageTable,
    interpolate,
    load_table,
    shipped_coverage,
)
from tests.support import PROJECT


def _table(**changes: Any) -> CoverageTable:
    """A 2-AUROC by 2-size table: coverage 0.8 + 0.1 * (auroc index) + 0.01 * (m, n indices)."""
    data: dict[str, Any] = {
        "confidence": 0.95,
        "seed": 1,
        "draws": 10,
        "per_class": [10, 100],
        "auroc": [0.8, 0.9],
        "coverage": {
            "delong": [
                [[0.80, 0.81], [0.81, 0.82]],
                [[0.90, 0.91], [0.91, 0.92]],
            ]
        },
    }
    data.update(changes)
    return CoverageTable.from_data(data)


def test_grid_points_are_exact() -> None:
    table = _table()
    assert interpolate(table, "delong", 10, 10, 0.8) == pytest.approx(0.80)
    assert interpolate(table, "delong", 100, 10, 0.9) == pytest.approx(0.91)
    assert interpolate(table, "delong", 100, 100, 0.9) == pytest.approx(0.92)


def test_linear_in_auroc_and_in_log_units() -> None:
    table = _table()
    assert interpolate(table, "delong", 10, 10, 0.85) == pytest.approx(0.85)
    # sqrt(10 * 100) is halfway between 10 and 100 on the log scale.
    assert interpolate(table, "delong", 32, 10, 0.8) == pytest.approx(
        0.80 + 0.01 * math.log(32 / 10) / math.log(10)
    )
    assert interpolate(table, "delong", 32, 32, 0.85) == pytest.approx(
        0.85 + 0.02 * math.log(32 / 10) / math.log(10)
    )


@pytest.mark.parametrize(
    ("positives", "negatives", "auroc", "expected"),
    [(2, 5, 0.5, 0.80), (1000, 1000, 1.0, 0.92), (1000, 3, 0.99, 0.91), (5, 5, 0.95, 0.90)],
)
def test_outside_the_grid_the_nearest_edge(
    positives: int, negatives: int, auroc: float, expected: float
) -> None:
    assert interpolate(_table(), "delong", positives, negatives, auroc) == pytest.approx(expected)


@pytest.mark.parametrize(
    ("method", "positives", "negatives", "auroc"),
    [
        ("other", 10, 10, 0.8),
        ("delong", 1, 10, 0.8),
        ("delong", 10, 0, 0.8),
        ("delong", 10, 10, math.nan),
    ],
)
def test_no_coverage_without_a_bound(
    method: str, positives: int, negatives: int, auroc: float
) -> None:
    assert interpolate(_table(), method, positives, negatives, auroc) is None


@pytest.mark.parametrize(
    "change",
    [
        {"per_class": [100, 10]},
        {"per_class": [1, 10]},
        {"auroc": [0.9, 0.8]},
        {"coverage": {"delong": [[[0.8, 0.8], [0.8, 0.8]]]}},
        {"coverage": {"delong": [[[0.8, 0.8], [0.8, 1.5]], [[0.8, 0.8], [0.8, 0.8]]]}},
    ],
)
def test_a_malformed_table_is_refused(change: dict[str, Any]) -> None:
    with pytest.raises(ValueError, match="coverage table"):
        _table(**change)


@given(
    st.integers(2, 10_000),
    st.integers(2, 10_000),
    st.floats(0.0, 1.0),
)
def test_shipped_coverage_is_a_fraction_and_symmetric(m: int, n: int, auroc: float) -> None:
    table = load_table()
    for method in table.coverage:
        value = interpolate(table, method, m, n, auroc)
        assert value is not None and 0.0 <= value <= 1.0
        assert value == pytest.approx(interpolate(table, method, n, m, auroc), abs=1e-12)


def test_the_shipped_table_is_package_data_and_well_formed() -> None:
    assert (files("bot.rules.stats") / "coverage_table.json").is_file()
    table = load_table()
    assert table.confidence == 0.95
    assert {"delong", "delong-logit"} <= set(table.coverage)
    assert table.per_class[0] <= 10 and table.per_class[-1] >= 200
    assert table.auroc[0] <= 0.5 and table.auroc[-1] >= 0.99


def test_shipped_coverage_only_at_the_tables_confidence() -> None:
    assert shipped_coverage("delong", 10, 10, 0.9, 0.95) is not None
    assert shipped_coverage("delong", 10, 10, 0.9, 0.99) is None


def test_the_issue_case_is_below_the_warning_and_large_samples_are_not() -> None:
    low = shipped_coverage("delong", 10, 10, 0.9, 0.95)
    assert low is not None and low < COVERAGE_WARNING_BELOW
    high = shipped_coverage("delong", 1000, 1000, 0.9, 0.95)
    assert high is not None and high >= COVERAGE_WARNING_BELOW


def _bench() -> ModuleType:
    """bench/coverage.py, imported under a name of its own (the script is not a package)."""
    spec = importlib.util.spec_from_file_location(
        "bench_coverage", PROJECT / "bench" / "coverage.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("bench_coverage", module)
    spec.loader.exec_module(module)
    return module


# Grid cells, checked with 1,000 fresh draws on another seed: the simulation error of the
# difference of the two estimates is at most about 1.4 points (p = 0.85: sqrt(.1275/1000 +
# .1275/2000)); 5 points is 3.6 times that, and below the shortfalls the table reports.
CELLS = [(0.9, 10, 10), (0.8, 30, 30), (0.95, 10, 100), (0.6, 50, 20)]


@pytest.mark.parametrize(("auroc", "m", "n"), CELLS)
def test_the_shipped_table_matches_a_fresh_simulation(auroc: float, m: int, n: int) -> None:
    bench = _bench()
    fresh = bench.auroc_coverage(
        "binormal", auroc, m, n, 1000, seed=20261201, methods=("delong", "delong-logit")
    )
    table = load_table()
    for method, value in fresh.items():
        shipped = interpolate(table, method, m, n, auroc)
        assert shipped is not None
        assert abs(shipped - value) < 0.05, (method, auroc, m, n, shipped, value)

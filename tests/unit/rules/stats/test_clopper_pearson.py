"""Tests for bot.rules.stats.clopper_pearson against published reference values.

References: tests/data/README.md (one-sided 95% bounds to 6 decimals; two-sided 95% exact
limits from R's binom.confint as stored in statsmodels' test results).
"""

from __future__ import annotations

import math
from itertools import pairwise

import pytest
from hypothesis import example, given
from hypothesis import strategies as st

from bot.rules.stats.clopper_pearson import lower_bound, upper_bound
from bot.rules.stats.errors import StatisticsError

# The 6-decimal references carry up to 5e-7 rounding error, so 1e-6 is the honest tolerance.
TOLERANCE = 1e-6

ONE_SIDED_95_UPPER = [
    ((0, 1), 0.95),
    ((0, 10), 0.258866),
    ((0, 59), 0.049508),
    ((0, 100), 0.029513),
    ((1, 10), 0.394163),
    ((4, 200), 0.045180),
    ((10, 1000), 0.016903),
    ((18, 20), 0.981935),
    ((5, 5), 1.0),
]

# binom.confint(x, n, tol = 1e-8), method "exact": two-sided 95% = one-sided 97.5%.
TWO_SIDED_95_UPPER = [
    ((18, 20), 0.9876514728297052),
    ((4, 20), 0.436614002996668),
    ((4, 200), 0.05041360908989634),
]
TWO_SIDED_95_LOWER = [((18, 20), 0.6830172859809176)]


@pytest.mark.parametrize(("counts", "expected"), ONE_SIDED_95_UPPER)
def test_one_sided_upper_matches_reference(counts: tuple[int, int], expected: float) -> None:
    failures, n = counts
    assert upper_bound(failures, n, 0.95) == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.parametrize(("counts", "expected"), TWO_SIDED_95_UPPER)
def test_two_sided_upper_matches_binom_confint(counts: tuple[int, int], expected: float) -> None:
    failures, n = counts
    assert upper_bound(failures, n, 0.975) == pytest.approx(expected, abs=TOLERANCE)


@pytest.mark.parametrize(("counts", "expected"), TWO_SIDED_95_LOWER)
def test_two_sided_lower_matches_binom_confint(counts: tuple[int, int], expected: float) -> None:
    failures, n = counts
    assert lower_bound(failures, n, 0.975) == pytest.approx(expected, abs=TOLERANCE)


def test_all_failures_gives_upper_one() -> None:
    assert upper_bound(5, 5, 0.95) == 1.0
    assert upper_bound(1, 1, 0.5) == 1.0


def test_no_failures_gives_lower_zero() -> None:
    assert lower_bound(0, 5, 0.95) == 0.0
    assert lower_bound(0, 1, 0.5) == 0.0


def test_zero_failures_upper_has_closed_form() -> None:
    # Beta(1, n) quantile: 1 - (1 - c)^(1/n); for n = 59 this is the "rule of 59" bound.
    for n in (1, 10, 59, 100, 1000):
        expected = 1.0 - 0.05 ** (1.0 / n)
        assert upper_bound(0, n, 0.95) == pytest.approx(expected, rel=1e-12)


def test_lower_is_mirror_of_upper() -> None:
    # lower(x, n, c) = 1 - upper(n - x, n, c) by the symmetry of the binomial.
    for failures, n in ((1, 10), (4, 20), (18, 20), (10, 1000)):
        assert lower_bound(failures, n, 0.95) == pytest.approx(
            1.0 - upper_bound(n - failures, n, 0.95), abs=1e-12
        )


@pytest.mark.parametrize(
    ("failures", "n", "confidence", "fragment"),
    [
        (0, 0, 0.95, "n must be at least 1"),
        (0, -3, 0.95, "n must be at least 1"),
        (-1, 10, 0.95, "failures must be >= 0"),
        (11, 10, 0.95, "exceed n"),
        (1, 10, 0.0, "strictly between 0 and 1"),
        (1, 10, 1.0, "strictly between 0 and 1"),
        (1, 10, -0.5, "strictly between 0 and 1"),
        (1, 10, 1.5, "strictly between 0 and 1"),
        (1, 10, math.nan, "strictly between 0 and 1"),
        (1, 10, math.inf, "strictly between 0 and 1"),
        (True, 10, 0.95, "failures must be an integer"),
        (1, True, 0.95, "n must be an integer"),
        (1.0, 10, 0.95, "failures must be an integer"),
        (1, 10.0, 0.95, "n must be an integer"),
        ("1", 10, 0.95, "failures must be an integer"),
        (1, 10, True, "confidence must be a number"),
        (1, 10, "0.95", "confidence must be a number"),
    ],
)
def test_invalid_input_raises(
    failures: object, n: object, confidence: object, fragment: str
) -> None:
    for bound in (upper_bound, lower_bound):
        with pytest.raises(StatisticsError, match=fragment):
            bound(failures, n, confidence)  # type: ignore[arg-type]


def test_statistics_error_is_value_error() -> None:
    assert issubclass(StatisticsError, ValueError)


counts = st.integers(min_value=1, max_value=2000).flatmap(
    lambda n: st.tuples(st.integers(min_value=0, max_value=n), st.just(n))
)
confidences = st.floats(min_value=0.5, max_value=0.9999)


@given(counts, st.floats(min_value=1e-4, max_value=1 - 1e-4))
def test_bounds_within_unit_interval(xn: tuple[int, int], confidence: float) -> None:
    failures, n = xn
    for value in (upper_bound(failures, n, confidence), lower_bound(failures, n, confidence)):
        assert 0.0 <= value <= 1.0
        assert not math.isnan(value)


@given(counts, confidences)
def test_bounds_bracket_observed_rate(xn: tuple[int, int], confidence: float) -> None:
    # For confidence >= 0.5 each one-sided bound lies on its side of the point estimate.
    failures, n = xn
    assert (
        lower_bound(failures, n, confidence) <= failures / n <= upper_bound(failures, n, confidence)
    )


@given(counts, st.floats(min_value=1e-3, max_value=1 - 1e-3))
def test_bounds_monotone_in_failures(xn: tuple[int, int], confidence: float) -> None:
    # Compare x with x + 1 for a fixed n (adjacent pairs imply monotonicity over 0..n).
    failures, n = xn
    failures = min(failures, n - 1)
    assert upper_bound(failures, n, confidence) <= upper_bound(failures + 1, n, confidence)
    assert lower_bound(failures, n, confidence) <= lower_bound(failures + 1, n, confidence)


@pytest.mark.parametrize("n", [1, 2, 7, 59, 200])
def test_bounds_monotone_full_sweep(n: int) -> None:
    uppers = [upper_bound(failures, n, 0.95) for failures in range(n + 1)]
    lowers = [lower_bound(failures, n, 0.95) for failures in range(n + 1)]
    assert all(a < b for a, b in pairwise(uppers))
    assert all(a < b for a, b in pairwise(lowers))


@example(xn=(91, 165), c1=0.5, c2=0.5000000000000001)
@example(xn=(89, 164), c1=0.5, c2=0.5000000000000001)
@given(counts, confidences, confidences)
def test_higher_confidence_widens(xn: tuple[int, int], c1: float, c2: float) -> None:
    """Monotone in the confidence up to the floating-point rounding of the beta quantile:
    confidences one ulp apart may give bounds a few ulps out of order."""
    failures, n = xn
    low, high = min(c1, c2), max(c1, c2)
    assert upper_bound(failures, n, low) <= upper_bound(failures, n, high) + 1e-12
    assert lower_bound(failures, n, low) >= lower_bound(failures, n, high) - 1e-12
    if high - low >= 1e-6:  # a real step in confidence: strictly the right way
        assert upper_bound(failures, n, low) <= upper_bound(failures, n, high)
        assert lower_bound(failures, n, low) >= lower_bound(failures, n, high)

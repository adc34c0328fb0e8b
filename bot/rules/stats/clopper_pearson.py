"""One-sided exact Clopper-Pearson bounds on a binomial proportion.

Clopper, C. J. & Pearson, E. S. (1934). "The use of confidence or fiducial limits illustrated
in the case of the binomial." Biometrika 26(4):404-413. https://doi.org/10.2307/2331986

Beta-quantile form (e.g. Brown, Cai & DasGupta 2001, Statistical Science 16(2):101-133, eq. 4;
https://en.wikipedia.org/wiki/Binomial_proportion_confidence_interval#Clopper%E2%80%93Pearson_interval):
with x failures in n trials and one-sided confidence c,

    upper = Beta.ppf(c, x + 1, n - x)       (1.0 when x == n)
    lower = Beta.ppf(1 - c, x, n - x + 1)   (0.0 when x == 0)

A two-sided interval at level 1 - alpha is the pair of one-sided bounds at c = 1 - alpha / 2.
docs/spec.md §6 uses the one-sided 95% bounds (``rate_upper`` / ``rate_lower``).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Callable

from bot.rules.stats.errors import StatisticsError

__all__ = ["lower_bound", "upper_bound"]


def _betaincinv() -> Callable[[float, float, float], float]:
    """scipy's `betaincinv`, imported on the first bound (bot.rules.stats.special: without
    scipy.special's ~0.25 s `__init__`), so a command that computes no bound (`--help`, most of
    `verify`) pays nothing. scipy.special, not scipy.stats (~1 s more), and beta.ppf(q, a, b) is
    betaincinv(a, b, q) for these arguments (same Boost routine, same bits)."""
    from bot.rules.stats.special import betaincinv

    return betaincinv  # a numpy float, for floats


def _check_counts(failures: int, n: int) -> tuple[int, int]:
    """Validate the counts; return them as plain ints.

    Raises:
        StatisticsError: a count is not an integer (bools are refused), ``n <= 0``,
            ``failures < 0`` or ``failures > n``.
    """
    for name, value in (("failures", failures), ("n", n)):
        if isinstance(value, bool) or not isinstance(value, numbers.Integral):
            raise StatisticsError(
                f"Clopper-Pearson: {name} must be an integer count, got {value!r} "
                f"({type(value).__name__})"
            )
    x, total = int(failures), int(n)
    if total <= 0:
        raise StatisticsError(f"Clopper-Pearson: n must be at least 1, got {total}")
    if x < 0:
        raise StatisticsError(f"Clopper-Pearson: failures must be >= 0, got {x}")
    if x > total:
        raise StatisticsError(f"Clopper-Pearson: failures ({x}) exceed n ({total})")
    return x, total


def _check_confidence(confidence: float) -> float:
    """Validate a one-sided confidence level; return it as a float.

    Raises:
        StatisticsError: ``confidence`` is not a real number (bools are refused), is not
            finite, or is not strictly between 0 and 1.
    """
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise StatisticsError(
            f"Clopper-Pearson: confidence must be a number in (0, 1), got {confidence!r}"
        )
    c = float(confidence)
    if not (math.isfinite(c) and 0.0 < c < 1.0):
        raise StatisticsError(
            f"Clopper-Pearson: confidence must be strictly between 0 and 1, got {c!r}"
        )
    return c


def upper_bound(failures: int, n: int, confidence: float) -> float:
    """One-sided exact Clopper-Pearson upper confidence bound on the failure rate.

    Args:
        failures: number of failures x, ``0 <= x <= n``.
        n: number of trials (or units), ``n >= 1``.
        confidence: one-sided confidence level in (0, 1), e.g. 0.95.

    Returns:
        ``Beta.ppf(confidence, x + 1, n - x)``, a float in (0, 1]; exactly 1.0 when
        ``x == n`` (the Beta quantile is undefined there and scipy returns NaN).

    Raises:
        StatisticsError: a count is not an int (bools refused), ``n <= 0``, ``x < 0``,
            ``x > n``, or ``confidence`` is not in (0, 1).
    """
    x, total = _check_counts(failures, n)
    c = _check_confidence(confidence)
    if x == total:
        return 1.0
    return float(_betaincinv()(x + 1, total - x, c))


def lower_bound(failures: int, n: int, confidence: float) -> float:
    """One-sided exact Clopper-Pearson lower confidence bound on the failure rate.

    Args:
        failures: number of failures x, ``0 <= x <= n``.
        n: number of trials (or units), ``n >= 1``.
        confidence: one-sided confidence level in (0, 1), e.g. 0.95.

    Returns:
        ``Beta.ppf(1 - confidence, x, n - x + 1)``, a float in [0, 1); exactly 0.0 when
        ``x == 0`` (the Beta quantile is undefined there and scipy returns NaN).

    Raises:
        StatisticsError: a count is not an int (bools refused), ``n <= 0``, ``x < 0``,
            ``x > n``, or ``confidence`` is not in (0, 1).
    """
    x, total = _check_counts(failures, n)
    c = _check_confidence(confidence)
    if x == 0:
        return 0.0
    return float(_betaincinv()(x, total - x + 1, 1.0 - c))

"""Tests for bot.rules.stats.delong: pROC's aSAH reference values and fast == quadratic.

References: tests/data/README.md (pROC test suite values for the aSAH data set; Robin et al.
2011, BMC Bioinformatics 12:77; Turck et al. 2010).
"""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import norm  # type: ignore[import-untyped]

from bot.rules.stats import delong
from bot.rules.stats.delong import DeLongResult, auroc, auroc_quadratic, lower_bound
from bot.rules.stats.errors import StatisticsError
from tests.support import ASAH_REFERENCE, asah_scores

TOLERANCE = 1e-6
# pROC tests/testthat/test-ci.auc.R (the ndka marker of ASAH_REFERENCE).
NDKA_CI_95 = (0.501244999271703, 0.722670989888189)


def test_asah_class_sizes() -> None:
    positives, negatives = asah_scores("s100b")
    assert (len(positives), len(negatives)) == (41, 72)


@pytest.mark.parametrize("marker", sorted(ASAH_REFERENCE))
@pytest.mark.parametrize("method", [auroc, auroc_quadratic])
def test_asah_matches_proc(marker: str, method: object) -> None:
    positives, negatives = asah_scores(marker)
    result = method(positives, negatives)  # type: ignore[operator]
    expected_auc, expected_variance = ASAH_REFERENCE[marker]
    assert isinstance(result, DeLongResult)
    assert result.auc == pytest.approx(expected_auc, abs=TOLERANCE)
    assert result.variance == pytest.approx(expected_variance, abs=TOLERANCE)
    # They agree far more closely than the stated tolerance.
    assert result.auc == pytest.approx(expected_auc, abs=1e-12)
    assert result.variance == pytest.approx(expected_variance, abs=1e-12)
    assert (result.n_positive, result.n_negative) == (41, 72)


def test_asah_ndka_two_sided_ci() -> None:
    result = auroc(*asah_scores("ndka"))
    half_width = float(norm.ppf(0.975)) * math.sqrt(result.variance)
    assert result.auc - half_width == pytest.approx(NDKA_CI_95[0], abs=TOLERANCE)
    assert result.auc + half_width == pytest.approx(NDKA_CI_95[1], abs=TOLERANCE)
    # lower_bound at one-sided 97.5% is the two-sided 95% lower limit.
    assert lower_bound(result, 0.975) == pytest.approx(NDKA_CI_95[0], abs=TOLERANCE)


def test_asah_s100b_one_sided_lower_bound() -> None:
    result = auroc(*asah_scores("s100b"))
    expected = result.auc - float(norm.ppf(0.95)) * math.sqrt(result.variance)
    assert lower_bound(result, 0.95) == pytest.approx(expected, abs=1e-15)
    assert 0.6 < lower_bound(result, 0.95) < result.auc


def test_hand_computed_example_with_ties() -> None:
    # psi matrix for X = (2, 1), Y = (1, 0): [[1, 1], [0.5, 1]] -> AUC 3.5 / 4.
    # V10 = (1, 0.75), V01 = (0.75, 1): var = 0.03125 / 2 + 0.03125 / 2 = 0.03125.
    result = auroc([2.0, 1.0], [1.0, 0.0])
    assert result == DeLongResult(auc=0.875, variance=0.03125, n_positive=2, n_negative=2)


def test_perfect_separation() -> None:
    """DeLong's variance is 0 here, so its bound would be 1.0 from five scores. The bound is the
    exact one from min(m, n) = 2 disjoint concordant pairs instead: alpha ** (1 / 2)."""
    result = auroc([3.0, 4.0, 5.0], [0.0, 1.0])
    assert result.auc == 1.0
    assert result.variance == 0.0
    assert lower_bound(result, 0.95) == pytest.approx(0.05**0.5, abs=1e-12)


# (positives, negatives, bound): alpha ** (1 / min(m, n)) with alpha = 0.05.
PERFECT_SEPARATION_BOUNDS = [(2, 2, 0.2236), (16, 2, 0.2236), (2, 16, 0.2236), (1000, 1000, 0.9970)]


@pytest.mark.parametrize(("m", "n", "expected"), PERFECT_SEPARATION_BOUNDS)
def test_perfect_separation_bound_is_exact_from_disjoint_pairs(
    m: int, n: int, expected: float
) -> None:
    positives = [float(n + i) for i in range(m)]
    negatives = [float(j) for j in range(n)]
    result = auroc(positives, negatives)
    assert (result.auc, result.variance) == (1.0, 0.0)
    bound = lower_bound(result, 0.95)
    assert bound == pytest.approx(expected, abs=1e-4)
    assert bound == pytest.approx(0.05 ** (1 / min(m, n)), abs=1e-12)
    assert bound < 1.0


@pytest.mark.parametrize(
    ("positives", "negatives"),
    [
        ([0.0, 1.0], [2.0, 3.0, 4.0]),  # every pair discordant: AUC 0
        ([1.0, 1.0, 1.0], [1.0, 1.0]),  # all tied: AUC 1/2, no pair concordant
    ],
)
def test_zero_variance_without_concordant_pairs_bounds_at_zero(
    positives: list[float], negatives: list[float]
) -> None:
    result = auroc(positives, negatives)
    assert result.variance == 0.0
    assert lower_bound(result, 0.95) == 0.0


def test_zero_variance_needs_class_sizes() -> None:
    with pytest.raises(StatisticsError, match="class sizes"):
        lower_bound(DeLongResult(auc=1.0, variance=0.0, n_positive=0, n_negative=2), 0.95)


def test_all_tied_scores_give_one_half() -> None:
    result = auroc([1.0, 1.0, 1.0], [1.0, 1.0])
    assert result.auc == 0.5
    assert result.variance == 0.0


def test_lower_bound_is_clipped_to_unit_interval() -> None:
    # A wide interval around a small AUC would go below 0 without the clip.
    wide = DeLongResult(auc=0.1, variance=0.25, n_positive=2, n_negative=2)
    assert lower_bound(wide, 0.95) == 0.0
    # With confidence < 0.5 the "lower" bound lies above the AUC and can exceed 1.
    high = DeLongResult(auc=0.99, variance=0.25, n_positive=2, n_negative=2)
    assert lower_bound(high, 0.01) == 1.0


def test_accepts_integer_scores_and_tuples() -> None:
    assert auroc((1, 2, 3), (0, 2)) == auroc([1.0, 2.0, 3.0], [0.0, 2.0])


@pytest.mark.parametrize(
    ("positives", "negatives", "fragment"),
    [
        ([], [1.0, 2.0], "no positive scores"),
        ([1.0, 2.0], [], "no negative scores"),
        ([1.0], [1.0, 2.0], "only one positive score"),
        ([1.0, 2.0], [0.5], "only one negative score"),
        ([1.0, math.nan], [0.0, 1.0], "positive score #1 is not finite"),
        ([1.0, 2.0], [math.inf, 1.0], "negative score #0 is not finite"),
        ([1.0, 2.0], [-math.inf, 1.0], "negative score #0 is not finite"),
        ([1.0, "2"], [0.0, 1.0], "positive score #1 is not a real number"),
        ([1.0, 2.0], [True, 1.0], "negative score #0 is not a real number"),
        ([1.0, None], [0.0, 1.0], "positive score #1 is not a real number"),
    ],
)
def test_invalid_scores_raise(
    positives: list[object], negatives: list[object], fragment: str
) -> None:
    for method in (auroc, auroc_quadratic):
        with pytest.raises(StatisticsError, match=fragment):
            method(positives, negatives)  # type: ignore[arg-type]


@pytest.mark.parametrize("confidence", [0.0, 1.0, -1.0, 2.0, math.nan, True, "0.95"])
def test_lower_bound_rejects_bad_confidence(confidence: object) -> None:
    result = DeLongResult(auc=0.7, variance=0.01, n_positive=10, n_negative=10)
    with pytest.raises(StatisticsError, match="confidence"):
        lower_bound(result, confidence)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    "result",
    [
        DeLongResult(auc=math.nan, variance=0.01, n_positive=2, n_negative=2),
        DeLongResult(auc=0.5, variance=-0.01, n_positive=2, n_negative=2),
        DeLongResult(auc=0.5, variance=math.inf, n_positive=2, n_negative=2),
    ],
)
def test_lower_bound_rejects_bad_result(result: DeLongResult) -> None:
    with pytest.raises(StatisticsError):
        lower_bound(result, 0.95)


# Small integer sets force many ties; a few half-integers and negatives mix things up.
tied_scores = st.lists(st.sampled_from([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0]), min_size=2, max_size=25)
wide_scores = st.lists(
    st.floats(min_value=-1e6, max_value=1e6, allow_nan=False, allow_infinity=False),
    min_size=2,
    max_size=25,
)


@given(tied_scores, tied_scores)
def test_fast_equals_quadratic_with_ties(positives: list[float], negatives: list[float]) -> None:
    fast = auroc(positives, negatives)
    slow = auroc_quadratic(positives, negatives)
    assert fast.auc == pytest.approx(slow.auc, abs=1e-12)
    assert fast.variance == pytest.approx(slow.variance, abs=1e-12)
    assert (fast.n_positive, fast.n_negative) == (slow.n_positive, slow.n_negative)
    assert 0.0 <= fast.auc <= 1.0
    assert fast.variance >= -1e-15


@given(wide_scores, wide_scores)
def test_fast_equals_quadratic_continuous(positives: list[float], negatives: list[float]) -> None:
    fast = auroc(positives, negatives)
    slow = auroc_quadratic(positives, negatives)
    assert fast.auc == pytest.approx(slow.auc, abs=1e-12)
    assert fast.variance == pytest.approx(slow.variance, abs=1e-12)
    assert 0.0 <= fast.auc <= 1.0


@given(tied_scores, tied_scores)
def test_swapping_classes_complements_auc(positives: list[float], negatives: list[float]) -> None:
    forward = auroc(positives, negatives)
    backward = auroc(negatives, positives)
    assert forward.auc + backward.auc == pytest.approx(1.0, abs=1e-12)
    assert forward.variance == pytest.approx(backward.variance, abs=1e-12)


@given(tied_scores, tied_scores, st.floats(min_value=0.5, max_value=0.999))
def test_lower_bound_in_unit_interval_and_below_auc(
    positives: list[float], negatives: list[float], confidence: float
) -> None:
    result = auroc(positives, negatives)
    bound = lower_bound(result, confidence)
    assert 0.0 <= bound <= result.auc + 1e-15


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.integers(-5, 5).map(lambda v: v / 2), min_size=2, max_size=40),
    st.lists(st.integers(-5, 5).map(lambda v: v / 2), min_size=2, max_size=40),
)
def test_one_sort_gives_each_class_s_midranks_to_the_bit(
    positives: list[float], negatives: list[float]
) -> None:
    """`auroc` takes all three midrank sets from one sort of the pooled scores (ties kept)."""
    x, y = np.asarray(positives), np.asarray(negatives)
    tz, tx, ty = delong._pooled_midranks(x, y)
    assert tz.tolist() == delong._midranks(np.concatenate([x, y])).tolist()
    assert tx.tolist() == delong._midranks(x).tolist()
    assert ty.tolist() == delong._midranks(y).tolist()

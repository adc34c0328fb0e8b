"""Tests for bot.rules.stats.delong_logit: DeLong's variance on the logit scale.

Reference values: the logit bound computed by hand (Python's math, z = 1.6448536269514722,
the 95% standard normal quantile) from pROC's aSAH AUCs and DeLong variances, the same
reference values tests/unit/rules/stats/test_delong.py checks the AUC and variance against.
"""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.rules.stats import delong
from bot.rules.stats.delong_logit import METHOD, lower_bound
from bot.rules.stats.errors import StatisticsError
from tests.support import ASAH_REFERENCE, asah_scores

# expit(logit(A) - z sqrt(V) / (A (1 - A))) from pROC's (A, V).
ASAH_LOGIT_95 = {
    "s100b": 0.6385510295620556,
    "ndka": 0.5160642869566763,
    "wfns": 0.7516165455637921,
}


@pytest.mark.parametrize("marker", sorted(ASAH_REFERENCE))
def test_asah_reference_values(marker: str) -> None:
    result = delong.auroc(*asah_scores(marker))
    assert lower_bound(result, 0.95) == pytest.approx(ASAH_LOGIT_95[marker], abs=1e-6)


def test_method_name() -> None:
    assert METHOD == "delong-logit"


def test_near_one_the_logit_bound_reaches_lower_than_delongs() -> None:
    # The skew the transform corrects: near AUROC 1 the estimate's distribution has a long
    # lower tail, which DeLong's symmetric bound ignores (so it covers too seldom there).
    result = delong.DeLongResult(auc=0.97, variance=0.0009, n_positive=20, n_negative=20)
    assert lower_bound(result, 0.95) == pytest.approx(0.856, abs=1e-3)
    assert delong.lower_bound(result, 0.95) == pytest.approx(0.9207, abs=1e-3)


@pytest.mark.parametrize("auc", [0.0, 0.5, 1.0])
def test_zero_variance_is_delongs_exact_bound(auc: float) -> None:
    result = delong.DeLongResult(auc=auc, variance=0.0, n_positive=8, n_negative=5)
    assert lower_bound(result, 0.95) == delong.lower_bound(result, 0.95)


def test_inputs_are_checked_as_delongs() -> None:
    result = delong.DeLongResult(auc=0.8, variance=0.01, n_positive=5, n_negative=5)
    for confidence in (0.0, 1.0, math.nan, True):
        with pytest.raises(StatisticsError):
            lower_bound(result, confidence)  # type: ignore[arg-type]
    with pytest.raises(StatisticsError):
        lower_bound(delong.DeLongResult(0.8, -1.0, 5, 5), 0.95)


@given(
    st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30),
    st.lists(st.floats(-1e6, 1e6), min_size=2, max_size=30),
    st.sampled_from([0.8, 0.9, 0.95, 0.99]),
)
def test_bound_is_a_lower_bound_in_range(
    positives: list[float], negatives: list[float], confidence: float
) -> None:
    result = delong.auroc(positives, negatives)
    bound = lower_bound(result, confidence)
    assert 0.0 <= bound < 1.0
    if result.variance > 0.0 and 0.0 < result.auc < 1.0:
        assert bound < result.auc
        # A higher confidence never gives a higher lower bound.
        assert lower_bound(result, 0.999) <= bound

"""AUROC with DeLong's variance, via the O(n log n) midrank algorithm.

DeLong, E. R., DeLong, D. M. & Clarke-Pearson, D. L. (1988). "Comparing the areas under two or
more correlated receiver operating characteristic curves: a nonparametric approach."
Biometrics 44(3):837-845. https://doi.org/10.2307/2531595

Sun, X. & Xu, W. (2014). "Fast implementation of DeLong's algorithm for comparing the areas
under correlated receiver operating characteristic curves." IEEE Signal Processing Letters
21(11):1389-1393. https://doi.org/10.1109/LSP.2014.2337313

With m positive scores X and n negative scores Y, the kernel is psi(x, y) = 1 if x > y,
1/2 if x == y, 0 otherwise (ties count one half). DeLong's structural components are

    V10(X_i) = (1/n) sum_j psi(X_i, Y_j)      V01(Y_j) = (1/m) sum_i psi(X_i, Y_j)

AUC is their common mean and Var(AUC) = S10 / m + S01 / n, where S10 and S01 are the sample
(ddof = 1) variances of V10 and V01 -- the convention of pROC (Robin et al. 2011, BMC
Bioinformatics 12:77), whose aSAH reference values the tests reproduce.

Sun & Xu obtain the components from midranks: with Tz the midranks of X and Y
pooled, Tx those within X and Ty those within Y,

    V10_i = (Tz_i - Tx_i) / n      V01_j = 1 - (Tz_{m+j} - Ty_j) / m
    AUC   = (sum_i Tz_i - m (m + 1) / 2) / (m n)

so everything costs one sort per sample: O((m + n) log(m + n)).

The lower bound is DeLong's normal one, except where the variance is 0 (perfect separation):
there it is the exact bound from min(m, n) disjoint concordant pairs, alpha ** (1 / min(m, n)),
never 1.0 (docs/spec.md §6; `exact_zero_variance_bound`).
"""

from __future__ import annotations

import math
import numbers
from collections.abc import Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING

from bot.rules.stats.errors import StatisticsError

# numpy and scipy are imported by the functions that compute (numpy ~0.1 s, scipy.special
# ~0.25 s at start-up), so a command that computes no AUROC does not pay for them.
if TYPE_CHECKING:
    import numpy as np
    import numpy.typing as npt

    _FloatArray = npt.NDArray[np.float64]

__all__ = ["DeLongResult", "auroc", "auroc_quadratic", "exact_zero_variance_bound", "lower_bound"]


@dataclass(frozen=True)
class DeLongResult:
    """An AUROC estimate with DeLong's variance.

    Attributes:
        auc: the empirical AUROC, P(score of a positive > score of a negative) with ties
            counting one half; in [0, 1].
        variance: DeLong's variance estimate of ``auc`` (sample, ddof = 1, structural
            component variances); >= 0.
        n_positive: number of positive scores (m).
        n_negative: number of negative scores (n).
    """

    auc: float
    variance: float
    n_positive: int
    n_negative: int


def _as_scores(scores: Sequence[float], label: str) -> _FloatArray:
    """Validate one class's scores; return them as a float64 array.

    Raises:
        StatisticsError: the class is empty or has a single observation (the ddof = 1
            variance of its structural components is undefined), a score is not a real
            number (bools are refused), or a score is NaN or infinite.
    """
    import numpy as np

    values = list(scores)
    if len(values) == 0:
        raise StatisticsError(f"AUROC: no {label} scores; both classes need observations")
    if len(values) == 1:
        raise StatisticsError(
            f"AUROC: only one {label} score; DeLong's variance (ddof = 1) needs at least two "
            "observations per class"
        )
    if set(map(type, values)) <= {float, int}:  # the common case: checked in C, no loop
        array = np.asarray(values, dtype=np.float64)
        if np.isfinite(array).all():
            return array
    for index, value in enumerate(values):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise StatisticsError(
                f"AUROC: {label} score #{index} is not a real number: {value!r} "
                f"({type(value).__name__})"
            )
        if not math.isfinite(float(value)):
            raise StatisticsError(f"AUROC: {label} score #{index} is not finite: {value!r}")
    return np.asarray(values, dtype=np.float64)


def _midranks(values: _FloatArray) -> _FloatArray:
    """Return the 1-based midranks of ``values`` (tied values share their mean rank).

    O(k log k) for k values (one sort inside ``np.unique``); this is Sun & Xu's (2014)
    ``compute_midrank``: a run of t tied values occupying sorted positions s+1 .. s+t gets
    rank s + (t + 1) / 2.
    """
    import numpy as np

    _, inverse, counts = np.unique(values, return_inverse=True, return_counts=True)
    last_rank = np.cumsum(counts).astype(np.float64)
    group_midrank = last_rank - (counts.astype(np.float64) - 1.0) / 2.0
    result: _FloatArray = group_midrank[inverse.reshape(-1)]
    return result


def _pooled_midranks(x: _FloatArray, y: _FloatArray) -> tuple[_FloatArray, ...]:
    """The midranks of the pooled scores, of the positives among themselves and of the
    negatives among themselves, from one sort of the pooled scores: (tz, tx, ty), each in
    its input order.

    Values tied within a class are tied in the pool, so each class's tie runs lie inside the
    pool's: in a pool tie run holding k of a class after c of that class before it, that
    class's values get rank c + (k + 1) / 2, as `_midranks` of the class alone gives them.
    Every midrank is a half-integer, exact in float64, so the three sets are `_midranks`'s
    to the bit.
    """
    import numpy as np

    m = len(x)
    pooled = np.concatenate([x, y])
    order = np.argsort(pooled, kind="stable")
    ordered = pooled[order]
    starts = np.empty(len(pooled), dtype=bool)
    starts[0] = True
    np.not_equal(ordered[1:], ordered[:-1], out=starts[1:])
    run = np.cumsum(starts) - 1  # each sorted value's tie run
    positive = order < m
    counts = np.bincount(run).astype(np.float64)
    in_class = np.bincount(run, weights=positive)  # positives in each run
    ranks = []
    for count in (counts, in_class, counts - in_class):
        before = np.cumsum(count) - count
        ranks.append(before + (count + 1.0) / 2.0)
    tz = np.empty(len(pooled))
    tz[order] = ranks[0][run]
    tx = np.empty(m)
    tx[order[positive]] = ranks[1][run[positive]]
    ty = np.empty(len(y))
    negative = ~positive
    ty[order[negative] - m] = ranks[2][run[negative]]
    return tz, tx, ty


def _delong_variance(v10: _FloatArray, v01: _FloatArray) -> float:
    """Return DeLong's variance S10 / m + S01 / n from the structural components.

    ``v10`` holds the m positives' components, ``v01`` the n negatives'; S10 and S01 are
    their sample variances (ddof = 1, as pROC).
    """
    import numpy as np

    m, n = len(v10), len(v01)
    return float(np.var(v10, ddof=1)) / m + float(np.var(v01, ddof=1)) / n


def auroc(positives: Sequence[float], negatives: Sequence[float]) -> DeLongResult:
    """AUROC and DeLong variance by Sun & Xu's (2014) O(n log n) midrank algorithm.

    Args:
        positives: scores of the positive class (higher = more likely positive).
        negatives: scores of the negative class.

    Returns:
        DeLongResult with the AUROC (ties count one half), DeLong's variance
        ``S10 / m + S01 / n`` (sample variances, ddof = 1) and the class sizes.

    Raises:
        StatisticsError: a class is empty or has a single observation, or a score is not a
            finite real number.
    """
    import numpy as np

    x = _as_scores(positives, "positive")
    y = _as_scores(negatives, "negative")
    m, n = len(x), len(y)
    tz, tx, ty = _pooled_midranks(x, y)
    # Sun & Xu (2014): structural components from midranks.
    v10 = (tz[:m] - tx) / n
    v01 = 1.0 - (tz[m:] - ty) / m
    # AUC from the positives' rank sum (Mann-Whitney U / (m n)); equals mean(v10) exactly
    # in real arithmetic, computed here as in Sun & Xu's reference implementation.
    auc = float((np.sum(tz[:m]) - m * (m + 1) / 2.0) / (m * n))
    variance = _delong_variance(v10, v01)
    return DeLongResult(auc=auc, variance=variance, n_positive=m, n_negative=n)


def auroc_quadratic(positives: Sequence[float], negatives: Sequence[float]) -> DeLongResult:
    """Reference AUROC and DeLong variance straight from the definition, O(m n).

    Builds the full kernel matrix psi(X_i, Y_j) (1 if greater, 1/2 if equal, 0 otherwise;
    DeLong et al. 1988) and averages its rows and columns. Meant for tests of :func:`auroc`.

    Returns:
        The same DeLongResult as :func:`auroc` (up to floating-point rounding).

    Raises:
        StatisticsError: as :func:`auroc`.
    """
    import numpy as np

    x = _as_scores(positives, "positive")
    y = _as_scores(negatives, "negative")
    greater = (x[:, None] > y[None, :]).astype(np.float64)
    equal = (x[:, None] == y[None, :]).astype(np.float64)
    psi = greater + 0.5 * equal
    v10: _FloatArray = psi.mean(axis=1)
    v01: _FloatArray = psi.mean(axis=0)
    return DeLongResult(
        auc=float(psi.mean()),
        variance=_delong_variance(v10, v01),
        n_positive=len(x),
        n_negative=len(y),
    )


def lower_bound(result: DeLongResult, confidence: float) -> float:
    """One-sided lower confidence bound on the AUROC: DeLong's, or the exact one where its
    variance is 0.

    Args:
        result: an AUROC estimate from :func:`auroc`.
        confidence: one-sided confidence level in (0, 1), e.g. 0.95.

    Returns:
        Where DeLong's variance is positive: ``auc - z * sqrt(variance)`` with
        ``z = norm.ppf(confidence)`` (DeLong et al. 1988: the AUC estimate is asymptotically
        normal), clipped to [0, 1]. The clip only matters where the normal approximation leaves
        the range an AUROC can take (small samples, AUC near 0 or 1, or confidence < 0.5 pushing
        the "lower" bound above 1); a bound outside [0, 1] carries no information beyond the
        range itself.

        Where the variance is 0 the normal interval has width 0 and would put the bound at the
        AUC itself: 1.0 for perfectly separated classes however few scores there are. The bound
        is then :func:`exact_zero_variance_bound` instead (docs/spec.md §6).

    Raises:
        StatisticsError: ``confidence`` is not a real number strictly between 0 and 1, or
            ``result`` holds a non-finite AUC, or a negative or non-finite variance, or (with
            variance 0) class sizes below 1.
    """
    if isinstance(confidence, bool) or not isinstance(confidence, numbers.Real):
        raise StatisticsError(f"AUROC: confidence must be a number in (0, 1), got {confidence!r}")
    c = float(confidence)
    if not (math.isfinite(c) and 0.0 < c < 1.0):
        raise StatisticsError(f"AUROC: confidence must be strictly between 0 and 1, got {c!r}")
    if not math.isfinite(result.auc):
        raise StatisticsError(f"AUROC: the AUC is not finite: {result.auc!r}")
    if not (math.isfinite(result.variance) and result.variance >= 0.0):
        raise StatisticsError(
            f"AUROC: the variance must be finite and >= 0, got {result.variance!r}"
        )
    if result.variance == 0.0:
        return exact_zero_variance_bound(result, c)
    # scipy's ndtri (bot.rules.stats.special), not scipy.stats (~1 s more): norm.ppf is ndtri.
    from bot.rules.stats.special import ndtri

    z = float(ndtri(c))
    bound = result.auc - z * math.sqrt(result.variance)
    return min(1.0, max(0.0, bound))


def exact_zero_variance_bound(result: DeLongResult, confidence: float) -> float:
    """The exact one-sided lower bound where DeLong's variance is 0: ``alpha ** (1 / k)`` for
    perfectly separated classes, else 0.

    DeLong's variance is 0 only when every positive beats every negative (AUC 1), every
    negative beats every positive (AUC 0), or all scores are equal (AUC 1/2). Take
    k = min(m, n) disjoint positive-negative pairs (no score in two pairs). Under independence
    each pair is concordant with probability at most the AUROC A (ties count one half in A, so
    strictly concordant pairs are no likelier), independently of the others, so all k are
    concordant with probability at most A ** k. The one-sided test rejects every A with
    A ** k < alpha, alpha = 1 - confidence; the bound is the A that solves A ** k = alpha,
    which is Clopper-Pearson's lower bound for k successes in k trials. Without a concordant
    pair (AUC 0, or all tied) the same bound for 0 successes is 0. Examples at alpha = 0.05:
    2 + 2 scores give 0.2236, 16 + 2 give 0.2236 too (2 pairs), 1000 + 1000 give 0.9970.

    Raises:
        StatisticsError: a class size is below 1 (no pair can be formed).
    """
    pairs = min(result.n_positive, result.n_negative)
    if pairs < 1:
        raise StatisticsError(
            f"AUROC: class sizes {result.n_positive} and {result.n_negative} form no"
            " positive-negative pair"
        )
    if result.auc < 1.0:
        return 0.0
    return float((1.0 - confidence) ** (1.0 / pairs))

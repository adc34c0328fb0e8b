"""A lower bound on the AUROC better calibrated at small samples: DeLong on the logit scale.

Reported beside DeLong's bound as information only: the shared rules decide with DeLong's
(docs/spec.md §6). DeLong's normal bound ``auc - z * se`` is a large-sample approximation, and near
1 the AUROC's sampling distribution is skewed, so at 10 to 30 units per class the nominal 95%
bound covers the true AUROC only 80-90% of the time (docs/statistics.md). Transforming to
``logit(A) = log(A / (1 - A))`` before applying the normal approximation, then back, removes
most of that skew (the delta method gives ``se(logit A) = se(A) / (A (1 - A))``):

    lower = expit(logit(auc) - z * sqrt(variance) / (auc * (1 - auc)))

Kottas, M., Kuss, O. & Zapf, A. (2014). "A modified Wald interval for the area under the ROC
curve (AUC) in diagnostic case-control studies." BMC Medical Research Methodology 14:26.
https://doi.org/10.1186/1471-2288-14-26 (the logit-transformed "LT" interval among those
simulated there); Qin, G. & Hotilovac, L. (2008), Statistical Methods in Medical Research
17(2):207-221, https://doi.org/10.1177/0962280207087173, compare it with other intervals.

The bound lies in [0, 1). Where the logit is undefined (an AUC of 0 or 1) or DeLong's
variance is 0, it is the same exact bound DeLong's uses there (docs/spec.md §6,
`delong.exact_zero_variance_bound`). Its simulated coverage is in docs/statistics.md
(`python bench/coverage.py`).
"""

from __future__ import annotations

import math

from bot.rules.stats import delong
from bot.rules.stats.errors import StatisticsError

__all__ = ["METHOD", "lower_bound"]

METHOD = "delong-logit"


def lower_bound(result: delong.DeLongResult, confidence: float) -> float:
    """One-sided lower confidence bound on the AUROC, DeLong's variance on the logit scale.

    Args:
        result: an AUROC estimate from :func:`bot.rules.stats.delong.auroc`.
        confidence: one-sided confidence level in (0, 1), e.g. 0.95.

    Returns:
        ``expit(logit(auc) - z * sqrt(variance) / (auc * (1 - auc)))`` with
        ``z = ndtri(confidence)`` (the normal quantile); where the AUC is 0 or 1, or the
        variance is 0, the exact
        bound of :func:`bot.rules.stats.delong.exact_zero_variance_bound` (as DeLong's bound).

    Raises:
        StatisticsError: as :func:`bot.rules.stats.delong.lower_bound` (a confidence outside
            (0, 1), a non-finite AUC, a negative or non-finite variance).
    """
    # DeLong's own checks of the inputs, and its answer where the logit is undefined.
    nominal = delong.lower_bound(result, confidence)
    auc = result.auc
    if result.variance == 0.0 or auc <= 0.0 or auc >= 1.0:
        return nominal
    # scipy's ndtri (bot.rules.stats.special, imported on the first bound), not scipy.stats
    # (~1 s more): norm.ppf is ndtri.
    from bot.rules.stats.special import ndtri

    z = float(ndtri(float(confidence)))
    spread = z * math.sqrt(result.variance) / (auc * (1.0 - auc))
    logit = math.log(auc / (1.0 - auc)) - spread
    bound = 1.0 / (1.0 + math.exp(-logit)) if logit > -700 else 0.0
    if not math.isfinite(bound):  # pragma: no cover - expit of a finite number is finite
        raise StatisticsError(f"AUROC: the logit bound is not finite for {result!r}")
    return bound

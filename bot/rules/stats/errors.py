"""Errors raised by the statistics layer (``bot.rules.stats``)."""

from __future__ import annotations

__all__ = ["StatisticsError"]


class StatisticsError(ValueError):
    """Raised when a statistic cannot be computed from the given inputs.

    A subclass of :class:`ValueError`: the inputs have the right shape for the call but
    values for which the statistic is undefined (an empty class, a count above its total,
    a confidence outside (0, 1), ...). The message says which input is wrong and why.
    """

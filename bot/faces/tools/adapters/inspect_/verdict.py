"""A trial's result from its epochs: the scorer that judges, each epoch's pass or fail, and
the reduction of the epochs as the freeze says."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from bot.faces.tools.adapters.inspect_.epoch import Epoch
from bot.faces.tools.adapters.inspect_.fields import ValueMap
from bot.faces.tools.adapters.inspect_.values import (
    InspectLogError,
    checked_name,
    plain_text,
    quoted,
)

__all__ = ["choose_scorer", "trial_result"]


_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # Inspect's CORRECT/INCORRECT/PARTIAL/NOANSWER


def _judge(value: object, where: str) -> float:
    """The epoch's score as a number in [0, 1]; 1 passes. Refuse values with no clear verdict."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        if math.isfinite(value) and 0 <= value <= 1:
            return float(value)
        raise InspectLogError(
            f"{where}: score value {quoted(value)} is not a number in [0, 1] (1 passes)"
        )
    if isinstance(value, str) and value in _LETTERS:
        return _LETTERS[value]
    raise InspectLogError(
        f"{where}: score value {quoted(value)} has no pass/fail reading; the adapter reads"
        " C/I/P/N, true/false and numbers in [0, 1]"
    )


def trial_result(
    epochs: Sequence[Epoch], scorer: str, mode: str, mapped: ValueMap | None = None
) -> dict[str, Any]:
    """The trial's result. With `mapped` (--verdict-map), the verdict is the deciding epoch's
    raw value mapped (the first failing epoch, else "error" if any errored, else epoch 1; with
    `first`, epoch 1), while pass and fail still decide which epoch that is."""
    verdicts: list[str] = []
    scores: list[float | None] = []
    values: list[object] = []
    errors: list[str] = []
    for epoch in epochs:
        if epoch.error is not None:
            verdicts.append("error")
            scores.append(None)
            values.append(None)
            errors.append(epoch.error)
        elif scorer not in epoch.scores:
            verdicts.append("error")
            scores.append(None)
            values.append(None)
            errors.append(f"no score from scorer {scorer!r} in epoch {epoch.epoch}")
        else:
            value = epoch.scores[scorer]
            judged = _judge(value, f"{epoch.where}, epoch {epoch.epoch}")
            verdicts.append("pass" if judged == 1.0 else "fail")
            scores.append(judged)
            values.append(value)
    score: float | None
    if mode == "first":
        verdict, score = verdicts[0], scores[0]
    else:
        verdict = next((v for v in ("fail", "error") if v in verdicts), "pass")
        scored = [s for s in scores if s is not None]
        score = min(scored) if scored and verdict != "error" else None
    if mapped is not None and verdict != "error":
        deciding = 0 if mode == "first" else verdicts.index(verdict)
        raw = plain_text(values[deciding])
        where = f"{epochs[deciding].where}, epoch {epochs[deciding].epoch}: --verdict-map"
        verdict = checked_name(mapped.apply(raw or "", where), where)
    return {
        "verdict": verdict,
        "score": score,
        "values": values,
        "epochs": len(epochs),
        "error": errors[0] if errors else None,
    }


def choose_scorer(header_scorers: list[str], epochs: Sequence[Epoch], asked: str | None) -> str:
    names = set(header_scorers) | {name for epoch in epochs for name in epoch.scores}
    available = ", ".join(sorted(names)) or "none"
    if asked is not None:
        if asked not in names:
            raise InspectLogError(f"the log has no scorer {asked!r} (it has: {available})")
        return asked
    if len(names) != 1:
        raise InspectLogError(
            f"the log has {len(names)} scorers ({available}): name one with --scorer"
            if names
            else "the log holds no scores: nothing to judge the trials by"
        )
    return next(iter(names))

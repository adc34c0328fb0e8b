"""The score table the cases and trials imply (docs/spec.md §4): one row per bar and the
class-conditional counts, as frozen types. `bars.derive_score_table` builds it; the judge
compares a filer's scores.yaml with it; `to_data` is scores.yaml's form of it, which
`claims scores` writes and the records cache keeps (`from_data` reads that back).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

from bot.rules.verdict import BarResult
from bot.vocab.fields import integer, member
from bot.vocab.values import JSONObject, JSONValue

__all__ = ["AurocRow", "Confusion", "RateRow", "ScoreRow", "ScoreTable"]

# Certificate label -> truth label -> trials (scores.yaml `class_conditional`).
Confusion = Mapping[str, Mapping[str, int]]


@dataclass(frozen=True, slots=True)
class RateRow:
    """A rate bar's row: failing units of its units, and the Clopper-Pearson bound."""

    failures: int
    units: int
    bound: float | None

    def to_data(self) -> dict[str, JSONValue]:
        return {"failures": self.failures, "units": self.units, "bound": self.bound}


@dataclass(frozen=True, slots=True)
class AurocRow:
    """An AUROC bar's row: the units of each class, the AUROC and DeLong's lower bound."""

    positives: int
    negatives: int
    auroc: float | None
    lower: float | None

    def to_data(self) -> dict[str, JSONValue]:
        return {
            "positives": self.positives,
            "negatives": self.negatives,
            "auroc": self.auroc,
            "lower": self.lower,
        }


ScoreRow = RateRow | AurocRow


def score_row(result: BarResult) -> ScoreRow:
    """A bar's row, as scores.yaml states it (a count the bar did not reach is 0)."""
    if result.statistic == "auroc_lower":
        return AurocRow(result.positives or 0, result.negatives or 0, result.auroc, result.bound)
    return RateRow(result.failures or 0, result.units or 0, result.bound)


def _optional_float(data: JSONObject, key: str) -> float | None:
    value = data[key]
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int | float):
        raise TypeError(f"{key!r}: expected a number or null, got {type(value).__name__}")
    return value


def _row_from(data: JSONObject) -> ScoreRow:
    if "lower" in data:
        return AurocRow(
            integer(data, "positives"),
            integer(data, "negatives"),
            _optional_float(data, "auroc"),
            _optional_float(data, "lower"),
        )
    return RateRow(
        integer(data, "failures"), integer(data, "units"), _optional_float(data, "bound")
    )


def _confusion_from(data: JSONObject) -> Confusion:
    counts: dict[str, dict[str, int]] = {}
    for label in data:
        row = member(data, label)
        counts[label] = {truth: integer(row, truth) for truth in row}
    return counts


@dataclass(frozen=True, slots=True)
class ScoreTable:
    """Per bar (the market's order) its row; the class-conditional counts per bar id and for
    all trials (`all`), only where results carry both labels (empty: none do)."""

    bars: Mapping[str, ScoreRow]
    class_conditional: Mapping[str, Confusion]

    def to_data(self) -> dict[str, JSONValue]:
        """scores.yaml's form: `bars`, then `class_conditional` when there are counts."""
        data: dict[str, JSONValue] = {
            "bars": {bar_id: row.to_data() for bar_id, row in self.bars.items()}
        }
        if self.class_conditional:
            data["class_conditional"] = {
                key: {label: dict(row) for label, row in counts.items()}
                for key, counts in self.class_conditional.items()
            }
        return data

    def row_data(self, bar_id: str) -> dict[str, JSONValue] | None:
        """The row of `bar_id` in scores.yaml's form; None when the market has no such bar."""
        row = self.bars.get(bar_id)
        return None if row is None else row.to_data()

    @classmethod
    def from_data(cls, data: JSONObject) -> ScoreTable:
        """From `to_data`'s form. Raises KeyError or TypeError on any other shape."""
        bars = member(data, "bars")
        conditional = member(data, "class_conditional") if "class_conditional" in data else {}
        return cls(
            {bar_id: _row_from(member(bars, bar_id)) for bar_id in bars},
            {key: _confusion_from(member(conditional, key)) for key in conditional},
        )

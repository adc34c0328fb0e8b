"""Hook for challenge runs' WeirdML best-so-far curves (issue 12).

`weirdml_curves(text)` turns a WeirdML v3 event log into per-task best-so-far curves with the
scorer of issue 12 (`bot/scorers/weirdml_v3.py`: `read_log`, `score_log`, each task's
`curve` of (tokens, best) points). Until that scorer is part of the package it returns None,
and `challenge_curves` finds no curve: the site then shows no curve section.
"""

from __future__ import annotations

import importlib
from collections.abc import Sequence

from bot.tree import Tree

__all__ = ["Curves", "challenge_curves", "weirdml_curves"]

Curves = Sequence[tuple[str, Sequence[tuple[float, float]]]]
_SCORER = "bot.scorers.weirdml_v3"


def weirdml_curves(text: str) -> Curves | None:
    """Each task's best-so-far curve of a WeirdML v3 log, or None without the scorer.
    Raises the scorer's ValueError for a log it refuses."""
    try:
        scorer = importlib.import_module(_SCORER)
    except ImportError:
        return None
    scores = scorer.score_log(scorer.read_log(text))
    return [(str(task), list(score.curve)) for task, score in scores.tasks.items()]


def challenge_curves(tree: Tree) -> dict[str, Curves]:
    """Best-so-far curves by challenge run (or attempt folder), for the site. Empty until the
    challenge runs' scored logs have a place in the registry (issue 12)."""
    return {}

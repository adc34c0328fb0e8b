"""Challenge runs' WeirdML best-so-far curves, for the website (issues 12 and 14).

A challenge run whose scorer is the built-in `weirdml-v3` may hold the operator's event logs,
`challenge-runs/<run>/scores/<submitter>/<attempt>/events.jsonl` (the scorer's input, its
tasks named by case id; docs/scorers.md). `challenge_curves` draws nothing itself: it hands
each log to the scorer (`bot/rules/scorers/weirdml_v3.py`: `read_log`, `score_log`, each task's
`curve` of (tokens, best) points) and returns the curves by run and by attempt folder. The
scores the bot decides with are the verify report's; a log the scorer refuses gets no curve
here (verify reports it).
"""

from __future__ import annotations

from collections.abc import Sequence

from bot.edges.load.yaml_ import load_yaml
from bot.edges.tree import Tree, TreeError, read_limited
from bot.faces.site.model import attempt_page_path, is_slug
from bot.rules.challenge.scorers import SCORERS, scorer_settings, weirdml_max_submissions
from bot.rules.scorers.weirdml_v3 import MAX_SUBMISSIONS, read_log, score_log

__all__ = ["Curves", "challenge_curves", "weirdml_curves"]

Curves = Sequence[tuple[str, Sequence[tuple[float, float]]]]
SCORER = "weirdml-v3"
EVENTS = SCORERS[SCORER].input_file  # events.jsonl, beside the operator's results.jsonl
_MAX_LOG_BYTES = 20_000_000


def weirdml_curves(text: str, max_submissions: int = MAX_SUBMISSIONS) -> Curves:
    """Each task's best-so-far curve of a WeirdML v3 event log, in the order tasks first
    appear, read under the run's submission limit (as verify reads it). Raises the scorer's
    `WeirdmlLogError` (a ValueError) for a log it refuses."""
    scores = score_log(read_log(text, max_submissions), max_submissions)
    return [(task, list(score.curve)) for task, score in scores.tasks.items()]


def _children(tree: Tree, folder: str) -> list[str]:
    try:
        return [child.name for child in tree.children(folder) if child.kind == "folder"]
    except TreeError:
        return []


def challenge_curves(tree: Tree) -> dict[str, Curves]:
    """Curves by challenge run id (every attempt's tasks, labelled `submitter/attempt: task`)
    and by attempt folder (`attempts/market-NN/<submitter>/<attempt>`: its tasks)."""
    found: dict[str, Curves] = {}
    for run in _children(tree, "challenge-runs"):
        document, _ = load_yaml(tree, f"challenge-runs/{run}/run.yaml")
        data = document.data if document is not None else None
        if not isinstance(data, dict) or data.get("scorer") != SCORER:
            continue
        market = data.get("market")
        limit = weirdml_max_submissions(scorer_settings(data))
        run_curves: list[tuple[str, Sequence[tuple[float, float]]]] = []
        scores = f"challenge-runs/{run}/scores"
        for submitter in _children(tree, scores):
            for attempt in _children(tree, f"{scores}/{submitter}"):
                try:
                    raw = read_limited(
                        tree, f"{scores}/{submitter}/{attempt}/{EVENTS}", _MAX_LOG_BYTES
                    )
                    curves = weirdml_curves(raw.decode("utf-8"), limit)
                except (TreeError, UnicodeDecodeError, ValueError, ArithmeticError):
                    continue
                run_curves += [(f"{submitter}/{attempt}: {task}", c) for task, c in curves]
                if isinstance(market, int) and not isinstance(market, bool):
                    folder = f"attempts/market-{market:02d}/{submitter}/{attempt}"
                    if attempt_page_path(folder) is not None:
                        found[folder] = curves
        if run_curves and is_slug(run):
            found[run] = run_curves
    return found

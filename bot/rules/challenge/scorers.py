"""The built-in operator scorers the bot can recompute, by the name run.yaml gives.

A run whose `scorer` is built in may publish the scorer's inputs for an attempt beside its
score file (`scores/<submitter>/<attempt>/<input_file>`); the bot then recomputes each case's
result fields from them and compares them with the operator's `results.jsonl`. Any other
scorer name is the operator's own: its score file is taken as given (docs/challenge-runs.md).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass

from bot.rules.scorers.weirdml_v3 import MAX_SUBMISSIONS, WeirdmlLogError, read_log, score_log
from bot.vocab.findings import Code, Finding
from bot.vocab.values import JSONObject

__all__ = [
    "SCORERS",
    "BuiltinScorer",
    "Recomputed",
    "Settings",
    "builtin_scorer",
    "scorer_settings",
    "weirdml_max_submissions",
]

# Per case id: the result fields the scorer computes (name -> value).
Recomputed = dict[str, dict[str, float]]
# run.yaml's `scorer_settings` (schemas/challenge-run.schema.json checks them): a setting left
# out takes the scorer's default.
Settings = JSONObject


@dataclass(frozen=True, slots=True)
class BuiltinScorer:
    """A scorer the bot runs: `score(text, file, settings)` reads one input file's text under
    the run's `scorer_settings` and returns the recomputed fields per case, or findings
    (naming file, line and field) when the input is not what the scorer reads. Pure: no I/O."""

    name: str
    input_file: str  # the input's file name beside results.jsonl
    fields: tuple[str, ...]  # the result fields it recomputes
    score: Callable[[str, str, Settings], tuple[Recomputed, list[Finding]]]
    # Recomputed and stated values may differ by at most this: float noise, not rounding. A
    # stated score rounded within 1e-6 would break ties and thresholds in the filer's favour;
    # `claims score --json` writes full precision (docs/spec-notes.md).
    tolerance: float = 1e-9


def weirdml_max_submissions(settings: Settings) -> int:
    """The run's submissions per task for WeirdML v3: `scorer_settings.max_submissions`, else
    the seed's ten. The schema admits a positive integer, and JSON Schema counts `12.0` as
    one, so it is 12 here too; anything else is the default (the schema refuses the run)."""
    value = settings.get("max_submissions")
    if isinstance(value, float) and value.is_integer():
        value = int(value)
    if isinstance(value, int) and not isinstance(value, bool) and value > 0:
        return value
    return MAX_SUBMISSIONS


def _weirdml_v3(text: str, file: str, settings: Settings) -> tuple[Recomputed, list[Finding]]:
    """WeirdML v3 (bot/rules/scorers/weirdml_v3.py) on one attempt's event log: each task is a case
    of the run; its `area`, `final_best` and official `score`. A task with more submissions
    than the run allows is refused at the first one past the limit."""
    limit = weirdml_max_submissions(settings)
    try:
        scored = score_log(read_log(text, limit), limit)
    except WeirdmlLogError as error:
        where = f"{error.field}: " if error.field else ""
        return {}, [Finding(Code.SCORER_INPUT_INVALID, where + error.message, file, error.line)]
    return {
        task: {
            "area": task_score.area,
            "final_best": task_score.final_best,
            "score": task_score.score,
        }
        for task, task_score in scored.tasks.items()
    }, []


SCORERS: dict[str, BuiltinScorer] = {
    "weirdml-v3": BuiltinScorer(
        "weirdml-v3", "events.jsonl", ("area", "final_best", "score"), _weirdml_v3
    ),
}


def builtin_scorer(
    name: str, scorers: Mapping[str, BuiltinScorer] | None = None
) -> BuiltinScorer | None:
    """The built-in scorer called `name`, or None when it is the operator's own."""
    return (SCORERS if scorers is None else scorers).get(name)


def scorer_settings(run_yaml: JSONObject | None) -> Settings:
    """run.yaml's `scorer_settings`, or none (every setting at its default)."""
    settings = run_yaml.get("scorer_settings") if run_yaml is not None else None
    return settings if isinstance(settings, dict) else {}

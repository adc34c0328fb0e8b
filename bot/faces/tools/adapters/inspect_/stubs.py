"""What an Inspect log knows of the `claims init` stubs' values."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bot.faces.tools.adapters.inspect_.convert import DEFAULT_EPOCHS
from bot.faces.tools.adapters.inspect_.freeze import (
    PLACEHOLDER_COMMIT,
    freeze_stub,
    is_short_commit,
)
from bot.faces.tools.adapters.inspect_.header import listed_scorers, read_eval_section
from bot.faces.tools.adapters.inspect_.limits import InspectLimits
from bot.faces.tools.adapters.inspect_.log import read_log
from bot.faces.tools.adapters.inspect_.values import (
    MAX_NAME,
    format_utc,
    object_or_empty,
    read_moment,
)

__all__ = ["stub_values"]


def stub_values(
    log: Path, limits: InspectLimits = InspectLimits()
) -> tuple[list[tuple[str, Any, str]], list[str]]:
    """What an Inspect log knows of the `claims init` stubs' values.

    Returns ([(field, value, where in the log)], [notes on fields it cannot fill]). Only what
    the log states: the method from its solver plan, the code commit when it is a full one,
    the scorer when there is one, the freeze time from the eval's creation, and a title from
    its task and model. Raises InspectLogError for a log the adapter cannot read.
    """
    name = log.name
    header, _ = read_log(log, limits)
    section = read_eval_section(header, name)
    spec, task, model = section.spec, section.task, section.model
    values: list[tuple[str, Any, str]] = []
    notes: list[str] = []
    created = read_moment(spec.get("created"), f"{name}: eval.created")
    # The adapter's own reading of the method and the commit (its freeze.yaml stub).
    when = created or datetime.now(UTC)
    freeze, _ = freeze_stub(header, spec, "", when, DEFAULT_EPOCHS, task, model, 0)
    method = freeze["method"]["name"]
    if not str(method).startswith("FILL-IN"):
        values.append(("method.name", method, f"{name}: the solver plan (plan.steps)"))
    revision = object_or_empty(spec.get("revision"))
    commit = revision.get("commit")
    if freeze["code_commit"] != PLACEHOLDER_COMMIT:
        values.append(("code_commit", freeze["code_commit"], f"{name}: eval.revision.commit"))
    elif is_short_commit(commit):
        notes.append(
            f"code_commit: {name} records commit {commit}, not a full one: write the full"
            f" commit (`git rev-parse {commit}` in the method's repository)"
        )
    else:
        notes.append(f"code_commit: {name} records no git revision")
    scorers = [scorer for scorer in listed_scorers(spec) if scorer]
    if len(scorers) == 1:
        values.append(("scorer", scorers[0], f"{name}: eval.scorers"))
    else:
        notes.append(f"scorer: {name} lists {len(scorers)} scorers; name the one that judges")
    if created is not None:
        values.append(
            (
                "frozen_at",
                format_utc(created),
                f"{name}: eval.created (when the eval was set up; write a later freeze time if"
                " you froze later)",
            )
        )
    title = f"{task} on {model}"[:MAX_NAME]
    values.append(("title", title, f"{name}: eval.task and eval.model"))
    return values, notes

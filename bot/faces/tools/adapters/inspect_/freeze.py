"""The freeze.yaml stub, with the comments that tell the filer what to review."""

from __future__ import annotations

import re
from collections.abc import Mapping
from datetime import datetime
from typing import Any, TypeGuard

from bot.faces.tools.adapters.inspect_.values import MAX_NAME, format_utc, object_or_empty

__all__ = ["PLACEHOLDER_COMMIT", "freeze_stub", "is_short_commit"]


PLACEHOLDER_COMMIT = "0" * 40


_HEX_COMMIT = re.compile(r"\A(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
_SHORT_COMMIT = re.compile(r"\A[0-9a-fA-F]{4,64}\Z")


def is_short_commit(value: object) -> TypeGuard[str]:
    """Whether `value` looks like a git commit, maybe abbreviated (4 to 64 hex digits): what
    Inspect records of a revision, which the freeze must have in full."""
    return isinstance(value, str) and _SHORT_COMMIT.match(value) is not None


def freeze_stub(
    header: Mapping[str, Any],
    spec: Mapping[str, Any],
    scorer: str,
    created: datetime,
    epochs: str,
    task: str,
    model: str,
    count: int,
) -> tuple[dict[str, Any], list[str]]:
    """The freeze.yaml stub and the comment lines above it."""
    plan = object_or_empty(header.get("plan"))
    steps = plan.get("steps")
    steps = steps if isinstance(steps, list) else []
    solvers = [
        step["solver"]
        for step in steps
        if isinstance(step, dict) and isinstance(step.get("solver"), str) and step["solver"]
    ]
    if not solvers and isinstance(spec.get("solver"), str) and spec["solver"]:
        solvers = [spec["solver"]]
    comments = ["A freeze.yaml stub written by `claims adapt inspect` from an Inspect log."]
    comments.append("Review it before filing: the freeze is what was fixed before scoring.")
    if solvers:
        method = ", ".join(solvers)
        method = method if len(method) <= MAX_NAME else f"{method[: MAX_NAME - 3]}..."
        comments.append("method.name: the log's solver plan; name the method under test.")
    else:
        from bot.rules.evidence.placeholders import PLACEHOLDER

        # A placeholder verify refuses (`schema`) until replaced, like the code_commit below.
        method = f"{PLACEHOLDER}: the method under test"
        comments.append("method.name: the log names no solver; replace FILL-IN with the method.")
    revision = object_or_empty(spec.get("revision"))
    commit = revision.get("commit")
    if isinstance(commit, str) and _HEX_COMMIT.match(commit):
        code_commit = commit
        comments.append("code_commit: the log's git revision.")
    else:
        code_commit = PLACEHOLDER_COMMIT
        seen = "no full commit"
        if is_short_commit(commit):
            seen = f"commit {commit}, not the full 40 hex digits"
        comments.append(f"code_commit: a PLACEHOLDER (40 zeros); the log records {seen}.")
        comments.append("  REPLACE it with the full commit of the code that ran the eval.")
    if revision.get("dirty") is True:
        comments.append("  The log says that working tree had uncommitted changes.")
    comments.append("frozen_at: when the eval was created; epochs: how epochs reduce to a trial.")
    freeze: dict[str, Any] = {
        "method": {"name": method},
        "code_commit": code_commit,
        "scorer": scorer,
        "frozen_at": format_utc(created),
        "epochs": epochs,
        "notes": (
            f"Adapted from an Inspect log of task {task} ({count} samples), model {model},"
            f" scored by {scorer}; epochs reduce by {epochs}."
        )[:20000],
    }
    return freeze, comments

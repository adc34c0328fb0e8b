"""`claims github plan`: the job matrix of wrapped attempts a pull request touches.

The `verify` workflow reruns each wrapped attempt's adapter in its own sandbox job
(`strategy.matrix` from this JSON), so many reruns spread over runners. The PR's head is read
from git objects through the app layer (no checkout); only folders that exist at the head and
whose attempt.yaml passes its schema with `kind: wrapped` are listed.

Each path is a job input, so it must match the registry's folder grammar exactly:
`attempts/market-NN/<slug>/<slug>`, slugs as common.schema.json#/$defs/slug. An empty
`include` list means there is nothing to rerun; GitHub fails a job whose matrix is empty, so
the workflow guards the matrix job with `if: fromJSON(needs.plan.outputs.matrix).include[0]
!= null` (docs/spec-notes.md).
"""

from __future__ import annotations

import re
from typing import Any

from bot.app.api import Workspace
from bot.app.registry import Registry
from bot.edges.load.yaml_ import load_yaml
from bot.rules.evidence.schema import validate
from bot.rules.review import changed_attempt_folders

__all__ = ["ATTEMPT_PATH", "is_wrapped", "plan_matrix"]

# attempts/market-NN/<submitter>/<attempt>; slugs: common.schema.json#/$defs/slug.
_SLUG = r"[a-z0-9][a-z0-9-]{1,62}[a-z0-9]"
ATTEMPT_PATH = re.compile(rf"\Aattempts/market-[0-9]{{2,3}}/{_SLUG}/{_SLUG}\Z")


def plan_matrix(workspace: Workspace) -> dict[str, Any]:
    """`{"include": [{"attempt": folder}, ...]}` for the wrapped attempt folders the
    workspace's changes touch (sorted; empty when none)."""
    registry = workspace.registry
    include = [
        {"attempt": folder}
        for folder in changed_attempt_folders(workspace.changes or ())
        if is_wrapped(registry, folder)
    ]
    return {"include": include}


def is_wrapped(registry: Registry, folder: str) -> bool:
    """True when `folder` matches the folder grammar, exists in the registry's tree and its
    attempt.yaml passes its schema with `kind: wrapped`."""
    if not ATTEMPT_PATH.match(folder):
        return False  # the verify job reports the bad path; nothing to rerun
    entry = registry.tree.entry(folder)
    if entry is None or entry.kind != "folder":
        return False
    document, problems = load_yaml(registry.tree, f"{folder}/attempt.yaml", registry.limits)
    if document is None or problems or not isinstance(document.data, dict):
        return False
    if validate("attempt", document.data, document.path, document.lines):
        return False
    return document.data.get("kind") == "wrapped"

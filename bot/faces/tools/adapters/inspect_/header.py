"""The log's `eval` section as every reader of a log needs it: present, naming a task and a
model, listing its scorers."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from bot.faces.tools.adapters.inspect_.values import InspectLogError, checked_name

__all__ = ["EvalSection", "listed_scorers", "read_eval_section"]


@dataclass(frozen=True, slots=True)
class EvalSection:
    """The log's `eval` section (`spec`), with the task and the model it names."""

    spec: dict[str, Any]
    task: str
    model: str


def read_eval_section(header: Mapping[str, Any], log: str) -> EvalSection:
    """The `eval` section of the log named `log`; raises InspectLogError without one, or
    without a task or a model of 1-200 characters."""
    spec = header.get("eval")
    if not isinstance(spec, dict):
        raise InspectLogError(f"{log}: no eval section")
    task = checked_name(spec.get("task"), f"{log}: eval.task")
    model = checked_name(spec.get("model"), f"{log}: eval.model")
    return EvalSection(spec, task, model)


def listed_scorers(spec: Mapping[str, Any]) -> list[str]:
    """The names of the scorers the eval section lists, in its order (entries without a string
    name are passed over)."""
    listed = spec.get("scorers")
    return [
        item["name"]
        for item in (listed if isinstance(listed, list) else [])
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]

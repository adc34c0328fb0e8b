"""One sample epoch of a log: what the adapter keeps of it (the content that is frozen, the
scores, the error, the start), the rest dropped as it is read."""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any

import rfc8785

from bot.faces.tools.adapters.inspect_.values import InspectLogError, quoted, read_moment
from bot.vocab.config import Limits

__all__ = ["Epoch", "epoch_of"]


_MAX_ERROR = 1000


# Content is nested inside a JSONL record two levels deep; the verifier caps records at 64.
_MAX_CONTENT_DEPTH = Limits().max_json_depth - 2


@dataclass(frozen=True, slots=True)
class Epoch:
    """What the adapter keeps of one sample epoch (the rest is dropped as it is read)."""

    sample_id: int | str
    epoch: int
    where: str
    content: dict[str, Any]
    scores: dict[str, object]
    error: str | None
    started_at: datetime | None


def epoch_of(raw: object, where: str) -> Epoch:
    if not isinstance(raw, dict):
        raise InspectLogError(f"{where}: got a {type(raw).__name__}, expected a sample object")
    sample_id = raw.get("id")
    if isinstance(sample_id, bool) or not isinstance(sample_id, int | str):
        raise InspectLogError(
            f"{where}: sample id {quoted(sample_id)} is not an integer or a string"
        )
    where = f"{where} (sample {sample_id!r})"
    epoch = raw.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise InspectLogError(f"{where}: epoch {quoted(epoch)} is not a positive integer")
    for key in ("input", "target"):
        if key not in raw:
            raise InspectLogError(f"{where}: no {key}")
    content: dict[str, Any] = {"input": _scrub_input(raw["input"], where), "target": raw["target"]}
    fields = {**raw, "metadata": _dataset_metadata(raw)}
    for key in ("choices", "description", "metadata", "files", "setup"):
        value = fields.get(key)
        if value is not None and value != {} and value != [] and value != "":
            content[key] = value
    scores: dict[str, object] = {}
    raw_scores = raw.get("scores")
    if isinstance(raw_scores, dict):
        for name, score in raw_scores.items():
            if isinstance(score, dict) and "value" in score:
                scores[name] = score["value"]
    return Epoch(
        sample_id=sample_id,
        epoch=epoch,
        where=where,
        content=_canonical(content, where),
        scores=scores,
        error=_error_message(raw.get("error")),
        started_at=read_moment(raw.get("started_at"), f"{where}: started_at"),
    )


def _dataset_metadata(raw: Mapping[str, Any]) -> object:
    """The sample's metadata as the dataset gave it: from the `sample_init` event if any.

    The sample's own `metadata` field holds the task state's metadata after the solvers ran,
    which a solver may have changed; the `sample_init` event holds the sample before.
    """
    events = raw.get("events")
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict) and event.get("event") == "sample_init":
            sample = event.get("sample")
            return sample.get("metadata") if isinstance(sample, dict) else None
    return raw.get("metadata")


def _scrub_input(value: object, where: str) -> object:
    """The input with every chat message's per-run random `id` left out."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(message, dict) for message in value):
        return [{k: v for k, v in message.items() if k != "id"} for message in value]
    raise InspectLogError(f"{where}: input is neither a string nor a list of chat messages")


def _canonical(content: dict[str, Any], where: str) -> dict[str, Any]:
    """`content` in RFC 8785 form (sorted keys, normalised numbers), or InspectLogError."""
    if _depth(content) > _MAX_CONTENT_DEPTH:
        raise InspectLogError(
            f"{where}: input, target and metadata are nested deeper than"
            f" {_MAX_CONTENT_DEPTH} levels"
        )
    try:
        canonical: dict[str, Any] = json.loads(rfc8785.dumps(content))
    except (rfc8785.CanonicalizationError, ValueError, TypeError) as error:
        raise InspectLogError(
            f"{where}: input, target and metadata have no RFC 8785 form: {str(error)[:200]}"
        ) from None
    return canonical


def _depth(value: object) -> int:
    """Nesting depth of a JSON value, walked with an explicit stack."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > _MAX_CONTENT_DEPTH:
                return depth
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return deepest


def _error_message(error: object) -> str | None:
    if error is None:
        return None
    message = error.get("message") if isinstance(error, dict) else error
    text = message if isinstance(message, str) and message else "an error without a message"
    return text if len(text) <= _MAX_ERROR else f"{text[: _MAX_ERROR - 3]}..."

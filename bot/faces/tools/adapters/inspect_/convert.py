"""A log to evidence: one frozen case and one trial per sample id."""

from __future__ import annotations

import hashlib
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.faces.tools.adapters.inspect_.fields import FieldMap, Source, lookup
from bot.faces.tools.adapters.inspect_.files import Adapted, serialise, write_files
from bot.faces.tools.adapters.inspect_.freeze import freeze_stub
from bot.faces.tools.adapters.inspect_.header import listed_scorers, read_eval_section
from bot.faces.tools.adapters.inspect_.limits import InspectLimits
from bot.faces.tools.adapters.inspect_.log import read_log
from bot.faces.tools.adapters.inspect_.samples import group_epochs
from bot.faces.tools.adapters.inspect_.values import (
    MAX_NAME,
    InspectLogError,
    checked_name,
    format_utc,
    object_or_empty,
    quoted,
    read_moment,
)
from bot.faces.tools.adapters.inspect_.verdict import choose_scorer, trial_result

__all__ = ["DEFAULT_EPOCHS", "EPOCH_MODES", "adapt_inspect", "convert"]


EPOCH_MODES = ("all-must-pass", "first")


DEFAULT_EPOCHS = "all-must-pass"


def convert(
    log: Path,
    scorer: str | None = None,
    epochs: str = DEFAULT_EPOCHS,
    family_field: str | None = None,
    limits: InspectLimits = InspectLimits(),
    fields: FieldMap = FieldMap(),
) -> Adapted:
    """Read an Inspect log and return the evidence files it gives, checked. No file is written.

    `family_field` F is `fields.family = metadata.F`. Raises InspectLogError for a log the
    adapter cannot read, a value a mapping does not cover, or evidence the verifier would
    refuse.
    """
    if family_field is not None:
        if fields.family is not None:
            raise InspectLogError("--family-field and --family-from: give one")
        fields = replace(fields, family=Source("metadata", family_field))
    from bot.rules.evidence.hashing import case_hash

    if epochs not in EPOCH_MODES:
        raise InspectLogError(f"--epochs {epochs!r}: use {' or '.join(EPOCH_MODES)}")
    name = log.name
    header, sample_epochs = read_log(log, limits)
    status = header.get("status")
    if status != "success":
        raise InspectLogError(
            f'{name}: the log\'s status is {quoted(status)}, not "success": only finished logs'
            " are adapted, so that no case is missing"
        )
    if header.get("invalidated") is True:
        raise InspectLogError(f"{name}: the log is marked invalidated")
    section = read_eval_section(header, name)
    spec, task, model = section.spec, section.task, section.model
    log_id = next(
        (spec[key] for key in ("eval_id", "run_id", "task_id") if isinstance(spec.get(key), str)),
        None,
    )
    log_id = checked_name(log_id, f"{name}: eval.eval_id")
    created = read_moment(spec.get("created"), f"{name}: eval.created")
    if created is None:
        raise InspectLogError(f"{name}: eval.created: missing")
    config = object_or_empty(spec.get("config"))
    expected = config.get("epochs")
    expected = expected if isinstance(expected, int) and not isinstance(expected, bool) else None
    if expected is not None and expected < 1:
        raise InspectLogError(f"{name}: eval.config.epochs is {expected}")
    dataset = object_or_empty(spec.get("dataset"))
    groups = group_epochs(sample_epochs, name, expected, dataset.get("sample_ids"))
    chosen = checked_name(
        choose_scorer(listed_scorers(spec), sample_epochs, scorer), f"{name}: scorer"
    )
    stats = object_or_empty(header.get("stats"))
    run_start = read_moment(stats.get("started_at"), f"{name}: stats.started_at") or created

    cases: list[dict[str, Any]] = []
    trials: list[dict[str, Any]] = []
    verdicts: dict[str, int] = {}
    for group in groups:
        first = group[0]
        case_id = str(first.sample_id)
        metadata = first.content.get("metadata", {})
        metadata = metadata if isinstance(metadata, dict) else {}
        family = task if fields.family is None else lookup(fields.family, group)
        if fields.kind is None:
            kind = metadata.get("kind")
            kind = kind if isinstance(kind, str) and 1 <= len(kind) <= MAX_NAME else "task"
        else:
            kind = lookup(fields.kind, group)
        cases.append(
            {
                "case_id": case_id,
                "sha256": case_hash(first.content),
                "family": family,
                "kind": kind,
                "public": {"sample_id": first.sample_id},
                "content": first.content,
            }
        )
        starts = [epoch.started_at for epoch in group if epoch.started_at is not None]
        trajectory = f"{log_id}:{case_id}"
        if len(trajectory) > MAX_NAME:
            trajectory = f"{log_id}:sha256:{hashlib.sha256(case_id.encode()).hexdigest()[:32]}"
        result = trial_result(group, chosen, epochs, fields.verdicts)
        if fields.truth is not None:
            result["truth"] = lookup(fields.truth, group)
        verdicts[result["verdict"]] = verdicts.get(result["verdict"], 0) + 1
        trials.append(
            {
                "case_id": case_id,
                "system": model if fields.system is None else lookup(fields.system, group),
                "started_at": format_utc(min(starts) if starts else run_start),
                "trajectory": trajectory[:MAX_NAME],
                "evaluator": fields.evaluator,
                "attack_family": None,
                "result": result,
            }
        )
    freeze = freeze_stub(header, spec, chosen, created, epochs, task, model, len(groups))
    files = serialise(cases, trials, freeze)
    return Adapted(files=files, cases=len(cases), verdicts=dict(sorted(verdicts.items())))


def adapt_inspect(
    log: Path,
    out: Path,
    scorer: str | None,
    epochs: str,
    family_field: str | None = None,
    limits: InspectLimits = InspectLimits(),
    fields: FieldMap = FieldMap(),
) -> list[str]:
    """Write freeze-cases.jsonl, trials.jsonl and freeze.yaml into `out`; return their names.

    Nothing is written unless the whole log converts. Raises InspectLogError.
    """
    return write_files(convert(log, scorer, epochs, family_field, limits, fields), out)

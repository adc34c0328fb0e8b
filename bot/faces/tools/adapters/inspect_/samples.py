"""Sample epochs grouped into cases: one complete group per sample id, in sample order, each
id a registry case id."""

from __future__ import annotations

import re
from collections.abc import Sequence

from bot.faces.tools.adapters.inspect_.epoch import Epoch
from bot.faces.tools.adapters.inspect_.values import InspectLogError

__all__ = ["group_epochs", "sample_order"]


_CASE_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}\Z")  # common.schema.json id


_DIGITS = re.compile(r"(\d+)", re.ASCII)


def sample_order(sample_id: int | str) -> tuple[int, int, tuple[int | str, ...], str]:
    """Integers first, numerically; then strings in natural order, ties by the plain string."""
    if isinstance(sample_id, int):
        return (0, sample_id, (), "")
    parts = _DIGITS.split(sample_id)
    natural = tuple(int(part) if index % 2 else part for index, part in enumerate(parts))
    return (1, 0, natural, sample_id)


def group_epochs(
    epochs: Sequence[Epoch], log: str, expected: int | None, listed: object
) -> list[list[Epoch]]:
    """Epochs grouped by sample id, in sample order, each group in epoch order and complete."""
    groups: dict[tuple[bool, int | str], list[Epoch]] = {}
    for epoch in epochs:
        groups.setdefault((isinstance(epoch.sample_id, str), epoch.sample_id), []).append(epoch)
    if not groups:
        raise InspectLogError(f"{log}: the log holds no samples")
    if isinstance(listed, list):
        missing = [
            item
            for item in listed
            if isinstance(item, int | str)
            and not isinstance(item, bool)
            and (isinstance(item, str), item) not in groups
        ]
        if missing:
            shown = ", ".join(repr(item) for item in missing[:5])
            raise InspectLogError(
                f"{log}: the dataset lists {len(missing)} sample(s) the log holds no epoch of"
                f" ({shown}); only complete logs are adapted, so that no case is missing"
            )
    count = expected or max(epoch.epoch for epoch in epochs)
    ordered = []
    for key in sorted(groups, key=lambda key: sample_order(key[1])):
        group = sorted(groups[key], key=lambda epoch: epoch.epoch)
        numbers = [epoch.epoch for epoch in group]
        if numbers != list(range(1, count + 1)):
            raise InspectLogError(
                f"{group[0].where}: has epochs {numbers}, expected 1 to {count}: the log is"
                " incomplete or repeats an epoch"
            )
        if any(epoch.content != group[0].content for epoch in group[1:]):
            raise InspectLogError(
                f"{group[0].where}: its epochs disagree on input, target or metadata"
            )
        ordered.append(group)
    case_ids: dict[str, int | str] = {}
    for group in ordered:
        sample_id = group[0].sample_id
        case_id = str(sample_id)
        if _CASE_ID.match(case_id) is None:
            raise InspectLogError(
                f"{group[0].where}: id {case_id[:60]!r} is not a registry case id (letters,"
                " digits, '.', '_', ':', '/', '-'; at most 200 characters)"
            )
        if case_id in case_ids:
            raise InspectLogError(
                f"{log}: sample ids {case_ids[case_id]!r} and {sample_id!r} both give case_id"
                f" {case_id!r}"
            )
        case_ids[case_id] = sample_id
    return ordered

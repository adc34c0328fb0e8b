"""Where a value stands in a published document: field paths, their names in messages, the
string values and file names the document rules walk."""

from __future__ import annotations

from collections.abc import Iterable
from functools import lru_cache
from pathlib import PurePosixPath

from bot.vocab.document import FieldPath

__all__ = ["field_name", "file_name", "string_values"]


def field_name(where: FieldPath) -> str:
    text = ""
    for part in where:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text


@lru_cache(maxsize=256)  # called once per record, for the few files of an attempt
def file_name(file: str) -> str:
    return PurePosixPath(file).name


def string_values(data: object, where: FieldPath = ()) -> Iterable[tuple[FieldPath, str]]:
    """Every string value in `data` with its path (bounded depth, like the schemas allow)."""
    if len(where) > 64:
        return
    if isinstance(data, str):
        yield where, data
    elif isinstance(data, dict):
        for key, value in data.items():
            yield from string_values(value, (*where, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from string_values(value, (*where, index))

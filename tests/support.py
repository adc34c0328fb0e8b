"""Helpers shared by the tests: edit an attempt's files one record at a time."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from bot.dump import dump_jsonl

PROJECT = Path(__file__).resolve().parents[1]
RULES = (PROJECT / "shared-rules" / "common-v1.yaml").read_bytes()
Files = dict[str, bytes]


def records(files: Files, name: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file in `files`."""
    return [json.loads(line) for line in files[name].decode().splitlines()]


def rewrite(files: Files, name: str, edit: Callable[[list[dict[str, Any]]], None]) -> None:
    """Apply `edit` to the records of a JSONL file and write it back."""
    items = records(files, name)
    edit(items)
    files[name] = dump_jsonl(items)

"""Registry files as bytes: YAML and JSONL written the way the bot's loaders read them back.

The writers used by the Inspect adapter, the demo's specimen builder, `examples/generate.py`
and the tests, so that every file the project produces has one format.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from typing import Any

import yaml

__all__ = ["dump_jsonl", "dump_yaml"]


def dump_yaml(data: Mapping[str, Any], schema: str | None = None) -> bytes:
    """Return `data` as UTF-8 YAML the safe loader accepts, keys in their given order.

    No anchors: the data is copied through JSON first, so shared objects are written out in
    full. `schema`, if given, becomes the editor-validation comment on the first line
    (`# yaml-language-server: $schema=...`). Raises ValueError or TypeError for data that
    JSON cannot hold.
    """
    plain = json.loads(json.dumps(data))
    text = yaml.safe_dump(plain, sort_keys=False, allow_unicode=True, width=100)
    header = f"# yaml-language-server: $schema={schema}\n" if schema else ""
    return (header + text).encode("utf-8")


def dump_jsonl(records: Sequence[Mapping[str, Any]]) -> bytes:
    """Return one compact JSON object a line, each line ending with a newline."""
    return b"".join(
        json.dumps(record, ensure_ascii=False, separators=(",", ":")).encode() + b"\n"
        for record in records
    )

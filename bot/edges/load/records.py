"""A JSONL file of a tree, read through `bot.vocab.jsonl.parse_jsonl` (links refused)."""

from __future__ import annotations

from collections.abc import Callable

from bot.edges.load.folder import tree_error
from bot.edges.tree import Tree, TreeError
from bot.vocab.config import Limits
from bot.vocab.document import Record
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import Typed, parse_jsonl

__all__ = ["load_jsonl"]


def load_jsonl(
    tree: Tree,
    path: str,
    limits: Limits = Limits(),
    sink: Callable[[Record, bytes], None] | None = None,
    typed: Typed | None = None,
) -> tuple[list[Record], list[Finding]]:
    """Read the JSONL file `path` of `tree` (links refused). See `parse_jsonl`."""
    entry = tree.entry(path)
    if entry is not None and entry.kind == "file" and (entry.size or 0) > limits.max_jsonl_bytes:
        message = f"{entry.size} bytes, over the {limits.max_jsonl_bytes}-byte limit"
        return [], [Finding(Code.JSONL_INVALID, message, path)]
    try:
        with tree.open(path) as stream:
            return parse_jsonl(stream, path, limits, sink, typed)
    except TreeError as error:
        return [], [tree_error(error, "cannot read", path)]

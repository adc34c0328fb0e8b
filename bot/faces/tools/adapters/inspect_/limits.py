"""How much the adapter reads of an untrusted log."""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["InspectLimits"]


@dataclass(frozen=True, slots=True)
class InspectLimits:
    """Caps on what the adapter reads from an untrusted log, checked before parsing."""

    # A .json log is parsed whole: about ten times its size in memory.
    max_json_bytes: int = 256 * 1024 * 1024
    # An .eval log is read member by member: only header.json and samples/*.json.
    max_eval_bytes: int = 4 * 1024 * 1024 * 1024
    max_members: int = 200_000
    max_member_bytes: int = 256 * 1024 * 1024
    # Uncompressed: declared by all members, and actually read.
    max_total_bytes: int = 4 * 1024 * 1024 * 1024

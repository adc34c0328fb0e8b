"""`claims demo --today`: the demo moved in time so that its dates end before today.

The demo plan is dated in 2027 (the examples' trials, freezes, markets' resolve-by dates, the
scheduled job's runs). A filer who keeps the demo registry to try the filer tools on it needs
its history to lie in the past, so that a freeze merged now and trials run now come after
every commit on main. This module moves the whole demo by one whole number of days:

- every date and time written in the plan (commit and merge times, the scheduled job's runs,
  the dates the demo verifies and resolves on, the texts that name a date) and in every file
  the plan commits or the wrapped attempts' papers released (`YYYY-MM-DD`, with or without a
  time: trials, freezes, attempts, raw logs, judgments, markets' `resolve_by`);
- then what those edits change: a file's sha256 quoted in another file (`raw_log.sha256`,
  an adapter's `released_data`) is replaced by the moved file's, and an attempt folder's
  evidence digest in `judgments.yaml` by the moved folder's.

Shifting by whole days keeps every interval, the time of day and the width of each date, so
the examples keep their relationships (a trial before its freeze stays before it, a truncated
log still differs from its pinned hash, an edited wrap still differs from its rerun) and
`claims demo` checks the same codes and outcomes. Case hashes cover cases' `content`, which
holds no date, so they do not change.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import replace
from datetime import date, timedelta
from typing import Any

from bot.faces.demo.git_registry import Step
from bot.rules.evidence.hashing import evidence_digest

__all__ = ["latest_date", "shift_days_before", "shift_demo", "shift_text"]

# A calendar date not inside a longer run of digits (never part of a hex digest: those have
# no hyphens). Only real dates are moved; anything else that looks like one is left alone.
_DATE = re.compile(rb"(?<![0-9])([0-9]{4})-([0-9]{2})-([0-9]{2})(?![0-9])")
_HEX = re.compile(rb"(?<![0-9a-f])[0-9a-f]{64}(?![0-9a-f])")


def _dates(data: bytes) -> list[date]:
    found = []
    for match in _DATE.finditer(data):
        try:
            found.append(date(*(int(part) for part in match.groups())))
        except ValueError:
            continue
    return found


def shift_text(data: bytes, days: int) -> bytes:
    """Every calendar date in `data` moved by `days` days; the same length (4-digit years)."""

    def moved(match: re.Match[bytes]) -> bytes:
        try:
            day = date(*(int(part) for part in match.groups()))
        except ValueError:
            return match.group(0)
        return (day + timedelta(days=days)).isoformat().encode()

    return _DATE.sub(moved, data)


def latest_date(steps: list[Step], plan: Mapping[str, Any]) -> date:
    """The last date the demo uses: in its plan (steps, job runs, resolutions) or its files."""
    found = [step.at.date() for step in steps]
    found += [step.merged_at.date() for step in steps if step.merged_at is not None]
    for key in ("verify_as_of", "resolve_on", "close_on"):
        found += _dates(str(plan.get(key, "")).encode())
    for step in steps:
        for content in step.files.values():
            found += _dates(content or b"")
    return max(found)


def shift_days_before(today: date, steps: list[Step], plan: Mapping[str, Any]) -> int:
    """The whole number of days that puts the demo's last date on the day before `today`."""
    return (today - timedelta(days=1) - latest_date(steps, plan)).days


def _folder_digests(steps: list[Step]) -> dict[str, str]:
    """Each attempt folder's evidence digest as main holds it after the last step."""
    final: dict[str, bytes] = {}
    for step in steps:
        if step.open_pr is not None:
            continue
        for path, content in step.files.items():
            if content is None:
                final.pop(path, None)
            else:
                final[path] = content
    folders: dict[str, dict[str, str]] = {}
    for path, content in final.items():
        parts = path.split("/")
        if parts[0] != "attempts" or len(parts) < 5:
            continue
        folder = "/".join(parts[:4])
        folders.setdefault(folder, {})["/".join(parts[4:])] = hashlib.sha256(content).hexdigest()
    return {folder: evidence_digest(hashes) for folder, hashes in folders.items()}


def _replace_hex(data: bytes, table: Mapping[str, str]) -> bytes:
    return _HEX.sub(lambda m: table.get(m.group(0).decode(), m.group(0).decode()).encode(), data)


def shift_demo(
    steps: list[Step], plan: dict[str, Any], released: Mapping[str, bytes], days: int
) -> tuple[list[Step], dict[str, Any], dict[str, bytes]]:
    """The demo's steps, plan and released data (named by sha256) moved by `days` days."""
    moved_files: dict[bytes, bytes] = {}
    hashes: dict[str, str] = {}

    def move(content: bytes) -> bytes:
        if content not in moved_files:
            new = shift_text(content, days)
            moved_files[content] = new
            hashes[hashlib.sha256(content).hexdigest()] = hashlib.sha256(new).hexdigest()
        return moved_files[content]

    new_released = {name: move(data) for name, data in released.items()}
    dated = [
        replace(
            step,
            at=step.at + timedelta(days=days),
            merged_at=None if step.merged_at is None else step.merged_at + timedelta(days=days),
            files={
                path: None if content is None else move(content)
                for path, content in step.files.items()
            },
        )
        for step in steps
    ]
    # A moved file's hash quoted elsewhere (a pinned raw log, released data) follows the file.
    linked = [
        replace(
            step,
            files={
                path: None if content is None else _replace_hex(content, hashes)
                for path, content in step.files.items()
            },
        )
        for step in dated
    ]
    # Judgments are bound to their folder's evidence digest: bind them to the moved folder.
    before, after = _folder_digests(steps), _folder_digests(linked)
    digests = {before[folder]: after[folder] for folder in before if folder in after}
    final = [
        replace(
            step,
            files={
                path: None if content is None else _replace_hex(content, digests)
                for path, content in step.files.items()
            },
        )
        for step in linked
    ]
    new_plan = dict(plan)
    new_plan["verify_as_of"] = shift_text(plan["verify_as_of"].encode(), days).decode()
    for key in ("resolve_on", "close_on"):
        new_plan[key] = [shift_text(text.encode(), days).decode() for text in plan[key]]
    new_plan["why"] = {
        folder: shift_text(text.encode(), days).decode()
        for folder, text in plan.get("why", {}).items()
    }
    return final, new_plan, {hashes.get(name, name): data for name, data in new_released.items()}

"""`claims pin-log`: pin a local raw log into attempt.yaml and raw-log/.

The numbers are the shared rules' (`evidence.max_local_log_bytes`, `evidence.excerpt_bytes`),
and the planned raw-log/ files are checked with the verifier's own rule
(`bot.rules.evidence.raw_log.check_raw_log`) before anything is written.

attempt.yaml is edited as text, not rewritten through a YAML library, so its comments and
layout stay: only the lines of `raw_log.sha256` and `raw_log.bytes` (and `raw_log.url` with
--url) under a top-level block `raw_log:` are replaced (or added), and the edited text must
parse to exactly the old data with those fields changed. When that cannot be done (a flow
mapping, anchors, `raw_log` written some other way) nothing is written and the command says
which values to enter by hand.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any, BinaryIO

from bot.edges.load.yaml_ import parse_yaml
from bot.rules.evidence.models import RawLogClaim
from bot.rules.evidence.raw_log import RawLogFile, check_raw_log
from bot.vocab.config import Limits
from bot.vocab.findings import Finding

__all__ = ["LogFacts", "edit_block", "measure_log", "raw_log_files"]

_CHUNK = 1 << 20
_KEY = re.compile(r"\A(?P<indent>[ ]+)(?P<key>[A-Za-z_][A-Za-z0-9_]*)[ ]*:(?:[ ]|$)")


@dataclass(frozen=True)
class LogFacts:
    """A raw log's size, SHA-256, and its first and last `excerpt` bytes."""

    size: int
    sha256: str
    head: bytes
    tail: bytes


def measure_log(stream: BinaryIO, excerpt: int) -> LogFacts:
    """Stream the log once for its size and hash; keep its first and last `excerpt` bytes."""
    digest = hashlib.sha256()
    size = 0
    head = b""
    tail = b""
    while chunk := stream.read(_CHUNK):
        digest.update(chunk)
        size += len(chunk)
        if len(head) < excerpt:
            head += chunk[: excerpt - len(head)]
        tail = (tail + chunk)[-excerpt:]
    return LogFacts(size, digest.hexdigest(), head, tail)


def raw_log_files(
    facts: LogFacts, name: str, whole: bytes | None, rules_max: int, excerpt: int, folder: str
) -> tuple[dict[str, bytes], list[Finding]]:
    """The raw-log/ files for this log (the whole log as `name`, or head and tail), and what
    the verifier's rule says of them against the claim (empty when they will pass)."""
    if facts.size <= rules_max:
        assert whole is not None
        planned = {name: whole}
    else:
        planned = {"head": facts.head, "tail": facts.tail}
    problems = check_raw_log(
        [
            RawLogFile(file, len(data), hashlib.sha256(data).hexdigest())
            for file, data in planned.items()
        ],
        RawLogClaim(facts.sha256, url="", bytes=facts.size),  # the rule reads no url
        rules_max,
        excerpt,
        folder,
        "attempt.yaml",
        None,
    )
    return planned, problems


def _printable(char: str) -> bool:
    """A character YAML allows unescaped in a double-quoted scalar (YAML 1.2, 5.1)."""
    code = ord(char)
    return char.isprintable() and (
        0x20 <= code <= 0x7E
        or 0xA0 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or code >= 0x10000
    )


def _scalar(value: Any) -> str:
    """A YAML scalar for `value`: integers plain, strings double-quoted with YAML's escapes
    (so a hash of digits only stays a string, and any character survives)."""
    if isinstance(value, bool) or not isinstance(value, int | str):
        raise TypeError(f"cannot write {value!r}")
    if isinstance(value, int):
        return str(value)
    out = []
    for char in value:
        if char in '"\\':
            out.append("\\" + char)
        elif _printable(char):
            out.append(char)
        elif ord(char) <= 0xFFFF:
            out.append(f"\\u{ord(char):04x}")
        else:
            out.append(f"\\U{ord(char):08x}")
    return '"' + "".join(out) + '"'


def edit_block(
    text: str, block: str, values: Mapping[str, Any], path: str, limits: Limits = Limits()
) -> tuple[str | None, str]:
    """`text` with the fields `values` of the top-level block mapping `block` set; the other
    lines unchanged. Returns (new text, "") or (None, why it could not be done)."""
    document, problems = parse_yaml(text.encode("utf-8"), path, limits)
    if document is None or not isinstance(document.data, dict):
        why = problems[0].message if problems else "not a mapping"
        line = f" line {problems[0].line}" if problems and problems[0].line else ""
        return None, f"{path}{line}: {why}"
    expected = dict(document.data)
    current = expected.get(block)
    if block in expected and not isinstance(current, dict):
        return None, f"{path}: {block} is not a mapping"
    expected[block] = {**(current or {}), **values}
    # Lines end at "\n" only (str.splitlines would also split at characters inside values).
    lines = re.findall(r"[^\n]*\n|[^\n]+\Z", text)
    newline = "\r\n" if lines and lines[0].endswith("\r\n") else "\n"
    starts = [
        i for i, line in enumerate(lines) if re.match(rf"{re.escape(block)}:[ ]*(#.*)?\r?$", line)
    ]
    if not starts:
        if block in expected and current:
            return None, f"{path}: {block} is not written as a block (`{block}:` on its own line)"
        if lines and not lines[-1].endswith("\n"):
            lines[-1] += newline
        lines.append(f"{block}:{newline}")
        lines += [f"  {key}: {_scalar(value)}{newline}" for key, value in values.items()]
    else:
        if len(starts) > 1:
            return None, f"{path}: {block} appears more than once"
        start = starts[0]
        end = start + 1
        indent = None
        children: dict[str, int] = {}
        while end < len(lines):
            line = lines[end]
            stripped = line.strip()
            if stripped and not stripped.startswith("#") and not line.startswith(" "):
                break
            match = _KEY.match(line)
            if match:
                if indent is None:
                    indent = match["indent"]
                if match["indent"] == indent:
                    children[match["key"]] = end
            end += 1
        while end > start + 1 and not lines[end - 1].strip():
            end -= 1  # keep blank lines after the block where they were
        indent = indent or "  "
        added = []
        for key, value in values.items():
            line = f"{indent}{key}: {_scalar(value)}{newline}"
            if key in children:
                lines[children[key]] = line
            else:
                added.append(line)
        lines[end:end] = added
    edited = "".join(lines)
    check, _ = parse_yaml(edited.encode("utf-8"), path, limits)
    if check is None or check.data != expected:
        return None, f"{path}: {block} is not written as a plain block mapping the tool can edit"
    return edited, ""

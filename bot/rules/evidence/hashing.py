"""The hashes evidence is named by: a case's content hash and an attempt's evidence digest
(docs/spec.md §4 and §8)."""

from __future__ import annotations

import contextlib
import hashlib
import json
from collections.abc import Mapping

import rfc8785

from bot.vocab.values import JSONObject

__all__ = ["case_hash", "evidence_digest"]


def case_hash(content: JSONObject) -> str:
    """Hex SHA-256 of the RFC 8785 (JCS) canonical form of `content`.

    Raises `rfc8785.CanonicalizationError` for values JCS cannot represent (e.g. integers
    beyond 2**53, which JSON numbers cannot carry exactly).
    """
    if _plain(content):
        text = json.dumps(content, ensure_ascii=False, sort_keys=True, separators=(",", ":"))
        with contextlib.suppress(UnicodeEncodeError):  # a lone surrogate: rfc8785 says why
            return hashlib.sha256(text.encode("utf-8")).hexdigest()
    return hashlib.sha256(rfc8785.dumps(content)).hexdigest()


_SAFE_INTEGER = 2**53


def _plain(value: object, depth: int = 0) -> bool:
    """Whether `json.dumps(sort_keys, compact, ensure_ascii=False)` writes `value` exactly as
    RFC 8785 does (~5x faster than the rfc8785 package): objects with ASCII keys (sorted the
    same by code point and by UTF-16 unit), strings of text (both escape `"`, `\\` and
    controls alike, with lower-case hex, and write the rest as UTF-8), booleans, null, and
    integers within +-2**53. Not floats: JCS writes them as ECMAScript does (1e+21, not
    1e21). Anything else takes the rfc8785 package's path."""
    if depth > 64:
        return False
    if isinstance(value, str):
        return True
    if isinstance(value, dict):
        return all(
            isinstance(key, str) and key.isascii() and _plain(item, depth + 1)
            for key, item in value.items()
        )
    if isinstance(value, list):
        return all(_plain(item, depth + 1) for item in value)
    if value is None or isinstance(value, bool):
        return True
    return type(value) is int and -_SAFE_INTEGER < value < _SAFE_INTEGER


def evidence_digest(file_hashes: Mapping[str, str]) -> str:
    """SHA-256 of the sorted `path sha256` lines of every file but judgments.yaml (docs/spec.md §8).

    Paths are POSIX, relative to the attempt folder; each line ends with a newline.
    """
    lines = sorted(
        f"{path} {sha}\n" for path, sha in file_hashes.items() if path != "judgments.yaml"
    )
    return hashlib.sha256("".join(lines).encode("utf-8")).hexdigest()

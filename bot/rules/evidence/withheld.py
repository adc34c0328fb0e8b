"""Withholdable fields (seed, Hidden Suites): never published, as a key or written in a string,
however the key is spelt."""

from __future__ import annotations

import re
import unicodedata
from collections.abc import Callable, Iterable, Mapping, Sequence
from functools import lru_cache

from bot.rules.evidence.paths import field_name, string_values
from bot.vocab.document import FieldPath
from bot.vocab.findings import Code, Finding

__all__ = [
    "WithheldChecker",
    "check_withheld",
    "fold_key",
    "fold_text",
    "plain_line",
    "withheld_key_pattern",
]


def check_withheld(
    documents: Iterable[tuple[str, object, Callable[[FieldPath], int | None]]],
    withholdable: Sequence[str],
) -> list[Finding]:
    """No withholdable field appears, at any depth, in a published file (seed, Hidden Suites).

    `documents` are (file, data, line_of) for every YAML document and JSONL record; each is
    checked by `WithheldChecker`.
    """
    if not withholdable:
        return []
    check = WithheldChecker(withholdable)
    return [finding for document in documents for finding in check(*document)]


class WithheldChecker:
    """One published document or record checked for withholdable fields (seed, Hidden Suites).

    Keys are compared after `fold_key`, so `Reference-Answer` and `referenceAnswer` are the
    field `reference_answer`. A string value that writes the field as a key (a JSON object or a
    `name: value` line kept in a string, `withheld_key_pattern`) publishes it too.
    """

    def __init__(self, withholdable: Sequence[str]) -> None:
        self.hidden = {fold_key(name): name for name in withholdable}
        self.patterns = [(name, withheld_key_pattern(name)) for name in dict.fromkeys(withholdable)]
        self.firsts = tuple({_first_word(name) for name in withholdable})

        # `may_hold`: each first word as bytes (only ASCII ones can be in an ASCII line)
        self._first_bytes = tuple(first.encode() for first in self.firsts)

    def may_hold(self, raw: bytes) -> bool:
        """Whether a JSONL line whose bytes are `plain_line` may hold a withholdable field, as
        a key or written in a string. False means this check finds nothing in its record.

        Every key and string of such a line is in its bytes as written. A key that folds to a
        withholdable field holds the field's first word once its `-`, `_` and white space are
        removed and it is lowered (`fold_key`), and a string that writes it holds the first
        word as it stands (`withheld_key_pattern`): so, lowered and without those bytes, the
        line holds some field's first word.
        """
        if not self.hidden:
            return False
        folded = raw.translate(_ASCII_LOWER, _ASCII_SEPARATORS)  # `lower()`, in the same pass
        return any(first in folded for first in self._first_bytes)

    def __call__(
        self, file: str, data: object, line_of: Callable[[FieldPath], int | None]
    ) -> list[Finding]:
        hidden, firsts = self.hidden, self.firsts
        if not hidden or not _may_leak(data, hidden, firsts):
            return []
        findings = []
        for where in _paths_of_keys(data, hidden):
            key = where[-1]
            name = hidden[fold_key(str(key))]
            if key == name:
                message = f"{key}: a withholdable field must never be published"
            else:
                message = (
                    f"{key!r} is the withholdable field {name!r} spelled differently;"
                    " it must never be published"
                )
            findings.append(Finding(Code.WITHHELD_FIELD_LEAK, message, file, line_of(where)))
        # String values, then keys: a key is text too (`{"reference_answer: 42": 1}`).
        for where, text, what in (
            *((where, text, "text") for where, text in string_values(data)),
            *((where, str(where[-1]), "key") for where in _text_keys(data)),
        ):
            if text.isascii() and not _ascii_may_write(text, firsts):
                continue
            folded = fold_text(text)
            for name, pattern in self.patterns:
                if pattern.search(folded):
                    message = (
                        f"{field_name(where)}: its {what} writes the withholdable field"
                        f" {name!r} as a key; it must never be published"
                    )
                    findings.append(
                        Finding(Code.WITHHELD_FIELD_LEAK, message, file, line_of(where))
                    )
                    break
        return findings


_SEPARATORS = re.compile(r"[\s_-]+")


# What `_SEPARATORS` matches in ASCII: `\s` (str.isspace) is these six and \x1c-\x1f.
_ASCII_SEPARATORS = bytes(code for code in range(128) if chr(code).isspace() or chr(code) in "_-")
_ASCII_LOWER = bytes.maketrans(b"ABCDEFGHIJKLMNOPQRSTUVWXYZ", b"abcdefghijklmnopqrstuvwxyz")


def plain_line(raw: bytes) -> bool:
    """A JSONL line in printable ASCII without a backslash: each of its keys and strings is
    in its bytes as written (no escape), and none holds a character a reader cannot see (a
    control character in a string is not JSON: the loader refused it)."""
    return raw.isascii() and b"\\" not in raw and b"\x7f" not in raw


def _first_word(name: str) -> str:
    """The first word of a withholdable field as `withheld_key_pattern` matches it."""
    return next((word for word in _SEPARATORS.split(fold_text(name)) if word), "")


def _ascii_may_write(text: str, firsts: Sequence[str]) -> bool:
    """Whether ASCII `text` may write a withholdable field as a key: the key pattern needs
    its first word (in `fold_text(text)`, which is `text.lower()` for ASCII) and a `:` or
    `=`. False means it certainly does not."""
    if ":" not in text and "=" not in text:
        return False
    lowered = text.lower()
    return any(first in lowered for first in firsts)


def _may_leak(data: object, hidden: Mapping[str, str], firsts: Sequence[str]) -> bool:
    """Whether `data` may hold a withholdable field, as a key or written in a string value:
    one walk without paths, so the common record (nothing to find) is passed over cheaply.
    False means `check_withheld` would find nothing in it."""
    pending = [data]
    while pending:
        item = pending.pop()
        if isinstance(item, str):
            if not item.isascii() or _ascii_may_write(item, firsts):
                return True
        elif isinstance(item, dict):
            for key, value in item.items():
                if isinstance(key, str) and (
                    fold_key(key) in hidden or not key.isascii() or _ascii_may_write(key, firsts)
                ):
                    return True
                pending.append(value)
        elif isinstance(item, list):
            pending.extend(item)
    return False


@lru_cache(maxsize=4096)  # records repeat the same few keys
def fold_key(key: str) -> str:
    """`key` as the withheld-field check compares it: NFKC, without format characters
    (zero-width spaces and joiners) or surrounding whitespace, case-folded, and every `-`, `_`
    and whitespace removed, so `reference_answer`, `Reference-Answer`, `reference answer`
    and `referenceAnswer` are one field (docs/spec-notes.md)."""
    return _SEPARATORS.sub("", fold_text(key).strip())


def fold_text(text: str) -> str:
    """`text` as the leak check reads it: NFKC, without format characters, case-folded."""
    if text.isascii():  # NFKC and format characters leave ASCII alone; casefold is lower
        return text.lower()
    text = unicodedata.normalize("NFKC", text)
    return "".join(char for char in text if unicodedata.category(char) != "Cf").casefold()


@lru_cache(maxsize=256)
def withheld_key_pattern(name: str) -> re.Pattern[str]:
    """A withholdable field written as a key in text already `fold_text`-ed: its words,
    joined by nothing or any run of `-`, `_` or white space, after any `_` and before any run
    of separators, followed (past an optional quote) by `:` or `=`."""
    words = [re.escape(word) for word in _SEPARATORS.split(fold_text(name)) if word]
    joined = r"[\s_-]*".join(words)
    # A key's `_` and `-` at either end fold away (`fold_key`): `_reference_answer:` and
    # `reference_answer_ =` write the field too. Possessive, so a long run of separators
    # after the name is read once.
    return re.compile(rf"(?<![\w])_*{joined}[\s_-]*+(?![\w])[\"']?\s*[:=]")


def _text_keys(data: object, where: FieldPath = ()) -> Iterable[FieldPath]:
    """The path of every string key in `data` that may write a field as text: one holding
    `:` or `=`, or not ASCII (bounded depth, like `string_values`)."""
    if len(where) > 64:
        return
    if isinstance(data, dict):
        for key, value in data.items():
            if isinstance(key, str) and (not key.isascii() or ":" in key or "=" in key):
                yield (*where, key)
            yield from _text_keys(value, (*where, key))
    elif isinstance(data, list):
        for index, value in enumerate(data):
            yield from _text_keys(value, (*where, index))


def _paths_of_keys(value: object, keys: Mapping[str, str]) -> list[FieldPath]:
    """Paths of every string mapping key whose `fold_key` is in `keys`, found with an explicit
    stack (bounded depth)."""
    found: list[FieldPath] = []
    pending: list[tuple[object, FieldPath]] = [(value, ())]
    while pending:
        item, where = pending.pop()
        if len(where) > 64:
            continue
        if isinstance(item, dict):
            for key, child in item.items():
                if isinstance(key, str) and fold_key(key) in keys:
                    found.append((*where, key))
                if isinstance(child, dict | list):  # only containers hold keys
                    pending.append((child, (*where, key)))
        elif isinstance(item, list):
            pending.extend(
                (child, (*where, index))
                for index, child in enumerate(item)
                if isinstance(child, dict | list)
            )
    return sorted(found, key=str)

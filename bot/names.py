"""How the registry compares names: systems, unit-key values, families, red teams, submitters.

Two names that a reader cannot tell apart must not count as two systems, two units or two
red-team groups (`sim-model-a`, `Sim-Model-A`, `sim-model-a ` and `sim-model-a` written in
full-width letters are one name). So every comparison of names goes through `fold_name`, and
a name holding a character that shows as nothing (or as something it is not) is refused
before it is compared (`hidden_characters`; reason code `name-invisible-character`).

Folding is Unicode's caseless identifier matching, approximated with what the standard library
offers: NFKC, then full case folding, then NFKC again (case folding can leave a string that is
no longer normalized), then white space trimmed and each inner run of it written as one space.
Unicode Standard, ch. 3.13 "Default Caseless Matching" (D146, compatibility caseless match),
https://www.unicode.org/versions/latest/ch03.pdf, and UAX #15, https://unicode.org/reports/tr15/.
"""

from __future__ import annotations

import unicodedata

__all__ = ["fold_name", "hidden_characters"]

# General categories refused in names (https://www.unicode.org/reports/tr44/#General_Category_Values):
# Cc control (tab, newline, bell, ...), Cf format (zero-width space and joiners, bidi
# overrides, soft hyphen, BOM), Cs surrogate (a lone one parsed from a JSON escape), Co private
# use, Cn unassigned, Zl line separator, Zp paragraph separator.
_REFUSED_CATEGORIES = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})
# Default_Ignorable_Code_Point characters outside those categories: they render as nothing
# (combining grapheme joiner, Hangul fillers, Khmer inherent vowels, Mongolian and standard
# variation selectors). DerivedCoreProperties.txt, Unicode 15.1,
# https://www.unicode.org/Public/15.1.0/ucd/DerivedCoreProperties.txt
_IGNORABLE_RANGES = (
    (0x034F, 0x034F),
    (0x115F, 0x1160),
    (0x17B4, 0x17B5),
    (0x180B, 0x180D),
    (0x180F, 0x180F),
    (0x3164, 0x3164),
    (0xFE00, 0xFE0F),
    (0xFFA0, 0xFFA0),
    (0xE0100, 0xE01EF),
    # Not default-ignorable, but drawn as blank space: BRAILLE PATTERN BLANK (So) and MUSICAL
    # SYMBOL NULL NOTEHEAD (So). "sim-model-a" + U+2800 looked like "sim-model-a" and
    # counted as another system (found in review).
    (0x2800, 0x2800),
    (0x1D159, 0x1D159),
)


def fold_name(name: str) -> str:
    """The form in which two names are compared: NFKC, case folded, white space trimmed.

    Equal folded forms mean the same name. The result is for comparing only; reports show
    names as written.
    """
    if name.isascii():  # NFKC leaves ASCII as it is, and casefold is lower (per trial key)
        folded = " ".join(name.lower().split())
        return name if folded == name else folded  # the same string kept once (memory)
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def _is_ignorable(code: int) -> bool:
    return code >= 0x034F and any(low <= code <= high for low, high in _IGNORABLE_RANGES)


def hidden_characters(name: str) -> list[str]:
    """The characters of `name` that a reader cannot see, each as `U+XXXX NAME`, in order.

    Ordinary spaces are not among them: white space is trimmed when names are compared.
    """
    if name.isascii() and name.isprintable():
        return []  # printable ASCII holds none (the common case: checked per trial field)
    found = []
    for character in name:
        code = ord(character)
        if unicodedata.category(character) in _REFUSED_CATEGORIES or _is_ignorable(code):
            label = unicodedata.name(character, "") or f"category {unicodedata.category(character)}"
            found.append(f"U+{code:04X} {label}")
    return found

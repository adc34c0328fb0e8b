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
from collections.abc import Callable, Iterable

from bot.vocab.findings import Code, Finding

__all__ = ["fold_name", "fold_path", "hidden_characters", "path_collisions"]

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
    # SYMBOL NULL NOTEHEAD (So). "sim-model-a" + U+2800 looks like "sim-model-a" and
    # would count as another system.
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


def fold_path(path: str) -> str:
    """The form in which two paths collide: NFKC, case folded, NFKC again."""
    return unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", path).casefold())


def path_collisions(
    wanted: Iterable[str], others: Iterable[str] = (), shown: Callable[[str], str] = str
) -> list[Finding]:
    """`path-collision` for each path of `wanted` whose name, or a folder on its way, is
    another's of `wanted` or `others` once case and Unicode forms are folded (`fold_path`):
    on a case-insensitive or normalising file system (a filer's checkout, a reader's
    download of the site) they are one file, and readers cannot tell them apart.

    The one check of both paths: a pull request's changes against its head's tree
    (bot/rules/review.py) and an attempt folder as verify scans it (bot/edges/load/folder.py), so a
    working tree refuses what a pull request refuses. One finding per colliding path, naming
    it; `shown` writes a path for the message."""
    wanted = list(wanted)
    if not wanted:
        return []
    prefixes: set[str] = set()
    for path in [*others, *wanted]:
        parts = path.split("/")
        prefixes.update("/".join(parts[: i + 1]) for i in range(len(parts)))
    by_fold: dict[str, set[str]] = {}
    for prefix in prefixes:
        by_fold.setdefault(fold_path(prefix), set()).add(prefix)
    findings = []
    for path in wanted:
        parts = path.split("/")
        for i in range(len(parts)):
            prefix = "/".join(parts[: i + 1])
            clashing = sorted(by_fold.get(fold_path(prefix), set()) - {prefix})
            if clashing:
                names = ", ".join(shown(other) for other in clashing)
                findings.append(
                    Finding(
                        Code.PATH_COLLISION,
                        f"{shown(prefix)} and {names} are one name once case and Unicode forms"
                        " are folded (NFKC, case folding); rename one",
                        shown(path),
                    )
                )
                break
    return findings

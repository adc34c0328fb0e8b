"""bot/vocab/names.py: names compared folded (NFKC, case folded, white space trimmed), and the
characters a reader cannot see found so they can be refused."""

from __future__ import annotations

import unicodedata

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.vocab.names import fold_name, hidden_characters


@pytest.mark.parametrize(
    "name",
    [
        "sim-model-a",
        "Sim-Model-A",
        "SIM-MODEL-A",
        "sim-model-a ",
        "  sim-model-a",
        "\uff53\uff49\uff4d-\uff4d\uff4f\uff44\uff45\uff4c-\uff41",  # full-width letters (NFKC)
    ],
)
def test_look_alikes_fold_to_one_name(name: str) -> None:
    assert fold_name(name) == "sim-model-a"


def test_inner_white_space_is_one_space() -> None:
    assert fold_name("Red  team\u00a01") == fold_name("red team 1") == "red team 1"


def test_case_folding_is_full_folding() -> None:
    assert fold_name("Straße") == fold_name("STRASSE") == "strasse"
    assert fold_name("ﬁnance") == fold_name("FINANCE")  # the ligature is two letters


def test_different_names_stay_different() -> None:
    assert fold_name("sim-model-a") != fold_name("sim-model-b")
    assert fold_name("sim-model-a-seed-1") != fold_name("sim-model-a-seed-2")


@given(st.text(max_size=40))
def test_folding_is_idempotent(name: str) -> None:
    assert fold_name(fold_name(name)) == fold_name(name)


@pytest.mark.parametrize(
    ("character", "label"),
    [
        ("\u200b", "U+200B ZERO WIDTH SPACE"),
        ("\u200d", "U+200D ZERO WIDTH JOINER"),
        ("\u202e", "U+202E RIGHT-TO-LEFT OVERRIDE"),
        ("\u00ad", "U+00AD SOFT HYPHEN"),
        ("\ufeff", "U+FEFF ZERO WIDTH NO-BREAK SPACE"),
        ("\x00", "U+0000 category Cc"),
        ("\t", "U+0009 category Cc"),
        ("\ue000", "U+E000 category Co"),
        ("\u2028", "U+2028 LINE SEPARATOR"),
        ("\u2029", "U+2029 PARAGRAPH SEPARATOR"),
        ("\ufe0f", "U+FE0F VARIATION SELECTOR-16"),
        ("\u3164", "U+3164 HANGUL FILLER"),
        ("\u034f", "U+034F COMBINING GRAPHEME JOINER"),
        ("\U000e0041", "U+E0041 TAG LATIN CAPITAL LETTER A"),
        ("\ud800", "U+D800 category Cs"),
        # Review finding: drawn as blank space, though neither ignorable nor a format character.
        ("\u2800", "U+2800 BRAILLE PATTERN BLANK"),
        ("\U0001d159", "U+1D159 MUSICAL SYMBOL NULL NOTEHEAD"),
    ],
)
def test_invisible_characters_are_found(character: str, label: str) -> None:
    assert hidden_characters(f"sim{character}model") == [label]


def test_an_unassigned_code_point_is_found() -> None:
    unassigned = next(
        chr(c) for c in range(0x0378, 0x10000) if unicodedata.category(chr(c)) == "Cn"
    )
    assert hidden_characters(unassigned) == [f"U+{ord(unassigned):04X} category Cn"]


@pytest.mark.parametrize(
    "name", ["sim-model-a", "Modèle \u03b1", "模型-1", "sim model a", "a\u00a0b"]
)
def test_visible_names_have_no_hidden_characters(name: str) -> None:
    assert hidden_characters(name) == []


def test_a_name_already_folded_is_returned_itself() -> None:
    name = "".join(["sim-model-a", "-seed-01"])  # a fresh string, not a constant
    assert fold_name(name) is name  # kept once: unit_structure folds every trial's keys
    assert fold_name("Model  A") == "model a"

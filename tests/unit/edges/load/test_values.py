"""bot/vocab/values.py: where two JSON values differ."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.vocab.values import json_difference, json_equal

SCALARS = st.none() | st.booleans() | st.integers(-(2**53) + 1, 2**53 - 1) | st.text(max_size=5)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=3), inner, max_size=3)
    ),
    max_leaves=12,
)


@pytest.mark.parametrize(
    ("mine", "theirs", "expected"),
    [
        ({"hard": 1}, {"hard": True}, ("public.hard", 1, True)),
        ({"t": [True, 0]}, {"t": [True, False]}, ("public.t[1]", 0, False)),
        ([1, 2], [1, 2, 3], ("public", [1, 2], [1, 2, 3])),
        ("x", None, ("public", "x", None)),
    ],
)
def test_the_first_difference_is_named_by_its_field(mine: Any, theirs: Any, expected: Any) -> None:
    assert json_difference(mine, theirs, ("public",)) == expected


@given(VALUES, VALUES)
def test_a_difference_is_found_exactly_when_the_values_differ(mine: Any, theirs: Any) -> None:
    found = json_difference(mine, theirs)
    assert (found is None) == json_equal(mine, theirs)
    if found is not None:
        assert not json_equal(found[1], found[2])

"""bot/rules/evidence/hashing.py's case_hash: its json.dumps path writes exactly RFC 8785's
bytes."""

from __future__ import annotations

import hashlib
from typing import Any

import pytest
import rfc8785
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.rules.evidence import hashing
from bot.rules.evidence.hashing import case_hash

_TEXT = st.text(
    st.characters(codec="utf-8", exclude_categories=("Cs",))
    | st.sampled_from(['"', "\\", "\x00", "\x1f", "\x7f", "\u2028", "\ufeff", "😀", "\ue000"]),
    max_size=12,
)
_SCALARS = (
    st.none()
    | st.booleans()
    | _TEXT
    | st.integers(-(2**53) - 2, 2**53 + 2)
    | st.floats(allow_nan=False, allow_infinity=False)
)
_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=12,
)


def reference(content: Any) -> str | None:
    try:
        return hashlib.sha256(rfc8785.dumps(content)).hexdigest()
    except rfc8785.CanonicalizationError:
        return None


@settings(max_examples=500, deadline=None)
@given(st.dictionaries(_TEXT, _VALUES, max_size=5))
def test_case_hash_is_rfc8785_s(content: dict[str, Any]) -> None:
    expected = reference(content)
    if expected is None:
        with pytest.raises(rfc8785.CanonicalizationError):
            case_hash(content)
    else:
        assert case_hash(content) == expected


@pytest.mark.parametrize(
    "content",
    [
        {"prompt": "plain text", "truth": "unsafe"},
        {"b": 1, "a": [True, None, "x"], "c": {"z": "é", "y": "\x1f"}},
        {"n": 2**53 - 1, "m": -(2**53) + 1},
    ],
)
def test_plain_content_takes_the_fast_path(content: dict[str, Any]) -> None:
    assert hashing._plain(content)
    assert case_hash(content) == reference(content)


@pytest.mark.parametrize(
    "content",
    [{"x": 1.5}, {"x": 2**53}, {"é": "key not ASCII"}, {"x": [{"y": 1e21}]}],
)
def test_other_content_takes_rfc8785_s_path(content: dict[str, Any]) -> None:
    assert not hashing._plain(content)


def test_a_lone_surrogate_is_refused_as_before() -> None:
    with pytest.raises(rfc8785.CanonicalizationError):
        case_hash({"x": "\ud800"})

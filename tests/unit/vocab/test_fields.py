"""Typed reads of checked JSON: each member has the schema's type, or the bug is named."""

from __future__ import annotations

import pytest

from bot.vocab.fields import (
    array,
    flag,
    integer,
    integers,
    member,
    number,
    objects,
    optional_member,
    optional_text,
    texts,
)

DATA: dict[str, object] = {
    "n": 80,
    "x": 0.5,
    "whole": 10.0,
    "yes": True,
    "o": {"a": 1},
    "list": [1, 2],
    "s": "text",
    "none": None,
}


def test_numbers_keep_the_type_they_were_written_in() -> None:
    assert type(number(DATA, "n")) is int
    assert number(DATA, "x") == 0.5
    assert integer(DATA, "whole") == 10
    assert type(integer(DATA, "whole")) is int


def test_a_boolean_is_no_number() -> None:
    with pytest.raises(TypeError, match="'yes': expected a number, got bool"):
        number(DATA, "yes")


def test_a_fraction_is_no_integer() -> None:
    with pytest.raises(TypeError, match="'x': expected an integer"):
        integer(DATA, "x")


@pytest.mark.parametrize(
    ("read", "key"), [(flag, "n"), (member, "list"), (array, "o"), (optional_text, "n")]
)
def test_a_member_of_another_type_is_named(read: object, key: str) -> None:
    assert callable(read)
    with pytest.raises(TypeError, match=f"'{key}': expected"):
        read(DATA, key)


def test_absent_or_null_optional_members_are_none() -> None:
    assert optional_member(DATA, "none") is None
    assert optional_member(DATA, "missing") is None
    assert optional_member(DATA, "o") == {"a": 1}
    assert optional_text(DATA, "s") == "text"
    assert flag(DATA, "yes") is True
    assert array(DATA, "list") == [1, 2]


def test_arrays_of_one_type_are_read_item_by_item() -> None:
    data: dict[str, object] = {
        "names": ["a", "b"],
        "ids": [1, 2.0],
        "rows": [{"a": 1}],
        "mixed": [1, "x"],
    }
    assert texts(data, "names") == ("a", "b")
    assert integers(data, "ids") == (1, 2)
    assert objects(data, "rows") == ({"a": 1},)
    with pytest.raises(TypeError, match="'mixed': expected a string, got int"):
        texts(data, "mixed")
    with pytest.raises(TypeError, match="'mixed': expected a number, got str"):
        integers(data, "mixed")

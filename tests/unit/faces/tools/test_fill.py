"""`claims init --set`: the optional fields it may add are the schemas' own optional fields."""

from __future__ import annotations

import json

import pytest

from bot.faces.tools.fill import OPTIONAL, Setting, fill_text
from tests.support import PROJECT


@pytest.mark.parametrize(
    ("file", "schema"), [("freeze.yaml", "freeze"), ("attempt.yaml", "attempt")]
)
def test_every_optional_field_is_an_optional_scalar_of_its_schema(file: str, schema: str) -> None:
    data = json.loads((PROJECT / "schemas" / f"{schema}.schema.json").read_text())
    for path in OPTIONAL[file]:
        node = data
        for part in path[:-1]:
            node = node["properties"][part]
        assert path[-1] in node["properties"], path
        assert path[-1] not in node.get("required", []), path
        assert node["properties"][path[-1]].get("type") not in ("object", "array"), path


def test_an_added_field_takes_its_sibling_s_indent_and_a_top_level_one_goes_last() -> None:
    text = 'method:\n    name: "m"\ncode_commit: "c"'  # no final line break
    settings = [
        (("method", "url"), Setting("method.url", "https://x.example.org", "claims init --set")),
        (("notes",), Setting("notes", "n", "claims init --set")),
    ]
    edited, problems = fill_text(text, "freeze.yaml", settings)
    assert problems == []
    assert edited.splitlines() == [
        "method:",
        '    url: "https://x.example.org"  # from: claims init --set',
        '    name: "m"',
        'code_commit: "c"',
        'notes: "n"  # from: claims init --set',
    ]

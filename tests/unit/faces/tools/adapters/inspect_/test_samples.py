"""bot/faces/tools/adapters/inspect_/samples.py: the order cases and trials are written in."""

from __future__ import annotations

from bot.faces.tools.adapters.inspect_.samples import sample_order


def test_sample_order_is_total_and_natural() -> None:
    ids: list[int | str] = ["q10", "q2", 10, "q02", "B", "a", -1, 2, "q2b", "10", "x9y10", "x9y9"]
    assert sorted(ids, key=sample_order) == [
        -1,
        2,
        10,
        "10",
        "B",
        "a",
        "q02",
        "q2",
        "q2b",
        "q10",
        "x9y9",
        "x9y10",
    ]

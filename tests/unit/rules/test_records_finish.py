"""RecordsChecker.finish: the objects kept while the files were read are moved to the
collector's oldest generation, untouched otherwise (bot/rules/records.py `_promote_kept`)."""

from __future__ import annotations

import gc
from collections.abc import Iterator

import pytest

from bot.rules.records import RecordsChecker
from tests.support import shared_rules

FOLDER = "attempts/market-03/alice-lab/monitor-v1"


@pytest.fixture
def paused() -> Iterator[None]:
    """No collection but the ones the code under test asks for."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def _finish() -> None:
    checker = RecordsChecker(FOLDER, None, shared_rules(), ())
    checker.finish({}, False, None, [])


def _generation(kept: object) -> int | None:
    for generation in range(3):
        if any(item is kept for item in gc.get_objects(generation)):
            return generation
    return None


def test_objects_kept_before_finish_are_in_the_oldest_generation(paused: None) -> None:
    kept: list[object] = [{"trial": 1}]
    gc.collect(0)  # any leftovers aside: `kept` is made young below
    kept = [{"trial": 2}]
    assert _generation(kept) == 0
    _finish()
    assert _generation(kept) == 2
    assert gc.get_freeze_count() == 0  # nothing left frozen


def test_objects_frozen_by_someone_else_stay_frozen(paused: None) -> None:
    # Checked on an object of the test's own: the freeze count alone moves whenever some
    # other frozen object is freed meanwhile (a flaky assertion in a random test order).
    older: list[object] = [{"trial": 0}]
    gc.freeze()
    try:
        kept: list[object] = [{"trial": 3}]
        _finish()
        assert gc.get_freeze_count() > 0
        assert _generation(older) is None  # still frozen: in no generation the collector walks
        assert _generation(kept) == 0  # not moved: the freeze is not this code's to undo
    finally:
        gc.unfreeze()

"""The reports of `claims verify` and `claims resolve` on the demo registry and the adversarial
corpus are byte for byte those of the code before issue 25's faster verify: their SHA-256s are
tests/differential/goldens.json, written by `python -m tests.differential.reports --write` on
that code. A report that differs is found by writing both checkouts' reports in full (`--out`)
and diffing them; goldens.json is rewritten only for a change meant to change reports."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.adversarial.generate import Entry
from tests.differential.reports import (
    CORPUS_ENTRIES,
    DEMO_REPORTS,
    SCALE,
    SPECIMENS,
    Report,
    corpus_report,
    demo_registry,
    demo_reports,
    load_goldens,
    scale_report,
    specimen_report,
)

GOLDENS = load_goldens()


@pytest.fixture(scope="module")
def demo(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Report]:
    root = tmp_path_factory.mktemp("golden-demo") / "registry"
    return dict(demo_reports(demo_registry(root)))


def test_the_goldens_cover_the_demo_and_every_corpus_entry(demo: dict[str, Report]) -> None:
    corpus = {f"corpus/{entry.name}" for entry in CORPUS_ENTRIES}
    specimens = {f"specimen/{name}" for name in SPECIMENS}
    assert set(GOLDENS) == set(demo) | corpus | specimens | {f"scale/{SCALE}"}
    assert len(demo) >= len(DEMO_REPORTS) + 8  # each verify, and resolve on every date
    # The goldens are reports, not failures to run: verify answers 0 or 1, resolve 0.
    assert all(golden["exit"] in (0, 1) for golden in GOLDENS.values())


@pytest.mark.parametrize("name", sorted(name for name in GOLDENS if name.startswith("demo/")))
def test_a_demo_report_is_unchanged(name: str, demo: dict[str, Report]) -> None:
    assert demo[name].digests() == GOLDENS[name]


@pytest.mark.parametrize("name", sorted(SPECIMENS))
def test_a_specimen_report_is_unchanged(name: str, tmp_path: Path) -> None:
    assert specimen_report(name, tmp_path / "registry").digests() == GOLDENS[f"specimen/{name}"]


def test_the_scale_report_is_unchanged(tmp_path: Path) -> None:
    assert scale_report(tmp_path / "scale").digests() == GOLDENS[f"scale/{SCALE}"]


@pytest.mark.parametrize("entry", CORPUS_ENTRIES, ids=[entry.name for entry in CORPUS_ENTRIES])
def test_a_corpus_report_is_unchanged(entry: Entry, tmp_path: Path) -> None:
    report = corpus_report(entry, tmp_path / "entry")
    assert report.digests() == GOLDENS[f"corpus/{entry.name}"]

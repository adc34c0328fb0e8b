"""bot/faces/site/challenge.py: WeirdML best-so-far curves from a challenge run's event logs."""

from __future__ import annotations

from datetime import date
from pathlib import Path

import pytest

from bot.edges.tree import FolderTree
from bot.faces.site.challenge import challenge_curves, weirdml_curves
from bot.faces.site.model import plan_site
from bot.faces.site.render import render_site
from tests.support import PROJECT, site_inputs

LOG = (PROJECT / "examples" / "weirdml-v3" / "log.jsonl").read_text(encoding="utf-8")


def _run(root: Path, run: str, scorer: str, attempts: dict[str, str], settings: str = "") -> None:
    folder = root / "challenge-runs" / run
    folder.mkdir(parents=True)
    (folder / "run.yaml").write_text(
        f"id: {run}\noperator: Ops\nmarket: 7\nscorer: {scorer}\nwithholdable: []\n{settings}",
        encoding="utf-8",
    )
    for path, text in attempts.items():
        (folder / "scores" / path).mkdir(parents=True)
        (folder / "scores" / path / "events.jsonl").write_text(text, encoding="utf-8")


def test_the_scorers_curves_start_at_500k_tokens_and_end_at_the_budget() -> None:
    curves = dict(weirdml_curves(LOG))
    assert list(curves) == ["early", "late", "hints"]
    for points in curves.values():
        assert points[0][0] == 500_000.0 and points[-1][0] == 50_000_000.0
        bests = [best for _, best in points]
        assert bests == sorted(bests)  # best so far never goes down
    assert curves["early"] == [(500_000.0, 0.2), (5_000_000.0, 0.8), (50_000_000.0, 0.8)]


def test_curves_by_run_and_by_attempt_folder(tmp_path: Path) -> None:
    _run(tmp_path, "run-1", "weirdml-v3", {"lab/good": LOG, "lab/refused": '{"task": 1}\n'})
    _run(tmp_path, "run-2", "reference-match-v1", {"lab/other": LOG})
    found = challenge_curves(FolderTree(tmp_path))
    assert sorted(found) == ["attempts/market-07/lab/good", "run-1"]
    assert [label for label, _ in found["attempts/market-07/lab/good"]] == [
        "early",
        "late",
        "hints",
    ]
    assert [label for label, _ in found["run-1"]] == [
        "lab/good: early",
        "lab/good: late",
        "lab/good: hints",
    ]


def test_curves_are_read_under_the_runs_submission_limit(tmp_path: Path) -> None:
    """The site reads a log as verify does: eleven submissions are drawn for a run that
    allows them, and left out (verify refuses them) for a run at the default ten."""
    line = '{{"task": "t", "tokens": {}, "event": "submission", "score": 0.5}}\n'
    eleven = "".join(line.format(1_000_000 + n) for n in range(11))
    _run(
        tmp_path,
        "run-1",
        "weirdml-v3",
        {"lab/a": eleven},
        "scorer_settings:\n  max_submissions: 11\n",
    )
    _run(tmp_path, "run-2", "weirdml-v3", {"lab/b": eleven})
    found = challenge_curves(FolderTree(tmp_path))
    assert [label for label, _ in found["run-1"]] == ["lab/a: t"]
    assert "run-2" not in found


def test_no_challenge_runs_no_curves(tmp_path: Path) -> None:
    assert challenge_curves(FolderTree(tmp_path)) == {}


@pytest.mark.parametrize("where", ["attempt", "run"])
def test_the_site_draws_the_curves(tmp_path: Path, where: str) -> None:
    _run(tmp_path, "run-1", "weirdml-v3", {"alice-lab/monitor-v1": LOG})
    curves = challenge_curves(FolderTree(tmp_path))
    # the attempt folder the run names (market 7) as the site's attempt page
    curves = {k.replace("market-07", "market-03"): v for k, v in curves.items()}
    files = render_site(plan_site(site_inputs(curves=curves, generated_on=date(2027, 1, 1))))
    folder = (
        "attempts/market-03/alice-lab/monitor-v1/" if where == "attempt" else "challenges/run-1/"
    )
    svg = files[f"{folder}curves.svg"].decode()
    assert "best 0.8, reached by 5e+06 tokens" in svg
    assert b'<img src="curves.svg"' in files[f"{folder}index.html"]
    assert b'href="challenges/run-1/index.html"' in files["index.html"]

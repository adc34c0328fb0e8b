"""Hostile review of the last commits: resolve --market N, the site's memory cache."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any

from bot.app import ResolveReport, open_workspace, resolve_registry
from bot.archive.local import LocalArchive
from bot.gather import VerifyOptions

AS_OF = date(2027, 4, 15)  # market 3's window is open: its attempts are read from main
CLOSED = date(2027, 9, 1)  # closed, no snapshot tag: main as it stood at the window's close


def _resolve(root: Path, as_of: date, market: int | None = None) -> ResolveReport:
    with open_workspace(root) as workspace:
        return resolve_registry(
            workspace.registry,
            workspace.history,
            LocalArchive(root / "archive"),
            VerifyOptions(as_of=as_of),
            market,
        )


def test_a_misfiled_attempt_naming_a_market_is_listed_for_it_open_and_closed(
    make_registry: Any,
) -> None:
    """An attempt filed under attempts/market-05/ whose attempt.yaml names market 3 is one of
    market 3's attempts on main (9b6e2f5's test); once the window closes, main as it stood at
    the close is read only under attempts/market-03/, and the attempt drops out."""
    built = make_registry()
    misfiled = built.root / "attempts" / "market-05" / "stray-lab" / "misfiled"
    shutil.copytree(built.attempt, misfiled)
    built.repo.git.add("-A")
    when = "2027-04-01T12:00:00+00:00"  # before market 3's window closes
    built.repo.git.commit(
        "-q", "-m", "misfiled", env={"GIT_AUTHOR_DATE": when, "GIT_COMMITTER_DATE": when}
    )
    listed = {
        as_of: [
            a.attempt for m in _resolve(built.root, as_of, market=3).markets for a in m.attempts
        ]
        for as_of in (AS_OF, CLOSED)
    }
    assert "attempts/market-05/stray-lab/misfiled" in listed[AS_OF]
    assert listed[CLOSED] == listed[AS_OF]

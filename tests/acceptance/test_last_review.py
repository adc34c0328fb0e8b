"""Hostile review of the last commits: resolve --market N, the site's memory cache."""

from __future__ import annotations

import shutil
from datetime import date
from pathlib import Path
from typing import Any

from bot.app.api import ResolveReport, open_workspace, resolve_registry
from bot.edges.archive.local import LocalArchive
from tests.support import RegistryFactory

AS_OF = date(2027, 4, 15)  # market 3's window is open: its attempts are read from main
CLOSED = date(2027, 9, 1)  # closed, no snapshot tag: main as it stood at the window's close


def _resolve(root: Path, as_of: date, market: int | None = None) -> ResolveReport:
    with open_workspace(root) as workspace:
        return resolve_registry(
            workspace.registry,
            workspace.history,
            LocalArchive(root / "archive"),
            as_of,
            market,
        )


def test_a_misfiled_attempt_naming_a_market_is_listed_for_it_open_and_closed(
    make_registry: RegistryFactory,
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


def test_a_damaged_cache_entry_is_not_a_registry_problem_on_the_public_site(
    make_registry: RegistryFactory, tmp_path: Path, capsys: Any
) -> None:
    """10da2f1 prints a cache-entry-invalid notice under "REGISTRY notices (nothing to fix)";
    a resolve report carrying one, given to `claims site --resolve-report`, puts it on the
    public index under "Registry problems", with the builder's own cache path."""
    from bot.faces.cli import main

    built = make_registry()
    cache = tmp_path / "verify-cache"
    resolve = ["resolve", "--registry", str(built.root), "--as-of", "2027-04-15"]
    resolve += ["--no-rerun-adapters", "--verify-cache", str(cache)]
    assert main([*resolve, "--json", str(tmp_path / "cold.json")]) == 0
    entry = sorted(cache.glob("*/*.json"))[0]
    entry.write_bytes(entry.read_bytes()[:10])  # damaged
    assert main([*resolve, "--json", str(tmp_path / "warm.json")]) == 0
    assert "cache-entry-invalid" in (tmp_path / "warm.json").read_text()
    site = ["site", "--registry", str(built.root), "--as-of", "2027-04-15"]
    assert (
        main(
            [
                *site,
                "--resolve-report",
                str(tmp_path / "warm.json"),
                "--out",
                str(tmp_path / "site"),
            ]
        )
        == 0
    )
    capsys.readouterr()
    index = (tmp_path / "site" / "index.html").read_text()
    assert str(cache) not in index
    assert "Registry problems" not in index

"""Fixtures of the acceptance tests that are costly to make: the demo registry's website."""

from __future__ import annotations

import contextlib
import io
from dataclasses import dataclass
from pathlib import Path

import pytest

from bot.faces.cli import main
from bot.faces.demo.run import run_demo


@dataclass(frozen=True)
class DemoSite:
    registry: Path  # the demo registry (a git repository), kept
    site: Path  # its website, built from the demo's own reports and resolution records


def site_arguments(registry: Path, out: Path) -> list[str]:
    """`claims site` over the demo's kept reports: verify of main, then the wrapped
    attempts' reruns (which replace those attempts), the challenge runs' verify report, and
    the last resolve report."""
    reports = registry / ".claims"
    return [
        "site",
        "--registry",
        str(registry),
        "--out",
        str(out),
        "--verify-report",
        str(reports / "verify-main.json"),
        "--verify-report",
        str(reports / "verify-rerun.json"),
        "--verify-report",
        str(reports / "verify-runs.json"),
        "--resolve-report",
        str(reports / "resolve-2027-11-01.json"),
    ]


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> DemoSite:
    folder = tmp_path_factory.mktemp("demo-site")
    registry = folder / "demo"
    with contextlib.redirect_stdout(io.StringIO()):
        assert run_demo(registry) == 0
        assert main(site_arguments(registry, folder / "site")) == 0
    return DemoSite(registry, folder / "site")

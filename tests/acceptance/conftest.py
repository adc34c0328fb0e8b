"""Fixtures of the acceptance tests that are costly to make: the demo registry's website."""

from __future__ import annotations

import contextlib
import io

import pytest

from bot.faces.cli import main
from bot.faces.demo.run import run_demo
from tests.support import DemoSite, site_arguments


@pytest.fixture(scope="session")
def demo_site(tmp_path_factory: pytest.TempPathFactory) -> DemoSite:
    folder = tmp_path_factory.mktemp("demo-site")
    registry = folder / "demo"
    with contextlib.redirect_stdout(io.StringIO()):
        assert run_demo(registry) == 0
        assert main(site_arguments(registry, folder / "site")) == 0
    return DemoSite(registry, folder / "site")

"""Fixtures that build real git registries with the demo builder.

`make_registry(spec, change=...)` writes an honest attempt (bot.faces.demo.specimen), merges its
freeze as a pull request, then merges (or leaves open) its run, each at a fixed date. A test
states the one thing it changes; everything else stays valid. The factory and the other
helpers tests import live in tests/support.py; this file holds only fixtures.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import git
import pytest

from bot.faces.cli import main
from tests.archive.fakezenodo import FakeZenodo, serve
from tests.github.fakehub import FakeHub
from tests.support import AS_OF, RegistryFactory, Result


@pytest.fixture
def make_registry(tmp_path: Path) -> RegistryFactory:
    return RegistryFactory(tmp_path)


@pytest.fixture
def run_claims(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Callable[..., Result]:
    """Run `claims verify ...` in-process with --json; return exit code, output and report."""

    def run(*args: str | Path) -> Result:
        report_path = tmp_path / "report.json"
        report_path.unlink(missing_ok=True)
        argv = [str(arg) for arg in args]
        if argv and argv[0] in ("verify", "resolve"):
            argv += ["--json", str(report_path)]
            if "--as-of" not in argv:  # deterministic: a date inside the demo markets' window
                argv += ["--as-of", AS_OF]
        code = main(argv)
        captured = capsys.readouterr()
        report = json.loads(report_path.read_text()) if report_path.exists() else None
        return Result(code, captured.out, captured.err, report)

    return run


_OPENED: list[git.Repo] = []  # every `git.Repo` opened while the tests run, until closed


@pytest.fixture(autouse=True, scope="session")
def _track_git_repositories() -> Iterator[None]:
    """Keep every `git.Repo` opened in the session, and close what is left at its end.
    GitPython keeps `git cat-file` processes per repository; a repository left to the
    garbage collector ends with ResourceWarnings for their pipes (which `filterwarnings =
    error` turns into a failure of whichever test is running when the collector gets to it:
    the bot moves young objects to the oldest generation after reading, so that can be much
    later). Held here, none is garbage before it is closed, whatever the scope of the
    fixture that opened it. The bot closes its own (`Workspace.close`)."""
    original = git.Repo.__init__

    def init(self: git.Repo, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        _OPENED.append(self)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(git.Repo, "__init__", init)
        yield
    _close_from(0)


@pytest.fixture(autouse=True)
def _close_git_repositories() -> Iterator[None]:
    """Close every `git.Repo` a test opens when it ends (those of wider fixtures stay open
    for the tests that share them, and are closed at the session's end)."""
    first = len(_OPENED)
    yield
    _close_from(first)


def _close_from(first: int) -> None:
    for repo in _OPENED[first:]:
        repo.close()
    del _OPENED[first:]


# The loopback addresses of the tests' local HTTP servers (localhost may resolve to either).
LOCAL_ADDRESSES = frozenset({"127.0.0.1", "::1"})


@pytest.fixture
def local_fetches(monkeypatch: pytest.MonkeyPatch) -> frozenset[str]:
    """Let `claims` run in-process fetch raw logs and released data from this machine's test
    servers. The bot fetches only from public addresses; its one exception is an explicit
    list of addresses, `Limits.fetch_allowed_addresses`, which only tests set. This adds
    LOCAL_ADDRESSES to the limits the CLI's raw-log fetcher and adapter rerun are given."""
    import dataclasses

    import bot.faces.cli

    ports, rerun = bot.faces.cli._ports, bot.faces.cli._rerun

    def allow(limits: Any) -> Any:
        return dataclasses.replace(limits, fetch_allowed_addresses=LOCAL_ADDRESSES)

    def local_rerun(args: Any) -> Any:
        runner = rerun(args)
        return None if runner is None else dataclasses.replace(runner, limits=allow(runner.limits))

    def local_ports(args: Any) -> Any:
        built = ports(args)  # calls _rerun, patched below

        def local(fetch: Any) -> Any:
            if fetch is None:
                return None

            def local_fetch(*fetch_args: Any, **kwargs: Any) -> Any:
                return fetch(*fetch_args, **{**kwargs, "limits": allow(kwargs["limits"])})

            return local_fetch

        return dataclasses.replace(
            built,
            fetch_raw_log=local(built.fetch_raw_log),
            fetch_paper_freeze=local(built.fetch_paper_freeze),
        )

    monkeypatch.setattr(bot.faces.cli, "_rerun", local_rerun)
    monkeypatch.setattr(bot.faces.cli, "_ports", local_ports)
    return LOCAL_ADDRESSES


@pytest.fixture
def fakehub() -> Iterator[FakeHub]:
    """A fake GitHub REST API on 127.0.0.1 (tests/github/fakehub.py), with the repository
    acme/registry; `hub.base_url` is what `bot.edges.github.gateway.connect` takes."""
    hub = FakeHub().start()
    try:
        yield hub
    finally:
        hub.stop()


@pytest.fixture
def fake_zenodo() -> Iterator[FakeZenodo]:
    """A fake Zenodo (legacy deposit API) on 127.0.0.1 for one test: `fake_zenodo.base_url`
    is its API root, `fake_zenodo.fail(route, kind)` injects a fault (tests/archive/)."""
    yield from serve(FakeZenodo())

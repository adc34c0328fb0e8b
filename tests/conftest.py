"""Fixtures that build real git registries with the demo builder.

`make_registry(spec, change=...)` writes an honest attempt (bot.faces.demo.specimen), merges its
freeze as a pull request, then merges (or leaves open) its run, each at a fixed date. A test
states the one thing it changes; everything else stays valid.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import git
import pytest

from bot.edges.dump import dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.faces.cli import main
from bot.faces.demo.git_registry import Step, build_git_registry
from bot.faces.demo.specimen import (
    AttemptSpec,
    attempt_files,
    judgments_file,
    market_document,
    score_table,
)
from bot.rules.models import Market, SharedRules
from bot.rules.qualification import required_checks
from bot.vocab.timestamps import format_timestamp
from tests.archive.fakezenodo import FakeZenodo, serve
from tests.github.fakehub import FakeHub
from tests.support import RULES, Files

FREEZE_FILES = ("freeze.yaml", "freeze-cases.jsonl")
# Tests judge qualification on this date unless they say otherwise: after every default run
# and judgment (March 2027), before any default market's resolve-by date.
AS_OF = "2027-04-15"


def default_markets() -> dict[str, bytes]:
    return {
        "markets/market-03.yaml": dump_yaml(market_document(3, "default")),
        "markets/market-05.yaml": dump_yaml(market_document(5, "serious")),
    }


@dataclass
class Built:
    root: Path
    attempt: Path
    repo: git.Repo
    files: Files = field(default_factory=dict)


def _rules(rules: bytes) -> SharedRules | None:
    document, _ = parse_yaml(rules, "shared-rules/common-v1.yaml")
    return SharedRules.from_document(document)[0] if document else None


def _market(markets: dict[str, bytes], number: int, rules: SharedRules | None) -> Market | None:
    raw = markets.get(f"markets/market-{number:02d}.yaml")
    if raw is None or rules is None:
        return None
    document, _ = parse_yaml(raw, "market.yaml")
    if document is None:
        return None
    market, _ = Market.from_document(document, rules)
    return market


@dataclass
class _Planned:
    spec: AttemptSpec
    files: Files
    run_files: Files


@dataclass
class RegistryFactory:
    tmp_path: Path
    count: int = 0

    def _plan(
        self,
        spec: AttemptSpec,
        change: Callable[[Files], None] | None,
        change_in_run: Callable[[Files], None] | None,
        markets: dict[str, bytes],
        rules: SharedRules | None,
        scores: bool,
        before_scores: Callable[[Files], None] | None = None,
    ) -> _Planned:
        files = attempt_files(spec)
        if before_scores is not None:
            before_scores(files)
        market = _market(markets, spec.market, rules)
        if scores and market is not None and rules is not None:
            files["scores.yaml"] = score_table(files, market, rules.confidence)
        if change is not None:
            change(files)
        run_files = dict(files)
        if change_in_run is not None:
            change_in_run(run_files)
        return _Planned(spec, files, run_files)

    def __call__(
        self,
        spec: AttemptSpec | None = None,
        *,
        change: Callable[[Files], None] | None = None,
        change_in_run: Callable[[Files], None] | None = None,
        before_scores: Callable[[Files], None] | None = None,
        freeze_merged_at: datetime | None = None,
        run_merged_at: datetime | None = None,
        run: str = "merged",
        markets: dict[str, bytes] | None = None,
        rules: bytes = RULES,
        run_extra: dict[str, bytes | None] | None = None,
        freeze_in_run: bool = False,
        scores: bool = True,
        judge: dict[str, str | None] | None = None,
        judged: bool = True,
        judged_at: datetime | None = None,
        also: Sequence[AttemptSpec] = (),
        steps: Sequence[Step] = (),
    ) -> Built:
        """Build a registry holding one attempt (plus honest `also` attempts); return it.

        By default the attempt is complete and qualifying: an honest scores.yaml for its
        market, and judgments.yaml with every required check passed, committed by a
        maintainer on main after the run, bound to the evidence digest.

        change: edits the attempt's files before anything is committed (after scores).
        before_scores: edits them before the honest score table is derived, so the table
            agrees with the edited cases and trials.
        change_in_run: edits a copy that the run pull request commits (freeze files included).
        run: "merged" (the default), "open" (a PR branch checked out), or "none".
        run_extra: other registry paths the run PR writes (None deletes).
        freeze_in_run: no freeze PR; the freeze files arrive with the run.
        judge: verdicts that replace "pass" for some checks (None leaves a check out).
        judged: False leaves judgments.yaml out altogether.
        judged_at: when the maintainer's judgments land on main (default: two hours after
            the run merges); their `at` is that moment.
        steps: further commits or pull requests on main (a challenge run, say), in time order
            with the attempt's.
        """
        spec = spec or AttemptSpec()
        self.count += 1
        root = self.tmp_path / f"registry-{self.count}"
        markets = default_markets() if markets is None else markets
        shared = _rules(rules)
        start = datetime(2027, 1, 2, 9, 0, tzinfo=UTC)
        main_steps: list[Step] = []
        primary = self._plan(spec, change, change_in_run, markets, shared, scores, before_scores)
        others = [self._plan(other, None, None, markets, shared, scores) for other in also]
        open_step: Step | None = None
        for index, planned in enumerate([primary, *others]):
            is_primary = index == 0
            folder = planned.spec.folder
            merged = (
                freeze_merged_at
                if is_primary and freeze_merged_at
                else planned.spec.frozen_at + timedelta(days=1)
            )
            in_run = freeze_in_run and is_primary
            if not in_run:
                freeze = {
                    f"{folder}/{name}": planned.files[name]
                    for name in FREEZE_FILES
                    if name in planned.files
                }
                main_steps.append(
                    Step(f"freeze {folder}", planned.spec.frozen_at, freeze, merged_at=merged)
                )
            run_paths: dict[str, bytes | None] = {
                f"{folder}/{name}": data
                for name, data in planned.run_files.items()
                if in_run or name not in FREEZE_FILES or data != planned.files.get(name)
            }
            if is_primary:
                run_paths.update(run_extra or {})
            run_at = max(merged, planned.spec.first_trial_at) + timedelta(days=30)
            landed = run_merged_at if is_primary and run_merged_at else run_at + timedelta(hours=1)
            mode = run if is_primary else "merged"
            if mode == "open":
                open_step = Step("run", run_at, run_paths, open_pr="filer/attempt")
            elif mode == "merged":
                main_steps.append(Step(f"run {folder}", run_at, run_paths, merged_at=landed))
                if judged and shared is not None:
                    market = _market(markets, planned.spec.market, shared)
                    if market is not None:
                        checks = {
                            check: "pass"
                            for check in required_checks(shared, market, planned.spec.kind)
                        }
                        if is_primary:
                            checks.update(judge or {})
                        verdicts = {k: v for k, v in checks.items() if v is not None}
                        when = (
                            judged_at if is_primary and judged_at else landed + timedelta(hours=2)
                        )
                        judgments = judgments_file(
                            planned.run_files, verdicts, "maintainer", format_timestamp(when)
                        )
                        main_steps.append(
                            Step(
                                f"judgments {folder}",
                                when,
                                {f"{folder}/judgments.yaml": judgments},
                            )
                        )
        main_steps += steps
        main_steps.sort(key=lambda step: step.merged_at or step.at)
        steps = [
            Step("registry", start, {"shared-rules/common-v1.yaml": rules, **markets}),
            *main_steps,
        ]
        if open_step is not None:
            steps.append(open_step)
        repo = build_git_registry(root, steps)
        return Built(root, root / spec.folder, repo, primary.run_files)


@pytest.fixture
def make_registry(tmp_path: Path) -> RegistryFactory:
    return RegistryFactory(tmp_path)


@dataclass
class Result:
    code: int
    out: str
    err: str
    report: dict[str, Any] | None

    def attempt(self, index: int = 0) -> dict[str, Any]:
        """The attempt's report, its notices left out of `reasons` (see `notices`)."""
        assert self.report is not None
        attempt: dict[str, Any] = dict(self.report["attempts"][index])
        attempt["reasons"] = [r for r in attempt["reasons"] if r["severity"] != "notice"]
        return attempt

    def _all(self, index: int) -> list[dict[str, Any]]:
        assert self.report is not None
        attempts = self.report["attempts"]
        own = attempts[index]["reasons"] if attempts or index else []
        return [*self.report.get("pr_problems", []), *own]

    def reasons(self, index: int = 0) -> list[dict[str, Any]]:
        """The pull request's own problems (--base-ref), then the attempt's reasons; notices
        (what an offline run could not confirm) are left out: see `notices`."""
        return [r for r in self._all(index) if r["severity"] != "notice"]

    def notices(self, index: int = 0) -> set[str]:
        """The codes of the notices among the PR's problems and the attempt's reasons."""
        return {r["code"] for r in self._all(index) if r["severity"] == "notice"}

    def codes(self, index: int = 0) -> set[str]:
        """The attempt's reason codes, with the pull request's own problems (--base-ref);
        notices left out (`notices`)."""
        return {reason["code"] for reason in self.reasons(index)}


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


@pytest.fixture(autouse=True)
def _close_git_repositories(monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    """Close every `git.Repo` a test opens. GitPython keeps `git cat-file` processes per
    repository; left to the garbage collector they end the session with ResourceWarnings
    (which `filterwarnings = error` turns into a failed run). The bot closes its own
    (`Workspace.close`); this covers the repositories tests build and inspect."""
    opened: list[git.Repo] = []
    original = git.Repo.__init__

    def init(self: git.Repo, *args: Any, **kwargs: Any) -> None:
        original(self, *args, **kwargs)
        opened.append(self)

    monkeypatch.setattr(git.Repo, "__init__", init)
    yield
    for repo in opened:
        repo.close()


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

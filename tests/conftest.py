"""Fixtures that build real git registries with the demo builder.

`make_registry(spec, change=...)` writes an honest attempt (bot.demo.specimen), merges its
freeze as a pull request, then merges (or leaves open) its run, each at a fixed date. A test
states the one thing it changes; everything else stays valid.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import git
import pytest

from bot.cli import main
from bot.demo.git_registry import Step, build_git_registry
from bot.demo.specimen import AttemptSpec, attempt_files, dump_yaml, market_document
from tests.support import RULES, Files

FREEZE_FILES = ("freeze.yaml", "freeze-cases.jsonl")


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


@dataclass
class RegistryFactory:
    tmp_path: Path
    count: int = 0

    def __call__(
        self,
        spec: AttemptSpec | None = None,
        *,
        change: Callable[[Files], None] | None = None,
        change_in_run: Callable[[Files], None] | None = None,
        freeze_merged_at: datetime | None = None,
        run: str = "merged",
        markets: dict[str, bytes] | None = None,
        rules: bytes = RULES,
        run_extra: dict[str, bytes | None] | None = None,
        freeze_in_run: bool = False,
    ) -> Built:
        """Build a registry holding one attempt; return where it is.

        change: edits the attempt's files before anything is committed.
        change_in_run: edits a copy that the run pull request commits (freeze files included).
        run: "merged" (the default), "open" (a PR branch checked out), or "none".
        run_extra: other registry paths the run PR writes (None deletes).
        freeze_in_run: no freeze PR; the freeze files arrive with the run.
        """
        spec = spec or AttemptSpec()
        self.count += 1
        root = self.tmp_path / f"registry-{self.count}"
        files = attempt_files(spec)
        if change is not None:
            change(files)
        run_files = dict(files)
        if change_in_run is not None:
            change_in_run(run_files)
        folder = spec.folder
        start = datetime(2027, 1, 2, 9, 0, tzinfo=UTC)
        steps = [
            Step(
                "registry",
                start,
                {
                    "shared-rules/common-v1.yaml": rules,
                    **(default_markets() if markets is None else markets),
                },
            )
        ]
        merged = freeze_merged_at or spec.frozen_at + timedelta(days=1)
        if not freeze_in_run:
            steps.append(
                Step(
                    "freeze",
                    spec.frozen_at,
                    {f"{folder}/{name}": files[name] for name in FREEZE_FILES if name in files},
                    merged_at=merged,
                )
            )
        run_paths: dict[str, bytes | None] = {
            f"{folder}/{name}": data
            for name, data in run_files.items()
            if freeze_in_run or name not in FREEZE_FILES or data != files.get(name)
        }
        run_paths.update(run_extra or {})
        run_at = max(merged, spec.first_trial_at) + timedelta(days=30)
        if run == "merged":
            steps.append(Step("run", run_at, run_paths, merged_at=run_at + timedelta(hours=1)))
        elif run == "open":
            steps.append(Step("run", run_at, run_paths, open_pr="filer/attempt"))
        repo = build_git_registry(root, steps)
        return Built(root, root / folder, repo, run_files)


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
        assert self.report is not None
        attempt: dict[str, Any] = self.report["attempts"][index]
        return attempt

    def codes(self, index: int = 0) -> set[str]:
        return {reason["code"] for reason in self.attempt(index)["reasons"]}


@pytest.fixture
def run_claims(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> Callable[..., Result]:
    """Run `claims verify ...` in-process with --json; return exit code, output and report."""

    def run(*args: str | Path) -> Result:
        report_path = tmp_path / "report.json"
        report_path.unlink(missing_ok=True)
        argv = [str(arg) for arg in args]
        if argv and argv[0] == "verify":
            argv += ["--json", str(report_path)]
        code = main(argv)
        captured = capsys.readouterr()
        report = json.loads(report_path.read_text()) if report_path.exists() else None
        return Result(code, captured.out, captured.err, report)

    return run

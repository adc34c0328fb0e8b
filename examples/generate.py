"""Generate the demo registry under examples/: python examples/generate.py

Every example starts as an honest attempt from `bot.demo.specimen`; an invalid example then gets
exactly one deliberate defect, written below in code so a reader sees what was broken and how.
The output is deterministic; tests/acceptance/test_demo.py regenerates it and fails if the
committed files differ, so nothing under examples/registry/ is edited by hand.

Writes:
  examples/registry/   markets and attempt folders, as they stand at the end of the demo
  examples/history/    earlier versions of files that a later pull request changes
  examples/demo-plan.yaml  the dated commits and pull requests `claims demo` replays, and the
                       reason codes each attempt must produce
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent))

from bot.demo.specimen import (  # noqa: E402
    AttemptSpec,
    attempt_files,
    dump_yaml,
    jsonl,
    market_document,
    timestamp,
)
from bot.evidence.rules import case_hash  # noqa: E402

Files = dict[str, bytes]


def day(d: int, month: int = 1, hour: int = 9) -> datetime:
    return datetime(2027, month, d, hour, 0, tzinfo=UTC)


def records(files: Files, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in files[name].decode().splitlines()]


# ---- one deliberate defect each -------------------------------------------------------------


def edit_case_after_hashing(files: Files) -> None:
    """case-hash-mismatch: the third case's prompt changed, its sha256 left as frozen."""
    cases = records(files, "freeze-cases.jsonl")
    cases[2]["content"]["prompt"] += " (reworded after the freeze)"
    files["freeze-cases.jsonl"] = jsonl(cases)


def run_a_case_twice(files: Files) -> None:
    """duplicate-trial and unknown-case: a second try of case 0, a trial of an unfrozen case."""
    trials = records(files, "trials.jsonl")
    retry = dict(trials[0], started_at=timestamp(day(25)), trajectory="traj-retry")
    extra = dict(trials[1], case_id="sabotage-999", trajectory="traj-extra")
    files["trials.jsonl"] = jsonl([*trials, retry, extra])


def truncate_log(files: Files) -> None:
    """raw-log-hash-mismatch: the kept log lost its last line after raw_log was pinned."""
    log = files["raw-log/harness.log"]
    files["raw-log/harness.log"] = log[: log.rstrip(b"\n").rfind(b"\n") + 1]


def anchor_in_yaml(files: Files) -> None:
    """yaml-unsafe: attempt.yaml reuses a value through an anchor and an alias."""
    text = files["attempt.yaml"].decode()
    text = text.replace("assumed_access: black-box", "assumed_access: &access black-box", 1)
    text = text.replace("    access: black-box", "    access: *access", 1)
    files["attempt.yaml"] = text.encode()


def drop_offsets(files: Files) -> None:
    """timestamp-naive: trial times written without a UTC offset."""
    trials = records(files, "trials.jsonl")
    for trial in trials[:2]:
        trial["started_at"] = trial["started_at"].removesuffix("Z")
    files["trials.jsonl"] = jsonl(trials)


def rehash_a_case(files: Files) -> None:
    """(for the open PR) a case changed and honestly re-hashed, after the freeze was merged."""
    cases = records(files, "freeze-cases.jsonl")
    cases[0]["content"]["prompt"] += " (made easier)"
    cases[0]["sha256"] = case_hash(cases[0]["content"])
    files["freeze-cases.jsonl"] = jsonl(cases)


# ---- the examples ---------------------------------------------------------------------------

FREEZE = ("freeze.yaml", "freeze-cases.jsonl")


def example(
    spec: AttemptSpec, defect: Callable[[Files], None] | None, expect: list[str], why: str = ""
) -> dict[str, Any]:
    files = attempt_files(spec)
    if defect is not None:
        defect(files)
    return {
        "spec": spec,
        "files": files,
        "expect": expect,
        "why": why or (defect.__doc__ if defect else "valid: an honest attempt"),
    }


def examples() -> list[dict[str, Any]]:
    return [
        example(AttemptSpec(), None, []),
        example(
            AttemptSpec(
                market=5,
                submitter="northwind-ai",
                slug="probe-suite",
                seed=2,
                title="Probe suite for deceptive sandbagging",
                frozen_at=day(11),
                first_trial_at=day(21),
            ),
            None,
            [],
        ),
        example(
            AttemptSpec(submitter="bob-lab", slug="edited-cases", seed=3, title="Edited cases"),
            edit_case_after_hashing,
            ["case-hash-mismatch"],
        ),
        example(
            AttemptSpec(submitter="carol-lab", slug="second-chance", seed=4, title="Second chance"),
            run_a_case_twice,
            ["duplicate-trial", "unknown-case"],
        ),
        # Trials began at 07:00 on the 12th; the freeze merged at 09:00 that day.
        example(
            AttemptSpec(
                market=5,
                submitter="dana-lab",
                slug="early-start",
                seed=5,
                title="Early start",
                frozen_at=day(8),
                first_trial_at=day(12, hour=7),
            ),
            None,
            ["trial-before-freeze"],
            "trial-before-freeze: the first trials ran before the freeze was merged.",
        ),
        example(
            AttemptSpec(submitter="erin-lab", slug="short-log", seed=6, title="Short log"),
            truncate_log,
            ["raw-log-hash-mismatch"],
        ),
        example(
            AttemptSpec(
                market=14, submitter="frank-lab", slug="ghost-market", seed=7, title="Ghost market"
            ),
            None,
            ["market-unknown"],
            "market-unknown: market 14 is not in this registry.",
        ),
        example(
            AttemptSpec(submitter="hana-lab", slug="anchored", seed=8, title="Anchored"),
            anchor_in_yaml,
            ["yaml-unsafe"],
        ),
        example(
            AttemptSpec(
                market=5, submitter="ivan-lab", slug="naive-times", seed=9, title="Naive times"
            ),
            drop_offsets,
            ["timestamp-naive"],
        ),
    ]


def open_pr_example() -> dict[str, Any]:
    spec = AttemptSpec(
        submitter="gina-lab",
        slug="late-edit",
        seed=10,
        title="Late edit",
        frozen_at=day(13),
        first_trial_at=day(2, month=2),
    )
    before = attempt_files(spec)
    after = dict(before)
    rehash_a_case(after)
    return {
        "spec": spec,
        "before": before,
        "after": after,
        "expect": ["freeze-order", "path-outside-attempt"],
    }


def build(out: Path) -> None:
    registry, history = out / "registry", out / "history"
    for folder in (registry, history):
        if folder.exists():
            shutil.rmtree(folder)
    markets = {
        "markets/market-03.yaml": dump_yaml(
            market_document(3, "default"), "../../../schemas/market.schema.json"
        ),
        "markets/market-05.yaml": dump_yaml(
            market_document(5, "serious", resolve_by="2027-07-31"),
            "../../../schemas/market.schema.json",
        ),
    }
    written: dict[Path, bytes] = {registry / path: data for path, data in markets.items()}
    steps: list[dict[str, Any]] = [
        {
            "message": "Registry: shared rules and demo markets 3 and 5",
            "at": timestamp(day(4)),
            "files": {
                "shared-rules/common-v1.yaml": "project:shared-rules/common-v1.yaml",
                **{path: f"registry:{path}" for path in markets},
            },
        }
    ]
    expect: dict[str, dict[str, list[str]]] = {"main": {}, "pr": {}}
    why: dict[str, str] = {}
    freezes: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    for number, item in enumerate(examples()):
        spec: AttemptSpec = item["spec"]
        folder = spec.folder
        expect["main"][folder] = item["expect"]
        why[folder] = " ".join(str(item["why"]).split())
        for name, data in item["files"].items():
            written[registry / folder / name] = data
        # Freezes merge in January, in order, each a day after its frozen_at at the earliest;
        # runs merge in March. Main's dates only move forward, as on a real registry.
        freezes.append(
            {
                "message": f"Freeze: {folder}",
                "at": timestamp(spec.frozen_at),
                "merged_at": timestamp(
                    max(spec.frozen_at + timedelta(days=1), day(12)) + timedelta(minutes=number)
                ),
                "files": {f"{folder}/{name}": f"registry:{folder}/{name}" for name in FREEZE},
            }
        )
        runs.append(
            {
                "message": f"Attempt: {spec.title}",
                "at": timestamp(day(1, month=3) + timedelta(hours=number)),
                "merged_at": timestamp(day(2, month=3) + timedelta(hours=number)),
                "files": {
                    f"{folder}/{name}": f"registry:{folder}/{name}"
                    for name in sorted(item["files"])
                    if name not in FREEZE
                },
            }
        )
    pr = open_pr_example()
    spec = pr["spec"]
    folder = spec.folder
    expect["main"][folder] = ["freeze-only"]
    expect["pr"][folder] = pr["expect"]
    why[folder] = (
        "freeze merged in January; its run is the open pull request, which changed"
        " freeze-cases.jsonl after the freeze was merged and also edits"
        " markets/market-03.yaml"
    )
    for name, data in pr["after"].items():
        written[registry / folder / name] = data
    for name in FREEZE:
        written[history / folder / name] = pr["before"][name]
    freezes.append(
        {
            "message": f"Freeze: {folder}",
            "at": timestamp(spec.frozen_at),
            "merged_at": timestamp(day(14)),
            "files": {f"{folder}/{name}": f"history:{folder}/{name}" for name in FREEZE},
        }
    )
    freezes.sort(key=lambda step: step["merged_at"])
    steps += freezes + runs
    edited_market = markets["markets/market-03.yaml"].replace(b"max: 0.2", b"max: 0.5")
    written[history / "pr" / "markets/market-03.yaml"] = edited_market
    steps.append(
        {
            "message": f"Attempt: {spec.title} (open)",
            "at": timestamp(day(3, month=3)),
            "open_pr": "gina-lab/late-edit",
            "files": {
                **{f"{folder}/{name}": f"registry:{folder}/{name}" for name in pr["after"]},
                "markets/market-03.yaml": "history:pr/markets/market-03.yaml",
            },
        }
    )
    for path, data in written.items():
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    plan = {"steps": steps, "expect": expect, "why": why}
    header = "# Generated by examples/generate.py: do not edit by hand.\n"
    (out / "demo-plan.yaml").write_bytes(header.encode() + dump_yaml(plan))


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)

"""Benchmark `claims resolve` on a registry of many markets and attempts, cold and warm from
the verification cache (--verify-cache); prints figures, asserts nothing but what it says.

    python bench/resolve_scale.py [--markets 20] [--attempts 50] [--trials 10000] [--keep DIR]

Builds a real git registry: the shared rules, M market contracts (markets 1-21 but 14, each with
its budget class from the shared rules), and A attempts per market of T trials (and T frozen
cases) each: the freeze merged on main by GitHub's web flow before the run, the run merged
after it, and a maintainer's judgments. Every attempt of a market holds the same files
(generated once, hard-linked into each folder; git stores each blob once, and the commits are
made with git's plumbing from a private index), so building costs about one attempt per market.

Then, each a separate `claims resolve --as-of 2027-04-15 --no-rerun-adapters` process:
1. cold: an empty cache (every attempt checked from its files, and kept);
2. warm: the same cache; the JSON report and the printed text must be byte-identical;
3. one cache entry damaged (a byte flipped): it is found (a notice), that attempt is checked
   again, and the markets resolve exactly as before;
4. one file changed (one attempt's trials.jsonl): exactly one attempt is checked again;
5. warm again: every entry is read back (the damaged one was written anew).
Times are wall-clock and CPU (user + system) of each process.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import re
import resource
import shutil
import subprocess
import sys
import tempfile
import time
from collections.abc import Mapping
from datetime import datetime, timedelta
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app.registry import load_registry
from bot.edges.dump import dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.edges.tree import FolderTree
from bot.faces.demo.specimen import (
    AttemptSpec,
    attempt_files,
    judgments_file,
    load_market,
    market_document,
    score_table,
)
from bot.rules.models import SharedRules
from bot.rules.qualification import required_checks
from bot.vocab.commits import WEB_FLOW_EMAIL, WEB_FLOW_NAME
from bot.vocab.timestamps import format_timestamp

PROJECT = Path(__file__).resolve().parents[1]
RULES = (PROJECT / "shared-rules" / "common-v1.yaml").read_bytes()
AS_OF = "2027-04-15"
FREEZE_FILES = ("freeze.yaml", "freeze-cases.jsonl")


def _run_at(files: dict[str, bytes], first: datetime) -> datetime:
    """When the run's files land on main: 30 days after the first trial, and never before the
    last trial started (10,000 trials 7 minutes apart take 48 days: filed earlier, the last
    ones would be `trial-in-future` and the evidence invalid)."""
    last = max(
        datetime.fromisoformat(json.loads(line)["started_at"].replace("Z", "+00:00"))
        for line in files["trials.jsonl"].splitlines()
        if line.strip()
    )
    return max(first + timedelta(days=30), last + timedelta(days=1))


def _market_files(
    number: int, budget: str, trials: int, rules: SharedRules
) -> tuple[bytes, dict[str, bytes], datetime]:
    """Market `number`'s contract, one attempt's files (scores and judgments included) and
    when its run lands on main."""
    protocol = {"attempts": 100, "turns": 10}
    contract = market_document(number, budget)
    extra: dict[str, object] = {}
    if budget == "own":
        contract["attack_protocol"] = protocol
    spec = AttemptSpec(
        market=number,
        submitter="lab",
        slug="attempt-base",
        cases_per_family=max(1, trials // 2),
        adversarial="serious" if budget == "serious" else "default",
        seed=number,
    )
    files = attempt_files(spec)
    if budget == "own":
        attempt, _ = parse_yaml(files["attempt.yaml"], "attempt.yaml")
        assert attempt is not None and isinstance(attempt.data, dict)
        attempt.data["adversarial"]["protocol"] = protocol
        extra = {"adversarial": attempt.data["adversarial"]}
        files = attempt_files(AttemptSpec(**{**spec.__dict__, "extra": extra}))
    market = load_market(contract, rules)
    files["scores.yaml"] = score_table(files, market, rules.confidence)
    verdicts = {check: "pass" for check in required_checks(rules, market, "run")}
    run_at = _run_at(files, spec.first_trial_at)
    judged_at = format_timestamp(run_at + timedelta(hours=2))
    files["judgments.yaml"] = judgments_file(files, verdicts, "maintainer", judged_at)
    return dump_yaml(contract), files, run_at


class _Git:
    def __init__(self, root: Path) -> None:
        self.root = root
        self.index = root / ".git" / "bench-index"

    def __call__(self, *args: str, env: Mapping[str, str] | None = None, data: str = "") -> str:
        return subprocess.run(
            ["git", *args],
            cwd=self.root,
            env={**os.environ, "GIT_INDEX_FILE": str(self.index), **(env or {})},
            input=data,
            capture_output=True,
            text=True,
            check=True,
        ).stdout.strip()

    def commit(
        self,
        entries: list[str],
        message: str,
        at: datetime,
        parents: list[str],
        web_flow: bool = False,
    ) -> str:
        """Add `entries` (index-info lines) to the private index; commit its tree."""
        if entries:
            self("update-index", "--index-info", data="".join(entries))
        tree = self("write-tree")
        when = format_timestamp(at)
        env = {
            "GIT_AUTHOR_NAME": "Registry Bench",
            "GIT_AUTHOR_EMAIL": "bench@registry.invalid",
            "GIT_AUTHOR_DATE": when,
            "GIT_COMMITTER_NAME": WEB_FLOW_NAME if web_flow else "Registry Bench",
            "GIT_COMMITTER_EMAIL": WEB_FLOW_EMAIL if web_flow else "bench@registry.invalid",
            "GIT_COMMITTER_DATE": when,
        }
        args = ["commit-tree", tree, "-m", message]
        for parent in parents:
            args += ["-p", parent]
        return self(*args, env=env)

    def pull_request(self, entries: list[str], message: str, at: datetime, main: str) -> str:
        """A pull request's commit on a branch off `main`, merged by GitHub an hour later."""
        branch = self.commit(entries, message, at, [main])
        merged = at + timedelta(hours=1)
        return self.commit([], f"Merge pull request: {message}", merged, [main, branch], True)


def _evidence(report: object) -> dict[str, int]:
    """How many attempts of a report have each evidence value (valid, invalid)."""
    counts: dict[str, int] = {}
    pending = [report]
    while pending:
        item = pending.pop()
        if isinstance(item, dict):
            if isinstance(item.get("evidence"), str) and "attempt" in item:
                counts[item["evidence"]] = counts.get(item["evidence"], 0) + 1
            pending.extend(item.values())
        elif isinstance(item, list):
            pending.extend(item)
    return counts


def build(root: Path, pool: Path, markets: int, attempts: int, trials: int) -> int:
    """Build the registry at `root` (files generated into `pool`). Returns the attempt count."""
    git = _Git(root)
    subprocess.run(["git", "init", "-q", "-b", "main", str(root)], check=True)
    (root / "shared-rules").mkdir(parents=True)
    (root / "markets").mkdir()
    (root / "shared-rules" / "common-v1.yaml").write_bytes(RULES)
    rules = load_registry(FolderTree(root)).rules
    numbers = [n for n in range(1, 22) if not rules.is_not_in_registry(n)][:markets]
    registry_paths = ["shared-rules/common-v1.yaml"]
    layers: dict[str, list[str]] = {"freeze": [], "run": [], "judgments": []}
    blobs: dict[Path, str] = {}
    run_at = datetime.fromisoformat("2027-01-01T00:00:00+00:00")
    for number in numbers:
        budget = rules.budget_by_market[number]
        contract, files, market_run_at = _market_files(number, budget, trials, rules)
        run_at = max(run_at, market_run_at)
        (root / f"markets/market-{number:02d}.yaml").write_bytes(contract)
        registry_paths.append(f"markets/market-{number:02d}.yaml")
        source = pool / f"market-{number:02d}"
        for name, data in files.items():
            (source / name).parent.mkdir(parents=True, exist_ok=True)
            (source / name).write_bytes(data)
        names = sorted(files)
        paths = "".join(f"{source / name}\n" for name in names)
        ids = git("hash-object", "-w", "--stdin-paths", data=paths)
        for name, blob in zip(names, ids.split(), strict=True):
            blobs[source / name] = blob
        for index in range(attempts):
            folder = f"attempts/market-{number:02d}/lab/attempt-{index:03d}"
            for name in names:
                target = root / folder / name
                target.parent.mkdir(parents=True, exist_ok=True)
                os.link(source / name, target)
                layer = (
                    "freeze"
                    if name in FREEZE_FILES
                    else "judgments"
                    if name == "judgments.yaml"
                    else "run"
                )
                layers[layer].append(f"100644 {blobs[source / name]}\t{folder}/{name}\n")
    ids = git("hash-object", "-w", *registry_paths).split()
    start = datetime.fromisoformat("2027-01-02T09:00:00+00:00")
    spec = AttemptSpec()
    main = git.commit(
        [f"100644 {blob}\t{path}\n" for blob, path in zip(ids, registry_paths, strict=True)],
        "registry",
        start,
        [],
    )
    main = git.pull_request(layers["freeze"], "freeze the attempts", spec.frozen_at, main)
    main = git.pull_request(layers["run"], "the attempts' runs", run_at, main)
    main = git.commit(layers["judgments"], "judgments", run_at + timedelta(hours=3), [main])
    git("update-ref", "refs/heads/main", main)
    git("symbolic-ref", "HEAD", "refs/heads/main")
    git.index.unlink()
    subprocess.run(["git", "read-tree", "main"], cwd=root, check=True)
    return len(numbers) * attempts


def _resolve(root: Path, cache: Path, report: Path) -> tuple[float, float, str, str]:
    """Run `claims resolve`; return wall seconds, CPU seconds, stdout and stderr."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    started = time.perf_counter()
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "bot",
            "resolve",
            "--registry",
            str(root),
            "--as-of",
            AS_OF,
            "--no-rerun-adapters",
            "--json",
            str(report),
            "--verify-cache",
            str(cache),
        ],
        capture_output=True,
        text=True,
        check=False,
    )
    wall = time.perf_counter() - started
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    if done.returncode != 0:
        sys.exit(f"claims resolve exited {done.returncode}:\n{done.stderr}")
    return wall, cpu, done.stdout, done.stderr


_STATS = re.compile(
    r"(\d+) attempt\(s\) from the cache, (\d+) checked from their files \((\d+) kept\),"
    r" (\d+) damaged"
)


def _stats(stderr: str) -> tuple[int, int, int, int]:
    match = _STATS.search(stderr)
    if match is None:
        sys.exit(f"no cache summary on stderr:\n{stderr}")
    hits, misses, kept, damaged = (int(group) for group in match.groups())
    return hits, misses, kept, damaged


def _break_link_and_edit(path: Path) -> None:
    """Edit one attempt's file without touching the others (they share its inode)."""
    data = path.read_bytes().replace(b'"sim-model-a', b'"sim-model-q', 1)
    path.unlink()
    path.write_bytes(data)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--markets", type=int, default=20)
    parser.add_argument("--attempts", type=int, default=50, help="attempts per market")
    parser.add_argument("--trials", type=int, default=10_000, help="trials per attempt")
    parser.add_argument("--keep", type=Path, help="build here and keep it (default: a temp dir)")
    args = parser.parse_args()
    work = args.keep or Path(tempfile.mkdtemp(prefix="resolve-scale-"))
    work.mkdir(parents=True, exist_ok=True)
    root, pool, cache = work / "registry", work / "pool", work / "cache"
    try:
        started = time.perf_counter()
        count = build(root, pool, args.markets, args.attempts, args.trials)
        built = time.perf_counter() - started
        size = sum(f.stat().st_size for f in (root / "attempts").rglob("*") if f.is_file())
        print(
            f"registry: {args.markets} markets x {args.attempts} attempts x {args.trials:,} trials"
            f" = {count} attempts, {size / 2**30:.2f} GiB of evidence (hard links),"
            f" built in {built:.1f} s"
        )
        cold_wall, cold_cpu, cold_out, cold_err = _resolve(root, cache, work / "cold.json")
        print(f"cold:    {cold_wall:8.1f} s wall {cold_cpu:8.1f} s CPU   {_stats(cold_err)}")
        evidence = _evidence(json.loads((work / "cold.json").read_text()))
        print(f"cold report: attempts' evidence {evidence} (all must be valid)")
        warm_wall, warm_cpu, warm_out, warm_err = _resolve(root, cache, work / "warm.json")
        print(f"warm:    {warm_wall:8.1f} s wall {warm_cpu:8.1f} s CPU   {_stats(warm_err)}")
        same = (work / "cold.json").read_bytes() == (work / "warm.json").read_bytes()
        same = same and cold_out == warm_out
        print(
            f"warm / cold: {warm_wall / cold_wall:.1%} wall, {warm_cpu / cold_cpu:.1%} CPU"
            f" (target <= 10%); reports byte-identical: {same}"
        )
        per_cold, per_warm = cold_wall / count, warm_wall / count
        print(
            f"per attempt: cold {per_cold:.3f} s, warm {per_warm:.4f} s wall;"
            f" 1,000 attempts (20 x 50) at {args.trials:,} trials: cold ~{per_cold * 1000 / 60:.0f}"
            f" min, warm ~{per_warm * 1000:.0f} s"
        )
        entries = sorted(cache.glob("*/*.json"))  # every one in use: the warm run read them
        victim = entries[len(entries) // 2]
        raw = bytearray(victim.read_bytes())
        raw[len(raw) // 2] ^= 0x01
        victim.write_bytes(bytes(raw))
        wall, cpu, _, err = _resolve(root, cache, work / "damaged.json")
        _, misses, _, damaged = _stats(err)
        before = json.loads((work / "warm.json").read_text())
        after = json.loads((work / "damaged.json").read_text())
        notices = [p["code"] for p in after["registry_problems"]]
        print(
            f"one entry damaged ({victim.name[:12]}...): {wall:.1f} s wall; {damaged} damaged"
            f" found, {misses} checked again, notices {notices};"
            f" markets as before: {before['markets'] == after['markets']}"
        )
        changed = root / "attempts" / "market-01" / "lab" / "attempt-000" / "trials.jsonl"
        if not changed.exists():
            changed = sorted((root / "attempts").glob("*/lab/attempt-000/trials.jsonl"))[0]
        _break_link_and_edit(changed)
        wall, cpu, _, err = _resolve(root, cache, work / "changed.json")
        hits, misses, _, _ = _stats(err)
        print(
            f"one file changed ({changed.relative_to(root)}): {wall:.1f} s wall;"
            f" {hits} from the cache, {misses} checked again (expected 1): {misses == 1}"
        )
        wall, cpu, _, err = _resolve(root, cache, work / "again.json")
        print(f"warm again: {wall:.1f} s wall, {cpu:.1f} s CPU   {_stats(err)}")
        digest = hashlib.sha256((work / "again.json").read_bytes()).hexdigest()[:12]
        print(f"report sha256 {digest}...; work folder {work}")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

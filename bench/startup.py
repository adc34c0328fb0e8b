"""Benchmark start-up: `claims --help`, the import of `bot.faces.cli`, `claims verify` on one demo
attempt, and a warm `claims resolve` against a cold one (issue 25); prints figures, asserts
nothing.

    python bench/startup.py [--runs 9] [--resolve-runs 3] [--checkout /tmp/main]
        [--no-bytecode-cache] [--markets 3 --attempts 5 --trials 2000] [--keep DIR]

Every figure is the median of --runs fresh processes (--resolve-runs for resolve), wall time,
with the machine and its load (`nproc`, the load averages before and after) printed beside
them: wall times of processes this short move with the load, so compare figures taken on the
same machine at the same load.

- `claims --help`: the whole process, Python's own start included.
- import of `bot.faces.cli` and, separately, of `bot.app.api` (what a registry command adds): the
  cumulative microseconds `python -X importtime` reports for the module.
- `claims verify` on one attempt of the demo registry (`claims demo --keep`, built once):
  the whole process, and the time its imports took (the sum of the top-level lines of
  `-X importtime`, so scipy.special, imported when the first bound is computed, counts).
- `claims resolve --verify-cache` on `bench/resolve_scale.py`'s registry: cold (an empty
  cache each run) and warm (the cache the cold run wrote); the ratio of the medians.

Children run with a private bytecode cache (PYTHONPYCACHEPREFIX in the work folder), warmed
by one untimed run, as an installed package has its .pyc files; --no-bytecode-cache runs them
with PYTHONDONTWRITEBYTECODE=1 instead (every module of the checkout compiled on each start).
`claims` is `python -m bot` with PYTHONPATH the checkout: this one, or --checkout's to time
another (the demo and the registry are built by this checkout either way).
"""

from __future__ import annotations

import argparse
import os
import platform
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

PROJECT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(PROJECT / "bench"))

from resolve_scale import AS_OF, build  # noqa: E402

_IMPORT_LINE = re.compile(r"^import time:\s+(\d+) \|\s+(\d+) \|( *)(\S+)$")


def _machine() -> str:
    cpu = "unknown CPU"
    with open("/proc/cpuinfo", encoding="utf-8") as info:
        for line in info:
            if line.startswith("model name"):
                cpu = line.split(":", 1)[1].strip()
                break
    return (
        f"{os.cpu_count()} CPUs (nproc {len(os.sched_getaffinity(0))}), {cpu};"
        f" Python {platform.python_version()}, {platform.system()} {platform.release()}"
    )


def _load() -> str:
    one, five, fifteen = os.getloadavg()
    return f"load average {one:.2f}, {five:.2f}, {fifteen:.2f}"


def _env(checkout: Path, cache: Path | None) -> dict[str, str]:
    env = {**os.environ, "PYTHONPATH": str(checkout)}
    if cache is None:
        env["PYTHONDONTWRITEBYTECODE"] = "1"
        env.pop("PYTHONPYCACHEPREFIX", None)
    else:
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        env["PYTHONPYCACHEPREFIX"] = str(cache)
    return env


def _run(
    command: Sequence[str], env: Mapping[str, str], cwd: Path
) -> tuple[float, subprocess.CompletedProcess[str]]:
    started = time.perf_counter()
    done = subprocess.run(
        list(command), capture_output=True, text=True, check=False, env=dict(env), cwd=cwd
    )
    wall = time.perf_counter() - started
    return wall, done


def _median(runs: int, once: Callable[[], float]) -> tuple[float, float, float]:
    """Median, least and greatest of `runs` calls (after one untimed warm-up)."""
    once()
    times = [once() for _ in range(runs)]
    return statistics.median(times), min(times), max(times)


def _importtime(stderr: str) -> dict[str, int]:
    """Cumulative microseconds per module, and "(top level)": the sum of the top-level lines."""
    cumulative: dict[str, int] = {}
    top = 0
    for line in stderr.splitlines():
        match = _IMPORT_LINE.match(line)
        if match is None:
            continue
        _, total, indent, name = match.groups()
        cumulative.setdefault(name, int(total))
        if len(indent) == 1:
            top += int(total)
    cumulative["(top level)"] = top
    return cumulative


def _checked(done: subprocess.CompletedProcess[str], what: str, codes: tuple[int, ...]) -> None:
    if done.returncode not in codes:
        sys.exit(f"{what} exited {done.returncode}:\n{done.stderr[-3000:]}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=9, help="processes per short figure")
    parser.add_argument("--resolve-runs", type=int, default=3, help="cold and warm resolves")
    parser.add_argument("--markets", type=int, default=3)
    parser.add_argument("--attempts", type=int, default=5, help="attempts per market")
    parser.add_argument("--trials", type=int, default=2000, help="trials per attempt")
    parser.add_argument(
        "--checkout", type=Path, default=PROJECT, help="the checkout to time (default: this)"
    )
    parser.add_argument("--no-bytecode-cache", action="store_true")
    parser.add_argument("--keep", type=Path, help="work here and keep it (default: a temp dir)")
    parser.add_argument(
        "--write-docs",
        action="store_true",
        help="also write the figures into docs/performance.md (bench/docs_section.py)",
    )
    args = parser.parse_args()
    if args.write_docs:
        from docs_section import captured, write_section

        with captured() as printed:
            _bench(args)
        write_section("startup", printed.getvalue(), "python bench/startup.py")
    else:
        _bench(args)


def _bench(args: argparse.Namespace) -> None:
    python = [sys.executable]
    claims = [*python, "-m", "bot"]
    work = args.keep or Path(tempfile.mkdtemp(prefix="startup-"))
    work.mkdir(parents=True, exist_ok=True)
    env = _env(args.checkout.resolve(), None if args.no_bytecode_cache else work / "pycache")
    try:
        print(f"machine: {_machine()}")
        print(f"before: {_load()}")
        print(
            f"command: PYTHONPATH={args.checkout.resolve()} python -m bot;"
            f" bytecode cache: {not args.no_bytecode_cache}"
        )
        print()
        print("| what | median | range |")
        print("|---|---|---|")

        def help_once() -> float:
            wall, done = _run([*claims, "--help"], env, work)
            _checked(done, "claims --help", (0,))
            return wall

        median, low, high = _median(args.runs, help_once)
        print(f"| `claims --help` wall | {median:.3f} s | {low:.3f}-{high:.3f} s |")

        for module in ("bot.faces.cli", "bot.app.api"):

            def import_once(module: str = module) -> float:
                _, done = _run([*python, "-X", "importtime", "-c", f"import {module}"], env, work)
                _checked(done, f"import {module}", (0,))
                return _importtime(done.stderr)[module] / 1e6

            median, low, high = _median(args.runs, import_once)
            print(
                f"| import `{module}` (-X importtime) | {median:.3f} s | {low:.3f}-{high:.3f} s |"
            )

        demo = work / "demo"
        if not demo.exists():
            _, done = _run([*claims, "demo", "--keep", str(demo)], env, work)
            _checked(done, "claims demo --keep", (0,))
        attempt = "attempts/market-02/early-bird"
        verify = [*claims, "verify", attempt]

        def verify_once() -> float:
            wall, done = _run(verify, env, demo)
            _checked(done, "claims verify", (0, 1))
            return wall

        median, low, high = _median(args.runs, verify_once)
        print(f"| `claims verify {attempt}` wall | {median:.3f} s | {low:.3f}-{high:.3f} s |")
        imports = []
        for _ in range(args.runs):
            _, done = _run([*python, "-X", "importtime", "-m", "bot", "verify", attempt], env, demo)
            imports.append(_importtime(done.stderr)["(top level)"] / 1e6)
        median, low, high = statistics.median(imports), min(imports), max(imports)
        print(f"| … of which imports (-X importtime) | {median:.3f} s | {low:.3f}-{high:.3f} s |")

        registry, pool = work / "registry", work / "pool"
        if not registry.exists():
            build(registry, pool, args.markets, args.attempts, args.trials)
        resolve = [
            *claims,
            "resolve",
            "--registry",
            str(registry),
            "--as-of",
            AS_OF,
            "--no-rerun-adapters",
            "--verify-cache",
        ]
        shutil.rmtree(work / "warm-up-cache", ignore_errors=True)
        _, done = _run([*resolve, str(work / "warm-up-cache")], env, work)  # compiles, once
        _checked(done, "claims resolve", (0, 1))
        colds, warms, outputs = [], [], set()
        for run in range(args.resolve_runs):
            cache = work / f"cache-{run}"
            shutil.rmtree(cache, ignore_errors=True)  # cold: an empty cache, even with --keep
            wall, done = _run([*resolve, str(cache)], env, work)
            _checked(done, "claims resolve (cold)", (0, 1))
            colds.append(wall)
            outputs.add(done.stdout)
            wall, done = _run([*resolve, str(cache)], env, work)
            _checked(done, "claims resolve (warm)", (0, 1))
            warms.append(wall)
            outputs.add(done.stdout)
        cold, warm = statistics.median(colds), statistics.median(warms)
        shape = f"{args.markets} markets x {args.attempts} attempts x {args.trials:,} trials"
        print(
            f"| `claims resolve` cold ({shape}) | {cold:.3f} s"
            f" | {min(colds):.3f}-{max(colds):.3f} s |"
        )
        print(f"| `claims resolve` warm | {warm:.3f} s | {min(warms):.3f}-{max(warms):.3f} s |")
        print(f"| warm / cold | {warm / cold:.1%} | |")
        print()
        print(f"resolve reports identical cold and warm: {len(outputs) == 1}")
        print(f"after: {_load()}")
        print("targets (idle machine): --help <= 0.3 s, verify <= 0.6 s, warm <= 15% of cold")
    finally:
        if args.keep is None:
            shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()

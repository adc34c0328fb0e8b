"""The scheduled close at a busy registry's scale (issue 22, section 6); prints figures, asserts
nothing but what it says.

    python bench/close_scale.py [--attempts 10000] [--markets 40]

1. The rerun plan of N wrapped attempts spread over M markets closing on one day
   (`bot/faces/jobs/rerun_batches.py` on synthetic facts, as `rerun_matrix` hands them over): the
   number of rerun jobs, attempts a job, the plan artifact's and the job output's bytes, and
   the time budget (worst case a job, and the average an attempt may take for its batch to
   fit).
2. The bytes a rerun result record takes in the rerun jobs' artifacts, per attempt: measured
   on real reruns of the specimen's wrapped attempt in the sandbox (one that passes, one whose
   adapter fails with a stderr tail), when the sandbox can run here; else on a record built
   with the same codec (labelled so).
3. The close job's API calls, counted by category on the fake GitHub (issues) and the fake
   Zenodo (archive) over a small registry: markets 3 and 5 closing (market 3 with one wrapped
   attempt whose recorded rerun result the close counts), measured, then the same registry
   with 8 wrapped attempts in market 3, each rerun for real: the close's calls do not grow
   with the attempts (it reads their results from the artifact folder; no call per attempt).
   The figure at M markets is EXTRAPOLATED: the measured calls per market times M.
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import math
import re
import shutil
import sys
import tempfile
from collections import Counter
from collections.abc import Iterator
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bot.edges.sandbox
from bot.app.options import Ports
from bot.app.rerun import AdapterRerun
from bot.edges.archive.zenodo import ZenodoArchive
from bot.edges.github.gateway import Retry, connect
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.jobs.close_windows import Job, close_windows
from bot.faces.jobs.issues import GitHubIssues
from bot.faces.jobs.rerun_batches import (
    JOB_BUDGET_SECONDS,
    JOB_TIMEOUT_MINUTES,
    MAX_ATTEMPTS_PER_JOB,
    MAX_RERUN_JOBS,
    attempt_seconds,
    batch_reruns,
    guaranteed_per_job,
)
from bot.vocab.config import Limits
from tests.archive.fakezenodo import TOKEN, FakeZenodo, serve
from tests.github.fakehub import FakeHub
from tests.support import Files, RegistryFactory, rerun_job_argv, seed_released

CLOSED = date(2027, 9, 1)
WRAPPED = AttemptSpec(kind="wrapped")
COMMIT = "0123456789abcdef0123456789abcdef01234567"


def plan_figures(attempts: int, markets: int) -> None:
    print(f"== 1. the rerun plan: {attempts:,} wrapped attempts in {markets} markets, one day")
    per_market = [
        attempts // markets + (1 if i < attempts % markets else 0) for i in range(markets)
    ]
    given = [
        (
            3 + m,
            [
                {
                    "attempt": f"attempts/market-{3 + m:02d}/lab-{i % 97:04d}/monitor-{i:05d}",
                    "commit": COMMIT,
                }
                for i in range(count)
            ],
        )
        for m, count in enumerate(per_market)
    ]
    plan = batch_reruns(given)
    text = json.dumps(plan.as_json(), separators=(",", ":"))
    sizes = [len(batch) for batch in plan.batches]
    matrix = json.dumps({"batch": list(range(len(plan.batches)))}, separators=(",", ":"))
    each = attempt_seconds()
    print(f"  rerun jobs (matrix size)          {len(plan.batches)} (cap {MAX_RERUN_JOBS})")
    print(
        f"  attempts a job                     {min(sizes, default=0)}-{max(sizes, default=0)}"
        f" (cap {MAX_ATTEMPTS_PER_JOB})"
    )
    waiting = sum(count for _, count in plan.waiting)
    print(f"  attempts planned / waiting         {plan.attempts:,} / {waiting:,}")
    print(f"  plan artifact (plan.json)          {len(text.encode()):,} bytes")
    print(
        f"  plan job's matrix output           {len(matrix.encode()):,} bytes (GitHub: 1 MB a job)"
    )
    print(
        f"  one attempt's worst case           {each} s (released data"
        f" {Limits().released_deadline:g} s + sandbox 2 x 120 s)"
    )
    print(
        f"  a job: timeout {JOB_TIMEOUT_MINUTES} min, budget {JOB_BUDGET_SECONDS // 60} min:"
        f" {guaranteed_per_job()} attempts at their worst case always run"
    )
    if sizes:
        average = JOB_BUDGET_SECONDS / max(sizes)
        print(
            f"  for every batch to finish, an attempt may average  {average:.0f} s"
            f" ({average / 60:.1f} min)"
        )
    capacity = MAX_RERUN_JOBS * MAX_ATTEMPTS_PER_JOB
    print(f"  most attempts one run plans        {capacity:,} (then markets wait, whole)")


# -- 2. rerun result records -----------------------------------------------------------------


def _claims(*argv: object) -> tuple[int, str]:
    from bot.faces.cli import main

    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        code = main([str(a) for a in argv])
    return code, out.getvalue() + err.getvalue()


def _rerun(built: Any, entry: dict[str, str], released: Path, results: Path) -> int:
    attempt = built.root / entry["attempt"]
    code, _ = _claims(*rerun_job_argv(built.root, entry["commit"], attempt, results, released))
    return code


def _plan(built: Any) -> list[dict[str, str]]:
    code, out = _claims(
        "close-windows", "--registry", built.root, "--plan-reruns", "--as-of", CLOSED.isoformat()
    )
    assert code == 0, out
    planned = json.loads(out)
    return [entry for batch in planned["batches"] for entry in batch]


def record_figures(work: Path) -> bool:
    """Prints the record sizes; False when the sandbox cannot run here."""
    print("== 2. rerun result records (the rerun jobs' artifacts, per attempt)")
    why = bot.edges.sandbox.isolation()
    if why is not None:
        print(f"  the sandbox cannot run here ({why}): no real rerun; record sizes not measured")
        return False

    def broken(files: Files) -> None:
        files["adapter/convert.py"] = (
            b"import sys\nsys.stderr.write('x' * 5000)\nraise SystemExit(3)\n"
        )

    for label, change in (("adapter ran, output compared", None), ("adapter failed", broken)):
        factory = RegistryFactory(work / label.replace(" ", "-").replace(",", ""))
        built = factory(WRAPPED, change=change)
        released = factory.tmp_path / "released"
        seed_released(released, built.files)
        results = factory.tmp_path / "results"
        (entry,) = _plan(built)
        code = _rerun(built, entry, released, results)
        files = sorted(results.glob("*.json"))
        sizes = [f.stat().st_size for f in files]
        print(f"  {label:32s} exit {code}, {len(files)} record(s), {sum(sizes):,} bytes")
    return True


# -- 3. the close job's API calls -------------------------------------------------------------


_GITHUB = [
    (r"GET .*/issues", "GitHub: list issues by label (find an issue before opening it)"),
    (r"POST .*/issues", "GitHub: open an issue"),
    (r"GET /api/v3/repos/[^/]+/[^/]+", "GitHub: read the repository"),
]
_ZENODO = [
    (r"GET .*/deposit/depositions$", "Zenodo: search depositions (find a copy)"),
    (r"POST .*/deposit/depositions$", "Zenodo: create a deposition"),
    (r"PUT .*/files/.*|PUT /api/files/.*|PUT .*/bucket.*", "Zenodo: upload the tarball"),
    (r"PUT .*/deposit/depositions/\d+$", "Zenodo: describe (metadata)"),
    (r"POST .*/actions/publish$", "Zenodo: publish"),
    (r"GET .*/deposit/depositions/\d+$", "Zenodo: read a deposition"),
    (r"(GET|PUT) .*/records/\d+/draft$", "Zenodo: the creators on the InvenioRDM draft"),
    (r"GET .*/records/\d+.*", "Zenodo: read a record"),
]


def _category(line: str, table: list[tuple[str, str]], prefix: str) -> str:
    for pattern, name in table:
        if re.fullmatch(pattern, line):
            return name
    return f"{prefix}: other ({line})"


@contextlib.contextmanager
def _hub() -> Iterator[FakeHub]:
    hub = FakeHub().start()
    try:
        yield hub
    finally:
        hub.stop()


def _close(root: Path, extra_results: Path | None) -> tuple[Counter[str], bool]:
    with _hub() as hub, contextlib.closing(serve(FakeZenodo())) as served:
        zenodo = next(served)
        port = connect("t", "acme/registry", hub.base_url, Retry(sleep=lambda _: None), False)
        rerun = (
            AdapterRerun(cache=root / "unused", results=extra_results, recorded_only=True)
            if extra_results is not None
            else None
        )
        job = Job(
            root=root,
            archive=ZenodoArchive(zenodo.base_url, TOKEN, timeout=(5.0, 5.0), sleep=lambda _: None),
            archive_kind="zenodo",
            repository_url="https://github.com/acme/registry",
            issues=GitHubIssues(port),
            as_of=CLOSED,
            ports=Ports(rerun_adapter=rerun),
            clock=lambda: datetime(2027, 9, 1, 13, tzinfo=UTC),
        )
        report = close_windows(job)
        calls: Counter[str] = Counter()
        for request in hub.requests:
            calls[_category(f"{request.method} {request.path}", _GITHUB, "GitHub")] += 1
        for method, path, _status in zenodo.log:
            calls[_category(f"{method} {path}", _ZENODO, "Zenodo")] += 1
        return calls, not report.failed


def _wrapped_registry(work: Path, name: str, copies: int) -> tuple[Any, Path]:
    """Markets 3 and 5 closing, market 3 with 1 + `copies` wrapped attempts, each rerun for
    real in the sandbox (as the rerun jobs do) into one results folder."""
    factory = RegistryFactory(work / name)
    built = factory(WRAPPED)
    for index in range(copies):
        shutil.copytree(built.attempt, built.attempt.parent / f"{built.attempt.name}-c{index:03d}")
    if copies:
        built.repo.git.add("-A")
        built.repo.git.commit("-q", "-m", f"{copies} more wrapped attempts")
    released = factory.tmp_path / "released"
    seed_released(released, built.files)
    results = factory.tmp_path / "results"
    for entry in _plan(built):
        _rerun(built, entry, released, results)
    return built, results


def close_figures(work: Path, sandbox: bool, attempts: int, markets: int) -> None:
    print("== 3. the close job's API calls (fake GitHub and fake Zenodo; measured)")
    closing = 2  # markets 3 and 5 (they share the tag snapshot-2027-06-30)
    runs: list[tuple[int, Counter[str]]] = []
    for copies in (0, 7) if sandbox else (None,):
        if copies is None:
            built, results = RegistryFactory(work / "close-plain")(), None
            wrapped = 0
        else:
            built, results = _wrapped_registry(work, f"close-{copies}", copies)
            wrapped = 1 + copies
        calls, resolved = _close(built.root, results)
        print(
            f"  markets 3 and 5 closing, {wrapped} wrapped attempt(s) in market 3:"
            f" {'both resolved' if resolved else 'the close FAILED'}"
        )
        for name, count in sorted(calls.items()):
            print(f"    {count:4d}  {name}")
        total = sum(calls.values())
        print(f"    {total:4d}  in all, {total / closing:.1f} per closing market")
        runs.append((wrapped, calls))
    if len(runs) == 2:
        same = runs[0][1] == runs[1][1]
        print(
            f"  {runs[0][0]} vs {runs[1][0]} wrapped attempts: the same calls: {same} (per"
            " attempt: 0; the close reads each attempt's rerun result from the downloaded"
            " artifact folder)"
        )
    total = sum(runs[-1][1].values())
    per_job = max(1, math.ceil(attempts / MAX_RERUN_JOBS))
    jobs = math.ceil(attempts / per_job)
    print(
        f"  EXTRAPOLATED to {markets} markets closing with {attempts:,} wrapped attempts:"
        f" ~{total / closing * markets:.0f} GitHub and Zenodo calls in the close job"
        f" ({total / closing:.1f} a market x {markets}; each issue listing is one page per"
        " 100 issues of its label, so it grows with the registry's resolved markets), none"
        f" per attempt; the artifacts: {jobs} uploads (one a rerun job), and the close job's"
        f" download-artifact lists this run's artifacts and fetches each of the {jobs} (plus"
        " the plan artifact, uploaded once and fetched once a rerun job)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=10_000)
    parser.add_argument("--markets", type=int, default=40)
    args = parser.parse_args()
    plan_figures(args.attempts, args.markets)
    with tempfile.TemporaryDirectory(prefix="close-scale-") as folder:
        work = Path(folder)
        sandbox = record_figures(work)
        close_figures(work, sandbox, args.attempts, args.markets)


if __name__ == "__main__":
    main()

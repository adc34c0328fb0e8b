"""`claims demo`: replay examples/demo-plan.yaml into a fresh git registry, then run the
commands a user would: verify every merged attempt, verify the pull request still under
review against main (as the PR check would), and resolve the markets as of dates that step
through their filing windows. Between them the real scheduled job (`close-windows`, with the
local archive, issues in a local folder and no push: the demo repository has no remote) runs
on the dates the plan gives, with its clock set to each: the snapshot tags, archive copies,
resolution records, issues and the annulment of market 2 are made by that code, not by the
demo builder. The challenge runs of market 11's hidden suite are verified on their own path
(`claims verify challenge-runs`). Each example (attempt or run) declares the reason codes it
demonstrates and each market its final outcome; the demo exits 0 only when every one behaved
as declared.
"""

from __future__ import annotations

import tempfile
from collections.abc import Sequence
from dataclasses import dataclass, replace
from datetime import UTC, date, datetime, timedelta
from importlib.resources import files
from importlib.resources.abc import Traversable
from pathlib import Path
from typing import Any

import git

from bot.app.api import open_workspace, resolve_registry, verify_registry
from bot.app.options import AdapterRunner, Ports
from bot.app.report_json import dumps, report_to_json
from bot.app.rerun import AdapterRerun
from bot.app.resolutions import ResolutionRecord
from bot.edges.archive.local import LocalArchive
from bot.edges.load.yaml_ import parse_yaml
from bot.faces.demo.git_registry import Step, build_git_registry
from bot.faces.demo.shift import shift_days_before, shift_demo
from bot.faces.jobs.close_windows import CloseReport, Job, close_windows
from bot.faces.jobs.issues import FileIssues
from bot.faces.report.text import printable, render_resolution, render_text
from bot.vocab.config import Limits
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.errors import ClaimsError
from bot.vocab.timestamps import format_moment, parse_timestamp

__all__ = ["close_on_schedule", "examples_folder", "load_plan", "run_demo"]

# The examples ship inside the package as `bot.examples`: pyproject's package-dir maps it to
# the project's examples/ folder, so the demo runs from a plain install as from a checkout.
_EXAMPLES_PACKAGE = "bot.examples"
_PLAN = "demo-plan.yaml"


def examples_folder() -> Traversable:
    try:
        return files(_EXAMPLES_PACKAGE)
    except ModuleNotFoundError:
        raise ClaimsError(
            f"the demo's examples ({_EXAMPLES_PACKAGE}) are not installed",
            "reinstall the bot (pip install . or, in a checkout, pip install -e .)",
        ) from None


def _source(examples: Traversable, reference: str) -> bytes:
    where, _, path = reference.partition(":")
    if where not in ("registry", "history"):
        raise ClaimsError(f"demo plan: unknown source {reference!r}")
    # A Traversable joins a path with "/" in it as its segments (importlib.resources.abc).
    return (examples / where / path).read_bytes()


def load_plan(examples: Traversable) -> tuple[list[Step], dict[str, Any]]:
    """Read the demo plan: the steps with their file contents, and the expected codes.

    Raises `ClaimsError` if the plan cannot be read or names an unknown source.
    """
    try:
        raw = (examples / _PLAN).read_bytes()
    except OSError as error:
        raise ClaimsError(
            f"the demo needs examples/{_PLAN}: {error}",
            "reinstall the bot, or regenerate it with: python examples/generate.py",
        ) from None
    document, findings = parse_yaml(raw, f"examples/{_PLAN}", Limits(max_yaml_bytes=4_000_000))
    if document is None or not isinstance(document.data, dict):
        raise ClaimsError(
            f"cannot read examples/{_PLAN}: " + "; ".join(f.message for f in findings),
            "regenerate it with: python examples/generate.py",
        )

    def moment(text: str | None) -> Any:
        return None if text is None else parse_timestamp(text)

    steps = [
        Step(
            message=step["message"],
            at=moment(step["at"]),
            files={path: _source(examples, ref) for path, ref in step["files"].items()},
            merged_at=moment(step.get("merged_at")),
            open_pr=step.get("open_pr"),
            tag=step.get("tag"),
        )
        for step in document.data["steps"]
    ]
    return steps, document.data


def run_demo(keep: Path | None = None, today: date | None = None) -> int:
    """Build, verify, resolve and print the demo; return 0 when every example behaved.

    With `today`, the whole demo is first moved by a whole number of days so that its last
    date is the day before `today` (`bot.faces.demo.shift`). Raises `ClaimsError` if the examples
    are missing or `keep` is not empty.
    """
    examples = examples_folder()
    steps, plan = load_plan(examples)
    released = _released(examples)
    if today is not None:
        days = shift_days_before(today, steps, plan)
        steps, plan, released = shift_demo(steps, plan, released, days)
        print(
            f"The demo's dates are moved by {days} days: its last date is"
            f" {(today - timedelta(days=1)).isoformat()}, the day before today.\n"
        )
    steps = _with_schemas(steps)
    if keep is not None:
        return _run(keep, released, steps, plan, today)
    with tempfile.TemporaryDirectory(prefix="claims-demo-") as folder:
        return _run(Path(folder) / "registry", released, steps, plan, today)


# The market `--today` opens after the demo's history: the demo's own
# markets have all closed by then, so without it a filer has nothing to practise on.
OPEN_MARKET = 7
# R lies half a year after today: a filer's evidence made public today is public by R, and the
# filing window (to R + the shared rules' window_days) stays open for months.
OPEN_MARKET_DAYS = 180


def open_market_document(today: date) -> dict[str, Any]:
    """Demo market 7: market 3's question and bars, resolve-by half a year after `today`, and
    the default adversarial budget (one independent red team, 40 hours in all), the one budget
    class a single filer can meet alone; a serious budget (market 5) asks for two groups from
    two organizations, a bounty or a generator."""
    from bot.faces.demo.specimen import market_document

    resolve_by = (today + timedelta(days=OPEN_MARKET_DAYS)).isoformat()
    market = market_document(OPEN_MARKET, "default", resolve_by)
    market["title"] = f"Demo market {OPEN_MARKET}: open for filing (the tutorial's market)"
    return market


def _open_market(root: Path, today: date) -> None:
    """Commit demo market 7 on main, dated the last second of yesterday (after every other
    date of the demo, before today: a freeze merged today comes after it)."""
    from bot.edges.dump import dump_yaml
    from bot.vocab.timestamps import format_timestamp

    market = open_market_document(today)
    path = f"markets/market-{OPEN_MARKET:02d}.yaml"
    (root / path).write_bytes(dump_yaml(market, "../schemas/market.schema.json"))
    when = format_timestamp(
        datetime.combine(today, datetime.min.time(), UTC) - timedelta(seconds=1)
    )
    with git.Repo(root) as repo:
        repo.git.add("--", path)
        with repo.git.custom_environment(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when):
            repo.git.commit(
                "-q", "-m", f"Market {OPEN_MARKET}: open for filing until its window closes"
            )
    from bot.app.registry import load_registry
    from bot.edges.tree import FolderTree

    registry = load_registry(FolderTree(root))
    loaded, problems = registry.market(OPEN_MARKET)
    if loaded is None:  # the demo's own market: a bug here, never the filer's
        raise ClaimsError(f"demo market {OPEN_MARKET}: " + "; ".join(f.message for f in problems))
    dates = MarketDates.of(
        loaded.resolve_by, registry.rules.window_days, registry.rules.annul_after_days
    )
    print(
        f"\nMarket {OPEN_MARKET} is open for filing ({path}, committed on main): resolve-by"
        f" {dates.resolve_by.isoformat()}, its filing window closes"
        f" {dates.window_closes.isoformat()}. It asks what market 3 asks, under the default"
        " adversarial budget (one independent red team, 40 hours in all): the budget a single"
        " filer can meet. docs/tutorial.md files into it."
    )


def _released(examples: Traversable) -> dict[str, bytes]:
    """The data the wrapped attempts' papers released, by name (its sha256)."""
    folder = examples / "released"
    if not folder.is_dir():
        return {}
    return {item.name: item.read_bytes() for item in folder.iterdir() if item.is_file()}


def _with_schemas(steps: list[Step]) -> list[Step]:
    """The first step also commits `schemas/`, as the registry has it, so the files' `$schema`
    links resolve in a kept demo registry and editors validate there."""
    from bot.rules.evidence.schema import schema_files

    first = replace(steps[0], files={**schema_files(), **steps[0].files})
    return [first, *steps[1:]]


@dataclass
class _Demo:
    """The demo registry and where its reports go."""

    root: Path
    work: Path

    def verify(
        self,
        title: str,
        as_of: str,
        paths: Sequence[str] | None = None,
        base_ref: str | None = None,
        rerun: AdapterRerun | None = None,
        name: str = "verify",
        head: str | None = None,
    ) -> dict[str, Any]:
        """What `claims verify` does, through the app layer: print it, return its report."""
        shown = " ".join(
            [*(paths or []), *(["--base-ref", base_ref] if base_ref else [])]
            + (["--head", head[:12]] if head else [])
            + (["--rerun-adapters"] if rerun else [])
        )
        print(f"== {title}\n$ claims verify {shown} --as-of {as_of}\n")
        with open_workspace(self.root, base_ref, head) as workspace:
            report = verify_registry(
                workspace.registry,
                workspace.history,
                date.fromisoformat(as_of),
                paths,
                workspace.changes,
                ports=Ports(rerun_adapter=rerun),
                head_paths=workspace.head_paths,
                head_at=workspace.head_at,
            )
        print(printable(render_text(report)))
        return self._keep(name, report_to_json(report))

    def resolve(
        self, title: str, as_of: str, rerun: AdapterRerun | None, brief: bool
    ) -> dict[str, Any]:
        """What `claims resolve` does, through the app layer (without `rerun`, the preview
        that leaves wrapped attempts out)."""
        flags = (" --no-rerun-adapters" if rerun is None else "") + (" --quiet" if brief else "")
        print(f"== {title}\n$ claims resolve --as-of {as_of}{flags}\n")
        archive = LocalArchive(self.work / "archive")
        with open_workspace(self.root) as workspace:
            report = resolve_registry(
                workspace.registry,
                workspace.history,
                archive,
                date.fromisoformat(as_of),
                ports=Ports(rerun_adapter=rerun),
            )
        print(printable(render_resolution(report, brief=brief)))
        return self._keep(f"resolve-{as_of}", report_to_json(report))

    def close(self, title: str, moment: datetime, rerun: AdapterRunner | None) -> CloseReport:
        """What the scheduled `claims close-windows` does at `moment` (`close_on_schedule`)."""
        print(f"== {title}\n$ claims close-windows   (the schedule, at {format_moment(moment)})\n")
        report = close_on_schedule(self.root, self.work, moment, rerun)
        print(printable(report.render()))
        return report

    def _keep(self, name: str, report: dict[str, Any]) -> dict[str, Any]:
        (self.work / f"{name}.json").write_text(dumps(report), encoding="utf-8")
        return report


def close_on_schedule(
    root: Path, work: Path, moment: datetime, rerun: AdapterRunner | None
) -> CloseReport:
    """The real scheduled job on the demo registry at `moment`: the local archive in
    `work/archive`, issues in `work/issues`, no push (no remote). Its clock (tagger dates,
    record and archive times) is `moment`, set through the job object: the command refuses
    another date than today, since tags carry real times."""
    job = Job(
        root=root,
        archive=LocalArchive(work / "archive", clock=lambda: moment),
        archive_kind="local",
        repository_url=root.resolve().as_uri(),
        issues=FileIssues(work / "issues"),
        as_of=moment.date(),
        clock=lambda: moment,
        ports=Ports(rerun_adapter=rerun),
    )
    return close_windows(job)


def _run(
    root: Path,
    released: dict[str, bytes],
    steps: list[Step],
    plan: dict[str, Any],
    today: date | None = None,
) -> int:
    if root.exists() and any(root.iterdir()):
        raise ClaimsError(f"{root} is not empty", "name a new folder with --keep")
    repo = build_git_registry(root, steps)
    pr_branch = repo.active_branch.name
    # The registry's own working folder (.claims/, never committed): the archive records
    # `claims resolve` reads by default, and the JSON reports the demo checks.
    work = root / ".claims"
    archive = work / "archive"
    work.mkdir()
    with (root / ".git" / "info" / "exclude").open("a") as exclude:
        exclude.write(".claims/\n")
    print(
        f"Demo registry built at {root}: {len(steps)} steps,"
        f" {sum(1 for _ in repo.iter_commits('main'))} commits on main, no tags yet (the"
        f" scheduled job makes them); its archive goes to {archive}.\n"
    )
    demo = _Demo(root, work)
    repo.git.checkout("-q", "main")
    as_of = plan["verify_as_of"]
    merged = demo.verify(
        f"1. every attempt merged to main, as of {as_of}",
        as_of,
        ["attempts"],
        name="verify-main",
    )
    runs: dict[str, Any] = {"challenge_runs": []}
    if plan["expect"].get("runs"):
        runs = demo.verify(
            "1b. every challenge run on main (hidden suites, operator scores)",
            as_of,
            ["challenge-runs"],
            name="verify-runs",
        )
    # The open pull request, read from its head commit's git objects: no checkout.
    head = repo.commit(pr_branch).hexsha
    repo.close()
    review = demo.verify(
        f"2. the open pull request {pr_branch} (head {head[:12]}, read from git objects),"
        " against main",
        as_of,
        base_ref="main",
        head=head,
        name="verify-pr",
    )
    rerun_adapter = _rerun_adapter(released, work, plan)
    rerun: dict[str, Any] = {"attempts": [], "pr_problems": [], "skipped": True}
    if rerun_adapter is not None:
        rerun = demo.verify(
            "wrapped attempts: rerun each adapter in the sandbox",
            as_of,
            sorted(plan.get("rerun", {})),
            rerun=rerun_adapter,
            name="verify-rerun",
        )
    # Resolution reruns the adapters too, so an edited wrap never counts; where the sandbox
    # cannot run, it resolves without reruns and leaves the wrapped attempts out.
    # The resolutions as of each date, and the scheduled job's runs, in time order.
    resolved: dict[str, Any] = {}
    events = [(end_of_day(date.fromisoformat(d)), "resolve", d) for d in plan["resolve_on"]]
    events += [(_moment(m), "close", m) for m in plan["close_on"]]
    closes: list[CloseReport] = []
    for number, (moment, kind, when) in enumerate(sorted(events), start=3):
        if kind == "close":
            closes.append(demo.close(f"{number}. the scheduled job, {when}", moment, rerun_adapter))
            continue
        last = when == plan["resolve_on"][-1]
        resolved = demo.resolve(f"{number}. markets as of {when}", when, rerun_adapter, not last)
    made = _made_by_the_job(root, work)
    code = _check(plan, merged, review, rerun, resolved, made, rerun_adapter is not None, runs)
    if today is not None:
        _open_market(root, today)
    return code


def _moment(text: str) -> datetime:
    moment = parse_timestamp(text)
    if moment is None:
        raise ClaimsError(f"demo plan: {text!r} is not a time", "regenerate the examples")
    return moment


@dataclass(frozen=True)
class _Made:
    """What the scheduled job left: tags (name, tagger), records (market -> outcome), issues."""

    tags: dict[str, str]
    records: dict[str, str]
    issues: list[str]


def _made_by_the_job(root: Path, work: Path) -> _Made:
    with git.Repo(root) as repo:
        tags = {
            tag.name: (
                format_moment(datetime.fromtimestamp(tag.tag.tagged_date, UTC))
                if tag.tag is not None
                else "lightweight"
            )
            for tag in repo.tags
        }
    records: dict[str, str] = {}
    for file in sorted((root / "resolutions").glob("market-*.yaml")):
        record = ResolutionRecord.from_yaml(file.read_bytes(), f"resolutions/{file.name}")
        if isinstance(record, ResolutionRecord):
            records[str(record.market)] = record.outcome
    issues = sorted(p.name for p in (work / "issues").glob("*.md"))
    return _Made(tags, records, issues)


def _rerun_adapter(
    released: dict[str, bytes], work: Path, plan: dict[str, Any]
) -> AdapterRerun | None:
    """The adapter rerun, from a cache seeded with the released data; None where skipped.

    The papers' URLs are examples, so the released files are put in the content-addressed
    cache first, as an earlier run would have left them. Skipped, and said so, where this
    machine cannot isolate the network.
    """
    from bot.edges.sandbox import isolation

    reason = isolation()
    if not plan.get("rerun") or reason is not None:
        print(f"== rerun of wrapped attempts' adapters: SKIPPED ({reason or 'none'})\n")
        return None
    cache = work / "released"
    (cache / "sha256").mkdir(parents=True)
    for name, data in sorted(released.items()):
        (cache / "sha256" / name).write_bytes(data)
    return AdapterRerun(cache=cache, results=work / "reruns")


def _number(item: tuple[str, str]) -> int:
    """A market's number, for listing markets in numeric order."""
    return int(item[0])


def _check(
    plan: dict[str, Any],
    merged: dict[str, Any],
    review: dict[str, Any],
    rerun: dict[str, Any],
    resolved: dict[str, Any],
    made: _Made,
    reran: bool,
    runs: dict[str, Any] | None = None,
) -> int:
    """Compare what the commands reported with what each example declares."""
    expected: dict[str, dict[str, list[str]]] = plan["expect"]
    why: dict[str, str] = plan.get("why", {})
    surprises = []
    print("== what each example demonstrates\n")
    expected = {**expected, "rerun": plan.get("rerun", {})}
    for stage, report in (("main", merged), ("pr", review), ("rerun", rerun)):
        # A pull request's own problems (what it changes) belong to its attempt.
        # Notices (what the demo, offline, cannot confirm with GitHub) demonstrate nothing.
        changed = {r["code"] for r in report["pr_problems"] if r["severity"] != "notice"}
        for attempt in report["attempts"]:
            name = attempt["attempt"]
            want = sorted(expected[stage].get(name, []))
            own = {r["code"] for r in attempt["reasons"] if r["severity"] != "notice"}
            got = sorted(own | changed)
            mark = "ok " if got == want else "UNEXPECTED"
            print(f"  {mark} [{stage}] {name}: {', '.join(got) or attempt['status']}")
            print(f"       {why.get(name, '')}")
            if got != want:
                surprises.append(f"{name}: expected {want or 'no reasons'}, got {got}")
    checked_runs = (runs or {}).get("challenge_runs", [])
    for run in checked_runs:
        name = run["path"]
        want = sorted(plan["expect"].get("runs", {}).get(name, []))
        got = sorted({r["code"] for r in run["reasons"] if r["severity"] != "notice"})
        mark = "ok " if got == want else "UNEXPECTED"
        print(f"  {mark} [run] {name}: {', '.join(got) or run['evidence']}")
        print(f"       {why.get(name, '')}")
        if got != want:
            surprises.append(f"{name}: expected {want or 'no reasons'}, got {got}")
    missing_runs = set(plan["expect"].get("runs", {})) - {run["path"] for run in checked_runs}
    surprises += [f"{name}: not verified" for name in sorted(missing_runs)]
    for market in resolved["markets"]:
        want = plan["outcomes"].get(str(market["market"]))
        mark = "ok " if market["outcome"] == want else "UNEXPECTED"
        print(f"  {mark} market {market['market']} resolves {market['outcome']}: {market['why']}")
        if market["outcome"] != want:
            surprises.append(f"market {market['market']}: expected {want}, got {market['outcome']}")
    # The job's own records: each market's outcome, except that without the sandbox a market
    # with wrapped attempts is not recorded at all (the job fails closed).
    wrapped = {folder.split("/")[1].removeprefix("market-").lstrip("0") for folder in plan["rerun"]}
    for number, outcome in sorted(plan["outcomes"].items()):
        recorded = made.records.get(number)
        wanted = outcome if reran or number not in wrapped else None
        mark = "ok " if recorded == wanted else "UNEXPECTED"
        shown = (
            f"recorded {recorded} (resolutions/market-{int(number):02d}.yaml)"
            if recorded
            else "not recorded: its wrapped attempts were not rerun, so the job fails closed"
        )
        print(f"  {mark} market {number} {shown}")
        if recorded != wanted:
            surprises.append(f"market {number}: the job recorded {recorded}, expected {wanted}")
    print(f"       tags the job made: {', '.join(f'{n} ({t})' for n, t in made.tags.items())}")
    print(f"       issues it opened: {', '.join(made.issues)}")
    if "2" not in made.records or made.records["2"] != "ANNULLED":
        surprises.append("the job did not annul market 2")
    print()
    if surprises:
        print("demo FAILED:\n  " + "\n  ".join(surprises))
        return 1
    count = len(merged["attempts"]) + len(review["attempts"]) + len(checked_runs)
    if rerun.get("skipped"):
        print(
            "(the adapter rerun was skipped, so the markets were resolved with the wrapped"
            " attempts left out: install bubblewrap to see it)"
        )
    print(
        f"demo OK: all {count} examples gave the codes they demonstrate, and markets"
        f" {', '.join(f'{m} {o}' for m, o in sorted(plan['outcomes'].items(), key=_number))}."
    )
    return 0

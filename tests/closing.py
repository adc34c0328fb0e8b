"""The close-windows job (bot/faces/jobs/close_windows.py) run in-process on registries the
tests build, and what the tests read back: the records, issues and archive copies it writes,
the rerun jobs' plan and results, and the plan's inputs for its unit tests. Shared by
tests/acceptance/test_close_windows*.py, test_review3_rerun_records.py and
tests/unit/faces/jobs/test_close_plan.py."""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from collections.abc import Callable
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import git
import pytest
import yaml

import bot.edges.sandbox
from bot.app.options import Ports
from bot.app.rerun import AdapterRerun
from bot.app.resolutions import ResolutionRecord
from bot.edges.archive.local import LocalArchive
from bot.edges.archive.port import Archive, ArchivedRecord
from bot.edges.archive.zenodo import ZenodoArchive
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.jobs.close_windows import CloseReport, Job, close_windows
from bot.faces.jobs.issues import FileIssues
from bot.faces.jobs.plan import MarketFacts
from bot.vocab.commits import Tag
from bot.vocab.dates import MarketDates
from tests.archive.fakezenodo import TOKEN, FakeZenodo
from tests.support import rerun_job_argv

TAG = "snapshot-2027-06-30"


CLOSED = date(2027, 9, 1)  # after the window, before the annulment date


LATE = date(2027, 9, 30)  # after the annulment date 2027-09-28


REPOSITORY = "https://github.com/acme/registry"


def zenodo(fake: FakeZenodo, **options: Any) -> ZenodoArchive:
    """A Zenodo archive against the fake Zenodo `fake`, with no waits between retries."""
    settings: dict[str, Any] = {"timeout": (2.0, 2.0), "sleep": lambda _: None, **options}
    return ZenodoArchive(fake.base_url, TOKEN, **settings)


def run(
    root: Path,
    archive: Archive | None = None,
    as_of: date = CLOSED,
    crash: Callable[[str], None] = lambda point: None,
    dry_run: bool = False,
    reopen: int | None = None,
    issues: Any = None,
    cache: Any = None,
) -> CloseReport:
    """The close-windows job on the registry at `root` as of `as_of` (06:00 UTC that day), with
    a local archive and file issues unless told otherwise."""
    job = Job(
        root=root,
        archive=archive or LocalArchive(root / ".claims" / "archive"),
        archive_kind="zenodo" if isinstance(archive, ZenodoArchive) else "local",
        repository_url=REPOSITORY,
        issues=issues or FileIssues(root / ".claims" / "issues"),
        as_of=as_of,
        ports=Ports(records_cache=cache),
        clock=at(as_of),
        crash=crash,
    )
    return close_windows(job, dry_run=dry_run, reopen=reopen)


def record(root: Path, market: int = 3) -> dict[str, Any]:
    """Market `market`'s resolution record in the work tree at `root`."""
    data: dict[str, Any] = yaml.safe_load(
        (root / f"resolutions/market-{market:02d}.yaml").read_text()
    )
    return data


def issues(root: Path) -> list[str]:
    """The names of the issues the job wrote (FileIssues, under .claims/issues)."""
    return sorted(p.name for p in (root / ".claims" / "issues").glob("*.md"))


def commit_at(repo: git.Repo, name: str, moment: str) -> str:
    """Commit a file `name` on the checked-out branch, dated `moment` (RFC 3339)."""
    (Path(repo.working_dir) / name).write_text(f"{name} at {moment}\n")
    repo.git.add(name)
    with repo.git.custom_environment(GIT_AUTHOR_DATE=moment, GIT_COMMITTER_DATE=moment):
        repo.git.commit("-m", name)
    return str(repo.head.commit.hexsha)


def refuse_main(origin: Path) -> None:
    """Origin's pre-receive hook refuses every update of main (tags are accepted)."""
    hook = origin / "hooks" / "pre-receive"
    hook.write_text(
        "#!/bin/sh\n"
        "while read old new ref; do\n"
        '  [ "$ref" = refs/heads/main ] && { echo "main is protected" >&2; exit 1; }\n'
        "done\n"
        "exit 0\n"
    )
    hook.chmod(0o755)


WRAPPED = AttemptSpec(kind="wrapped")


needs_sandbox = pytest.mark.skipif(
    bot.edges.sandbox.isolation() is not None,
    reason=f"no network isolation here: {bot.edges.sandbox.isolation()}",
)


def recorded(results: Path) -> AdapterRerun:
    """What the close job is given: the rerun jobs' results, counted, nothing run."""
    return AdapterRerun(cache=results.parent / "unused", results=results, recorded_only=True)


def plan(run_claims: Any, root: Path, as_of: date = CLOSED) -> dict[str, Any]:
    """`claims close-windows --plan-reruns`: the rerun jobs' matrix as of `as_of`."""
    result = run_claims(
        "close-windows", "--registry", root, "--plan-reruns", "--as-of", as_of.isoformat()
    )
    assert result.code == 0, result.err
    matrix: dict[str, Any] = json.loads(result.out)
    return matrix


def entries(planned: dict[str, Any]) -> list[dict[str, str]]:
    """The plan's attempts, batch after batch, as the rerun jobs run them."""
    return [entry for batch in planned["batches"] for entry in batch]


def rerun_job(run_claims: Any, built: Any, entry: dict[str, str], cache: Path, out: Path) -> int:
    """One attempt of a batch as the workflow's rerun job runs it (the sandbox, no token)."""
    attempt = built.root / entry["attempt"]
    result = run_claims(*rerun_job_argv(built.root, entry["commit"], attempt, out, cache))
    code: int = result.code
    return code


def close_at(
    root: Path,
    moment: datetime,
    archive: Archive | None = None,
    rerun: AdapterRerun | None = None,
    crash: Callable[[str], None] = lambda point: None,
) -> CloseReport:
    """The job as the schedule runs it on `moment` (`as_of`: its UTC date)."""
    job = Job(
        root=root,
        archive=archive or LocalArchive(root / ".claims" / "archive"),
        archive_kind="zenodo" if isinstance(archive, ZenodoArchive) else "local",
        repository_url=REPOSITORY,
        issues=FileIssues(root / ".claims" / "issues"),
        as_of=moment.date(),
        ports=Ports(rerun_adapter=rerun),
        clock=lambda: moment,
        crash=crash,
    )
    return close_windows(job)


def on_branch(repo: git.Repo, market: int, ref: str = "main") -> dict[str, Any]:
    """The market's record as `ref` holds it (what a fresh checkout and the site read)."""
    data: dict[str, Any] = yaml.safe_load(
        repo.git.show(f"{ref}:resolutions/market-{market:02d}.yaml")
    )
    return data


def decided(data: dict[str, Any]) -> dict[str, Any]:
    """What a record decides (all but where it was archived, and the warning that answers)."""
    return {k: v for k, v in data.items() if k not in {"archive", "warnings"}}


def assert_decided_once(recorded: dict[str, Any], copy: bytes, issue: str) -> None:
    """The record on main is inside the copy it cites, with that copy's digest, and the
    issue announces the same outcome."""
    market = recorded["market"]
    archived = inside(copy, market)
    assert archived is not None, f"the copy market {market}'s record cites holds no record of it"
    assert decided(archived) == decided(recorded)
    assert archived["archive"] is None  # archived before its own reference existed
    assert recorded["archive"]["sha256"] == "sha256:" + hashlib.sha256(copy).hexdigest()
    assert recorded["archive"]["checksum"] == "md5:" + hashlib.md5(copy).hexdigest()
    assert f"Market {market} resolved {recorded['outcome']}" in issue


def with_origin(built: Any, tmp_path: Path) -> Path:
    """A real bare origin holding main, the checkout's `origin`."""
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True)
    built.repo.create_remote("origin", str(origin))
    built.repo.git.push("origin", "main")
    return origin


GOOD = AttemptSpec(submitter="bob-lab", slug="monitor-v2", seed=2)


DEADLINE = date(2027, 9, 5)


def close(root: Path, as_of: date, rerun: AdapterRerun | None) -> CloseReport:
    """The job as the schedule runs it on `as_of` (03:17 UTC), counting the rerun jobs'
    results through `rerun`."""
    job = Job(
        root=root,
        archive=LocalArchive(root / ".claims" / "archive"),
        archive_kind="local",
        repository_url="https://github.com/acme/registry",
        issues=FileIssues(root / ".claims" / "issues"),
        as_of=as_of,
        ports=Ports(rerun_adapter=rerun),
        clock=lambda: datetime(as_of.year, as_of.month, as_of.day, 3, 17, tzinfo=UTC),
    )
    return close_windows(job)


def recorded_into(results: Path) -> AdapterRerun:
    """The close job's rerun: the rerun jobs' results in `results`, counted, nothing run."""
    results.mkdir(parents=True, exist_ok=True)
    return AdapterRerun(cache=results.parent / "unused", results=results, recorded_only=True)


def record_if_any(root: Path, market: int = 3) -> dict[str, Any] | None:
    """Market `market`'s resolution record in the work tree at `root`, or None."""
    file = root / f"resolutions/market-{market:02d}.yaml"
    return yaml.safe_load(file.read_text()) if file.exists() else None


def rerun_wrapped_job(run_claims: Any, built: Any, results: Path, released: Path) -> int:
    """The workflow's rerun job for the wrapped attempt, on main's commit at the close."""
    return rerun_job_of(run_claims, built, WRAPPED.folder, results, released)


def rerun_job_of(run_claims: Any, built: Any, folder: str, results: Path, released: Path) -> int:
    """The workflow's rerun job for the attempt `folder`, on main's commit at the close."""
    head = built.repo.head.commit.hexsha
    result = run_claims(*rerun_job_argv(built.root, head, built.root / folder, results, released))
    assert "Traceback" not in result.err
    code: int = result.code
    return code


MARKET_3_DATES = MarketDates.of(
    date(2027, 6, 30), 60, 30
)  # closes 2027-08-29, annulled after 09-28


CLOSE_COMMIT = "a" * 40


ARCHIVED_COPY = ArchivedRecord(
    TAG, "10.5072/zenodo.1", "1", "f.tar.gz", "md5:" + "0" * 32, datetime(2027, 9, 1, tzinfo=UTC)
)


def snapshot_tag(commit: str = CLOSE_COMMIT, annotated: bool = True) -> Tag:
    """Market 3's snapshot tag on `commit` (annotated and dated, or lightweight)."""
    return Tag(TAG, commit, annotated, datetime(2027, 9, 1, 6, tzinfo=UTC) if annotated else None)


def resolution_record(outcome: str = "YES", archive: bool = True) -> ResolutionRecord:
    """Market 3's committed record: `outcome`, its snapshot at CLOSE_COMMIT, archived or not."""
    data: dict[str, Any] = {
        "market": 3,
        "outcome": outcome,
        "snapshot": {"tag": TAG, "commit": CLOSE_COMMIT, "tagged_at": None, "state": "ok"},
        "archive": {"kind": "zenodo", **ARCHIVED_COPY.as_record()} if archive else None,
        "dates": {"annul_on": "2027-09-28"},
    }
    return ResolutionRecord(data)


def market_facts(**changes: Any) -> MarketFacts:
    """What the plan is given about market 3 (window closed, no tag yet), with `changes`."""
    values: dict[str, Any] = {
        "market": 3,
        "title": "t",
        "dates": MARKET_3_DATES,
        "tag": None,
        "tag_on_branch": True,
        "close_commit": CLOSE_COMMIT,
    }
    return MarketFacts(**{**values, **changes})


def at(day: date, hour: int = 6) -> Callable[[], datetime]:
    """A clock that says `hour`:00 UTC on `day`."""
    return lambda: datetime(day.year, day.month, day.day, hour, tzinfo=UTC)


def inside(copy: bytes, market: int) -> dict[str, Any] | None:
    """The market's record inside a copy's tarball, or None."""
    with tarfile.open(fileobj=io.BytesIO(copy), mode="r:gz") as tar:
        try:
            member = tar.getmember(f"{TAG}/resolutions/market-{market:02d}.yaml")
        except KeyError:
            return None
        stream = tar.extractfile(member)
        assert stream is not None
        data: dict[str, Any] = yaml.safe_load(stream.read())
        return data

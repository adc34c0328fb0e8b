"""Issue 21, the scheduled close: a market's outcome is decided once and read from one place.

Each test is an attack that worked on 611a91f, on real git registries (and a real bare git
origin), with the local archive or the fake Zenodo:

- a record outside the copy it cites (two markets sharing `snapshot-R`, one blocked when the
  tag was archived);
- a push rejected because main moved after the trigger, after the copy was published: the
  next run decided the market again;
- a tag on another commit counted after the annulment date.

Markets 3 and 5 resolve by R = 2027-06-30 (window closes 2027-08-29, annulment date
2027-09-28) and share `snapshot-2027-06-30`.
"""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import git
import pytest

from tests.closing import (
    CLOSE_COMMIT,
    LATE,
    TAG,
    WRAPPED,
    assert_decided_once,
    close_at,
    commit_at,
    decided,
    entries,
    inside,
    market_facts,
    needs_sandbox,
    on_branch,
    plan,
    record,
    recorded,
    refuse_main,
    rerun_job,
    resolution_record,
    run,
    snapshot_tag,
    with_origin,
    zenodo,
)
from tests.support import RegistryFactory

# ---- item 15: a tag on the wrong commit after the annulment date ------------------------------


def test_a_tag_on_another_commit_blocks_the_late_close_too(make_registry: RegistryFactory) -> None:
    """No run made the snapshot; someone with tag rights tags a commit merged after the close
    (annotated, dated before the annulment date, on main). Before the annulment date the job
    refuses such a tag; after it, it used to count: the market resolved, final, from the later
    commit's tree. Now the late close checks the tag's commit the same way and is blocked."""
    built = make_registry()
    close = built.repo.head.commit.hexsha
    later = commit_at(built.repo, "AFTER-THE-CLOSE.md", "2027-09-05T10:00:00Z")
    with built.repo.git.custom_environment(GIT_COMMITTER_DATE="2027-09-06T10:00:00Z"):
        built.repo.create_tag(TAG, ref=later, message="placed on a later commit")
    report = run(built.root, as_of=LATE)
    assert report.failed
    assert [m.phase for m in report.plan.markets] == ["blocked", "blocked"], report.render()
    (three, _) = report.plan.markets
    assert f"points at {later[:12]}, not at {close[:12]}" in three.note
    assert not (built.root / "resolutions").exists()
    assert not (built.root / ".claims/issues").exists()
    # Deleted by a maintainer: the late close resolves from what counts (neither the tag nor a
    # copy: ANNULLED), never from the later commit.
    built.repo.delete_tag(built.repo.tags[TAG])
    after = run(built.root, as_of=date(2027, 10, 1))
    assert not after.failed, after.render()
    assert record(built.root)["outcome"] == "ANNULLED"


def test_the_tag_commit_check_is_one_rule_in_every_phase() -> None:
    """The close, the late close and the watch all refuse a tag on another commit."""
    from bot.faces.jobs.plan import plan_close

    elsewhere = snapshot_tag("b" * 40)
    for day, changes in (
        (date(2027, 9, 1), {}),
        (date(2027, 9, 29), {}),
        (date(2027, 9, 10), {"record": resolution_record(), "record_committed": True}),
    ):
        plan = plan_close([market_facts(tag=elsewhere, **changes)], day)
        (market,) = plan.markets
        assert market.phase == "blocked", (day, plan.render())
        assert f"not at {CLOSE_COMMIT[:12]}" in market.note


# ---- helpers: one decision, every copy -------------------------------------------------------


def local_copy(store: Path, recorded: dict[str, Any]) -> bytes:
    """The file of the copy a record cites, from the local archive folder."""
    return (store / "files" / recorded["archive"]["file"]).read_bytes()


# ---- item 11: every record inside the copy it cites ------------------------------------------


def test_a_market_resolved_after_its_tag_was_archived_cites_a_copy_holding_its_record(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    """Markets 3 and 5 share snapshot-R. On the first run market 3 is blocked (its wrapped
    attempt has no recorded rerun) while market 5 resolves and the tag is archived. Market 3
    resolves the next day: its record used to cite the tag's one copy, which held only market
    5's record, and got no sha256. Now each market's copy holds its own record, cited with
    that copy's digest."""
    from tests.support import seed_released

    if needs_sandbox.args[0]:
        pytest.skip(needs_sandbox.kwargs["reason"])
    built = make_registry(WRAPPED)
    store = built.root / ".claims" / "archive"
    first = close_at(built.root, datetime(2027, 9, 1, 13, tzinfo=UTC))
    assert first.failed and "market 3 blocked this run" in first.render()
    assert not (built.root / "resolutions/market-03.yaml").exists()
    five = record(built.root, 5)
    assert five["outcome"] == "OTHER"
    # The next day the rerun job has recorded the wrapped attempt's result.
    (entry,) = entries(plan(run_claims, built.root, date(2027, 9, 2)))
    seed_released(tmp_path / "released", built.files)
    results = tmp_path / "rerun-cache"
    assert rerun_job(run_claims, built, entry, tmp_path / "released", results) == 0
    second = close_at(built.root, datetime(2027, 9, 2, 13, tzinfo=UTC), rerun=recorded(results))
    assert not second.failed, second.render()
    three = record(built.root, 3)
    assert three["outcome"] == "YES"
    issue = lambda n: (built.root / f".claims/issues/market-{n:02d}-resolution.md").read_text()  # noqa: E731
    for data in (three, five):
        assert_decided_once(data, local_copy(store, data), issue(data["market"]))
    assert three["archive"]["id"] != five["archive"]["id"]
    # The copy made for market 5 holds no record of market 3, and is not cited by it.
    assert inside(local_copy(store, five), 3) is None


def site_records(origin: Path, checkout: Path) -> dict[int, dict[str, Any]]:
    """The records the website shows (`claims site` reads resolutions/ of main's checkout)."""
    from bot.edges.tree import FolderTree
    from bot.faces.site.build import _records

    git.Repo.clone_from(str(origin), checkout, branch="main")
    return _records(FolderTree(checkout))


# ---- item 12: a push refused because main moved on -------------------------------------------


def merge_on_origin(origin: Path, tmp_path: Path, name: str) -> str:
    """Another writer (a PR merged, a /judge commit) pushes to origin's main."""
    other = git.Repo.clone_from(str(origin), tmp_path / f"writer-{name}", branch="main")
    sha = commit_at(other, name, "2027-09-01T14:00:00Z")
    other.git.push("origin", "main")
    return sha


def test_a_push_refused_because_main_moved_is_replayed_with_the_same_records(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """The job checked out main when it started; after the tag was pushed and the copies
    published, a merge lands on origin's main, so the record push is non-fast-forward. It used
    to fail, leaving the decision in the copies and none on main (the next run decided the
    market again). Now the record commits are replayed onto the moved main and pushed, as
    decided."""
    built = make_registry()
    origin = with_origin(built, tmp_path)
    merged: list[str] = []

    def merge_while_the_job_runs(point: str) -> None:
        if point == "archived" and not merged:  # after the tag and the first copy
            merged.append(merge_on_origin(origin, tmp_path, "MERGED-AFTER-TRIGGER.md"))

    report = close_at(
        built.root, datetime(2027, 9, 1, 13, tzinfo=UTC), crash=merge_while_the_job_runs
    )
    assert merged, "the origin did not move"
    assert not report.failed, report.render()
    assert "replayed" in report.render()
    remote = git.Repo(origin)
    assert remote.commit("main").hexsha == built.repo.commit("main").hexsha
    first_parents = remote.git.rev_list("--first-parent", "main").split()
    assert merged[0] in first_parents  # the merge stays on main's first-parent history
    subjects = remote.git.log("--format=%s", f"{merged[0]}..main").splitlines()
    assert sorted(subjects) == [
        "resolutions: market 3 resolved YES",
        "resolutions: market 5 resolved OTHER",
    ]
    store = built.root / ".claims" / "archive"
    site = site_records(origin, tmp_path / "site-checkout")
    for market in (3, 5):
        data = on_branch(remote, market)
        text = (built.root / f".claims/issues/market-{market:02d}-resolution.md").read_text()
        assert_decided_once(data, local_copy(store, data), text)
        assert site[market] == data  # the site reads the one record
    assert len(list(store.glob("*.json"))) == 2  # one copy per market, none made twice


def test_a_record_never_pushed_is_adopted_from_its_copy_not_decided_again(
    make_registry: RegistryFactory, fake_zenodo, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Origin refused the record push for good (the copies were published by then, immutable).
    The next day's run, in a fresh checkout of origin, finds no record: it used to resolve the
    market again on its own day's clock (its adapters rerun, its outcome possibly another)
    and cite the first run's copy. Now it adopts the record inside the published copy."""
    import bot.faces.jobs.close_windows.applier

    built = make_registry()
    origin = with_origin(built, tmp_path)
    refuse_main(origin)
    first = close_at(built.root, datetime(2027, 9, 1, 13, tzinfo=UTC), zenodo(fake_zenodo))
    assert first.failed and any("git push" in e for e in first.errors), first.render()
    copies = len(fake_zenodo.published())
    assert copies
    decided_first = {m: record(built.root, m) for m in (3, 5)}
    (origin / "hooks" / "pre-receive").unlink()

    def decide_again(*args: object, **kwargs: object) -> None:
        raise AssertionError("the market was decided a second time")

    monkeypatch.setattr(bot.faces.jobs.close_windows.applier, "resolve_registry", decide_again)
    fresh = git.Repo.clone_from(str(origin), tmp_path / "fresh", branch="main")
    fresh_root = Path(fresh.working_dir)
    assert not (fresh_root / "resolutions").exists()
    second = close_at(fresh_root, datetime(2027, 9, 2, 13, tzinfo=UTC), zenodo(fake_zenodo))
    assert not second.failed, second.render()
    assert len(fake_zenodo.published()) == len(fake_zenodo.depositions) == copies  # none new
    by_doi = {d.doi: d for d in fake_zenodo.published()}
    site = site_records(origin, tmp_path / "site-checkout")
    for market in (3, 5):
        data = on_branch(git.Repo(origin), market)
        assert decided(data) == decided(decided_first[market])
        assert data["resolved_at"] == "2027-09-01T13:00:00Z" and data["as_of"] == "2027-09-01"
        (copy,) = by_doi[data["archive"]["doi"]].files.values()
        issue = (fresh_root / f".claims/issues/market-{market:02d}-resolution.md").read_text()
        assert_decided_once(data, copy, issue)
        assert site[market] == data


# ---- every job answers per attempt: the close ------------------------------------------------

HOSTILE = {
    "unparsable": {"attempt.yaml": b"market: [3\n", "trials.jsonl": b"{\n"},
    "binary": {"attempt.yaml": b"\xff\xfe\x00garbage", "trials.jsonl": b"\x00\x01\x02"},
    "elsewhere": {"attempt.yaml": b"market: 5\nkind: run\n"},
    "deep": {"attempt.yaml": b"market: 3\nkind: " + b"[" * 5000 + b"]" * 5000 + b"\n"},
    "huge": {
        "attempt.yaml": b"market: 3\nkind: run\n",
        "trials.jsonl": b'{"case_id": "c", "system": "s", "result": {"n": '
        + str(2**80).encode()
        + b"}}\n",
    },
}


def test_a_filers_broken_files_are_that_attempts_finding_never_the_close_jobs(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    """Hostile attempt folders merged in the window (unparsable, binary, naming another market,
    nested past the caps, an integer beyond 2**53) are judged attempts that do not count: both
    markets resolve as they would without them, and the rerun plan is made. Only the registry's
    own fault (here the archive refusing) stops a market, and then no record is made."""
    built = make_registry()
    for slug, files in HOSTILE.items():
        for name, data in files.items():
            path = built.root / f"attempts/market-03/mallory-lab/{slug}/{name}"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
    built.repo.git.add("attempts")
    with built.repo.git.custom_environment(
        GIT_AUTHOR_DATE="2027-08-01T10:00:00Z", GIT_COMMITTER_DATE="2027-08-01T10:00:00Z"
    ):
        built.repo.git.commit("-m", "hostile attempts merged in the window")
    planned = run_claims(
        "close-windows", "--registry", built.root, "--plan-reruns", "--as-of", "2027-09-01"
    )
    assert planned.code == 0 and "Traceback" not in planned.err, planned.err
    report = close_at(built.root, datetime(2027, 9, 1, 13, tzinfo=UTC))
    assert not report.errors, report.render()
    three, five = record(built.root, 3), record(built.root, 5)
    assert (three["outcome"], five["outcome"]) == ("YES", "OTHER")
    hostile = [a for a in three["attempts"] if "/mallory-lab/" in a["attempt"]]
    assert hostile and all(not a["counts"] for a in hostile), three["attempts"]
    assert all(a["evidence"] == "invalid" and a["reasons"] for a in hostile)


def test_the_registrys_own_fault_stops_the_market_without_a_record(
    make_registry: RegistryFactory, fake_zenodo
) -> None:
    """An archive outage is the registry's fault: the market is not recorded (never decided
    without its copy), the run fails, and the next run finishes it."""
    built = make_registry()
    for _ in range(10):
        fake_zenodo.fail("create", "500")
    report = close_at(
        built.root, datetime(2027, 9, 1, 13, tzinfo=UTC), zenodo(fake_zenodo, attempts=2)
    )
    assert report.failed and any("not archived" in e for e in report.errors), report.render()
    assert not (built.root / "resolutions").exists()
    fake_zenodo.faults.clear()
    again = close_at(built.root, datetime(2027, 9, 2, 13, tzinfo=UTC), zenodo(fake_zenodo))
    assert not again.failed, again.render()
    assert record(built.root, 3)["outcome"] == "YES"


def test_a_reopened_market_gets_a_copy_of_its_new_record(make_registry: RegistryFactory) -> None:
    """--reopen decides the market again (a maintainer's act): the new record cites a new copy
    holding it; the first copy keeps the first record, cited by the record moved aside."""
    built = make_registry()
    store = built.root / ".claims" / "archive"
    assert not run(built.root).failed
    first = record(built.root, 3)
    report = run(built.root, reopen=3, as_of=date(2027, 9, 2))
    assert not report.failed, report.render()
    again = record(built.root, 3)
    assert again["archive"]["id"] == f"local-{TAG}-market-03-reopened-1"
    copy = local_copy(store, again)
    archived = inside(copy, 3)
    assert archived is not None and decided(archived) == decided(again)
    assert again["archive"]["sha256"] == "sha256:" + hashlib.sha256(copy).hexdigest()
    kept = inside(local_copy(store, first), 3)
    assert kept is not None and decided(kept) == decided(first)

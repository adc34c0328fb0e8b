"""Hostile review of `claims close-windows` (issue 10): each test is an attack that once
worked, on real git registries with the local archive, the fake Zenodo and the fake GitHub.

Markets 3 and 5 resolve by R = 2027-06-30: the window closes 2027-08-29, which ends Anywhere
on Earth at 2027-08-30 12:00 UTC; the annulment date is 2027-09-28 (see test_close_windows).
"""

from __future__ import annotations

from datetime import UTC, date, datetime
from pathlib import Path

import git

from bot.edges.archive.local import LocalArchive
from bot.edges.archive.port import Archive
from bot.edges.archive.zenodo import ZenodoArchive
from bot.edges.history import read_tags
from bot.faces.jobs.close_windows import CloseReport, Job, close_windows
from bot.faces.jobs.issues import FileIssues
from tests.closing import LATE, REPOSITORY, TAG, commit_at, issues, record, refuse_main, zenodo
from tests.support import RegistryFactory


def run_at(
    root: Path, moment: datetime, archive: Archive | None = None, as_of: date | None = None
) -> CloseReport:
    """The job as the schedule runs it: `as_of` is the clock's UTC date."""
    job = Job(
        root=root,
        archive=archive or LocalArchive(root / ".claims" / "archive"),
        archive_kind="zenodo" if isinstance(archive, ZenodoArchive) else "local",
        repository_url=REPOSITORY,
        issues=FileIssues(root / ".claims" / "issues"),
        as_of=as_of or moment.date(),
        clock=lambda: moment,
    )
    return close_windows(job)


# ---- (1) the window's close, Anywhere on Earth ------------------------------------------------


def test_no_snapshot_before_the_window_has_closed_anywhere_on_earth(
    make_registry: RegistryFactory,
) -> None:
    """2027-08-30 06:00 UTC is still 2027-08-29 west of UTC-6: the window is open there, and a
    merge at 10:00 UTC is in time. A daily run before noon UTC must not freeze main yet."""
    built = make_registry()
    early = run_at(built.root, datetime(2027, 8, 30, 6, tzinfo=UTC))
    assert not early.failed, early.render()
    assert [m.phase for m in early.plan.markets] == ["waiting", "waiting"]
    assert read_tags(built.repo) == {}
    in_time = commit_at(built.repo, "LATE-MERGE.md", "2027-08-30T10:00:00Z")
    later = run_at(built.root, datetime(2027, 8, 30, 13, tzinfo=UTC))
    assert not later.failed, later.render()
    assert read_tags(built.repo)[TAG].commit == in_time


# ---- (2) someone else's copy on Zenodo --------------------------------------------------------


def test_a_copy_another_zenodo_user_published_is_not_ours(
    make_registry: RegistryFactory, fake_zenodo
) -> None:
    """Anyone may publish a Zenodo record naming our tree URL as a related identifier: the
    records search finds it. The job must make its own copy, never record the stranger's."""
    built = make_registry()
    url = f"{REPOSITORY}/tree/{TAG}"
    foreign = fake_zenodo.publish_foreign(
        {
            "title": "acme/registry: " + TAG,
            "related_identifiers": [{"identifier": url, "relation": "isSupplementTo"}],
        },
        {"acme-registry-" + TAG + ".tar.gz": b"not the registry"},
    )
    report = run_at(built.root, datetime(2027, 9, 1, 6, tzinfo=UTC), zenodo(fake_zenodo))
    assert not report.failed, report.render()
    ours = [d for d in fake_zenodo.published() if d.owner == 1]
    assert len(ours) == 2  # a copy per market
    assert record(built.root)["archive"]["doi"] == ours[0].doi != foreign.doi


# ---- (2) a planted tag after the annulment date -----------------------------------------------


def test_a_lightweight_tag_planted_late_annuls_with_the_annulled_issue(
    make_registry: RegistryFactory,
) -> None:
    """No run made the snapshot; after the annulment date someone pushes a lightweight tag with
    its name. It never counts: the market is ANNULLED, and the issue must say so (label
    `annulled`), with no warning claiming the tag exists."""
    built = make_registry()
    built.repo.create_tag(TAG, ref="HEAD")  # lightweight
    report = run_at(built.root, datetime(LATE.year, LATE.month, LATE.day, 13, tzinfo=UTC))
    assert record(built.root)["outcome"] == "ANNULLED"
    assert issues(built.root) == ["market-03-resolution.md", "market-05-resolution.md"]
    text = (built.root / ".claims/issues/market-03-resolution.md").read_text()
    assert "labels: annulled" in text, text
    assert report.plan.markets[0].step("issue") is not None


# ---- (3) the record pushed before anyone is told ----------------------------------------------


def test_no_issue_announces_a_record_origin_refused(
    make_registry: RegistryFactory, tmp_path
) -> None:
    """Origin refuses the branch (a protection rule, a hook): the record is on no branch anyone
    sees, so no issue may announce it. (A push refused only because main moved on is replayed
    and pushed: test_close_windows_decided_once.)"""
    built = make_registry()
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True)
    built.repo.create_remote("origin", str(origin))
    built.repo.git.push("origin", "main")
    refuse_main(origin)
    report = run_at(built.root, datetime(2027, 9, 1, 6, tzinfo=UTC))
    assert report.failed
    assert any("git push" in e for e in report.errors), report.render()
    assert not (built.root / ".claims/issues").exists()


# ---- (2) a moved tag is never archived --------------------------------------------------------


def test_a_moved_tag_is_not_archived_again_as_the_snapshot(make_registry: RegistryFactory) -> None:
    """After the close someone deletes the snapshot's copy and re-makes the tag on another
    commit: the job is blocked (it never moves a tag), and it must not publish a copy of the
    moved tag's tree as the snapshot."""
    built = make_registry()
    first = run_at(built.root, datetime(2027, 9, 1, 6, tzinfo=UTC))
    assert not first.failed, first.render()
    store = built.root / ".claims/archive"
    for market in (3, 5):
        (store / f"{TAG}-market-{market:02d}.json").unlink()
    built.repo.delete_tag(built.repo.tags[TAG])
    built.repo.create_tag(TAG, ref="HEAD~1", message="moved")
    report = run_at(built.root, datetime(2027, 9, 10, 6, tzinfo=UTC))
    assert report.failed
    assert [m.phase for m in report.plan.markets] == ["blocked", "blocked"]
    assert not list(store.glob(f"{TAG}*.json"))


# ---- (1) a final record deleted or rewritten on main ------------------------------------------


def test_a_record_deleted_on_main_is_not_made_again(make_registry: RegistryFactory) -> None:
    """A commit (not the job's --reopen) deletes market 3's record: the next run must not
    resolve the market again and write a new record; it is blocked until a maintainer restores
    the record or reopens the market."""
    built = make_registry()
    assert not run_at(built.root, datetime(2027, 9, 1, 6, tzinfo=UTC)).failed
    recorded = (built.root / "resolutions/market-03.yaml").read_bytes()
    built.repo.git.rm("resolutions/market-03.yaml")
    built.repo.git.commit("-m", "tidy up")
    report = run_at(built.root, datetime(2027, 9, 10, 6, tzinfo=UTC))
    assert report.failed
    (three,) = [m for m in report.plan.markets if m.market == 3]
    assert three.phase == "blocked" and "was deleted" in three.note, report.render()
    assert not (built.root / "resolutions/market-03.yaml").exists()
    assert [m.phase for m in report.plan.markets if m.market == 5] == ["watch"]
    built.repo.git.checkout("HEAD~1", "--", "resolutions/market-03.yaml")  # restored
    built.repo.git.commit("-m", "restore the record")
    assert (built.root / "resolutions/market-03.yaml").read_bytes() == recorded
    again = run_at(built.root, datetime(2027, 9, 11, 6, tzinfo=UTC))
    assert [m.phase for m in again.plan.markets] == ["watch", "watch"], again.render()


def test_a_record_rewritten_on_main_blocks_its_market(make_registry: RegistryFactory) -> None:
    built = make_registry()
    assert not run_at(built.root, datetime(2027, 9, 1, 6, tzinfo=UTC)).failed
    path = built.root / "resolutions/market-05.yaml"
    path.write_text(path.read_text().replace("outcome: OTHER", "outcome: YES"))
    built.repo.git.commit("-am", "market 5 resolved YES after all")
    report = run_at(built.root, datetime(2027, 9, 10, 6, tzinfo=UTC))
    assert report.failed
    assert [m.phase for m in report.plan.markets] == ["watch", "blocked"], report.render()

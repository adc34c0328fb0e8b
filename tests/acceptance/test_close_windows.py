"""`claims close-windows` end to end on real git registries (the test factory), with the local
archive and a fake Zenodo: the full close cycle, kills at each step and reruns, Zenodo faults,
the watch over copies, annulment, and markets whose window has not closed.

Markets 3 and 5 both resolve by R = 2027-06-30: their window closes 2027-08-29, they share the
tag `snapshot-2027-06-30`, and they are annulled after 2027-09-28 if neither it nor its copy
exists. Market 3 has one qualifying attempt that met its bars (YES); market 5 none (OTHER).
"""

from __future__ import annotations

import hashlib
import io
import subprocess
import tarfile
from collections.abc import Callable
from datetime import UTC, date, datetime
from typing import Any

import git
import pytest
import yaml

from bot.app.options import Ports
from bot.app.resolutions import ResolutionRecord
from bot.edges.archive.local import LocalArchive
from bot.edges.history import read_tags
from bot.faces.jobs.issues import GitHubIssues
from tests.closing import CLOSED, LATE, REPOSITORY, TAG, at, issues, record, run, zenodo
from tests.support import RegistryFactory, job_token


class Killed(BaseException):
    """The job killed between two steps (not an error the job could catch)."""


def kill_at(point: str) -> Callable[[str], None]:
    def crash(reached: str) -> None:
        if reached == point:
            raise Killed(point)

    return crash


def record_commits(repo: git.Repo, market: int = 3) -> int:
    return len(list(repo.iter_commits("main", paths=f"resolutions/market-{market:02d}.yaml")))


def commit_after_close(built: Any) -> str:
    """A commit on main after the window closed: the snapshot must not include it."""
    before = built.repo.head.commit.hexsha
    (built.root / "NOTES.md").write_text("after the close\n")
    built.repo.index.add(["NOTES.md"])
    late = "2027-08-31T10:00:00"
    built.repo.index.commit("notes", author_date=late, commit_date=late)
    return before


# ---- the full cycle ---------------------------------------------------------------------------


def test_close_tags_archives_resolves_records_and_opens_issues(
    make_registry: RegistryFactory,
) -> None:
    built = make_registry()
    close_commit = commit_after_close(built)
    report = run(built.root)
    assert not report.failed, report.render()
    tag = read_tags(built.repo)[TAG]
    assert tag.annotated and tag.commit == close_commit
    assert tag.tagged_at == datetime(2027, 9, 1, 6, tzinfo=UTC)
    three, five = record(built.root, 3), record(built.root, 5)
    assert (three["outcome"], five["outcome"]) == ("YES", "OTHER")
    assert three["snapshot"] == {
        "tag": TAG,
        "commit": close_commit,
        "tagged_at": "2027-09-01T06:00:00Z",
        "state": "ok",
    }
    assert three["archive"]["kind"] == "local"
    assert three["archive"]["id"] == f"local-{TAG}-market-03"  # a copy per market
    # Drafted before its copy was made; the committed record holds the copy, so it does not
    # also warn that the copy is missing.
    assert not any("archive copy" in warning for warning in three["warnings"]), three
    assert three["attempts"][0]["attempt"] == "attempts/market-03/alice-lab/monitor-v1"
    assert three["source"] == f"git commit {close_commit[:12]}"  # the tag's tree, not main's
    for market in (3, 5):
        raw = (built.root / f"resolutions/market-{market:02d}.yaml").read_bytes()
        assert isinstance(ResolutionRecord.from_yaml(raw, "r.yaml"), ResolutionRecord)
        assert record_commits(built.repo, market) == 1
    assert not built.repo.is_dirty(untracked_files=True, path="resolutions")
    assert issues(built.root) == ["market-03-resolution.md", "market-05-resolution.md"]
    assert (
        "# Market 3 resolved YES"
        in (built.root / ".claims/issues/market-03-resolution.md").read_text()
    )

    again = run(built.root)  # the watch: nothing new
    assert not again.failed, again.render()
    assert [m.phase for m in again.plan.markets] == ["watch", "watch"]
    assert record_commits(built.repo, 3) == 1 and len(read_tags(built.repo)) == 1
    assert issues(built.root) == ["market-03-resolution.md", "market-05-resolution.md"]


def test_a_close_with_the_verification_cache_records_what_one_without_records(
    make_registry: RegistryFactory, tmp_path
) -> None:
    """--verify-cache on the scheduled job: the attempts come back from the cache (filled by an
    earlier resolve), judgments and dates are judged afresh, and the records say the same."""
    from bot.app.api import open_workspace, resolve_registry
    from bot.app.cache import VerificationCache

    plain, cached = make_registry(), make_registry()
    cache = VerificationCache(tmp_path / "cache")
    with open_workspace(cached.root) as workspace:
        archive = LocalArchive(tmp_path / "no-archive")
        resolve_registry(
            workspace.registry,
            workspace.history,
            archive,
            CLOSED,
            ports=Ports(records_cache=cache),
        )
    assert cache.stats.stored == 1
    assert not run(plain.root).failed
    warm = VerificationCache(tmp_path / "cache")
    report = run(cached.root, cache=warm)
    assert not report.failed, report.render()
    assert warm.stats.hits >= 1 and warm.stats.misses == 0
    for market in (3, 5):
        mine, theirs = record(cached.root, market), record(plain.root, market)
        assert (mine["outcome"], mine["attempts"]) == (theirs["outcome"], theirs["attempts"])


def test_zenodo_copy_unpacks_to_the_tagged_tree_with_the_records(
    make_registry: RegistryFactory, fake_zenodo
) -> None:
    """One copy per market: the tagged tree with that market's record, cited by it."""
    built = make_registry()
    report = run(built.root, zenodo(fake_zenodo))
    assert not report.failed, report.render()
    tagged = subprocess.run(
        ["git", "-C", str(built.root), "ls-tree", "-r", "--name-only", TAG],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.split()
    by_title = {d.metadata["title"]: d for d in fake_zenodo.published()}
    assert sorted(by_title) == [
        f"acme/registry: {TAG}, market-03",
        f"acme/registry: {TAG}, market-05",
    ]
    for market, outcome in ((3, "YES"), (5, "OTHER")):
        deposition = by_title[f"acme/registry: {TAG}, market-{market:02d}"]
        metadata = deposition.metadata
        # the registry is the copy's creator as an organisation, not a person
        registry = {"type": "organizational", "name": "AI Safety Claims registry"}
        assert deposition.rdm_creators == [{"person_or_org": registry}]
        assert metadata["keywords"][0] == TAG and f"market-{market}" in metadata["keywords"]
        assert metadata["related_identifiers"][0]["identifier"] == f"{REPOSITORY}/tree/{TAG}"
        ((name, data),) = deposition.files.items()
        assert name == f"acme-registry-{TAG}-market-{market:02d}.tar.gz"
        with tarfile.open(fileobj=io.BytesIO(data), mode="r:gz") as tar:
            files = {
                m.name.removeprefix(f"{TAG}/"): tar.extractfile(m).read()  # type: ignore[union-attr]
                for m in tar.getmembers()
                if m.isfile()
            }
        path = f"resolutions/market-{market:02d}.yaml"
        assert set(files) == {*tagged, path}
        for tracked in tagged:
            assert files[tracked] == (built.repo.commit(TAG).tree / tracked).data_stream.read()
        archived = yaml.safe_load(files[path])
        assert archived["outcome"] == outcome and archived["archive"] is None
        recorded = record(built.root, market)
        assert recorded["archive"]["doi"] == deposition.doi
        assert recorded["archive"]["kind"] == "zenodo"
        assert recorded["archive"]["sha256"] == "sha256:" + hashlib.sha256(data).hexdigest()


# ---- kills and reruns -------------------------------------------------------------------------


@pytest.mark.parametrize(
    "point",
    [
        "tagged",
        "created",
        "uploaded",
        "published",
        "resolved",
        "record-written",
        "committed",
        "issue-opened",
    ],
)
def test_killed_then_rerun_leaves_one_of_everything(
    make_registry: RegistryFactory, fake_zenodo, point
) -> None:
    built = make_registry()
    zenodo_steps = {"created", "uploaded", "published"}

    def after_step(step: str, state: object) -> None:
        if step == point:
            raise Killed(step)

    archive = zenodo(fake_zenodo, after_step=after_step if point in zenodo_steps else None)
    with pytest.raises(Killed):
        run(built.root, archive, crash=kill_at(point))
    report = run(built.root, zenodo(fake_zenodo))
    assert not report.failed, report.render()
    assert list(read_tags(built.repo)) == [TAG]
    assert len(fake_zenodo.published()) == 2 and len(fake_zenodo.depositions) == 2  # per market
    assert record_commits(built.repo, 3) == 1 and record_commits(built.repo, 5) == 1
    assert record(built.root)["archive"]["doi"] == fake_zenodo.published()[0].doi
    assert issues(built.root) == ["market-03-resolution.md", "market-05-resolution.md"]


@pytest.mark.parametrize("fault", ["500", "429", "hang", "wrong-checksum"])
def test_zenodo_failure_records_nothing_archived(
    make_registry: RegistryFactory, fake_zenodo, fault
) -> None:
    built = make_registry()
    for _ in range(4):  # both markets' copies (one per market), two tries each
        fake_zenodo.fail("upload", fault, retry_after=1)
    report = run(built.root, zenodo(fake_zenodo, attempts=2))
    assert report.failed
    assert any("not archived" in e for e in report.errors), report.render()
    assert not (built.root / "resolutions").exists()
    assert fake_zenodo.published() == []
    assert not (built.root / ".claims/issues").exists()  # no issue about an unmade record
    fake_zenodo.faults.clear()
    fake_zenodo.released.set()
    report = run(built.root, zenodo(fake_zenodo))
    assert not report.failed, report.render()
    assert len(fake_zenodo.published()) == 2 and len(fake_zenodo.depositions) == 2
    assert record(built.root)["archive"]["doi"] == fake_zenodo.published()[0].doi


# ---- watch and annulment ----------------------------------------------------------------------


def test_deleted_zenodo_record_is_noticed_and_archived_again(
    make_registry: RegistryFactory, fake_zenodo
) -> None:
    built = make_registry()
    assert not run(built.root, zenodo(fake_zenodo)).failed
    first, _ = fake_zenodo.published()  # market 3's copy, then market 5's
    fake_zenodo.delete_record(first.id)
    report = run(built.root, zenodo(fake_zenodo), as_of=date(2027, 9, 10))
    assert not report.failed, report.render()
    assert "market-03-registry-warning.md" in issues(built.root)
    live = [d for d in fake_zenodo.published() if not d.deleted]
    assert len(live) == 2 and first.id not in [d.id for d in live]
    assert record(built.root)["archive"]["doi"] == first.doi  # the record is final
    again = run(built.root, zenodo(fake_zenodo), as_of=date(2027, 9, 11))
    assert not again.failed, again.render()
    assert len([d for d in fake_zenodo.published() if not d.deleted]) == 2
    assert issues(built.root).count("market-03-registry-warning.md") == 1


def test_neither_tag_nor_copy_after_the_annulment_date_annuls_once(
    make_registry: RegistryFactory,
) -> None:
    built = make_registry()
    report = run(built.root, as_of=LATE)
    assert not report.failed, report.render()
    assert record(built.root)["outcome"] == "ANNULLED"
    assert TAG not in read_tags(built.repo)  # a late tag would never count: none is made
    text = (built.root / ".claims/issues/market-03-resolution.md").read_text()
    assert "labels: annulled" in text and "Market 3 annulled" in text
    run(built.root, as_of=date(2027, 10, 1))
    assert issues(built.root) == ["market-03-resolution.md", "market-05-resolution.md"]
    assert record_commits(built.repo) == 1


def test_only_the_tag_after_the_annulment_date_warns_never_annuls(
    make_registry: RegistryFactory,
) -> None:
    built = make_registry()
    with built.repo.git.custom_environment(GIT_COMMITTER_DATE="2027-08-30T13:00:00Z"):
        built.repo.create_tag(TAG, ref="HEAD", message="made on time")
    report = run(built.root, as_of=LATE)
    assert not report.failed, report.render()
    assert record(built.root)["outcome"] == "YES"
    assert "market-03-registry-warning.md" in issues(built.root)
    assert (
        "labels: resolution" in (built.root / ".claims/issues/market-03-resolution.md").read_text()
    )


def test_market_whose_window_is_open_is_never_touched(make_registry: RegistryFactory) -> None:
    built = make_registry()
    head = built.repo.head.commit.hexsha
    report = run(built.root, as_of=date(2027, 8, 29))  # the window's last day
    assert not report.failed
    assert [m.phase for m in report.plan.markets] == ["waiting", "waiting"]
    assert read_tags(built.repo) == {}
    assert not (built.root / "resolutions").exists() and not (built.root / ".claims").exists()
    assert built.repo.head.commit.hexsha == head


def test_a_tag_on_another_commit_is_never_moved(make_registry: RegistryFactory) -> None:
    built = make_registry()
    built.repo.create_tag(TAG, ref="HEAD~1", message="a maintainer's")
    report = run(built.root)
    assert report.failed
    assert [m.phase for m in report.plan.markets] == ["blocked", "blocked"]
    assert "never moves a tag" in report.render()
    assert read_tags(built.repo)[TAG].commit == built.repo.commit("HEAD~1").hexsha
    assert not (built.root / "resolutions").exists()


def test_dry_run_changes_nothing(make_registry: RegistryFactory) -> None:
    built = make_registry()
    report = run(built.root, dry_run=True)
    text = report.render()
    assert (
        "market 3 (snapshot-2027-06-30): close" in text and "- tag: tag snapshot-2027-06-30" in text
    )
    assert read_tags(built.repo) == {} and not (built.root / "resolutions").exists()


def test_reopen_moves_the_record_aside_and_resolves_again(make_registry: RegistryFactory) -> None:
    built = make_registry()
    run(built.root)
    report = run(built.root, reopen=3, as_of=date(2027, 9, 2))
    assert not report.failed, report.render()
    again = record(built.root)
    assert again["reopened"]["previous_outcome"] == "YES"
    assert (built.root / again["reopened"]["previous"]).is_file()
    assert again["as_of"] == "2027-09-02"
    assert list(read_tags(built.repo)) == [TAG]


# ---- pushing to origin ------------------------------------------------------------------------


def test_tag_and_record_are_pushed_to_origin(make_registry: RegistryFactory, tmp_path) -> None:
    built = make_registry()
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True)
    built.repo.create_remote("origin", str(origin))
    built.repo.git.push("origin", "main")
    assert not run(built.root).failed
    remote = git.Repo(origin)
    assert remote.tags[0].name == TAG and remote.tags[0].tag is not None  # annotated
    assert remote.commit("main").hexsha == built.repo.commit("main").hexsha
    assert "resolutions/market-03.yaml" in [b.path for b in remote.commit("main").tree.traverse()]


def test_a_rejected_push_is_an_error(make_registry: RegistryFactory, tmp_path) -> None:
    built = make_registry()
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True)
    built.repo.create_remote("origin", str(origin))
    built.repo.git.push("origin", "main")
    other = git.Repo.clone_from(str(origin), tmp_path / "other")
    with other.git.custom_environment(GIT_COMMITTER_DATE="2027-08-30T13:00:00Z"):
        other.create_tag(TAG, ref=built.repo.commit("HEAD~1").hexsha, message="someone else's")
    other.git.push("origin", TAG)
    report = run(built.root)
    assert report.failed
    assert "never moves a tag" in report.render()


# ---- GitHub issues ----------------------------------------------------------------------------


def test_issues_on_github_once(make_registry: RegistryFactory, fakehub) -> None:
    from bot.edges.github.gateway import Retry, connect

    built = make_registry()
    token = job_token("close-windows.yml", "close")  # the close job's permissions
    port = connect(token, "acme/registry", fakehub.base_url, Retry(sleep=lambda _: None), False)
    assert not run(built.root, issues=GitHubIssues(port), as_of=LATE).failed
    assert not run(built.root, issues=GitHubIssues(port), as_of=date(2027, 10, 2)).failed
    titles = sorted((i.title, tuple(i.labels)) for i in fakehub.repo.issues.values())
    assert titles == [
        ("Market 3 annulled: snapshot-2027-06-30 and its archive copy are missing", ("annulled",)),
        ("Market 5 annulled: snapshot-2027-06-30 and its archive copy are missing", ("annulled",)),
    ]


# ---- the command ------------------------------------------------------------------------------


def test_cli_dry_run_and_apply(make_registry: RegistryFactory, run_claims, monkeypatch) -> None:
    import bot.faces.cli

    built = make_registry()
    monkeypatch.delenv("ZENODO_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setattr(bot.faces.cli, "_now", at(CLOSED))
    result = run_claims(
        "close-windows", "--registry", built.root, "--dry-run", "--as-of", "2027-09-02"
    )
    assert result.code == 0 and "close-windows plan as of 2027-09-02" in result.out
    refused = run_claims("close-windows", "--registry", built.root, "--as-of", "2027-09-02")
    assert refused.code == 2 and "only for --dry-run" in refused.err
    applied = run_claims("close-windows", "--registry", built.root)
    assert applied.code == 0, applied.out + applied.err
    assert record(built.root)["outcome"] == "YES"
    resolved = run_claims("resolve", "--registry", built.root, "--as-of", "2027-09-01")
    (three,) = [m for m in resolved.report["markets"] if m["market"] == 3]
    assert three["snapshot"]["archive_state"] == "ok" and three["snapshot"]["tag_state"] == "ok"
    bad = run_claims("close-windows", "--registry", built.root, "--archive", "ftp:x")
    assert bad.code == 2 and "expected zenodo or local:DIR" in bad.err


def test_cli_outside_git_is_an_environment_error(tmp_path, run_claims, monkeypatch) -> None:
    from tests.support import RULES

    (tmp_path / "shared-rules").mkdir()
    (tmp_path / "shared-rules/common-v1.yaml").write_bytes(RULES)
    result = run_claims("close-windows", "--registry", tmp_path, "--dry-run")
    assert result.code == 2 and "git repository" in result.err
    assert "Traceback" not in result.err


def test_an_unreadable_record_blocks_its_market_without_a_traceback(
    make_registry: RegistryFactory, run_claims, monkeypatch
) -> None:
    import bot.faces.cli

    built = make_registry()
    monkeypatch.delenv("ZENODO_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setattr(bot.faces.cli, "_now", at(CLOSED))
    (built.root / "resolutions").mkdir()
    (built.root / "resolutions/market-03.yaml").write_text("outcome: [YES\n")
    result = run_claims("close-windows", "--registry", built.root)
    assert result.code == 2 and "Traceback" not in result.err
    assert "market 3 blocked: resolutions/market-03.yaml cannot be read" in result.out
    assert record(built.root, 5)["outcome"] == "OTHER"  # the other market is closed as usual

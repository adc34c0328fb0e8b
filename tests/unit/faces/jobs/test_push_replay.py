"""`Git.push_branch` when origin's branch moved after the job's checkout: the job's own record
commits are replayed onto it and pushed again, a bounded number of times; anything else
(another commit in the checkout, a conflict on a record file, a refusal that is not a moved
branch) is an error that leaves the branch as it was."""

from __future__ import annotations

from datetime import UTC, datetime
from pathlib import Path

import git
import pytest

from bot.faces.jobs.gitops import PUSH_TRIES, Git
from bot.vocab.errors import ClaimsError
from tests.unit.gitrepo import init_repo

MOMENT = datetime(2027, 9, 1, 13, tzinfo=UTC)


def _setup(tmp_path: Path) -> tuple[git.Repo, Path, git.Repo]:
    """The job's checkout, its bare origin, and another writer's clone."""
    repo = init_repo(tmp_path / "registry")
    (tmp_path / "registry" / "README.md").write_text("registry\n")
    repo.index.add(["README.md"])
    repo.index.commit("start")
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True)
    repo.create_remote("origin", str(origin))
    repo.git.push("origin", "main")
    other = git.Repo.clone_from(str(origin), tmp_path / "other", branch="main")
    return repo, origin, other


def _write(repo: git.Repo, path: str, text: str) -> None:
    target = Path(repo.working_dir) / path
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(text)


def _merge(other: git.Repo, name: str) -> str:
    other.git.pull("--ff-only", "origin", "main")
    _write(other, name, f"{name}\n")
    other.git.add(name)
    other.git.commit("-m", f"merge {name}")
    other.git.push("origin", "main")
    return str(other.head.commit.hexsha)


def _record(job: Git, market: int) -> str:
    path = f"resolutions/market-{market:02d}.yaml"
    _write(job.repo, path, f"market: {market}\n")
    return job.commit([path], f"resolutions: market {market} resolved YES", MOMENT)


def test_the_records_are_replayed_onto_a_moved_branch_and_pushed(tmp_path: Path) -> None:
    repo, origin, other = _setup(tmp_path)
    job = Git(repo, "main")
    _record(job, 3)
    merged = _merge(other, "LATE.md")
    assert job.push_branch(MOMENT) == 1
    remote = git.Repo(origin)
    assert remote.commit("main").hexsha == repo.commit("main").hexsha
    assert remote.commit("main").parents[0].hexsha == merged  # first-parent: the merge
    tip = remote.commit("main")
    assert tip.committer.email == "41898282+github-actions[bot]@users.noreply.github.com"
    assert tip.committed_datetime == MOMENT
    assert (tip.tree / "resolutions/market-03.yaml").data_stream.read() == b"market: 3\n"


def test_a_branch_that_keeps_moving_is_retried_a_bounded_number_of_times(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    repo, _, other = _setup(tmp_path)
    job = Git(repo, "main")
    _record(job, 3)
    pushes: list[str] = []
    push = Git._push

    def racing(self: Git, refspec: str) -> None:
        pushes.append(refspec)
        _merge(other, f"RACE-{len(pushes)}.md")  # a merge lands just before every push
        push(self, refspec)

    monkeypatch.setattr(Git, "_push", racing)
    with pytest.raises(ClaimsError, match="kept moving"):
        job.push_branch(MOMENT)
    assert len(pushes) == PUSH_TRIES


def test_a_commit_not_the_jobs_is_never_replayed(tmp_path: Path) -> None:
    repo, _, other = _setup(tmp_path)
    job = Git(repo, "main")
    _write(repo, "NOTES.md", "someone's\n")
    repo.git.add("NOTES.md")
    repo.git.commit("-m", "a commit in the job's checkout")
    _record(job, 3)
    _merge(other, "LATE.md")
    before = repo.commit("main").hexsha
    with pytest.raises(ClaimsError, match="not the job's records"):
        job.push_branch(MOMENT)
    assert repo.commit("main").hexsha == before


def test_a_record_changed_on_origin_is_a_conflict_and_nothing_moves(tmp_path: Path) -> None:
    repo, origin, other = _setup(tmp_path)
    job = Git(repo, "main")
    _record(job, 3)
    _write(other, "resolutions/market-03.yaml", "market: 3\noutcome: NO\n")
    _merge(other, "resolutions/market-03.yaml")
    before = repo.commit("main").hexsha
    with pytest.raises(ClaimsError, match="cannot be replayed"):
        job.push_branch(MOMENT)
    assert repo.commit("main").hexsha == before
    assert not (Path(repo.git_dir) / "rebase-merge").exists()
    assert git.Repo(origin).commit("main").hexsha != before

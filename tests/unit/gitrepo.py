"""Small real git repositories for unit tests, built with GitPython at fixed dates."""

from __future__ import annotations

from collections.abc import Mapping
from datetime import UTC, datetime
from pathlib import Path

import git

from bot.faces.demo.git_registry import WEB_FLOW_COMMITTER

__all__ = ["at", "commit", "init_repo", "merge", "stamp"]


def at(day: int, month: int = 1, hour: int = 12) -> datetime:
    """A moment in 2027, UTC."""
    return datetime(2027, month, day, hour, tzinfo=UTC)


def stamp(moment: datetime) -> str:
    """`moment` as git's GIT_*_DATE wants it."""
    return moment.isoformat()


def init_repo(root: Path) -> git.Repo:
    """An empty repository at `root` on branch main, with its own identity and no signing."""
    root.mkdir(parents=True, exist_ok=True)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Unit Test")
        config.set_value("user", "email", "unit@tests.invalid")
        config.set_value("commit", "gpgsign", "false")
        config.set_value("tag", "gpgsign", "false")
        config.set_value("core", "autocrlf", "false")
    return repo


def commit(
    repo: git.Repo,
    message: str,
    when: datetime,
    files: Mapping[str, bytes | None] | None = None,
) -> str:
    """Write `files` (None deletes), commit everything at `when` (author and committer)."""
    root = Path(repo.working_tree_dir or ".")
    for path, content in (files or {}).items():
        target = root / path
        if content is None:
            repo.git.rm("-q", "--", path)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        repo.git.add("--", path)
    with repo.git.custom_environment(GIT_AUTHOR_DATE=stamp(when), GIT_COMMITTER_DATE=stamp(when)):
        repo.git.commit("--allow-empty", "-q", "-m", message)
    return repo.head.commit.hexsha


def merge(repo: git.Repo, branch: str, when: datetime, fast_forward: bool = False) -> str:
    """Merge `branch` into the checked-out branch: a merge commit at `when` committed by
    GitHub's web flow (as GitHub merges a pull request), or a fast-forward."""
    if fast_forward:
        repo.git.merge("--ff-only", "-q", branch)
    else:
        with repo.git.custom_environment(
            GIT_AUTHOR_DATE=stamp(when), GIT_COMMITTER_DATE=stamp(when), **WEB_FLOW_COMMITTER
        ):
            repo.git.merge("--no-ff", "-q", "-m", f"Merge pull request from {branch}", branch)
    return repo.head.commit.hexsha

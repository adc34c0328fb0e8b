"""Build a real git registry from dated steps: commits on main, and pull requests merged later.

Used by `claims demo` and by the tests, so both exercise freeze order against real history.
Each step is a commit at a fixed date; a step with `merged_at` is a pull request: its commit is
made on a branch off main and merged with a merge commit at `merged_at`, as GitHub does
(committed by GitHub's web flow). A step
with `open_pr` is left on its branch, checked out, as a pull request under review. A step with
`tag` tags main's current commit with an annotated tag whose tagger date is `at`, as the
scheduled snapshot does (a snapshot counts only by its tagger date: docs/spec.md §5).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import git

from bot.vocab.commits import WEB_FLOW_EMAIL, WEB_FLOW_NAME
from bot.vocab.timestamps import format_timestamp

__all__ = ["WEB_FLOW_COMMITTER", "Step", "build_git_registry"]

# The committer GitHub writes on the merge (or squash) commits of pull requests it merges.
WEB_FLOW_COMMITTER = {"GIT_COMMITTER_NAME": WEB_FLOW_NAME, "GIT_COMMITTER_EMAIL": WEB_FLOW_EMAIL}


@dataclass(frozen=True)
class Step:
    """One commit: files to write (None deletes), when, and how it reaches main."""

    message: str
    at: datetime
    files: Mapping[str, bytes | None]
    merged_at: datetime | None = None  # a PR merged into main at this time
    open_pr: str | None = None  # a PR branch left open (checked out) with this name
    tag: str | None = None  # only tag main's current commit, dated `at` (files unused)


def _commit(repo: git.Repo, root: Path, step: Step) -> None:
    for path, content in step.files.items():
        target = root / path
        if content is None:
            if target.exists():
                repo.index.remove([path], working_tree=True)
            continue
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
    added = [path for path, content in step.files.items() if content is not None]
    if added:
        repo.git.add("--", *added)
    when = format_timestamp(step.at)
    with repo.git.custom_environment(GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when):
        repo.git.commit("--allow-empty", "-q", "-m", step.message)


def build_git_registry(root: Path, steps: Sequence[Step]) -> git.Repo:
    """Create a git repository at `root` (an empty or new folder) by applying `steps`.

    Returns the repository, with main checked out unless the last step opened a PR.
    """
    root.mkdir(parents=True, exist_ok=True)
    repo = git.Repo.init(root, initial_branch="main")
    with repo.config_writer() as config:
        config.set_value("user", "name", "Registry Demo")
        config.set_value("user", "email", "demo@registry.invalid")
        config.set_value("commit", "gpgsign", "false")
    for number, step in enumerate(steps):
        if step.tag is not None:
            with repo.git.custom_environment(GIT_COMMITTER_DATE=format_timestamp(step.at)):
                repo.create_tag(step.tag, message=step.message)
            continue
        if step.merged_at is None and step.open_pr is None:
            _commit(repo, root, step)
            continue
        branch = step.open_pr or f"pr-{number}"
        repo.git.checkout("-q", "-b", branch)
        _commit(repo, root, step)
        if step.open_pr is not None:
            return repo
        repo.git.checkout("-q", "main")
        when = format_timestamp(step.merged_at or step.at)
        # GitHub writes the merge commit of a pull request as its web flow (committer
        # `GitHub <noreply@github.com>`): the identity an offline check of a freeze asks for.
        with repo.git.custom_environment(
            GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when, **WEB_FLOW_COMMITTER
        ):
            repo.git.merge("--no-ff", "-q", "-m", f"Merge pull request: {step.message}", branch)
    return repo

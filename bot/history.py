"""The registry's git history, read with GitPython: when a freeze landed, what a PR changed.

Freeze order (SPEC 4): a run attempt's freeze.yaml and freeze-cases.jsonl must be on the base
branch (main) with exactly the content being verified, and their time Tf is that of the
first-parent commit on main that introduced this content. On GitHub that commit is the merge
(or squash) commit GitHub wrote when the freeze PR was merged, so its committer date is the
merge time, not a date the filer chose. A fast-forward merge would instead put the filer's own
commit on main, whose dates the filer controls: as a guard, Tf is never taken as earlier than
the committer date of the commit before it on main (docs/running-on-github.md asks for merge
commits only).
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath

import git
from gitdb.exc import BadName  # type: ignore[import-untyped]

from bot.errors import ClaimsError

__all__ = ["Change", "History", "Landing", "open_history"]

_DEFAULT_BASES = ("main", "origin/main")


@dataclass(frozen=True, slots=True)
class Landing:
    """The commit on the base branch that introduced a file's current content (when it landed)."""

    sha: str
    committed_at: datetime
    message: str
    clamped: bool = False  # committed_at was raised to the previous main commit's date
    merge: bool = True  # a merge commit (two parents): written by GitHub when a PR merged


@dataclass(frozen=True, slots=True)
class Change:
    """One path a pull request adds, modifies or deletes (from `git diff --raw`)."""

    path: str  # relative to the registry root, POSIX
    status: str  # A, M, D, T
    mode: str  # the new mode (000000 for a deletion)


def _blob_id(content: bytes, hex_length: int) -> str:
    header = f"blob {len(content)}\0".encode()
    algorithm = hashlib.sha1 if hex_length == 40 else hashlib.sha256
    return algorithm(header + content).hexdigest()


class History:
    """Read-only questions about one git repository and its base branch."""

    def __init__(self, repo: git.Repo, root: Path, base_ref: str) -> None:
        self._repo = repo
        self.base_ref = base_ref
        self._base = repo.commit(base_ref)
        top = Path(repo.working_tree_dir or root).resolve()
        self._prefix = PurePosixPath(root.resolve().relative_to(top).as_posix())

    def _git_path(self, path: str) -> str:
        return str(self._prefix / path) if str(self._prefix) != "." else path

    def landing(self, path: str, content: bytes) -> Landing | str:
        """Where `content` of `path` landed on the base branch, or a sentence saying why not."""
        git_path = self._git_path(path)
        try:
            blob = self._base.tree / git_path
        except KeyError:
            return (
                f"{path} is not on {self.base_ref}: the freeze must be merged to"
                f" {self.base_ref} before any trial runs"
            )
        if blob.type != "blob" or _blob_id(content, len(blob.hexsha)) != blob.hexsha:
            return (
                f"{path} differs from the version on {self.base_ref}: a freeze may not change"
                " after it is merged"
            )
        commits = self._repo.iter_commits(
            self._base, paths=git_path, first_parent=True, max_count=1
        )
        commit = next(iter(commits), None)
        if commit is None:  # pragma: no cover - the blob exists, so some commit added it
            return f"{path}: no commit on {self.base_ref} introduced it"
        committed = commit.committed_datetime.astimezone(UTC)
        clamped = False
        if commit.parents:
            before = commit.parents[0].committed_datetime.astimezone(UTC)
            if before > committed:
                committed, clamped = before, True
        summary = commit.summary
        message = summary if isinstance(summary, str) else summary.decode("utf-8", "replace")
        return Landing(commit.hexsha, committed, message, clamped, len(commit.parents) > 1)

    def content_at(self, path: str, moment: datetime) -> bytes | None:
        """`path` as it stood on the base branch at `moment` (the last first-parent commit
        dated no later), or None when it did not exist then."""
        git_path = self._git_path(path)
        for commit in self._repo.iter_commits(self._base, first_parent=True):
            if commit.committed_datetime.astimezone(UTC) <= moment:
                try:
                    blob = commit.tree / git_path
                except KeyError:
                    return None
                data: bytes = blob.data_stream.read()
                return data
        return None

    def has_tag(self, name: str) -> bool:
        """True when the repository has a tag `name`."""
        return any(tag.name == name for tag in self._repo.tags)

    def changes(self) -> list[Change]:
        """Paths changed between the merge base of the base ref and HEAD (a PR's diff).

        Raises `ClaimsError` when git cannot diff them (no merge base, say).
        """
        try:
            output = self._repo.git.diff(
                "--raw", "-z", "--no-renames", "--no-abbrev", f"{self.base_ref}...HEAD"
            )
        except git.GitCommandError as error:  # e.g. no merge base: unrelated histories
            stderr = " ".join(str(error.stderr).split()).removeprefix("stderr: ").strip("'")
            raise ClaimsError(
                f"cannot list the changes of HEAD against {self.base_ref}: {stderr}",
                "the pull request's branch must share history with the base branch",
            ) from None
        fields = output.split("\0")
        changes = []
        index = 0
        while index + 1 < len(fields):
            meta, path = fields[index], fields[index + 1]
            index += 2
            parts = meta.lstrip(":").split()
            if len(parts) < 5:
                continue
            new_mode, status = parts[1], parts[4][:1]
            relative = PurePosixPath(path)
            if str(self._prefix) != ".":
                try:
                    relative = relative.relative_to(self._prefix)
                except ValueError:
                    relative = PurePosixPath("..") / relative
            changes.append(Change(relative.as_posix(), status, new_mode))
        return changes


def open_history(root: Path, base_ref: str | None) -> History | str:
    """Open the git repository holding `root`, or return why freeze order cannot be read.

    Raises `ClaimsError` when a `base_ref` the operator named does not exist.
    """
    try:
        repo = git.Repo(root, search_parent_directories=True)
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return f"{root} is not in a git repository, so the freeze order cannot be checked"
    if repo.git.rev_parse("--is-shallow-repository").strip() == "true":
        raise ClaimsError(
            f"{repo.working_tree_dir} is a shallow clone: freeze order and filing times need"
            " the whole history of the base branch",
            "fetch it: git fetch --unshallow (in GitHub Actions: actions/checkout with"
            " fetch-depth: 0)",
        )
    candidates = (base_ref,) if base_ref else _DEFAULT_BASES
    for candidate in candidates:
        try:
            repo.commit(candidate)
        except (BadName, ValueError, git.GitCommandError):
            continue
        return History(repo, root, candidate)
    if base_ref:
        raise ClaimsError(
            f"base ref {base_ref!r} does not exist in {repo.working_tree_dir}",
            "fetch it first (e.g. git fetch origin main) or name another with --base-ref",
        )
    return (
        f"neither {' nor '.join(_DEFAULT_BASES)} exists in the repository, so the freeze"
        " order cannot be checked; name the base branch with --base-ref"
    )

"""The registry's git history: when a freeze landed, what a PR changed, which tags exist.

Freeze order (docs/spec.md §4): a run attempt's freeze.yaml and freeze-cases.jsonl must be on the
base branch (main) with exactly the content being verified, and their time Tf is that of the
first-parent commit on main that introduced this content. On GitHub that commit is the merge
(or squash) commit GitHub wrote when the freeze PR was merged, so its committer date is the
merge time, not a date the filer chose. A fast-forward merge would instead put the filer's own
commit on main, whose dates the filer controls: as a guard, Tf is never taken as earlier than
the committer date of the commit before it on main (docs/running-on-github.md asks for merge
commits only).

Every question is answered from one index built per run: one `git log --first-parent --raw`
pass over the base branch (which blob each commit gave each path) and one `git for-each-ref`
over the tags (tagger dates and targets). Files are compared by git blob id, which the trees
give while they scan, so no file is read twice to ask git about it.

`History` is the protocol; `GitHistory` reads a repository, `NoHistory(reason)` stands in
where there is none (every answer says why), and `MemoryHistory` is an in-memory fake for tests.
"""

from __future__ import annotations

import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path, PurePosixPath
from typing import Protocol

import git
from gitdb.exc import BadName  # type: ignore[import-untyped]

from bot.edges.tree import Tree, TreeError, read_limited
from bot.vocab.commits import (
    LFS_POINTER,
    WEB_FLOW_EMAIL,
    WEB_FLOW_NAME,
    Change,
    Landing,
    Tag,
    blob_id,
)
from bot.vocab.errors import ClaimsError, Refusal

__all__ = [
    "WEB_FLOW_EMAIL",
    "WEB_FLOW_NAME",
    "Change",
    "GitHistory",
    "History",
    "Landing",
    "MemoryHistory",
    "MergedHistory",
    "NoHistory",
    "Tag",
    "blob_id",
    "merged_history",
    "open_history",
]

_DEFAULT_BASES = ("main", "origin/main")


def tree_blob(tree: Tree, path: str) -> str | None:
    """The git blob id of the regular file `path` of `tree` (from git, or hashed from a working
    tree); None when it is no such file or cannot be read."""
    entry = tree.entry(path)
    if entry is None or entry.kind != "file":
        return None
    if entry.blob_id is not None:
        return entry.blob_id
    try:
        return blob_id(read_limited(tree, path, 1 << 31))
    except TreeError:
        return None


class History(Protocol):
    """Read-only questions about the base branch of the registry's repository."""

    @property
    def base_ref(self) -> str | None:
        """The branch (or commit) whose first-parent history this is; None without one."""
        ...

    @property
    def unavailable(self) -> str | None:
        """Why there is no history to ask (a sentence), or None when there is."""
        ...

    def landing(self, path: str, blob: str) -> Landing | str:
        """Where blob `blob` of `path` landed on the base branch, or a sentence saying why not."""
        ...

    def content_at(self, path: str, moment: datetime, limit: int) -> bytes | None:
        """`path` as it stood on the base branch at `moment` (the last first-parent commit
        dated no later), at most `limit` bytes; None when it did not exist then."""
        ...

    def content_at_tip(self, path: str, limit: int) -> bytes | None:
        """`path` as it stands at the base branch's tip (its newest commit), at most `limit`
        bytes; None when it does not exist there."""
        ...

    def tag(self, name: str) -> Tag | None:
        """The tag `name`, or None."""
        ...

    def on_branch(self, commit: str) -> bool:
        """True when `commit` is on the base branch's first-parent history."""
        ...

    def close(self) -> None:
        """Stop any git process the history keeps (GitPython's persistent cat-file)."""
        ...


@dataclass(slots=True)
class _Commit:
    sha: str
    committed_at: datetime  # the committer date as written
    parents: int
    effective_at: datetime | None = None  # no earlier than any older first-parent commit
    committer_name: str = ""
    committer_email: str = ""


@dataclass
class _Index:
    """First-parent commits, newest first, and for each path its changes: (commit, blob)."""

    commits: list[_Commit] = field(default_factory=list)
    changes: dict[str, list[tuple[int, str | None]]] = field(default_factory=dict)


class GitHistory:
    """The first-parent history of a base branch, indexed once."""

    def __init__(self, repo: git.Repo, base_ref: str, prefix: str = "") -> None:
        """`prefix`: the registry's folder inside the repository ("" at its top)."""
        self.repo = repo
        self._base_ref = base_ref
        self.base = repo.commit(base_ref).hexsha
        self._prefix = prefix.strip("/")
        self.object_format = "sha256" if len(self.base) == 64 else "sha1"
        self._index = self._read_log()
        self._tags: dict[str, Tag] | None = None
        self._branch: frozenset[str] | None = None
        self._summaries: dict[str, str] = {}

    @property
    def base_ref(self) -> str | None:
        return self._base_ref

    @property
    def unavailable(self) -> str | None:
        return None

    @property
    def prefix(self) -> str:
        """The registry's folder inside the repository ("" at its top)."""
        return self._prefix

    def _git_path(self, path: str) -> str:
        return f"{self._prefix}/{path}" if self._prefix else path

    def _read_log(self) -> _Index:
        """1 pass: `git log --first-parent --raw -z` from the base, newest first.

        The output is read as NUL-separated tokens in order: a commit header (our format,
        starting with a NUL and "commit "), then pairs of a raw diff line and its path. A path
        is always taken right after its diff line, so no byte a filer can put in a path or a
        commit subject is ever read as a header (subjects are not in the output at all).
        """
        output: str = self.repo.git.log(
            "--first-parent",
            "--diff-merges=first-parent",
            "--root",
            "--raw",
            "--no-renames",
            "--no-abbrev",
            "-z",
            # %ct: seconds since the epoch. A commit's own offset (which git lets reach ±99:59,
            # more than Python's timezones allow) plays no part in when it was made.
            # %cn, %ce: the committer's name and email, each its own NUL-separated token read
            # right after the header, so nothing in them is ever read as a header or a path.
            "--format=%x00commit %H %ct %P%x00%cn%x00%ce",
            self.base,
            strip_newline_in_stdout=False,
        )
        index = _Index()
        tokens = iter(output.split("\0"))
        for token in tokens:
            token = token.lstrip("\n")
            if token.startswith("commit "):
                sha, committed, *parents = token.split()[1:]
                name, email = next(tokens, ""), next(tokens, "")
                # A date past year 9999 is no date: as late as can be (fail closed).
                moment = epoch(committed) or datetime.max.replace(tzinfo=UTC)
                index.commits.append(_Commit(sha, moment, len(parents), None, name, email))
            elif token.startswith(":"):
                path = next(tokens, "")
                parts = token[1:].split()
                if len(parts) < 5 or not index.commits:
                    continue
                new_mode, new_blob, status = parts[1], parts[3], parts[4][:1]
                blob = None if status == "D" or new_mode == "000000" else new_blob
                index.changes.setdefault(path, []).append((len(index.commits) - 1, blob))
        # A commit's date as evidence is never earlier than any commit before it on the
        # branch: a running maximum from the oldest, so backdated commits (one or several,
        # fast-forwarded onto main) cannot move a freeze or a filing time into the past.
        latest: datetime | None = None
        for commit in reversed(index.commits):
            latest = commit.committed_at if latest is None else max(latest, commit.committed_at)
            commit.effective_at = latest
        return index

    @property
    def tip_at(self) -> datetime | None:
        """The base branch's newest commit's date as evidence (never earlier than an older
        commit's): the earliest date a commit added on top of it can count as (None: empty)."""
        commits = self._index.commits
        return commits[0].effective_at if commits else None

    def on_branch(self, commit: str) -> bool:
        if self._branch is None:
            self._branch = frozenset(commit.sha for commit in self._index.commits)
        return commit in self._branch

    def close(self) -> None:
        self.repo.close()

    def at(self, commit: str) -> GitHistory:
        """The history as it stood at `commit` (e.g. a snapshot tag's target)."""
        history = GitHistory(self.repo, commit, self._prefix)
        history._tags = self._tags
        return history

    def landing(self, path: str, blob: str) -> Landing | str:
        changes = self._index.changes.get(self._git_path(path), [])
        base = self._base_ref
        if not changes or changes[0][1] is None:
            return (
                f"{path} is not on {base}: the freeze must be merged to {base}"
                " before any trial runs"
            )
        position, current = changes[0]
        if current != blob:
            return (
                f"{path} differs from the version on {base}: a freeze may not change"
                " after it is merged"
            )
        commit = self._index.commits[position]
        committed = commit.effective_at or commit.committed_at
        clamped = committed > commit.committed_at
        return Landing(
            commit.sha,
            committed,
            self._summary(commit.sha),
            clamped,
            commit.parents > 1,
            commit.committer_name,
            commit.committer_email,
            commit.committed_at,
        )

    def _summary(self, sha: str) -> str:
        """A commit's subject line, read once per commit (an attempt's files mostly land
        in one or two commits, and the filing time asks for every file)."""
        if sha not in self._summaries:
            summary = self.repo.commit(sha).summary
            text = summary if isinstance(summary, str) else summary.decode("utf-8", "replace")
            self._summaries[sha] = text
        return self._summaries[sha]

    def content_at(self, path: str, moment: datetime, limit: int) -> bytes | None:
        commits = self._index.commits
        position = next(
            (
                i
                for i, commit in enumerate(commits)
                if commit.effective_at is not None and commit.effective_at <= moment
            ),
            None,
        )
        if position is None:
            return None
        changes = self._index.changes.get(self._git_path(path), [])
        blob = next((blob for at, blob in changes if at >= position), None)
        if blob is None:
            return None
        data: bytes = self.repo.odb.stream(bytes.fromhex(blob)).read(limit)
        return data

    def commit_at(self, moment: datetime) -> str | None:
        """The last first-parent commit of the base branch dated no later than `moment` (by
        its effective date: never earlier than an older commit's, so a backdated commit cannot
        slip under a deadline), or None when the branch had none by then."""
        return next(
            (
                commit.sha
                for commit in self._index.commits
                if commit.effective_at is not None and commit.effective_at <= moment
            ),
            None,
        )

    def content_at_tip(self, path: str, limit: int) -> bytes | None:
        changes = self._index.changes.get(self._git_path(path), [])
        blob = changes[0][1] if changes else None
        if blob is None:
            return None
        data: bytes = self.repo.odb.stream(bytes.fromhex(blob)).read(limit)
        return data

    def tag(self, name: str) -> Tag | None:
        if self._tags is None:
            self._tags = read_tags(self.repo)
        return self._tags.get(name)

    def changes(self, head: str = "HEAD") -> list[Change]:
        """Paths changed between the merge base of the base ref and `head` (a PR's diff).

        Raises `ClaimsError` when git cannot diff them (no merge base, say).
        """
        try:
            output = self.repo.git.diff(
                "--raw", "-z", "--no-renames", "--no-abbrev", f"{self.base}...{head}"
            )
        except git.GitCommandError as error:  # e.g. no merge base: unrelated histories
            stderr = " ".join(str(error.stderr).split()).removeprefix("stderr: ").strip("'")
            raise ClaimsError(
                f"cannot list the changes of {head} against {self._base_ref}: {stderr}",
                "the pull request's branch must share history with the base branch",
            ) from None
        fields = output.split("\0")
        changes = []
        for meta, path in zip(fields[0::2], fields[1::2], strict=False):
            parts = meta.lstrip(":").split()
            if len(parts) < 5:
                continue
            new_mode, new_blob, status = parts[1], parts[3], parts[4][:1]
            deleted = status == "D" or new_mode == "000000"
            start = b""
            if not deleted and new_mode in ("100644", "100755"):
                start = self._start(new_blob)
            changes.append(
                Change(self._relative(path), status, new_mode, "" if deleted else new_blob, start)
            )
        return changes

    def _relative(self, path: str) -> str:
        """A repository path relative to the registry's folder (`../` outside it)."""
        relative = PurePosixPath(path)
        if self._prefix:
            try:
                relative = relative.relative_to(self._prefix)
            except ValueError:
                relative = PurePosixPath("..") / relative
        return relative.as_posix()

    def _start(self, blob: str) -> bytes:
        """A blob's first bytes (enough to recognise a Git LFS pointer)."""
        try:
            data: bytes = self.repo.odb.stream(bytes.fromhex(blob)).read(len(LFS_POINTER))
        except (ValueError, BadName, git.GitCommandError):
            return b""
        return data

    def tree_paths(self, commit: str) -> list[str]:
        """Every file path in `commit`'s tree below the registry's folder (for name
        collisions), relative to it; non-UTF-8 bytes kept as surrogate escapes."""
        arguments = ["-r", "-z", "--name-only", "--full-tree", commit]
        if self._prefix:
            arguments += ["--", f"{self._prefix}/"]
        output: str = self.repo.git.ls_tree(*arguments, strip_newline_in_stdout=False)
        return [self._relative(path) for path in output.split("\0") if path]

    def commits_touching(self, pattern: re.Pattern[str]) -> list[str]:
        """The first-parent commits on the base branch (newest first) that added or changed
        a file whose registry path matches `pattern` (e.g. an attempt slug's folders)."""
        positions = {
            position
            for path, changes in self._index.changes.items()
            if pattern.match(self._relative(path))
            for position, blob in changes
            if blob is not None
        }
        return [self._index.commits[position].sha for position in sorted(positions)]


def epoch(text: str) -> datetime | None:
    """Seconds since the epoch as an aware UTC time; None when it is none or out of range."""
    try:
        return datetime.fromtimestamp(int(text), UTC)
    except (ValueError, OverflowError, OSError):
        return None


def read_tags(repo: git.Repo) -> dict[str, Tag]:
    """Every tag, once: annotated tags with their tagger date, lightweight ones without."""
    output: str = repo.git.for_each_ref(
        "--format=%(refname:strip=2)%00%(objecttype)%00%(taggerdate:unix)"
        "%00%(*objectname)%00%(objectname)%00%(*objecttype)",
        "refs/tags",
    )
    tags = {}
    for line in output.splitlines():
        name, kind, tagged, peeled, target, peeled_kind = line.split("\0")
        annotated = kind == "tag"
        if (peeled_kind if annotated else kind) != "commit":
            continue  # a tag of a tree or a blob snapshots no registry
        # Seconds since the epoch: a tagger offset Python cannot represent changes nothing.
        moment = epoch(tagged) if annotated else None
        tags[name] = Tag(name, peeled if annotated else target, annotated, moment)
    return tags


@dataclass(frozen=True)
class MergedHistory:
    """The base branch as it will stand once GitHub merges a pull request at `merged_at`.

    A pull request's verdict is the one main gives after the merge (docs/spec-notes.md, "A
    green pull request stays green"): every content the pull request adds or changes (but
    what the base branch's tip already holds) lands in the merge commit GitHub's web flow
    writes, dated when it merges. That moment is not known
    before the merge; the run judges it at `merged_at`, its own clock (never earlier than the
    base branch's newest commit, as a commit's date on main is read), so each check that
    depends on when evidence landed (freeze order, trials in the future, the filing window) is
    the check main makes if the merge happens then. Everything else is the base branch's.
    """

    base: History
    changed: Mapping[str, str | None]  # registry path -> the PR's new blob (None: deleted)
    merged_at: datetime
    # The run's clock. merged_at is later when the head commit or the base branch's newest
    # commit is dated after it: a merge before merged_at would land the evidence earlier
    # (the notice merge-after-clock).
    clock: datetime

    @property
    def base_ref(self) -> str | None:
        return self.base.base_ref

    @property
    def unavailable(self) -> str | None:
        return self.base.unavailable

    def landing(self, path: str, blob: str) -> Landing | str:
        if path not in self.changed:
            return self.base.landing(path, blob)
        new = self.changed[path]
        if new is None or new != blob:
            # Deleted by the pull request, or not the content it merges: the base's answer.
            return self.base.landing(path, blob)
        on_base = self.base.landing(path, blob)
        if isinstance(on_base, Landing):
            # The base branch's tip already holds this content (a branch started before it
            # merged "adds" it again): the merge changes nothing there, so it keeps its date.
            return on_base
        return Landing(
            "",
            self.merged_at,
            "the pull request's merge",
            self.merged_at > self.clock,
            committed_as_written=self.clock,
            pending=True,
        )

    def content_at(self, path: str, moment: datetime, limit: int) -> bytes | None:
        return self.base.content_at(path, moment, limit)

    def content_at_tip(self, path: str, limit: int) -> bytes | None:
        return self.base.content_at_tip(path, limit)

    def tag(self, name: str) -> Tag | None:
        return self.base.tag(name)

    def on_branch(self, commit: str) -> bool:
        return self.base.on_branch(commit)

    def close(self) -> None:
        self.base.close()


def merged_history(
    base: History,
    changes: Sequence[Change],
    clock: datetime,
    head_at: datetime | None = None,
) -> MergedHistory:
    """`base` as it will stand when GitHub merges the pull request of `changes` at `clock` (the
    run's own time). The moment is never earlier than the head commit's date `head_at` (GitHub
    cannot merge a commit before it is made; a head dated after the clock is reported, since its
    author wrote that date), nor than the base branch's newest commit (a commit's date on main
    is read as no earlier than the commits before it)."""
    tip = base.tip_at if isinstance(base, GitHistory) else None
    moment = max(d for d in (clock, head_at, tip) if d is not None)
    changed = {change.path: change.blob or None for change in changes}
    return MergedHistory(base, changed, moment, clock)


@dataclass(frozen=True, slots=True)
class NoHistory:
    """No history to ask: every answer is `reason` (the null object)."""

    reason: str

    @property
    def base_ref(self) -> str | None:
        return None

    @property
    def unavailable(self) -> str | None:
        return self.reason

    def landing(self, path: str, blob: str) -> Landing | str:
        return self.reason

    def content_at(self, path: str, moment: datetime, limit: int) -> bytes | None:
        return None

    def content_at_tip(self, path: str, limit: int) -> bytes | None:
        return None

    def tag(self, name: str) -> Tag | None:
        return None

    def on_branch(self, commit: str) -> bool:
        return False

    def close(self) -> None:
        pass


@dataclass
class MemoryHistory:
    """An in-memory history for tests: landings by (path, blob), contents by path, tags."""

    landings: Mapping[tuple[str, str], Landing] = field(default_factory=dict)
    contents: Mapping[str, Sequence[tuple[datetime, bytes]]] = field(default_factory=dict)
    tags: Mapping[str, Tag] = field(default_factory=dict)
    branch: frozenset[str] | None = None  # the first-parent commits; None: every commit
    base_ref: str | None = "main"
    unavailable: str | None = None

    def landing(self, path: str, blob: str) -> Landing | str:
        found = self.landings.get((path, blob))
        return found if found is not None else f"{path} is not on {self.base_ref}"

    def content_at(self, path: str, moment: datetime, limit: int) -> bytes | None:
        versions = [data for at, data in self.contents.get(path, ()) if at <= moment]
        return versions[-1][:limit] if versions else None

    def content_at_tip(self, path: str, limit: int) -> bytes | None:
        versions = self.contents.get(path, ())
        return versions[-1][1][:limit] if versions else None

    def tag(self, name: str) -> Tag | None:
        return self.tags.get(name)

    def on_branch(self, commit: str) -> bool:
        return self.branch is None or commit in self.branch

    def close(self) -> None:
        pass


def open_repo(root: Path) -> tuple[git.Repo, str] | Refusal:
    """The git repository holding `root` and the registry's folder inside it, or why not.

    Raises `ClaimsError` for a shallow clone or a repository git refuses to read.
    """
    try:
        repo = git.Repo(root, search_parent_directories=True)
        shallow = repo.git.rev_parse("--is-shallow-repository").strip() == "true"
    except (git.InvalidGitRepositoryError, git.NoSuchPathError):
        return Refusal(f"{root} is not in a git repository, so the freeze order cannot be checked")
    except git.GitCommandError as error:  # e.g. "detected dubious ownership"
        stderr = " ".join(str(error.stderr).split()).removeprefix("stderr: ").strip("'")
        raise ClaimsError(
            f"git cannot read the repository at {root}: {stderr}",
            "run as the repository's owner, or mark it safe:"
            " git config --global --add safe.directory <path>",
        ) from None
    if repo.git.rev_parse("--show-object-format").strip() != "sha1":
        repo.close()
        return Refusal(
            f"{root} is a SHA-256 git repository, which the bot does not read yet, so the"
            " freeze order cannot be checked"
        )
    if shallow:
        repo.close()
        raise ClaimsError(
            f"{repo.working_tree_dir} is a shallow clone: freeze order and filing times need"
            " the whole history of the base branch",
            "fetch it: git fetch --unshallow (in GitHub Actions: actions/checkout with"
            " fetch-depth: 0)",
        )
    top = Path(repo.working_tree_dir or root).resolve()
    prefix = root.resolve().relative_to(top).as_posix()
    return repo, "" if prefix == "." else prefix


def open_history(root: Path, base_ref: str | None) -> GitHistory | NoHistory:
    """The history of `base_ref` (default: main, else origin/main) of the repo holding `root`.

    Returns `NoHistory` saying why when there is no repository or no default base branch.
    Raises `ClaimsError` when a `base_ref` the operator named does not exist.
    """
    opened = open_repo(root)
    if isinstance(opened, Refusal):
        return NoHistory(opened.reason)
    repo, prefix = opened
    for candidate in (base_ref,) if base_ref else _DEFAULT_BASES:
        try:
            repo.commit(candidate)
        except (BadName, ValueError, git.GitCommandError):
            continue
        return GitHistory(repo, candidate, prefix)
    repo.close()
    if base_ref:
        raise ClaimsError(
            f"base ref {base_ref!r} does not exist in {repo.working_tree_dir}",
            "fetch it first (e.g. git fetch origin main) or name another with --base-ref",
        )
    return NoHistory(
        f"neither {' nor '.join(_DEFAULT_BASES)} exists in the repository, so the freeze"
        " order cannot be checked; name the base branch with --base-ref"
    )

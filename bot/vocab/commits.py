"""What git history says about the registry's files, as plain values: when content landed
(`Landing`), what a pull request changes (`Change`), tags (`Tag`), and git's blob ids.

The edges read these from git (`bot.edges.history`); the rules judge them and never open a
repository.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass
from datetime import datetime

__all__ = [
    "LFS_POINTER",
    "WEB_FLOW_EMAIL",
    "WEB_FLOW_NAME",
    "Change",
    "Landing",
    "Tag",
    "blob_id",
]

# The committer GitHub writes on merge and squash commits it makes for a pull request.
WEB_FLOW_NAME = "GitHub"
WEB_FLOW_EMAIL = "noreply@github.com"
# What a Git LFS pointer file starts with (https://github.com/git-lfs/git-lfs/blob/main/docs/spec.md).
LFS_POINTER = b"version https://git-lfs.github.com/spec/"


def blob_id(content: bytes, object_format: str = "sha1") -> str:
    """git's object id of a blob holding `content` (sha1, or sha256 repositories)."""
    algorithm = hashlib.sha256 if object_format == "sha256" else hashlib.sha1
    return algorithm(f"blob {len(content)}\0".encode() + content).hexdigest()


@dataclass(frozen=True, slots=True)
class Landing:
    """The commit on the base branch that introduced a file's current content (when it landed)."""

    sha: str
    committed_at: datetime
    message: str
    clamped: bool = False  # committed_at was raised to the date of an older commit on main
    merge: bool = True  # a merge commit (two parents)
    # Who wrote the commit (git's committer): GitHub's web flow (`GitHub <noreply@github.com>`)
    # when GitHub merged or squashed a pull request; anyone's name when a filer's own commit
    # was fast-forwarded onto main.
    committer_name: str = WEB_FLOW_NAME
    committer_email: str = WEB_FLOW_EMAIL
    committed_as_written: datetime | None = None  # the committer date before any clamping
    # Not landed yet: this content arrives with the merge of the pull request being verified,
    # a commit GitHub has not written, dated the moment the run judges the merge at
    # (`MergedHistory`). Its `sha` is "": there is no commit to name or ask the API about.
    pending: bool = False

    @property
    def where(self) -> str:
        """The commit, as messages name it: its short sha, or the pull request's merge."""
        return "this pull request's merge" if self.pending else self.sha[:12]

    @property
    def web_flow(self) -> bool:
        """True when GitHub's web flow wrote the commit (a PR merged or squashed on GitHub)."""
        return (self.committer_name, self.committer_email.lower()) == (
            WEB_FLOW_NAME,
            WEB_FLOW_EMAIL,
        )


@dataclass(frozen=True, slots=True)
class Change:
    """One path a pull request adds, modifies or deletes (from `git diff --raw`)."""

    path: str  # relative to the registry root, POSIX (bytes git gives that are not UTF-8
    # are kept as surrogate escapes, so such a path is a finding, never a crash)
    status: str  # A, M, D, T
    mode: str  # the new mode (000000 for a deletion)
    blob: str = ""  # the new blob id ("" for a deletion)
    start: bytes = b""  # the new content's first bytes (enough to tell an LFS pointer)


@dataclass(frozen=True, slots=True)
class Tag:
    """A tag: annotated ones carry the tagger's date; lightweight ones carry no date at all."""

    name: str
    commit: str
    annotated: bool
    tagged_at: datetime | None  # the tagger date; None for a lightweight tag

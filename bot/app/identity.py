"""Who files a pull request, and when a freeze landed, as GitHub says: the pure rules.

No I/O here: `bot/faces/github/facts.py` asks the port (`GitHubPort`) and git, and hands these
functions plain values.

- `Filer`: the PR's author, whether a maintainer (role admin or maintain), whether a
  maintainer approved the PR's current head commit, and for each submitter slug the PR files
  under, its owners: the logins `submitters.yaml` lists for it on the base branch, else the
  authors of the merged pull requests that brought files under `attempts/*/<slug>/` to main;
  a slug never used on main and not listed is free, and its first filer claims it; and the
  account GitHub links the PR's head commit's author to (`head_author`, None when none).
- `check_identity`: `not-submitter` for each slug the author does not own, and for each new
  slug whose head commit GitHub says another account authored (a first filing is opened by
  its commit's author: anyone can push a commit fetched from a public fork and open a PR on
  it before its author does).
- `landing_refusal`: a freeze's landing commit must be the merge (or squash) commit of a merged
  pull request (`merge_commit_sha`), merged within `LANDING_TOLERANCE` of the commit's date.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from bot.vocab.commits import Landing
from bot.vocab.findings import Code, Finding

if TYPE_CHECKING:  # the port's module costs ~5 ms to import; every registry command imports this
    from bot.edges.github.port import PullRequestInfo

__all__ = [
    "LANDING_TOLERANCE",
    "Filer",
    "SlugOwners",
    "check_identity",
    "landing_refusal",
    "slug_of",
]

# How far a merged PR's merged_at may be from its merge commit's committer date (GitHub
# writes both when it merges; they agree to the second in practice).
LANDING_TOLERANCE = timedelta(minutes=10)


@dataclass(frozen=True, slots=True)
class SlugOwners:
    """Who owns a submitter slug, and where that was learnt."""

    logins: tuple[str, ...] = ()
    source: str = "new"  # "submitters.yaml", "merged pull requests", or "new" (unused slug)


@dataclass(frozen=True)
class Filer:
    """What GitHub says about the pull request's author."""

    pr: int
    author: str
    maintainer: bool = False
    approved: bool = False  # a maintainer approved the PR's current head commit
    owners: Mapping[str, SlugOwners] = field(default_factory=dict)  # by slug
    # The account GitHub links the head commit's author email to; None when it links none
    # (or was not asked: no slug of the PR is new).
    head_author: str | None = None


def slug_of(folder: str) -> str | None:
    """The submitter slug of an attempt folder (attempts/market-NN/<slug>/<attempt>)."""
    parts = folder.split("/")
    return parts[2] if len(parts) >= 4 and parts[0] == "attempts" else None


def check_identity(filer: Filer, folders: Sequence[str]) -> list[Finding]:
    """`not-submitter` for each slug of `folders` whose owners do not include the author
    (logins compared case-insensitively, as GitHub does), and for each new slug whose head
    commit GitHub says another account authored. Maintainers file under any slug."""
    if filer.maintainer:
        return []
    findings = []
    first: dict[str, str] = {}
    for folder in sorted(folders):
        slug = slug_of(folder)
        if slug is not None:
            first.setdefault(slug, folder)
    for slug, folder in sorted(first.items()):
        owners = filer.owners.get(slug, SlugOwners())
        if owners.source == "new":
            findings += _first_filing(filer, slug, folder)
            continue
        if filer.author.lower() in {login.lower() for login in owners.logins}:
            continue
        named = ", ".join(owners.logins) or "nobody GitHub knows of"
        findings.append(
            Finding(
                Code.NOT_SUBMITTER,
                f"pull request #{filer.pr} by {filer.author} files under the submitter"
                f" {slug}, which belongs to {named} (from {owners.source}); file under your"
                " own slug, or ask a maintainer to list you in submitters.yaml",
                folder,
            )
        )
    return findings


def _first_filing(filer: Filer, slug: str, folder: str) -> list[Finding]:
    """A new slug is claimed by its first filer, who must be the head commit's author when
    GitHub names one: else anyone who fetched the commit from the author's public fork could
    open a pull request on it first and, merged, own the slug and its evidence. When GitHub
    names no one (an email linked to no account) nothing tells who wrote it: no finding."""
    login = filer.head_author
    if login is None or login.casefold() == filer.author.casefold():
        return []
    return [
        Finding(
            Code.NOT_SUBMITTER,
            f"pull request #{filer.pr} by {filer.author} is the first filing under the new"
            f" submitter {slug}, but GitHub links its head commit's author to {login}: a"
            " first filing under a new slug is opened by the author of its commit: let"
            f" {login} open it, or commit with an email linked to your own GitHub account:"
            " git commit --amend --no-edit --reset-author",
            folder,
        )
    ]


def landing_refusal(
    landing: Landing, pulls: Sequence[PullRequestInfo], base_branch: str | None = None
) -> str | None:
    """None when a pull request merged into `base_branch` (any branch when None) names
    `landing` as its merge (or squash) commit and merged within `LANDING_TOLERANCE` of the
    commit's date; else what the API said. A PR merged into another branch dates the merge
    there, not the commit's arrival on the base branch (a fast-forward later)."""
    committed = landing.committed_as_written or landing.committed_at
    merged = [
        p
        for p in pulls
        if p.merged
        and p.merge_commit_sha == landing.sha
        and (base_branch is None or p.base_branch == base_branch)
    ]
    for pull in merged:
        if pull.merged_at is not None and _near(pull.merged_at, committed):
            return None
    if merged:
        pull = merged[0]
        when = pull.merged_at.isoformat() if pull.merged_at else "no merge time"
        return (
            f"pull request #{pull.number} merged it at {when}, but the commit is dated"
            f" {committed.isoformat()}"
        )
    if pulls:
        numbers = ", ".join(f"#{p.number}" for p in pulls)
        into = f" into {base_branch}" if base_branch is not None else ""
        return f"the API lists {numbers} for it, none merged{into} with it as the merge commit"
    return "the API lists no pull request for it"


def _near(one: datetime, other: datetime) -> bool:
    return abs(one - other) <= LANDING_TOLERANCE

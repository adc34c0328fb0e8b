"""Ask GitHub (through a `GitHubPort`) and git what the identity and landing rules need.

The rules themselves are pure (`bot/app/identity.py`); this module only gathers:
`gather_filer` (the PR's author, maintainer roles, approvals on the head commit, the owners
of each submitter slug the PR files under, and the head commit's GitHub author when a slug is
new) and `landing_confirmer` (for each freeze's landing
commit, the pull requests GitHub lists for it).
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence

from bot.app.identity import Filer, SlugOwners, landing_refusal, slug_of
from bot.edges.github.port import MAINTAINER_ROLES, GitHubPort, PullRequestInfo, Review
from bot.edges.history import GitHistory
from bot.edges.load.yaml_ import load_yaml
from bot.edges.tree import Tree
from bot.rules.evidence.schema import validate
from bot.vocab.commits import Landing
from bot.vocab.config import Limits
from bot.vocab.errors import ClaimsError

__all__ = [
    "SUBMITTERS",
    "gather_filer",
    "landing_confirmer",
    "maintainer_approved",
    "read_submitters",
]

SUBMITTERS = "submitters.yaml"


def read_submitters(base: Tree, limits: Limits = Limits()) -> dict[str, tuple[str, ...]]:
    """submitters.yaml from the base branch's tree (never the PR's): slug → logins.

    Raises `ClaimsError` when it exists but is no valid list (a maintainer's file).
    """
    if base.entry(SUBMITTERS) is None:
        return {}
    document, problems = load_yaml(base, SUBMITTERS, limits)
    if document is not None:
        problems += validate("submitters", document.data, document.path)
    if document is None or problems:
        first = problems[0] if problems else None
        detail = f"{first.location()}: {first.message}" if first else "unreadable"
        raise ClaimsError(
            f"{SUBMITTERS} on the base branch is invalid: {detail}",
            "a maintainer must fix it (schemas/submitters.schema.json)",
        )
    entries = document.data["submitters"]  # type: ignore[index]
    return {str(slug): tuple(str(x) for x in entry["logins"]) for slug, entry in entries.items()}


def maintainer_approved(
    reviews: Sequence[Review], head_sha: str, is_maintainer: Callable[[str], bool]
) -> bool:
    """True when a maintainer's latest review of `head_sha` approves it (a later request for
    changes, or a dismissal, on the same commit withdraws it; a review of an older commit
    never counts)."""
    latest: dict[str, str] = {}
    for review in reviews:
        if review.commit_id == head_sha and review.state != "COMMENTED":
            latest[review.login.lower()] = review.state
    return any(
        state == "APPROVED" and is_maintainer(login) for login, state in sorted(latest.items())
    )


def _merged_by(port: GitHubPort, sha: str, base_branch: str) -> list[str]:
    """The authors of the pull requests merged into `base_branch` whose merge (or squash)
    commit `sha` is."""
    return [
        pull.author
        for pull in port.pulls_of_commit(sha)
        if pull.merged and pull.merge_commit_sha == sha and pull.base_branch == base_branch
    ]


def gather_filer(
    port: GitHubPort,
    pull: PullRequestInfo,
    history: GitHistory,
    base: Tree,
    folders: Sequence[str],
    limits: Limits = Limits(),
) -> Filer:
    """What GitHub and the base branch say about who files `pull` under `folders`' slugs."""
    roles: dict[str, bool] = {}

    def is_maintainer(login: str) -> bool:
        key = login.lower()
        if key not in roles:
            roles[key] = port.role(login) in MAINTAINER_ROLES
        return roles[key]

    listed = read_submitters(base, limits)
    owners: dict[str, SlugOwners] = {}
    for slug in sorted({s for folder in folders if (s := slug_of(folder)) is not None}):
        if slug in listed:
            owners[slug] = SlugOwners(listed[slug], SUBMITTERS)
            continue
        # Files under attempts/<market>/<slug>/ on main, judgments.yaml (a maintainer's) aside.
        pattern = re.compile(rf"\Aattempts/[^/]+/{re.escape(slug)}/(?![^/]+/judgments\.yaml\Z)")
        commits = history.commits_touching(pattern)
        if not commits:
            owners[slug] = SlugOwners()
            continue
        authors = sorted(
            {login for sha in commits for login in _merged_by(port, sha, pull.base_branch)}
        )
        owners[slug] = SlugOwners(tuple(authors), "merged pull requests")
    maintainer = is_maintainer(pull.author)
    # A first filing must be opened by its head commit's author (`check_identity`): asked
    # once, only when a slug is new and the author is no maintainer (who files for anyone).
    first = not maintainer and any(o.source == "new" for o in owners.values())
    return Filer(
        pr=pull.number,
        author=pull.author,
        maintainer=maintainer,
        approved=maintainer_approved(port.reviews(pull.number), pull.head_sha, is_maintainer),
        owners=owners,
        head_author=port.commit_author(pull.head_sha) if first else None,
    )


def landing_confirmer(port: GitHubPort, base_branch: str) -> Callable[[Landing], str | None]:
    """For `Ports.confirm_landing`: asks GitHub once per landing commit, which must be
    the merge commit of a pull request merged into `base_branch`."""
    seen: dict[str, str | None] = {}

    def confirm(landing: Landing) -> str | None:
        if landing.sha not in seen:
            pulls = port.pulls_of_commit(landing.sha)
            seen[landing.sha] = landing_refusal(landing, pulls, base_branch)
        return seen[landing.sha]

    return confirm

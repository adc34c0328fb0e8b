"""What the bot asks of GitHub, as a protocol: `gateway.GitHubGateway` implements it with
PyGithub against the real API (or a fake one in tests); everything else is written against
this protocol and typed records, never against PyGithub's objects.

Every method may raise `GitHubError` (a `ClaimsError`): the API refused, was unreachable, or
stayed rate limited longer than the bot waits. Reads are retried by the gateway; a create is
never blindly retried (a lost answer must not post twice): the gateway looks for what it
created before it creates again.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime
from typing import Literal, Protocol

from bot.vocab.errors import ClaimsError

__all__ = [
    "MAINTAINER_ROLES",
    "Annotation",
    "ApiRead",
    "CheckRunRef",
    "CommentRef",
    "FileAtRef",
    "GitHubError",
    "GitHubPort",
    "IssueRef",
    "PullRequestInfo",
    "Review",
    "Role",
]

# What GET /repos/{o}/{r}/collaborators/{u}/permission calls `role_name` (custom roles pass
# through as their own name; `none` for users with no access).
Role = str
MAINTAINER_ROLES = frozenset({"admin", "maintain"})


class GitHubError(ClaimsError):
    """The GitHub API refused or could not be reached (status None: no answer at all)."""

    def __init__(self, message: str, hint: str = "", status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


@dataclass(frozen=True, slots=True)
class ApiRead:
    """One GET's answer as data: `status` 200 with its JSON, or the refusal (403, 404, 401)
    with GitHub's message. `claims github doctor` reads settings a token may not see, and a
    refusal there is a finding, not an error."""

    status: int
    data: object = None
    message: str = ""

    @property
    def ok(self) -> bool:
        return self.status == 200


@dataclass(frozen=True, slots=True)
class PullRequestInfo:
    number: int
    author: str  # user.login
    head_sha: str
    head_repo: str  # head.repo.full_name ("" when the fork was deleted)
    head_branch: str  # head.ref
    base_branch: str  # base.ref
    state: Literal["open", "closed"]
    merged: bool
    merge_commit_sha: str | None
    merged_at: datetime | None  # aware, UTC


@dataclass(frozen=True, slots=True)
class Review:
    login: str
    state: str  # APPROVED, CHANGES_REQUESTED, COMMENTED, DISMISSED, PENDING
    commit_id: str  # the head commit the review was given on
    submitted_at: datetime | None


@dataclass(frozen=True, slots=True)
class Annotation:
    """One check-run annotation (GitHub: path, start_line, end_line, annotation_level,
    message, title)."""

    path: str
    start_line: int
    end_line: int
    level: Literal["notice", "warning", "failure"]
    message: str
    title: str = ""


@dataclass(frozen=True, slots=True)
class CheckRunRef:
    id: int
    name: str
    head_sha: str
    conclusion: str | None
    html_url: str = ""


@dataclass(frozen=True, slots=True)
class CommentRef:
    id: int
    author: str  # user.login
    author_type: str  # user.type: "Bot" or "User"
    body: str
    html_url: str = ""


@dataclass(frozen=True, slots=True)
class FileAtRef:
    """A file's content at a branch (the contents API), with the blob sha a later update
    must name."""

    path: str
    content: bytes
    sha: str


@dataclass(frozen=True, slots=True)
class IssueRef:
    """An issue (not a pull request)."""

    number: int
    title: str
    body: str
    labels: tuple[str, ...]
    state: Literal["open", "closed"]
    html_url: str = ""


class GitHubPort(Protocol):
    """One repository on GitHub, as the bot sees it."""

    @property
    def repository(self) -> str:
        """owner/name."""
        ...

    # Pull requests and people
    def pull_request(self, number: int) -> PullRequestInfo: ...

    def find_pull_request(
        self, head_owner: str, head_branch: str, head_sha: str, base: str | None = None
    ) -> PullRequestInfo | None:
        """The open PR whose head is head_owner:head_branch (into `base` when given), only if
        its head is `head_sha` (GET /pulls?head=owner:branch&base=base;
        `workflow_run.pull_requests` is empty for forks). Anyone may open a PR from any
        fork's branch, into any branch, so without `base` the answer may be another's PR."""
        ...

    def pulls_of_commit(self, sha: str) -> Sequence[PullRequestInfo]:
        """GET /commits/{sha}/pulls: the PRs a commit belongs to (its merge commit included)."""
        ...

    def open_pull_requests(self) -> Sequence[PullRequestInfo]:
        """GET /pulls?state=open, every page: the open PRs into any branch. (GET
        /commits/{sha}/pulls cannot stand in to find the PRs whose head is a commit: it lists
        no PR from a fork.)"""
        ...

    def close_pull_request(self, number: int) -> None:
        """PATCH /pulls/{number} state=closed (closing a closed one is no error)."""
        ...

    def commit_author(self, sha: str) -> str | None:
        """GET /commits/{sha} → `author.login`: the account GitHub links the commit's author
        email to. None when it links it to none (`author` null); `GitHubError` when GitHub
        answers otherwise, a commit it does not know (404, 422) included: the callers ask of a
        pull request's head, and must not read a failed lookup as an unlinked author (a first
        filing would pass). No one can change a commit's author without changing its sha."""
        ...

    def reviews(self, number: int) -> Sequence[Review]: ...

    def role(self, login: str) -> Role:
        """GET /collaborators/{login}/permission → role_name; "none" for a 404."""
        ...

    # Check runs
    def check_runs(self, head_sha: str, name: str) -> Sequence[CheckRunRef]: ...

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        title: str,
        summary: str,
        annotations: Sequence[Annotation],
        external_id: str = "",
    ) -> CheckRunRef:
        """POST at most 50 annotations, status in_progress."""
        ...

    def update_check_run(
        self,
        run_id: int,
        title: str,
        summary: str,
        annotations: Sequence[Annotation] = (),
        conclusion: str | None = None,
    ) -> None:
        """PATCH: appends at most 50 annotations; a conclusion completes the run."""
        ...

    # Issue comments and labels (a PR is an issue)
    def comments(self, number: int) -> Sequence[CommentRef]: ...

    def create_comment(self, number: int, body: str) -> CommentRef: ...

    def edit_comment(self, comment_id: int, body: str) -> None: ...

    def labels(self, number: int) -> Sequence[str]: ...

    def add_labels(self, number: int, names: Sequence[str]) -> None: ...

    def remove_label(self, number: int, name: str) -> None:
        """A label already gone (404) is no error."""
        ...

    # Issues (the scheduled job's: resolutions, annulments, registry warnings)
    def issues(self, label: str) -> Sequence[IssueRef]:
        """GET /issues?labels={label}&state=all: every issue with `label`, open or closed
        (pull requests left out)."""
        ...

    def create_issue(self, title: str, body: str, labels: Sequence[str]) -> IssueRef:
        """POST /issues. After a lost answer the gateway looks for an issue with the same
        title and body among those with the first label before it posts again."""
        ...

    # Contents
    def file(self, path: str, ref: str) -> FileAtRef | None:
        """The file at `ref` (a branch or commit), None when it does not exist."""
        ...

    def put_file(
        self, path: str, content: bytes, message: str, branch: str, sha: str | None
    ) -> str:
        """Create (sha None) or update a file on `branch` as one commit; returns the commit
        sha. A 409/422 (the branch moved: `sha` is stale) raises GitHubError with status."""
        ...

    # Actions
    def dispatch_workflow(self, workflow: str, ref: str, inputs: Mapping[str, str]) -> None:
        """POST /actions/workflows/{workflow}/dispatches: start a `workflow_dispatch` run of
        `workflow` (its file name) on `ref`. A token's own events start no workflow, except
        this one."""
        ...

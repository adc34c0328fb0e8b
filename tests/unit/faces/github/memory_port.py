"""An in-memory `GitHubPort` for unit tests of what is built on the port (no HTTP).

Files live per branch as {path: (content, blob sha)}; `put_file` checks the sha it is given
like the contents API (a stale one is a 409) and can be told to fail a number of times first
(`moved`). Every write is recorded in order in `calls`.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace

from bot.edges.github.port import (
    Annotation,
    CheckRunRef,
    CommentRef,
    FileAtRef,
    GitHubError,
    IssueRef,
    PullRequestInfo,
    Review,
    Role,
)


def _sha(content: bytes) -> str:
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class MemoryPort:
    repository: str = "registry-org/registry"
    roles: dict[str, Role] = field(default_factory=dict)
    pulls: dict[int, PullRequestInfo] = field(default_factory=dict)
    files: dict[str, dict[str, tuple[bytes, str]]] = field(default_factory=dict)
    comments_posted: list[tuple[int, str]] = field(default_factory=list)
    existing: list[tuple[int, CommentRef]] = field(default_factory=list)  # (PR, comment) before
    commits: list[tuple[str, str, bytes, str]] = field(default_factory=list)  # branch, path, ...
    calls: list[str] = field(default_factory=list)
    dispatches: list[tuple[str, str, dict[str, str]]] = field(default_factory=list)
    opened: list[IssueRef] = field(default_factory=list)
    moved: int = 0  # how many put_file calls answer 409 first (someone else committed)
    moved_status: int = 409
    commit_authors: dict[str, str] = field(default_factory=dict)  # sha -> author.login

    # Pull requests and people
    def pull_request(self, number: int) -> PullRequestInfo:
        self.calls.append(f"pull_request {number}")
        if number not in self.pulls:
            raise GitHubError(f"no pull request #{number}", status=404)
        return self.pulls[number]

    def find_pull_request(
        self, head_owner: str, head_branch: str, head_sha: str, base: str | None = None
    ) -> PullRequestInfo | None:
        self.calls.append(f"find_pull_request {head_owner}:{head_branch} {head_sha}")
        for pr in self.pulls.values():
            owner = pr.head_repo.split("/")[0]
            if (owner, pr.head_branch) == (head_owner, head_branch) and pr.state == "open":
                if base is not None and pr.base_branch != base:
                    continue
                return pr if pr.head_sha == head_sha else None
        return None

    def pulls_of_commit(self, sha: str) -> Sequence[PullRequestInfo]:
        return [pr for pr in self.pulls.values() if pr.merge_commit_sha == sha]

    def open_pull_requests(self) -> Sequence[PullRequestInfo]:
        return [pr for pr in self.pulls.values() if pr.state == "open"]

    def close_pull_request(self, number: int) -> None:
        self.pulls[number] = replace(self.pulls[number], state="closed")

    def commit_author(self, sha: str) -> str | None:
        self.calls.append(f"commit_author {sha}")
        return self.commit_authors.get(sha)

    def reviews(self, number: int) -> Sequence[Review]:
        return ()

    def role(self, login: str) -> Role:
        self.calls.append(f"role {login}")
        return self.roles.get(login, "none")

    # Check runs
    def check_runs(self, head_sha: str, name: str) -> Sequence[CheckRunRef]:
        return ()

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        title: str,
        summary: str,
        annotations: Sequence[Annotation],
        external_id: str = "",
    ) -> CheckRunRef:
        raise NotImplementedError

    def update_check_run(
        self,
        run_id: int,
        title: str,
        summary: str,
        annotations: Sequence[Annotation] = (),
        conclusion: str | None = None,
    ) -> None:
        raise NotImplementedError

    # Comments and labels
    def comments(self, number: int) -> Sequence[CommentRef]:
        return [comment for n, comment in self.existing if n == number] + [
            CommentRef(index, "github-actions[bot]", "Bot", body)
            for index, (n, body) in enumerate(self.comments_posted)
            if n == number
        ]

    def create_comment(self, number: int, body: str) -> CommentRef:
        self.calls.append(f"create_comment {number}")
        self.comments_posted.append((number, body))
        return CommentRef(len(self.comments_posted), "github-actions[bot]", "Bot", body)

    def edit_comment(self, comment_id: int, body: str) -> None:
        raise NotImplementedError

    def labels(self, number: int) -> Sequence[str]:
        return ()

    def add_labels(self, number: int, names: Sequence[str]) -> None:
        raise NotImplementedError

    def remove_label(self, number: int, name: str) -> None:
        raise NotImplementedError

    # Contents
    def seed(self, branch: str, path: str, content: bytes) -> None:
        self.files.setdefault(branch, {})[path] = (content, _sha(content))

    def file(self, path: str, ref: str) -> FileAtRef | None:
        self.calls.append(f"file {path}@{ref}")
        found = self.files.get(ref, {}).get(path)
        return None if found is None else FileAtRef(path, found[0], found[1])

    def put_file(
        self, path: str, content: bytes, message: str, branch: str, sha: str | None
    ) -> str:
        self.calls.append(f"put_file {path}@{branch}")
        if self.moved:
            self.moved -= 1
            raise GitHubError("the branch moved", status=self.moved_status)
        current = self.files.get(branch, {}).get(path)
        if (current[1] if current else None) != sha:
            raise GitHubError(f"{path} does not match {sha}", status=409)
        self.seed(branch, path, content)
        commit = hashlib.sha1(f"{branch}{path}{len(self.commits)}".encode()).hexdigest()
        self.commits.append((branch, path, content, message))
        for number, pr in self.pulls.items():  # a commit on a PR's branch moves its head
            if pr.head_branch == branch and pr.head_repo == self.repository:
                self.pulls[number] = replace(pr, head_sha=commit)
        return commit

    # Actions
    def issues(self, label: str) -> Sequence[IssueRef]:
        return [i for i in self.opened if label in i.labels]

    def create_issue(self, title: str, body: str, labels: Sequence[str]) -> IssueRef:
        issue = IssueRef(len(self.opened) + 1, title, body, tuple(labels), "open")
        self.opened.append(issue)
        return issue

    def dispatch_workflow(self, workflow: str, ref: str, inputs: Mapping[str, str]) -> None:
        self.calls.append(f"dispatch_workflow {workflow} {ref}")
        self.dispatches.append((workflow, ref, dict(inputs)))

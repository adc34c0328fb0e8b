"""The one module that imports PyGithub: `GitHubGateway` implements `port.GitHubPort`
against GitHub's REST API (or the tests' fake of it), and turns PyGithub's objects into the
port's records and every PyGithub or requests exception into `GitHubError`.

Why it looks like this:
- PyGithub's own retry (`GithubRetry`) retries every method, POST included, so a create whose
  answer is lost (a 502 after GitHub did the work) posts twice; and it sleeps up to the
  rate-limit reset. The client is built with `retry=None` and `lazy=True` (a lazy object sends
  no GET until it is read), and `_call` retries here instead: rate limits (403 or 429 with
  `retry-after`, `x-ratelimit-remaining: 0` with `x-ratelimit-reset`, a secondary limit) and
  5xx or unanswered requests are waited out within a bounded total wait (`Retry`), then the call
  fails with `GitHubError` naming it.
- A read or an edit (PATCH, PUT, DELETE) is safe to repeat, except a PATCH that adds check-run
  annotations: it is sent again only while the run's annotation count shows that the lost one
  did not land. A create is repeated as is only after a rate limit (GitHub did not do it); after
  a 5xx or no answer the gateway first looks for what it may have created: a check run by name,
  head sha and the `external_id` it sent (a fresh one per create unless the caller gives one), a
  comment by its body among the comments newer than the newest it knew before posting.
"""

from __future__ import annotations

import os
import time
import uuid
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime
from typing import Any, TypeVar

import requests
from github import Auth, BadAttributeException, Github, GithubException
from github.CheckRun import CheckRun
from github.Issue import Issue
from github.IssueComment import IssueComment
from github.PullRequest import PullRequest

from bot.edges.github.port import (
    Annotation,
    ApiRead,
    CheckRunRef,
    CommentRef,
    FileAtRef,
    GitHubError,
    GitHubPort,
    IssueRef,
    PullRequestInfo,
    Review,
    Role,
)

__all__ = ["DEFAULT_API_URL", "GitHubGateway", "Retry", "connect"]

DEFAULT_API_URL = "https://api.github.com"
# GitHub: "If you exceed a secondary rate limit [without retry-after] wait for at least one
# minute before retrying" (docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api).
_SECONDARY_WAIT = 60.0
_PER_PAGE = 100  # the most a list endpoint gives per page

T = TypeVar("T")


@dataclass(frozen=True)
class Retry:
    """How long a call may wait in total, how often it is tried, and the clock and sleep
    (tests pass their own, so nothing sleeps)."""

    max_wait: float = 300.0
    attempts: int = 5
    sleep: Callable[[float], None] = time.sleep
    now: Callable[[], float] = time.time
    backoff: tuple[float, ...] = field(default=(2.0, 4.0, 8.0, 16.0))


def connect(
    token: str,
    repository: str,
    base_url: str | None = None,
    retry: Retry = Retry(),
    throttle: bool = True,
) -> GitHubGateway:
    """The gateway to `repository` (owner/name) at `base_url` (default: $GITHUB_API_URL, else
    api.github.com). `throttle=False` (tests only) drops PyGithub's pauses between requests."""
    url = (base_url or os.environ.get("GITHUB_API_URL") or DEFAULT_API_URL).rstrip("/")
    pauses: dict[str, Any] = {}
    if not throttle:
        pauses = {"seconds_between_requests": None, "seconds_between_writes": None}
    client = Github(
        auth=Auth.Token(token),
        base_url=url,
        retry=None,
        lazy=True,
        per_page=_PER_PAGE,
        timeout=30,
        **pauses,
    )
    return GitHubGateway(client, repository, retry)


@dataclass(frozen=True)
class _Failure:
    """What a failed request tells: wait this long and try again (`wait` None: don't), and
    whether GitHub may have done it anyway (`maybe_done`: a 5xx or no answer)."""

    error: GitHubError
    wait: float | None
    maybe_done: bool


def _failure(error: Exception, retry: Retry, tries: int) -> _Failure:
    backoff = retry.backoff[min(tries, len(retry.backoff) - 1)]
    if isinstance(error, requests.RequestException):
        return _Failure(GitHubError(f"no answer: {type(error).__name__}"), backoff, True)
    assert isinstance(error, GithubException)
    headers = {key.lower(): value for key, value in (error.headers or {}).items()}
    data = error.data if isinstance(error.data, dict) else {}
    message = str(data.get("message") or "")
    gh_error = GitHubError(
        f"GitHub answered {error.status}" + (f": {message[:200]}" if message else ""),
        status=error.status,
    )
    if error.status in (403, 429):
        if headers.get("retry-after", "").isdigit():
            return _Failure(gh_error, float(headers["retry-after"]), False)
        reset = headers.get("x-ratelimit-reset", "")
        if headers.get("x-ratelimit-remaining") == "0" and reset.isdigit():
            return _Failure(gh_error, max(float(reset) - retry.now(), 0.0) + 1.0, False)
        if error.status == 429 or "rate limit" in message.lower():
            return _Failure(gh_error, _SECONDARY_WAIT, False)
        return _Failure(gh_error, None, False)  # a permission refusal
    if error.status >= 500:
        return _Failure(gh_error, backoff, True)
    return _Failure(gh_error, None, False)


class GitHubGateway:
    """`GitHubPort` for one repository, through PyGithub."""

    def __init__(self, client: Github, repository: str, retry: Retry = Retry()) -> None:
        self._client = client
        self._repository = repository
        self._repo = client.get_repo(repository)  # lazy: no request
        self._retry = retry
        self._annotations: dict[int, int] = {}  # check run id -> annotations it holds

    @property
    def repository(self) -> str:
        return self._repository

    # The retry loop ------------------------------------------------------------------

    def _call(
        self,
        what: str,
        action: Callable[[], T],
        recover: Callable[[], T | None] | None = None,
    ) -> T:
        """Run `action`, waiting out rate limits and 5xx within the retry budget. For a
        create, `recover` finds what a failed attempt may have created (None: nothing)."""
        waited, tries = 0.0, 0
        while True:
            try:
                return action()
            except (GithubException, requests.RequestException) as error:
                failure = _failure(error, self._retry, tries)
            except (
                BadAttributeException,
                KeyError,
                TypeError,
                ValueError,
                AttributeError,
                AssertionError,
            ) as error:
                # PyGithub (or the conversion to the port's records) met an answer unlike
                # GitHub's published description: an error with the call named, no traceback.
                raise GitHubError(
                    f"{what}: GitHub's answer is not what its API describes"
                    f" ({type(error).__name__}: {str(error)[:200]})"
                ) from None
            tries += 1
            if failure.maybe_done and recover is not None:
                found = self._call(f"{what} (looking for what it created)", recover)
                if found is not None:
                    return found
            if failure.wait is None:
                raise GitHubError(f"{what}: {failure.error.message}", status=failure.error.status)
            too_long = waited + failure.wait > self._retry.max_wait
            if tries >= self._retry.attempts or too_long:
                asked = (
                    f" (GitHub asks to wait {failure.wait:.0f} s more, past the"
                    f" {self._retry.max_wait:.0f} s this job waits)"
                    if too_long
                    else ""
                )
                raise GitHubError(
                    f"{what}: {failure.error.message}; gave up after {tries} tries{asked}",
                    "GitHub is rate limiting or failing; run the job again later",
                    status=failure.error.status,
                )
            self._retry.sleep(failure.wait)
            waited += failure.wait

    # Pull requests and people --------------------------------------------------------

    def pull_request(self, number: int) -> PullRequestInfo:
        return self._call(f"GET pull request #{number}", lambda: _pull(self._repo.get_pull(number)))

    def find_pull_request(
        self, head_owner: str, head_branch: str, head_sha: str, base: str | None = None
    ) -> PullRequestInfo | None:
        def find() -> PullRequestInfo | None:
            into = {"base": base} if base is not None else {}
            pulls = self._repo.get_pulls(state="open", head=f"{head_owner}:{head_branch}", **into)
            for pull in map(_pull, pulls):
                if pull.head_sha == head_sha and (base is None or pull.base_branch == base):
                    return pull
            return None

        return self._call(f"GET pull requests of {head_owner}:{head_branch}", find)

    def pulls_of_commit(self, sha: str) -> Sequence[PullRequestInfo]:
        return self._call(
            f"GET pull requests of commit {sha}",
            lambda: [_pull(p) for p in self._repo.get_commit(sha).get_pulls()],
        )

    def open_pull_requests(self) -> Sequence[PullRequestInfo]:
        return self._call(
            "GET open pull requests",
            lambda: [_pull(p) for p in self._repo.get_pulls(state="open")],
        )

    def close_pull_request(self, number: int) -> None:
        self._call(
            f"PATCH pull request #{number} (close)",
            lambda: self._repo.get_pull(number).edit(state="closed"),
        )

    def commit_author(self, sha: str) -> str | None:
        def read() -> str | None:
            # A commit GitHub does not know (404, 422) is an error like any other: the callers
            # ask of a pull request's head, and None would read as "linked to no account",
            # which would let a first filing pass.
            data = self._repo.get_commit(sha).raw_data
            author = data.get("author")
            login = author.get("login") if isinstance(author, dict) else None
            return login if isinstance(login, str) and login else None

        return self._call(f"GET author of commit {sha}", read)

    def reviews(self, number: int) -> Sequence[Review]:
        def read() -> list[Review]:
            return [
                Review(
                    r.user.login if r.user else "",
                    r.state,
                    r.commit_id,
                    _utc(r.submitted_at),
                )
                for r in self._repo.get_pull(number).get_reviews()
            ]

        return self._call(f"GET reviews of #{number}", read)

    def role(self, login: str) -> Role:
        def read() -> Role:
            try:
                return self._repo.get_collaborator_role_name(login)
            except GithubException as error:
                if error.status == 404:
                    return "none"
                raise

        return self._call(f"GET role of {login}", read)

    # Check runs ---------------------------------------------------------------------------

    def check_runs(self, head_sha: str, name: str) -> Sequence[CheckRunRef]:
        return self._call(
            f"GET check runs {name!r} of {head_sha}",
            lambda: [_run(r) for r in self._runs(head_sha, name)],
        )

    def _runs(self, head_sha: str, name: str) -> list[CheckRun]:
        commit = self._repo.get_commit(head_sha)
        return list(commit.get_check_runs(check_name=name, filter="all"))

    def create_check_run(
        self,
        name: str,
        head_sha: str,
        title: str,
        summary: str,
        annotations: Sequence[Annotation],
        external_id: str = "",
    ) -> CheckRunRef:
        mark = external_id or uuid.uuid4().hex

        def create() -> CheckRunRef:
            run = self._repo.create_check_run(
                name=name,
                head_sha=head_sha,
                status="in_progress",
                external_id=mark,
                output=_output(title, summary, annotations),
            )
            self._annotations[run.id] = len(annotations)
            return _run(run)

        def recover() -> CheckRunRef | None:
            runs = [r for r in self._runs(head_sha, name) if r.external_id == mark]
            if not runs:
                return None
            self._annotations[runs[0].id] = len(annotations)
            return _run(runs[0])

        return self._call(f"POST check run {name!r}", create, recover)

    def update_check_run(
        self,
        run_id: int,
        title: str,
        summary: str,
        annotations: Sequence[Annotation] = (),
        conclusion: str | None = None,
    ) -> None:
        # PATCHed annotations add to the run's, so a PATCH tried again (its answer lost) is
        # sent only if the run's annotation count shows the first did not land: for runs this
        # gateway made, whose count it knows. A conclusion alone is safe to send twice.
        expected = self._annotations.get(run_id)
        tries = 0

        def update() -> None:
            nonlocal tries
            tries += 1
            run = self._repo.get_check_run(run_id)  # lazy: no request
            if tries > 1 and annotations and expected is not None:
                landed = run.output.annotations_count == expected + len(annotations)
                if landed:
                    return  # the first try did land
            output = _output(title, summary, annotations)
            if conclusion is None:
                run.edit(output=output)
            else:
                run.edit(output=output, conclusion=conclusion)

        self._call(f"PATCH check run {run_id}", update)
        if expected is not None:
            self._annotations[run_id] = expected + len(annotations)

    # Comments and labels -----------------------------------------------------------------

    def comments(self, number: int) -> Sequence[CommentRef]:
        return self._call(
            f"GET comments of #{number}",
            lambda: [_comment(c) for c in self._repo.get_issue(number).get_comments()],
        )

    def create_comment(self, number: int, body: str) -> CommentRef:
        newest = max((c.id for c in self.comments(number)), default=0)

        def recover() -> CommentRef | None:
            mine = [c for c in self.comments(number) if c.id > newest and c.body == body]
            return mine[0] if mine else None

        return self._call(
            f"POST comment on #{number}",
            lambda: _comment(self._repo.get_issue(number).create_comment(body)),
            recover,
        )

    def edit_comment(self, comment_id: int, body: str) -> None:
        url = f"{self._repo.url}/issues/comments/{comment_id}"
        self._call(
            f"PATCH comment {comment_id}",
            lambda: IssueComment(self._client.requester, url=url).edit(body),
        )

    def labels(self, number: int) -> Sequence[str]:
        return self._call(
            f"GET labels of #{number}",
            lambda: [label.name for label in self._repo.get_issue(number).get_labels()],
        )

    def add_labels(self, number: int, names: Sequence[str]) -> None:
        # Adding a label twice is harmless: GitHub keeps one. The body is `{"labels": [...]}`,
        # the one form GitHub's REST API description gives; PyGithub's `add_to_labels` sends
        # a bare list, which GitHub still takes but no longer describes.
        if names:
            url = f"{self._repo.url}/issues/{number}/labels"
            self._call(
                f"POST labels on #{number}",
                lambda: self._client.requester.requestJsonAndCheck(
                    "POST", url, input={"labels": list(names)}
                ),
            )

    def remove_label(self, number: int, name: str) -> None:
        def remove() -> None:
            try:
                self._repo.get_issue(number).remove_from_labels(name)
            except GithubException as error:
                if error.status != 404:  # already gone
                    raise

        self._call(f"DELETE label {name!r} of #{number}", remove)

    # Issues -------------------------------------------------------------------------------

    def issues(self, label: str) -> Sequence[IssueRef]:
        return self._call(
            f"GET issues labelled {label!r}",
            lambda: [
                _issue(issue)
                for issue in self._repo.get_issues(state="all", labels=[label])
                # The listing's own data: reading `issue.pull_request` when the key is absent
                # (a plain issue) would make PyGithub GET each issue again to complete it.
                if "pull_request" not in issue._rawData
            ],
        )

    def create_issue(self, title: str, body: str, labels: Sequence[str]) -> IssueRef:
        def recover() -> IssueRef | None:
            found = self.issues(labels[0]) if labels else []
            return next((i for i in found if i.title == title and i.body == body), None)

        return self._call(
            f"POST issue {title!r}",
            lambda: _issue(self._repo.create_issue(title, body=body, labels=list(labels))),
            recover,
        )

    # Contents -----------------------------------------------------------------------------

    def file(self, path: str, ref: str) -> FileAtRef | None:
        def read() -> FileAtRef | None:
            try:
                content = self._repo.get_contents(path, ref=ref)
            except GithubException as error:
                if error.status == 404:
                    return None
                raise
            if isinstance(content, list):  # a folder
                return None
            return FileAtRef(content.path, content.decoded_content, content.sha)

        return self._call(f"GET {path} at {ref}", read)

    def put_file(
        self, path: str, content: bytes, message: str, branch: str, sha: str | None
    ) -> str:
        # A repeated PUT with the same blob sha fails 409 once the first one landed, so a lost
        # answer never makes two commits.
        def put() -> str:
            if sha is None:
                result = self._repo.create_file(path, message, content, branch=branch)
            else:
                result = self._repo.update_file(path, message, content, sha, branch=branch)
            return str(result["commit"].sha)

        return self._call(f"PUT {path} on {branch}", put)

    # Raw reads (the settings `claims github doctor` checks) ----------------------------

    def read(self, path: str, params: Mapping[str, str] | None = None) -> ApiRead:
        """GET `path` (from the API root: "/repos/o/r/pages") through PyGithub's requester:
        PyGithub has no objects for rulesets, rules, environment secrets or Actions' workflow
        permissions, and its objects would hide what the doctor must tell apart (a field the
        token may not see, a 403 or a 404). A 401, 403 (not a rate limit), 404 or 422 is
        returned as data; rate limits and 5xx are waited out as for every call."""

        def get() -> ApiRead:
            try:
                _, data = self._client.requester.requestJsonAndCheck(
                    "GET", path, parameters=dict(params or {})
                )
            except GithubException as error:
                if error.status in (401, 404, 422) or (
                    error.status == 403 and _failure(error, self._retry, 0).wait is None
                ):
                    return _refusal(error)
                raise
            return ApiRead(200, data)

        return self._call(f"GET {path}", get)

    # Actions ------------------------------------------------------------------------------

    def dispatch_workflow(self, workflow: str, ref: str, inputs: Mapping[str, str]) -> None:
        # Repeated after a lost answer at worst: a second run of the verify workflow posts the
        # same verdict (the sticky comment is edited, check runs are per run).
        def dispatch() -> None:
            self._repo.get_workflow(workflow).create_dispatch(ref, dict(inputs), throw=True)

        self._call(f"POST dispatch of {workflow} on {ref}", dispatch)


def _refusal(error: GithubException) -> ApiRead:
    data = error.data if isinstance(error.data, dict) else {}
    return ApiRead(error.status, data, str(data.get("message") or "")[:200])


def _assert_port(gateway: GitHubGateway) -> GitHubPort:
    """mypy checks here that the gateway is a `GitHubPort`."""
    return gateway


def _utc(moment: datetime | None) -> datetime | None:
    if moment is None:
        return None
    return moment.replace(tzinfo=UTC) if moment.tzinfo is None else moment.astimezone(UTC)


def _pull(pull: PullRequest) -> PullRequestInfo:
    head_repo = pull.head.repo
    return PullRequestInfo(
        number=pull.number,
        author=pull.user.login,
        head_sha=pull.head.sha,
        head_repo=head_repo.full_name if head_repo is not None else "",
        head_branch=pull.head.ref,
        base_branch=pull.base.ref,
        state="open" if pull.state == "open" else "closed",
        # `merged` is not in the list endpoints' answers; `merged_at` is in both
        merged=pull.merged_at is not None,
        merge_commit_sha=pull.merge_commit_sha,
        merged_at=_utc(pull.merged_at),
    )


def _run(run: CheckRun) -> CheckRunRef:
    return CheckRunRef(run.id, run.name, run.head_sha, run.conclusion, run.html_url or "")


def _issue(issue: Issue) -> IssueRef:
    return IssueRef(
        issue.number,
        issue.title or "",
        issue.body or "",
        tuple(label.name for label in issue.labels),
        "closed" if issue.state == "closed" else "open",
        issue.html_url or "",
    )


def _comment(comment: IssueComment) -> CommentRef:
    user = comment.user
    return CommentRef(
        comment.id,
        user.login if user else "",
        user.type if user else "",
        comment.body or "",
        comment.html_url or "",
    )


def _output(title: str, summary: str, annotations: Sequence[Annotation]) -> dict[str, Any]:
    """A check run's output; GitHub wants title and summary on every call."""
    return {
        "title": title,
        "summary": summary,
        "annotations": [
            {
                "path": a.path,
                "start_line": a.start_line,
                "end_line": a.end_line,
                "annotation_level": a.level,
                "message": a.message,
                **({"title": a.title} if a.title else {}),
            }
            for a in annotations
        ],
    }

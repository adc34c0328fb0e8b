"""The event payloads the Actions jobs get ($GITHUB_EVENT_PATH), read into typed records.

A payload is untrusted input: a `pull_request` or `workflow_run` payload carries branch names
and logins a filer chose, an `issue_comment` payload carries the comment's text. Each reader
checks every field it keeps (type, size, grammar) once, here, and raises `EventError` naming
the field (`workflow_run.head_sha`) for anything else; code further down trusts the record.

Shapes follow GitHub's webhook payloads as published in octokit/webhooks
(`payload-examples/api.github.com/{pull_request,workflow_run,issue_comment}/`, MIT) and the
webhook docs, https://docs.github.com/en/webhooks/webhook-events-and-payloads.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from bot.vocab.errors import ClaimsError
from bot.vocab.jsonl import loads as json_loads

__all__ = [
    "MAX_EVENT_BYTES",
    "EventError",
    "IssueCommentEvent",
    "PullRequestEvent",
    "WorkflowRunEvent",
    "is_branch_name",
    "issue_comment_event",
    "load_event",
    "pull_request_event",
    "workflow_run_event",
]

# The three payloads the bot reads are small (a comment body is at most 65,536 characters);
# GitHub caps webhook payloads at 25 MB, but only push events with many commits get near it.
MAX_EVENT_BYTES = 4 * 1024 * 1024
# https://docs.github.com/en/rest/issues/comments (body: at most 65,536 characters)
MAX_BODY_CHARS = 65_536

_SHA = re.compile(r"\A[0-9a-f]{40}\Z")
# GitHub logins: alphanumerics and single hyphens, at most 39 characters; apps' bot users
# end in "[bot]" (github-actions[bot]).
_LOGIN = re.compile(r"\A[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})(?:\[bot\])?\Z")
_FULL_NAME = re.compile(r"\A[A-Za-z0-9](?:[A-Za-z0-9-]{0,38})/[A-Za-z0-9._-]{1,100}\Z")
_USER_TYPES = frozenset({"User", "Bot", "Organization", "Mannequin"})
# git check-ref-format's rules, pure (no subprocess in a reader): no control character,
# space, ~ ^ : ? * [ \, no "..", "@{", "//", no component starting with "." or ending with
# ".lock", not "@", not starting with "-" or "/", not ending with "/" or ".".
_REF_FORBIDDEN = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//")


class EventError(ClaimsError):
    """An event payload is not what the workflow should have received."""

    def __init__(self, field: str, message: str) -> None:
        super().__init__(
            f"event payload: {field}: {message}",
            "the job must run on the event its workflow declares; the payload is from"
            " $GITHUB_EVENT_PATH",
        )
        self.field = field


def is_branch_name(name: str) -> bool:
    """True when `name` is a branch name git accepts (`git check-ref-format --branch`'s
    rules, checked without git) and at most 255 characters."""
    if not name or len(name) > 255 or name == "@" or name.startswith(("-", "/")):
        return False
    if name.endswith(("/", ".")) or _REF_FORBIDDEN.search(name):
        return False
    return not any(part.startswith(".") or part.endswith(".lock") for part in name.split("/"))


class _Fields:
    """One JSON object of a payload, with its path for messages."""

    def __init__(self, data: object, path: str) -> None:
        if not isinstance(data, dict):
            raise EventError(path, f"expected an object, got {_kind(data)}")
        self.data: dict[str, Any] = data
        self.path = path

    def _at(self, key: str) -> str:
        return f"{self.path}.{key}" if self.path else key

    def _get(self, key: str) -> object:
        if key not in self.data:
            raise EventError(self._at(key), "missing")
        return self.data[key]

    def object(self, key: str) -> _Fields:
        return _Fields(self._get(key), self._at(key))

    def objects(self, key: str, limit: int) -> list[_Fields]:
        value = self._get(key)
        if not isinstance(value, list):
            raise EventError(self._at(key), f"expected a list, got {_kind(value)}")
        if len(value) > limit:
            raise EventError(self._at(key), f"more than {limit} entries")
        return [_Fields(item, f"{self._at(key)}[{index}]") for index, item in enumerate(value)]

    def has(self, key: str) -> bool:
        return self.data.get(key) is not None

    def string(self, key: str, limit: int = 1024, nullable: bool = False) -> str:
        value = self._get(key)
        if value is None and nullable:
            return ""
        if not isinstance(value, str):
            raise EventError(self._at(key), f"expected a string, got {_kind(value)}")
        if len(value) > limit:
            raise EventError(self._at(key), f"longer than {limit} characters")
        return value

    def integer(self, key: str) -> int:
        value = self._get(key)
        if not isinstance(value, int) or isinstance(value, bool):
            raise EventError(self._at(key), f"expected an integer, got {_kind(value)}")
        if not 0 < value < 2**63:
            raise EventError(self._at(key), f"expected a positive integer, got {value}")
        return value

    def sha(self, key: str) -> str:
        value = self.string(key, 64)
        if not _SHA.match(value):
            raise EventError(self._at(key), f"expected 40 lowercase hex digits, got {value!r}")
        return value

    def branch(self, key: str) -> str:
        value = self.string(key, 255)
        if not is_branch_name(value):
            raise EventError(self._at(key), f"not a valid branch name: {value!r}")
        return value

    def login(self, key: str) -> str:
        value = self.string(key, 64)
        if not _LOGIN.match(value):
            raise EventError(self._at(key), f"not a GitHub login: {value!r}")
        return value

    def full_name(self, key: str) -> str:
        value = self.string(key, 160)
        if not _FULL_NAME.match(value):
            raise EventError(self._at(key), f"not an owner/name repository: {value!r}")
        return value

    def choice(self, key: str, allowed: frozenset[str]) -> str:
        value = self.string(key, 64)
        if value not in allowed:
            raise EventError(self._at(key), f"unexpected value {value!r}")
        return value


def _kind(value: object) -> str:
    return "null" if value is None else type(value).__name__


def load_event(path: Path) -> object:
    """The JSON payload at `path`, at most MAX_EVENT_BYTES. Raises `EventError` for a file
    that cannot be read, is too large, or is not JSON (NaN and Infinity refused)."""
    try:
        with path.open("rb") as stream:
            raw = stream.read(MAX_EVENT_BYTES + 1)
    except OSError as error:
        raise EventError(str(path), f"cannot be read: {error.strerror}") from None
    if len(raw) > MAX_EVENT_BYTES:
        raise EventError(str(path), f"larger than {MAX_EVENT_BYTES} bytes")
    return parse_event(raw, str(path))


def parse_event(raw: bytes, name: str = "payload") -> object:
    """`raw` as JSON; raises `EventError` for anything else."""

    def refuse(constant: str) -> object:
        raise ValueError(f"{constant} is not JSON")

    try:
        return json_loads(raw.decode("utf-8"), parse_constant=refuse)
    except (UnicodeDecodeError, ValueError, RecursionError) as error:
        raise EventError(name, f"not JSON: {str(error)[:200]}") from None


@dataclass(frozen=True, slots=True)
class PullRequestEvent:
    """A `pull_request` event (the `check` workflow)."""

    action: str
    number: int
    head_sha: str
    head_repo: str  # head.repo.full_name
    head_branch: str  # head.ref
    base_ref: str  # base.ref
    author: str  # pull_request.user.login
    repository: str  # repository.full_name


def pull_request_event(data: object) -> PullRequestEvent:
    """A `pull_request` payload; raises `EventError` naming the first bad field."""
    event = _Fields(data, "")
    pull = event.object("pull_request")
    head = pull.object("head")
    base = pull.object("base")
    number = event.integer("number")
    if pull.integer("number") != number:
        raise EventError("pull_request.number", "differs from number")
    return PullRequestEvent(
        action=event.string("action", 64),
        number=number,
        head_sha=head.sha("sha"),
        head_repo=head.object("repo").full_name("full_name"),
        head_branch=head.branch("ref"),
        base_ref=base.branch("ref"),
        author=pull.object("user").login("login"),
        repository=event.object("repository").full_name("full_name"),
    )


@dataclass(frozen=True, slots=True)
class WorkflowRunEvent:
    """A `workflow_run` event (the `verify` workflow, on `check` completing)."""

    id: int
    name: str  # the workflow's name
    event: str  # what started the run: pull_request, push, ...
    conclusion: str  # "" while there is none
    head_sha: str
    head_branch: str
    head_repo: str  # head_repository.full_name
    head_owner: str  # head_repository.owner.login
    repository: str  # repository.full_name
    pull_requests: tuple[int, ...]  # empty for a fork's pull request
    default_branch: str  # repository.default_branch: the only base that gets a verdict


def workflow_run_event(data: object) -> WorkflowRunEvent:
    """A `workflow_run` payload; raises `EventError` naming the first bad field."""
    event = _Fields(data, "")
    run = event.object("workflow_run")
    head_repository = run.object("head_repository")
    numbers = tuple(item.integer("number") for item in run.objects("pull_requests", 100))
    repository = event.object("repository")
    return WorkflowRunEvent(
        id=run.integer("id"),
        name=run.string("name", 256, nullable=True),
        event=run.string("event", 64),
        conclusion=run.string("conclusion", 64, nullable=True),
        head_sha=run.sha("head_sha"),
        head_branch=run.branch("head_branch"),
        head_repo=head_repository.full_name("full_name"),
        head_owner=head_repository.object("owner").login("login"),
        repository=repository.full_name("full_name"),
        pull_requests=numbers,
        default_branch=repository.branch("default_branch"),
    )


@dataclass(frozen=True, slots=True)
class IssueCommentEvent:
    """An `issue_comment` event (the `judge` workflow)."""

    action: str  # created, edited, deleted
    comment_id: int
    body: str
    user_login: str
    user_type: str  # User, Bot, Organization, Mannequin
    issue_number: int
    is_pull_request: bool  # the issue is a pull request (issue.pull_request is present)
    repository: str  # repository.full_name
    default_branch: str  # repository.default_branch


def issue_comment_event(data: object) -> IssueCommentEvent:
    """An `issue_comment` payload; raises `EventError` naming the first bad field."""
    event = _Fields(data, "")
    comment = event.object("comment")
    user = comment.object("user")
    issue = event.object("issue")
    repository = event.object("repository")
    is_pull_request = issue.has("pull_request")
    if is_pull_request:
        issue.object("pull_request")  # an object, not some other truthy value
    return IssueCommentEvent(
        action=event.string("action", 64),
        comment_id=comment.integer("id"),
        body=comment.string("body", MAX_BODY_CHARS, nullable=True),
        user_login=user.login("login"),
        user_type=user.choice("type", _USER_TYPES),
        issue_number=issue.integer("number"),
        is_pull_request=is_pull_request,
        repository=repository.full_name("full_name"),
        default_branch=repository.branch("default_branch"),
    )

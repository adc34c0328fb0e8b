"""A `/judge` comment on pull request #7 against an in-memory port (memory_port.py): the
event, the pull request, the bot's verdict comment before it, and `run` to respond to it.
Shared by the responder's unit tests."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime
from typing import Any

import yaml

from bot.app.api import VerifyReport
from bot.edges.github.port import CommentRef, PullRequestInfo
from bot.faces.github.events import IssueCommentEvent
from bot.faces.github.publish import build_publication
from bot.faces.github.responder import AttemptAtHead, respond
from bot.rules.verdict import AttemptVerdict, CheckState
from tests.unit.faces.github.memory_port import MemoryPort

REPO = "registry-org/registry"


FOLDER = "attempts/market-03/alice-lab/monitor-v1"


PATH = f"{FOLDER}/judgments.yaml"


DIGEST = "d" * 64


HEAD = "a" * 40


NOW = datetime(2027, 3, 4, 5, 6, 7, tzinfo=UTC)


REQUIRED = ("reconstructible", "per-instance-certificate", "not-toy-only", "broadly-capable")


# The verdict a /judge answers: pending, every required check not yet judged.
WAITING = {name: CheckState("missing") for name in REQUIRED}


COMMENT_ID = 500  # the /judge comment's id; the bot's verdict comment before it is 400


BOT = "github-actions[bot]"


def verdict_comment(
    digest: str, comment_id: int = 400, author: str = BOT, kind: str = "Bot"
) -> Any:
    """The bot's sticky verdict comment as publish writes it, showing `digest`."""
    verdict = AttemptVerdict(
        FOLDER, 3, "run", digest=digest, status="pending-judgment", checks=WAITING
    )
    body = build_publication(VerifyReport((verdict,)), HEAD).comment
    return CommentRef(comment_id, author, kind, body)


def event(body: str, login: str = "maint", **changes: Any) -> IssueCommentEvent:
    """The `/judge`-style comment `body` by `login` on PR #7, with `changes`."""
    base = IssueCommentEvent(
        action="created",
        comment_id=COMMENT_ID,
        body=body,
        user_login=login,
        user_type="User",
        issue_number=7,
        is_pull_request=True,
        repository=REPO,
        default_branch="main",
    )
    return replace(base, **changes)


def pull(**changes: Any) -> PullRequestInfo:
    """PR #7 from alice's fork at HEAD, open, with `changes`."""
    base = PullRequestInfo(
        number=7,
        author="alice",
        head_sha=HEAD,
        head_repo="alice/registry",  # a fork
        head_branch="attempt",
        base_branch="main",
        state="open",
        merged=False,
        merge_commit_sha=None,
        merged_at=None,
    )
    return replace(base, **changes)


class Recorder:
    """Stands in for the reader of the PR's head and for the re-post."""

    def __init__(self, attempt: AttemptAtHead | None = None) -> None:
        self.attempt = attempt or AttemptAtHead((FOLDER,), DIGEST, REQUIRED)
        self.read: list[str] = []
        self.reposted: list[PullRequestInfo] = []

    def read_attempt(self, pr: PullRequestInfo) -> AttemptAtHead:
        self.read.append(pr.head_sha)
        return self.attempt

    def repost(self, pr: PullRequestInfo) -> None:
        self.reposted.append(pr)


def port(**changes: Any) -> MemoryPort:
    """PR #7, on which the bot's verdict for the head's evidence (DIGEST) was posted before
    the /judge comment."""
    memory = MemoryPort(repository=REPO, roles={"maint": "maintain", "boss": "admin"})
    memory.pulls[7] = pull(**changes)
    memory.existing.append((7, verdict_comment(DIGEST)))
    return memory


def run(memory: MemoryPort, comment: IssueCommentEvent, recorder: Recorder | None = None) -> Any:
    """Respond to `comment` on `memory`; the outcome and the recorder."""
    recorder = recorder or Recorder()
    return respond(memory, comment, recorder.read_attempt, recorder.repost, NOW), recorder


def written(memory: MemoryPort, branch: str = "main") -> dict[str, Any]:
    """The judgments.yaml the responder committed on `branch`."""
    data: dict[str, Any] = yaml.safe_load(memory.files[branch][PATH][0])
    return data

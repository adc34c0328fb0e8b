"""A `/judge` that commits rebuilds the public site (issue 22): the judgments.yaml commit is
made with judge.yml's GITHUB_TOKEN, and GitHub starts no `push` workflow for it, so pages.yml
(on push to main) never ran and the site kept the pre-judgment statuses. The responder now
dispatches pages.yml on the branch it committed to, after re-posting the verdict; a /judge
that commits nothing dispatches nothing. Through the real gateway, against the fake GitHub."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.app.api import VerifyReport
from bot.edges.github.gateway import GitHubGateway
from bot.edges.github.port import GitHubError, PullRequestInfo
from bot.faces.github.cli import _repost
from bot.faces.github.events import IssueCommentEvent
from bot.faces.github.publish import VERDICT_AUTHOR, build_publication
from bot.faces.github.responder import PAGES_WORKFLOW, AttemptAtHead, Outcome, respond
from bot.rules.verdict import AttemptVerdict, CheckState
from tests.github.fakehub import FakeHub

FOLDER = "attempts/market-03/alice-lab/monitor-v1"
DIGEST = "d" * 64
HEAD = "a" * 40
NOW = datetime(2027, 3, 4, 5, 6, 7, tzinfo=UTC)
REQUIRED = ("reconstructible", "not-toy-only")
# The verdict a /judge answers: pending, every required check not yet judged.
WAITING = {name: CheckState("missing") for name in REQUIRED}
VERIFY = {"workflow": "verify.yml", "ref": "main", "inputs": {"pr": "7"}}
PAGES = {"workflow": PAGES_WORKFLOW, "ref": "main", "inputs": {}}


@pytest.fixture
def hub(fakehub: FakeHub) -> FakeHub:
    """PR #7 from a fork, the bot's verdict for its evidence posted, a maintainer `maint`."""
    fakehub.repo.commit_files("main", {"README.md": b"registry\n"})
    fakehub.repo.add_pull(7, "alice", HEAD, head_repo="alice/registry", head_branch="attempt")
    verdict = AttemptVerdict(
        FOLDER, 3, "run", digest=DIGEST, status="pending-judgment", checks=WAITING
    )
    shown = build_publication(VerifyReport((verdict,)), HEAD).comment
    fakehub.repo.add_comment(7, shown, VERDICT_AUTHOR, "Bot")
    fakehub.repo.roles.update({"maint": "maintain", "filer": "write"})
    return fakehub


def _comment(hub: FakeHub, body: str, login: str = "maint") -> IssueCommentEvent:
    comment_id = hub.repo.add_comment(7, body, login, "User")
    return IssueCommentEvent(
        action="created",
        comment_id=comment_id,
        body=body,
        user_login=login,
        user_type="User",
        issue_number=7,
        is_pull_request=True,
        repository=hub.repository,
        default_branch="main",
    )


def _read(pr: PullRequestInfo) -> AttemptAtHead:
    return AttemptAtHead((FOLDER,), DIGEST, REQUIRED)


def _respond(gateway: GitHubGateway, hub: FakeHub, body: str, login: str = "maint") -> Outcome:
    return respond(gateway, _comment(hub, body, login), _read, _repost(gateway, "main"), NOW)


def test_a_judge_that_commits_dispatches_verify_then_pages(
    hub: FakeHub, gateway: GitHubGateway
) -> None:
    seeded = len(hub.repo.commits)
    outcome = _respond(gateway, hub, "/judge reconstructible pass reruns")
    assert outcome.commit and outcome.reposted and outcome.site_rebuilt
    (commit,) = hub.repo.commits[seeded:]
    assert commit["branch"] == "main" and f"{FOLDER}/judgments.yaml" in commit["files"]
    # the verdict re-posted for the PR, then the site rebuilt on the branch committed to
    assert hub.repo.dispatches == [VERIFY, PAGES]
    posts = [r.path for r in hub.requests if r.method in ("POST", "PUT")]
    assert posts.index(f"/repos/{hub.repository}/contents/{FOLDER}/judgments.yaml") < posts.index(
        f"/repos/{hub.repository}/actions/workflows/{PAGES_WORKFLOW}/dispatches"
    )


@pytest.mark.parametrize(
    ("body", "login"),
    [
        ("/judge reconstructible pass", "filer"),  # not a maintainer: nothing recorded
        ("/judge no-such-check pass", "maint"),  # refused: not a check this attempt needs
        ("/judge reconstructible maybe", "maint"),  # refused: does not parse
        ("/help", "maint"),  # no judgment asked
        ("/frobnicate", "maint"),  # an unknown command
    ],
)
def test_a_judge_that_commits_nothing_dispatches_nothing(
    hub: FakeHub, gateway: GitHubGateway, body: str, login: str
) -> None:
    seeded = len(hub.repo.commits)
    outcome = _respond(gateway, hub, body, login)
    assert not outcome.commit and not outcome.reposted and not outcome.site_rebuilt
    assert hub.repo.commits[seeded:] == []
    assert hub.repo.dispatches == []
    assert hub.calls("POST", r".*/dispatches") == []


def test_a_refused_pages_dispatch_fails_the_run_after_the_judgment_is_recorded(
    hub: FakeHub, gateway: GitHubGateway
) -> None:
    """The judgment stands (committed, replied, verdict re-posted); the run goes red with
    GitHub's answer, so a maintainer sees the site was not rebuilt (start pages.yml by hand)."""
    seeded = len(hub.repo.commits)
    hub.fail_next("POST", rf".*/workflows/{PAGES_WORKFLOW}/dispatches", 404)
    with pytest.raises(GitHubError) as raised:
        _respond(gateway, hub, "/judge reconstructible pass")
    assert raised.value.status == 404
    assert len(hub.repo.commits[seeded:]) == 1
    assert hub.repo.dispatches == [VERIFY]
    assert hub.repo.comments_on(7)[-1].body.startswith("@maint recorded 1 judgment(s)")

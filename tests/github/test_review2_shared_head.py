"""Hostile review of issue 21 (review2): a PR's verdict keyed to that PR on a shared head."""

from __future__ import annotations

from bot.edges.github.gateway import GitHubGateway
from bot.faces.github.publish import PULL_REQUEST_RUN, build_publication, publish
from tests.github import reports
from tests.github.fakehub import FakeHub

HEAD = reports.HEAD
PUSHED = "b" * 40  # the honest filer's next commit


def _required(hub: FakeHub, sha: str) -> str | None:
    runs = [r for r in hub.repo.runs_named(PULL_REQUEST_RUN) if r.head_sha == sha]
    return runs[-1].conclusion if runs else None


def test_an_intruder_following_a_new_slugs_pushes_cannot_keep_the_filers_check_red(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Alice files under a new slug (unused on main, so its first filer claims it) in #7.
    Mallory opens #8 from her fork on #7's head commit: her report holds no `not-submitter`
    (the slug is new to her too), so she was not closed and the required check failed for
    both; Mallory pushed each new commit of Alice's to her branch too (any fork can), and #7's
    required check was red again, for as long as she kept following. Now the commit's author,
    whom GitHub links to Alice's account (no one can change it without changing the sha), tells
    whose PR it is: #8 is closed by its own run, and again when it reopens on the next push."""
    fakehub.repo.commit_authors.update({HEAD: "alice", PUSHED: "alice"})
    fakehub.repo.add_pull(7, "alice", HEAD, head_repo="alice/registry", head_branch="x")
    fakehub.repo.add_pull(8, "mallory", HEAD, head_repo="mallory/registry", head_branch="x")
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD)
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert fakehub.repo.pulls[8].state == "closed"
    assert _required(fakehub, HEAD) == "success"
    # Alice pushes a new commit; Mallory reopens #8 and pushes that commit to her branch too.
    for number in (7, 8):
        fakehub.repo.pulls[number].head_sha = PUSHED
    fakehub.repo.pulls[8].state = "open"
    publish(gateway, build_publication(reports.qualifying(), PUSHED, pr=8), 8, PUSHED)
    publish(gateway, build_publication(reports.qualifying(), PUSHED, pr=7), 7, PUSHED)
    assert fakehub.repo.pulls[7].state == "open"
    assert fakehub.repo.pulls[8].state == "closed"
    assert _required(fakehub, PUSHED) == "success"

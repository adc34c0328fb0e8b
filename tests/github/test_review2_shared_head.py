"""Hostile review of issue 21 (review2): a PR's verdict keyed to that PR on a shared head."""

from __future__ import annotations

import pytest

from bot.github.gateway import GitHubGateway
from bot.github.publish import PULL_REQUEST_RUN, build_publication, publish
from tests.github import reports
from tests.github.fakehub import FakeHub

HEAD = reports.HEAD
PUSHED = "b" * 40  # the honest filer's next commit


def _required(hub: FakeHub, sha: str) -> str | None:
    runs = [r for r in hub.repo.runs_named(PULL_REQUEST_RUN) if r.head_sha == sha]
    return runs[-1].conclusion if runs else None


@pytest.mark.xfail(
    strict=True,
    reason="review: on a new slug an intruder is no not-submitter, so its PR following the"
    " filer's head keeps the filer's required check red until a maintainer closes it",
)
def test_an_intruder_following_a_new_slugs_pushes_cannot_keep_the_filers_check_red(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Alice files under a new slug (unused on main, so its first filer claims it) in #7.
    Mallory opens #8 from her fork on #7's head commit: her report holds no `not-submitter`
    (the slug is new to her too), so she is not closed and the required check fails for both.
    spec-notes says the filer ends it by pushing a new commit; Mallory pushes that same commit
    to her branch (any fork can), and #7's required check is red again, for as long as she
    keeps following. The design refused exactly this for intruders ("an intruder then keeps an
    honest PR red as long as its own PR stays open, and follows each new push"); it still holds
    whenever the slug is new, i.e. for every first filing."""
    fakehub.repo.add_pull(7, "alice", HEAD, head_repo="alice/registry", head_branch="x")
    fakehub.repo.add_pull(8, "mallory", HEAD, head_repo="mallory/registry", head_branch="x")
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD)
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert _required(fakehub, HEAD) == "failure"
    # Alice pushes a new commit, as the notice tells her; Mallory pushes it to her branch too.
    for number in (7, 8):
        fakehub.repo.pulls[number].head_sha = PUSHED
    publish(gateway, build_publication(reports.qualifying(), PUSHED, pr=8), 8, PUSHED)
    publish(gateway, build_publication(reports.qualifying(), PUSHED, pr=7), 7, PUSHED)
    assert fakehub.repo.pulls[7].state == "open"
    assert _required(fakehub, PUSHED) == "success"

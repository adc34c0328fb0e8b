"""Review 3 of issue 21: a commit lookup that fails must not fail open.

`GitHubPort.commit_author` answered None both for a commit whose author email GitHub links to
no account and for a commit GitHub says it does not know (404, 422). The first-filing rule
(`identity._first_filing`) counts None as "nothing tells who wrote it": no finding. So a
lookup of the pull request's own head commit that GitHub answered 404 or 422 let a squatter's
first filing under a new slug pass, while the shared-head rule read the same None as "no
linked author" (all red). The PR's head commit exists (the run checked it out and GitHub named
it as the head): GitHub not knowing it is GitHub's error, and the job must stop (exit 2, no
verdict), as for a 5xx.
"""

from __future__ import annotations

import pytest

from bot.edges.github.gateway import GitHubGateway
from bot.edges.github.port import GitHubError
from tests.github.fakehub import FakeHub


@pytest.mark.parametrize("status", [404, 422])
def test_a_head_commit_github_does_not_know_is_an_error_not_an_unlinked_author(
    fakehub: FakeHub, gateway: GitHubGateway, status: int
) -> None:
    head = "d" * 40
    fakehub.repo.commit_authors[head] = "alice"  # the squatted filer's commit
    fakehub.fail_next("GET", r".*/commits/.*", status, body={"message": "No commit found"})
    with pytest.raises(GitHubError, match="GET author of commit"):
        gateway.commit_author(head)

"""On a head commit several open pull requests share, the one opened by the account GitHub links
the commit's author to is the filer's (`bot.faces.github.publish._on_head`): every other one is
closed, by its own run and by the filer's. Without such an author (none linked, or its account
opened none or several of them) every one fails, and the check says what the filer can do."""

from __future__ import annotations

from typing import Any

from bot.edges.github.gateway import GitHubGateway
from bot.faces.github.publish import (
    PULL_REQUEST_RUN,
    build_publication,
    publish,
    read_verdict_header,
)
from tests.github import reports
from tests.github.fakehub import FakeHub

HEAD = reports.HEAD
OTHER = "c" * 40  # another commit, not shared
SHARED_TITLE = "head commit shared with #{}: no pull request on it passes"


def _open(hub: FakeHub, number: int, author: str, sha: str = HEAD) -> None:
    hub.repo.add_pull(number, author, sha, head_repo=f"{author}/registry", head_branch="x")


def _required(hub: FakeHub, sha: str = HEAD) -> tuple[str | None, str | None, str | None]:
    runs = [r for r in hub.repo.runs_named(PULL_REQUEST_RUN) if r.head_sha == sha]
    return (runs[-1].conclusion, runs[-1].title, runs[-1].summary) if runs else (None, None, None)


def _states(hub: FakeHub) -> dict[int, str]:
    return {number: pull.state for number, pull in sorted(hub.repo.pulls.items())}


def test_the_commit_authors_pull_request_closes_an_intruder_on_a_new_slug(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Mallory's #8 on Alice's head commit, filing under Alice's new slug (no `not-submitter`):
    Alice's run closes #8 itself, saying why, and posts her own verdict, even when Mallory's
    run never comes (a first-time contributor's workflows wait for a maintainer's approval)."""
    fakehub.repo.commit_authors[HEAD] = "alice"
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    reverified: list[int] = []
    posted = publish(
        gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD, reverified.append
    )
    assert (posted.others_closed, posted.shared, posted.closed) == ({8}, frozenset(), False)
    assert reverified == []
    assert _states(fakehub) == {7: "open", 8: "closed"}
    assert _required(fakehub)[:2] == ("success", "changes only what a pull request may")
    (eight,) = fakehub.repo.comments_on(8)
    assert eight.body.startswith("**Closed: this pull request's head commit is also the head of #7")
    assert "opened by `alice`" in eight.body and read_verdict_header(eight.body) is None
    (seven,) = fakehub.repo.comments_on(7)
    assert "**Closed #8:" in seven.body and read_verdict_header(seven.body) is not None
    assert [c.path for c in fakehub.calls("GET", r"/repos/acme/registry/commits/.*")] == [
        f"/repos/acme/registry/commits/{HEAD}"
    ]


def test_the_intruders_own_run_closes_it_and_posts_no_required_check(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Mallory's run comes first (Alice's check was red from an earlier run): #8 posts nothing
    under the required name, is closed with its verdict comment saying why, and #7 is verified
    again."""
    fakehub.repo.commit_authors[HEAD] = "alice"
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    reverified: list[int] = []
    posted = publish(
        gateway, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD, reverified.append
    )
    assert (posted.closed, posted.shared, reverified) == (True, {7}, [7])
    assert fakehub.repo.runs_named(PULL_REQUEST_RUN) == []
    assert _states(fakehub) == {7: "open", 8: "closed"}
    (eight,) = fakehub.repo.comments_on(8)
    assert read_verdict_header(eight.body) is not None
    assert "head of #7, opened by `alice`" in eight.body


def test_an_intruder_reopening_is_closed_again(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    """Closed, Mallory reopens #8: its own run closes it again, and so does Alice's next run;
    Alice's required check stays green throughout."""
    fakehub.repo.commit_authors[HEAD] = "alice"
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert _states(fakehub) == {7: "open", 8: "closed"}
    fakehub.repo.pulls[8].state = "open"  # reopened: `check` and `verify` run for it
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD)
    assert posted.closed and _states(fakehub) == {7: "open", 8: "closed"}
    assert _required(fakehub)[0] == "success"
    fakehub.repo.pulls[8].state = "open"  # reopened again, its run awaiting approval
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert posted.others_closed == {8} and _states(fakehub) == {7: "open", 8: "closed"}
    assert [r.conclusion for r in fakehub.repo.runs_named(PULL_REQUEST_RUN)] == ["success"] * 2


def test_without_a_linked_author_every_pull_request_fails_and_the_check_says_what_to_do(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """No account linked to the head commit's author (Mallory authored another commit, which
    changes nothing): neither PR can be told to be the filer's; both fail, naming each other,
    and the check and comment tell the filer to commit with an email of their account."""
    fakehub.repo.commit_authors[OTHER] = "mallory"
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    _open(fakehub, 9, "mallory", OTHER)
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert (posted.shared, posted.others_closed, posted.closed) == ({8}, frozenset(), False)
    conclusion, title, summary = _required(fakehub)
    assert (conclusion, title) == ("failure", SHARED_TITLE.format(8))
    assert "(GitHub links the commit's author to no account)" in (summary or "")
    assert "git commit --amend --no-edit --reset-author" in (summary or "")
    (seven,) = fakehub.repo.comments_on(7)
    assert "--reset-author" in seven.body
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD)
    assert (posted.shared, posted.closed) == ({7}, False)
    assert _required(fakehub)[:2] == ("failure", SHARED_TITLE.format(7))
    assert set(_states(fakehub).values()) == {"open"}


def test_an_author_who_opened_none_or_several_of_them_decides_nothing(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """The commit's author is Carol, who opened none of #7 and #8: both fail. Then Alice is the
    author and opened two of them (#7 and #9): all three fail, none is closed."""
    fakehub.repo.commit_authors[HEAD] = "carol"
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert "the commit's author, `carol`, opened none of them" in (_required(fakehub)[2] or "")
    fakehub.repo.commit_authors[HEAD] = "alice"
    _open(fakehub, 9, "alice")
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD)
    assert (posted.shared, posted.closed) == ({7, 9}, False)
    conclusion, _, summary = _required(fakehub)
    assert conclusion == "failure" and "`alice`, opened several of them" in (summary or "")
    assert set(_states(fakehub).values()) == {"open"}


def test_the_commit_authors_pull_request_and_a_not_submitter_intruder(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Mallory's #8 files under Alice's slug (`not-submitter`) on Alice's commit: each run closes
    it (its own as a not-submitter, Alice's as not the commit's author); #7 stays green."""
    fakehub.repo.commit_authors[HEAD] = "alice"
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    posted = publish(gateway, build_publication(reports.not_submitter(), HEAD, pr=8), 8, HEAD)
    assert posted.closed and fakehub.repo.runs_named(PULL_REQUEST_RUN) == []
    assert "`not-submitter` below" in fakehub.repo.comments_on(8)[0].body
    fakehub.repo.pulls[8].state = "open"  # reopened
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert posted.others_closed == {8} and _states(fakehub) == {7: "open", 8: "closed"}
    assert _required(fakehub)[0] == "success"


def test_the_pull_request_of_the_commits_author_wins_even_when_that_is_not_the_first(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Mallory authored the commit and Alice opened a PR on it: Mallory's PR is the filer's and
    Alice's is closed. Alice could only have Mallory's commit as her head by pushing it
    herself; a commit of her own (a new sha) shares no head with Mallory's PR."""
    fakehub.repo.commit_authors[HEAD] = "mallory"
    _open(fakehub, 7, "alice")
    _open(fakehub, 8, "mallory")
    posted = publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert posted.closed and _states(fakehub) == {7: "closed", 8: "open"}
    assert "opened by `mallory`" in fakehub.repo.comments_on(7)[0].body


class _OpensAPullRequestMidway:
    """The gateway, but a PR on HEAD is opened (or reopened) right after the first listing."""

    def __init__(self, gateway: GitHubGateway, hub: FakeHub, number: int, author: str) -> None:
        self._gateway, self._hub, self._opened = gateway, hub, False
        self._number, self._author = number, author

    def __getattr__(self, name: str) -> Any:
        return getattr(self._gateway, name)

    def open_pull_requests(self) -> Any:
        found = self._gateway.open_pull_requests()
        if not self._opened:
            self._opened = True
            _open(self._hub, self._number, self._author)
        return found


def test_an_intruder_opened_while_the_filers_verdict_posts_is_closed_too(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """The race on the filer's side: #8 opens after #7's first listing; the second listing finds
    it, and #7's run closes it (its green check stands)."""
    fakehub.repo.commit_authors[HEAD] = "alice"
    _open(fakehub, 7, "alice")
    port = _OpensAPullRequestMidway(gateway, fakehub, 8, "mallory")
    posted = publish(port, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert (posted.others_closed, posted.shared) == ({8}, frozenset())
    assert _states(fakehub) == {7: "open", 8: "closed"}
    assert [r.conclusion for r in fakehub.repo.runs_named(PULL_REQUEST_RUN)] == ["success"]


def test_the_filer_opening_while_an_intruders_verdict_posts_wins(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """The race on the intruder's side: Mallory's #8 was alone at its first listing and posted
    its verdict; Alice's #7 opened meanwhile. The second listing makes #8 yield: it fails the
    commit (its own verdict must not stand), is closed, and #7 is verified again."""
    fakehub.repo.commit_authors[HEAD] = "alice"
    _open(fakehub, 8, "mallory")
    port = _OpensAPullRequestMidway(gateway, fakehub, 7, "alice")
    reverified: list[int] = []
    posted = publish(
        port, build_publication(reports.qualifying(), HEAD, pr=8), 8, HEAD, reverified.append
    )
    assert (posted.closed, posted.shared, reverified) == (True, {7}, [7])
    assert [r.conclusion for r in fakehub.repo.runs_named(PULL_REQUEST_RUN)] == [
        "success",
        "failure",
    ]
    assert _states(fakehub) == {7: "open", 8: "closed"}
    publish(gateway, build_publication(reports.qualifying(), HEAD, pr=7), 7, HEAD)
    assert _required(fakehub)[0] == "success"

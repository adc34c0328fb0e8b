"""`bot.edges.github.gateway` with the real PyGithub client over HTTP against the fake GitHub:
records, pagination, and the error policy (rate limits and 5xx waited out within a bound;
a create whose answer is lost is found, never made twice)."""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from bot.edges.github.gateway import GitHubGateway
from bot.edges.github.port import Annotation, GitHubError
from tests.github.fakehub import FakeHub, blob_sha
from tests.support import GATEWAY_NOW

SHA = "c" * 40
PULL = r"/repos/acme/registry/pulls/7"


def test_pull_request_record(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.add_pull(7, "alice", SHA, head_branch="try", head_repo="alice/registry")
    pull = gateway.pull_request(7)
    assert (pull.number, pull.author, pull.head_sha, pull.head_repo) == (
        7,
        "alice",
        SHA,
        "alice/registry",
    )
    assert (pull.head_branch, pull.base_branch, pull.state, pull.merged) == (
        "try",
        "main",
        "open",
        False,
    )
    assert [r.method for r in fakehub.requests] == ["GET"]  # lazy: one request


def test_merged_pull_request_and_pulls_of_commit(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    merge = "d" * 40
    fakehub.repo.add_pull(
        3, "bob", SHA, state="closed", merged_at="2027-01-05T10:00:00Z", merge_commit_sha=merge
    )
    fakehub.repo.commit_pulls[merge] = [3]
    (pull,) = gateway.pulls_of_commit(merge)
    assert pull.merged and pull.merge_commit_sha == merge
    assert pull.merged_at == datetime(2027, 1, 5, 10, tzinfo=UTC)
    assert gateway.pulls_of_commit("e" * 40) == []


def test_commit_author_is_the_linked_account_or_none(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """GET /commits/{sha} → `author.login`; null (an email linked to no account) is None; a
    commit GitHub does not know (422) is an error (review 3: None let a first filing pass), and
    so is a server error, after retries."""
    linked, unlinked = "d" * 40, "e" * 40
    fakehub.repo.commit_authors[linked] = "alice"
    fakehub.repo.add_pull(7, "bob", unlinked)
    assert gateway.commit_author(linked) == "alice"
    assert gateway.commit_author(unlinked) is None
    with pytest.raises(GitHubError, match="GET author of commit"):
        gateway.commit_author("f" * 40)
    assert [(r.path, r.status) for r in fakehub.calls("GET", r".*/commits/.*")][-1] == (
        f"/repos/acme/registry/commits/{'f' * 40}",
        422,
    )
    fakehub.fail_next("GET", r".*/commits/.*", 403, body={"message": "Resource not accessible"})
    with pytest.raises(GitHubError, match="GET author of commit"):
        gateway.commit_author(linked)


def test_fork_pull_request_found_only_at_its_head(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.add_pull(8, "alice", SHA, head_branch="main", head_repo="alice/registry")
    fakehub.repo.add_pull(9, "carol", "f" * 40, head_branch="main", head_repo="carol/registry")
    found = gateway.find_pull_request("alice", "main", SHA)
    assert found is not None and found.number == 8
    (lookup,) = [r for r in fakehub.requests if r.path.endswith("/pulls")]
    assert lookup.query["head"] == "alice:main" and lookup.query["state"] == "open"
    # the branch moved on since the check ran: no pull request for that run
    assert gateway.find_pull_request("alice", "main", "b" * 40) is None


def test_a_pull_request_is_found_into_the_base_asked_for(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    """Anyone may open a PR from alice's fork branch into another branch (#10, the newest, is
    listed first): the lookup asks GitHub for the base and checks it again."""
    fakehub.repo.add_pull(8, "alice", SHA, head_branch="attempt", head_repo="alice/registry")
    fakehub.repo.add_pull(
        10, "mallory", SHA, head_branch="attempt", head_repo="alice/registry", base_branch="x"
    )
    found = gateway.find_pull_request("alice", "attempt", SHA, base="main")
    assert found is not None and found.number == 8
    lookup = [r for r in fakehub.requests if r.path.endswith("/pulls")][-1]
    assert lookup.query["base"] == "main"
    unasked = gateway.find_pull_request("alice", "attempt", SHA)
    assert unasked is not None and unasked.number == 10


def test_deleted_fork_has_no_head_repository(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.add_pull(4, "alice", SHA, head_repo=None)
    assert gateway.pull_request(4).head_repo == ""


def test_reviews_and_roles(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    fakehub.repo.add_review(7, "maria", "APPROVED", SHA)
    (review,) = gateway.reviews(7)
    assert (review.login, review.state, review.commit_id) == ("maria", "APPROVED", SHA)
    assert review.submitted_at is not None and review.submitted_at.tzinfo is not None
    fakehub.repo.roles.update(maria="admin", max="maintain", wendy="write")
    assert [gateway.role(u) for u in ("maria", "max", "wendy", "stranger")] == [
        "admin",
        "maintain",
        "write",
        "none",
    ]


def test_a_hundred_and_twenty_comments_come_in_pages(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    for i in range(120):
        fakehub.repo.add_comment(7, f"comment {i}", "someone", "User")
    comments = gateway.comments(7)
    assert [c.body for c in comments] == [f"comment {i}" for i in range(120)]
    assert comments[0].author == "someone" and comments[0].author_type == "User"
    pages = fakehub.calls("GET", r".*/issues/7/comments")
    assert [r.query.get("page") for r in pages] == [None, "2"]


def test_comment_edit_and_labels(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    made = gateway.create_comment(7, "hello")
    assert made.author_type == "Bot" and made.html_url.startswith(fakehub.origin)
    gateway.edit_comment(made.id, "hello again")
    assert fakehub.repo.comments[made.id].body == "hello again"
    gateway.add_labels(7, ["evidence:valid", "verdict:qualifying"])
    gateway.remove_label(7, "evidence:valid")
    gateway.remove_label(7, "never-there")  # a 404: already gone
    assert gateway.labels(7) == ["verdict:qualifying"]


def test_check_runs(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    note = Annotation("a/b.yaml", 3, 3, "failure", "bad", "schema")
    run = gateway.create_check_run("registry: x", SHA, "t", "s", [note])
    gateway.update_check_run(run.id, "t", "s", [note], conclusion="failure")
    stored = fakehub.repo.check_runs[run.id]
    assert (stored.status, stored.conclusion, len(stored.annotations)) == (
        "completed",
        "failure",
        2,
    )
    assert stored.annotations[0]["title"] == "schema"
    (listed,) = gateway.check_runs(SHA, "registry: x")
    assert (listed.id, listed.conclusion) == (run.id, "failure")
    assert gateway.check_runs(SHA, "registry: y") == []


def test_files(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.commit_files("main", {"judgments.yaml": b"a: 1\n"})
    got = gateway.file("judgments.yaml", "main")
    assert got is not None and got.content == b"a: 1\n" and got.sha == blob_sha(b"a: 1\n")
    assert gateway.file("missing.yaml", "main") is None
    commit = gateway.put_file("judgments.yaml", b"a: 2\n", "judge", "main", got.sha)
    assert fakehub.repo.branches["main"] == commit
    with pytest.raises(GitHubError) as stale:
        gateway.put_file("judgments.yaml", b"a: 3\n", "judge", "main", got.sha)
    assert stale.value.status == 409
    created = gateway.put_file("new.yaml", b"n\n", "add", "main", None)
    assert fakehub.repo.trees[created]["new.yaml"] == b"n\n"


RATE_LIMITS = {
    "primary 403": (
        403,
        {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(GATEWAY_NOW) + 30)},
        {"message": "API rate limit exceeded for installation ID 1."},
        [31.0],
    ),
    "secondary 403": (
        403,
        {},
        {"message": "You have exceeded a secondary rate limit. Please wait a few minutes."},
        [60.0],
    ),
    "429 retry-after": (429, {"retry-after": "7"}, None, [7.0]),
    "429": (429, {}, None, [60.0]),
    "502": (502, {}, None, [2.0]),
    "no answer": (0, {}, None, [2.0]),
}


@pytest.mark.parametrize("case", sorted(RATE_LIMITS))
def test_reads_wait_out_rate_limits_and_server_errors(
    case: str, fakehub: FakeHub, gateway: GitHubGateway, sleeps: list[float]
) -> None:
    status, headers, body, waits = RATE_LIMITS[case]
    fakehub.repo.add_pull(7, "alice", SHA)
    fakehub.fail_next("GET", PULL, status, headers, body)
    assert gateway.pull_request(7).number == 7
    assert sleeps == waits
    assert [r.status for r in fakehub.requests] == [status, 200]


def test_a_wait_past_the_bound_fails_at_once_naming_the_call(
    fakehub: FakeHub, gateway: GitHubGateway, sleeps: list[float]
) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    reset = {"x-ratelimit-remaining": "0", "x-ratelimit-reset": str(int(GATEWAY_NOW) + 3600)}
    fakehub.fail_next("GET", PULL, 403, reset, {"message": "API rate limit exceeded"})
    with pytest.raises(GitHubError) as error:
        gateway.pull_request(7)
    assert error.value.status == 403 and "GET pull request #7" in error.value.message
    assert sleeps == []


def test_server_errors_are_retried_a_bounded_number_of_times(
    fakehub: FakeHub, gateway: GitHubGateway, sleeps: list[float]
) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    for _ in range(10):
        fakehub.fail_next("GET", PULL, 503)
    with pytest.raises(GitHubError) as error:
        gateway.pull_request(7)
    assert error.value.status == 503 and "gave up after 5 tries" in error.value.message
    assert len(fakehub.requests) == 5 and sleeps == [2.0, 4.0, 8.0, 16.0]


def test_a_refusal_is_not_retried(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    fakehub.fail_next("POST", r".*/comments", 403, {}, {"message": "Resource not accessible"})
    with pytest.raises(GitHubError) as error:
        gateway.create_comment(7, "hi")
    assert error.value.status == 403 and "Resource not accessible" in error.value.message
    assert len(fakehub.calls("POST", r".*/comments")) == 1


def test_a_comment_too_long_is_refused(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    with pytest.raises(GitHubError) as error:
        gateway.create_comment(7, "x" * 65_537)
    assert error.value.status == 422


@pytest.mark.parametrize("status", [502, 0])
def test_a_comment_whose_answer_is_lost_is_posted_once(
    status: int, fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    fakehub.repo.add_comment(7, "same words", "someone", "User")  # an older identical body
    fakehub.fail_next("POST", r".*/issues/7/comments", status, apply=True)
    made = gateway.create_comment(7, "same words")
    assert [c.body for c in fakehub.repo.comments_on(7)] == ["same words", "same words"]
    assert made.id == max(fakehub.repo.comments)


def test_a_comment_refused_with_a_502_is_posted_again(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    fakehub.fail_next("POST", r".*/issues/7/comments", 502)
    gateway.create_comment(7, "words")
    assert [c.body for c in fakehub.repo.comments_on(7)] == ["words"]
    assert len(fakehub.calls("POST", r".*/comments")) == 2


def test_a_check_run_whose_answer_is_lost_is_created_once(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    fakehub.fail_next("POST", r".*/check-runs", 502, apply=True)
    run = gateway.create_check_run("registry: x", SHA, "t", "s", [])
    assert list(fakehub.repo.check_runs) == [run.id]
    # a rate-limited create was not done by GitHub: it is sent again after the wait
    fakehub.fail_next("POST", r".*/check-runs", 429, {"retry-after": "1"})
    gateway.create_check_run("registry: y", SHA, "t", "s", [])
    assert [r.name for r in fakehub.repo.check_runs.values()] == ["registry: x", "registry: y"]


def test_workflow_dispatch(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    fakehub.repo.commit_files("main", {"README.md": b"registry\n"})
    gateway.dispatch_workflow("verify.yml", "main", {"pr": "7"})
    assert fakehub.repo.dispatches == [
        {"workflow": "verify.yml", "ref": "main", "inputs": {"pr": "7"}}
    ]
    with pytest.raises(GitHubError) as refused:
        gateway.dispatch_workflow("verify.yml", "no-such-branch", {"pr": "7"})
    assert refused.value.status == 422


@pytest.mark.parametrize(
    "body",
    [
        {"number": 7},  # no head, no user
        {"number": 7, "head": "main", "base": None, "user": 3, "state": "open"},
        [1, 2, 3],
    ],
)
def test_an_answer_unlike_githubs_is_an_error_not_a_traceback(
    fakehub: FakeHub, gateway: GitHubGateway, body: object
) -> None:
    fakehub.repo.add_pull(7, "alice", SHA)
    fakehub.fail_next("GET", PULL, 200, body=body)
    with pytest.raises(GitHubError) as error:
        gateway.pull_request(7)
    assert "GET pull request #7" in error.value.message
    assert error.value.status is None


def test_issues_created_and_found_by_label(fakehub: FakeHub, gateway: GitHubGateway) -> None:
    made = gateway.create_issue("Market 3 resolved YES", "body <!-- m -->", ["resolution"])
    gateway.create_issue("Market 5: copy missing", "other", ["registry-warning"])
    fakehub.repo.add_pull(7, "alice", SHA)  # a pull request is no issue
    (found,) = gateway.issues("resolution")
    assert found == made
    assert (found.title, found.body, found.labels, found.state) == (
        "Market 3 resolved YES",
        "body <!-- m -->",
        ("resolution",),
        "open",
    )
    assert fakehub.calls("GET", r"/repos/acme/registry/issues")[-1].query["labels"] == "resolution"


def test_issue_whose_answer_is_lost_is_found_not_posted_twice(
    fakehub: FakeHub, gateway: GitHubGateway
) -> None:
    fakehub.fail_next("POST", r"/repos/acme/registry/issues", 502, apply=True)
    made = gateway.create_issue("Market 2 annulled", "why", ["annulled"])
    assert len(fakehub.repo.issues) == 1
    assert made.title == "Market 2 annulled"
    assert len(fakehub.calls("POST", r"/repos/acme/registry/issues")) == 1

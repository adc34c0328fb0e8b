"""bot/app/identity.py and the pure parts of bot/faces/github/facts.py: slug owners, approvals,
landing confirmations and submitters.yaml, with values in and findings out."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta

import pytest

from bot.app.identity import Filer, SlugOwners, check_identity, landing_refusal, slug_of
from bot.edges.github.port import PullRequestInfo, Review
from bot.faces.github.facts import maintainer_approved, read_submitters
from bot.vocab.commits import Landing
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code
from tests.support import MemoryTree

FOLDER = "attempts/market-03/alice-lab/monitor-v1"
SHA = "a" * 40
MERGED = datetime(2027, 1, 10, 12, tzinfo=UTC)


def _filer(author: str, owners: SlugOwners, maintainer: bool = False) -> Filer:
    return Filer(7, author, maintainer, owners={"alice-lab": owners})


def test_slug_of() -> None:
    assert slug_of(FOLDER) == "alice-lab"
    assert slug_of("markets/market-03.yaml") is None


def test_an_owner_files_under_their_slug_whatever_the_case() -> None:
    owners = SlugOwners(("Alice",), "merged pull requests")
    assert check_identity(_filer("alice", owners), [FOLDER]) == []


def test_someone_else_is_not_the_submitter() -> None:
    owners = SlugOwners(("alice",), "submitters.yaml")
    (finding,) = check_identity(_filer("mallory", owners), [FOLDER])
    assert (finding.code, finding.file) == (Code.NOT_SUBMITTER, FOLDER)
    assert "#7 by mallory files under the submitter alice-lab" in finding.message
    assert "belongs to alice (from submitters.yaml)" in finding.message


def test_a_used_slug_without_known_owners_belongs_to_nobody() -> None:
    (finding,) = check_identity(_filer("mallory", SlugOwners((), "merged pull requests")), [FOLDER])
    assert "belongs to nobody GitHub knows of" in finding.message


def test_a_new_slug_is_free_and_maintainers_file_anywhere() -> None:
    assert check_identity(_filer("newcomer", SlugOwners()), [FOLDER]) == []
    owners = SlugOwners(("alice",), "submitters.yaml")
    assert check_identity(_filer("maint", owners, maintainer=True), [FOLDER]) == []


def _first_filer(author: str, head_author: str | None, maintainer: bool = False) -> Filer:
    return Filer(7, author, maintainer, owners={"alice-lab": SlugOwners()}, head_author=head_author)


def test_a_squatter_on_the_commit_authors_new_slug_is_not_the_submitter() -> None:
    """Mallory opens a PR on Alice's commit (fetched from her public fork) before she does:
    the slug is new, but GitHub links the commit's author to alice, not to mallory."""
    (finding,) = check_identity(_first_filer("mallory", "alice"), [FOLDER])
    assert (finding.code, finding.file) == (Code.NOT_SUBMITTER, FOLDER)
    assert "#7 by mallory is the first filing under the new submitter alice-lab" in finding.message
    assert "GitHub links its head commit's author to alice" in finding.message
    assert "let alice open it" in finding.message
    assert "git commit --amend --no-edit --reset-author" in finding.message


def test_the_commit_author_files_a_new_slug_whatever_the_case() -> None:
    assert check_identity(_first_filer("Alice", "alice"), [FOLDER]) == []


def test_a_new_slug_whose_commit_github_links_to_no_account_is_free() -> None:
    """No account linked to the commit's email: nothing tells who wrote it; no finding."""
    assert check_identity(_first_filer("mallory", None), [FOLDER]) == []


def test_a_maintainer_files_a_new_slug_on_someone_elses_commit() -> None:
    assert check_identity(_first_filer("maint", "alice", maintainer=True), [FOLDER]) == []


def test_the_head_commits_author_changes_nothing_for_an_owned_slug() -> None:
    """An owned slug is decided by its owners alone: the commit's author neither helps an
    outsider nor hinders an owner who files a colleague's commit."""
    listed = SlugOwners(("alice",), "submitters.yaml")
    owner = replace(_filer("alice", listed), head_author="bob")
    assert check_identity(owner, [FOLDER]) == []
    outsider = replace(_filer("mallory", listed), head_author="mallory")
    (finding,) = check_identity(outsider, [FOLDER])
    assert "belongs to alice (from submitters.yaml)" in finding.message
    merged = SlugOwners(("alice",), "merged pull requests")
    assert check_identity(replace(_filer("alice", merged), head_author="bob"), [FOLDER]) == []


def _review(login: str, state: str, sha: str = SHA) -> Review:
    return Review(login, state, sha, MERGED)


@pytest.mark.parametrize(
    ("reviews", "approved"),
    [
        ([_review("maint", "APPROVED")], True),
        ([_review("maint", "APPROVED", "b" * 40)], False),  # an older head
        ([_review("friend", "APPROVED")], False),  # not a maintainer
        ([_review("maint", "APPROVED"), _review("maint", "CHANGES_REQUESTED")], False),
        ([_review("maint", "APPROVED"), _review("maint", "DISMISSED")], False),
        ([_review("maint", "APPROVED"), _review("maint", "COMMENTED")], True),
        ([], False),
    ],
)
def test_a_maintainers_approval_of_the_head(reviews: list[Review], approved: bool) -> None:
    assert maintainer_approved(reviews, SHA, lambda login: login == "maint") is approved


def _pull(number: int, merged_at: datetime | None, sha: str | None = SHA) -> PullRequestInfo:
    return PullRequestInfo(
        number, "alice", "c" * 40, "fork/r", "b", "main", "closed", merged_at is not None,
        sha, merged_at,
    )  # fmt: skip


def _landing(merge: bool = True) -> Landing:
    return Landing(SHA, MERGED, "Merge", merge=merge, committed_as_written=MERGED)


def test_a_landing_confirmed_as_a_merge_or_squash_commit() -> None:
    assert landing_refusal(_landing(), [_pull(3, MERGED + timedelta(seconds=2))]) is None
    assert landing_refusal(_landing(merge=False), [_pull(3, MERGED)]) is None


@pytest.mark.parametrize(
    ("pulls", "said"),
    [
        ([], "the API lists no pull request for it"),
        ([_pull(3, None)], "the API lists #3 for it, none merged with it as the merge commit"),
        ([_pull(3, MERGED, "d" * 40)], "none merged with it as the merge commit"),
        (
            [_pull(3, MERGED + timedelta(minutes=11))],
            "pull request #3 merged it at 2027-01-10T12:11:00+00:00, but the commit is dated"
            " 2027-01-10T12:00:00+00:00",
        ),
    ],
)
def test_a_landing_the_api_does_not_confirm(pulls: list[PullRequestInfo], said: str) -> None:
    refusal = landing_refusal(_landing(), pulls)
    assert refusal is not None and said in refusal


def test_submitters_yaml_is_read_and_checked() -> None:
    tree = MemoryTree({"submitters.yaml": b"submitters:\n  alice-lab:\n    logins: [alice, bob]\n"})
    assert read_submitters(tree) == {"alice-lab": ("alice", "bob")}
    assert read_submitters(MemoryTree({})) == {}
    with pytest.raises(ClaimsError, match=r"submitters\.yaml on the base branch is invalid"):
        read_submitters(MemoryTree({"submitters.yaml": b"submitters:\n  Alice_Lab: {}\n"}))


def test_a_landing_merged_into_another_branch_is_not_confirmed() -> None:
    """Attack: a freeze PR merged into another branch (GitHub writes the merge commit and
    merged_at there), and that branch fast-forwarded onto main weeks later: the merge commit
    is then main's first-parent landing, dated at the merge into the other branch."""
    staging = replace(_pull(3, MERGED), base_branch="staging")
    refusal = landing_refusal(_landing(), [staging], "main")
    assert refusal == ("the API lists #3 for it, none merged into main with it as the merge commit")
    assert landing_refusal(_landing(), [_pull(3, MERGED)], "main") is None

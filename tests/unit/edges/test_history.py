"""bot/edges/history.py: when a file landed on main, what main held at a moment, and tags.

GitHistory is checked against a real repository built here, commit by commit at fixed dates:

    c1   2027-01-01  markets/market-03.yaml v1, shared/rules.yaml          (on main)
    pr1  2027-01-05  attempts/a/freeze.yaml                                (branch pr-1)
    M1   2027-01-10  merge of pr-1 (two parents)                           (main)
    pr2  2027-01-15  attempts/b/freeze.yaml                                (fast-forwarded)
    c4   2027-02-01  markets/market-03.yaml v2, shared/rules.yaml deleted  (main)
"""

from __future__ import annotations

import os
import re
import subprocess
from datetime import UTC, datetime, timedelta
from pathlib import Path

import git
import pytest

from bot.edges.history import GitHistory, MemoryHistory, NoHistory, merged_history, open_history
from bot.vocab.commits import Change, Landing, Tag, blob_id
from bot.vocab.errors import ClaimsError
from tests.unit.gitrepo import at, commit, init_repo, merge, stamp

MARKET = "markets/market-03.yaml"
RULES = "shared/rules.yaml"
FREEZE_A = "attempts/a/freeze.yaml"
FREEZE_B = "attempts/b/freeze.yaml"
V1, V2 = b"id: 3\nversion: 1\n", b"id: 3\nversion: 2\n"
FREEZE = b"cases: 10\n"
LIMIT = 1 << 20


class Built:
    """The repository above, with the sha of each of its commits."""

    def __init__(self, root: Path) -> None:
        self.repo = init_repo(root)
        repo = self.repo
        self.c1 = commit(repo, "markets", at(1), {MARKET: V1, RULES: b"rules: 1\n"})
        repo.git.checkout("-q", "-b", "pr-1")
        self.pr1 = commit(repo, "freeze a", at(5), {FREEZE_A: FREEZE})
        repo.git.checkout("-q", "main")
        self.m1 = merge(repo, "pr-1", at(10))
        repo.git.checkout("-q", "-b", "pr-2")
        self.pr2 = commit(repo, "freeze b", at(15), {FREEZE_B: FREEZE + b"b\n"})
        repo.git.checkout("-q", "main")
        assert merge(repo, "pr-2", at(16), fast_forward=True) == self.pr2
        self.c4 = commit(repo, "market v2", at(1, month=2), {MARKET: V2, RULES: None})


@pytest.fixture(scope="module")
def built(tmp_path_factory: pytest.TempPathFactory) -> Built:
    return Built(tmp_path_factory.mktemp("history") / "repo")


@pytest.fixture
def history(built: Built) -> GitHistory:
    return GitHistory(built.repo, "main")


# ---- landing --------------------------------------------------------------------------------


def test_a_file_merged_by_a_merge_commit_landed_with_the_merge(
    built: Built, history: GitHistory
) -> None:
    landing = history.landing(FREEZE_A, blob_id(FREEZE))
    assert isinstance(landing, Landing)
    # The merge commit GitHub wrote, at the merge time: not the PR's own commit and date.
    assert (landing.sha, landing.committed_at) == (built.m1, at(10))
    assert landing.merge is True
    assert landing.clamped is False
    assert landing.message == "Merge pull request from pr-1"
    assert len(built.repo.commit(landing.sha).parents) == 2


def test_a_fast_forwarded_file_landed_with_its_own_commit(
    built: Built, history: GitHistory
) -> None:
    landing = history.landing(FREEZE_B, blob_id(FREEZE + b"b\n"))
    assert isinstance(landing, Landing)
    assert (landing.sha, landing.committed_at, landing.message) == (built.pr2, at(15), "freeze b")
    assert landing.merge is False
    assert landing.clamped is False


def test_a_landing_names_its_committer(built: Built, history: GitHistory) -> None:
    """GitHub's web flow wrote the merge; the fast-forwarded commit is the filer's own."""
    merged = history.landing(FREEZE_A, blob_id(FREEZE))
    own = history.landing(FREEZE_B, blob_id(FREEZE + b"b\n"))
    assert isinstance(merged, Landing) and isinstance(own, Landing)
    assert (merged.committer_name, merged.committer_email, merged.web_flow) == (
        "GitHub",
        "noreply@github.com",
        True,
    )
    assert (own.committer_name, own.committer_email, own.web_flow) == (
        "Unit Test",
        "unit@tests.invalid",
        False,
    )
    assert merged.committed_as_written == at(10)


def test_a_committer_name_holding_nul_separated_lookalikes_is_read_as_a_name(
    tmp_path: Path,
) -> None:
    """The name and email are tokens of their own: nothing in them is read as a header."""
    repo = init_repo(tmp_path)
    with repo.git.custom_environment(
        GIT_COMMITTER_NAME="commit 0000 1 :100644 x", GIT_COMMITTER_EMAIL="a@b"
    ):
        sha = commit(repo, "f", at(1), {"f": b"f\n"})
    landing = GitHistory(repo, "main").landing("f", blob_id(b"f\n"))
    assert isinstance(landing, Landing)
    assert (landing.sha, landing.committer_name) == (sha, "commit 0000 1 :100644 x")


def test_tree_paths_and_commits_touching(built: Built, history: GitHistory) -> None:
    assert set(history.tree_paths("main")) == {MARKET, FREEZE_A, FREEZE_B}
    assert history.commits_touching(re.compile(r"attempts/a/")) == [built.m1]
    assert history.commits_touching(re.compile(r"attempts/")) == [built.pr2, built.m1]
    assert history.commits_touching(re.compile(r"nothing/")) == []


def test_a_file_first_committed_on_main_landed_there(built: Built, history: GitHistory) -> None:
    landing = history.landing(MARKET, blob_id(V2))
    assert isinstance(landing, Landing)
    assert (landing.sha, landing.committed_at, landing.merge) == (built.c4, at(1, 2), False)


def test_a_different_blob_differs_from_main(history: GitHistory) -> None:
    # The freeze as main has it is FREEZE; the file being verified says something else.
    answer = history.landing(FREEZE_A, blob_id(b"cases: 11\n"))
    assert answer == (
        f"{FREEZE_A} differs from the version on main: a freeze may not change after it is merged"
    )
    # An older version is no longer the one on main either.
    assert isinstance(history.landing(MARKET, blob_id(V1)), str)
    assert "differs" in str(history.landing(MARKET, blob_id(V1)))


@pytest.mark.parametrize("path", ["attempts/c/freeze.yaml", RULES])
def test_an_absent_or_deleted_path_is_not_on_main(history: GitHistory, path: str) -> None:
    answer = history.landing(path, blob_id(b"rules: 1\n"))
    assert isinstance(answer, str)
    assert answer.startswith(f"{path} is not on main:")


def test_a_branch_only_file_is_not_on_main(built: Built, history: GitHistory) -> None:
    repo = built.repo
    repo.git.checkout("-q", "-b", "pr-open")
    try:
        commit(repo, "unmerged", at(5, 2), {"attempts/d/freeze.yaml": FREEZE})
    finally:
        repo.git.checkout("-q", "main")
    fresh = GitHistory(repo, "main")
    assert "is not on main" in str(fresh.landing("attempts/d/freeze.yaml", blob_id(FREEZE)))
    assert isinstance(
        GitHistory(repo, "pr-open").landing("attempts/d/freeze.yaml", blob_id(FREEZE)), Landing
    )


def test_a_backdated_fast_forward_is_clamped_to_the_commit_before_it(tmp_path: Path) -> None:
    # A filer who fast-forwards main to their own commit chooses its date: Tf is never taken
    # as earlier than the date of the commit before it on main.
    repo = init_repo(tmp_path)
    before = commit(repo, "base", at(10), {"README": b"x\n"})
    backdated = commit(repo, "backdated freeze", at(1), {FREEZE_A: FREEZE})
    landing = GitHistory(repo, "main").landing(FREEZE_A, blob_id(FREEZE))
    assert isinstance(landing, Landing)
    assert (landing.sha, landing.committed_at, landing.clamped) == (backdated, at(10), True)
    assert repo.commit(before).committed_datetime == at(10)


def test_landing_uses_the_committer_date_not_the_author_date(tmp_path: Path) -> None:
    repo = init_repo(tmp_path)
    (tmp_path / "f").write_bytes(b"f\n")
    repo.git.add("f")
    with repo.git.custom_environment(
        GIT_AUTHOR_DATE=stamp(at(1)), GIT_COMMITTER_DATE=stamp(at(20))
    ):
        repo.git.commit("-q", "-m", "f")
    landing = GitHistory(repo, "main").landing("f", blob_id(b"f\n"))
    assert isinstance(landing, Landing)
    assert landing.committed_at == at(20)


def test_landing_in_a_registry_under_a_prefix(tmp_path: Path) -> None:
    repo = init_repo(tmp_path)
    sha = commit(repo, "registry", at(1), {f"registry/{FREEZE_A}": FREEZE, FREEZE_A: b"other\n"})
    landing = GitHistory(repo, "main", prefix="registry").landing(FREEZE_A, blob_id(FREEZE))
    assert isinstance(landing, Landing) and landing.sha == sha
    assert "differs" in str(GitHistory(repo, "main").landing(FREEZE_A, blob_id(FREEZE)))


def test_the_history_as_it_stood_at_a_commit(built: Built, history: GitHistory) -> None:
    then = history.at(built.m1)
    answer = then.landing(FREEZE_B, blob_id(FREEZE + b"b\n"))
    assert answer == (
        f"{FREEZE_B} is not on {built.m1}: the freeze must be merged to {built.m1}"
        " before any trial runs"
    )
    landing = then.landing(MARKET, blob_id(V1))
    assert isinstance(landing, Landing) and landing.sha == built.c1


# ---- content_at -----------------------------------------------------------------------------


def test_content_at_a_moment(history: GitHistory) -> None:
    assert history.content_at(MARKET, at(20), LIMIT) == V1  # before the later change
    assert history.content_at(MARKET, at(1, 2) - timedelta(seconds=1), LIMIT) == V1
    assert history.content_at(MARKET, at(1, 2), LIMIT) == V2  # the moment it was committed
    assert history.content_at(MARKET, at(1, 3), LIMIT) == V2
    assert history.content_at(MARKET, at(20), 4) == V1[:4]


def test_content_at_before_the_file_existed_is_none(history: GitHistory) -> None:
    assert history.content_at(MARKET, at(1) - timedelta(seconds=1), LIMIT) is None
    # The merged freeze: on its branch from the 5th, on main only from the merge on the 10th.
    assert history.content_at(FREEZE_A, at(9), LIMIT) is None
    assert history.content_at(FREEZE_A, at(10), LIMIT) == FREEZE
    assert history.content_at("nothing.yaml", at(1, 3), LIMIT) is None


def test_content_at_after_a_deletion_is_none(history: GitHistory) -> None:
    assert history.content_at(RULES, at(20), LIMIT) == b"rules: 1\n"
    assert history.content_at(RULES, at(1, 3), LIMIT) is None


def test_content_at_the_tip_of_the_base_branch(built: Built, history: GitHistory) -> None:
    assert history.content_at_tip(MARKET, LIMIT) == V2
    assert history.content_at_tip(MARKET, 4) == V2[:4]
    assert history.content_at_tip(FREEZE_A, LIMIT) == FREEZE
    assert history.content_at_tip(RULES, LIMIT) is None  # deleted on main
    assert history.content_at_tip("nothing.yaml", LIMIT) is None
    # The tip of the history's own base: here, older commits.
    assert history.at(built.m1).content_at_tip(MARKET, LIMIT) == V1
    assert history.at(built.pr1).content_at_tip(FREEZE_A, LIMIT) == FREEZE
    assert history.at(built.c1).content_at_tip(FREEZE_A, LIMIT) is None


# ---- tags -----------------------------------------------------------------------------------


def test_annotated_and_lightweight_tags(built: Built, tmp_path: Path) -> None:
    repo = built.repo
    with repo.git.custom_environment(GIT_COMMITTER_DATE=stamp(at(2, 7))):
        repo.create_tag("snapshot-2027-06-30", ref=built.m1, message="snapshot")
    repo.create_tag("light", ref=built.c1)
    history = GitHistory(repo, "main")
    assert history.tag("snapshot-2027-06-30") == Tag(
        "snapshot-2027-06-30", built.m1, True, at(2, 7)
    )
    # The tag object's own id is not the commit: the peeled commit is.
    assert repo.git.rev_parse("snapshot-2027-06-30") != built.m1
    assert history.tag("light") == Tag("light", built.c1, False, None)
    assert history.tag("snapshot-2099-01-01") is None


def test_tagger_dates_are_in_utc(tmp_path: Path) -> None:
    repo = init_repo(tmp_path)
    sha = commit(repo, "base", at(1), {"README": b"x\n"})
    with repo.git.custom_environment(GIT_COMMITTER_DATE="2027-07-02T14:00:00+02:00"):
        repo.create_tag("snapshot", message="snapshot")
    tag = GitHistory(repo, "main").tag("snapshot")
    assert tag == Tag("snapshot", sha, True, datetime(2027, 7, 2, 12, tzinfo=UTC))
    assert tag is not None and tag.tagged_at is not None and tag.tagged_at.tzinfo is not None


# ---- a pull request's changes ---------------------------------------------------------------


def test_changes_of_a_branch_against_main(built: Built, tmp_path: Path) -> None:
    clone = git.Repo.clone_from(str(built.repo.working_tree_dir), tmp_path / "clone")
    with clone.config_writer() as config:
        config.set_value("user", "name", "Unit Test")
        config.set_value("user", "email", "unit@tests.invalid")
    clone.git.checkout("-q", "-b", "pr")
    commit(clone, "edit", at(5, 2), {FREEZE_A: b"changed\n", FREEZE_B: None, "attempts/e/x": b"x"})
    changes = GitHistory(clone, "main").changes("pr")
    assert sorted(changes, key=lambda change: change.path) == [
        Change(FREEZE_A, "M", "100644", blob_id(b"changed\n"), b"changed\n"),
        Change(FREEZE_B, "D", "000000"),
        Change("attempts/e/x", "A", "100644", blob_id(b"x"), b"x"),
    ]


# ---- open_history, NoHistory, MemoryHistory -------------------------------------------------


def test_open_history_of_a_repository(built: Built) -> None:
    history = open_history(Path(str(built.repo.working_tree_dir)), None)
    assert isinstance(history, GitHistory)
    assert (history.base_ref, history.unavailable, history.prefix) == ("main", None, "")
    with pytest.raises(ClaimsError, match="base ref 'nope' does not exist"):
        open_history(Path(str(built.repo.working_tree_dir)), "nope")


def test_open_history_without_a_repository_is_no_history(tmp_path: Path) -> None:
    history = open_history(tmp_path, None)
    assert isinstance(history, NoHistory)
    assert history.unavailable is not None
    assert "not in a git repository" in history.unavailable


def test_open_history_without_main_is_no_history(tmp_path: Path) -> None:
    repo = init_repo(tmp_path)
    commit(repo, "base", at(1), {"README": b"x\n"})
    repo.git.branch("-m", "main", "trunk")
    history = open_history(tmp_path, None)
    assert isinstance(history, NoHistory)
    assert "--base-ref" in str(history.unavailable)
    assert isinstance(open_history(tmp_path, "trunk"), GitHistory)


def test_no_history_answers_with_its_reason() -> None:
    reason = "/x is not in a git repository, so the freeze order cannot be checked"
    history = NoHistory(reason)
    assert (history.base_ref, history.unavailable) == (None, reason)
    assert history.landing(FREEZE_A, blob_id(FREEZE)) == reason
    assert history.content_at(MARKET, at(1), LIMIT) is None
    assert history.content_at_tip(MARKET, LIMIT) is None
    assert history.tag("snapshot-2027-06-30") is None


def test_memory_history_answers_from_what_it_was_given() -> None:
    landing = Landing("a" * 40, at(10), "Merge pull request #1")
    tag = Tag("snapshot-2027-06-30", "b" * 40, True, at(2, 7))
    history = MemoryHistory(
        landings={(FREEZE_A, blob_id(FREEZE)): landing},
        contents={MARKET: [(at(1), V1), (at(1, 2), V2)]},
        tags={tag.name: tag},
    )
    assert (history.base_ref, history.unavailable) == ("main", None)
    assert history.landing(FREEZE_A, blob_id(FREEZE)) is landing
    assert history.landing(FREEZE_A, blob_id(b"other")) == f"{FREEZE_A} is not on main"
    assert history.landing(FREEZE_B, blob_id(FREEZE)) == f"{FREEZE_B} is not on main"
    assert history.content_at(MARKET, at(1) - timedelta(seconds=1), LIMIT) is None
    assert history.content_at(MARKET, at(20), LIMIT) == V1
    assert history.content_at(MARKET, at(1, 2), LIMIT) == V2
    assert history.content_at(MARKET, at(1, 3), 4) == V2[:4]
    assert history.content_at(FREEZE_B, at(1, 3), LIMIT) is None
    assert history.content_at_tip(MARKET, LIMIT) == V2
    assert history.content_at_tip(MARKET, 4) == V2[:4]
    assert history.content_at_tip(FREEZE_B, LIMIT) is None
    assert history.tag(tag.name) is tag
    assert history.tag("light") is None


def test_several_backdated_commits_are_clamped_to_the_latest_before_them(tmp_path: Path) -> None:
    # Review finding: main at day 20, then a plain commit dated day 2 and a merge of the
    # freeze dated day 3, fast-forwarded onto main. Comparing with the one commit before
    # gave day 3; every older commit counts, so Tf is day 20.
    repo = init_repo(tmp_path)
    commit(repo, "main's tip", at(20), {"README": b"x\n"})
    repo.git.checkout("-q", "-b", "pr")
    commit(repo, "backdated one", at(2), {"other": b"y\n"})
    repo.git.checkout("-q", "-b", "freeze", "HEAD~1")
    commit(repo, "freeze", at(1), {FREEZE_A: FREEZE})
    repo.git.checkout("-q", "pr")
    merged = merge(repo, "freeze", at(3))
    repo.git.checkout("-q", "main")
    merge(repo, "pr", at(3), fast_forward=True)
    landing = GitHistory(repo, "main").landing(FREEZE_A, blob_id(FREEZE))
    assert isinstance(landing, Landing)
    assert (landing.sha, landing.committed_at, landing.clamped) == (merged, at(20), True)


def test_content_at_uses_the_clamped_dates(tmp_path: Path) -> None:
    # A judgment commit backdated before the window's close does not count as there then.
    repo = init_repo(tmp_path)
    commit(repo, "tip", at(20), {"README": b"x\n"})
    commit(repo, "backdated judgment", at(5), {"j.yaml": b"late\n"})
    history = GitHistory(repo, "main")
    assert history.content_at("j.yaml", at(10), 100) is None
    assert history.content_at("j.yaml", at(21), 100) == b"late\n"


def test_separator_bytes_in_subjects_and_paths_do_not_break_the_index(tmp_path: Path) -> None:
    # Review finding: a \x1e in a squash-merge subject or a path stopped every verify.
    repo = init_repo(tmp_path)
    commit(repo, "title \x1e with RS \x1f and US", at(1), {"docs/a\x1eb.md": b"x\n"})
    commit(repo, "freeze", at(2), {FREEZE_A: FREEZE})
    history = GitHistory(repo, "main")
    landing = history.landing(FREEZE_A, blob_id(FREEZE))
    assert isinstance(landing, Landing) and landing.committed_at == at(2)
    assert isinstance(history.landing("docs/a\x1eb.md", blob_id(b"x\n")), Landing)


def test_tags_of_trees_and_blobs_are_no_snapshots(tmp_path: Path) -> None:
    repo = init_repo(tmp_path)
    commit(repo, "base", at(1), {"README": b"x\n"})
    tree = repo.git.rev_parse("HEAD^{tree}")
    blob = repo.git.rev_parse("HEAD:README")
    repo.git.tag("-a", "-m", "a tree", "snapshot-tree", tree)
    repo.git.tag("snapshot-blob", blob)
    repo.git.tag("-a", "-m", "ok", "snapshot-ok", "HEAD")
    history = GitHistory(repo, "main")
    assert history.tag("snapshot-tree") is None
    assert history.tag("snapshot-blob") is None
    assert history.tag("snapshot-ok") is not None


def test_a_sha256_repository_is_no_history_with_a_reason(tmp_path: Path) -> None:
    git.Repo.init(tmp_path, object_format="sha256", initial_branch="main").close()
    history = open_history(tmp_path, None)
    assert isinstance(history, NoHistory)
    assert "SHA-256" in history.reason


def test_a_repository_git_calls_dubious_is_an_environment_error(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """git refuses a repository another user owns unless it is marked safe.directory: the bot
    says so (ClaimsError, exit code 2) instead of crashing or reading nothing. As root the
    repository is given to another uid; otherwise git's refusal is simulated."""
    repo = init_repo(tmp_path / "repo")
    commit(repo, "base", at(1), {"README": b"x\n"})
    repo.close()
    empty = tmp_path / "gitconfig"
    empty.write_text("")
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(empty))
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    monkeypatch.delenv("SUDO_UID", raising=False)
    if os.geteuid() == 0:
        other = 4242
        for folder, names, files in os.walk(tmp_path / "repo"):
            os.lchown(folder, other, other)
            for name in names + files:
                os.lchown(os.path.join(folder, name), other, other)
    else:
        message = f"fatal: detected dubious ownership in repository at '{tmp_path / 'repo'}'"

        def refuse(self: git.cmd.Git, *args: object, **kwargs: object) -> str:
            raise git.GitCommandError(["git", "rev-parse"], 128, message.encode())

        monkeypatch.setattr(git.cmd.Git, "rev_parse", refuse, raising=False)
    with pytest.raises(ClaimsError) as raised:
        open_history(tmp_path / "repo", None)
    assert "dubious ownership" in str(raised.value)
    assert "safe.directory" in raised.value.diagnostics()
    from bot.faces.cli import main

    assert main(["verify", "--registry", str(tmp_path / "repo")]) == 2
    err = capsys.readouterr().err
    assert "git cannot read the repository" in err and "dubious ownership" in err


def test_an_offset_python_cannot_represent_breaks_nothing(tmp_path: Path) -> None:
    # Review finding: a tag object with tagger offset +9959 (git fsck --strict accepts it)
    # crashed every `claims resolve` (datetime.fromisoformat: offset out of range).
    repo = init_repo(tmp_path)
    head = commit(repo, "base", at(1), {"README": b"x\n"})
    body = (
        f"object {head}\ntype commit\ntag v0.1-imported\ntagger X <x@y> 1819000000 +9959\n\nodd\n"
    )
    tag = (
        subprocess.run(
            ["git", "hash-object", "-t", "tag", "-w", "--literally", "--stdin"],
            cwd=tmp_path,
            input=body.encode(),
            capture_output=True,
            check=True,
        )
        .stdout.decode()
        .strip()
    )
    repo.git.update_ref("refs/tags/v0.1-imported", tag)
    found = GitHistory(repo, "main").tag("v0.1-imported")
    assert found is not None and found.tagged_at == datetime.fromtimestamp(1819000000, UTC)


# ---- a pull request as merged (MergedHistory) -------------------------------------------------

NEW_FREEZE = b"cases: 12\n"


def _pr_changes() -> list[Change]:
    """A pull request that adds attempts/c/freeze.yaml and changes the market."""
    return [
        Change("attempts/c/freeze.yaml", "A", "100644", blob_id(NEW_FREEZE)),
        Change(MARKET, "M", "100644", blob_id(b"id: 3\nversion: 3\n")),
        Change(RULES, "D", "000000"),
    ]


def test_what_a_pull_request_brings_lands_with_its_merge_at_the_clock(
    built: Built, history: GitHistory
) -> None:
    merged = merged_history(history, _pr_changes(), at(10, month=3))
    landing = merged.landing("attempts/c/freeze.yaml", blob_id(NEW_FREEZE))
    assert isinstance(landing, Landing)
    assert (landing.pending, landing.committed_at, landing.sha) == (True, at(10, month=3), "")
    assert landing.web_flow and not landing.clamped
    assert landing.where == "this pull request's merge"
    changed = merged.landing(MARKET, blob_id(b"id: 3\nversion: 3\n"))
    assert isinstance(changed, Landing) and changed.pending
    # What the pull request does not change is the base branch's answer.
    kept = merged.landing(FREEZE_A, blob_id(FREEZE))
    assert isinstance(kept, Landing) and (kept.sha, kept.pending) == (built.m1, False)
    # Another content than the one merged is not on main, nor is a deleted file.
    assert isinstance(merged.landing("attempts/c/freeze.yaml", blob_id(b"other")), str)
    assert isinstance(merged.landing(MARKET, blob_id(V1)), str)


def test_the_merge_is_never_judged_before_the_head_commit_or_mains_newest_commit(
    history: GitHistory,
) -> None:
    blob = blob_id(NEW_FREEZE)
    # The clock before main's newest commit (c4, February 1st): the merge comes after it.
    early = merged_history(history, _pr_changes(), at(20))
    landing = early.landing("attempts/c/freeze.yaml", blob)
    assert isinstance(landing, Landing)
    assert (landing.committed_at, landing.clamped) == (at(1, month=2), True)
    assert landing.committed_as_written == at(20)  # the clock, for merge-after-clock
    # The head commit dated after the clock: the merge at the head's date.
    ahead = merged_history(history, _pr_changes(), at(2, month=3), head_at=at(9, month=3))
    landing = ahead.landing("attempts/c/freeze.yaml", blob)
    assert isinstance(landing, Landing)
    assert (landing.committed_at, landing.clamped) == (at(9, month=3), True)
    # A head commit dated before the clock changes nothing.
    later = merged_history(history, _pr_changes(), at(9, month=3), head_at=at(2, month=3))
    landing = later.landing("attempts/c/freeze.yaml", blob)
    assert isinstance(landing, Landing)
    assert (landing.committed_at, landing.clamped) == (at(9, month=3), False)

"""`claims github verify`: who files a pull request, merged evidence, and freeze landings, with
what the GitHub API says (an in-memory `GitHubPort` standing in for `bot.edges.github.gateway`), on
real git registries; and the same pull requests verified offline (`claims verify`).
"""

from __future__ import annotations

import json
import sys
import types
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import git
import pytest

from bot.edges.dump import dump_yaml
from bot.edges.github.port import PullRequestInfo, Review
from bot.faces.cli import main
from bot.faces.demo.specimen import AttemptSpec, score_table
from tests.support import (
    ALICE,
    AS_OF,
    Built,
    RegistryFactory,
    Result,
    commit_all,
    default_markets,
    freeze_landed_by,
    market_of,
    rewrite_alices_attempt,
    shared_rules,
    write_file,
)

MALLORY = "mallory"
MAINTAINER = "maint"


@dataclass
class FakePort:
    """The GitHub API as the bot asks it: pull requests, PRs of a commit, reviews, roles."""

    pulls: dict[int, PullRequestInfo] = field(default_factory=dict)
    by_commit: dict[str, list[PullRequestInfo]] = field(default_factory=dict)
    review_list: dict[int, list[Review]] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=lambda: {MAINTAINER: "maintain"})
    asked: list[str] = field(default_factory=list)
    commit_authors: dict[str, str] = field(default_factory=dict)  # sha -> linked login

    @property
    def repository(self) -> str:
        return "registry/claims"

    def pull_request(self, number: int) -> PullRequestInfo:
        return self.pulls[number]

    def pulls_of_commit(self, sha: str) -> Sequence[PullRequestInfo]:
        self.asked.append(sha)
        return self.by_commit.get(sha, [])

    def open_pull_requests(self) -> Sequence[PullRequestInfo]:
        return [pr for pr in self.pulls.values() if pr.state == "open"]

    def close_pull_request(self, number: int) -> None:
        self.pulls[number] = replace(self.pulls[number], state="closed")

    def reviews(self, number: int) -> Sequence[Review]:
        return self.review_list.get(number, [])

    def role(self, login: str) -> str:
        return self.roles.get(login, "none")

    def commit_author(self, sha: str) -> str | None:  # asked for a new slug's first filing
        return self.commit_authors.get(sha)

    def __getattr__(self, name: str) -> Any:  # the methods verify never calls
        raise AssertionError(f"claims github verify must not call {name}")


def _moment(commit: git.Commit) -> datetime:
    return datetime.fromtimestamp(commit.committed_date, UTC)


def merged_pull(number: int, author: str, commit: git.Commit) -> PullRequestInfo:
    return PullRequestInfo(
        number, author, "0" * 40, "fork/claims", f"pr-{number}", "main", "closed", True,
        commit.hexsha, _moment(commit),
    )  # fmt: skip


def port_for(repo: git.Repo, author: str = ALICE) -> FakePort:
    """GitHub's view of a registry built by `make_registry`: every merge commit on main's
    first-parent history is a pull request by `author`, merged at the commit's date."""
    port = FakePort()
    for number, commit in enumerate(repo.iter_commits("main", first_parent=True), start=1):
        if len(commit.parents) == 2:
            port.by_commit[commit.hexsha] = [merged_pull(number, author, commit)]
    return port


def open_pull(port: FakePort, number: int, author: str, head: str) -> None:
    port.pulls[number] = PullRequestInfo(
        number, author, head, "fork/claims", "attempt", "main", "open", False, None, None
    )


def approve(port: FakePort, number: int, login: str, sha: str) -> None:
    port.review_list.setdefault(number, []).append(
        Review(login, "APPROVED", sha, datetime(2027, 3, 20, tzinfo=UTC))
    )


@pytest.fixture
def github(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> Callable[..., Result]:
    """Run `claims github verify` in-process against a port: `run(port, built, pr, head)`;
    a port of None runs it without GITHUB_TOKEN (offline)."""

    def run(port: FakePort | None, built: Built, pr: int, head: str, *extra: str) -> Result:
        report = tmp_path / "github-report.json"
        report.unlink(missing_ok=True)
        if port is None:
            monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        else:
            gateway = types.ModuleType("bot.edges.github.gateway")
            gateway.connect = lambda token, repository, base_url=None: port  # type: ignore[attr-defined]
            monkeypatch.setitem(sys.modules, "bot.edges.github.gateway", gateway)
            monkeypatch.setenv("GITHUB_TOKEN", "test-token")
            monkeypatch.setenv("GITHUB_REPOSITORY", "registry/claims")
        argv = ["github", "verify", "--pr", str(pr), "--head", head, "--base-ref", "main"]
        argv += ["--registry", str(built.root), "--json", str(report), "--as-of", AS_OF, *extra]
        code = main(argv)
        out = capsys.readouterr()
        data = json.loads(report.read_text()) if report.exists() else None
        return Result(code, out.out, out.err, data)

    return run


def pr_codes(result: Result) -> set[str]:
    assert result.report is not None
    return {p["code"] for p in result.report["pr_problems"] if p["severity"] != "notice"}


# ---- someone else's merged, judged attempt ----------------------------------------------------


def test_a_pr_rewriting_another_filers_merged_attempt_is_refused(
    make_registry: RegistryFactory, github
) -> None:
    built = make_registry()
    head = rewrite_alices_attempt(built)
    port = port_for(built.repo)
    open_pull(port, 40, MALLORY, head)
    result = github(port, built, 40, head)
    assert result.code == 1
    assert pr_codes(result) == {"not-submitter", "merged-evidence-changed"}
    problems = result.report["pr_problems"]
    (owner,) = [p for p in problems if p["code"] == "not-submitter"]
    assert "#40 by mallory files under the submitter alice-lab" in owner["message"]
    assert "belongs to alice (from merged pull requests)" in owner["message"]
    changed = {p["file"] for p in problems if p["code"] == "merged-evidence-changed"}
    folder = built.attempt.relative_to(built.root).as_posix()
    assert changed == {f"{folder}/trials.jsonl", f"{folder}/scores.yaml"}
    attempt = result.attempt()
    assert (attempt["evidence"], attempt["status"], attempt["outcome"]) == ("invalid", None, None)
    assert attempt["reasons"] == []  # the rewritten evidence itself is consistent
    # The landings were confirmed by the API; the window is open, so a merge after its close
    # would make the attempt filed-late: said, as it cannot be decided before the merge.
    assert result.notices() == {"merge-by-window-close"}


def test_offline_the_rewrite_is_refused_by_git_alone(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    head = rewrite_alices_attempt(built)
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root, "--head", head)
    assert result.code == 1
    assert result.codes() == {"merged-evidence-changed"}
    assert result.notices() == {
        "identity-unchecked",
        "freeze-date-unconfirmed",
        "merge-by-window-close",
    }


def test_without_a_token_github_verify_applies_the_offline_rules(
    make_registry: RegistryFactory, github
) -> None:
    built = make_registry()
    head = rewrite_alices_attempt(built)
    result = github(None, built, 40, head)
    assert result.code == 1
    assert pr_codes(result) == {"merged-evidence-changed"}
    assert "no GITHUB_TOKEN" in result.out


def test_the_pr_head_must_be_the_commit_checked(make_registry: RegistryFactory, github) -> None:
    built = make_registry()
    head = rewrite_alices_attempt(built)
    port = port_for(built.repo)
    open_pull(port, 40, MALLORY, "1" * 40)
    result = github(port, built, 40, head)
    assert result.code == 2
    assert "not --head" in result.err and result.report is None


# ---- the slug's owner changes merged evidence -------------------------------------------------


def test_a_rewrite_from_a_branch_older_than_the_merge_is_a_change(
    make_registry: RegistryFactory, github
) -> None:
    """Attack: branch from main as it stood before the run was merged, and add the run's files
    again, rewritten. Against the merge base they are all new ("A"), so merged evidence looked
    untouched and the rewritten attempt was verified green; they are changes of files the base
    branch holds."""
    built = make_registry()
    folder = built.attempt.relative_to(built.root).as_posix()
    landed = built.repo.git.log(
        "--first-parent", "--format=%H", "main", "--", f"{folder}/trials.jsonl"
    ).split()[-1]
    rewritten = {
        p: p.read_bytes()
        for p in built.attempt.rglob("*")
        if p.is_file() and p.name != "judgments.yaml"
    }
    built.repo.git.checkout("-q", "-b", "old-base", f"{landed}^1")
    for path, data in rewritten.items():
        write_file(path, data)
    trials = built.attempt / "trials.jsonl"
    lines = trials.read_text().splitlines()
    lines[0] = lines[0].replace(
        '"verdict":"caught","certificate":"unsafe"', '"verdict":"false_safe","certificate":"safe"'
    )
    trials.write_text("\n".join(lines) + "\n")
    files = {p.name: p.read_bytes() for p in built.attempt.iterdir() if p.is_file()}
    rules = shared_rules()
    market = market_of(default_markets(), 3, rules)
    assert rules is not None and market is not None
    (built.attempt / "scores.yaml").write_bytes(score_table(files, market, rules.confidence))
    head = commit_all(built.repo, "my attempt, again")
    port = port_for(built.repo)
    open_pull(port, 42, ALICE, head)
    result = github(port, built, 42, head)
    assert result.code == 1
    assert pr_codes(result) == {"merged-evidence-changed"}
    changed = {p["file"] for p in result.report["pr_problems"]}
    assert changed == {f"{folder}/trials.jsonl", f"{folder}/scores.yaml"}


def _owner_edits(built: Built) -> str:
    built.repo.git.checkout("-q", "-b", "owner-edit")
    attempt = built.attempt / "attempt.yaml"
    attempt.write_text(attempt.read_text() + "# a note\n")
    return commit_all(built.repo, "a note")


def test_the_owner_changing_merged_evidence_needs_a_maintainers_approval(
    make_registry: RegistryFactory, github
) -> None:
    built = make_registry()
    head = _owner_edits(built)
    port = port_for(built.repo)
    open_pull(port, 41, ALICE, head)
    result = github(port, built, 41, head)
    assert pr_codes(result) == {"merged-evidence-changed"}

    approve(port, 41, "someone", head)  # not a maintainer: no approval
    approve(port, 41, MAINTAINER, "2" * 40)  # a maintainer's approval of an older commit
    assert pr_codes(github(port, built, 41, head)) == {"merged-evidence-changed"}

    approve(port, 41, MAINTAINER, head)
    result = github(port, built, 41, head)
    assert pr_codes(result) == set()
    assert result.report["pr_problems"] == []


def test_a_maintainer_author_may_change_merged_evidence_and_protected_paths(
    make_registry: RegistryFactory, github
) -> None:
    built = make_registry()
    head = _owner_edits(built)
    (built.root / "markets" / "market-03.yaml").write_text("# edited by a maintainer\n", "utf-8")
    head = commit_all(built.repo, "and a market")
    port = port_for(built.repo)
    open_pull(port, 42, MAINTAINER, head)
    assert pr_codes(github(port, built, 42, head)) == set()


# ---- submitters.yaml -------------------------------------------------------------------------


def _mallory_files_as_alice_lab(built: Built, listed_in_pr: bool) -> str:
    """Mallory adds a second attempt under alice-lab (and, maybe, lists herself)."""
    built.repo.git.checkout("-q", "-b", "claim")
    other = built.attempt.parent / "second"
    other.mkdir()
    (other / "attempt.yaml").write_text("title: mine\n")
    if listed_in_pr:
        listing = {"submitters": {"alice-lab": {"logins": [MALLORY]}}}
        (built.root / "submitters.yaml").write_bytes(dump_yaml(listing))
    return commit_all(built.repo, "my attempt")


def test_submitters_yaml_in_the_pr_itself_does_not_count(
    make_registry: RegistryFactory, github
) -> None:
    built = make_registry()
    head = _mallory_files_as_alice_lab(built, listed_in_pr=True)
    port = port_for(built.repo)
    open_pull(port, 43, MALLORY, head)
    result = github(port, built, 43, head)
    assert {"not-submitter", "protected-path"} <= pr_codes(result)
    (owner,) = [p for p in result.report["pr_problems"] if p["code"] == "not-submitter"]
    assert "belongs to alice (from merged pull requests)" in owner["message"]


def test_submitters_yaml_on_main_names_the_owners(make_registry: RegistryFactory, github) -> None:
    built = make_registry()
    listing = {"submitters": {"alice-lab": {"logins": [ALICE, "Mallory"]}}}
    (built.root / "submitters.yaml").write_bytes(dump_yaml(listing))
    commit_all(built.repo, "submitters")
    head = _mallory_files_as_alice_lab(built, listed_in_pr=False)
    port = port_for(built.repo)
    open_pull(port, 44, MALLORY, head)
    assert "not-submitter" not in pr_codes(github(port, built, 44, head))
    open_pull(port, 45, "eve", head)
    result = github(port, built, 45, head)
    (owner,) = [p for p in result.report["pr_problems"] if p["code"] == "not-submitter"]
    assert "belongs to alice, Mallory (from submitters.yaml)" in owner["message"]


def test_a_new_slug_is_claimed_by_its_first_filer(make_registry: RegistryFactory, github) -> None:
    built = make_registry(AttemptSpec(submitter="new-lab"), run="open")
    head = built.repo.head.commit.hexsha
    port = port_for(built.repo, author="newcomer")
    open_pull(port, 46, "newcomer", head)
    assert pr_codes(github(port, built, 46, head)) == set()
    open_pull(port, 47, "eve", head)  # eve's run under newcomer's (merged freeze) slug
    assert pr_codes(github(port, built, 47, head)) == {"not-submitter"}


# ---- freeze landings --------------------------------------------------------------------------


def test_a_fast_forwarded_filer_merge_carrying_a_freeze_is_refused_offline(
    make_registry: RegistryFactory, run_claims
) -> None:
    built, landing, head = freeze_landed_by(make_registry, "filer-merge")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root, "--head", head)
    assert result.codes() == {"freeze-order"}
    (order,) = result.reasons()
    assert f"reached main in {landing[:12]}, committed by Registry Demo" in order["message"]
    assert "not by GitHub merging a pull request" in order["message"]


def test_a_fast_forwarded_filer_merge_carrying_a_freeze_is_refused_with_the_api(
    make_registry: RegistryFactory, github
) -> None:
    built, landing, head = freeze_landed_by(make_registry, "filer-merge")
    port = port_for(built.repo)
    del port.by_commit[landing]  # GitHub lists no PR for the filer's own merge commit
    open_pull(port, 48, ALICE, head)
    result = github(port, built, 48, head)
    assert result.codes() == {"freeze-order"}
    (order,) = [r for r in result.reasons() if r["code"] == "freeze-order"]
    assert f"in {landing[:12]}, which no merged pull request confirms" in order["message"]
    assert "the API lists no pull request for it" in order["message"]
    assert landing in port.asked


def test_a_forged_web_flow_committer_is_refused_with_the_api(
    make_registry: RegistryFactory, github
) -> None:
    """Offline the committer identity is all there is to check; the API is not fooled."""
    built, _, head = freeze_landed_by(make_registry, "squash")
    port = port_for(built.repo)  # GitHub lists no PR for the squash-looking commit
    open_pull(port, 49, ALICE, head)
    result = github(port, built, 49, head)
    assert result.codes() == {"freeze-order"}


def test_a_squash_merge_the_api_confirms_is_accepted(
    make_registry: RegistryFactory, github, run_claims
) -> None:
    built, landing, head = freeze_landed_by(make_registry, "squash")
    port = port_for(built.repo)
    commit = built.repo.commit(landing)
    port.by_commit[landing] = [merged_pull(3, ALICE, commit)]
    open_pull(port, 50, ALICE, head)
    result = github(port, built, 50, head)
    assert result.codes() == set() and result.notices() == {"merge-by-window-close"}
    assert result.attempt()["evidence"] == "valid"
    # Merged at another time than the commit's date: not its merge.
    late = replace(port.by_commit[landing][0], merged_at=datetime(2027, 3, 1, tzinfo=UTC))
    port.by_commit[landing] = [late]
    result = github(port, built, 50, head)
    assert result.codes() == {"freeze-order"}
    (order,) = [r for r in result.reasons() if r["code"] == "freeze-order"]
    assert "pull request #3 merged it at 2027-03-01T00:00:00+00:00" in order["message"]
    # Offline, GitHub's web flow wrote the squash: accepted, the date unconfirmed.
    offline = run_claims("verify", "--base-ref", "main", "--registry", built.root, "--head", head)
    assert offline.codes() == set()
    assert offline.notices() == {
        "freeze-date-unconfirmed",
        "identity-unchecked",
        "merge-by-window-close",
    }

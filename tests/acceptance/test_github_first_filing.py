"""A first filing under a new submitter slug is opened by its head commit's author, end to end:
`claims github verify` then `claims github publish`, as verify.yml runs them, with the real
gateway against the fake GitHub (tests/github/fakehub.py) and a real git registry.

The squat: Alice pushes her first filing (slug `new-lab`, never used on main) to her public
fork; Mallory fetches that exact commit, pushes it to his fork and opens a pull request on it
before Alice opens hers. Alone on the head commit, no shared-head rule applies to him; the
identity rule (`bot.app.identity.check_identity`) does: GitHub links the commit's author to
alice, so his PR gets `not-submitter`, and when Alice opens hers on the same commit her run
closes his.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from bot.faces.cli import main
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.github.publish import PULL_REQUEST_RUN
from tests.github.fakehub import FakeHub
from tests.support import (
    AS_OF,
    FREEZE_FILES,
    Built,
    RegistryFactory,
    command_token,
    connect_without_waits,
)

Claims = Callable[..., tuple[int, str]]
SLUG = "new-lab"
ALICE, MALLORY, MAINTAINER = "alice", "mallory", "maint"


@pytest.fixture
def hub(fakehub: FakeHub, monkeypatch: pytest.MonkeyPatch) -> FakeHub:
    """The fake GitHub as verify.yml's environment names it; the gateway without pauses."""
    monkeypatch.setenv("GITHUB_API_URL", fakehub.base_url)
    monkeypatch.setenv("GITHUB_REPOSITORY", fakehub.repository)
    monkeypatch.setenv("GITHUB_TOKEN", "ghs-test-token")
    connect_without_waits(monkeypatch)
    fakehub.repo.roles.update({MAINTAINER: "maintain", ALICE: "read", MALLORY: "read"})
    return fakehub


@pytest.fixture
def claims(capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> Claims:
    """Run one `claims` command in-process as a workflow step would; exit code and output."""

    def run(*argv: object) -> tuple[int, str]:
        # the token of the job that runs the command: the fake refuses calls outside it
        monkeypatch.setenv("GITHUB_TOKEN", command_token(argv))
        code = main([str(arg) for arg in argv])
        out = capsys.readouterr()
        return code, out.out + out.err

    return run


def _first_filing(make_registry: RegistryFactory) -> tuple[Built, str]:
    """A registry and the head of its first filing under `new-lab`: a pull request bringing
    the attempt's freeze files, the slug on no commit of main and in no submitters.yaml."""
    built = make_registry(AttemptSpec(submitter=SLUG), run="none", judged=False, freeze_in_run=True)
    repo = built.repo
    assert not repo.git.ls_tree("-r", "--name-only", "main", "attempts")
    repo.git.checkout("-q", "-b", "freeze")
    for name in FREEZE_FILES:
        (built.attempt / name).parent.mkdir(parents=True, exist_ok=True)
        (built.attempt / name).write_bytes(built.files[name])
    repo.git.add("-A")
    january = "2027-01-03T00:00:00Z"
    with repo.git.custom_environment(GIT_AUTHOR_DATE=january, GIT_COMMITTER_DATE=january):
        repo.git.commit("-q", "-m", "freeze new-lab")
    return built, repo.head.commit.hexsha


def _verify(claims: Claims, built: Built, tmp_path: Path, pr: int, head: str) -> dict[str, Any]:
    """verify.yml's `verify` job then its `publish` job for `pr`; the report it posted."""
    report = tmp_path / f"report-{pr}.json"
    code, out = claims(
        "github", "verify", "--pr", pr, "--head", head, "--base-ref", "main",
        "--registry", built.root, "--json", report, "--as-of", AS_OF,
    )  # fmt: skip
    assert code in (0, 1), out
    code, out = claims("github", "publish", report, "--pr", pr, "--head", head)
    assert code == 0, out
    data: dict[str, Any] = json.loads(report.read_text())
    return data


def _not_submitter(report: dict[str, Any]) -> list[str]:
    return [p["message"] for p in report["pr_problems"] if p["code"] == "not-submitter"]


def _open(hub: FakeHub, number: int, author: str, head: str) -> None:
    hub.repo.add_pull(number, author, head, head_repo=f"{author}/registry", head_branch="first")


def _required(hub: FakeHub, head: str) -> str | None:
    runs = [r for r in hub.repo.runs_named(PULL_REQUEST_RUN) if r.head_sha == head]
    return runs[-1].conclusion if runs else None


def test_a_squatter_alone_on_the_authors_commit_is_not_the_submitter_and_yields_to_her(
    make_registry: RegistryFactory, hub: FakeHub, claims: Claims, tmp_path: Path
) -> None:
    built, head = _first_filing(make_registry)
    hub.repo.commit_authors[head] = ALICE
    _open(hub, 8, MALLORY, head)
    report = _verify(claims, built, tmp_path, 8, head)
    (message,) = _not_submitter(report)
    assert f"#8 by {MALLORY} is the first filing under the new submitter {SLUG}" in message
    assert "let alice open it" in message and "--reset-author" in message
    assert _required(hub, head) == "failure"
    assert [c.path for c in hub.calls("GET", r"/repos/acme/registry/commits/.*")] == [
        f"/repos/acme/registry/commits/{head}"
    ]
    # Alice opens hers on the same commit: green, and her run closes Mallory's.
    _open(hub, 7, ALICE, head)
    report = _verify(claims, built, tmp_path, 7, head)
    assert _not_submitter(report) == [] and report["pr_problems"] == []
    assert hub.repo.pulls[8].state == "closed" and hub.repo.pulls[7].state == "open"
    assert _required(hub, head) == "success"
    assert "opened by `alice`" in hub.repo.comments_on(8)[-1].body
    # Mallory reopens: his own run closes his PR again and posts no required check.
    hub.repo.pulls[8].state = "open"
    runs = len(hub.repo.runs_named(PULL_REQUEST_RUN))
    _verify(claims, built, tmp_path, 8, head)
    assert hub.repo.pulls[8].state == "closed"
    assert len(hub.repo.runs_named(PULL_REQUEST_RUN)) == runs
    assert _required(hub, head) == "success"


@pytest.mark.parametrize(
    ("author", "commit_author", "role"),
    [
        (ALICE, ALICE, "read"),  # Alice's own first filing
        (ALICE, "Alice", "read"),  # logins compared as GitHub does, case aside
        (MALLORY, None, "read"),  # an email linked to no account: nothing tells who wrote it
        (MAINTAINER, ALICE, "maintain"),  # a maintainer files on someone's behalf
    ],
)
def test_a_first_filing_the_commit_author_rule_lets_through(
    make_registry: RegistryFactory,
    hub: FakeHub,
    claims: Claims,
    tmp_path: Path,
    author: str,
    commit_author: str | None,
    role: str,
) -> None:
    built, head = _first_filing(make_registry)
    if commit_author is not None:
        hub.repo.commit_authors[head] = commit_author
    hub.repo.roles[author] = role
    _open(hub, 7, author, head)
    report = _verify(claims, built, tmp_path, 7, head)
    assert _not_submitter(report) == []
    assert report["pr_problems"] == [] and _required(hub, head) == "success"
    # Asked once, by verify (publish asks only on a shared head); not for a maintainer.
    asked = hub.calls("GET", r"/repos/acme/registry/commits/.*")
    assert len(asked) == (0 if role == "maintain" else 1)

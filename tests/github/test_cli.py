"""`claims github publish REPORT --pr N --head SHA`: the entry point the posting job calls."""

from __future__ import annotations

from pathlib import Path

import pytest

from bot.app.report_json import dumps, report_to_json
from bot.faces.cli import main
from tests.github import reports
from tests.github.fakehub import FakeHub
from tests.support import connect_without_waits, job_token

HEAD = reports.HEAD


@pytest.fixture
def report_file(tmp_path: Path) -> Path:
    path = tmp_path / "report.json"
    path.write_text(dumps(report_to_json(reports.invalid(3))))
    return path


@pytest.fixture
def github_env(monkeypatch: pytest.MonkeyPatch, fakehub: FakeHub, tmp_path: Path) -> Path:
    """The Actions environment, pointed at the fake; returns the job summary file."""
    summary = tmp_path / "step-summary.md"
    monkeypatch.setenv("GITHUB_API_URL", fakehub.base_url)
    monkeypatch.setenv("GITHUB_REPOSITORY", fakehub.repository)
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    return summary


def test_without_a_token_it_prints_and_posts_nothing(
    fakehub: FakeHub,
    github_env: Path,
    report_file: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    code = main(["github", "publish", str(report_file), "--pr", "7", "--head", HEAD])
    out, err = capsys.readouterr()
    assert code == 0 and fakehub.requests == []
    assert "would post on acme/registry #7:" in out
    assert f"check run 'registry: #7 {reports.ATTEMPT}': failure" in out
    assert "3 annotation(s)" in out and "labels: evidence:invalid" in out
    assert "<!-- claims-bot:verdict -->" in out and "nothing posted" in err
    assert "Evidence invalid" in github_env.read_text()


def test_with_a_token_it_posts(
    monkeypatch: pytest.MonkeyPatch,
    fakehub: FakeHub,
    github_env: Path,
    report_file: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fakehub.repo.add_pull(7, "alice", HEAD)
    monkeypatch.setenv("GITHUB_TOKEN", job_token("verify.yml", "publish"))
    connect_without_waits(monkeypatch)
    url = "https://github.com/acme/registry/actions/runs/1"
    argv = ["github", "publish", str(report_file), "--pr", "7", "--head", HEAD]
    assert main([*argv, "--details-url", url]) == 0
    assert "2 check run(s), comment" in capsys.readouterr().out
    (comment,) = fakehub.repo.comments_on(7)
    assert f"[full report]({url})" in comment.body
    assert fakehub.repo.labels[7] == ["evidence:invalid"]
    assert {r.name for r in fakehub.repo.check_runs.values()} == {
        f"registry: #7 {reports.ATTEMPT}",
        "registry: pull request",
    }
    # GitHub refuses (the token cannot write checks): exit 2 with a message, no traceback
    fakehub.fail_next("POST", r".*/check-runs", 403, body={"message": "Resource not accessible"})
    assert main(argv) == 2
    err = capsys.readouterr().err
    assert "error: POST check run" in err and "Resource not accessible" in err
    assert "Traceback" not in err


def test_a_report_for_an_older_head_posts_only_its_check_runs(
    monkeypatch: pytest.MonkeyPatch,
    fakehub: FakeHub,
    github_env: Path,
    report_file: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    fakehub.repo.add_pull(7, "alice", "c" * 40)  # pushed again since this report's run
    monkeypatch.setenv("GITHUB_TOKEN", job_token("verify.yml", "publish"))
    connect_without_waits(monkeypatch)
    assert main(["github", "publish", str(report_file), "--pr", "7", "--head", HEAD]) == 0
    assert capsys.readouterr().out == (
        f"posted on acme/registry {HEAD[:12]}: 2 check run(s); no comment or labels:"
        f" #7's head moved to {'c' * 12}\n"
    )
    assert fakehub.repo.comments_on(7) == [] and fakehub.repo.labels.get(7, []) == []


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("not json", "the report is not valid JSON"),
        ('{"attempts": []}', "is not a valid verify-report"),
        ('{"a": ' * 100 + "1" + "}" * 100, "nested deeper"),
    ],
)
def test_a_file_that_is_not_a_report_exits_2(
    text: str,
    expected: str,
    tmp_path: Path,
    github_env: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    path = tmp_path / "report.json"
    path.write_text(text)
    assert main(["github", "publish", str(path), "--pr", "7", "--head", HEAD]) == 2
    err = capsys.readouterr().err
    assert expected in err and "Traceback" not in err


def test_a_report_too_large_or_missing_exits_2(
    tmp_path: Path, github_env: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    big = tmp_path / "big.json"
    with big.open("wb") as out:
        out.truncate(32 * 1024 * 1024 + 1)
    assert main(["github", "publish", str(big), "--pr", "7", "--head", HEAD]) == 2
    assert "larger than" in capsys.readouterr().err
    assert main(["github", "publish", str(tmp_path / "no.json"), "--pr", "7", "--head", HEAD]) == 2
    assert "cannot read the report" in capsys.readouterr().err


@pytest.mark.parametrize(
    "bad",
    [
        ["--head", "abc"],
        ["--head", HEAD.upper()],
        ["--pr", "0"],
        ["--details-url", "http://x"],
        ["--attestation-url", "https://x/a) [y](z"],
    ],
)
def test_bad_arguments_exit_2(
    bad: list[str], report_file: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    argv = ["github", "publish", str(report_file), "--pr", "7", "--head", HEAD, *bad]
    with pytest.raises(SystemExit) as exit_:
        main(argv)
    assert exit_.value.code == 2


def test_a_pull_request_closed_for_a_shared_head_starts_verify_for_the_other(
    monkeypatch: pytest.MonkeyPatch,
    fakehub: FakeHub,
    github_env: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Item 13 of issue 21, as the posting job runs it: Mallory's #8 on Alice's head commit
    files under Alice's slug; it is closed and verify.yml is started again for #7."""
    fakehub.repo.commit_files("main", {})
    fakehub.repo.add_pull(7, "alice", HEAD, head_repo="alice/registry")
    fakehub.repo.add_pull(8, "mallory", HEAD, head_repo="mallory/registry", head_branch="x")
    report = tmp_path / "intruder.json"
    report.write_text(dumps(report_to_json(reports.not_submitter())))
    monkeypatch.setenv("GITHUB_TOKEN", job_token("verify.yml", "publish"))
    connect_without_waits(monkeypatch)
    argv = ["github", "publish", str(report), "--pr", "8", "--head", HEAD]
    assert main([*argv, "--default-branch", "main"]) == 0
    out = capsys.readouterr().out
    assert "closed #8: it is not the filer's pull request on the head of #7" in out
    assert fakehub.repo.pulls[8].state == "closed"
    assert fakehub.repo.dispatches == [
        {"workflow": "verify.yml", "ref": "main", "inputs": {"pr": "7"}}
    ]
    assert fakehub.repo.runs_named("registry: pull request") == []


def test_the_commit_authors_pull_request_closes_the_other_as_the_posting_job_runs_it(
    monkeypatch: pytest.MonkeyPatch,
    fakehub: FakeHub,
    github_env: Path,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Alice authored the head commit (GitHub links its author to her account) and opened #7;
    Mallory's #8 has the same head: #7's publish closes #8 and says so."""
    fakehub.repo.commit_files("main", {})
    fakehub.repo.commit_authors[HEAD] = "alice"
    fakehub.repo.add_pull(7, "alice", HEAD, head_repo="alice/registry")
    fakehub.repo.add_pull(8, "mallory", HEAD, head_repo="mallory/registry", head_branch="x")
    report = tmp_path / "alice.json"
    report.write_text(dumps(report_to_json(reports.qualifying())))
    monkeypatch.setenv("GITHUB_TOKEN", job_token("verify.yml", "publish"))
    connect_without_waits(monkeypatch)
    argv = ["github", "publish", str(report), "--pr", "7", "--head", HEAD]
    assert main([*argv, "--default-branch", "main"]) == 0
    out = capsys.readouterr().out
    assert "closed #8: on this head commit, whose author opened #7" in out
    assert (fakehub.repo.pulls[7].state, fakehub.repo.pulls[8].state) == ("open", "closed")
    assert fakehub.repo.dispatches == []

"""Verify reports for the GitHub tests, built from verdicts and checked by a JSON round trip
(what `claims github publish` reads back)."""

from __future__ import annotations

from bot.app.api import VerifyReport
from bot.app.report_json import report_to_json, verify_report_from_json
from bot.rules.challenge.judge import RunVerdict
from bot.rules.verdict import AttemptVerdict
from bot.vocab.findings import Code, Finding, Severity

ATTEMPT = "attempts/market-03/alice/x"
HEAD = "a" * 40


def invalid(
    problems: int = 1, attempt: str = ATTEMPT, message: str = "got X", files: int = 1
) -> VerifyReport:
    """One attempt with `problems` evidence errors on trials.jsonl, one per line (with
    `files`: spread over as many files, so no code and file passes the report's cap)."""
    findings = tuple(
        Finding(
            Code.DUPLICATE_TRIAL,
            f"{message} {i}",
            f"{attempt}/trials.jsonl" if files == 1 else f"{attempt}/trials-{i % files}.jsonl",
            i + 1,
        )
        for i in range(problems)
    )
    verdict = AttemptVerdict(attempt, 3, "run", findings=findings, digest="0" * 64)
    return _checked(VerifyReport((verdict,)))


def qualifying(attempt: str = ATTEMPT) -> VerifyReport:
    verdict = AttemptVerdict(attempt, 3, "run", digest="0" * 64, status="qualifying", outcome="met")
    return _checked(VerifyReport((verdict,)))


def not_qualifying(attempt: str = ATTEMPT) -> VerifyReport:
    reasons = (
        Finding(Code.SAMPLE_SIZE, "got 10 units, expected 400", f"{attempt}/attempt.yaml"),
        Finding(Code.SYSTEMS_FLOOR, "got 1 system, expected 3"),
    )
    verdict = AttemptVerdict(
        attempt,
        3,
        "run",
        qualification=reasons,
        digest="0" * 64,
        status="not-qualifying",
    )
    return _checked(VerifyReport((verdict,)))


def with_pr_problem(attempt: str = ATTEMPT) -> VerifyReport:
    problem = Finding(Code.PATH_OUTSIDE_ATTEMPT, "changes bot/faces/cli.py", "bot/faces/cli.py")
    verdict = AttemptVerdict(attempt, 3, "run", pr_problems=(problem,))
    warning = Finding(Code.SNAPSHOT_LATE, "late", None, None, Severity.WARNING)
    return _checked(VerifyReport((verdict,), (warning,), (problem,)))


def not_submitter(attempt: str = ATTEMPT, pr: int = 8, author: str = "mallory") -> VerifyReport:
    """Evidence filed by someone who does not own its submitter slug."""
    problem = Finding(
        Code.NOT_SUBMITTER,
        f"pull request #{pr} by {author} files under the submitter alice, which belongs to alice",
        attempt,
    )
    verdict = AttemptVerdict(attempt, 3, "run", digest="0" * 64, pr_problems=(problem,))
    return _checked(VerifyReport((verdict,), (), (problem,)))


RUN_FOLDER = "challenge-runs/run-1"


def challenge_run(
    problems: int = 0, warnings: int = 0, attempt_problems: int = 0, message: str = "got X"
) -> VerifyReport:
    """A pull request filing challenge run `run-1` (market 3), with `problems` errors and
    `warnings` warnings on its results file (one per line) and, with `attempt_problems`, an
    attempt beside it (`invalid`)."""
    findings = tuple(
        Finding(
            Code.CHALLENGE_CASE_MISMATCH if i < problems else Code.SNAPSHOT_LATE,
            f"{message} {i}",
            f"{RUN_FOLDER}/results.jsonl",
            i + 1,
            Severity.ERROR if i < problems else Severity.WARNING,
        )
        for i in range(problems + warnings)
    )
    run = RunVerdict("run-1", RUN_FOLDER, 3, "builtin", "acme", findings, cases=4)
    attempts = invalid(attempt_problems).attempts if attempt_problems else ()
    return _checked(VerifyReport(tuple(attempts), challenge_runs=(run,)))


def _checked(report: VerifyReport) -> VerifyReport:
    return verify_report_from_json(report_to_json(report))

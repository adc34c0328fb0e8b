"""The JSON reports both ways: what a verify report says of an attempt's pull request."""

from __future__ import annotations

import json

import pytest

from bot.app import VerifyReport
from bot.findings import Code, Finding
from bot.report.json_ import ReportError, verify_report_from_json, verify_report_to_json
from bot.verdict import AttemptVerdict


def test_a_verify_report_reads_back_with_its_pull_request_problems() -> None:
    own = Finding(Code.MAINTAINER_FILE, "maintainers only", "attempts/market-03/a/b/judgments.yaml")
    several = Finding(Code.SEVERAL_ATTEMPTS, "two attempt folders")
    touched = AttemptVerdict("attempts/market-03/a/b", 3, "run", (), pr_problems=(own, several))
    other = AttemptVerdict(
        "attempts/market-03/c/d", 3, "run", (), status="qualifying", outcome="met"
    )
    report = VerifyReport((touched, other), pr_problems=(own, several), base_ref="main")
    data = json.loads(json.dumps(verify_report_to_json(report)))
    assert data["attempts"][0]["pr_problem_codes"] == ["maintainer-file", "several-attempts"]
    assert data["attempts"][1]["pr_problem_codes"] == []
    assert verify_report_from_json(data) == report
    # An attempt may not name a problem the report does not list, nor claim to be valid.
    wrong = json.loads(json.dumps(data))
    wrong["attempts"][1]["pr_problem_codes"] = ["symlink"]
    with pytest.raises(ReportError, match="symlink"):
        verify_report_from_json(wrong)
    wrong = json.loads(json.dumps(data))
    wrong["attempts"][0]["evidence"] = "valid"
    with pytest.raises(ReportError, match="evidence"):
        verify_report_from_json(wrong)
    # The schema refuses a status for invalid evidence.
    wrong = json.loads(json.dumps(data))
    wrong["attempts"][0]["status"] = "qualifying"
    with pytest.raises(ReportError):
        verify_report_from_json(wrong)

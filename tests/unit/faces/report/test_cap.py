"""Findings capped per reason code and file (bot/app/report_cap.py), in every report.

A flood of 50,000 bad lines must give a report under 1 MB that says what it left out, reads
back (`verify_report_from_json`), and keeps the evidence, status and outcome it states, while
the GitHub check runs annotate exactly what the JSON report lists.
"""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.app.api import VerifyReport
from bot.app.report_cap import FINDINGS_PER_CODE_AND_FILE, cap_findings, count_findings
from bot.app.report_json import (
    ReportError,
    dumps,
    read_report,
    verify_report_from_json,
    verify_report_to_json,
)
from bot.faces.github.publish import build_publication
from bot.faces.report.markdown import MAX_COMMENT, render_markdown
from bot.faces.report.text import render_text
from bot.rules.verdict import AttemptVerdict
from bot.vocab.findings import Code, Finding, Severity

TRIALS = "attempts/market-03/a/b/trials.jsonl"
CASES = "attempts/market-03/a/b/freeze-cases.jsonl"
LIMIT = FINDINGS_PER_CODE_AND_FILE


def _flood(lines: int = 50_000) -> list[Finding]:
    """What 50,000 bad trial lines give: per line a schema error and an unknown case, and a
    handful of other findings around them."""
    findings = [Finding(Code.FILE_EMPTY, "no frozen cases: the file is empty", CASES)]
    for line in range(1, lines + 1):
        findings.append(Finding(Code.SCHEMA, f"line {line}: result: required field", TRIALS, line))
        findings.append(Finding(Code.UNKNOWN_CASE, f"case 'c{line}' is not frozen", TRIALS, line))
    findings.append(Finding(Code.TIMESTAMP_NAIVE, "started_at: no offset", TRIALS, 7))
    return findings


def test_a_flood_keeps_the_first_of_each_code_and_file_and_counts_the_rest() -> None:
    flood = _flood()
    capped = cap_findings(flood)
    assert len(capped) == 1 + LIMIT + LIMIT + 1
    for code in (Code.SCHEMA, Code.UNKNOWN_CASE):
        group = [f for f in capped if f.code is code]
        assert group[: LIMIT - 1] == [f for f in flood if f.code is code][: LIMIT - 1]
        summary = group[-1]
        assert summary.left_out == 50_000 - (LIMIT - 1)
        assert (summary.file, summary.line, summary.severity) == (TRIALS, None, Severity.ERROR)
        assert summary.message == (
            f"49,981 more {code.value} finding(s) in {TRIALS} (lines 20 to 50,000) are not"
            " listed: a report lists the first 19 of each reason code in each file, then counts"
            " the rest"
        )
    # in reading order: each summary stands where the first finding it counts stood
    assert [f.code for f in capped[:3]] == [Code.FILE_EMPTY, Code.SCHEMA, Code.UNKNOWN_CASE]
    assert capped[-1].code is Code.TIMESTAMP_NAIVE
    assert count_findings(capped) == len(flood)
    assert cap_findings(capped) == capped


def test_a_group_at_the_cap_is_listed_whole() -> None:
    group = [Finding(Code.SCHEMA, f"bad {n}", TRIALS, n) for n in range(1, LIMIT + 1)]
    assert cap_findings(group) == group
    assert cap_findings([*group, group[0]])[-1].left_out == 2


@given(
    st.lists(
        st.tuples(
            st.sampled_from([Code.SCHEMA, Code.UNKNOWN_CASE, Code.DUPLICATE_TRIAL]),
            st.sampled_from([TRIALS, CASES, None]),
            st.sampled_from(list(Severity)),
            st.one_of(st.none(), st.integers(1, 10**6)),
        ),
        max_size=300,
    ),
    st.integers(2, 30),
)
def test_capping_keeps_counts_severity_and_order(items: list, limit: int) -> None:
    findings = [Finding(c, f"m{i}", f, line, s) for i, (c, f, s, line) in enumerate(items)]
    capped = cap_findings(findings, limit)
    assert count_findings(capped) == len(findings)
    assert cap_findings(capped, limit) == capped  # idempotent: a report read back stays
    for key in {(f.code, f.file) for f in findings}:
        mine = [f for f in findings if (f.code, f.file) == key]
        kept = [f for f in capped if (f.code, f.file) == key]
        assert len(kept) == min(len(mine), limit)
        if len(mine) > limit:
            assert kept[:-1] == mine[: limit - 1]
            assert kept[-1].severity == min(
                (f.severity for f in mine[limit - 1 :]), key=list(Severity).index
            )
    # the evidence a report states never changes: an error stays an error
    errors = any(f.severity is Severity.ERROR for f in findings)
    assert errors == any(f.severity is Severity.ERROR for f in capped)
    # the listed findings keep their order
    listed = [f for f in capped if not f.left_out]
    assert listed == [f for f in findings if f in listed]


def _report() -> VerifyReport:
    flooded = AttemptVerdict("attempts/market-03/a/b", 3, "run", tuple(_flood()), digest="0" * 64)
    fine = AttemptVerdict(
        "attempts/market-03/a/c", 3, "run", (), digest="1" * 64, status="qualifying", outcome="met"
    )
    return VerifyReport((flooded, fine))


def test_the_json_report_of_a_flood_is_small_says_so_and_reads_back() -> None:
    report = _report()
    text = dumps(verify_report_to_json(report))
    assert len(text.encode()) < 1_000_000
    data = json.loads(text)
    assert data["findings_cap"] == {"per_code_and_file": LIMIT, "left_out": 2 * 49_981}
    reasons = data["attempts"][0]["reasons"]
    assert len(reasons) == 1 + 2 * LIMIT + 1
    assert [r.get("left_out") for r in reasons if "left_out" in r] == [49_981, 49_981]
    # read back: the same evidence, status and outcome, codes, and the same report again
    back = verify_report_from_json(read_report(text))
    assert back.evidence == report.evidence == "invalid"
    for mine, theirs in zip(report.attempts, back.attempts, strict=True):
        assert (theirs.evidence, theirs.status, theirs.outcome) == (
            mine.evidence,
            mine.status,
            mine.outcome,
        )
        assert {f.code for f in theirs.findings} == {f.code for f in mine.findings}
        assert count_findings(theirs.findings) == len(mine.findings)
    assert dumps(verify_report_to_json(back)) == text


def test_a_report_whose_count_of_the_rest_disagrees_is_refused() -> None:
    data = json.loads(dumps(verify_report_to_json(_report())))
    data["findings_cap"]["left_out"] = 3
    with pytest.raises(ReportError, match=r"findings_cap\.left_out"):
        verify_report_from_json(data)
    data = json.loads(dumps(verify_report_to_json(_report())))
    data["attempts"][0]["reasons"][2]["left_out"] = 0
    with pytest.raises(ReportError):
        verify_report_from_json(data)


def test_text_markdown_and_github_say_the_same_of_a_flood() -> None:
    report = _report()
    back = verify_report_from_json(json.loads(dumps(verify_report_to_json(report))))
    # the terminal folds repeats the same way from the verdicts and from the report
    assert render_text(back) == render_text(report)
    assert "... and 49995 more schema in" in render_text(report)
    # Markdown counts every problem, listed or not
    body = render_markdown(report)
    assert len(body) <= MAX_COMMENT
    assert render_markdown(back) == body
    assert "| 100002 |" in body  # the attempts table: 1 + 2 x 50,000 + 1 problems
    # the check run annotates what the JSON report lists, and its title counts them all
    fresh, read = build_publication(report, "a" * 40), build_publication(back, "a" * 40)
    assert fresh == read
    run = fresh.check_runs[0]
    assert len(run.annotations) == 1 + 2 * LIMIT + 1
    assert run.title == "evidence invalid: 100002 problem(s)"


def test_a_challenge_run_s_reasons_are_capped_like_an_attempt_s() -> None:
    """A run's reasons are listed per file in the verify report (`challenge_runs`): a flood in
    a run's operator score file is capped, counted in findings_cap, and reads back."""
    from bot.rules.challenge.judge import RunVerdict

    scores = "challenge-runs/run-1/scores/a/b/results.jsonl"
    flood = tuple(
        Finding(Code.SCHEMA, f"line {line}: result: required field", scores, line)
        for line in range(1, 1001)
    )
    run = RunVerdict("run-1", "challenge-runs/run-1", 7, "operator", "acme", flood, cases=3)
    report = VerifyReport((), challenge_runs=(run,))
    text = dumps(verify_report_to_json(report))
    data = json.loads(text)
    reasons = data["challenge_runs"][0]["reasons"]
    assert len(reasons) == LIMIT
    assert reasons[-1]["left_out"] == 1000 - (LIMIT - 1)
    assert data["findings_cap"]["left_out"] == 1000 - (LIMIT - 1)
    assert data["challenge_runs"][0]["evidence"] == "invalid"
    back = verify_report_from_json(read_report(text))
    assert back.evidence == "invalid"
    assert count_findings(back.challenge_runs[0].findings) == len(flood)
    assert dumps(verify_report_to_json(back)) == text
    # the terminal and the Markdown comment fold a run's reasons the same way
    assert render_text(back) == render_text(report)
    assert render_markdown(back) == render_markdown(report)

"""Parsing comment bodies into commands: one per line, several per comment; code blocks,
quotes and prose are not commands."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.faces.github.commands import (
    MAX_JUDGMENTS,
    MAX_NOTE_CHARS,
    JudgeCommand,
    ParsedComment,
    clean_note,
    code_span,
    parse_comment,
)


def test_several_judgments_in_one_comment_with_crlf() -> None:
    body = (
        "Reviewed the release.\r\n"
        "/judge reconstructible pass data and code rerun\r\n"
        "/judge not-toy-only FAIL only gridworlds\r\n"
        "  /judge broadly-capable unsettled which product model?\r\n"
    )
    assert parse_comment(body) == ParsedComment(
        judgments=(
            JudgeCommand("reconstructible", "pass", "data and code rerun", 2),
            JudgeCommand("not-toy-only", "fail", "only gridworlds", 3),
            JudgeCommand("broadly-capable", "unsettled", "which product model?", 4),
        )
    )


def test_text_that_is_not_a_command_is_ignored() -> None:
    body = "Please /judge this soon.\nSee /tmp/x and /usr/bin/env\n/ 3\nthanks"
    parsed = parse_comment(body)
    assert parsed == ParsedComment()
    assert not parsed.has_commands


@pytest.mark.parametrize("fence", ["```", "~~~", "````"])
def test_commands_inside_fenced_code_do_not_count(fence: str) -> None:
    body = f"Syntax:\n{fence}\n/judge reconstructible pass shown as an example\n/help\n{fence}\n"
    assert parse_comment(body) == ParsedComment()


def test_a_shorter_fence_does_not_close_a_longer_one() -> None:
    body = "````\n```\n/judge reconstructible pass inside\n````\n/judge not-toy-only pass out"
    assert [c.check for c in parse_comment(body).judgments] == ["not-toy-only"]


def test_an_unclosed_fence_hides_the_rest() -> None:
    assert parse_comment("```\n/judge reconstructible pass x") == ParsedComment()


def test_quoted_and_indented_commands_do_not_count() -> None:
    body = "> /judge reconstructible pass quoted\n    /judge reconstructible pass code\n\t/help"
    assert parse_comment(body) == ParsedComment()


def test_help_and_unknown_commands() -> None:
    parsed = parse_comment("/help\n/approve now\n/Approve\n/merge")
    assert parsed.help and parsed.unknown == ("approve", "merge")
    assert not parsed.wants_judging


@pytest.mark.parametrize(
    ("line", "problem"),
    [
        ("/judge", "expected `/judge <check-id>"),
        ("/judge reconstructible", "expected `/judge <check-id>"),
        ("/judge reconstructible maybe fine", "`maybe` is not a verdict"),
        ("/judge Reconstructible pass x", "`Reconstructible` is not a check id"),
        ("/judge not_toy pass x", "`not_toy` is not a check id"),
        ("/judge reconstructible fail", "a fail verdict needs a note"),
        ("/judge reconstructible unsettled   ", "an unsettled verdict needs a note"),
        (f"/judge reconstructible pass {'x' * (MAX_NOTE_CHARS + 1)}", "longer than 1000"),
    ],
)
def test_bad_judge_lines_are_problems_naming_the_line(line: str, problem: str) -> None:
    parsed = parse_comment(f"hello\n{line}")
    assert parsed.judgments == ()
    assert len(parsed.problems) == 1
    assert parsed.problems[0].startswith("line 2: ")
    assert problem in parsed.problems[0]
    assert parsed.wants_judging


def test_a_pass_needs_no_note() -> None:
    assert parse_comment("/judge reconstructible pass").judgments == (
        JudgeCommand("reconstructible", "pass", "", 1),
    )


def test_a_check_judged_twice_is_a_problem() -> None:
    parsed = parse_comment("/judge reconstructible pass a\n/judge reconstructible fail b")
    assert parsed.problems == ("line 2: `reconstructible` is judged twice",)


def test_too_many_judgments() -> None:
    body = "\n".join(f"/judge check-{n} pass" for n in range(MAX_JUDGMENTS + 1))
    assert parse_comment(body).problems == (
        f"21 /judge lines; at most {MAX_JUDGMENTS} per comment",
    )


def test_notes_are_cleaned() -> None:
    note = "caf\u0065\u0301 \u202eevil\u202c  zero\u200bwidth\x07 \u2028end"
    assert clean_note(note) == "caf\u00e9 evil zerowidth end"


def test_code_span_keeps_untrusted_text_inert() -> None:
    assert code_span("@octocat <b>`x`</b>") == "`@octocat \u2039b\u203a\u2018x\u2018\u2039/b\u203a`"
    assert code_span("") == "` `"
    assert code_span("y" * 300, 10) == "`yyyyyyyyy\u2026`"


@given(st.text(max_size=400))
def test_any_body_parses(body: str) -> None:
    parsed = parse_comment(body)
    for command in parsed.judgments:
        assert command.verdict in ("pass", "fail", "unsettled")
        assert len(command.note) <= MAX_NOTE_CHARS
        assert "\n" not in command.note and "\r" not in command.note

# ruff: noqa: E402
"""Markdown for PR comments: filer-controlled text is inert."""

from __future__ import annotations

from bot.findings import Code, Finding
from bot.report.markdown import MAX_COMMENT, escape
from bot.report.markdown import render_markdown as render_report


def render_markdown(verdicts, registry_findings=()):  # type: ignore[no-untyped-def]
    """The comment for these verdicts (render_markdown takes a VerifyReport)."""
    from bot.app import VerifyReport

    return render_report(VerifyReport(tuple(verdicts), tuple(registry_findings)))


from bot.verdict import AttemptVerdict


def test_escape_neutralises_markup_mentions_and_hidden_text() -> None:
    text = escape("@maintainers see <img src=x> [link](http://x) `code` |a| \u202eevil\u0007")
    assert "@\u2060maintainers" in text
    assert "<" not in text.replace("\\<", "")
    assert "\\[link\\]\\(http://x\\)" in text
    assert "\u202e" not in text and "\u0007" not in text
    assert "\\|a\\|" in text


def test_escape_caps_length() -> None:
    assert len(escape("x" * 10_000, limit=100)) == 100


def test_long_reports_are_capped_for_github() -> None:
    findings = [Finding(Code.SCHEMA, "y" * 400, f"f{i}.yaml", i + 1) for i in range(2000)]
    verdicts = [AttemptVerdict(f"attempts/market-03/a/b{i}", 3, "run", findings) for i in range(5)]
    body = render_markdown(verdicts)
    assert len(body) <= MAX_COMMENT
    assert "more; run `claims verify` locally" in body


def test_valid_and_invalid_headlines() -> None:
    ok = AttemptVerdict("attempts/market-03/a/b", 3, "run", ())
    bad = AttemptVerdict(
        "attempts/market-03/a/c",
        3,
        "run",
        (Finding(Code.DUPLICATE_TRIAL, "second trial", "t.jsonl", 4),),
    )
    assert render_markdown([ok]).startswith("### ✅ Evidence valid")
    text = render_markdown([ok, bad])
    assert text.startswith("### ❌ Evidence invalid (1)")
    assert "| `duplicate-trial` | t.jsonl:4 | second trial |" in text

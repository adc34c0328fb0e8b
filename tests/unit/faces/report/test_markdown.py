"""Markdown for PR comments: filer-controlled text is inert."""

from __future__ import annotations

from dataclasses import replace

from bot.app.api import VerifyReport
from bot.faces.report.markdown import MAX_COMMENT, escape, render_markdown
from bot.rules.verdict import AttemptVerdict, BarResult
from bot.vocab.findings import Code, Finding
from tests.support import small_sample_bar


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
    body = render_markdown(VerifyReport(verdicts))
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
    assert render_markdown(VerifyReport([ok])).startswith("### ✅ Evidence valid")
    text = render_markdown(VerifyReport([ok, bad]))
    assert text.startswith("### ❌ Evidence invalid (1)")
    assert "| `duplicate-trial` | t.jsonl:4 | second trial |" in text


def test_pull_request_and_registry_problems_have_their_own_sections() -> None:
    ok = AttemptVerdict("attempts/market-03/a/b", 3, "run", ())
    outside = Finding(Code.PATH_OUTSIDE_ATTEMPT, "changes a market", "markets/market-03.yaml")
    broken = Finding(Code.REGISTRY_INVALID, "bad contract", "markets/market-05.yaml", 2)
    text = render_markdown(VerifyReport([ok], registry_problems=[broken], pr_problems=[outside]))
    # A pull-request problem makes the evidence invalid, although every attempt is valid.
    assert text.startswith("### ❌ Evidence invalid")
    assert "#### What this pull request may not change" in text
    assert "| `path-outside-attempt` | markets/market-03.yaml | changes a market |" in text
    assert "#### Registry problems (for maintainers)" in text
    assert "| `registry-invalid` | markets/market-05.yaml:2 | bad contract |" in text


def test_bars_and_digests_are_listed_and_escaped() -> None:
    bars = (
        BarResult("false-safe", "rate_upper", 0.2, True, 1, 30, 0.1534, met=True),
        BarResult("caught_*", "rate_lower", 0.5, False, note="never tested"),
    )
    verdict = AttemptVerdict(
        "attempts/market-03/a/@b",
        3,
        "run",
        (),
        digest="ab" * 32,
        status="qualifying",
        outcome="missed",
        bars=bars,
    )
    text = render_markdown(VerifyReport([verdict]))
    assert "- bar false-safe (rate_upper): bound 0.1534 <= 0.2: **met**" in text
    assert "- bar caught\\_\\*: not exercised" in text
    assert f"- attempts/market-03/a/@\u2060b: `{'ab' * 32}`" in text


def test_an_attempt_invalid_through_its_pull_request_has_no_status_or_outcome() -> None:
    own = Finding(
        Code.MAINTAINER_FILE, "judgments.yaml is written by maintainers only", "a/judgments.yaml"
    )
    verdict = AttemptVerdict("attempts/market-03/a/b", 3, "run", (), pr_problems=(own,))
    text = render_markdown(VerifyReport([verdict], pr_problems=[own]))
    assert text.startswith("### ❌ Evidence invalid (1)")
    assert "| attempts/market-03/a/b | 3 | run | invalid | - | - | 1 |" in text
    assert "- invalid: this pull request changes what it may not (`maintainer-file`, below)" in text
    assert text.count("| `maintainer-file` |") == 1  # listed once, under the pull request


def test_auroc_bar_shows_units_per_class_and_coverage() -> None:
    bars = (
        small_sample_bar(),
        BarResult("small", "auroc_lower", 0.8, False, units=5, positives=2, negatives=3),
    )
    verdict = AttemptVerdict("a", 3, "run", (), status="qualifying", outcome="missed", bars=bars)
    text = render_markdown(VerifyReport([verdict]))
    assert (
        "- bar discrimination (auroc_lower): bound 0.7712 >= 0.8: **missed**;"
        " 10 positive, 10 negative units; DeLong's 95% bound covers about 87.5% here"
        " (simulated); delong-logit bound 0.7489 (information only)"
    ) in text
    assert "- bar small: not exercised (2 positive, 3 negative units)" in text


def test_an_auroc_bar_without_coverage_says_why() -> None:
    note = "fewer than 5 units in a class: DeLong's coverage was not simulated this small"
    bar = replace(small_sample_bar(), positives=2, negatives=20, coverage=None, note=note)
    verdict = AttemptVerdict("a", 3, "run", (), status="qualifying", outcome="missed", bars=(bar,))
    text = render_markdown(VerifyReport([verdict]))
    assert f"2 positive, 20 negative units; {note}; delong-logit bound 0.7489" in text

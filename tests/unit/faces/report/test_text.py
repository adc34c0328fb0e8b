"""The terminal report renders every verdict the pipeline can produce, never a traceback."""

from __future__ import annotations

from datetime import UTC, date, datetime
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.app.api import ResolveReport, VerifyReport
from bot.faces.report.text import render_resolution, render_text
from bot.rules.resolution import AttemptSummary, MarketResolution, Snapshot
from bot.rules.verdict import AttemptVerdict, BarResult, CheckState
from bot.vocab.dates import MarketDates
from bot.vocab.findings import Code, Finding, Severity
from tests.support import small_sample_bar

NOT_ENOUGH = Finding(
    Code.SAMPLE_SIZE, "3 independent units, the market needs 400", "a/trials.jsonl"
)
_counts = st.one_of(st.none(), st.integers(0, 10**6))
_numbers = st.one_of(st.none(), st.floats(0, 1), st.integers(0, 10**6))


def _possible_bar(**fields: Any) -> BarResult:
    """A bar as the judge could give it: met or missed when exercised, and only then; refused
    only when an AUROC bar was not exercised (`BarResult` refuses anything else)."""
    exercised = fields["exercised"]
    met = fields.pop("met")
    fields["refused"] &= not exercised and fields["statistic"] == "auroc_lower"
    return BarResult(**fields, met=(bool(met) if exercised else None))


_bars = st.builds(
    _possible_bar,
    bar_id=st.sampled_from(["false-safe", "discrimination"]),
    statistic=st.sampled_from(["rate_upper", "rate_lower", "auroc_lower"]),
    threshold=st.floats(0, 1),
    exercised=st.booleans(),
    failures=_counts,
    units=_counts,
    bound=_numbers,
    auroc=_numbers,
    positives=_counts,
    negatives=_counts,
    met=st.one_of(st.none(), st.booleans()),
    note=st.text(max_size=40),
    refused=st.booleans(),
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(_bars, max_size=4),
    st.sampled_from(["qualifying", "not-qualifying", "pending-judgment"]),
)
def test_any_bar_entry_renders(bars: list[BarResult], status: str) -> None:
    # The rest of the verdict as the judge gives it: the outcome the bars make, a reason why an
    # attempt does not qualify, a check a pending one waits for.
    outcome = (
        ("met" if all(bar.met for bar in bars) else "missed") if status == "qualifying" else None
    )
    verdict = AttemptVerdict(
        "attempts/market-03/a/b",
        3,
        "run",
        (),
        qualification=(NOT_ENOUGH,) if status == "not-qualifying" else (),
        status=status,  # type: ignore[arg-type]
        outcome=outcome,
        bars=bars,
        checks={"review": CheckState("missing")} if status == "pending-judgment" else {},
    )
    text = render_text(VerifyReport([verdict]))
    assert status.upper() in text
    assert text.count("    bar ") == len(bars)


def test_exercised_auroc_bar_without_a_bound() -> None:
    bar = BarResult(
        "discrimination",
        "auroc_lower",
        0.8,
        True,
        units=4,
        auroc=None,
        bound=None,
        positives=1,
        negatives=3,
        met=False,
        note="DeLong's variance needs at least 2 of each",
    )
    verdict = AttemptVerdict("a", 3, "run", (), status="qualifying", outcome="missed", bars=[bar])
    text = render_text(VerifyReport([verdict]))
    assert "AUROC none, lower bound none >= 0.8? missed" in text


def test_multi_line_messages_stay_indented() -> None:
    finding = Finding(
        Code.ADAPTER_FAILED,
        "the adapter failed: exit code 1\nTraceback\n  x",
        "a/adapter/adapter.yaml",
    )
    text = render_text(VerifyReport([AttemptVerdict("a", 3, "wrapped", (finding,))]))
    assert "\n            Traceback\n              x" in text


def test_the_total_counts_attempts_and_problems() -> None:
    ok = AttemptVerdict("attempts/market-03/a/b", 3, "run", ())
    bad = AttemptVerdict(
        "attempts/market-03/a/c", 3, "run", (Finding(Code.DUPLICATE_TRIAL, "again", "t.jsonl", 4),)
    )
    outside = Finding(Code.PATH_OUTSIDE_ATTEMPT, "changes a market", "markets/market-03.yaml")
    broken = Finding(Code.REGISTRY_INVALID, "bad contract", "markets/market-05.yaml", 2)
    report = VerifyReport([ok, bad], registry_problems=[broken], pr_problems=[outside])
    text = render_text(report)
    assert text.endswith(
        "2 attempt(s): 1 valid, 1 invalid; 1 pull-request problem(s); 1 registry problem(s)\n"
    )
    assert "PULL REQUEST problems" in text and "markets/market-03.yaml" in text
    assert "REGISTRY problems" in text and "markets/market-05.yaml:2" in text
    assert "VALID    attempts/market-03/a/b" in text
    assert "INVALID  attempts/market-03/a/c" in text


def _resolution(
    outcome: str | None, state: str, why: str, as_of: date = date(2027, 9, 1)
) -> MarketResolution:
    return MarketResolution(
        market=3,
        title="Demo market 3",
        demo=True,
        dates=MarketDates.of(date(2027, 6, 30), 60, 30),
        as_of=as_of,
        state=state,  # type: ignore[arg-type]
        outcome=outcome,  # type: ignore[arg-type]
        provisional="YES",
        why=why,
        attempts=(
            AttemptSummary("attempts/market-03/lab/a", "valid", "qualifying", "met", ()),
            AttemptSummary("attempts/market-03/lab/b", "invalid", None, None, ("schema",)),
        ),
        # Tagged once the window closed: on a day before, the tag did not exist yet.
        snapshot=Snapshot(
            "snapshot-2027-06-30", "ok", "missing", datetime(2027, 8, 30, 9, tzinfo=UTC)
        )
        if as_of > date(2027, 8, 29)
        else Snapshot("snapshot-2027-06-30"),
        warnings=("snapshot-2027-06-30: its archive copy missing",),
        source="git commit abc123",
    )


def test_resolution_names_each_market_and_attempt() -> None:
    broken = Finding(Code.REGISTRY_INVALID, "bad contract", "markets/market-05.yaml", 2)
    report = ResolveReport(
        date(2027, 9, 1), (_resolution("YES", "closed", "a qualifying attempt met"),), (broken,)
    )
    text = render_resolution(report)
    assert text.startswith("market 3 (demo): YES · closed · resolve-by 2027-06-30,")
    assert "  read from the git commit abc123\n" in text
    assert "  why: a qualifying attempt met\n" in text
    assert "  warning: snapshot-2027-06-30: its archive copy missing\n" in text
    assert "qualifying (met)" in text and "attempts/market-03/lab/a" in text
    assert "evidence invalid" in text and "attempts/market-03/lab/b  [schema]" in text
    assert "REGISTRY problems" in text and "markets/market-05.yaml:2" in text
    assert text.endswith("1 market(s) as of 2027-09-01\n")


def test_brief_resolution_is_one_line_per_market() -> None:
    in_window = date(2027, 7, 15)
    report = ResolveReport(in_window, (_resolution(None, "filing-window", "open", in_window),))
    lines = render_resolution(report, brief=True).splitlines()
    assert lines == [
        "market  3: filing-window (provisionally YES)",
        "1 market(s) as of 2027-07-15",
    ]


def test_an_attempt_invalid_through_its_pull_request_says_so() -> None:
    own = Finding(
        Code.MAINTAINER_FILE, "judgments.yaml is written by maintainers only", "a/judgments.yaml"
    )
    verdict = AttemptVerdict("attempts/market-03/a/b", 3, "run", (), pr_problems=(own,))
    text = render_text(VerifyReport([verdict], pr_problems=[own]))
    assert text.startswith("INVALID  attempts/market-03/a/b")
    assert "invalid: its pull request changes what it may not (maintainer-file; see below)" in text
    assert text.count("judgments.yaml is written by maintainers only") == 1  # listed once
    assert text.rstrip().endswith("1 attempt(s): 0 valid, 1 invalid; 1 pull-request problem(s)")


def test_auroc_bar_shows_units_per_class_coverage_and_the_logit_bound() -> None:
    bar = small_sample_bar(bound=0.7712)
    verdict = AttemptVerdict("a", 3, "run", (), status="qualifying", outcome="missed", bars=[bar])
    text = render_text(VerifyReport([verdict]))
    assert (
        "    bar discrimination: AUROC 0.9000, lower bound 0.7712 >= 0.8? missed"
        " (10 positive, 10 negative units)\n"
        "            DeLong's 95% bound covers about 87.5% here (simulated);"
        " delong-logit bound 0.7489 (information only)"
    ) in text


def test_auroc_bar_not_exercised_shows_its_units_per_class() -> None:
    bar = BarResult(
        "discrimination",
        "auroc_lower",
        0.8,
        False,
        units=19,
        positives=10,
        negatives=9,
        note="10 positive and 9 negative units: the market's min_per_class is 10 in each class",
    )
    reason = Finding(Code.BAR_NOT_EXERCISED, f"bar 'discrimination': {bar.note}", "a/trials.jsonl")
    verdict = AttemptVerdict(
        "a", 3, "run", (), qualification=(reason,), status="not-qualifying", bars=[bar]
    )
    text = render_text(VerifyReport([verdict]))
    assert (
        "    bar discrimination: not exercised (10 positive and 9 negative units: the market's"
        " min_per_class is 10 in each class)\n"
    ) in text


def test_registry_notices_are_not_listed_as_problems_to_fix() -> None:
    """A damaged verification-cache entry (a notice: the attempt was checked again) is what
    the run did, not a problem for a maintainer: its own heading, not counted as one."""
    notice = Finding(
        Code.CACHE_ENTRY_INVALID,
        "the entry for attempts/market-03/a/b was damaged; checked from its files",
        "cache/ab/abcd.json",
        severity=Severity.NOTICE,
    )
    text = render_text(VerifyReport((), registry_problems=(notice,)))
    assert "REGISTRY problems" not in text
    assert "REGISTRY notices (nothing to fix):" in text and "cache-entry-invalid" in text
    assert "registry problem(s)" not in text

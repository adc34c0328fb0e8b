"""bot/faces/site/render.py and charts.py: pages escape what they show, optional report fields
appear when present, charts are accessible and reproducible SVGs."""

from __future__ import annotations

import json
from datetime import date

import html5lib
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.faces.site.charts import BarPoint, TimelineEvent, bars_svg, timeline_svg
from bot.faces.site.model import plan_site
from bot.faces.site.render import render_site
from tests.support import SITE_ATTEMPT, site_attempt, site_inputs, site_record

PAGE = f"{SITE_ATTEMPT}/index.html"


def _strict(html: bytes) -> None:
    html5lib.HTMLParser(strict=True).parse(html)


def test_hostile_text_in_a_report_is_escaped() -> None:
    reason = {**site_attempt()["reasons"][0], "message": '<script>alert(1)</script>"&'}
    files = render_site(
        plan_site(site_inputs(attempts={SITE_ATTEMPT: site_attempt(reasons=[reason])}))
    )
    for path in (PAGE, "markets/market-03/index.html"):
        html = files[path]
        assert b"<script>" not in html
        assert b"&lt;script&gt;alert(1)&lt;/script&gt;&#34;&amp;" in html
        _strict(html)


def test_optional_bar_fields_get_columns_only_when_present() -> None:
    plain = render_site(plan_site(site_inputs()))[PAGE].decode()
    assert "Units per class" not in plain and "Coverage" not in plain
    bar = {
        **site_attempt()["bars"][0],
        "units_per_class": {"positive": 10, "negative": 6},
        "coverage": 0.874,
        "auroc_lower_alt": {"method": "hanley-mcneil", "bound": 0.81},
    }
    attempt = site_attempt(bars=[bar], challenge={"tasks": 3})
    html = render_site(plan_site(site_inputs(attempts={SITE_ATTEMPT: attempt})))[PAGE].decode()
    assert "Positives / negatives" not in html  # the same counts, shown once
    for text in (
        '<th scope="col">Units per class</th>',
        "positive 10, negative 6",
        '<th scope="col">Simulated coverage</th>',
        "0.8740",
        "0.8100 (hanley-mcneil)",
        "More from the report",
        "&#34;tasks&#34;: 3",
    ):
        assert text in html, text
    _strict(html.encode())


def test_the_doi_of_a_recorded_archive_copy_is_a_link() -> None:
    files = render_site(plan_site(site_inputs(records={3: site_record()})))
    html = files["markets/market-03/index.html"].decode()
    assert '<a href="https://doi.org/10.5281/zenodo.123">10.5281/zenodo.123</a>' in html
    assert b"snapshot tagged" in files["markets/market-03/timeline.svg"]


def test_every_page_links_relative_to_its_depth() -> None:
    files = render_site(plan_site(site_inputs()))
    assert b'href="style.css"' in files["index.html"]
    assert b'href="../../style.css"' in files["markets/market-03/index.html"]
    assert b'href="../../../../style.css"' in files[PAGE]


def test_charts_are_reproducible_and_say_what_they_show() -> None:
    points = [
        BarPoint("false-safe", "rate_upper", 0.25, 0.2, False, 1 / 16),
        BarPoint("discrimination", "auroc_lower", 0.9, 0.8, True, 0.95),
    ]
    first, description = bars_svg(points, "Bars of an attempt")
    again, _ = bars_svg(points, "Bars of an attempt")
    assert first == again
    assert description == (
        "false-safe: bound 0.2500, threshold at most 0.2, missed; "
        "discrimination: bound 0.9000, threshold at least 0.8, met"
    )
    assert '<title id="chart-title">Bars of an attempt</title>' in first
    assert f'<desc id="chart-desc">{description}</desc>' in first
    assert "<!DOCTYPE" not in first and "<metadata>" not in first
    svg, text = timeline_svg(
        [TimelineEvent("window closes", date(2027, 8, 29)), TimelineEvent("R", date(2027, 6, 30))],
        "Timeline <&>",
    )
    assert text == "R 2027-06-30; window closes 2027-08-29"
    assert '<title id="chart-title">Timeline &lt;&amp;&gt;</title>' in svg


def test_the_index_lists_registry_problems_when_there_are_some() -> None:
    assert b"Registry problems" not in render_site(plan_site(site_inputs()))["index.html"]
    problem = {
        "code": "registry-invalid",
        "message": "markets/market-09.yaml: bars: expected a list",
        "file": "markets/market-09.yaml",
        "line": 12,
        "severity": "error",
    }
    html = render_site(plan_site(site_inputs(problems=[problem])))["index.html"].decode()
    assert "<h2>Registry problems</h2>" in html
    assert "<code>registry-invalid</code>: markets/market-09.yaml: bars: expected a list" in html
    _strict(html.encode())


def test_an_attempt_entry_the_site_cannot_draw_is_an_error_panel_on_its_own_page() -> None:
    """Every job answers per attempt (issue 21): an entry that breaks planning (a bar that
    is no object) or drawing (a bar whose threshold is no number) gives that attempt's page
    an error panel; the other attempt's page and the market page are drawn."""
    other = "attempts/market-03/bob-lab/monitor-v2"
    broken = site_attempt(bars=["not a bar"])
    undrawable = site_attempt(bars=[{**site_attempt()["bars"][0], "threshold": "high"}])
    for bad in (broken, undrawable):
        errors: list[str] = []
        plan = plan_site(
            site_inputs(attempts={SITE_ATTEMPT: bad, other: site_attempt(attempt=other)})
        )
        files = render_site(plan, errors=errors)
        page = files[PAGE].decode()
        assert "cannot be shown" in page, page
        assert "cannot be shown" not in files[f"{other}/index.html"].decode()
        _strict(files[PAGE])
        _strict(files["markets/market-03/index.html"])


_ANY_TEXT = st.one_of(
    st.text(st.characters(codec="utf-8"), max_size=80),
    st.binary(max_size=30).map(lambda raw: raw.decode("utf-8", "surrogateescape")),
)


@settings(max_examples=25, deadline=None)
@given(text=_ANY_TEXT, number=st.integers(-(2**53), 2**53))
def test_any_text_or_number_of_a_report_entry_renders_without_an_error_page(
    text: str, number: int
) -> None:
    """Whatever text (any Unicode, bytes that are not UTF-8) or integer a filer's data puts in
    an attempt's entry reaches every page and endpoint of the site as data: nothing raises,
    nothing is drawn as an error page, every page parses."""
    reason = {"code": "schema", "message": text, "file": text, "line": number, "severity": "error"}
    checks = {text or "x": {"state": text, "verdict": None, "by": text, "at": None}}
    attempt = site_attempt(  # no bars: their chart is another test's, and slow
        reasons=[reason], checks=checks, class_conditional={"all": {text: {text: number}}}, bars=[]
    )
    attempt["counts"] = dict.fromkeys(attempt["counts"], number)
    errors: list[str] = []
    files = render_site(plan_site(site_inputs(attempts={SITE_ATTEMPT: attempt})), errors=errors)
    assert errors == []
    for path, data in files.items():
        if path.endswith(".html"):
            _strict(data)
        elif path.endswith(".json"):
            json.loads(data)

"""What the public site shows a researcher (issue 23): the attempt as filed, what is decided
and what is not, no local path, no "missing" snapshot for an open market, and every reason
code linked to its documentation, shipped with the site.

`open_site` is the demo registry as it stood before market 3's window closed (its record and
tag taken away, built without report files as of 2027-04-01, as pages.yml builds), with the
repository's docs/reason-codes.md beside it and one filer's attempt.yaml made hostile.
"""

from __future__ import annotations

import itertools
import json
import re
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import html5lib
import pytest

from bot.vocab.findings import Code
from tests.support import HOSTILE_TITLE, DemoSite, open_market_site

ALICE = "attempts/market-03/alice-lab/monitor-v1"
TOY = "attempts/market-06/toy-lab/gridworld-monitor"
HOSTILE = "attempts/market-03/bob-lab/edited-cases"


@dataclass(frozen=True)
class OpenSite:
    registry: Path
    site: Path


@pytest.fixture(scope="module")
def open_site(demo_site: DemoSite, tmp_path_factory: pytest.TempPathFactory) -> OpenSite:
    folder = tmp_path_factory.mktemp("open-site")
    site = open_market_site(demo_site.registry, folder, HOSTILE)
    return OpenSite(folder / "registry", site)


def _tree(path: Path) -> Any:
    return html5lib.parse(path.read_bytes(), namespaceHTMLElements=False)


def _text(element: Any) -> str:
    return re.sub(r"\s+", " ", "".join(element.itertext())).strip()


def _described(tree: Any) -> dict[str, str]:
    found = {}
    for dl in tree.iter("dl"):
        children = list(dl)
        for term, value in itertools.pairwise(children):
            if term.tag == "dt" and value.tag == "dd":
                found.setdefault(_text(term), _text(value))
    return found


def test_an_attempt_page_shows_the_attempt_as_filed(demo_site: DemoSite) -> None:
    tree = _tree(demo_site.site / ALICE / "index.html")
    described = _described(tree)
    assert described["Title"] == "Trace monitor v1 under prompt-injection attack"
    assert described["Method"] == "trace-monitor, version 1.0.0"
    url = "https://papers.example.org/alice-lab/monitor-v1"
    assert described["Publication"].startswith(url)
    assert [a.get("href") for a in tree.iter("a") if a.text == url] == [url]
    [teams] = [t for t in tree.iter("table") if "Red teams" in _text(t.find("caption"))]
    rows = [[_text(cell) for cell in row] for row in teams.iter("tr")]
    assert rows[1] == [
        "Red team 1",
        "Example Security Collective",
        "yes",
        "48",
        "black-box",
        "2027-01-12T12:00:00Z",
    ]


def test_a_filers_text_is_escaped_and_only_a_web_address_is_linked(open_site: OpenSite) -> None:
    page = open_site.site / HOSTILE / "index.html"
    tree = _tree(page)
    assert _described(tree)["Title"] == HOSTILE_TITLE.replace("  ", " ")
    assert list(tree.iter("script")) == []
    assert b"<script>" not in page.read_bytes()
    assert _described(tree)["Publication"].startswith("javascript:x()")
    assert not [a for a in tree.iter("a") if "javascript" in (a.get("href") or "")]


def test_what_is_decided_is_said_once(demo_site: DemoSite) -> None:
    """A not-qualifying attempt whose bars were each met decides nothing; a qualifying one
    does. The page says which, once, and the table's column does not read as a decision."""
    toy = _tree(demo_site.site / TOY / "index.html")
    text = _text(toy)
    assert "only a qualifying attempt meets or misses the bars)" not in text
    assert text.count("not decided") == 1
    assert _described(toy)["Bars"].startswith(
        "not decided: only a qualifying attempt meets or misses its market's bars, and this"
        " attempt is not-qualifying"
    )
    [bars] = [t for t in toy.iter("table") if "bars" in (t.get("class") or "")]
    headers = [_text(th) for th in bars.find("thead").iter("th")]
    assert "Against threshold" in headers and "Met" not in headers
    alice = _tree(demo_site.site / ALICE / "index.html")
    assert _described(alice)["Bars"] == "met: decided, since the attempt qualifies"


def test_no_bars_table_has_an_empty_note_column(demo_site: DemoSite) -> None:
    checked = 0
    for page in demo_site.site.glob("attempts/**/index.html"):
        for table in _tree(page).iter("table"):
            headers = [_text(th) for th in table.find("thead").iter("th")]
            if "Note" not in headers:
                continue
            column = headers.index("Note")
            notes = [_text(list(row)[column]) for row in table.find("tbody").iter("tr")]
            assert any(notes), page
        checked += 1
    assert checked > 10


def test_no_page_or_endpoint_publishes_the_builders_folder(open_site: OpenSite) -> None:
    folders = {str(open_site.registry), str(open_site.registry.resolve())}
    for path in open_site.site.rglob("*"):
        if path.is_file():
            data = path.read_bytes()
            for folder in folders:
                assert folder.encode() not in data, path
    market = json.loads((open_site.site / "market-03.json").read_text(encoding="utf-8"))
    assert market["source"] == "working tree (the registry's branch as checked out)"
    described = _described(_tree(open_site.site / "markets" / "market-03" / "index.html"))
    assert described["Attempts read from"] == market["source"]


def test_an_open_market_has_no_missing_snapshot(open_site: OpenSite) -> None:
    tree = _tree(open_site.site / "markets" / "market-03" / "index.html")
    described = _described(tree)
    assert described["State"] == "open"
    assert described["Snapshot tag"] == (
        "not made yet: snapshot-2027-06-30 is tagged when the filing window closes on 2027-08-29"
    )
    assert "(missing)" not in _text(tree)
    assert "DOI" not in described  # no archive copy is due yet
    # A closed market whose tag was never made still says so (market 2, annulled).
    closed = _described(_tree(open_site.site / "markets" / "market-02" / "index.html"))
    assert closed["Snapshot tag"] == "snapshot-2027-04-30 (missing)"


def test_dates_never_break_at_their_hyphens(demo_site: DemoSite) -> None:
    """Every date of the pages is a `<time>` or a `.date`, which the stylesheet keeps on one
    line (the browser test measures it)."""
    css = (demo_site.site / "style.css").read_text(encoding="utf-8")
    assert re.search(r"(?m)^time, \.date \{ white-space: nowrap; \}", css)
    for page in demo_site.site.rglob("*.html"):
        for cell in _tree(page).iter("td"):
            if re.fullmatch(r"[0-9]{4}-[0-9]{2}-[0-9]{2}\S*", _text(cell)):
                assert [child.tag for child in cell] in (["time"], ["span"]), (page, _text(cell))


def test_reason_codes_link_to_their_documentation_shipped_with_the_site(
    open_site: OpenSite,
) -> None:
    page = open_site.site / "reason-codes" / "index.html"
    ids = {element.get("id") for element in _tree(page).iter() if element.get("id")}
    assert {code.value for code in Code} <= ids  # every code the bot knows has its section
    linked = 0
    for html in open_site.site.rglob("*.html"):
        tree = _tree(html)
        for item in tree.iter("li"):
            code = item.find("code")
            link = item.find("a")
            if link is None or link.find("code") is None:
                assert code is None or code.text not in ids, (html, code.text)
                continue
            target, _, anchor = (link.get("href") or "").partition("#")
            assert (html.parent / target).resolve() == page.resolve()
            assert anchor == _text(link) and anchor in ids
            linked += 1
    assert linked > 20


def test_the_reason_codes_page_reads_the_docs_sections() -> None:
    from bot.faces.site.model import reason_code_sections

    text = (
        "# Reason codes\n\nIntro `a`.\n\n## Group\n\n### `file-missing`\n\n"
        "See [x](y.md).\n\n```\nout\n```\n\n| a |\n|---|\n"
    )
    sections = reason_code_sections(text)
    assert [(s["level"], s["id"]) for s in sections] == [(1, ""), (2, "group"), (3, "file-missing")]
    assert sections[0]["blocks"] == [
        {
            "kind": "p",
            "runs": [
                {"kind": "text", "text": "Intro "},
                {"kind": "code", "text": "a"},
                {"kind": "text", "text": "."},
            ],
        }
    ]
    assert sections[2]["blocks"] == [
        {"kind": "p", "runs": [{"kind": "text", "text": "See x."}]},
        {"kind": "pre", "text": "out"},
        {"kind": "pre", "text": "| a |\n|---|"},
    ]

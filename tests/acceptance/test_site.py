"""`claims site` on the demo registry: strict HTML, accessibility basics, offline assets,
JSON endpoints valid against their schemas, and what each page must show."""

from __future__ import annotations

import itertools
import json
import re
from pathlib import Path
from typing import Any
from unittest import mock

import html5lib
import pytest
from html5lib.html5parser import ParseError

from bot.faces.cli import main
from bot.rules.evidence.schema import validate
from bot.rules.records import RecordsChecker
from tests.support import RULES, DemoSite, seed_machine_readable, site_arguments


def _pages(site: Path) -> list[Path]:
    pages = sorted(site.rglob("*.html"))
    assert pages
    return pages


def _parse(path: Path) -> Any:
    parser = html5lib.HTMLParser(strict=True, namespaceHTMLElements=False)
    try:
        return parser.parse(path.read_bytes())
    except ParseError as error:
        raise AssertionError(f"{path}: {error}") from None


def _text(element: Any) -> str:
    return re.sub(r"\s+", " ", "".join(element.itertext())).strip()


def test_every_page_parses_as_strict_html5(demo_site: DemoSite) -> None:
    for page in _pages(demo_site.site):
        _parse(page)


def test_the_strict_parser_would_see_broken_markup(tmp_path: Path) -> None:
    page = tmp_path / "bad.html"
    page.write_text("<!DOCTYPE html><html lang=en><title>x</title><p><b>open</p></html>")
    with pytest.raises(AssertionError):
        _parse(page)


def test_every_page_keeps_the_accessibility_basics(demo_site: DemoSite) -> None:
    for page in _pages(demo_site.site):
        where = page.relative_to(demo_site.site)
        tree = _parse(page)
        assert tree.get("lang") == "en", where
        for landmark in ("header", "nav", "main", "footer"):
            assert len(tree.findall(f".//{landmark}")) == 1, (where, landmark)
        assert tree.find(".//title").text.strip(), where
        levels = [int(e.tag[1]) for e in tree.iter() if re.fullmatch(r"h[1-6]", str(e.tag))]
        assert levels[0] == 1 and levels.count(1) == 1, where
        for before, after in itertools.pairwise(levels):
            assert after <= before + 1, (where, levels)  # no level skipped going down
        for image in tree.iter("img"):
            assert image.get("alt", "").strip(), (where, image.get("src"))
        for cell in tree.iter("th"):
            assert cell.get("scope") in ("col", "row"), where
        for table in tree.iter("table"):
            assert table.find("caption") is not None, where
        assert not list(tree.iter("script")), where
        ids = [e.get("id") for e in tree.iter() if e.get("id")]
        assert len(ids) == len(set(ids)), (where, ids)
        for element in tree.iter():
            label = element.get("aria-labelledby")
            assert label is None or label in ids, (where, label)


def test_no_asset_comes_from_another_host(demo_site: DemoSite) -> None:
    for page in _pages(demo_site.site):
        tree = _parse(page)
        for element in tree.iter():
            for attribute in ("src", "srcset"):
                value = element.get(attribute)
                assert value is None or not re.match(r"(?i)([a-z]+:)?//", value), (page, value)
            if element.tag == "link":
                href = element.get("href", "")
                assert href == "data:," or not re.match(r"(?i)([a-z]+:)?//", href), (page, href)
    for svg in demo_site.site.rglob("*.svg"):
        text = svg.read_text(encoding="utf-8")
        assert "<!DOCTYPE" not in text
        assert not re.search(r'(?:xlink:)?href="(?!#)', text), svg
        assert re.search(r"<title id=\"chart-title\">[^<]+</title>", text), svg
        assert 'role="img"' in text


def test_the_json_endpoints_validate_against_their_schemas(demo_site: DemoSite) -> None:
    index = json.loads((demo_site.site / "markets.json").read_text(encoding="utf-8"))
    assert validate("site-markets", index, "markets.json") == []
    assert [m["market"] for m in index["markets"]] == [2, 3, 5, 6, 11]
    for row in index["markets"]:
        data = json.loads((demo_site.site / row["json"]).read_text(encoding="utf-8"))
        assert validate("site-market", data, row["json"]) == [], row["json"]
        assert (data["state"], data["outcome"]) == (row["state"], row["outcome"])
    broken = dict(index, markets=[dict(index["markets"][0], outcome="MAYBE")])
    assert validate("site-markets", broken, "markets.json") != []


def test_outcomes_snapshots_and_archive_copies_come_from_the_resolution_records(
    demo_site: DemoSite,
) -> None:
    index = json.loads((demo_site.site / "markets.json").read_text(encoding="utf-8"))
    assert {m["market"]: (m["state"], m["outcome"], m["decided_by"]) for m in index["markets"]} == {
        2: ("annulled", "ANNULLED", "resolution-record"),
        3: ("closed", "YES", "resolution-record"),
        5: ("closed", "NO", "resolution-record"),
        6: ("closed", "OTHER", "resolution-record"),
        11: ("closed", "YES", "resolution-record"),
    }
    market = json.loads((demo_site.site / "market-03.json").read_text(encoding="utf-8"))
    record = (demo_site.registry / "resolutions" / "market-03.yaml").read_text(encoding="utf-8")
    assert market["snapshot"]["tag"] == "snapshot-2027-06-30"
    assert market["snapshot"]["commit"] in record
    assert market["snapshot"]["archive"]["checksum"] in record
    assert market["snapshot"]["archive"]["doi"] is None  # a local copy has none


def _described(tree: Any) -> dict[str, str]:
    """Each `<dt>` of the page's description lists, with the text of the `<dd>` after it."""
    found = {}
    for listing in tree.iter("dl"):
        children = list(listing)
        for term, value in itertools.pairwise(children):
            if term.tag == "dt" and value.tag == "dd":
                found[_text(term)] = _text(value)
    return found


def test_a_market_page_shows_its_outcome_and_each_attempts_reasons(demo_site: DemoSite) -> None:
    tree = _parse(demo_site.site / "markets" / "market-03" / "index.html")
    page = _text(tree)
    described = _described(tree)
    assert described["Outcome"] == "YES"
    assert described["State"] == "closed"
    assert "snapshot-2027-06-30" in page
    verify = json.loads(
        (demo_site.registry / ".claims" / "verify-main.json").read_text(encoding="utf-8")
    )
    for attempt in verify["attempts"]:
        if attempt["market"] != 3:
            continue
        assert attempt["attempt"] in page
    market = json.loads((demo_site.site / "market-03.json").read_text(encoding="utf-8"))
    for row in market["attempts"]:
        for reason in row["reasons"]:
            assert reason["code"] in page
            if reason["message"]:
                assert re.sub(r"\s+", " ", reason["message"]) in page


def test_an_attempt_page_shows_bars_checks_tables_digest_and_files(demo_site: DemoSite) -> None:
    folder = demo_site.site / "attempts" / "market-03" / "alice-lab" / "monitor-v1"
    page = _text(_parse(folder / "index.html"))
    for text in (
        "false-safe",
        "discrimination",
        "0.1707",  # the false-safe bound, 0.1707497...
        "0.9740",  # the AUROC lower bound
        "at most 0.2",
        "reconstructible",
        "certificate (rows) against benchmark truth (columns)",
        "677023ba15aabc03eb492eb0c61f16c0b600192bd587e2909df625acb62dce85",
        "freeze-cases.jsonl",
        # issue 15's fields of the AUROC bar, when the report has them
        "positive 16, negative 8",
        "0.9241 (delong-logit)",
    ):
        assert text in page, text
    assert (folder / "bars.svg").is_file()
    copies = sorted((demo_site.site / "files").rglob("*"))
    assert copies and all(p.is_dir() or p.suffix in (".txt", ".bin") for p in copies)


def test_the_rules_page_has_every_section_and_machine_readable_line(demo_site: DemoSite) -> None:
    tree = _parse(demo_site.site / "rules" / "common-v1" / "index.html")
    page = _text(tree)
    for line in seed_machine_readable():
        assert line in page, line
    lines = [_text(p) for p in tree.iter("p") if "machine-readable" in p.get("class", "")]
    assert lines == seed_machine_readable()
    for heading in ("Three Way Rule", "Red teams", "Glossary", "Deadlines", "Serious"):
        assert heading in [_text(h) for h in tree.iter() if re.fullmatch(r"h[1-6]", str(h.tag))]
    assert (demo_site.site / "rules" / "common-v1" / "common-v1.yaml").is_file()


def test_site_without_report_files_runs_verify_and_resolve(
    demo_site: DemoSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    code = main(
        ["site", "--registry", str(demo_site.registry), "--out", str(out), "--as-of", "2027-11-01"]
    )
    assert code == 0, capsys.readouterr()
    index = json.loads((out / "markets.json").read_text(encoding="utf-8"))
    assert {m["market"]: m["outcome"] for m in index["markets"]} == {
        2: "ANNULLED",
        3: "YES",
        5: "NO",
        6: "OTHER",
        11: "YES",
    }
    assert "resolve report as of 2027-11-01" in index["sources"]


def test_a_malformed_report_exits_2_and_leaves_the_site_as_it_was(
    demo_site: DemoSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "site"
    assert main(site_arguments(demo_site.registry, out)) == 0
    before = sorted(p.relative_to(out) for p in out.rglob("*"))
    bad = tmp_path / "verify.json"
    report = json.loads(
        (demo_site.registry / ".claims" / "verify-main.json").read_text(encoding="utf-8")
    )
    # The report's frame, not one entry: no reader can say which part to trust.
    report["evidence"] = "excellent"
    bad.write_text(json.dumps(report), encoding="utf-8")
    capsys.readouterr()
    code = main(
        [
            "site",
            "--registry",
            str(demo_site.registry),
            "--out",
            str(out),
            "--verify-report",
            str(bad),
        ]
    )
    assert code == 2
    error = capsys.readouterr().err
    assert "verify report" in error and "Traceback" not in error
    assert sorted(p.relative_to(out) for p in out.rglob("*")) == before
    assert [p.name for p in tmp_path.iterdir() if p.name.startswith(".site")] == []


def test_a_registry_with_no_market_or_attempt_yet_gets_its_site(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As this repository is today: the shared rules, no contract, no attempt, no git."""
    registry = tmp_path / "registry"
    (registry / "shared-rules").mkdir(parents=True)
    (registry / "shared-rules" / "common-v1.yaml").write_bytes(RULES)
    out = tmp_path / "site"
    assert main(["site", "--registry", str(registry), "--out", str(out)]) == 0, capsys.readouterr()
    index = json.loads((out / "markets.json").read_text(encoding="utf-8"))
    assert index["markets"] == [] and index["other_attempts"] == []
    assert validate("site-markets", index, "markets.json") == []
    assert "No market contracts are filed yet." in _text(_parse(out / "index.html"))
    _parse(out / "rules" / "common-v1" / "index.html")


def test_challenge_runs_get_pages_and_the_weirdml_run_its_curves(demo_site: DemoSite) -> None:
    index = json.loads((demo_site.site / "markets.json").read_text(encoding="utf-8"))
    assert [(c["run"], c["scorer"], c["evidence"]) for c in index["challenge_runs"]] == [
        ("run-1", "reference-match-v1", "valid"),
        ("run-2", "reference-match-v1", "invalid"),
        ("run-3", "weirdml-v3", "valid"),
    ]
    run = demo_site.site / "challenges" / "run-3"
    tree = _parse(run / "index.html")
    described = _described(tree)
    assert described["Scorer"] == "weirdml-v3 (results recomputed by the bot's built-in weirdml-v3)"
    page = _text(tree)
    assert "sabotage-000" in page and "0.6127" in page  # its area, 0.612675, from the report
    # The curves: the run's page and its attempt's page, each task's best-so-far line.
    attempt = demo_site.site / "attempts" / "market-11" / "weird-lab" / "monitor-weirdml"
    for folder in (run, attempt):
        svg = (folder / "curves.svg").read_text(encoding="utf-8")
        assert "sabotage-000: best 0.8169" in svg  # final_best in the report: 0.8169
        assert b'<img src="curves.svg"' in (folder / "index.html").read_bytes()
    # A run whose operator's scorer is not built in has a page and no curves.
    assert not (demo_site.site / "challenges" / "run-1" / "curves.svg").exists()
    leaky = _parse(demo_site.site / "challenges" / "run-2" / "index.html")
    assert _described(leaky)["Evidence"] == "invalid"
    report = json.loads(
        (demo_site.registry / ".claims" / "verify-runs.json").read_text(encoding="utf-8")
    )
    [stated] = [r for r in report["challenge_runs"] if r["run"] == "run-2"]
    assert stated["reasons"]
    for reason in stated["reasons"]:
        assert reason["code"] in _text(leaky)


def test_site_without_report_files_checks_each_attempts_records_once(
    demo_site: DemoSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """Without report files `claims site` verifies main, then resolves; resolve reads back the
    checks verify made (`MemoryRecordsCache`, by evidence digest, contract and rules) rather
    than checking the same cases and trials again, and the site is byte for byte the one
    built with every check made afresh."""
    arguments = ["site", "--registry", str(demo_site.registry), "--as-of", "2027-11-01"]
    with mock.patch("bot.app.attempt_verify.RecordsChecker", wraps=RecordsChecker) as checking:
        assert main([*arguments, "--out", str(tmp_path / "kept")]) == 0
    with (
        mock.patch("bot.app.attempt_verify.RecordsChecker", wraps=RecordsChecker) as afresh,
        mock.patch("bot.app.cache.MemoryRecordsCache.lookup", return_value=(None, [])),
    ):
        assert main([*arguments, "--out", str(tmp_path / "afresh")]) == 0
    capsys.readouterr()
    assert checking.call_count < afresh.call_count
    built = {p.relative_to(tmp_path / "kept"): p.read_bytes() for p in _files(tmp_path / "kept")}
    again = {
        p.relative_to(tmp_path / "afresh"): p.read_bytes() for p in _files(tmp_path / "afresh")
    }
    assert built == again


def _files(folder: Path) -> list[Path]:
    return sorted(path for path in folder.rglob("*") if path.is_file())

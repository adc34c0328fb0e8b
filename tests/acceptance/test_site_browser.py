"""The demo registry's website in a real headless browser: Debian's chromium, driven through
/usr/bin/chromedriver by selenium, over a local HTTP server the test starts.

Every internal link is followed (no 404 inside the site), every page loads without a console
error and shows its images, the shared rules page holds every machine-readable line of the
seed, a market page its outcome and each attempt's reasons, and a screenshot is written to
the test's output folder. Without chromium the test skips, unless CLAIMS_REQUIRE_BROWSER is
set (as `.ci/run` sets it): then it fails.
"""

from __future__ import annotations

import contextlib
import functools
import json
import os
import re
import shutil
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Iterator
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import urldefrag

import pytest

from tests.support import DemoSite, open_market_site, seed_machine_readable

# Debian's chromium and its driver (`.ci/run` installs them); another build by these variables.
CHROMIUM = os.environ.get("CLAIMS_CHROMIUM") or "/usr/bin/chromium"
CHROMEDRIVER = os.environ.get("CLAIMS_CHROMEDRIVER") or "/usr/bin/chromedriver"
# Chromium must not reach the network: no QUIC, no background fetches, no component or sync
# updates, and a new empty profile (an existing one may ask for more).
FLAGS = (
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--disable-dev-shm-usage",
    "--window-size=1200,1600",
)


def _need_browser() -> None:
    missing = [p for p in (CHROMIUM, CHROMEDRIVER) if not shutil.which(p)]
    try:
        import selenium  # noqa: F401
    except ImportError:
        missing.append("the selenium package (pip install -e '.[test]')")
    if missing:
        message = f"no headless browser: missing {', '.join(missing)}"
        if os.environ.get("CLAIMS_REQUIRE_BROWSER"):
            pytest.fail(f"{message} (CLAIMS_REQUIRE_BROWSER is set; .ci/run installs chromium)")
        pytest.skip(
            f"{message}; apt-get install chromium chromium-driver, or set"
            " CLAIMS_REQUIRE_BROWSER=1 to make this a failure"
        )


class _Handler(SimpleHTTPRequestHandler):
    statuses: list[tuple[str, int]]

    def log_message(self, format: str, *args: Any) -> None:
        pass

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        self.statuses.append((self.path, int(code)))


@pytest.fixture
def served(demo_site: DemoSite) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    """The demo site on 127.0.0.1 (a free port), and every (path, status) it answered."""
    with _serve(demo_site.site) as answer:
        yield answer


@contextlib.contextmanager
def _serve(folder: Path) -> Iterator[tuple[str, list[tuple[str, int]]]]:
    statuses: list[tuple[str, int]] = []
    handler = functools.partial(
        type("Handler", (_Handler,), {"statuses": statuses}), directory=str(folder)
    )
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}/", statuses
    finally:
        server.shutdown()
        server.server_close()
        thread.join(10)


@pytest.fixture
def browser(tmp_path: Path) -> Iterator[Any]:
    _need_browser()
    from selenium import webdriver
    from selenium.webdriver.chrome.service import Service

    options = webdriver.ChromeOptions()
    options.binary_location = CHROMIUM
    for flag in FLAGS:
        options.add_argument(flag)
    profile = tmp_path / "profile"
    profile.mkdir()
    options.add_argument(f"--user-data-dir={profile}")
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    # An explicit driver path: Selenium Manager (which would download one) never runs.
    driver = webdriver.Chrome(options=options, service=Service(executable_path=CHROMEDRIVER))
    driver.set_page_load_timeout(30)
    try:
        yield driver
    finally:
        driver.quit()


_LINKS = "return Array.from(document.querySelectorAll('a[href]'), a => a.href);"
_BROKEN_IMAGES = (
    "return Array.from(document.images).filter(i => !i.complete || i.naturalWidth === 0)"
    ".map(i => i.src);"
)


def _fetch(url: str) -> int:
    try:
        with urllib.request.urlopen(url, timeout=10) as answer:  # a local server only
            return int(answer.status)
    except urllib.error.HTTPError as error:
        return error.code


def _crawl(driver: Any, base: str) -> dict[str, str]:
    """Follow every link inside the site from its index; the body text of each page."""
    pages: dict[str, str] = {}
    seen: set[str] = set()
    pending = [base + "index.html"]
    while pending:
        url = pending.pop()
        if url in seen:
            continue
        seen.add(url)
        status = _fetch(url)
        assert status == 200, f"{url} answered {status}"
        if not url.endswith(".html"):
            continue
        driver.get(url)
        errors = [e for e in driver.get_log("browser") if e["level"] in ("SEVERE", "WARNING")]
        assert errors == [], (url, errors)
        assert driver.execute_script(_BROKEN_IMAGES) == [], url
        pages[url.removeprefix(base)] = driver.find_element("tag name", "body").text
        for link in driver.execute_script(_LINKS):
            target, _ = urldefrag(link)
            if target.startswith(base):
                pending.append(target if not target.endswith("/") else target + "index.html")
    return pages


def test_the_demo_site_in_a_headless_browser(
    browser: Any, served: tuple[str, list[tuple[str, int]]], demo_site: DemoSite, tmp_path: Path
) -> None:
    base, statuses = served
    pages = _crawl(browser, base)

    # Every page of the site was reached by links, and nothing inside it answered 404.
    built = {p.relative_to(demo_site.site).as_posix() for p in demo_site.site.rglob("*.html")}
    assert set(pages) == built
    assert [s for s in statuses if s[1] >= 400] == []
    assert {s[0] for s in statuses} >= {"/style.css", "/markets/market-03/timeline.svg"}

    # The shared rules page: every machine-readable line of the seed, as the seed has it.
    rules = pages["rules/common-v1/index.html"]
    for line in seed_machine_readable():
        assert line in rules, line
        for number in re.findall(r"[0-9]+(?:\.[0-9]+)?", line):
            assert number in rules

    # A market page: its outcome, and each attempt with its reasons.
    market = pages["markets/market-03/index.html"]
    assert re.search(r"Outcome\s+YES", market)
    data = json.loads((demo_site.site / "market-03.json").read_text(encoding="utf-8"))
    for row in data["attempts"]:
        assert row["attempt"] in market
        for reason in row["reasons"]:
            assert reason["code"] in market
            if reason["message"]:
                assert " ".join(reason["message"].split()) in " ".join(market.split())

    # What a reader sees, kept in the test's output folder.
    browser.get(base + "markets/market-03/index.html")
    shot = tmp_path / "market-03.png"
    assert browser.save_screenshot(str(shot))
    assert shot.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n" and shot.stat().st_size > 10_000


# Each `<time>` and `.date` that the browser laid out on more than one line.
_WRAPPED_DATES = (
    "return Array.from(document.querySelectorAll('time, .date'))"
    ".filter(e => e.getClientRects().length > 1).map(e => e.textContent);"
)
_DATES = "return document.querySelectorAll('time, .date').length;"
# Each table wider than the text it stands in (`main`), by its caption.
_WIDE_TABLES = (
    "const main = document.querySelector('main').getBoundingClientRect().width;"
    "return Array.from(document.querySelectorAll('table'))"
    ".filter(t => t.getBoundingClientRect().width > main + 0.5)"
    ".map(t => t.caption ? t.caption.textContent : '?');"
)
_UNWRAP = (
    "const style = document.createElement('style');"
    "style.textContent = 'time, .date { white-space: normal !important; }"
    " table.bars td, table.bars th { overflow-wrap: normal !important; }';"
    "document.head.appendChild(style);"
)
_ANCHORED = "return document.getElementById(decodeURIComponent(location.hash.slice(1))) !== null;"
_CODE_LINKS = (
    "return Array.from(document.querySelectorAll('a[href*=\"reason-codes/index.html#\"]'),"
    " a => a.href);"
)


def test_what_a_researcher_sees_in_a_browser(
    browser: Any, demo_site: DemoSite, tmp_path: Path
) -> None:
    """Issue 23 on an open market's site, as pages.yml builds it: every reason code links to
    its section of the shipped reason codes page, no date breaks over two lines at a phone's
    width, and no table is wider than the text at a desktop's (each measured, and each
    measurement shown to see the fault when the stylesheet's rule is taken away)."""
    site = open_market_site(demo_site.registry, tmp_path / "open")
    with _serve(site) as (base, statuses):
        pages = _crawl(browser, base)
        assert "reason-codes/index.html" in pages
        assert [s for s in statuses if s[1] >= 400] == []

        # Reason codes: each link's anchor is an element of the reason codes page.
        links: set[str] = set()
        for page in ("markets/market-03/index.html", "index.html"):
            browser.get(base + page)
            links.update(browser.execute_script(_CODE_LINKS))
        assert len(links) >= 5
        for link in sorted(links):
            browser.get(link)
            assert browser.execute_script(_ANCHORED), link

        attempt = base + "attempts/market-06/toy-lab/gridworld-monitor/index.html"
        pages_with_dates = [base + "index.html", base + "markets/market-03/index.html", attempt]
        # A phone's width: every date stays on one line.
        browser.set_window_size(380, 900)
        for url in pages_with_dates:
            browser.get(url)
            assert browser.execute_script(_DATES) > 0, url
            assert browser.execute_script(_WRAPPED_DATES) == [], url
        browser.get(base + "index.html")
        browser.execute_script(_UNWRAP)
        assert browser.execute_script(_WRAPPED_DATES) != []  # the measure sees a wrapped date

        # A desktop's width: no table (the bars' included) is wider than the text.
        browser.set_window_size(1200, 1600)
        for url in [*pages_with_dates, base + "attempts/market-03/alice-lab/monitor-v1/index.html"]:
            browser.get(url)
            assert browser.execute_script(_WIDE_TABLES) == [], url
        browser.get(attempt)
        browser.execute_script(_UNWRAP)
        browser.execute_script(
            "document.querySelectorAll('table.bars tr').forEach(r =>"
            " r.appendChild(document.createElement('td')).textContent = 'x'.repeat(80));"
        )
        assert browser.execute_script(_WIDE_TABLES) != []  # the measure sees a wide table
        shot = tmp_path / "attempt.png"
        browser.get(attempt)
        assert browser.save_screenshot(str(shot))


@pytest.mark.parametrize(
    ("body", "problem"),
    [
        ('<p><a href="missing.html">a page that is not there</a></p>', "404"),
        ('<p><img src="missing.svg" alt="a chart that is not there"></p>', "SEVERE"),
    ],
)
def test_the_crawl_would_see_a_broken_link_or_image(
    browser: Any, tmp_path: Path, body: str, problem: str
) -> None:
    site = tmp_path / "site"
    site.mkdir()
    (site / "index.html").write_text(
        f'<!DOCTYPE html><html lang="en"><head><title>t</title><link rel="icon" href="data:,">'
        f"</head><body>{body}</body></html>",
        encoding="utf-8",
    )
    with _serve(site) as (base, _), pytest.raises(AssertionError, match=problem):
        _crawl(browser, base)


@pytest.mark.parametrize("required", ["1", ""])
def test_without_chromium_the_browser_test_fails_in_ci_and_skips_elsewhere(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, required: str
) -> None:
    monkeypatch.setattr(sys.modules[__name__], "CHROMIUM", str(tmp_path / "no-chromium"))
    monkeypatch.setenv("CLAIMS_REQUIRE_BROWSER", required)
    outcome = pytest.fail.Exception if required else pytest.skip.Exception
    with pytest.raises(outcome, match=r"no headless browser: missing .*no-chromium"):
        _need_browser()

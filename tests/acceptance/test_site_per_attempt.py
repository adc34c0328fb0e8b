"""Every job answers per attempt: `claims site` and `claims github publish` (issue 21, item 5).

One attempt's files or one entry of a report never stop the public site or the pull request's
verdict for everyone: a file and a folder whose names clash once the site adds `.txt` to its
copies, names no file system or page can hold as they are, and a report entry its reader
refuses each end on that attempt's own page (an error panel, or a copy at a name of its own),
and on a pull request as that attempt's failure; the build exits 0.
"""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import html5lib
import pytest

from bot.faces.cli import main
from bot.rules.evidence.schema import validate
from tests.support import DemoSite, RegistryFactory, site_arguments

FOLDER = "attempts/market-03/alice-lab/monitor-v1"


def _site(root: Path, out: Path, *reports: str) -> int:
    return main(["site", "--registry", str(root), "--out", str(out), *reports])


def _copies(page: Path, site: Path) -> dict[str, bytes]:
    """The attempt page's files table: each file as shown, and the bytes its link serves."""
    tree = html5lib.parse(page.read_bytes(), namespaceHTMLElements=False)
    found = {}
    for row in tree.iter("tr"):
        link = row.find("th/a")
        if link is not None and "files/" in (link.get("href") or ""):
            target = (page.parent / link.get("href")).resolve()
            assert target.is_relative_to(site.resolve()), target
            found[link.text] = target.read_bytes()
    return found


# Each: the files the attempt folder gains (names as bytes), as the working tree holds them.
CLASHES = {
    "file-and-folder-named-as-its-copy": {b"NOTES": b"a", b"NOTES.txt/more": b"b"},
    "binary-file-and-folder": {b"blob": b"\xff\x00", b"blob.bin/x": b"c"},
    "folder-named-as-the-escape": {b"data.txt.dir/x": b"d", b"data.txt/x": b"e"},
    "backslash": {b"a\\b": b"f"},
    "not-utf-8": {b"\xff\xfename": b"g"},
    "tilde-and-dots": {b"~7e": b"h", b"~": b"i", b".hidden": b"j"},
    "long-name": {b"n" * 255: b"k", b"n" * 254: b"l"},
    "deep": {b"/".join([b"d" * 100] * 30) + b"/x": b"m"},
    "empty-file": {b"empty": b""},
}


@pytest.mark.parametrize("name", sorted(CLASHES))
def test_every_file_of_an_attempt_gets_its_own_copy_and_the_site_builds(
    make_registry: RegistryFactory, tmp_path: Path, capsys: pytest.CaptureFixture[str], name: str
) -> None:
    """The hole: `NOTES` beside a folder `NOTES.txt/` (both valid) made the site copy
    `NOTES` to files/.../NOTES.txt, the folder's own name, and every Pages build exited 2.
    Copies are now at one-to-one paths, whatever the names."""
    built = make_registry()
    for relative, data in CLASHES[name].items():
        path = os.path.join(os.fsencode(built.attempt), relative)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as stream:
            stream.write(data)
    out = tmp_path / "site"
    code = _site(built.root, out, "--as-of", "2027-04-15")
    captured = capsys.readouterr()
    assert code == 0, captured.err
    assert "Traceback" not in captured.err
    copies = _copies(out / FOLDER / "index.html", out)
    for relative, data in CLASHES[name].items():
        shown = "".join(
            chr(b) if 0x20 <= b < 0x7F else f"\\x{b:02x}" for b in f"{FOLDER}/".encode() + relative
        )
        assert copies[shown] == data, (shown, sorted(copies))
    # and the honest files are copied as before
    assert copies[f"{FOLDER}/trials.jsonl"] == (built.attempt / "trials.jsonl").read_bytes()


def _bad_entry(report: dict[str, Any], reports: Path) -> str:
    """Give an attempt of a verify report a value its reader refuses (an integer beyond
    2**53, which no later stage can compare); return the attempt's path. One the demo's rerun
    report does not replace."""
    rerun = json.loads((reports / "verify-rerun.json").read_text(encoding="utf-8"))
    replaced = {a["attempt"] for a in rerun["attempts"]}
    attempt = next(a for a in report["attempts"] if a["attempt"] not in replaced)
    attempt["counts"]["files"] = 2**60
    return str(attempt["attempt"])


def test_a_report_entry_its_reader_refuses_gets_an_error_panel_not_a_failed_build(
    demo_site: DemoSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    reports = demo_site.registry / ".claims"
    verify = json.loads((reports / "verify-main.json").read_text(encoding="utf-8"))
    bad = _bad_entry(verify, reports)
    resolve = json.loads((reports / "resolve-2027-11-01.json").read_text(encoding="utf-8"))
    market = resolve["markets"][0]
    market["attempts"].append(
        {**market["attempts"][0], "counts": not market["attempts"][0]["counts"]}
    )
    (tmp_path / "verify.json").write_text(json.dumps(verify), encoding="utf-8")
    (tmp_path / "resolve.json").write_text(json.dumps(resolve), encoding="utf-8")
    arguments = site_arguments(demo_site.registry, tmp_path / "site")
    arguments[arguments.index(str(reports / "verify-main.json"))] = str(tmp_path / "verify.json")
    arguments[-1] = str(tmp_path / "resolve.json")
    code = main(arguments)
    captured = capsys.readouterr()
    assert code == 0, captured.err
    site = tmp_path / "site"
    page = (site / bad / "index.html").read_text(encoding="utf-8")
    assert "This attempt's verdict cannot be shown" in page
    assert "integer beyond ±2**53-1 (I-JSON)" in page
    # Another attempt of the same report is shown as usual.
    other = next(a["attempt"] for a in verify["attempts"] if a["attempt"] != bad)
    assert "cannot be shown" not in (site / other / "index.html").read_text("utf-8")
    index = json.loads((site / "markets.json").read_text(encoding="utf-8"))
    assert validate("site-markets", index, "markets.json") == []
    refused = [p for p in index["registry_problems"] if p["code"] == "report-entry-refused"]
    assert {p["file"] for p in refused} >= {bad}
    number = market["market"]
    data = json.loads((site / f"market-{number:02d}.json").read_text(encoding="utf-8"))
    assert validate("site-market", data, "market.json") == []
    assert any("could not be read" in warning for warning in data["warnings"])


def test_publish_posts_the_verdict_with_a_refused_entry_failing_its_attempt(
    demo_site: DemoSite, tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch
) -> None:
    """`claims github publish` once exited 2 on such a report: no verdict was posted at all.
    Now the refused attempt fails its own check (fail closed) and the rest is posted."""
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    summary = tmp_path / "summary.md"
    monkeypatch.setenv("GITHUB_STEP_SUMMARY", str(summary))
    reports = demo_site.registry / ".claims"
    verify = json.loads((reports / "verify-main.json").read_text(encoding="utf-8"))
    bad = _bad_entry(verify, reports)
    other = next(a["attempt"] for a in verify["attempts"] if a["attempt"] != bad)
    path = tmp_path / "verify.json"
    path.write_text(json.dumps(verify), encoding="utf-8")
    code = main(["github", "publish", str(path), "--pr", "7", "--head", "a" * 40])
    out, err = capsys.readouterr()
    assert code == 0, err
    assert f"check run 'registry: #7 {bad}': failure" in out
    assert f"check run 'registry: #7 {other}'" in out
    assert f"check run 'registry: #7 {bad}': failure, 'evidence invalid: 1 problem(s)'" in out
    written = summary.read_text(encoding="utf-8")
    assert "`report-entry-refused`" in written and "integer beyond ±2\\*\\*53" in written
    assert "check run 'registry: pull request': failure" in out

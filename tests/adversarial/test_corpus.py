"""The adversarial corpus (tests/adversarial/generate.py): every trick is refused, and says why.

Each entry is built as a real git registry in a temporary folder and verified by the `claims`
CLI (in-process, `bot.faces.cli.main`), which must exit with the entry's code (1: invalid evidence;
0: valid evidence that does not qualify, with the entry's status), report exactly the entry's
reason codes (notices aside), each of an attempt's naming a file, one of them with the entry's
message fragment, and never trace back.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import bot.edges.sandbox
from bot.faces.cli import main
from bot.faces.site.model import attempt_page_path
from tests.adversarial.generate import CORPUS, DOCS, Context, Entry, build, render_docs
from tests.adversarial.harness import streamed_and_kept
from tests.support import AS_OF, assert_report_reads_back, serve_corpus


def _server(request: pytest.FixtureRequest) -> str:
    request.getfixturevalue("local_fetches")
    return serve_corpus(request.getfixturevalue("httpserver"))


def _reasons(report: dict[str, Any]) -> list[dict[str, Any]]:
    found = list(report.get("pr_problems", []))
    for attempt in report["attempts"]:
        found += attempt["reasons"]
    return [reason for reason in found if reason["severity"] != "notice"]


@pytest.mark.parametrize("entry", CORPUS, ids=[entry.name for entry in CORPUS])
def test_the_trick_is_refused(
    entry: Entry, tmp_path: Path, capsys: pytest.CaptureFixture[str], request: pytest.FixtureRequest
) -> None:
    if entry.needs == "sandbox" and bot.edges.sandbox.isolation() is not None:
        pytest.skip(f"no network isolation here: {bot.edges.sandbox.isolation()}")
    context = Context(tmp_path / entry.name)
    if entry.needs == "server":
        context.server = _server(request)
    case = build(entry, context)
    report_file = tmp_path / "report.json"
    as_of = [] if "--as-of" in case.args else ["--as-of", AS_OF]
    code = main([*case.args, "--json", str(report_file), *as_of])
    out, err = capsys.readouterr()
    assert "Traceback" not in out and "Traceback" not in err, err
    assert code == entry.exit, out + err
    report = json.loads(report_file.read_text(encoding="utf-8"))
    # Every report verify writes, whatever it found, is one its readers (the site, the
    # publisher) accept (issue 21, item 6).
    assert_report_reads_back("verify-report", report)
    reasons = _reasons(report)
    assert {reason["code"] for reason in reasons} == entry.codes, out
    # Every reason of an attempt names its file (a pull request's own problems, such as
    # several-attempts, may concern no single file).
    for attempt in report["attempts"]:
        assert all(reason["file"] for reason in attempt["reasons"]), attempt["reasons"]
    messages = [reason["message"] for reason in reasons if reason["code"] in entry.codes]
    # An entry with no codes is a trick that is harmless here and was harmful elsewhere (the
    # site): its own test says where.
    assert any(entry.fragment in message for message in messages) or not entry.codes, messages
    if entry.status is not None:
        assert [attempt["status"] for attempt in report["attempts"]] == [entry.status]


def test_the_corpus_is_large_and_named_once() -> None:
    names = [entry.name for entry in CORPUS]
    assert len(names) >= 40
    assert len(set(names)) == len(names)
    assert all(entry.exit == 1 or entry.status for entry in CORPUS)


def test_the_docs_list_every_entry() -> None:
    """docs/adversarial.md is generated from the corpus: `python -m tests.adversarial.generate
    --docs` rewrites it."""
    assert DOCS.read_text(encoding="utf-8") == render_docs()


def _report_of(args: list[str], report_file: Path, capsys: pytest.CaptureFixture[str]) -> Any:
    report_file.unlink(missing_ok=True)
    code = main([*args, "--json", str(report_file)])
    out, err = capsys.readouterr()
    assert "Traceback" not in out + err, err
    return code, out, json.loads(report_file.read_text(encoding="utf-8"))


@pytest.mark.parametrize(
    "entry",
    [entry for entry in CORPUS if entry.needs is None],
    ids=[entry.name for entry in CORPUS if entry.needs is None],
)
def test_records_checked_as_read_judge_as_records_kept(
    entry: Entry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """verify checks freeze-cases.jsonl and trials.jsonl as it reads them and keeps no record
    (`RecordsChecker`); `claims explain` and challenge attempts keep every record and check
    them after. Both must give the same report, word for word, on every trick."""
    case = build(entry, Context(tmp_path / entry.name))
    args = [*case.args, *([] if "--as-of" in case.args else ["--as-of", AS_OF])]
    streamed, kept = streamed_and_kept(lambda: _report_of(args, tmp_path / "r.json", capsys))
    assert kept == streamed


SITE_ENTRIES = [
    entry
    for entry in CORPUS
    if entry.needs is None and entry.name.startswith(("site-", "name-clash", "lookalike"))
]


@pytest.mark.parametrize("entry", SITE_ENTRIES, ids=[entry.name for entry in SITE_ENTRIES])
def test_the_site_builds_from_the_tricks_report(
    entry: Entry, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    """`claims site` shows what verify said of the trick, on the attempt's own page, and
    builds (issue 21, item 5: a file `NOTES` beside a folder `NOTES.txt/` was valid, and then
    every Pages build exited 2)."""
    case = build(entry, Context(tmp_path / entry.name))
    args = [*case.args, *([] if "--as-of" in case.args else ["--as-of", AS_OF])]
    _, _, report = _report_of(args, tmp_path / "report.json", capsys)
    out = tmp_path / "site"
    code = main(
        [
            "site",
            "--registry",
            str(case.built.root),
            "--out",
            str(out),
            "--verify-report",
            str(tmp_path / "report.json"),
        ]
    )
    captured = capsys.readouterr()
    assert code == 0 and "Traceback" not in captured.err, captured.err
    for attempt in report["attempts"]:
        # a path not of the attempt folders' shape (a look-alike letter) gets no page
        page = attempt_page_path(attempt["attempt"])
        assert page is None or (out / page / "index.html").is_file()
    if entry.name == "site-name-clash-file-and-folder":
        folder = out / "files" / report["attempts"][0]["attempt"]
        assert (folder / "NOTES.txt").read_bytes() == b"what we did\n"
        assert (folder / "NOTES.txt.dir" / "more.txt").read_bytes() == b"and more\n"

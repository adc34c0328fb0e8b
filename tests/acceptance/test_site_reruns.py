"""The public site shows a wrapped attempt's recorded adapter rerun (issue 22, part 3).

`claims site` (what pages.yml runs) reruns no adapter. A wrapped attempt counts there only with
a rerun result the scheduled close job recorded on the registry's own branch,
`resolutions/reruns/<key>.json` (a maintainers' path), read as verify's token job reads its
run's results: recorded only, for the evidence, adapter files and released data the key names.
A record anywhere a filer or the builder's machine can put one is never read.
"""

from __future__ import annotations

import json
import re
import shutil
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import git
import html5lib
import pytest

from bot.app.options import Ports
from bot.app.rerun import AdapterRerun
from bot.app.resolutions import RERUN_RESULTS, keep_rerun_results
from bot.edges.archive.local import LocalArchive
from bot.faces.cli import main
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.jobs.close_windows import Job, close_windows
from bot.faces.jobs.issues import FileIssues
from bot.rules.review import check_changes
from bot.vocab.commits import Change
from bot.vocab.findings import Code
from tests.support import DemoSite, RegistryFactory, fake_sandbox, rerun_job_argv, seed_released

WRAP = "attempts/market-03/wrap-lab/paper-replication"
EDITED = "attempts/market-03/sly-lab/edited-wrap"


def _registry(demo_site: DemoSite, tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    """A copy of the demo registry and the rerun results its close job committed (by name)."""
    root = tmp_path / "registry"
    shutil.copytree(demo_site.registry, root, symlinks=True)
    kept = root / RERUN_RESULTS
    if not kept.is_dir():
        pytest.skip("the demo reran no adapter here (no sandbox): nothing was recorded")
    return root, {p.name: p.read_bytes() for p in sorted(kept.iterdir())}


def _build(root: Path, out: Path, capsys: pytest.CaptureFixture[str]) -> dict[str, Any]:
    code = main(["site", "--registry", str(root), "--out", str(out), "--as-of", "2027-11-01"])
    assert code == 0, capsys.readouterr()
    capsys.readouterr()
    market: dict[str, Any] = json.loads((out / "market-03.json").read_text(encoding="utf-8"))
    return {row["attempt"]: row for row in market["attempts"]}


def _codes(row: dict[str, Any]) -> list[str]:
    return [reason["code"] for reason in row["reasons"]]


def _page_text(out: Path, attempt: str) -> str:
    tree = html5lib.parse((out / attempt / "index.html").read_bytes(), namespaceHTMLElements=False)
    return re.sub(r"\s+", " ", "".join(tree.itertext()))


def _record_for(records: dict[str, bytes], folder: str) -> tuple[str, bytes]:
    [(name, raw)] = [
        (name, raw) for name, raw in records.items() if json.loads(raw)["parts"]["folder"] == folder
    ]
    return name, raw


def test_the_close_job_commits_the_rerun_results_it_counted(demo_site: DemoSite) -> None:
    root = demo_site.registry
    if not (root / RERUN_RESULTS).is_dir():
        pytest.skip("the demo reran no adapter here (no sandbox): nothing was recorded")
    repo = git.Repo(root)
    tracked = {
        item.path
        for item in repo.head.commit.tree.traverse()
        if str(item.path).startswith(f"{RERUN_RESULTS}/")
    }
    assert tracked == {f"{RERUN_RESULTS}/{p.name}" for p in (root / RERUN_RESULTS).iterdir()}
    folders = {json.loads((root / path).read_bytes())["parts"]["folder"] for path in tracked}
    assert folders == {WRAP, EDITED}
    [commit] = [c for c in repo.iter_commits() if "adapter rerun result" in str(c.message)]
    assert commit.author.email == commit.committer.email  # the job's own identity


def test_a_wrapped_attempt_shows_its_recorded_rerun_not_adapter_not_rerun(
    demo_site: DemoSite, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    root, _ = _registry(demo_site, tmp_path)
    rows = _build(root, tmp_path / "site", capsys)
    assert rows[WRAP]["status"] == "qualifying"
    assert _codes(rows[WRAP]) == []  # reproduced: nothing to say
    assert _codes(rows[EDITED]) == ["adapter-mismatch"]  # the recorded result, as recorded
    assert "adapter-not-rerun" not in _page_text(tmp_path / "site", WRAP)
    index = json.loads((tmp_path / "site" / "markets.json").read_text(encoding="utf-8"))
    assert f"adapter rerun results recorded in {RERUN_RESULTS}/" in index["sources"]
    # Without the recorded results the same build cannot count the wrapped attempts.
    shutil.rmtree(root / RERUN_RESULTS)
    rows = _build(root, tmp_path / "bare", capsys)
    assert "adapter-not-rerun" in _codes(rows[WRAP])
    assert "adapter-not-rerun" in _page_text(tmp_path / "bare", WRAP)


def test_a_record_outside_the_registrys_own_folder_is_never_read(
    demo_site: DemoSite,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """The filer's folder, the builder's rerun cache (`.claims/reruns`, CLAIMS_RERUN_CACHE):
    none of them is the trusted place. Each forged record here says "reproduced"."""
    root, records = _registry(demo_site, tmp_path)
    shutil.rmtree(root / RERUN_RESULTS)
    name, raw = _record_for(records, EDITED)
    forged = json.dumps({**json.loads(raw), "findings": []}).encode()
    for folder in (
        root / EDITED,
        root / EDITED / "resolutions" / "reruns",
        root / ".claims" / "reruns",
        tmp_path / "cache",
    ):
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(forged)
    monkeypatch.setenv("CLAIMS_RERUN_CACHE", str(tmp_path / "cache"))
    rows = _build(root, tmp_path / "site", capsys)
    assert "adapter-not-rerun" in _codes(rows[EDITED])
    # A record under another name than its key's, in the trusted folder, counts for nothing.
    wrap_name, wrap_raw = _record_for(records, WRAP)
    (root / RERUN_RESULTS).mkdir(parents=True)
    (root / RERUN_RESULTS / name).write_bytes(wrap_raw)
    rows = _build(root, tmp_path / "renamed", capsys)
    assert "adapter-not-rerun" in _codes(rows[EDITED])
    assert "adapter-not-rerun" in _codes(rows[WRAP])
    # And a filer's pull request may not write the trusted folder.
    change = Change(f"{RERUN_RESULTS}/{wrap_name}", "A", "100644")
    [finding] = check_changes([change], [WRAP])
    assert finding.code is Code.PROTECTED_PATH


def test_keep_rerun_results_copies_only_well_formed_results(tmp_path: Path) -> None:
    source, root = tmp_path / "run", tmp_path / "registry"
    source.mkdir()
    (root / WRAP).mkdir(parents=True)
    key = "a" * 64
    good = json.dumps({"key": key, "parts": {"folder": WRAP}, "findings": []}).encode()
    elsewhere = {"key": "f" * 64, "parts": {"folder": EDITED}, "findings": []}
    (source / f"{'f' * 64}.json").write_text(json.dumps(elsewhere))  # not on the branch
    (source / f"{key}.json").write_bytes(good)
    tried = {
        "key": "b" * 64,
        "parts": {"folder": WRAP},
        "findings": [
            {
                "code": "released-data-unavailable",
                "message": "the server did not answer",
                "file": "adapter/adapter.yaml",
                "line": None,
                "severity": "error",
            }
        ],
    }
    (source / f"{'b' * 64}.json").write_text(json.dumps(tried))  # a try: no result yet
    (source / f"{'c' * 64}.json").write_bytes(good)  # another key's record
    (source / f"{'d' * 64}.json").write_text("{")  # not JSON
    (source / "notes.json").write_bytes(good)  # not a key's name
    (source / f"{'e' * 64}.json").symlink_to(source / f"{key}.json")  # a link
    assert keep_rerun_results(source, root) == [f"{RERUN_RESULTS}/{key}.json"]
    assert (root / RERUN_RESULTS / f"{key}.json").read_bytes() == good
    assert sorted(p.name for p in (root / RERUN_RESULTS).iterdir()) == [f"{key}.json"]
    assert keep_rerun_results(source, root) == []  # already kept: nothing to commit


def test_an_open_markets_wrapped_attempt_gets_its_recorded_rerun_from_the_daily_job(
    make_registry: RegistryFactory,
    run_claims: Any,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
) -> None:
    """Merged while its market is open: the daily plan lists it (nothing kept for its evidence
    yet), a rerun job records its result, and the close, with no market to resolve, commits
    that result to resolutions/reruns/. The site then shows it; the next plan leaves it out."""
    fake_sandbox(monkeypatch)
    built = make_registry(AttemptSpec(kind="wrapped"))
    folder = built.attempt.relative_to(built.root).as_posix()
    tip = built.repo.head.commit.hexsha
    as_of = ["--as-of", "2027-04-15"]  # market 3 is open until 2027-06-30
    planned = run_claims("close-windows", "--registry", built.root, "--plan-reruns", *as_of)
    assert planned.code == 0, planned.err
    matrix = json.loads(planned.out)
    assert matrix["batches"] == [[{"attempt": folder, "commit": tip}]]
    assert matrix["waiting"] == []
    seed_released(tmp_path / "released", built.files)
    results = tmp_path / "rerun-cache"
    argv = rerun_job_argv(built.root, tip, built.attempt, results, tmp_path / "released")
    assert run_claims(*argv).code == 0
    counted = AdapterRerun(cache=tmp_path / "unused", results=results, recorded_only=True)
    job = Job(
        root=built.root,
        archive=LocalArchive(built.root / ".claims" / "archive"),
        archive_kind="local",
        repository_url="https://github.com/acme/registry",
        issues=FileIssues(built.root / ".claims" / "issues"),
        as_of=date(2027, 4, 15),
        ports=Ports(rerun_adapter=counted),
        clock=lambda: datetime(2027, 4, 15, 3, 17, tzinfo=UTC),
    )
    closed = close_windows(job)
    assert not closed.failed, closed.render()
    assert "1 adapter rerun result(s) kept in resolutions/reruns/" in closed.render()
    subject = built.repo.head.commit.message
    assert "adapter rerun result" in str(subject)
    [kept] = (built.root / RERUN_RESULTS).iterdir()
    assert json.loads(kept.read_bytes())["parts"]["folder"] == folder
    assert not list((built.root / "resolutions").glob("*.yaml"))  # nothing resolved
    again = run_claims("close-windows", "--registry", built.root, "--plan-reruns", *as_of)
    assert json.loads(again.out)["batches"] == []
    out = tmp_path / "site"
    assert main(["site", "--registry", str(built.root), "--out", str(out), *as_of]) == 0
    capsys.readouterr()
    market = json.loads((out / "market-03.json").read_text(encoding="utf-8"))
    [row] = [row for row in market["attempts"] if row["attempt"] == folder]
    assert "adapter-not-rerun" not in _codes(row)
    assert row["status"] is not None

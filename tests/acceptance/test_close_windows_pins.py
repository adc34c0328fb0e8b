"""The scheduled close fetches every attempt's pins again and archives them (issue 22).

Split by trust as close-windows.yml runs it: the pin plan (`claims close-windows --plan-pins`),
the token-less pin jobs (`claims verify --head COMMIT --fetch-raw-logs --pin-results DIR
--keep-pins PLAN`), and the close job, which counts the records (`PinFetch(recorded_only=True)`,
what `--pin-results DIR` gives it) and puts the kept files into each market's archive with a
manifest. The raw log is served by a local HTTP server (allowed by `local_fetches`).

The registry's attempt is in market 3 (R = 2027-06-30, window closes 2027-08-29; its rerun and
pin deadline is 2027-09-05).
"""

from __future__ import annotations

import hashlib
import io
import json
import tarfile
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import yaml
from pytest_httpserver import HTTPServer

from bot.app.options import Ports
from bot.app.pins import PinFetch
from bot.app.rerun import AdapterRerun
from bot.edges.archive.local import LocalArchive
from bot.faces.demo.specimen import AttemptSpec
from bot.faces.jobs.close_windows import CloseReport, Job, close_windows
from bot.faces.jobs.issues import FileIssues
from bot.vocab.config import Limits
from tests.support import (
    Files,
    RegistryFactory,
    fake_sandbox,
    released_files,
    rerun_job_argv,
    seed_released,
)

TAG = "snapshot-2027-06-30"
CLOSED = date(2027, 9, 1)


def _raw_log_at(url: str) -> Any:
    def change(files: Files) -> None:
        text = files["attempt.yaml"].decode()
        old = text.split("raw_log:", 1)[1].split("url: ", 1)[1].split("\n", 1)[0]
        files["attempt.yaml"] = text.replace(old, url).encode()

    return change


def _pins_at(log_url: str, paper_url: str) -> Any:
    """A wrapped attempt's change: its raw log at `log_url`, its paper's freeze at
    `paper_url`."""

    def change(files: Files) -> None:
        _raw_log_at(log_url)(files)
        text = files["freeze.yaml"].decode()
        old = text.split("paper_freeze:", 1)[1].split("url: ", 1)[1].split("\n", 1)[0]
        files["freeze.yaml"] = text.replace(old, paper_url).encode()

    return change


def close(
    root: Path,
    pins: Path,
    as_of: date = CLOSED,
    limits: Limits | None = None,
    reruns: Path | None = None,
) -> CloseReport:
    """The close job: the pin jobs' records (and the rerun jobs' results) counted, nothing
    fetched or run."""
    counted = PinFetch(pins, recorded_only=True)
    rerun = None
    if reruns is not None:
        rerun = AdapterRerun(cache=reruns.parent / "unused", results=reruns, recorded_only=True)
    job = Job(
        root=root,
        archive=LocalArchive(root / ".claims" / "archive"),
        archive_kind="local",
        repository_url="https://github.com/acme/registry",
        issues=FileIssues(root / ".claims" / "issues"),
        as_of=as_of,
        ports=Ports(
            fetch_raw_log=counted.raw_log,
            fetch_paper_freeze=counted.paper_freeze,
            rerun_adapter=rerun,
        ),
        clock=lambda: datetime.combine(as_of, datetime.min.time(), UTC).replace(hour=3),
        limits=limits or Limits(),
    )
    return close_windows(job)


def pin_jobs(run_claims: Any, root: Path, pins: Path, keeps: bool = True) -> list[dict[str, str]]:
    """close-windows.yml's plan (--plan-pins), then each pin job's `claims verify`. `keeps`:
    every attempt's pins fit the caps, so the plan keeps each."""
    result = run_claims(
        "close-windows", "--registry", root, "--plan-pins", "--as-of", CLOSED.isoformat()
    )
    assert result.code == 0, result.err
    planned = json.loads(result.out)
    # Two pins, each within fetch_deadline, and the rest of the attempt's verify.
    assert planned["seconds_per_attempt"] == 1320
    entries: list[dict[str, str]] = [e for batch in planned["batches"] for e in batch]
    # Every attempt's pins fit the caps here: each is planned to be kept, at its declared size.
    attempts = {e["attempt"] for e in entries}
    assert {k["attempt"] for k in planned["keep"]} == (attempts if keeps else set())
    for kept in planned["keep"]:
        data = yaml.safe_load((root / kept["attempt"] / "attempt.yaml").read_text())
        if data["raw_log"]["sha256"] == kept["sha256"]:
            assert kept["bytes"] == data["raw_log"]["bytes"]
        else:  # a paper's freeze: its limit stands for its size
            assert kept["bytes"] == Limits().max_paper_freeze_bytes
    plan = pins.parent / "pin-plan.json"
    plan.write_text(result.out, encoding="utf-8")
    for entry in entries:
        result = run_claims(
            "verify", "--registry", root, "--base-ref", "main", "--head", entry["commit"],
            "--fetch-raw-logs", "--pin-results", pins, "--keep-pins", plan, "--quiet",
            root / entry["attempt"],
        )  # fmt: skip
        assert result.code in (0, 1), result.out
    return entries


def record(root: Path, market: int = 3) -> dict[str, Any] | None:
    file = root / f"resolutions/market-{market:02d}.yaml"
    return yaml.safe_load(file.read_text()) if file.exists() else None


def members(root: Path, market: int = 3) -> dict[str, bytes]:
    (tarball,) = (root / ".claims" / "archive" / "files").glob(f"*-market-{market:02d}.tar.gz")
    with tarfile.open(tarball, mode="r:gz") as tar:
        return {
            m.name: tar.extractfile(m).read()  # type: ignore[union-attr]
            for m in tar.getmembers()
            if m.isfile() and "/pins/" in m.name
        }


def test_market_3s_archive_holds_its_attempts_full_raw_logs_with_their_sha256(
    make_registry: RegistryFactory,
    run_claims: Any,
    httpserver: HTTPServer,
    local_fetches: Any,
    tmp_path: Path,
) -> None:
    url = httpserver.url_for("/harness.log")
    built = make_registry(change=_raw_log_at(url))
    log = (built.attempt / "raw-log" / "harness.log").read_bytes()
    httpserver.expect_request("/harness.log").respond_with_data(log)
    pins = tmp_path / "pins"
    entries = pin_jobs(run_claims, built.root, pins)
    assert [e["attempt"] for e in entries] == ["attempts/market-03/alice-lab/monitor-v1"]
    fetches = len(httpserver.log)
    assert fetches == 1

    report = close(built.root, pins)
    assert not report.failed, report.render()
    assert len(httpserver.log) == fetches  # the close job fetched nothing
    data = record(built.root)
    assert data is not None and data["outcome"] == "YES"
    digest = hashlib.sha256(log).hexdigest()
    carried = members(built.root)
    assert carried[f"{TAG}/pins/sha256/{digest}"] == log
    manifest = json.loads(carried[f"{TAG}/pins/manifest.json"])
    assert manifest["pins"] == [
        {
            "file": "attempts/market-03/alice-lab/monitor-v1/attempt.yaml",
            "kind": "raw_log",
            "url": url,
            "sha256": digest,
            "bytes": len(log),
            "carried": True,
            "path": f"pins/sha256/{digest}",
            "note": None,
        }
    ]
    assert manifest["caps"] == {
        "file_bytes": Limits().max_archived_pin_bytes,
        "archive_bytes": Limits().max_archived_pins_bytes,
    }
    # Market 5 shares the tag but has no attempt: its copy carries no pins.
    assert members(built.root, 5) == {}


def test_a_pin_past_the_cap_is_listed_not_carried_and_named(
    make_registry: RegistryFactory,
    run_claims: Any,
    httpserver: HTTPServer,
    local_fetches: Any,
    tmp_path: Path,
) -> None:
    url = httpserver.url_for("/harness.log")
    built = make_registry(change=_raw_log_at(url))
    log = (built.attempt / "raw-log" / "harness.log").read_bytes()
    httpserver.expect_request("/harness.log").respond_with_data(log)
    pins = tmp_path / "pins"
    pin_jobs(run_claims, built.root, pins)
    report = close(built.root, pins, limits=Limits(max_archived_pin_bytes=100))
    assert not report.failed, report.render()  # a warning: the attempt counts as it is
    assert "warning: pin-not-archived: market 3's archive does not carry raw_log.url" in (
        report.render()
    )
    assert "over the 100-byte cap for one file" in report.render()
    carried = members(built.root)
    assert list(carried) == [f"{TAG}/pins/manifest.json"]
    (entry,) = json.loads(carried[f"{TAG}/pins/manifest.json"])["pins"]
    assert entry["carried"] is False and entry["path"] is None
    assert entry["note"] == f"not carried: {len(log)} bytes, over the 100-byte cap for one file"


def test_a_pin_with_no_record_blocks_the_market(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    built = make_registry()
    empty = tmp_path / "pins"
    empty.mkdir()
    report = close(built.root, empty)
    assert report.failed
    assert "market 3 blocked this run: attempt(s) attempts/market-03/alice-lab/monitor-v1" in (
        report.render()
    )
    assert record(built.root) is None
    assert (record(built.root, 5) or {}).get("outcome") == "OTHER"


def test_an_unreachable_pin_holds_the_market_only_until_its_deadline(
    make_registry: RegistryFactory,
    run_claims: Any,
    httpserver: HTTPServer,
    local_fetches: Any,
    tmp_path: Path,
) -> None:
    """No attempt holds a market hostage: the filer's server down at the close blocks the
    market until the pin deadline (2027-09-05); from then on the attempt is pin-unrecorded
    and the market resolves from its other attempts (here none: NO)."""
    url = httpserver.url_for("/harness.log")
    built = make_registry(change=_raw_log_at(url))
    httpserver.expect_request("/harness.log").respond_with_data("", status=503)
    pins = tmp_path / "pins"
    pin_jobs(run_claims, built.root, pins)
    report = close(built.root, pins)
    assert report.failed and "market 3 blocked this run" in report.render()
    assert record(built.root) is None

    report = close(built.root, pins, as_of=date(2027, 9, 5))
    assert not report.failed, report.render()
    data = record(built.root)
    assert data is not None and data["outcome"] != "YES"
    (attempt,) = data["attempts"]
    assert {"pin-unrecorded", "raw-log-unavailable"} <= set(attempt["reasons"])
    assert not attempt["counts"]
    assert json.loads(members(built.root)[f"{TAG}/pins/manifest.json"])["pins"][0] == {
        "file": "attempts/market-03/alice-lab/monitor-v1/attempt.yaml",
        "kind": "raw_log",
        "url": url,
        "sha256": hashlib.sha256(
            (built.attempt / "raw-log" / "harness.log").read_bytes()
        ).hexdigest(),
        "bytes": None,
        "carried": False,
        "path": None,
        "note": "not carried: the URL did not serve the pinned file",
    }


def test_the_archive_with_pins_is_deterministic(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """The same tag, record and files give the same bytes (the record cites the tarball's
    sha256, and a rerun of the job must find the same file)."""
    from bot.faces.jobs.gitops import Git

    built = make_registry()
    built.repo.create_tag(TAG, message="snapshot")
    body = tmp_path / "body"
    body.write_bytes(b"x" * 300_000)
    made = []
    for name in ("one", "two"):
        git = Git(built.repo, "main")
        target = git.archive(
            TAG, {"pins/manifest.json": b"{}\n"}, tmp_path / f"{name}.tar.gz",
            files={"pins/sha256/abc": body},
        )  # fmt: skip
        made.append(target.read_bytes())
    assert made[0] == made[1]
    with tarfile.open(fileobj=io.BytesIO(made[0]), mode="r:gz") as tar:
        names = tar.getnames()
        member = tar.getmember(f"{TAG}/pins/sha256/abc")
    assert names[-2:] == [f"{TAG}/pins/manifest.json", f"{TAG}/pins/sha256/abc"]
    assert member.size == 300_000 and member.mode == 0o644


def test_the_archive_is_gzipped_at_the_fastest_level(
    make_registry: RegistryFactory, tmp_path: Path
) -> None:
    """The copy carries filers' files, so its compression must cost the same for any bytes:
    at zlib's best level a log of random ACGT compresses at about 1 MB/s (bench/pins.py
    --content acgt), and three 1 GiB logs held the close job past its 30 minutes on every
    run. The gzip header's XFL byte says the level: 4 is the fastest, 2 the best."""
    from bot.faces.jobs.gitops import Git

    built = make_registry()
    built.repo.create_tag(TAG, message="snapshot")
    body = tmp_path / "body"
    body.write_bytes(b"ACGT" * 1000)
    target = Git(built.repo, "main").archive(
        TAG, {}, tmp_path / "copy.tar.gz", files={"pins/sha256/abc": body}
    )
    header = target.read_bytes()[:10]
    assert header[:2] == b"\x1f\x8b" and header[8] == 4


def test_a_wrapped_attempts_archive_carries_its_log_paper_freeze_and_released_data(
    make_registry: RegistryFactory,
    run_claims: Any,
    httpserver: HTTPServer,
    local_fetches: Any,
    tmp_path: Path,
    monkeypatch: Any,
) -> None:
    """The rerun jobs keep the released data they checked (--keep-released), the pin jobs the
    raw log and the paper's freeze: market 3's copy carries all four, each by its sha256."""
    fake_sandbox(monkeypatch)
    log_url, paper_url = httpserver.url_for("/harness.log"), httpserver.url_for("/prereg")

    built = make_registry(AttemptSpec(kind="wrapped"), change=_pins_at(log_url, paper_url))
    log = (built.attempt / "raw-log" / "harness.log").read_bytes()
    paper = b"monitor-v1"  # what the specimen's paper_freeze.sha256 hashes
    httpserver.expect_request("/harness.log").respond_with_data(log)
    httpserver.expect_request("/prereg").respond_with_data(paper)
    pins, reruns, released = tmp_path / "pins", tmp_path / "reruns", tmp_path / "released"
    (entry,) = pin_jobs(run_claims, built.root, pins)
    seed_released(released, built.files)
    attempt = built.root / entry["attempt"]
    result = run_claims(*rerun_job_argv(built.root, entry["commit"], attempt, reruns, released))
    assert result.code == 0, result.out

    report = close(built.root, pins, reruns=reruns)
    assert not report.failed, report.render()
    data = record(built.root)
    assert data is not None and data["outcome"] == "YES"
    carried = members(built.root)
    manifest = json.loads(carried[f"{TAG}/pins/manifest.json"])
    kinds = [(p["kind"], p["carried"]) for p in manifest["pins"]]
    assert kinds == [
        ("released_data", True),
        ("released_data", True),
        ("raw_log", True),
        ("paper_freeze", True),
    ]
    expected = [*released_files(built.files), log, paper]
    for pin, body in zip(manifest["pins"], expected, strict=True):
        assert pin["sha256"] == hashlib.sha256(body).hexdigest()
        assert pin["bytes"] == len(body)
        assert carried[f"{TAG}/{pin['path']}"] == body
    assert manifest["carried_bytes"] == sum(len(b) for b in expected)


def _declared_over_the_cap(url: str) -> Any:
    """The attempt keeps excerpts of a log it declares one byte over the archive's file cap."""
    size = Limits().max_archived_pin_bytes + 1

    def change(files: Files) -> None:
        _raw_log_at(url)(files)
        del files["raw-log/harness.log"]
        files["raw-log/head"] = b"h" * 1_000_000
        files["raw-log/tail"] = b"t" * 1_000_000
        text = files["attempt.yaml"].decode()
        old = text.split("raw_log:", 1)[1].split("bytes: ", 1)[1].split("\n", 1)[0]
        files["attempt.yaml"] = text.replace(f"bytes: {old}", f"bytes: {size}").encode()

    return change


def test_a_raw_log_the_archive_cannot_carry_does_not_count_at_the_close(
    make_registry: RegistryFactory,
    run_claims: Any,
    httpserver: HTTPServer,
    local_fetches: Any,
    tmp_path: Path,
) -> None:
    """Refused on the pull request (raw-log-too-large), and so at the close: the pin plan keeps
    nothing of it, and the market resolves without the attempt."""
    url = httpserver.url_for("/harness.log")
    built = make_registry(change=_declared_over_the_cap(url))
    httpserver.expect_request("/harness.log").respond_with_data(b"a small log\n")
    pins = tmp_path / "pins"
    pin_jobs(run_claims, built.root, pins, keeps=False)
    assert not (pins / "sha256").exists() or not any((pins / "sha256").iterdir())
    report = close(built.root, pins)
    data = record(built.root)
    assert data is not None and data["outcome"] == "OTHER", report.render()  # none counts
    (attempt,) = data["attempts"]
    assert attempt["counts"] is False and attempt["evidence"] == "invalid"
    assert "raw-log-too-large" in json.dumps(data)


def test_released_data_past_the_rerun_jobs_share_is_listed_not_carried(
    make_registry: RegistryFactory,
    run_claims: Any,
    httpserver: HTTPServer,
    local_fetches: Any,
    tmp_path: Path,
    monkeypatch: Any,
) -> None:
    """A rerun job keeps released data only within its share of the run's keep budget (the
    plan's released_bytes, --keep-released-bytes): with room for the first released file
    only, the second is listed in the manifest as not carried, a pin-not-archived warning,
    and the market resolves as it would have."""
    fake_sandbox(monkeypatch)
    log_url, paper_url = httpserver.url_for("/harness.log"), httpserver.url_for("/prereg")

    built = make_registry(AttemptSpec(kind="wrapped"), change=_pins_at(log_url, paper_url))
    log = (built.attempt / "raw-log" / "harness.log").read_bytes()
    httpserver.expect_request("/harness.log").respond_with_data(log)
    httpserver.expect_request("/prereg").respond_with_data(b"monitor-v1")
    pins, reruns, released = tmp_path / "pins", tmp_path / "reruns", tmp_path / "released"
    (entry,) = pin_jobs(run_claims, built.root, pins)
    seed_released(released, built.files)
    first, second = released_files(built.files)
    assert hashlib.sha256(first).digest() != hashlib.sha256(second).digest()
    attempt = built.root / entry["attempt"]
    argv = rerun_job_argv(
        built.root, entry["commit"], attempt, reruns, released, share=len(first) + len(second) - 1
    )
    result = run_claims(*argv)
    assert result.code == 0, result.out
    kept = list((reruns / "released" / "sha256").iterdir())
    assert [path.read_bytes() for path in kept] == [first]

    report = close(built.root, pins, reruns=reruns)
    assert not report.failed, report.render()
    data = record(built.root)
    assert data is not None and data["outcome"] == "YES"
    assert "warning: pin-not-archived: market 3's archive does not carry released data" in (
        report.render()
    )
    carried = members(built.root)
    manifest = json.loads(carried[f"{TAG}/pins/manifest.json"])
    by_sha = {p["sha256"]: p for p in manifest["pins"] if p["kind"] == "released_data"}
    shown = by_sha[hashlib.sha256(first).hexdigest()]
    assert shown["carried"] is True and carried[f"{TAG}/{shown['path']}"] == first
    left = by_sha[hashlib.sha256(second).hexdigest()]
    assert left["carried"] is False and left["path"] is None
    assert "past their share of the run's keep budget" in left["note"]

"""`bot/pins.py`: pins fetched in one process, recorded, and counted in another.

A local HTTP server (pytest-httpserver, on loopback, allowed through
`Limits.fetch_allowed_addresses`) serves the pins; nothing reaches the internet.
"""

from __future__ import annotations

import hashlib
import json
from datetime import date
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from bot.config import Limits
from bot.findings import Code, Severity
from bot.pins import PinFetch, PinRecordError, pin_key, read_record
from bot.rerun import Deadline

FILE = "attempts/market-03/alice-lab/monitor-v1/attempt.yaml"
FREEZE = "attempts/market-03/alice-lab/monitor-v1/freeze.yaml"
LOG = b"".join(b"line %d of the harness log\n" % i for i in range(2000))
LOCAL = Limits(fetch_allowed_addresses=frozenset({"127.0.0.1", "::1"}))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def raw_log(pins: PinFetch, url: str, sha256: str = sha(LOG), size: int = len(LOG)) -> list:  # type: ignore[type-arg]
    return pins.raw_log(
        url, sha256=sha256, size=size, head=None, tail=None, file=FILE, line=9, limits=LOCAL
    )


def codes(findings: list) -> list[str]:  # type: ignore[type-arg]
    return [f.code.value for f in findings]


def test_a_fetched_pin_is_recorded_and_counted_without_fetching(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    httpserver.expect_request("/log").respond_with_data(LOG)
    url = httpserver.url_for("/log")
    fetched = raw_log(PinFetch(tmp_path), url)
    assert codes(fetched) == ["pin-fetched"]
    (notice,) = fetched
    assert notice.severity is Severity.NOTICE and (notice.file, notice.line) == (FILE, 9)
    assert notice.message == (
        f"raw_log.url {url} fetched: {len(LOG)} bytes, sha256 {sha(LOG)} (as pinned)"
    )
    assert len(httpserver.log) == 1
    (record,) = tmp_path.glob("*.json")
    data = json.loads(record.read_text())
    assert data["served_bytes"] == len(LOG) and data["served_sha256"] == sha(LOG)
    assert data["kind"] == "raw_log" and data["url"] == url and data["file"] == FILE

    counted = raw_log(PinFetch(tmp_path, recorded_only=True), url)
    assert counted == fetched
    assert len(httpserver.log) == 1  # the counting process fetched nothing


def test_an_invented_hash_is_a_finding_in_both_processes(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """The issue's case: a '5 MB' log pinned by an invented sha256."""
    served = b"a" * 1_000_000 + b"x" * 3_000_000 + b"b" * 1_000_000
    invented = "0" * 64
    httpserver.expect_request("/big.log").respond_with_data(served)
    url = httpserver.url_for("/big.log")
    fetched = raw_log(PinFetch(tmp_path), url, invented, len(served))
    assert codes(fetched) == ["raw-log-hash-mismatch", "pin-fetched"]
    assert fetched[0].message == (
        f"raw_log.url has sha256 {sha(served)}, raw_log.sha256 says {invented}"
    )
    assert "(not as pinned)" in fetched[1].message
    assert raw_log(PinFetch(tmp_path, recorded_only=True), url, invented, len(served)) == fetched


def test_a_pin_with_no_record_is_never_a_silent_pass(tmp_path: Path) -> None:
    found = raw_log(PinFetch(tmp_path, recorded_only=True), "https://logs.example/x.log")
    assert codes(found) == ["pin-not-fetched"]
    assert found[0].severity is Severity.ERROR
    assert found[0].message.startswith(
        "raw_log.url https://logs.example/x.log was not fetched: the pin job recorded nothing"
    )


def test_a_record_for_another_pin_does_not_count(httpserver: HTTPServer, tmp_path: Path) -> None:
    """A record is keyed by the pin: another pinned hash at the same URL has no record."""
    httpserver.expect_request("/log").respond_with_data(LOG)
    url = httpserver.url_for("/log")
    raw_log(PinFetch(tmp_path), url)
    assert codes(raw_log(PinFetch(tmp_path, recorded_only=True), url, "1" * 64)) == [
        "pin-not-fetched"
    ]


@pytest.mark.parametrize(
    "damage",
    [
        lambda d: d.update(findings=[]),  # turned into a pass: the served file is not the pin
        lambda d: d.update(extra=1),
        lambda d: d.pop("kept"),
        lambda d: d.update(findings=[{"code": "adapter-mismatch", "message": "x"}]),
        lambda d: d.update(served_bytes=-1),
        lambda d: d.update(key="0" * 64),
        lambda d: d.update(version=2),
    ],
)
def test_a_damaged_record_is_refused(httpserver: HTTPServer, tmp_path: Path, damage) -> None:  # type: ignore[no-untyped-def]
    httpserver.expect_request("/gone").respond_with_data("", status=404)
    url = httpserver.url_for("/gone")
    assert codes(raw_log(PinFetch(tmp_path), url)) == ["raw-log-unavailable", "pin-fetched"]
    (path,) = tmp_path.glob("*.json")
    data = json.loads(path.read_text())
    damage(data)
    path.write_text(json.dumps(data))
    found = raw_log(PinFetch(tmp_path, recorded_only=True), url)
    assert codes(found) == ["pin-not-fetched"]
    assert f"its record {path.name} is refused" in found[0].message


def test_read_record_refuses_text_that_is_not_json() -> None:
    with pytest.raises(PinRecordError, match="not JSON"):
        read_record("{", "0" * 64)


def test_kept_bodies_are_checked_when_read_back(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/log").respond_with_data(LOG)
    url = httpserver.url_for("/log")
    raw_log(PinFetch(tmp_path, keep_files=True), url)
    body = tmp_path / "sha256" / sha(LOG)
    assert body.read_bytes() == LOG
    assert not list((tmp_path / "sha256").glob(".partial-*"))
    pins = PinFetch(tmp_path, recorded_only=True)
    assert codes(raw_log(pins, url)) == ["pin-fetched"]
    (counted,) = pins.counted("attempts/market-03/")
    assert counted.kept and pins.body(counted) == body
    assert pins.counted("attempts/market-04/") == []
    body.write_bytes(LOG[:-1] + b"!")
    found = raw_log(PinFetch(tmp_path, recorded_only=True), url)
    assert codes(found) == ["pin-not-fetched"]
    assert "says the body is kept, but it is not" in found[0].message


def test_a_body_over_the_per_file_cap_is_not_kept(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/log").respond_with_data(LOG)
    url = httpserver.url_for("/log")
    pins = PinFetch(tmp_path, keep_files=True)
    small = Limits(fetch_allowed_addresses=LOCAL.fetch_allowed_addresses, max_archived_pin_bytes=10)
    found = pins.raw_log(
        url, sha256=sha(LOG), size=len(LOG), head=None, tail=None, file=FILE, limits=small
    )
    assert codes(found) == ["pin-fetched"]
    assert not (tmp_path / "sha256" / sha(LOG)).exists()
    (record,) = pins.used[FILE]
    assert not record.kept


def test_a_mismatched_body_is_never_kept(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/log").respond_with_data(LOG + b"more")
    url = httpserver.url_for("/log")
    raw_log(PinFetch(tmp_path, keep_files=True), url, size=len(LOG) + 4)
    assert not any((tmp_path / "sha256").iterdir())


def test_the_paper_freeze_is_recorded_too(httpserver: HTTPServer, tmp_path: Path) -> None:
    paper = b"the paper's frozen cases\n"
    httpserver.expect_request("/freeze").respond_with_data(paper)
    url = httpserver.url_for("/freeze")

    def freeze(pins: PinFetch, pinned: str) -> list:  # type: ignore[type-arg]
        return pins.paper_freeze(url, sha256=pinned, file=FREEZE, line=4, limits=LOCAL)

    assert codes(freeze(PinFetch(tmp_path), sha(paper))) == ["pin-fetched"]
    assert codes(freeze(PinFetch(tmp_path, recorded_only=True), sha(paper))) == ["pin-fetched"]
    assert codes(freeze(PinFetch(tmp_path), "2" * 64)) == ["paper-freeze-mismatch", "pin-fetched"]
    found = freeze(PinFetch(tmp_path, recorded_only=True), "2" * 64)
    assert codes(found) == ["paper-freeze-mismatch", "pin-fetched"]
    assert found[0].file == FREEZE and found[0].line == 4
    assert pin_key("paper_freeze", url, "2" * 64, None) != pin_key("raw_log", url, "2" * 64, None)


def test_at_the_close_an_unanswered_pin_waits_until_the_deadline(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """No attempt holds a market hostage: a down server blocks (pin-not-fetched) before the
    market's deadline, and is pin-unrecorded, not counting, from it on."""
    httpserver.expect_request("/down").respond_with_data("", status=503)
    url = httpserver.url_for("/down")
    raw_log(PinFetch(tmp_path), url)
    day = date(2027, 9, 5)
    before = raw_log(PinFetch(tmp_path, True, deadline=Deadline(day, passed=False)), url)
    assert codes(before) == ["pin-not-fetched", "raw-log-unavailable"]
    assert "waits for the next run until the pin deadline 2027-09-05" in before[0].message
    after = raw_log(PinFetch(tmp_path, True, deadline=Deadline(day, passed=True)), url)
    assert codes(after) == ["pin-unrecorded", "raw-log-unavailable"]
    assert after[0].message == (
        f"raw_log.url {url} was not fetched by the pin deadline 2027-09-05 (the last try ended"
        " in raw-log-unavailable): not counting, and the market resolves from its other attempts"
    )
    # Nothing recorded (the pin job lost): the registry's fault, it waits on any day.
    lost = raw_log(PinFetch(tmp_path / "none", True, deadline=Deadline(day, passed=True)), url)
    assert codes(lost) == ["pin-not-fetched"]
    # A mismatch is a result, not a try: counted at once, whatever the date.
    assert Code.RAW_LOG_HASH_MISMATCH not in {f.code for f in before}


@pytest.mark.parametrize(
    ("argv", "message"),
    [
        (["--keep-pins"], "--keep-pins needs --pin-results DIR"),
        (["--keep-pins", "--pin-results", "pins"], "--keep-pins keeps what is fetched"),
    ],
)
def test_keep_pins_is_refused_where_nothing_is_kept(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.cli import main

    project = Path(__file__).resolve().parents[2]  # a registry: its examples
    assert main(["verify", "--registry", str(project), *argv]) == 2
    assert message in capsys.readouterr().err


def test_a_record_shared_by_two_attempts_is_counted_for_each_attempt_file(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """Two attempts (here in two markets) pinning the same log share one record (the key
    is the pin's): the last fetch writes its file into it. Each attempt's count names its
    own file, so market 3's archive manifest lists market 3's attempt, not market 4's."""
    other = "attempts/market-04/bob-lab/monitor-v2/attempt.yaml"
    httpserver.expect_request("/log").respond_with_data(LOG)
    url = httpserver.url_for("/log")
    fetch = PinFetch(tmp_path, keep_files=True)
    raw_log(fetch, url)
    fetch.raw_log(url, sha256=sha(LOG), size=len(LOG), head=None, tail=None, file=other,
                  line=4, limits=LOCAL)  # fmt: skip
    (path,) = tmp_path.glob("*.json")
    assert json.loads(path.read_text())["file"] == other  # one record, the last writer's

    pins = PinFetch(tmp_path, recorded_only=True)
    raw_log(pins, url)
    pins.raw_log(url, sha256=sha(LOG), size=len(LOG), head=None, tail=None, file=other,
                 line=4, limits=LOCAL)  # fmt: skip
    assert [r.file for r in pins.counted("attempts/market-03/")] == [FILE]
    assert [r.file for r in pins.counted("attempts/market-04/")] == [other]


def test_one_filer_cannot_crowd_the_others_out_of_the_archive(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """The archive's cap is shared by a market's attempts, and a filer chooses where their
    attempt sorts (its folder name) and how big its log is. Taken in the manifest's order, a
    first-sorting attempt with a log the size of the cap left every other attempt's log
    uncarried; the smaller files are carried first, so a big one cannot crowd them out."""
    from bot.gather import VerifyOptions
    from bot.jobs.pins import archived_pins

    big, small = b"x" * 1000, LOG[:300]
    files = {
        "attempts/market-03/aaa-lab/hog/attempt.yaml": big,
        "attempts/market-03/bob-lab/monitor/attempt.yaml": small,
        "attempts/market-03/carol-lab/monitor/attempt.yaml": small[::-1],
    }
    fetch = PinFetch(tmp_path, keep_files=True)
    pins = PinFetch(tmp_path, recorded_only=True)
    for number, (file, body) in enumerate(files.items()):
        httpserver.expect_request(f"/{number}").respond_with_data(body)
        for each in (fetch, pins):
            found = each.raw_log(
                httpserver.url_for(f"/{number}"), sha256=sha(body), size=len(body),
                head=None, tail=None, file=file, line=1, limits=LOCAL,
            )  # fmt: skip
            assert codes(found) == ["pin-fetched"]
    options = VerifyOptions(as_of=date(2027, 9, 1), fetch_raw_log=pins.raw_log)
    carried = archived_pins(options, 3, Limits(max_archived_pins_bytes=1000))
    assert sorted(carried.files) == sorted(
        f"pins/sha256/{sha(body)}" for body in (small, small[::-1])
    )
    (problem,) = carried.problems
    assert problem.code is Code.PIN_NOT_ARCHIVED and problem.file.startswith(
        "attempts/market-03/aaa-lab/"
    )
    manifest = json.loads(carried.manifest or b"")
    assert [entry["file"] for entry in manifest["pins"]] == list(files)  # still in file order
    assert manifest["carried_bytes"] == 600


@pytest.mark.xfail(
    strict=True,
    reason="large fix, not made: the pin jobs keep every matching file up to 1 GiB while their"
    " own disk has room (about 12 GB a job, up to 256 jobs), and the close job downloads all of"
    " them (pins-* merged) onto one 14 GB runner, though each market's archive carries at most"
    " 4 GiB. A filer with about a dozen attempts pinning 1 GiB logs fills the close job's disk:"
    " the download fails, every market of the day is blocked, and again on every run. Needs a"
    " keep budget planned per market and per run (the plan knows raw_log.bytes).",
)
def test_the_pin_jobs_keep_no_more_than_the_archive_can_carry(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    limits = Limits(
        fetch_allowed_addresses=LOCAL.fetch_allowed_addresses, max_archived_pins_bytes=1000
    )
    fetch = PinFetch(tmp_path, keep_files=True)
    for number in range(3):
        body = bytes([65 + number]) * 1000
        httpserver.expect_request(f"/{number}").respond_with_data(body)
        fetch.raw_log(
            httpserver.url_for(f"/{number}"), sha256=sha(body), size=len(body), head=None,
            tail=None, file=f"attempts/market-03/lab-{number}/x/attempt.yaml", limits=limits,
        )  # fmt: skip
    kept = sum(path.stat().st_size for path in (tmp_path / "sha256").iterdir())
    assert kept <= limits.max_archived_pins_bytes

"""`bot/app/pins.py`: pins fetched in one process, recorded, and counted in another.

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

from bot.app.pins import KeepPlan, PinFetch, PinRecordError, pin_key, read_record
from bot.app.rerun import Deadline
from bot.faces.jobs.rerun_batches import plan_keep
from bot.vocab.config import Limits
from bot.vocab.findings import Code, Severity

FILE = "attempts/market-03/alice-lab/monitor-v1/attempt.yaml"
FREEZE = "attempts/market-03/alice-lab/monitor-v1/freeze.yaml"
LOG = b"".join(b"line %d of the harness log\n" % i for i in range(2000))
LOCAL = Limits(fetch_allowed_addresses=frozenset({"127.0.0.1", "::1"}))


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def keeping(*pins: tuple[str, bytes]) -> KeepPlan:
    """A pin plan's `keep` listing each `(pin file, body)`, at the body's size."""
    return KeepPlan({(file.rpartition("/")[0], sha(body)): len(body) for file, body in pins})


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
    raw_log(PinFetch(tmp_path, keep=keeping((FILE, LOG))), url)
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
    pins = PinFetch(tmp_path, keep=keeping((FILE, LOG)))
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
    plan = KeepPlan({(FILE.rpartition("/")[0], sha(LOG)): len(LOG) + 4})
    raw_log(PinFetch(tmp_path, keep=plan), url, size=len(LOG) + 4)
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
        (["--keep-pins", "plan.json"], "--keep-pins needs --pin-results DIR"),
        (
            ["--keep-pins", "plan.json", "--pin-results", "pins"],
            "--keep-pins keeps what is fetched",
        ),
    ],
)
def test_keep_pins_is_refused_where_nothing_is_kept(
    argv: list[str], message: str, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.faces.cli import main

    project = Path(__file__).resolve().parents[3]  # a registry: its examples
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
    fetch = PinFetch(tmp_path, keep=keeping((FILE, LOG), (other, LOG)))
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
    from bot.app.options import Ports
    from bot.faces.jobs.pins import archived_pins

    big, small = b"x" * 1000, LOG[:300]
    files = {
        "attempts/market-03/aaa-lab/hog/attempt.yaml": big,
        "attempts/market-03/bob-lab/monitor/attempt.yaml": small,
        "attempts/market-03/carol-lab/monitor/attempt.yaml": small[::-1],
    }
    fetch = PinFetch(tmp_path, keep=keeping(*files.items()))
    pins = PinFetch(tmp_path, recorded_only=True)
    for number, (file, body) in enumerate(files.items()):
        httpserver.expect_request(f"/{number}").respond_with_data(body)
        for each in (fetch, pins):
            found = each.raw_log(
                httpserver.url_for(f"/{number}"), sha256=sha(body), size=len(body),
                head=None, tail=None, file=file, line=1, limits=LOCAL,
            )  # fmt: skip
            assert codes(found) == ["pin-fetched"]
    carried = archived_pins(
        Ports(fetch_raw_log=pins.raw_log), 3, Limits(max_archived_pins_bytes=1000)
    )
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


def test_the_pin_jobs_keep_no_more_than_the_archive_can_carry(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    limits = Limits(
        fetch_allowed_addresses=LOCAL.fetch_allowed_addresses, max_archived_pins_bytes=1000
    )
    """The pin jobs keep only what the pin plan lists, and the plan keeps within the
    archive's caps: three 1,000-byte logs of one market with a 1,000-byte archive cap keep
    one, however much room the pin job's own disk has."""
    bodies = [bytes([65 + number]) * 1000 for number in range(3)]
    declared = [
        (f"attempts/market-03/lab-{number}/x", sha(body), len(body))
        for number, body in enumerate(bodies)
    ]
    fetch = PinFetch(tmp_path, keep=KeepPlan.of(plan_keep([(3, declared)], limits)))
    for number, body in enumerate(bodies):
        httpserver.expect_request(f"/{number}").respond_with_data(body)
        fetch.raw_log(
            httpserver.url_for(f"/{number}"), sha256=sha(body), size=len(body), head=None,
            tail=None, file=f"attempts/market-03/lab-{number}/x/attempt.yaml", limits=limits,
        )  # fmt: skip
    kept = sum(path.stat().st_size for path in (tmp_path / "sha256").iterdir())
    assert kept == 1000 <= limits.max_archived_pins_bytes
    assert sum(record.kept for records in fetch.used.values() for record in records) == 1


def test_a_file_the_plan_does_not_list_is_fetched_and_recorded_but_not_kept(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    httpserver.expect_request("/log").respond_with_data(LOG)
    url = httpserver.url_for("/log")
    other = "attempts/market-04/bob-lab/monitor-v2/attempt.yaml"
    for fetch in (PinFetch(tmp_path), PinFetch(tmp_path, keep=keeping((other, LOG)))):
        assert codes(raw_log(fetch, url)) == ["pin-fetched"]
        (record,) = fetch.used[FILE]
        assert not record.kept and record.matches
    assert not (tmp_path / "sha256" / sha(LOG)).exists()


def test_a_server_serving_more_than_the_plan_allows_is_cut_off_and_not_kept(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    """A paper's freeze declares no size: the plan allows its limit. A body past the planned
    bytes is never written past them, nor kept, even when it matches its sha256."""
    paper = b"the paper's frozen cases\n" * 40
    httpserver.expect_request("/freeze").respond_with_data(paper)
    url = httpserver.url_for("/freeze")
    plan = KeepPlan({(FREEZE.rpartition("/")[0], sha(paper)): 100})
    fetch = PinFetch(tmp_path, keep=plan)
    found = fetch.paper_freeze(url, sha256=sha(paper), file=FREEZE, line=3, limits=LOCAL)
    assert codes(found) == ["pin-fetched"]  # it matches: the attempt counts, not carried
    (record,) = fetch.used[FREEZE]
    assert not record.kept and record.served_bytes == len(paper)
    assert not any((tmp_path / "sha256").iterdir())


def test_keep_pins_reads_the_plan_strictly(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    from bot.faces.cli import main

    good = {"keep": [{"attempt": "attempts/market-03/a-lab/x", "sha256": "a" * 64, "bytes": 5}]}
    plan = tmp_path / "pin-plan.json"
    plan.write_text(json.dumps(good))
    assert KeepPlan.read(plan).allows("attempts/market-03/a-lab/x/attempt.yaml", "A" * 64) == 5
    for spoiled in (
        {"batches": []},
        {"keep": [{"attempt": "a", "sha256": "a" * 64, "bytes": True}]},
        {"keep": [{"attempt": "a", "sha256": "a" * 63, "bytes": 5}]},
        {"keep": [{"attempt": "a", "sha256": "a" * 64, "bytes": 0}]},
        {"keep": [{"attempt": "a", "sha256": "a" * 64, "bytes": 5, "more": 1}]},
    ):
        plan.write_text(json.dumps(spoiled))
        with pytest.raises(PinRecordError):
            KeepPlan.read(plan)
    plan.write_text("{")
    project = Path(__file__).resolve().parents[3]
    argv = ["verify", "--registry", str(project), "--fetch-raw-logs", "--pin-results",
            str(tmp_path / "pins"), "--keep-pins", str(plan)]  # fmt: skip
    assert main(argv) == 2
    assert "--keep-pins" in capsys.readouterr().err


def test_the_plans_keep_set_respects_both_caps_smallest_first() -> None:
    """Per market the smallest first within the archive's cap (a file over the file cap is
    never kept); over the run within the close job's disk budget, a file shared by two
    attempts counted once."""
    limits = Limits(
        max_archived_pin_bytes=500, max_archived_pins_bytes=1000, max_kept_pins_bytes=1300
    )
    hexes = [f"{n:064x}" for n in range(10)]
    market3 = [
        ("attempts/market-03/a-lab/big", hexes[0], 501),  # over the file cap
        ("attempts/market-03/b-lab/x", hexes[1], 400),
        ("attempts/market-03/c-lab/x", hexes[2], 300),
        ("attempts/market-03/d-lab/x", hexes[3], 400),  # the archive is full: 300+400+400
        ("attempts/market-03/e-lab/x", hexes[2], 300),  # the same file as c-lab's
    ]
    market4 = [
        ("attempts/market-04/f-lab/x", hexes[2], 300),  # kept already: no new bytes
        ("attempts/market-04/g-lab/x", hexes[4], 450),  # past the run's budget (900 + 450)
        ("attempts/market-04/h-lab/x", hexes[5], 200),
    ]
    keep = plan_keep([(3, market3), (4, market4)], limits)
    assert {(a.split("/")[2], b) for a, _, b in keep} == {
        ("b-lab", 400),
        ("c-lab", 300),
        ("e-lab", 300),
        ("f-lab", 300),
        ("h-lab", 200),
    }
    by_market: dict[str, dict[str, int]] = {}
    for attempt, sha256, size in keep:
        assert size <= limits.max_archived_pin_bytes
        by_market.setdefault(attempt.split("/")[1], {})[sha256] = size
    assert all(sum(m.values()) <= limits.max_archived_pins_bytes for m in by_market.values())
    run = {sha256: size for _, sha256, size in keep}
    assert sum(run.values()) == 900 <= limits.max_kept_pins_bytes

"""bot/faces/demo/shift.py: the demo moved by whole days, with the hashes that quote moved files."""

from __future__ import annotations

import hashlib
from datetime import UTC, date, datetime

from bot.faces.demo.git_registry import Step
from bot.faces.demo.shift import latest_date, shift_days_before, shift_demo, shift_text
from bot.rules.evidence.hashing import evidence_digest


def test_shift_text_moves_real_dates_only_and_keeps_the_length() -> None:
    text = (
        b"at: '2027-03-01T09:00:00Z' r: 2027-02-28 naive 2027-01-20T09:00:00"
        b" v1.2027-13-40 x12027-01-01"
    )
    moved = shift_text(text, -60)
    assert moved == (
        b"at: '2026-12-31T09:00:00Z' r: 2026-12-30 naive 2026-11-21T09:00:00 v1.2027-13-40"
        b" x12027-01-01"
    )
    assert len(moved) == len(text)


def _sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def test_shift_demo_follows_moved_files_hashes_and_folder_digests() -> None:
    folder = "attempts/market-03/lab/try"
    log = b"2027-01-20T09:00:00Z case=a\n"
    kept = b"2027-01-20T09:00:00Z case=a\n"  # the log as pinned
    attempt = f"raw_log:\n  sha256: {_sha(kept)}\n  bytes: {len(kept)}\n".encode()
    trials = b'{"case_id":"a","started_at":"2027-01-20T09:00:00Z"}\n'
    files = {"attempt.yaml": attempt, "trials.jsonl": trials, "raw-log/harness.log": log}
    digest = evidence_digest({name: _sha(data) for name, data in files.items()})
    judgments = f"checks:\n  x:\n    at: '2027-03-05'\n    evidence_digest: {digest}\n".encode()
    steps = [
        Step(
            "run",
            datetime(2027, 3, 1, 9, tzinfo=UTC),
            {f"{folder}/{name}": data for name, data in files.items()},
            merged_at=datetime(2027, 3, 2, 9, tzinfo=UTC),
        ),
        Step("judge", datetime(2027, 3, 5, 9, tzinfo=UTC), {f"{folder}/judgments.yaml": judgments}),
    ]
    plan = {
        "verify_as_of": "2027-03-15",
        "resolve_on": ["2027-11-01"],
        "close_on": ["2027-10-01T03:17:00Z"],
        "why": {folder: "annulled after 2027-07-29"},
    }
    released = {_sha(trials): trials}
    assert latest_date(steps, plan) == date(2027, 11, 1)
    days = shift_days_before(date(2026, 12, 1), steps, plan)
    assert days == -336
    moved, new_plan, new_released = shift_demo(steps, plan, released, days)
    assert latest_date(moved, new_plan) == date(2026, 11, 30)
    assert moved[0].at == datetime(2026, 3, 30, 9, tzinfo=UTC)
    assert moved[0].merged_at == datetime(2026, 3, 31, 9, tzinfo=UTC)
    assert new_plan["close_on"] == ["2026-10-30T03:17:00Z"]
    assert new_plan["why"][folder] == "annulled after 2026-08-27"
    new = {path.rsplit("/", 1)[-1]: data for path, data in moved[0].files.items()}
    new["harness.log"] = moved[0].files[f"{folder}/raw-log/harness.log"]
    assert new["harness.log"] == b"2026-02-18T09:00:00Z case=a\n"
    # The pinned hash follows the moved log; the judgment follows the moved folder's digest.
    assert _sha(new["harness.log"]).encode() in new["attempt.yaml"]
    moved_digest = evidence_digest(
        {
            path.removeprefix(f"{folder}/"): _sha(data)
            for path, data in moved[0].files.items()
            if data is not None
        }
    )
    assert moved_digest != digest
    assert moved_digest.encode() in (moved[1].files[f"{folder}/judgments.yaml"] or b"")
    # Released data is renamed by its moved content's hash.
    assert new_released == {_sha(new["trials.jsonl"]): new["trials.jsonl"]}

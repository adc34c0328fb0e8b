"""Benchmark a findings flood: an attempt with 50,000 bad trial lines; prints figures.

    python bench/findings_flood.py [BAD_LINES]        (default: 50000)

Builds a real git registry (the tests' factory) with one honest attempt, then appends BAD_LINES
bad lines to its trials.jsonl, five kinds in turn: `{}` (a schema error per missing field), a
trial of a case never frozen, a second trial of a case, a start time without an offset, and a
line that is not JSON. Then:
1. `claims verify ATTEMPT --json --markdown` in its own process: time, exit code, the sizes of
   the JSON report and the comment, and what the report says it left out (`findings_cap`);
2. in this process, the same verdict written as JSON with and without the cap (the cap is
   `bot.app.report_cap.FINDINGS_PER_CODE_AND_FILE` per reason code and file), to show what the
   cap saves, and that the report reads back (`verify_report_from_json`) with the same evidence.
"""

from __future__ import annotations

import json
import subprocess
import sys
import tempfile
import time
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import bot.app.report_json.write as json_report
from bot.app.api import open_workspace, verify_registry
from bot.app.report_cap import FINDINGS_PER_CODE_AND_FILE, count_findings
from bot.app.report_json import dumps, read_report, verify_report_from_json, verify_report_to_json
from tests.support import AS_OF, RegistryFactory


def _bad_lines(count: int, honest: bytes) -> bytes:
    first = json.loads(honest.splitlines()[0])
    kinds = []
    for index in range(count):
        kind = index % 5
        if kind == 0:
            kinds.append(b"{}")
        elif kind == 1:
            kinds.append(json.dumps({**first, "case_id": f"never-frozen-{index}"}).encode())
        elif kind == 2:
            kinds.append(json.dumps(first).encode())
        elif kind == 3:
            kinds.append(json.dumps({**first, "started_at": "2027-01-21T09:00:00"}).encode())
        else:
            kinds.append(b"not json")
    return b"\n".join(kinds) + b"\n"


def main(count: int) -> None:
    with tempfile.TemporaryDirectory() as folder:
        built = RegistryFactory(Path(folder))()
        trials = built.attempt / "trials.jsonl"
        trials.write_bytes(trials.read_bytes() + _bad_lines(count, trials.read_bytes()))
        report, comment = Path(folder) / "report.json", Path(folder) / "comment.md"
        started = time.perf_counter()
        done = subprocess.run(
            [
                *(sys.executable, "-m", "bot", "verify", str(built.attempt), "--as-of", AS_OF),
                *("--json", str(report), "--markdown", str(comment), "-q"),
            ],
            capture_output=True,
            text=True,
            check=False,
        )
        elapsed = time.perf_counter() - started
        data = json.loads(report.read_text())
        (attempt,) = data["attempts"]
        print(
            f"{count:,} bad trial lines: claims verify --json --markdown took {elapsed:.1f} s"
            f" (exit {done.returncode}, evidence {attempt['evidence']})"
        )
        print(
            f"JSON report {report.stat().st_size / 1e6:.3f} MB (target < 1 MB),"
            f" {len(attempt['reasons'])} reasons listed; findings_cap {data['findings_cap']}"
        )
        print(f"Markdown comment {len(comment.read_text()):,} characters (GitHub: 65,536)")

        as_of = date.fromisoformat(AS_OF)
        with open_workspace(built.root) as workspace:
            folder_path = built.attempt.relative_to(built.root).as_posix()
            verified = verify_registry(workspace.registry, workspace.history, as_of, [folder_path])
        findings = verified.attempts[0].findings
        started = time.perf_counter()
        capped = dumps(verify_report_to_json(verified))
        capped_time = time.perf_counter() - started
        cap = json_report.cap_findings
        json_report.cap_findings = lambda found, limit=0: list(found)  # type: ignore[assignment]
        try:
            started = time.perf_counter()
            uncapped = dumps(verify_report_to_json(verified))
            uncapped_time = time.perf_counter() - started
        finally:
            json_report.cap_findings = cap
        print(
            f"in process: {len(findings):,} findings; written capped"
            f" ({FINDINGS_PER_CODE_AND_FILE} per code and file) {len(capped.encode()) / 1e6:.3f} MB"
            f" in {capped_time:.2f} s, uncapped {len(uncapped.encode()) / 1e6:.1f} MB in"
            f" {uncapped_time:.2f} s"
        )
        back = verify_report_from_json(read_report(capped))
        print(
            f"read back: evidence {back.evidence} (verdict: {verified.evidence}), findings"
            f" counted {count_findings(back.attempts[0].findings):,} (verdict: {len(findings):,})"
        )
        built.repo.close()


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 50_000)

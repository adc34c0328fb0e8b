"""Review 3 of issue 21: the rerun deadline (bc36cdf) against a filer who makes "nothing
recorded" happen on purpose.

Since bc36cdf nothing recorded for a wrapped attempt blocks its market on every day (the
registry's fault, never the filer's). The close job reads a rerun record through
`read_regular(record, 1 MB)` and counts one it cannot read as no record at all. The rerun job
writes the record whatever its size, and a `released-data-unavailable` message holds the
redirect target the filer's server named (`HTTP 404 from <Location>`), uncapped: 30 released
files each redirected to a 50 000-character URL make a record over 1 MB. The rerun job
records the try; the close job reads it truncated, sees nothing, and the market never
resolves (before bc36cdf the deadline ended it as rerun-unrecorded).
"""

from __future__ import annotations

import threading
from datetime import timedelta
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import yaml

from tests.closing import (
    DEADLINE,
    GOOD,
    WRAPPED,
    close,
    record_if_any,
    recorded_into,
    rerun_wrapped_job,
)
from tests.support import Files, RegistryFactory

LONG = "x" * 50_000  # a path the filer's server redirects to (http.client reads 64 KiB lines)


class _Redirecting(BaseHTTPRequestHandler):
    def do_GET(self) -> None:
        if self.path.startswith("/r/"):
            self.send_response(302)
            self.send_header("Location", f"/{LONG}{self.path[3:]}")
        else:
            self.send_response(404)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, *args: Any) -> None:
        pass


def test_a_rerun_record_the_filer_made_too_long_to_read_still_lets_the_deadline_end_the_wait(
    make_registry: RegistryFactory, run_claims, local_fetches, monkeypatch, tmp_path: Path
) -> None:
    monkeypatch.setattr("bot.edges.released.time.sleep", lambda seconds: None)
    server = ThreadingHTTPServer(("127.0.0.1", 0), _Redirecting)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    base = f"http://127.0.0.1:{server.server_address[1]}"

    def many_redirects(files: Files) -> None:
        adapter = yaml.safe_load(files["adapter/adapter.yaml"])
        first = adapter["released_data"][0]
        adapter["released_data"] = [
            {"url": f"{base}/r/{i}", "sha256": first["sha256"], "path": f"data/{i}.jsonl"}
            for i in range(30)
        ]
        files["adapter/adapter.yaml"] = yaml.safe_dump(adapter).encode()

    try:
        built = make_registry(WRAPPED, change=many_redirects, also=[GOOD])
        late = DEADLINE + timedelta(days=3)
        results = tmp_path / "rerun"
        assert rerun_wrapped_job(run_claims, built, results, tmp_path / "released") == 1
        kept = list(results.glob("*.json"))
        assert kept, "the rerun job recorded the try (released-data-unavailable)"
        report = close(built.root, late, recorded_into(results))
    finally:
        server.shutdown()
        server.server_close()
    data = record_if_any(built.root)
    assert data is not None, report.render()  # past the deadline: the try ends the wait
    stuck = {a["attempt"]: a for a in data["attempts"]}[WRAPPED.folder]
    assert {"rerun-unrecorded", "released-data-unavailable"} <= set(stuck["reasons"])

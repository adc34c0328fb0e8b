"""Review 3 of issue 21: the disk a filer's released data may fill in the rerun job.

Since bc36cdf a rerun that records nothing blocks its market on every day, on the claim that
a filer's rerun always ends in a record. A machine error during the rerun (`OSError`: a full
disk) is recorded as nothing (`bot/app/rerun.py`: "never kept"). The released data was bounded per
file only (2 GiB) and adapter.yaml lists up to 100 files, each written twice (the cache and the
inputs copy): 400 GiB a filer's server may make the rerun job write, on a runner with 14 GB
free. A filer serving 10 real 2 GiB files filled the disk, the rerun recorded nothing, and
the market never resolved. Now all of an attempt's released data shares one byte budget, as
it shares one time budget (`Limits.max_released_total_bytes`).
"""

from __future__ import annotations

import hashlib
import json
from pathlib import Path

from pytest_httpserver import HTTPServer

from bot.edges.released import fetch_released
from bot.vocab.config import Limits
from bot.vocab.findings import Code

# GitHub's standard ubuntu-24.04 runner for a public repository: 14 GB of SSD.
RUNNER_DISK = 14 * 10**9
SCHEMAS = Path(__file__).resolve().parents[3] / "schemas"


def test_all_released_data_of_an_attempt_fits_the_rerun_runners_disk() -> None:
    adapter = json.loads((SCHEMAS / "adapter.schema.json").read_text())
    files = adapter["properties"]["released_data"]["maxItems"]
    limits = Limits()
    total = min(files * limits.max_released_bytes, limits.max_released_total_bytes)
    assert 2 * total <= RUNNER_DISK // 2  # the cache and the inputs copy, in half the disk


def test_released_data_past_the_total_byte_budget_is_not_fetched(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    datas = [bytes([65 + i]) * 600 for i in range(3)]
    items = []
    for i, data in enumerate(datas):
        httpserver.expect_request(f"/d{i}").respond_with_data(data)
        items.append(
            {
                "url": httpserver.url_for(f"/d{i}"),
                "sha256": hashlib.sha256(data).hexdigest(),
                "path": f"released/{i}.bin",
            }
        )
    limits = Limits(
        fetch_allowed_addresses=frozenset({"127.0.0.1", "::1"}), max_released_total_bytes=1000
    )
    findings = fetch_released(
        items, tmp_path / "in", tmp_path / "cache", "adapter.yaml", limits, sleep=lambda _: None
    )
    assert [f.code for f in findings] == [Code.RELEASED_DATA_UNAVAILABLE] * 2
    assert "1000-byte limit for all of adapter.yaml's released data" in findings[-1].message
    written = sum(p.stat().st_size for p in (tmp_path / "cache").rglob("*") if p.is_file())
    assert written <= 1000

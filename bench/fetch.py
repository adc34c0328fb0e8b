"""Benchmark the raw-log fetch (bot/edges/fetch.py) on a 1 GiB file against `sha256sum`; prints
figures.

    python bench/fetch.py [--mib 1024] [--keep-file PATH]

Writes a file of --mib MiB (seeded random bytes), serves it from a local HTTP server (`python -m
http.server`, its own process), and in a fresh child process checks it with
`bot.edges.fetch.check_raw_log_url` as `claims verify --fetch-raw-logs` does (sha256, size, 1 MB
head and tail excerpts; the loopback address allowed through `Limits.fetch_allowed_addresses`, as
the tests' servers are). Then runs `sha256sum` on the same file (read from the page cache, as the
server reads it). For each: wall time, throughput, CPU time and peak RSS of that child (`os.wait4`).
Targets (issue 13): fetch throughput >= 0.5x sha256sum's, peak RSS <= 100 MB.
"""

from __future__ import annotations

import argparse
import hashlib
import os
import random
import socket
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
EXCERPT = 1_000_000

CHECK = """
import sys
from bot.vocab.config import Limits
from bot.edges.fetch import check_raw_log_url
url, sha256, size, head, tail = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4], sys.argv[5]
limits = Limits(fetch_allowed_addresses=frozenset({"127.0.0.1"}), fetch_deadline=3600.0)
findings = check_raw_log_url(
    url, sha256=sha256, size=size, head=open(head, "rb").read(), tail=open(tail, "rb").read(),
    file="attempt.yaml", limits=limits,
)
print([f.message for f in findings])
sys.exit(1 if findings else 0)
"""


def write_file(path: Path, mib: int) -> str:
    """`mib` MiB of seeded random bytes (1 MiB blocks); return their sha256."""
    rng = random.Random(13)
    digest = hashlib.sha256()
    with path.open("wb") as out:
        for _ in range(mib):
            block = rng.randbytes(2**20)
            digest.update(block)
            out.write(block)
    return digest.hexdigest()


def child(argv: list[str]) -> tuple[float, float, float, int, bytes]:
    """(wall s, CPU s, peak RSS bytes, exit status, output) of argv run in a fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=ROOT)
    assert process.stdout is not None
    output = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    process.returncode = os.waitstatus_to_exitcode(status)
    wall = time.perf_counter() - started
    cpu = usage.ru_utime + usage.ru_stime
    return wall, cpu, usage.ru_maxrss * 1024, process.returncode, output


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
        return port


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--mib", type=int, default=1024)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as folder:
        served = Path(folder) / "harness.log"
        sha256 = write_file(served, args.mib)
        size = served.stat().st_size
        with served.open("rb") as log:
            (Path(folder) / "head").write_bytes(log.read(EXCERPT))
            log.seek(size - EXCERPT)
            (Path(folder) / "tail").write_bytes(log.read())
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", "--bind", "127.0.0.1", str(port)],
            cwd=folder,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            for _ in range(100):  # wait for the server to listen
                with socket.socket() as probe:
                    if probe.connect_ex(("127.0.0.1", port)) == 0:
                        break
                time.sleep(0.1)
            url = f"http://127.0.0.1:{port}/harness.log"
            excerpts = [str(Path(folder) / "head"), str(Path(folder) / "tail")]
            check = [sys.executable, "-c", CHECK, url, sha256, str(size), *excerpts]
            fetch = child(check)
            summed = child(["sha256sum", str(served)])
        finally:
            server.terminate()
            server.wait()
    mib = size / 2**20
    print(f"file: {mib:,.0f} MiB served by python -m http.server on 127.0.0.1")
    for label, (wall, cpu, rss, status, output) in (
        ("bot.edges.fetch.check_raw_log_url", fetch),
        ("sha256sum", summed),
    ):
        print(
            f"{label:28} {wall:6.2f} s wall  {mib / wall:7.0f} MiB/s  {cpu:6.2f} s CPU"
            f"  peak RSS {rss / 2**20:5.0f} MiB  exit {status}"
        )
        if label != "sha256sum":
            print(f"    findings: {output.decode().strip()}")
    ratio = (mib / fetch[0]) / (mib / summed[0])
    print(f"throughput fetch / sha256sum: {ratio:.2f}x   (target >= 0.5x)")
    print(f"fetch peak RSS: {fetch[2] / 1e6:.0f} MB   (target <= 100 MB)")


if __name__ == "__main__":
    main()

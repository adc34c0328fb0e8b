"""The pin jobs' costs (issue 22, part 1); prints figures, asserts nothing but what it says.

    python bench/pins.py [--mib 256] [--content random|acgt]

Writes a raw log of --mib MiB (seeded random bytes, or with `--content acgt` seeded random
letters A, C, G and T: zlib's worst case, each byte with many short earlier matches), serves
it from a local HTTP server (`python -m http.server`, its own process) and, each in a fresh
child process:

1. fetch: `PinFetch(DIR, keep_files=True).raw_log` as the close's pin job runs it
   (`claims verify --fetch-raw-logs --pin-results DIR --keep-pins`): wall time, throughput,
   peak RSS, the record's bytes;
2. count: `PinFetch(DIR, recorded_only=True).raw_log` as the close job counts it (the kept
   file is re-hashed): wall time, peak RSS;
3. archive: `Git.archive` of a one-file tag with the kept file as `pins/sha256/HEX`, twice:
   wall time, peak RSS, the tarball's bytes, and whether the two tarballs are identical.
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

FETCH = """
import sys
from pathlib import Path
from bot.vocab.config import Limits
from bot.app.pins import PinFetch
url, sha256, size, folder, mode = sys.argv[1:6]
size = int(size)
limits = Limits(fetch_allowed_addresses=frozenset({"127.0.0.1"}), fetch_deadline=3600.0)
pins = PinFetch(Path(folder), recorded_only=mode == "count", keep_files=mode == "fetch")
found = pins.raw_log(url, sha256=sha256, size=size, head=None, tail=None, file="attempt.yaml",
                     limits=limits)
print([f.code.value for f in found])
"""

ARCHIVE = """
import sys
from pathlib import Path
import git
from bot.faces.jobs.gitops import Git
repo_path, body, sha256, target = sys.argv[1:5]
repo = git.Repo(repo_path)
Git(repo, "main").archive("snapshot-2027-06-30", {"pins/manifest.json": b"{}\\n"}, Path(target),
                          files={f"pins/sha256/{sha256}": Path(body)})
"""


def write_file(path: Path, mib: int, content: str = "random") -> str:
    rng = random.Random(22)
    digest = hashlib.sha256()
    letters = bytes.maketrans(bytes(range(256)), b"ACGT" * 64)
    with path.open("wb") as out:
        for _ in range(mib):
            block = rng.randbytes(2**20)
            if content == "acgt":
                block = block.translate(letters)
            digest.update(block)
            out.write(block)
    return digest.hexdigest()


def child(argv: list[str]) -> tuple[float, int, bytes]:
    """(wall s, peak RSS bytes, stdout) of argv run in a fresh process."""
    started = time.perf_counter()
    process = subprocess.Popen(argv, stdout=subprocess.PIPE, cwd=ROOT)
    assert process.stdout is not None
    out = process.stdout.read()
    _, status, usage = os.wait4(process.pid, 0)
    wall = time.perf_counter() - started
    if os.waitstatus_to_exitcode(status) != 0:
        raise SystemExit(f"{argv[:3]} failed")
    return wall, usage.ru_maxrss * 1024, out


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--mib", type=int, default=256)
    parser.add_argument("--content", choices=("random", "acgt"), default="random")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="bench-pins-") as scratch:
        work = Path(scratch)
        served = work / "served"
        served.mkdir()
        log = served / "harness.log"
        sha256 = write_file(log, args.mib, args.content)
        size = log.stat().st_size
        port = free_port()
        server = subprocess.Popen(
            [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1"],
            cwd=served,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.DEVNULL,
        )
        try:
            time.sleep(1.0)
            url = f"http://127.0.0.1:{port}/harness.log"
            pins = work / "pins"
            argv = [sys.executable, "-c", FETCH, url, sha256, str(size), str(pins)]
            wall, rss, out = child([*argv, "fetch"])
            print(
                f"fetch+keep {args.mib} MiB: {wall:.2f} s, {size / wall / 2**20:.0f} MiB/s,"
                f" peak RSS {rss / 2**20:.0f} MiB, findings {out.decode().strip()}"
            )
            (record,) = pins.glob("*.json")
            print(f"record: {record.stat().st_size} bytes")
            wall, rss, out = child([*argv, "count"])
            print(
                f"count (re-hash the kept file): {wall:.2f} s, peak RSS {rss / 2**20:.0f} MiB,"
                f" findings {out.decode().strip()}"
            )
        finally:
            server.terminate()
            server.wait()
        import git

        repo = git.Repo.init(work / "repo", initial_branch="main")
        (work / "repo" / "README").write_text("registry\n")
        repo.index.add(["README"])
        repo.index.commit("one file")
        repo.create_tag("snapshot-2027-06-30", message="snapshot")
        tarballs = []
        for name in ("one", "two"):
            target = work / f"{name}.tar.gz"
            wall, rss, _ = child(
                [
                    sys.executable,
                    "-c",
                    ARCHIVE,
                    str(work / "repo"),
                    str(pins / "sha256" / sha256),
                    sha256,
                    str(target),
                ]
            )
            tarballs.append(target)
            print(
                f"archive with the pin ({name}): {wall:.2f} s,"
                f" {size / wall / 2**20:.1f} MiB/s, peak RSS {rss / 2**20:.0f} MiB,"
                f" {target.stat().st_size} bytes"
            )
        same = tarballs[0].read_bytes() == tarballs[1].read_bytes()
        print(f"the two tarballs are {'identical' if same else 'DIFFERENT'}")


if __name__ == "__main__":
    main()

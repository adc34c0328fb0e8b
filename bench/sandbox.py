"""Benchmark the adapter sandbox; prints figures, asserts nothing.

    python bench/sandbox.py

Figures: the overhead of one honest run (copy released/trials.jsonl to out/) in the sandbox
over the same script run directly (median of 5 each), then, for each hostile adapter, how the
run ended and how long it took to be stopped. Needs bubblewrap (see `isolation()`); without
it, prints why and exits.
"""

from __future__ import annotations

import shutil
import statistics
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

from bot.edges.sandbox import SandboxLimits, isolation, run_adapter
from bot.edges.sandbox.command import SYSTEM_PYTHON

HONEST = """
import shutil, sys
shutil.copyfile(sys.argv[1], "out/trials.jsonl")
"""

HOSTILE: list[tuple[str, str, SandboxLimits]] = [
    (
        "connect to 192.0.2.1:80",
        "import socket\nsocket.create_connection(('192.0.2.1', 80), timeout=2)\n",
        SandboxLimits(),
    ),
    (
        "read /root/.bashrc",
        "open('/root/.bashrc').read()\n",
        SandboxLimits(),
    ),
    (
        "fork bomb (processes=32)",
        "import os\nwhile True:\n    os.fork()\n",
        SandboxLimits(processes=32, wall_seconds=10),
    ),
    (
        "fork bomb ignoring EAGAIN (processes=32, wall 5 s)",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        SandboxLimits(processes=32, wall_seconds=5),
    ),
    ("allocate 8 GiB", "hog = bytearray(8 << 30)\n", SandboxLimits()),
    (
        "write a 10 GB file (file_bytes=16 MiB)",
        "chunk = b'x' * (1 << 20)\nwith open('out/big', 'wb') as f:\n"
        "    for _ in range(10240):\n        f.write(chunk)\n",
        SandboxLimits(file_bytes=16 << 20),
    ),
    ("busy loop (cpu_seconds=2)", "while True:\n    pass\n", SandboxLimits(cpu_seconds=2)),
    (
        "sleep forever (wall_seconds=2)",
        "import time\nwhile True:\n    time.sleep(1)\n",
        SandboxLimits(wall_seconds=2),
    ),
    (
        "print 100 MB to stdout",
        "import sys\nblock = 'x' * (1 << 20)\nfor _ in range(100):\n    sys.stdout.write(block)\n",
        SandboxLimits(),
    ),
    (
        "write 10,000 files (output_files=50)",
        "for i in range(10000):\n    open(f'out/{i}', 'w').close()\n",
        SandboxLimits(),
    ),
    (
        "plant out/trials.jsonl -> /etc/passwd",
        "import os\nos.symlink('/etc/passwd', 'out/trials.jsonl')\n",
        SandboxLimits(),
    ),
]


def folders(root: Path, script: str) -> tuple[Path, Path, Path]:
    code, inputs, output = root / "adapter", root / "inputs", root / "out"
    shutil.rmtree(root, ignore_errors=True)
    for folder in (code, inputs / "released", output):
        folder.mkdir(parents=True)
    (code / "convert.py").write_text(textwrap.dedent(script))
    (inputs / "released" / "trials.jsonl").write_text('{"case_id": "c1"}\n' * 1000)
    return code, inputs, output


def main() -> None:
    reason = isolation()
    if reason is not None:
        print(f"no sandbox here: {reason}")
        return
    with tempfile.TemporaryDirectory(prefix="bench-sandbox-") as scratch:
        root = Path(scratch) / "run"
        sandboxed, direct = [], []
        python = str(SYSTEM_PYTHON if SYSTEM_PYTHON.is_file() else sys.executable)
        for _ in range(5):
            code, inputs, output = folders(root, HONEST)
            started = time.perf_counter()
            result = run_adapter(
                ["python", "convert.py", "released/trials.jsonl"],
                code=code,
                inputs=inputs,
                output=output,
            )
            sandboxed.append(time.perf_counter() - started)
            assert result.status == "ok", result
            code, inputs, output = folders(root, HONEST)
            (code / "released").symlink_to(inputs / "released")
            (code / "out").symlink_to(output)
            started = time.perf_counter()
            subprocess.run([python, "convert.py", "released/trials.jsonl"], cwd=code, check=True)
            direct.append(time.perf_counter() - started)
        median, plain = statistics.median(sandboxed), statistics.median(direct)
        print(f"{'honest run in the sandbox (median of 5)':58} {median * 1000:8.1f} ms")
        print(f"{'the same script run directly (median of 5)':58} {plain * 1000:8.1f} ms")
        print(f"{'overhead':58} {(median - plain) * 1000:8.1f} ms")
        print()
        for label, script, limits in HOSTILE:
            code, inputs, output = folders(root, script)
            started = time.perf_counter()
            result = run_adapter(
                ["python", "convert.py"], code=code, inputs=inputs, output=output, limits=limits
            )
            elapsed = time.perf_counter() - started
            ending = f"{result.status}, limit {result.limit}: {result.reason}"
            print(f"{label:58} {elapsed:6.2f} s   {ending[:90]}")


if __name__ == "__main__":
    main()

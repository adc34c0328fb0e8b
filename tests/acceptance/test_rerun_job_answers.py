"""Every job answers per attempt: the scheduled rerun job (issue 21, the pattern closed).

The rerun job of close-windows.yml runs `claims verify --head COMMIT --rerun-adapters
--rerun-cache DIR --keep-rerun-failures ATTEMPT` on one wrapped attempt. Whatever the filer's
files do (the adapter crashes, writes garbage or too much, cannot be started, the released
data cannot be fetched), the job must answer for that attempt: exit 0 or 1, no traceback, and
a record in DIR the close job counts, so that no filer's files stop the job (exit 2) and
leave its market without a result. On 611a91f an unstartable command (a NUL in an argument)
raised inside the sandbox and the job exited 2, recording nothing.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import bot.edges.sandbox
from bot.faces.demo.specimen import AttemptSpec
from tests.support import Files, RegistryFactory, rerun_job_argv, seed_released

WRAPPED = AttemptSpec(kind="wrapped")
needs_sandbox = pytest.mark.skipif(
    bot.edges.sandbox.isolation() is not None,
    reason=f"no network isolation here: {bot.edges.sandbox.isolation()}",
)


def _script(source: str) -> Callable[[Files], None]:
    def change(files: Files) -> None:
        files["adapter/convert.py"] = source.encode()

    return change


def _command(old: bytes, new: bytes) -> Callable[[Files], None]:
    def change(files: Files) -> None:
        text = files["adapter/adapter.yaml"]
        assert old in text
        files["adapter/adapter.yaml"] = text.replace(old, new)

    return change


# What a filer's files can do to a rerun, and the reason code its record must hold.
TRICKS: dict[str, tuple[Callable[[Files], None], str]] = {
    "adapter-crashes": (_script("raise SystemExit('no header row')\n"), "adapter-failed"),
    "garbage-output": (
        _script(
            "import os\nos.makedirs('out', exist_ok=True)\n"
            "open('out/trials.jsonl', 'wb').write(b'\\xff\\xfe{not json\\n' * 1000)\n"
            "open('out/freeze-cases.jsonl', 'wb').write(b'[1, 2, {\\n')\n"
        ),
        "adapter-mismatch",
    ),
    "deep-nesting-output": (
        _script(
            "open('out/trials.jsonl', 'w').write('[' * 100000 + ']' * 100000 + '\\n')\n"
            "open('out/freeze-cases.jsonl', 'w').write('{}\\n')\n"
        ),
        "adapter-mismatch",
    ),
    "huge-output": (
        _script(
            "chunk = b'x' * (1 << 20)\nwith open('out/trials.jsonl', 'wb') as out:\n"
            "    while True:\n        out.write(chunk)\n"
        ),
        "adapter-failed",
    ),
    "symlink-output": (
        _script("import os\nos.symlink('/etc/passwd', 'out/trials.jsonl')\n"),
        "adapter-failed",
    ),
    "nul-in-command": (
        _command(b"- convert.py", b'- "convert.py\\0--skip-check"'),
        "adapter-failed",
    ),
    "missing-program": (
        _command(b"- python\n", b"- no-such-interpreter\n"),
        "adapter-failed",
    ),
}


@needs_sandbox
@pytest.mark.parametrize("trick", sorted(TRICKS))
def test_the_rerun_job_answers_for_the_attempt_whatever_its_files_do(
    trick: str, make_registry: RegistryFactory, run_claims: Any, tmp_path: Path
) -> None:
    change, code = TRICKS[trick]
    built = make_registry(WRAPPED, change=change)
    released, results = tmp_path / "released", tmp_path / "rerun-cache"
    seed_released(released, built.files)
    head, attempt = built.repo.head.commit.hexsha, built.root / WRAPPED.folder
    result = run_claims(*rerun_job_argv(built.root, head, attempt, results, released, quiet=False))
    assert result.code in (0, 1), result.err
    # (an adapter's own traceback may be quoted inside a finding, never the bot's at a line start)
    assert not re.search(r"^Traceback", result.err + result.out, re.MULTILINE)
    (attempt,) = result.report["attempts"]
    codes = {reason["code"] for reason in attempt["reasons"]}
    assert code in codes, attempt["reasons"]
    (kept,) = results.glob("*.json")  # recorded: the close job counts it
    assert code in {finding["code"] for finding in json.loads(kept.read_text())["findings"]}

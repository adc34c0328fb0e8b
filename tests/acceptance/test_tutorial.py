"""Issue 11, item 5 and issue 23: docs/tutorial.md is replayed, command for command.

The tutorial is this test's source: its fenced `sh` blocks run in order in one bash session
(in an empty temporary folder, with this interpreter's `claims` and `python` first on PATH),
so a command the page shows that stops working fails here, and the page cannot drift from
the bot. A block fenced `sh exit=N` must exit with N; every other block must succeed.

Issue 23: the page goes from `claims init` to a QUALIFYING attempt on the demo's open market
(market 7, which `claims demo --today` opens), with the maintainers' judgments recorded, and
the filer writes no program but the evaluation: every value is filled by a `claims` command.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from pathlib import Path

from tests.support import PROJECT

TUTORIAL = PROJECT / "docs" / "tutorial.md"
_FENCE = re.compile(r"^```sh(?P<info>[^\n]*)\n(?P<body>.*?)^```\s*$", re.MULTILINE | re.DOTALL)
_MARK = "@@tutorial-block"
_HUMAN_CHECKS = {"reconstructible", "per-instance-certificate", "not-toy-only", "broadly-capable"}


def blocks(text: str) -> list[tuple[str, int]]:
    """The `sh` blocks of a Markdown text in order, with the exit code each must give."""
    found = []
    for match in _FENCE.finditer(text):
        info = match.group("info").strip()
        code = re.fullmatch(r"exit=(\d+)", info)
        assert info == "" or code, f"unknown fence info {info!r}"
        found.append((match.group("body"), int(code.group(1)) if code else 0))
    return found


def script(parts: list[tuple[str, int]]) -> str:
    """One bash script: each block announced by a marker line; a block expected to fail runs
    in a subshell (so it may not change the folder or variables) and must fail as said."""
    lines = ["set -euo pipefail"]
    for number, (body, code) in enumerate(parts):
        lines.append(f"echo '{_MARK} {number}'")
        if code == 0:
            lines.append(body)
            continue
        lines += [
            "set +e",
            f"( set -e\n{body})",
            "status=$?",
            "set -e",
            f'[ "$status" -eq {code} ] || {{ echo "block {number} exited $status, not {code}";'
            " exit 99; }",
        ]
    lines.append(f"echo '{_MARK} end'")
    return "\n".join(lines) + "\n"


def test_the_tutorial_blocks_are_found() -> None:
    parts = blocks(TUTORIAL.read_text(encoding="utf-8"))
    commands = " ".join(body for body, _ in parts)
    for command in (
        "claims demo --keep reg --today",
        "claims init --market 7",
        "--set method.name=",
        "claims hash-cases",
        "GIT_COMMITTER_NAME=GitHub GIT_COMMITTER_EMAIL=noreply@github.com",
        "claims pin-log",
        "claims scores",
        "claims verify --base-ref main",
        "claims explain",
        "judgments.yaml",
    ):
        assert command in commands, command
    assert [code for _, code in parts].count(1) == 1  # claims explain, with the human checks


def test_the_filer_writes_no_program_but_the_evaluation() -> None:
    """Issue 23: no market written by hand, no script filling in values; the one program
    the page writes is the evaluation (its cases, and its run)."""
    parts = blocks(TUTORIAL.read_text(encoding="utf-8"))
    commands = "\n".join(body for body, _ in parts)
    written = re.findall(r"^cat > (\S+) <<", commands, re.M)
    assert written == ["monitor_eval.py", "$A/judgments.yaml"], written
    assert "python -" not in commands and "python3" not in commands
    assert "markets/" not in commands.replace("markets/market-07.yaml", "")
    run = re.findall(r"^python (\S+)", commands, re.M)
    assert set(run) == {"monitor_eval.py"}, run


def test_the_tutorial_replays_to_valid_with_only_the_human_checks_left(tmp_path: Path) -> None:
    parts = blocks(TUTORIAL.read_text(encoding="utf-8"))
    environment = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "GIT_CONFIG_GLOBAL": os.devnull,
        "GIT_CONFIG_NOSYSTEM": "1",
    }
    for name in ("GIT_COMMITTER_NAME", "GIT_COMMITTER_EMAIL", "GIT_AUTHOR_DATE", "CLAIMS_CACHE"):
        environment.pop(name, None)
    done = subprocess.run(
        ["bash", "-c", script(parts)],
        cwd=tmp_path,
        env=environment,
        capture_output=True,
        text=True,
        check=False,
        timeout=120,
    )
    output = done.stdout
    assert done.returncode == 0, output[-4000:] + done.stderr[-3000:]
    assert f"{_MARK} end" in output
    said = dict(re.findall(rf"^{_MARK} (\S+)\n(.*?)(?=^{_MARK} )", output, re.M | re.S))

    def output_of(command: str) -> str:
        """What the last block running `command` (a whole line of it) printed."""
        [*_, number] = [
            n for n, (body, _) in enumerate(parts) if command in body.strip().splitlines()
        ]
        return said[str(number)]

    demo = output_of("claims demo --keep reg --today")
    assert "demo OK" in demo and "Market 7 is open for filing" in demo
    market = output_of(
        "grep -E '^(id|title|resolve_by|adversarial_budget):' markets/market-07.yaml"
    )
    assert "id: 7" in market and "adversarial_budget: default" in market, market
    # init fills the freeze's values: only attempt.yaml's placeholders are left.
    first_init = next(n for n, (body, _) in enumerate(parts) if "claims init --market 7" in body)
    initialised = said[str(first_init)]
    assert "still FILL-IN: attempt.yaml: title," in initialised, initialised
    assert "freeze.yaml:" not in initialised.split("still FILL-IN:")[1]
    assert "# Units: trials that share a value of any unit key" in initialised
    freeze_check = output_of("claims verify --base-ref main --head HEAD")
    assert "VALID    attempts/market-07/my-lab/first-monitor" in freeze_check, freeze_check
    assert "freeze-only" in freeze_check
    # The run pull request, checked against main, and the merged attempt on main: VALID.
    run_check = output_of("claims verify --base-ref main")
    assert "VALID    attempts/market-07/my-lab/first-monitor" in run_check, run_check
    assert "PENDING-JUDGMENT" in run_check and "INVALID" not in run_check
    # The merged run, on main: explain shows only the human checks missing.
    explained = output_of_block(parts, said, "claims explain $A", first=True)
    marked = re.findall(r"^(ok|missing|fails)\s+(\S+)\s+(.+)$", explained, re.M)
    assert len(marked) > 15, explained
    not_ok = {(kind, text) for mark, kind, text in marked if mark != "ok"}
    assert not_ok == {
        ("attempt", next(t for _, k, t in marked if k == "attempt")),
        ("total", next(t for _, k, t in marked if k == "total")),
        *{("check", f"human check '{check}': missing") for check in _HUMAN_CHECKS},
    }, explained
    assert "pending-judgment" in next(t for _, k, t in marked if k == "attempt")
    assert {kind for _, kind, _ in marked} >= {"bar", "floor", "adversarial", "date", "units"}
    # After the maintainers' judgments: QUALIFYING, and every line of explain is ok.
    final = output_of_block(parts, said, "claims explain $A", first=False)
    assert "QUALIFYING" in final or "qualifying" in final, final
    marked = re.findall(r"^(ok|missing|fails)\s+(\S+)\s+(.+)$", final, re.M)
    assert len(marked) > 15 and all(mark == "ok" for mark, _, _ in marked), final
    assert "not-qualifying" not in final and "pending-judgment" not in final, final
    assert "1 attempt(s): 1 valid, 0 invalid" in final


def output_of_block(
    parts: list[tuple[str, int]], said: dict[str, str], command: str, first: bool
) -> str:
    """What the first (or last) block running `command` (a whole line of it) printed."""
    numbers = [n for n, (body, _) in enumerate(parts) if command in body.strip().splitlines()]
    return said[str(numbers[0] if first else numbers[-1])]

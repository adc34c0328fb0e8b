"""`claims score weirdml-v3` (bot/faces/tools/score.py) and its committed example log."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from bot.faces.cli import main

PROJECT = Path(__file__).resolve().parents[4]
EXAMPLE = PROJECT / "examples" / "weirdml-v3" / "log.jsonl"
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def _run(capsys: pytest.CaptureFixture[str], *args: str | Path) -> tuple[int, str, str]:
    code = main(["score", "weirdml-v3", *map(str, args)])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


def test_the_example_log_is_what_its_script_generates(tmp_path: Path) -> None:
    out = tmp_path / "log.jsonl"
    subprocess.run(
        [sys.executable, str(PROJECT / "examples" / "generate_weirdml_v3.py"), str(out)],
        check=True,
        capture_output=True,
    )
    assert out.read_bytes() == EXAMPLE.read_bytes()


def test_prints_each_task_and_the_mean(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = _run(capsys, EXAMPLE)
    assert (code, err) == (0, "")
    rows = {line.split()[0]: line.split()[1:] for line in out.splitlines()[1:]}
    assert rows["early"] == ["0.500", "0.800", "0.560"]
    assert rows["late"] == ["0.319", "0.800", "0.416"]
    assert out.splitlines()[0].split() == ["task", "area", "final", "best", "score"]
    assert list(rows) == ["early", "late", "hints", "mean"]


def test_the_docs_worked_example_shows_what_the_cli_prints(
    capsys: pytest.CaptureFixture[str],
) -> None:
    _, out, _ = _run(capsys, EXAMPLE)
    docs = (PROJECT / "docs" / "scorers.md").read_text(encoding="utf-8")
    assert out in docs


def test_json_output(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "out" / "scores.json"
    code, _, _ = _run(capsys, EXAMPLE, "--json", target)
    assert code == 0
    data = json.loads(target.read_text(encoding="utf-8"))
    assert list(data) == ["tasks", "mean"]
    assert list(data["tasks"]) == ["early", "late", "hints"]
    assert set(data["tasks"]["early"]) == {"area", "final_best", "score"}
    assert data["tasks"]["early"]["area"] == pytest.approx(0.5, abs=1e-12)
    assert data["tasks"]["late"]["score"] == pytest.approx(0.415506, abs=1e-6)
    # hints: 0.3 from 500k (before 500k counts from 500k), x0.9 after the hint: 0.63 from 4M,
    # 0.81 from 12M; the 1.0 after 50M is ignored.
    hints = data["tasks"]["hints"]
    assert hints["final_best"] == pytest.approx(0.81, abs=1e-12)
    area = (0.3 * 0.90309 + 0.63 * 0.477121 + 0.81 * 0.619789) / 2
    assert hints["area"] == pytest.approx(area, abs=1e-6)
    scores = [task["score"] for task in data["tasks"].values()]
    assert data["mean"] == pytest.approx(sum(scores) / 3, abs=1e-12)
    assert not list(target.parent.glob(".*.tmp"))


def test_plot_writes_a_png(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    target = tmp_path / "curves.png"
    code, _, _ = _run(capsys, EXAMPLE, "--plot", target)
    assert code == 0
    data = target.read_bytes()
    assert data.startswith(PNG_SIGNATURE)
    assert len(data) > 1000


def test_a_bad_log_exits_1_with_file_line_and_field(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text(
        '{"task": "t1", "tokens": 1, "event": "submission", "score": 0.5}\n'
        '{"task": "t1", "tokens": 2, "event": "submission", "score": 1.5}\n'
    )
    target = tmp_path / "scores.json"
    code, out, err = _run(capsys, log, "--json", target)
    assert code == 1
    assert out == ""
    assert err == f"{log}:2: score: got number 1.5, expected a number from 0 to 1\n"
    assert not target.exists()


def test_a_fourth_browsing_exits_1_naming_its_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "browse.jsonl"
    line = '{{"task": "t", "tokens": {}, "event": "browse"}}\n'
    log.write_text("".join(line.format(n) for n in (1, 2, 3, 4)))
    code, _, err = _run(capsys, log)
    assert code == 1
    assert err.startswith(f"{log}:4: event: a fourth hint browsing of task 't'")


def test_an_eleventh_submission_exits_1_naming_its_line_unless_allowed(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "eleven.jsonl"
    line = '{{"task": "t", "tokens": {}, "event": "submission", "score": 0.5}}\n'
    log.write_text("".join(line.format(n) for n in range(1, 12)))
    code, out, err = _run(capsys, log)
    assert (code, out) == (1, "")
    assert err == f"{log}:11: event: submission 11 of task 't': at most 10 submissions per task\n"
    code, out, _ = _run(capsys, log, "--max-submissions", "11")
    assert code == 0 and out.startswith("task")


def test_bytes_that_are_not_utf8_exit_1_with_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    log = tmp_path / "latin1.jsonl"
    log.write_bytes(b'{"task": "t", "tokens": 1, "event": "browse"}\n{"task": "caf\xe9"}\n')
    code, _, err = _run(capsys, log)
    assert code == 1
    assert err.startswith(f"{log}:2: not UTF-8 text")


def test_a_missing_log_is_a_usage_error(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = _run(capsys, tmp_path / "nope.jsonl")
    assert code == 2
    assert "cannot read" in err


@pytest.mark.parametrize(
    "argv",
    [["score"], ["score", "weirdml-v3"], ["score", "weirdml-v2", "x.jsonl"], ["score", "--x"]],
)
def test_usage_errors_exit_2(argv: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(argv)
    assert caught.value.code == 2
    assert "usage:" in capsys.readouterr().err


def test_the_installed_command_prints_no_traceback_and_skips_matplotlib(tmp_path: Path) -> None:
    log = tmp_path / "bad.jsonl"
    log.write_text('{"task": "t", "tokens": 1, "event": "submission", "score": NaN}\n')
    probe = (
        "import sys; from bot.faces.cli import main; code = main(sys.argv[1:]);"
        " assert 'matplotlib' not in sys.modules; sys.exit(code)"
    )
    for argv, expected in (([str(log)], 1), ([str(EXAMPLE)], 0)):
        done = subprocess.run(
            [sys.executable, "-c", probe, "score", "weirdml-v3", *argv],
            capture_output=True,
            text=True,
            env={**os.environ, "PYTHONPATH": str(PROJECT)},
        )
        assert done.returncode == expected, done.stderr
        assert "Traceback" not in done.stderr
    assert done.stdout.startswith("task")

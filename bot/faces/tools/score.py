"""`claims score weirdml-v3 LOG.jsonl [--json OUT] [--plot PNG] [--max-submissions N]`.

The shell around the pure scorer (bot/rules/scorers/weirdml_v3.py): read the log, print each task's
area, final best and official score and their mean, and write the JSON and the plot
atomically. Exit 0 scored, 1 the log is refused (`LOG:LINE: field: message`, nothing
written), 2 usage or environment (a file that cannot be read or written).
"""

from __future__ import annotations

import argparse
import io
import json
import sys
from pathlib import Path

from bot.faces.report.text import printable
from bot.rules.scorers.weirdml_v3 import (
    MAX_SUBMISSIONS,
    LogScore,
    WeirdmlLogError,
    read_log,
    score_log,
)
from bot.vocab.config import Limits

__all__ = ["add_score_parser", "log_json", "render_scores", "run_score"]

EXIT_DONE, EXIT_REFUSED = 0, 1


def add_score_parser(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    score = commands.add_parser(
        "score",
        help="score an operator's log with a built-in scorer (weirdml-v3)",
        description="Score a log with one of the built-in operator scorers (docs/spec.md §11).",
    )
    scorers = score.add_subparsers(dest="scorer", required=True, metavar="SCORER")
    weirdml = scorers.add_parser(
        "weirdml-v3",
        help="WeirdML v3: area under the best-so-far curve plus the final best",
        description="Read a WeirdML v3 event log (one JSON object a line: submission, browse"
        " or hint, with the task's cumulative tokens) and print each task's area under the"
        " best-so-far curve (log10 tokens, 500k to 50M), final best and official score"
        " (0.8 x area + 0.2 x final best), and their mean. Exit 1 when the log is refused.",
    )
    json_help = 'write {"tasks": {TASK: {"area", "final_best", "score"}}, "mean"} here'
    for flags, metavar, text in (
        (["log"], "LOG.jsonl", "the event log"),
        (["--json"], "OUT", json_help),
        (["--plot"], "PNG", "plot the best-so-far curves to this PNG"),
    ):
        weirdml.add_argument(*flags, type=Path, metavar=metavar, help=text)
    weirdml.add_argument(
        "--max-submissions",
        type=_positive,
        default=MAX_SUBMISSIONS,
        metavar="N",
        help="submissions allowed per task; a log with more is refused (default:"
        f" {MAX_SUBMISSIONS}, the seed's; a challenge run may set its own in run.yaml"
        " scorer_settings.max_submissions)",
    )


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"got {text!r}, expected a positive integer") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"got {value}, expected a positive integer")
    return value


def run_score(args: argparse.Namespace) -> int:
    """`claims score weirdml-v3`. `ClaimsError` propagates (the CLI prints it, exit 2)."""
    from bot.edges.writes import read_capped, write_atomic

    raw = read_capped(args.log, Limits().max_jsonl_bytes)
    try:
        limit = args.max_submissions
        scores = score_log(read_log(_text(raw), limit), limit)
    except WeirdmlLogError as error:
        print(printable(error.location(str(args.log))), file=sys.stderr)
        return EXIT_REFUSED
    if args.json:
        write_atomic(args.json, log_json(scores).encode("utf-8"))
    if args.plot:
        write_atomic(args.plot, _plot(scores))
    print(printable(render_scores(scores)), end="")
    return EXIT_DONE


def _text(raw: bytes) -> str:
    """The log as text; bytes that are not UTF-8 are refused with their line (exit 1)."""
    try:
        return raw.decode("utf-8")
    except UnicodeDecodeError as error:
        line = raw.count(b"\n", 0, error.start) + 1
        raise WeirdmlLogError(line, None, f"not UTF-8 text ({error.reason})") from None


def render_scores(scores: LogScore) -> str:
    """The table `claims score weirdml-v3` prints, three decimals as the seed shows them."""
    width = max([len("task"), len("mean"), *(len(task) for task in scores.tasks)])
    rows = [f"{'task':<{width}}  {'area':>6}  {'final best':>10}  {'score':>6}"]
    for task, result in scores.tasks.items():
        rows.append(
            f"{task:<{width}}  {result.area:>6.3f}  {result.final_best:>10.3f}"
            f"  {result.score:>6.3f}"
        )
    rows.append(f"{'mean':<{width}}  {'':>6}  {'':>10}  {scores.mean:>6.3f}")
    return "\n".join(rows) + "\n"


def log_json(scores: LogScore) -> str:
    """The --json document: full precision, tasks in the order they first appear."""
    tasks = {
        task: {"area": r.area, "final_best": r.final_best, "score": r.score}
        for task, r in scores.tasks.items()
    }
    return json.dumps({"tasks": tasks, "mean": scores.mean}, indent=2) + "\n"


def _plot(scores: LogScore) -> bytes:
    """The best-so-far curves as a PNG (matplotlib, headless; imported only here)."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    figure = Figure(figsize=(7, 4.5), dpi=100)
    axes = figure.add_subplot()
    for task, result in scores.tasks.items():
        tokens = [point[0] for point in result.curve]
        best = [point[1] for point in result.curve]
        axes.step(tokens, best, where="post", label=f"{task} (score {result.score:.3f})")
    axes.set_xscale("log")
    axes.set_xlim(5e5, 5e7)
    axes.set_ylim(0, 1.02)
    axes.set_xlabel("total tokens")
    axes.set_ylabel("best effective score so far")
    axes.set_title(f"WeirdML v3 best-so-far curves (mean score {scores.mean:.3f})")
    axes.grid(True, which="both", alpha=0.3)
    if len(scores.tasks) <= 12:
        axes.legend(loc="lower right", fontsize="small")
    buffer = io.BytesIO()
    figure.savefig(buffer, format="png", metadata={"Software": None})
    return buffer.getvalue()

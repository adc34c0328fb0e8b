"""The reports `claims verify` and `claims resolve` write on the demo registry, on the
specimen attempt with what the bars' meaning warnings look for, on bench/verify_scale.py's
attempt at 3,000 trials and on the adversarial corpus, and their digests (issue 25: a faster
verify keeps every report byte for byte).

    python -m tests.differential.reports --write     # goldens.json from this checkout's code
    python -m tests.differential.reports --out DIR   # every report in full, to diff two checkouts

Each report is the CLI's own output (`bot.faces.cli.main`, in this process): the exit code, the
JSON report, the Markdown report (verify) and the text printed. The folder a registry was
built in is replaced by `<root>` (the only part of a report that depends on where it ran).
Only what runs anywhere is included: no adapter rerun (the demo's scheduled job takes every
adapter as reproducing, as tests/acceptance/test_app.py does) and no corpus entry that needs
a server or the sandbox. goldens.json keeps a SHA-256 per report, not the reports (about a
megabyte in all); `--out` writes them whole.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import importlib.util
import io
import json
import tempfile
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import git

from bot.faces.cli import main
from bot.faces.demo.git_registry import build_git_registry
from bot.faces.demo.run import _with_schemas, close_on_schedule, examples_folder, load_plan
from bot.faces.report.markdown import escape
from bot.vocab.timestamps import parse_timestamp
from tests.adversarial.generate import CORPUS, Context, Entry, build
from tests.support import AS_OF, PROJECT, Files, RegistryFactory, records, rewrite

__all__ = [
    "CORPUS_ENTRIES",
    "DEMO_REPORTS",
    "GOLDENS",
    "SCALE",
    "SPECIMENS",
    "Demo",
    "Report",
    "corpus_reports",
    "demo_registry",
    "demo_reports",
    "load_goldens",
    "scale_report",
    "specimen_report",
]

GOLDENS = Path(__file__).with_name("goldens.json")
# What runs on any machine: no local server, no sandbox.
CORPUS_ENTRIES = [entry for entry in CORPUS if entry.needs is None]


@dataclass(frozen=True)
class Report:
    """One CLI run's outputs, the build folder replaced by `<root>`."""

    exit: int
    parts: dict[str, bytes]  # "json", "markdown", "text"

    def digests(self) -> dict[str, object]:
        return {
            "exit": self.exit,
            **{name: hashlib.sha256(data).hexdigest() for name, data in sorted(self.parts.items())},
        }


def run_cli(
    args: list[str], root: Path, markdown: bool = True, masks: Mapping[str, str] | None = None
) -> Report:
    """`claims ARGS --json FILE [--markdown FILE]` in this process; `masks`: more text to
    replace in its outputs, each by its mask."""
    with tempfile.TemporaryDirectory(prefix="claims-report-") as scratch:
        json_file, markdown_file = Path(scratch) / "report.json", Path(scratch) / "report.md"
        extra = ["--json", str(json_file)]
        extra += ["--markdown", str(markdown_file)] if markdown else []
        out, err = io.StringIO(), io.StringIO()
        with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
            code = main([*args, *extra])
        parts = {"text": (out.getvalue() + err.getvalue()).encode()}
        parts["json"] = json_file.read_bytes() if json_file.exists() else b""
        if markdown:
            parts["markdown"] = markdown_file.read_bytes() if markdown_file.exists() else b""
    # The resolved path too: macOS's /tmp is /private/tmp.
    folders = (str(root), str(root.resolve()))
    # The Markdown report escapes the folder's markup characters (`_` of a pytest folder).
    masks = {**(masks or {}), **{where: "<root>" for where in (*folders, *map(escape, folders))}}
    if "--head" in args:
        # A crafted pull request's commit is dated by the clock (tests/adversarial/generate.py
        # `_git`): its id is an input, masked whole and as the 12 digits reports show.
        head = args[args.index("--head") + 1]
        masks |= {head: "<head>", head[:12]: "<head12>"}
    for where, mask in sorted(masks.items(), key=lambda item: len(item[0]), reverse=True):
        parts = {name: data.replace(where.encode(), mask.encode()) for name, data in parts.items()}
    return Report(code, parts)


@dataclass(frozen=True)
class Demo:
    """The demo registry `demo_registry` built: its plan, the open pull request's head, and
    the masks of the commits the scheduled job made."""

    root: Path
    plan: dict[str, object]
    head: str
    masks: dict[str, str]


def demo_registry(root: Path) -> Demo:
    """Build the demo registry at `root` as `claims demo` does, with main checked out and the
    scheduled job's runs made (every adapter taken as reproducing)."""
    steps, plan = load_plan(examples_folder())
    repo = build_git_registry(root, _with_schemas(steps))
    head = repo.head.commit.hexsha  # the builder leaves the open pull request checked out
    repo.git.checkout("-q", "main")
    built = set(repo.git.rev_list("--all").split())
    repo.close()
    for moment in plan["close_on"]:
        at = parse_timestamp(moment)
        assert at is not None
        report = close_on_schedule(root, root / ".claims", at, lambda tree, files: [])
        assert not report.failed, report.render()
    # The job's commits hold the registry's URL (its folder), so their ids depend on where
    # it was built: masked, numbered in commit order.
    with git.Repo(root) as repo:
        made = [sha for sha in repo.git.rev_list("--all", "--reverse", "--topo-order").split()]
    masks: dict[str, str] = {}
    for number, sha in enumerate((sha for sha in made if sha not in built), start=1):
        masks |= {sha: f"<job-commit-{number}>", sha[:12]: f"<job-commit-{number}:12>"}
    return Demo(root, plan, head, masks)


# The demo's reports: (name, the arguments but `--registry ROOT`, markdown?); `{root}` and
# `{head}` (the open pull request's head commit) are filled in by `demo_reports`.
DEMO_REPORTS: list[tuple[str, list[str], bool]] = [
    ("verify-attempts", ["verify", "{root}/attempts"], True),
    ("verify-runs", ["verify", "{root}/challenge-runs"], True),
    ("verify-all", ["verify"], True),
    ("verify-pr", ["verify", "--base-ref", "main", "--head", "{head}"], True),
    ("verify-market-03", ["verify", "{root}/attempts/market-03"], True),
]


def demo_reports(demo: Demo) -> Iterator[tuple[str, Report]]:
    """Every demo report, by name, from the registry `demo_registry` built."""
    root, plan, head, masks = demo.root, demo.plan, demo.head, demo.masks
    as_of = str(plan["verify_as_of"])
    for name, args, markdown in DEMO_REPORTS:
        args = [arg.replace("{head}", head).replace("{root}", str(root)) for arg in args]
        full = [args[0], "--registry", str(root), *args[1:], "--as-of", as_of]
        yield f"demo/{name}", run_cli(full, root, markdown, masks)
    resolve_on = plan["resolve_on"]
    assert isinstance(resolve_on, list)
    for when in resolve_on:
        for quiet in ([], ["-q"]):
            args = ["resolve", "--registry", str(root), "--as-of", str(when)]
            args += ["--no-rerun-adapters", *quiet]
            name = f"demo/resolve-{when}{'-q' if quiet else ''}"
            yield name, run_cli(args, root, False, masks)
    for market in (3, 11):
        args = ["resolve", "--registry", str(root), "--as-of", str(resolve_on[-1])]
        args += ["--market", str(market), "--no-rerun-adapters"]
        yield f"demo/resolve-market-{market}", run_cli(args, root, False, masks)


def corpus_report(entry: Entry, out: Path) -> Report:
    """verify's report on one corpus entry, built under `out`."""
    case = build(entry, Context(out))
    args = [*case.args, *([] if "--as-of" in case.args else ["--as-of", AS_OF])]
    return run_cli(args, out)


def corpus_reports(out: Path) -> Iterator[tuple[str, Report]]:
    for entry in CORPUS_ENTRIES:
        yield f"corpus/{entry.name}", corpus_report(entry, out / entry.name)


def _false_safe_control(files: Files) -> None:
    """A control case's trial says `false_safe` (`verdict-outside-bar`)."""
    kinds = {case["case_id"]: case["kind"] for case in records(files, "freeze-cases.jsonl")}

    def edit(trials: list[dict[str, Any]]) -> None:
        for trial in [t for t in trials if kinds[t["case_id"]] == "control"][:2]:
            trial["result"]["verdict"] = "false_safe"

    rewrite(files, "trials.jsonl", edit)


def _unlabelled(files: Files) -> None:
    """Some trials lack a label the class-conditional counts need."""

    def edit(trials: list[dict[str, Any]]) -> None:
        del trials[1]["result"]["certificate"]
        trials[7]["result"]["certificate"] = None

    rewrite(files, "trials.jsonl", edit)


def _label_not_allowed(files: Files) -> None:
    """A truth label the AUROC bar reads is not one of the contract's values (`schema`)."""

    def edit(trials: list[dict[str, Any]]) -> None:
        trials[4]["result"]["truth"] = 1

    rewrite(files, "trials.jsonl", edit)


def _both(files: Files) -> None:
    _false_safe_control(files)
    _unlabelled(files)


# The specimen attempt, honest and with what the bars' meaning warnings look for (their
# scores.yaml derived from the edited trials).
SPECIMENS: dict[str, Callable[[Files], None] | None] = {
    "honest": None,
    "false-safe-control": _false_safe_control,
    "unlabelled": _unlabelled,
    "label-not-allowed": _label_not_allowed,
    "both": _both,
}
# bench/verify_scale.py's attempt (200 systems as units, an AUROC bar over one probe case per
# system, class-conditional counts) at this many cases and trials.
SCALE = 3000


def specimen_report(name: str, out: Path) -> Report:
    built = RegistryFactory(out)(before_scores=SPECIMENS[name])
    args = ["verify", "--registry", str(built.root), str(built.attempt), "--as-of", AS_OF]
    return run_cli(args, out)


def scale_report(out: Path) -> Report:
    where = PROJECT / "bench" / "verify_scale.py"
    spec = importlib.util.spec_from_file_location("verify_scale", where)
    assert spec is not None and spec.loader is not None
    bench = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(bench)
    attempt = bench.build(out, SCALE)
    root = attempt.parents[3]
    args = ["verify", "--registry", str(root), str(attempt), "--as-of", bench.AS_OF]
    return run_cli(args, out)


def load_goldens() -> dict[str, dict[str, object]]:
    goldens: dict[str, dict[str, object]] = json.loads(GOLDENS.read_text(encoding="utf-8"))
    return goldens


def _all(work: Path) -> Iterator[tuple[str, Report]]:
    root = work / "demo" / "registry"
    yield from demo_reports(demo_registry(root))
    for name in SPECIMENS:
        yield f"specimen/{name}", specimen_report(name, work / "specimen" / name)
    yield f"scale/{SCALE}", scale_report(work / "scale")
    yield from corpus_reports(work / "corpus")


def _main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--write", action="store_true", help=f"rewrite {GOLDENS.name}")
    parser.add_argument("--out", type=Path, help="write every report in full here")
    args = parser.parse_args()
    digests: dict[str, dict[str, object]] = {}
    with tempfile.TemporaryDirectory(prefix="claims-goldens-") as work:
        for name, report in _all(Path(work)):
            digests[name] = report.digests()
            print(name, report.exit, flush=True)
            if args.out:
                folder = args.out / name
                folder.mkdir(parents=True, exist_ok=True)
                (folder / "exit").write_text(f"{report.exit}\n")
                for part, data in report.parts.items():
                    (folder / part).write_bytes(data)
    if args.write:
        GOLDENS.write_text(json.dumps(digests, indent=1, sort_keys=True) + "\n", encoding="utf-8")


if __name__ == "__main__":
    _main()

"""Move bot/ into its layer packages (issue 24), or rewrite files to the new module names.

    python tools/relayout.py --move            # git mv every file, then rewrite every text file
    python tools/relayout.py --rewrite FILE..  # rewrite old module names and paths in FILEs

The rewrite is idempotent: it maps each old dotted name (`bot.gather`) and path
(`bot/gather.py`) to the new one, longest first, and leaves names already moved alone. Kept in
the tree for branches that started before the move.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

# old module or package -> new one. A package maps everything beneath it.
MOVES: dict[str, str] = {
    # the vocabulary: values and types every layer shares
    "bot.config": "bot.vocab.config",
    "bot.dates": "bot.vocab.dates",
    "bot.timestamps": "bot.vocab.timestamps",
    "bot.errors": "bot.vocab.errors",
    "bot.findings": "bot.vocab.findings",
    "bot.names": "bot.vocab.names",
    "bot.dump": "bot.edges.dump",
    "bot.load.document": "bot.vocab.document",
    "bot.load.values": "bot.vocab.values",
    # the rules: pure judging
    "bot.models": "bot.rules.models",
    "bot.verdict": "bot.rules.verdict",
    "bot.bars": "bot.rules.bars",
    "bot.judge": "bot.rules.judge",
    "bot.qualification": "bot.rules.qualification",
    "bot.records": "bot.rules.records",
    "bot.resolution": "bot.rules.resolution",
    "bot.review": "bot.rules.review",
    "bot.stats": "bot.rules.stats",
    "bot.evidence.models": "bot.rules.evidence.models",
    "bot.evidence.schema": "bot.rules.evidence.schema",
    "bot.evidence.rules": "bot.rules.evidence.rules",
    "bot.challenge.judge": "bot.rules.challenge.judge",
    "bot.challenge.rules": "bot.rules.challenge.rules",
    "bot.challenge.scorers": "bot.rules.challenge.scorers",
    "bot.scorers": "bot.rules.scorers",
    # the edges: files, git, network, sandbox, archives, GitHub
    "bot.tree": "bot.edges.tree",
    "bot.history": "bot.edges.history",
    "bot.fetch": "bot.edges.fetch",
    "bot.released": "bot.edges.released",
    "bot.load.folder": "bot.edges.load.folder",
    "bot.load.jsonl": "bot.vocab.jsonl",  # load_jsonl: bot.edges.load.records
    "bot.load.yaml_": "bot.edges.load.yaml_",
    "bot.sandbox": "bot.edges.sandbox",
    "bot.archive": "bot.edges.archive",
    "bot.github.port": "bot.edges.github.port",
    "bot.github.gateway": "bot.edges.github.gateway",
    "bot.tools.files": "bot.edges.writes",
    # the app: what every face calls
    "bot.app": "bot.app.api",
    "bot.gather": "bot.app.gather",
    "bot.cache": "bot.app.cache",
    "bot.rerun": "bot.app.rerun",
    "bot.pins": "bot.app.pins",
    "bot.explain": "bot.rules.explain",
    "bot.reports": "bot.rules.reports",
    "bot.registry": "bot.app.registry",
    "bot.evidence.compare": "bot.app.compare",
    "bot.challenge.read": "bot.app.challenge_read",
    "bot.report.json_": "bot.app.report_json",
    "bot.report.cap": "bot.app.report_cap",
    "bot.github.identity": "bot.app.identity",
    "bot.github.plan": "bot.app.matrix",
    "bot.jobs.records": "bot.app.resolutions",
    # the faces: entry points
    "bot.cli": "bot.faces.cli",
    "bot.help": "bot.faces.help",
    "bot.github": "bot.faces.github",
    "bot.jobs": "bot.faces.jobs",
    "bot.site": "bot.faces.site",
    "bot.adapters": "bot.faces.tools.adapters",
    "bot.tools": "bot.faces.tools",
    "bot.demo": "bot.faces.demo",
    "bot.report": "bot.faces.report",
    # packages emptied by the moves above
    "bot.load": "bot.edges.load",
    "bot.evidence": "bot.rules.evidence",
    "bot.challenge": "bot.rules.challenge",
}

# tests/unit mirrors bot/: old test path prefix -> new one
TEST_MOVES: dict[str, str] = {
    "tests/unit/stats": "tests/unit/rules/stats",
    "tests/unit/evidence": "tests/unit/rules/evidence",
    "tests/unit/challenge": "tests/unit/rules/challenge",
    "tests/unit/scorers": "tests/unit/rules/scorers",
    "tests/unit/test_bars.py": "tests/unit/rules/test_bars.py",
    "tests/unit/test_judge.py": "tests/unit/rules/test_judge.py",
    "tests/unit/test_models.py": "tests/unit/rules/test_models.py",
    "tests/unit/test_qualification.py": "tests/unit/rules/test_qualification.py",
    "tests/unit/test_resolution.py": "tests/unit/rules/test_resolution.py",
    "tests/unit/test_check_changes.py": "tests/unit/rules/test_check_changes.py",
    "tests/unit/test_prefilter_review.py": "tests/unit/rules/test_prefilter_review.py",
    "tests/unit/test_shared_rules.py": "tests/unit/rules/test_shared_rules.py",
    "tests/unit/test_names.py": "tests/unit/vocab/test_names.py",
    "tests/unit/load": "tests/unit/edges/load",
    "tests/unit/sandbox": "tests/unit/edges/sandbox",
    "tests/unit/archive": "tests/unit/edges/archive",
    "tests/unit/test_fetch.py": "tests/unit/edges/test_fetch.py",
    "tests/unit/test_fetch_hostile.py": "tests/unit/edges/test_fetch_hostile.py",
    "tests/unit/test_history.py": "tests/unit/edges/test_history.py",
    "tests/unit/test_tree.py": "tests/unit/edges/test_tree.py",
    "tests/unit/test_released.py": "tests/unit/edges/test_released.py",
    "tests/unit/test_review3_released_disk.py": "tests/unit/edges/test_released_disk.py",
    "tests/unit/test_cache.py": "tests/unit/app/test_cache.py",
    "tests/unit/test_rerun.py": "tests/unit/app/test_rerun.py",
    "tests/unit/test_pins.py": "tests/unit/app/test_pins.py",
    "tests/unit/test_pins_glue.py": "tests/unit/app/test_pins_glue.py",
    "tests/unit/test_stream_review.py": "tests/unit/app/test_stream_review.py",
    "tests/unit/github": "tests/unit/faces/github",
    "tests/unit/jobs": "tests/unit/faces/jobs",
    "tests/unit/site": "tests/unit/faces/site",
    "tests/unit/tools": "tests/unit/faces/tools",
    "tests/unit/adapters": "tests/unit/faces/tools/adapters",
    "tests/unit/demo": "tests/unit/faces/demo",
    "tests/unit/report": "tests/unit/faces/report",
    "tests/unit/test_specimen.py": "tests/unit/faces/demo/test_specimen.py",
    "tests/unit/test_workflow_glue.py": "tests/unit/faces/jobs/test_workflow_glue.py",
}

_TEXT = {".py", ".md", ".toml", ".yml", ".yaml", ".cfg", ".txt", ".sh", ".j2", ".ini", ""}


def _path(module: str) -> str:
    return module.replace(".", "/")


_NEW = ("bot.vocab", "bot.rules", "bot.edges", "bot.faces")
_APP = {new.split(".")[2] for new in MOVES.values() if new.startswith("bot.app.")}


def _is_new(module: str) -> bool:
    parts = module.split(".")
    return module.startswith(_NEW) or (
        parts[:2] == ["bot", "app"] and len(parts) > 2 and parts[2] in _APP
    )


def _pairs() -> list[tuple[re.Pattern[str], str]]:
    """(pattern, replacement) for dotted names and paths, longest old name first."""
    pairs: list[tuple[re.Pattern[str], str]] = []
    for old, new in sorted(MOVES.items(), key=lambda item: -len(item[0])):
        if old == "bot.app":
            # bot.app.api, bot.app.gather, ... are new names: only a bare bot.app is old
            pairs.append((re.compile(r"(?<![\w.])bot\.app\b(?!\.\w)"), new))
            pairs.append((re.compile(r"(?<![\w/.])bot/app(?=\.py\b)"), _path(new)))
            continue
        pairs.append((re.compile(rf"(?<![\w.]){re.escape(old)}\b(?!\.py\b)"), new))
        pairs.append((re.compile(rf"(?<![\w/.]){re.escape(_path(old))}(?=\.py\b|/)"), _path(new)))
    for old, new in sorted(TEST_MOVES.items(), key=lambda item: -len(item[0])):
        pairs.append((re.compile(rf"(?<![\w/.]){re.escape(old)}(?![\w])"), new))
        old_mod = old.removesuffix(".py").replace("/", ".")
        new_mod = new.removesuffix(".py").replace("/", ".")
        pairs.append((re.compile(rf"(?<![\w.]){re.escape(old_mod)}\b"), new_mod))
    return pairs


_FROM = re.compile(r"^(\s*)from (bot(?:\.\w+)*) import (\w+)(\s*(?:#.*)?)$", re.MULTILINE)


def _from_module(match: re.Match[str]) -> str:
    """`from bot.load import jsonl` -> `from bot.edges.load import jsonl` (a module imported by
    name from its package)."""
    indent, package, name, rest = match.groups()
    full = f"{package}.{name}"
    new = _rename(full)
    if new == full:
        return match.group(0)
    parent, _, leaf = new.rpartition(".")
    alias = "" if leaf == name else f" as {name}"
    return f"{indent}from {parent} import {leaf}{alias}{rest}"


def _rename(module: str) -> str:
    if _is_new(module):
        return module
    for old, new in sorted(MOVES.items(), key=lambda item: -len(item[0])):
        if module == old or module.startswith(old + "."):
            return new + module[len(old) :]
    return module


def rewrite(text: str, pairs: list[tuple[re.Pattern[str], str]]) -> str:
    text = _FROM.sub(_from_module, text)
    for pattern, new in pairs:
        text = pattern.sub(new, text)
    return text


def _tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files"], check=True, capture_output=True, text=True).stdout
    return [Path(line) for line in out.splitlines()]


def _move() -> None:
    files = [str(path) for path in _tracked()]
    plan: dict[str, str] = {}
    for name in files:
        if name.startswith("bot/"):
            module = name.removesuffix(".py").replace("/", ".")
            if name.endswith("/__init__.py"):
                module = module.removesuffix(".__init__")
                new = _rename(module)
                if new != module:
                    plan[name] = _path(new) + "/__init__.py"
                continue
            parts = module.split(".")
            # a data file or module: rename its folder's package
            for cut in range(len(parts), 0, -1):
                prefix = ".".join(parts[:cut])
                if prefix in MOVES:
                    new = MOVES[prefix]
                    rest = name[len(_path(prefix)) :]
                    plan[name] = _path(new) + rest
                    break
        for old, new in TEST_MOVES.items():
            if name == old or name.startswith(old + "/"):
                plan[name] = new + name[len(old) :]
    for old, new in plan.items():
        Path(new).parent.mkdir(parents=True, exist_ok=True)
        subprocess.run(["git", "mv", old, new], check=True)
    for package in (
        "bot/vocab",
        "bot/rules",
        "bot/edges",
        "bot/app",
        "bot/faces",
        "bot/edges/github",
        "tests/unit/rules",
        "tests/unit/edges",
        "tests/unit/app",
        "tests/unit/faces",
        "tests/unit/vocab",
    ):
        Path(package).mkdir(parents=True, exist_ok=True)
    _rewrite_all([path for path in _tracked() if path.exists()])


def _rewrite_all(paths: list[Path]) -> None:
    pairs = _pairs()
    for path in paths:
        if path.suffix not in _TEXT or path.name == "relayout.py" or not path.is_file():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue
        new = rewrite(text, pairs)
        if new != text:
            path.write_text(new, encoding="utf-8")


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--move", action="store_true")
    parser.add_argument("--rewrite", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.move:
        _move()
    if args.rewrite:
        _rewrite_all(args.rewrite)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

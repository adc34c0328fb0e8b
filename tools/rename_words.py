"""One word per idea (issue 24): rename the identifiers that used "check" for things that are
not a human check, mechanically, so any branch can apply the same rename.

The words (docs/architecture.md, "Words"): a *check* is a human check (`CheckState`,
`required_checks`, judgments); a *check run* is GitHub's (`CheckRunRef`, `create_check_run`);
a *checker* is a class that checks records as they come (`CaseChecker`, `RecordsChecker`);
a *result* is what checking the records found (`RecordsResult`); a *probe* is one requirement
`claims github doctor` reads from the repository's settings (`SetupProbe`); a *confirmation*
is what GitHub says of a landing commit (`landing_confirmations`); a *finding* is a `Finding`.

Usage, from the repository's root:

    python tools/rename_words.py            # rewrite the files, print the counts
    python tools/rename_words.py --dry-run  # print the counts only
    python tools/rename_words.py FILE...    # only these files (e.g. a branch's changed files)

Only whole identifiers are replaced (no letter, digit or underscore either side), in .py and
.md files under bot/, tests/, bench/ and docs/ (or the files given). No JSON key changes: the
cache record's key stays "check", and no name below is a key of a JSON report or cache file
(reports and caches are a contract; tests/differential holds them byte-identical). Idempotent:
no new name is an old one. Then sorts the imports and `__all__` and formats the rewritten
Python files (`ruff`); what is left (a line too long) is for a person.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from collections import Counter
from pathlib import Path

ROOTS = ("bot", "tests", "bench", "docs")
SUFFIXES = (".py", ".md")

# Everywhere: names used by one idea only.
MAPPING: dict[str, str] = {
    # Classes that check records one at a time are checkers.
    "CaseCheck": "CaseChecker",
    "TrialCheck": "TrialChecker",
    "WithheldCheck": "WithheldChecker",
    "RecordCheck": "RecordChecker",  # the protocol CaseChecker and TrialChecker follow
    "_Check": "_Checker",  # its TypeVar
    "_trial_check": "_trial_checker",
    "_withheld_check": "_withheld_checker",
    "record_check": "record_checker",  # the module bot/rules/evidence/record_check.py
    # What checking the records found is a result.
    "RecordsCheck": "RecordsResult",
    "records_check": "records_result",
    "records_check_to_json": "records_result_to_json",
    "records_check_from_json": "records_result_from_json",
    "records_checked_now": "records_read_now",
    # `claims github doctor` probes the setup.
    "SetupCheck": "SetupProbe",
    "check_setup": "probe_setup",
    "render_checks": "render_probes",
    # What GitHub says of each landing commit confirms it (or not).
    "landing_checks": "landing_confirmations",
    "_landing_checks": "_landing_confirmations",
}

# Only in these files (the name has another meaning elsewhere, e.g. a test's local `run_check`).
SCOPED: dict[str, dict[str, str]] = {
    "bot/rules/evidence/record_check.py": {"run_check": "run_checker", "check": "checker"},
    "bot/rules/evidence/cases.py": {"run_check": "run_checker"},
    "bot/rules/evidence/trials.py": {"run_check": "run_checker"},
}

# Files renamed with `git mv` (their module names are in MAPPING).
MOVES: dict[str, str] = {
    "bot/rules/evidence/record_check.py": "bot/rules/evidence/record_checker.py",
}


def _pattern(names: dict[str, str]) -> re.Pattern[str]:
    alternatives = "|".join(re.escape(n) for n in sorted(names, key=len, reverse=True))
    return re.compile(rf"(?<![A-Za-z0-9_])(?:{alternatives})(?![A-Za-z0-9_])")


def rename_text(text: str, names: dict[str, str], counts: Counter[str]) -> str:
    def swap(match: re.Match[str]) -> str:
        counts[match.group(0)] += 1
        return names[match.group(0)]

    return _pattern(names).sub(swap, text)


def _files(root: Path, given: list[str]) -> list[Path]:
    if given:
        return [root / g for g in given if g.endswith(SUFFIXES)]
    found: list[Path] = []
    for top in ROOTS:
        found += [p for p in (root / top).rglob("*") if p.is_file() and p.suffix in SUFFIXES]
    return sorted(found)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("files", nargs="*", help="only these files (relative to the root)")
    parser.add_argument("--dry-run", action="store_true", help="count, change nothing")
    parser.add_argument("--root", type=Path, default=Path.cwd())
    args = parser.parse_args(argv)
    root: Path = args.root.resolve()
    assert not set(MAPPING.values()) & set(MAPPING), "a new name is an old one: not idempotent"
    # The scoped names apply to a file by its original path, before or after the move.
    scoped = dict(SCOPED) | {MOVES[k]: v for k, v in SCOPED.items() if k in MOVES}

    totals: Counter[str] = Counter()
    changed: list[str] = []
    for path in _files(root, args.files):
        relative = path.relative_to(root).as_posix()
        names = MAPPING | scoped.get(relative, {})
        text = path.read_text(encoding="utf-8")
        counts: Counter[str] = Counter()
        new = rename_text(text, names, counts)
        if new != text:
            changed.append(relative)
            totals += counts
            print(f"{relative}: {sum(counts.values())}")
            if not args.dry_run:
                path.write_text(new, encoding="utf-8")
    for old, new in MOVES.items():
        if (root / old).exists():
            print(f"move {old} -> {new}")
            if not args.dry_run:
                subprocess.run(["git", "mv", old, new], cwd=root, check=True)
    print(f"{len(changed)} files, {sum(totals.values())} replacements")
    for old, count in sorted(totals.items()):
        print(f"  {old} -> {MAPPING.get(old) or _scoped_new(old)}: {count}")
    python = [p for p in changed if p.endswith(".py")]
    if python and not args.dry_run:
        # Longer names reorder imports and `__all__`, and may push a line past the limit.
        python = [MOVES.get(p, p) for p in python]
        fix = ["ruff", "check", "--fix", "--select", "I001,RUF022", "--quiet", *python]
        subprocess.run(fix, cwd=root, check=False)
        subprocess.run(["ruff", "format", "--quiet", *python], cwd=root, check=False)
    return 0


def _scoped_new(old: str) -> str:
    return next(names[old] for names in SCOPED.values() if old in names)


if __name__ == "__main__":
    sys.exit(main())

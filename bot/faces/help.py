"""Every `claims` subcommand's help ends with examples and its exit codes (an argparse epilog).

Kept in one table, beside the conventions the README's "CLI conventions" states, so that the
help of every command reads alike; `tests/acceptance/test_cli_shape.py` checks that each
subcommand has an entry.
"""

from __future__ import annotations

import argparse

__all__ = ["EPILOGS", "add_epilogs", "subcommands"]

_VERIFY_EXIT = (
    "0 all evidence valid, 1 some evidence invalid, 2 usage or environment error (no registry,"
    " a bad option, problems in the registry's own files)"
)
_TOOL_EXIT = (
    "0 done (or nothing to do), 1 the input has problems (each printed with its file, line and"
    " reason code; nothing is written), 2 usage or environment error"
)
_GITHUB_EXIT = "0 done, 2 an error (the API failed, a bad event or option)"

# A pull request head commit in the examples (the options take 40 hex digits).
_SHA = "3f2c9e0d1b7a4c5e8f6a2b1c0d9e8f7a6b5c4d3e"

# subcommand path -> (examples, exit codes)
EPILOGS: dict[str, tuple[tuple[str, ...], str]] = {
    "verify": (
        (
            "claims verify attempts/market-07/my-lab/first-monitor",
            "claims verify --base-ref main --json report.json",
            "claims verify attempts/market-07 -q",
        ),
        _VERIFY_EXIT,
    ),
    "resolve": (
        ("claims resolve --as-of 2027-11-01 --market 3", "claims resolve --json resolve.json -q"),
        "0 resolved (warnings are shown), 2 usage or environment error, or registry problems",
    ),
    "close-windows": (
        ("claims close-windows --dry-run", "claims close-windows --dry-run --as-of 2027-09-01"),
        "0 every step done (or nothing was due), 2 a step failed or a market is blocked (safe"
        " to rerun)",
    ),
    "demo": (
        ("claims demo", "claims demo --keep reg --today"),
        "0 every example produced the reason codes it demonstrates, 1 one did not,"
        " 2 usage or environment error",
    ),
    "init": (
        ("claims init --market 7 --submitter my-lab --attempt first-monitor",),
        "0 the stubs were written, 2 usage or environment error (no registry, no such market,"
        " a kind it does not accept, a stub that exists without --force)",
    ),
    "hash-cases": (
        (
            "claims hash-cases attempts/market-07/my-lab/first-monitor",
            "claims hash-cases attempts/market-07/my-lab/first-monitor --write",
        ),
        "0 every case's sha256 is right (or --write wrote them), 1 a sha256 is missing or"
        " wrong without --write, or the file has problems (nothing is written), 2 usage or"
        " environment error",
    ),
    "pin-log": (
        ("claims pin-log attempts/market-07/my-lab/first-monitor --log logs/run.eval",),
        _TOOL_EXIT,
    ),
    "scores": (
        (
            "claims scores attempts/market-07/my-lab/first-monitor",
            "claims scores attempts/market-07/my-lab/first-monitor --write",
        ),
        _TOOL_EXIT,
    ),
    "score": (
        ("claims score weirdml-v3 events.jsonl --json scores.json",),
        "0 scored, 1 the log is refused, 2 usage or environment error",
    ),
    "score weirdml-v3": (
        ("claims score weirdml-v3 events.jsonl --json scores.json --plot curves.png",),
        "0 scored, 1 the log is refused (LOG:LINE: field: message; nothing written), 2 usage"
        " or environment error",
    ),
    "explain": (
        (
            "claims explain attempts/market-07/my-lab/first-monitor",
            "claims explain attempts/market-07 --brief",
            "claims explain attempts/market-07/my-lab/first-monitor --json -",
        ),
        "0 nothing stands in the way (every line ok, or a missed bar's outcome), 1 some line"
        " is missing or fails, 2 usage or environment error, or registry problems",
    ),
    "adapt": (("claims adapt inspect logs/run.eval --out converted",), _TOOL_EXIT),
    "adapt inspect": (
        (
            "claims adapt inspect logs/run.eval --out converted",
            "claims adapt inspect logs/run.eval --out converted --epochs first",
        ),
        "0 converted, 2 usage or environment error (a log it cannot read, a mapping it refuses)",
    ),
    "github": (
        (f"claims github verify --pr 12 --head {_SHA} --base-ref main",),
        _GITHUB_EXIT,
    ),
    "github publish": (
        (f"claims github publish report.json --pr 12 --head {_SHA}",),
        _GITHUB_EXIT + "; without GITHUB_TOKEN it prints what it would post and exits 0",
    ),
    "github verify": (
        (f"claims github verify --pr 12 --head {_SHA} --base-ref main --json report.json",),
        _VERIFY_EXIT,
    ),
    "github locate": (
        (
            "claims github locate --event event.json",
            "claims github locate --pr 12 --default-branch main",
        ),
        "0 found, or no pull request to post to (found=false), 1 without GITHUB_TOKEN (nothing"
        " looked up), 2 an error (the API failed, a bad event)",
    ),
    "github plan": (
        (f"claims github plan --base-ref main --head {_SHA}",),
        _GITHUB_EXIT,
    ),
    "github judge": (("claims github judge --event event.json",), _GITHUB_EXIT),
    "github doctor": (
        ("claims github doctor --repository owner/registry",),
        "0 every setting holds, 1 one needs a change (or cannot be read), 2 usage or"
        " environment error",
    ),
    "site": (
        ("claims site --out site", "claims site --out site --verify-report report.json"),
        "0 built, 2 usage or environment error (the registry, a report that does not read)",
    ),
}


def subcommands(
    parser: argparse.ArgumentParser, prefix: str = ""
) -> list[tuple[str, argparse.ArgumentParser]]:
    """Every subcommand under `parser`, by its path ("github verify"), depth first."""
    found = []
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for name, sub in action.choices.items():
                path = f"{prefix}{name}"
                found.append((path, sub))
                found += subcommands(sub, f"{path} ")
    return found


def add_epilogs(parser: argparse.ArgumentParser) -> None:
    """Give every subcommand its examples and exit codes; the description keeps wrapping, the
    examples keep their lines."""
    for path, sub in subcommands(parser):
        entry = EPILOGS.get(path)
        if entry is None:
            continue
        examples, exits = entry
        lines = ["examples:", *(f"  {example}" for example in examples), "", "exit codes:"]
        lines.append(f"  {exits}")
        sub.epilog = "\n".join(lines)
        sub.formatter_class = _Formatter


class _Formatter(argparse.HelpFormatter):
    """Wraps the description as usual; prints the examples as written (a command is not
    broken across lines) and wraps the exit codes, indented."""

    def _fill_text(self, text: str, width: int, indent: str) -> str:
        if not text.startswith("examples:"):
            return super()._fill_text(text, width, indent)
        examples, _, exits = text.partition("\nexit codes:\n")
        wrapped = super()._fill_text(exits.strip(), width - 2, indent + "  ")
        shown = [indent + line for line in examples.rstrip("\n").splitlines()]
        return "\n".join([*shown, "", indent + "exit codes:", wrapped])

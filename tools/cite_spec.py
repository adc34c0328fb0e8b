"""Rewrite citations of the unshipped specification into citations of docs/spec.md.

The bot, its docs and its tests once cited "SPEC 4", "SPEC.md section 6", the seed
`weirdml-v3.txt` and SECURITY-NOTES: documents kept beside the repository, which a user of the
registry cannot open. The contract now ships as docs/spec.md, with the same section numbers,
so each such citation becomes "docs/spec.md §N" (several sections: "docs/spec.md §5, §7").

    python tools/cite_spec.py           rewrite the files in place, print those changed
    python tools/cite_spec.py --check   change nothing; exit 1 if any file would change

Idempotent: a rewritten file is left as it is, so it can be run again after a merge brings in
new citations. Only citation strings change, and where a citation makes a line of prose (a
comment, a docstring, a Markdown paragraph) longer than 100 characters, the words past it move
to the next line of the same paragraph. A long line of code is left as it is and named on
stderr, to be wrapped by hand (`ruff check` finds it too).
"""

from __future__ import annotations

import argparse
import re
import sys
from collections.abc import Callable, Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
SPEC = "docs/spec.md"

# Where citations live: everything a user or a contributor reads.
SCOPE = (
    "bot",
    "docs",
    "tests",
    "bench",
    "fuzz",
    "examples",
    "schemas",
    "shared-rules",
    "markets",
    "challenge-runs",
    "attempts",
    ".github",
    "README.md",
    ".pre-commit-hooks.yaml",
)
SUFFIXES = {".py", ".md", ".json", ".yaml", ".yml", ".txt", ".toml", ".cfg"}
SKIP = {"tools/cite_spec.py", "tests/unit/test_docs_spec.py"}

# The measured notes SECURITY-NOTES held are stated in these sections of docs/spec.md.
SECURITY_SECTION_BY_FILE = {
    "bot/faces/github/locate.py": "10.1",
    "tests/unit/test_workflows.py": "10.1",
    "tests/unit/edges/sandbox/test_runner.py": "9.2",
}
SECURITY_SECTION = "4.2"  # reading files: parsers, schema cost, limits

_NUMBER = r"\d+(?:\.\d+)?"

# Whole phrases first: where a plain rewrite would not read as a sentence.
PHRASES: tuple[tuple[str, str], ...] = (
    (
        "The contract is [SPEC.md](docs/spec-notes.md#where-the-contract-lives);",
        "The contract is [docs/spec.md](docs/spec.md);",
    ),
    (
        "Rules are quoted from the registry specification (SPEC, with its section number) and"
        " from the\nshared rules, whose text is kept in",
        "Rules are quoted from the registry's contract as first written (docs/spec.md keeps its"
        " section\nnumbers, and states each rule as the bot applies it today) and from the shared"
        " rules, whose\ntext is kept in",
    ),
    (
        "registry specification (SPEC, by section)",
        "registry's contract ([spec.md](spec.md), by section)",
    ),
    (
        'description="Entry points of the registry\'s workflows (SPEC 10). Without GITHUB_TOKEN"\n'
        '        " each prints',
        'description="Entry points of the registry\'s workflows (docs/spec.md §10). Without"\n'
        '        " GITHUB_TOKEN each prints',
    ),
    (
        "\n        \" the bot's bound, with SPEC 6's exact bound where the variance is 0,"
        ' in brackets):",',
        "\n        \" the bot's bound, with docs/spec.md §6's exact bound where the variance is"
        ' 0, in"\n        " brackets):",',
    ),
    (
        "(SECURITY-NOTES measured 867 MiB for `json` on such a line)",
        "(docs/spec.md §4.2: 867 MiB for `json` on such a line)",
    ),
    (
        "`newversion` has failed in the wild, see ZENODO-GITHUB.md)",
        "`newversion` has failed in the wild, see\n"
        "[google/langextract#461](https://github.com/google/langextract/issues/461))",
    ),
    (
        "The tests against\n`/work/shared/data` pass unchanged.",
        "The DeLong\ntests pass unchanged.",
    ),
    ("SPEC says ", "the first spec said "),
)

# "SPEC 4", "SPEC §4", "SPEC.md section 6", "SPEC section 12", "SPEC.md 6", "SPEC 5, 7",
# "SPEC 4 and 9": the section list is kept, each number given its "§".
_SPEC = re.compile(
    rf"\bSPEC(?:\.md)?(?: section)? ?§?(?P<first>{_NUMBER})"
    rf"(?P<rest>(?:(?:, | and )(?:§)?{_NUMBER}(?![\d.]*\d))*)"
    r"(?![\w-])"
)
_REST = re.compile(rf"(?P<sep>, | and )§?(?P<n>{_NUMBER})")

_SEED_WEIRDML = re.compile(r"(?:the seed |seed )?`?(?:\.\./shared/seeds/)?weirdml-v3\.txt`?")
_SECURITY = re.compile(r'SECURITY-NOTES(?:\.md)?(?:, "[^"\n]*")?')
# Two citations side by side collapse into one: "docs/spec.md §10, docs/spec.md §10.1".
_DOUBLE = re.compile(rf"{re.escape(SPEC)} §(?P<a>[^\s,;)]+)(?P<sep>, | and ){re.escape(SPEC)} §")


def _spec(match: re.Match[str]) -> str:
    rest = _REST.sub(lambda m: f"{m['sep']}§{m['n']}", match["rest"])
    return f"{SPEC} §{match['first']}{rest}"


def _keep_box(old: str, new: str) -> str:
    """A line of a box drawing (ending in "│") keeps its width: the padding before the box's
    right edge shrinks by what the citation added."""
    grown = len(new) - len(old)
    if grown <= 0 or not new.rstrip().endswith("│"):
        return new
    body = new.rstrip()[:-1]
    padding = len(body) - len(body.rstrip(" "))
    if padding <= grown:
        return new
    return body[: len(body) - grown] + new.rstrip()[-1:] + new[len(new.rstrip()) :]


def rewrite(text: str, path: str = "") -> str:
    """The text with every citation of an unshipped document pointed at docs/spec.md."""
    for old, new in PHRASES:
        text = text.replace(old, new)
    return "\n".join(_keep_box(line, _cite(line, path)) for line in text.split("\n"))


def _cite(text: str, path: str) -> str:
    text = _SPEC.sub(_spec, text)
    text = _SEED_WEIRDML.sub(f"{SPEC} §11.2", text)
    section = SECURITY_SECTION_BY_FILE.get(path, SECURITY_SECTION)
    text = _SECURITY.sub(f"{SPEC} §{section}", text)
    previous = None
    while previous != text:
        previous = text
        text = _DOUBLE.sub(lambda m: f"{SPEC} §{m['a']}{m['sep']}§", text)
    return text


WIDTH = 100
_CITED = re.compile(rf"{re.escape(SPEC)} §|google/langextract#461")
_BANNER = re.compile(r"^(?P<head>\s*# ?-+ .*? )-{3,}$")
_MD_LIST = re.compile(r"^(?P<indent>\s*)(?P<marker>[-*] |\d+\. )?")
_GENERATED = re.compile(r"^<!-- .* writes (from here|up to here)")
_MD_NOT_PROSE = re.compile(r"^\s*(?:[-*] |\d+\. |#|\||```|~~~|>|<)")


def _split(line: str, floor: int) -> tuple[str, str] | None:
    """The line cut at its last space that leaves at most WIDTH characters (not in `floor`)."""
    cut = line.rfind(" ", floor + 1, WIDTH + 1)
    # Never between a file and its section ("docs/spec.md" / "§4"), nor in a run of spaces.
    while cut > floor and (line[cut - 1] == " " or line[:cut].endswith(SPEC)):
        cut = line.rfind(" ", floor + 1, cut)
    if cut <= floor:
        return None
    return line[:cut].rstrip(), line[cut:].lstrip()


def _python_prose(lines: list[str]) -> list[str | None]:
    """Per line: the prefix its paragraph's next line starts with, or None for code."""
    prefixes: list[str | None] = []
    in_doc = False
    for line in lines:
        stripped = line.lstrip()
        indent = line[: len(line) - len(stripped)]
        quotes = line.count('"""')
        if in_doc or quotes:
            prefixes.append(indent if (in_doc or stripped.startswith(('"""', 'r"""'))) else None)
            if quotes % 2:
                in_doc = not in_doc
        elif stripped.startswith("#"):
            prefixes.append(indent + re.match(r"#\s*", stripped)[0])  # type: ignore[index]
        else:
            prefixes.append(None)
    return prefixes


def _markdown_prose(lines: list[str]) -> list[str | None]:
    prefixes: list[str | None] = []
    fenced = False
    generated = False  # a block a program writes (docs/statistics.md): never rewrapped by hand
    for line in lines:
        if _GENERATED.match(line):
            generated = "writes from here" in line
            prefixes.append(None)
        elif line.lstrip().startswith(("```", "~~~")):
            fenced = not fenced
            prefixes.append(None)
        elif (
            generated
            or fenced
            or (line.startswith("    ") and not line.lstrip().startswith(("- ", "* ")))
            or line.lstrip().startswith(("#", "|", ">", "<"))
        ):
            prefixes.append(None)
        else:
            match = _MD_LIST.match(line)
            assert match is not None
            prefixes.append(match["indent"] + " " * len(match["marker"] or ""))
    return prefixes


def _continues(line: str, prefix: str | None, python: bool) -> bool:
    """Whether `line` (itself prose, so `prefix` is not None) continues the paragraph whose
    lines start with `prefix`."""
    if prefix is None or not line.startswith(prefix) or not line[len(prefix) :].strip():
        return False
    rest = line[len(prefix) :]
    if rest[0] == " " or rest.lstrip().startswith('"""'):
        return False
    if python:
        return not rest.startswith(("-", "*", ">>>", ":")) and not re.match(r"\d+\.", rest)
    return not _MD_NOT_PROSE.match(rest)


def reflow(text: str, path: str, long_code: list[str] | None = None) -> str:
    """Lines a citation made longer than WIDTH, rewrapped within their paragraph."""
    python = path.endswith(".py")
    if not (python or path.endswith(".md")):
        return text
    lines = text.split("\n")
    prefixes = _python_prose(lines) if python else _markdown_prose(lines)
    grown: set[int] = set()  # lines that took a tail from the line before
    index = 0
    while index < len(lines):
        line = lines[index]
        if len(line) <= WIDTH or not (index in grown or _CITED.search(line)):
            index += 1
            continue
        banner = _BANNER.match(line) if python else None
        prefix = prefixes[index]
        if banner:
            lines[index] = banner["head"] + "-" * max(3, WIDTH - len(banner["head"]))
        elif prefix is not None and (parts := _split(line, len(prefix))) is not None:
            lines[index], tail = parts
            after = index + 1
            if after < len(lines) and _continues(
                lines[after], prefix if prefixes[after] is not None else None, python
            ):
                lines[after] = f"{prefix}{tail} {lines[after][len(prefix) :]}"
            else:
                lines.insert(after, prefix + tail)
                prefixes.insert(after, prefix)
                grown = {i + 1 if i >= after else i for i in grown}
            grown.add(after)
        elif long_code is not None and python:
            long_code.append(f"{path}:{index + 1}")
        index += 1
    return "\n".join(lines)


def _files(root: Path) -> Iterable[Path]:
    for name in SCOPE:
        top = root / name
        if top.is_file():
            yield top
        elif top.is_dir():
            for path in sorted(top.rglob("*")):
                if path.is_file() and path.suffix in SUFFIXES:
                    yield path


def run(root: Path, write: bool, report: Callable[[str], None] = print) -> list[str]:
    """Rewrite (or only find) the files under `root` whose citations change."""
    changed = []
    for path in _files(root):
        relative = path.relative_to(root).as_posix()
        parts = relative.split("/")
        if relative in SKIP or any(p.startswith(".") for p in parts[1:] if p != ".github"):
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except (UnicodeDecodeError, OSError):
            continue
        new = rewrite(text, relative)
        if new != text:
            long_code: list[str] = []
            new = reflow(new, relative, long_code)
            for where in long_code:
                print(f"{where}: a citation made this line of code too long", file=sys.stderr)
            changed.append(relative)
            report(relative)
            if write:
                path.write_text(new, encoding="utf-8")
    return changed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="change nothing; exit 1 if needed")
    parser.add_argument("--root", type=Path, default=ROOT, help="the repository (default: here)")
    args = parser.parse_args(argv)
    changed = run(args.root, write=not args.check)
    return 1 if args.check and changed else 0


if __name__ == "__main__":
    sys.exit(main())

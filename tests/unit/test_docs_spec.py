"""docs/spec.md is the contract the code cites, and every citation is one a user can open.

The bot's messages, help texts, docstrings and docs cite "docs/spec.md §N" (or §N.M); each must
name a section that exists. Every reason code belongs to a family spec.md names, every schema is
linked from it, every decision logged in spec-notes.md is folded into one of its sections, and
nothing a user reads cites the files the project was once steered by (kept beside the
repository, out of a user's reach). `tools/cite_spec.py` rewrites old citations; its rules are
tested here too.
"""

from __future__ import annotations

import importlib.util
import re
import subprocess
import sys
from pathlib import Path
from types import ModuleType

import pytest

from bot.vocab.findings import Code

PROJECT = Path(__file__).resolve().parents[2]
DOCS = PROJECT / "docs"
SPEC = DOCS / "spec.md"
SCRIPT = PROJECT / "tools" / "cite_spec.py"

# Where users read citations: the bot's messages and help, the docs, the README, the schemas
# (an editor shows their descriptions) and the maintainers' folders' READMEs.
READ_BY_USERS = ("bot", "docs", "README.md", "schemas", "challenge-runs", "markets", "attempts")
_SUFFIXES = {".py", ".md", ".json", ".yaml", ".yml"}

_SECTION = re.compile(r"^(##|###) (\d+(?:\.\d+)?)[. ]", re.MULTILINE)
_NUMBER = r"\d+(?:\.\d+)?"
_CITATION = re.compile(rf"docs/spec\.md §(?P<first>{_NUMBER})(?P<rest>(?:(?:, | and )§{_NUMBER})*)")
_BARE = re.compile(rf"§({_NUMBER})")
_LINK = re.compile(r"\]\((?P<file>[^)#\s]*)#(?P<anchor>[^)\s]+)\)")
# What a user cannot open: the steering documents and seeds kept beside the repository.
_UNOPENABLE = re.compile(
    r"\bSPEC(?:\.md)?\b(?! *§)|SECURITY-NOTES|ZENODO-GITHUB|STYLE\.md|\.\./shared/|/work/shared"
    r"|weirdml-v3\.txt|shared-rules-common-v1\.txt|beside this repository"
)


def _files(*tops: str) -> list[Path]:
    found = []
    for name in tops:
        top = PROJECT / name
        if top.is_file():
            found.append(top)
        elif top.is_dir():
            found += [p for p in sorted(top.rglob("*")) if p.suffix in _SUFFIXES and p.is_file()]
    return found


def _sections() -> set[str]:
    return {number for _, number in _SECTION.findall(SPEC.read_text(encoding="utf-8"))}


def _slug(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    text = re.sub(r"[^\w\- ]", "", heading.strip().lower())
    return text.replace(" ", "-")


def _anchors(path: Path) -> set[str]:
    text = path.read_text(encoding="utf-8")
    return {_slug(h) for h in re.findall(r"^#{1,6} (.+?)\s*$", text, re.MULTILINE)}


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("cite_spec", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


# -- the contract itself ----------------------------------------------------------------------


def test_the_spec_keeps_sections_1_to_12_in_order() -> None:
    text = SPEC.read_text(encoding="utf-8")
    top = [int(n) for n in re.findall(r"^## (\d+)\. ", text, re.MULTILINE)]
    assert top == list(range(1, 13))


def test_every_subsection_is_numbered_within_its_section() -> None:
    text = SPEC.read_text(encoding="utf-8")
    current = 0
    for level, number in _SECTION.findall(text):
        if level == "##":
            current = int(number)
        else:
            assert number.split(".")[0] == str(current), f"§{number} under §{current}"


def test_every_citation_names_a_section_that_exists() -> None:
    sections = _sections()
    assert {"4", "4.2", "12.3"} <= sections  # the parser reads what the page holds
    wrong = []
    for path in _files(*READ_BY_USERS, "tests", "bench", ".github"):
        text = path.read_text(encoding="utf-8")
        for match in _CITATION.finditer(text):
            numbers = [match["first"], *_BARE.findall(match["rest"])]
            line = text.count("\n", 0, match.start()) + 1
            where = f"{path.relative_to(PROJECT)}:{line}"
            wrong += [f"{where}: §{n}" for n in numbers if n not in sections]
    assert not wrong, "citations of sections docs/spec.md does not have:\n" + "\n".join(wrong)


def test_the_spec_s_own_references_name_sections_that_exist() -> None:
    text = SPEC.read_text(encoding="utf-8")
    body = re.sub(r"^#{2,3} .*$", "", text, flags=re.MULTILINE)
    missing = sorted(set(_BARE.findall(body)) - _sections())
    assert not missing, f"docs/spec.md refers to sections it does not have: {missing}"


def test_no_page_or_message_cites_what_a_user_cannot_open() -> None:
    found = []
    for path in _files(*READ_BY_USERS):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if _UNOPENABLE.search(line):
                found.append(f"{path.relative_to(PROJECT)}:{number}: {line.strip()[:90]}")
    assert not found, (
        "citations of files kept beside the repository (run python tools/cite_spec.py):\n"
        + "\n".join(found)
    )


def test_every_reason_code_belongs_to_a_family_the_spec_names() -> None:
    reason_codes = DOCS / "reason-codes.md"
    family_of: dict[str, str] = {}
    family = ""
    for line in reason_codes.read_text(encoding="utf-8").splitlines():
        if line.startswith("## "):
            family = _slug(line[3:])
        elif heading := re.fullmatch(r"### `([^`]+)`\s*", line):
            family_of[heading[1]] = family
    spec = SPEC.read_text(encoding="utf-8")
    named = set(re.findall(r"\]\(reason-codes\.md#([^)\s]+)\)", spec.split("### 12.3")[1]))
    assert len(named) >= 9, named
    unnamed = {
        code.value: family_of.get(code.value)
        for code in Code
        if family_of.get(code.value) not in named
    }
    assert not unnamed, f"reason codes whose family docs/spec.md §12.3 does not name: {unnamed}"


def test_every_schema_is_linked_from_the_spec() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    schemas = sorted(p.name for p in (PROJECT / "schemas").glob("*.json"))
    assert "trial.schema.json" in schemas
    unlinked = [name for name in schemas if f"](../schemas/{name})" not in spec]
    assert not unlinked, f"schemas docs/spec.md does not link: {unlinked}"


def test_every_decision_logged_in_spec_notes_is_folded_into_the_spec() -> None:
    notes = (DOCS / "spec-notes.md").read_text(encoding="utf-8")
    spec = SPEC.read_text(encoding="utf-8")
    linked = set(re.findall(r"\]\(spec-notes\.md#([^)\s]+)\)", spec))
    unfolded = []
    for block in re.split(r"^## ", notes, flags=re.MULTILINE)[2:]:  # after "Where ... lives"
        heading, _, body = block.partition("\n")
        subsections = {_slug(h) for h in re.findall(r"^### (.+?)\s*$", body, re.MULTILINE)}
        if not ({_slug(heading)} | subsections) & linked:
            unfolded.append(heading)
    assert not unfolded, f"spec-notes.md sections no section of docs/spec.md links: {unfolded}"


def test_the_spec_s_links_to_sections_of_other_pages_exist() -> None:
    spec = SPEC.read_text(encoding="utf-8")
    broken = []
    for match in _LINK.finditer(spec):
        target = SPEC if not match["file"] else (DOCS / match["file"]).resolve()
        if target.suffix == ".md" and match["anchor"] not in _anchors(target):
            broken.append(f"{match['file']}#{match['anchor']}")
    assert not broken, f"links to headings that do not exist: {broken}"


def test_slug_follows_github_s_rule() -> None:
    assert _slug("Raw-log fetching (`--fetch-raw-logs`)") == "raw-log-fetching---fetch-raw-logs"
    assert _slug("The workflows' glue (issue 22, section 3)") == (
        "the-workflows-glue-issue-22-section-3"
    )


# -- tools/cite_spec.py -----------------------------------------------------------------------

_REWRITES = [
    ("Check every evidence rule of SPEC 4 on", "Check every evidence rule of docs/spec.md §4 on"),
    ("(SPEC 5, 7; seed)", "(docs/spec.md §5, §7; seed)"),
    ("(SPEC 5, 7, 8): likewise", "(docs/spec.md §5, §7, §8): likewise"),
    ("stub (SPEC 4 and 9). The", "stub (docs/spec.md §4 and §9). The"),
    ("SPEC.md section 6: trials", "docs/spec.md §6: trials"),
    ("(SPEC section 12; every", "(docs/spec.md §12; every"),
    ("(SPEC.md 6).", "(docs/spec.md §6)."),
    ("with SPEC 6's exact bound", "with docs/spec.md §6's exact bound"),
    ("never counts (SPEC 5).", "never counts (docs/spec.md §5)."),
    ("(SPEC 9, issue 21)", "(docs/spec.md §9, issue 21)"),
    ("(SPEC 11, seed `weirdml-v3.txt`)", "(docs/spec.md §11, §11.2)"),
    ("SPEC 11 and `../shared/seeds/weirdml-v3.txt` (at", "docs/spec.md §11 and §11.2 (at"),
    ('(SECURITY-NOTES, "Parsers (measured)"):', "(docs/spec.md §4.2):"),
    ("(SECURITY-NOTES)", "(docs/spec.md §4.2)"),
]


@pytest.mark.parametrize(("old", "new"), _REWRITES)
def test_the_script_rewrites_each_form_of_citation(old: str, new: str) -> None:
    cite = _script()
    assert cite.rewrite(old) == new
    assert cite.rewrite(new) == new  # idempotent: a merge may bring old and new together


def test_the_script_cites_the_section_of_the_security_notes_a_file_used() -> None:
    cite = _script()
    text = "Untrusted code and credentials never meet (SPEC 10, SECURITY-NOTES):"
    assert cite.rewrite(text, "tests/unit/test_workflows.py") == (
        "Untrusted code and credentials never meet (docs/spec.md §10, §10.1):"
    )


def test_the_script_leaves_other_words_alone() -> None:
    cite = _script()
    text = "Code.SPECIAL_FILE, SPECIFIC 4, the spec 4, docs/spec.md §4.2 and SPEC-7 stay"
    assert cite.rewrite(text) == text


def test_a_comment_a_citation_made_too_long_is_rewrapped_in_its_paragraph() -> None:
    cite = _script()
    old = (
        "        # Invalid evidence still shows how its readable trials group into units"
        " (SPEC 6), so\n"
        "        # a filer sees what a shared key did.\n"
        "        x = 1\n"
    )
    new = cite.reflow(cite.rewrite(old, "bot/rules/judge.py"), "bot/rules/judge.py")
    assert new == (
        "        # Invalid evidence still shows how its readable trials group into units"
        " (docs/spec.md §6),\n"
        "        # so a filer sees what a shared key did.\n"
        "        x = 1\n"
    )


def test_a_one_line_docstring_is_wrapped_without_taking_the_code_after_it() -> None:
    cite = _script()
    old = (
        "def f() -> None:\n"
        '    """A wrapped attempt counts only after its adapter was rerun on this evidence'
        ' (SPEC 9)."""\n'
        "    if kind:\n"
    )
    new = cite.reflow(cite.rewrite(old), "bot/rules/qualification.py")
    lines = new.splitlines()
    assert all(len(line) <= 100 for line in lines)
    assert lines[-1] == "    if kind:"
    assert lines[2] == '    §9)."""' or lines[2].endswith('(docs/spec.md §9)."""')
    assert "docs/spec.md\n" not in new  # the file and its section stay on one line


def test_a_long_line_of_code_is_named_not_changed() -> None:
    cite = _script()
    line = '        description="' + "x" * 60 + ' (SPEC 10). Without GITHUB_TOKEN",'
    text = cite.rewrite(line)
    long_code: list[str] = []
    assert cite.reflow(text, "bot/x.py", long_code) == text
    assert long_code == ["bot/x.py:1"]


def test_a_box_drawing_keeps_its_width() -> None:
    cite = _script()
    line = "   │   scorers/   weirdml_v3: an operator's log (SPEC 11),          │"
    assert len(cite.rewrite(line)) == len(line)
    assert cite.rewrite(line).endswith("(docs/spec.md §11), │")


def test_markdown_in_fences_is_never_rewrapped() -> None:
    cite = _script()
    text = "```\n" + "word " * 18 + "never counts (SPEC 5)\n```\n"
    assert cite.reflow(cite.rewrite(text), "docs/x.md") == cite.rewrite(text)


def test_a_block_a_program_writes_is_never_rewrapped() -> None:
    cite = _script()
    title = "**The issue's table**, " + "word " * 15 + "with SPEC 6's exact bound, in brackets):"
    text = f"<!-- bench/coverage.py writes from here: do not edit -->\n\n{title}\n\n"
    text += "<!-- bench/coverage.py writes up to here -->\n" + title + "\n"
    lines = cite.reflow(cite.rewrite(text), "docs/statistics.md").splitlines()
    assert lines[2] == cite.rewrite(title)  # one line, as the bench writes it
    assert len(lines) == 7 and all(len(line) <= 100 for line in lines[5:])


def test_check_mode_changes_nothing_and_says_whether_a_file_would_change(tmp_path: Path) -> None:
    (tmp_path / "docs").mkdir()
    page = tmp_path / "docs" / "page.md"
    page.write_text("The rule (SPEC 4).\n", encoding="utf-8")
    run = [sys.executable, str(SCRIPT), "--root", str(tmp_path)]
    check = subprocess.run([*run, "--check"], capture_output=True, text=True, check=False)
    assert check.returncode == 1 and "docs/page.md" in check.stdout
    assert page.read_text(encoding="utf-8") == "The rule (SPEC 4).\n"
    subprocess.run(run, capture_output=True, check=True)
    assert page.read_text(encoding="utf-8") == "The rule (docs/spec.md §4).\n"
    again = subprocess.run([*run, "--check"], capture_output=True, text=True, check=False)
    assert again.returncode == 0 and again.stdout == ""

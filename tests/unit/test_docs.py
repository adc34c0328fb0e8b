r"""The documentation keeps up with the code: every reason code documented, every link alive.

`docs/reason-codes.md` has one `### \`code\`` heading per value of `bot.vocab.findings.Code`, in the
enum's order, so a code added (or renamed) without its documentation fails here. Relative links
in `docs/*.md` and `README.md` must point to files or folders that exist; web links and
anchors are not followed.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from bot.vocab.findings import Code

PROJECT = Path(__file__).resolve().parents[2]
DOCS = PROJECT / "docs"
REASON_CODES = DOCS / "reason-codes.md"

_HEADING = re.compile(r"^### `([^`]+)`\s*$", re.MULTILINE)
_FENCE = re.compile(r"^(```|~~~).*?^\1[^\n]*$", re.MULTILINE | re.DOTALL)
_CODE_SPAN = re.compile(r"`[^`\n]*`")
# [text](target) or ![alt](target), the target optionally followed by a "title".
_INLINE_LINK = re.compile(r"!?\[[^\]]*\]\(\s*<?([^)\s>]+)>?(?:\s+\"[^\"]*\")?\s*\)")
# [label]: target
_REFERENCE = re.compile(r"^\s{0,3}\[[^\]]+\]:\s*<?(\S+?)>?(?:\s.*)?$", re.MULTILINE)
_EXTERNAL = re.compile(r"^[a-zA-Z][a-zA-Z0-9+.-]*:")  # http:, https:, mailto:, ...


def _documented_codes() -> list[str]:
    return _HEADING.findall(REASON_CODES.read_text(encoding="utf-8"))


def test_every_reason_code_is_documented_exactly_once() -> None:
    documented = _documented_codes()
    codes = [code.value for code in Code]
    missing = sorted(set(codes) - set(documented))
    unknown = sorted(set(documented) - set(codes))
    repeated = sorted({code for code in documented if documented.count(code) > 1})
    assert not missing, f"codes without a section in docs/reason-codes.md: {missing}"
    assert not unknown, f"sections for codes bot.vocab.findings.Code does not have: {unknown}"
    assert not repeated, f"codes documented twice: {repeated}"


def test_reason_codes_are_documented_in_the_enum_order() -> None:
    assert _documented_codes() == [code.value for code in Code]


def _markdown_files() -> list[Path]:
    files = sorted(DOCS.glob("*.md"))
    readme = PROJECT / "README.md"
    if readme.is_file():
        files.append(readme)
    return files


def _link_targets(text: str) -> list[str]:
    """Link targets outside code blocks and code spans."""
    prose = _CODE_SPAN.sub("", _FENCE.sub("", text))
    return _INLINE_LINK.findall(prose) + _REFERENCE.findall(prose)


def _relative_links(file: Path) -> list[str]:
    return [
        target
        for target in _link_targets(file.read_text(encoding="utf-8"))
        if not target.startswith("#") and not _EXTERNAL.match(target)
    ]


@pytest.mark.parametrize("file", _markdown_files(), ids=lambda file: file.name)
def test_relative_links_point_to_existing_files(file: Path) -> None:
    broken = []
    for target in _relative_links(file):
        path = target.split("#", 1)[0].split("?", 1)[0]
        if not (file.parent / path).exists():
            broken.append(target)
    assert not broken, f"{file.relative_to(PROJECT)}: links to missing files: {broken}"


def test_link_finder_sees_links_and_skips_code() -> None:
    text = (
        'See [a](a.md), ![img](img/x.png "title") and [web](https://example.org/x).\n'
        "[ref]: ../b.md\n"
        "`[not](a-link.md)`\n"
        "```\n[nor](this.md)\n```\n"
    )
    assert sorted(_link_targets(text)) == [
        "../b.md",
        "a.md",
        "https://example.org/x",
        "img/x.png",
    ]

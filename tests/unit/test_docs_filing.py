"""Issue 11, item 4: the filing docs say what the code does, the same way on every page.

- every field of `schemas/market.schema.json` is documented in docs/markets-and-resolution.md
  (`failure.values`, `label.negative`, ...);
- `--base-ref`'s default is said one way in every command's `--help` and in the docs;
- the merge advice agrees on every page: a paragraph that mentions squash merges says the
  GitHub API confirms them, and rebase merging / fast-forwarding is only ever advised against;
- the filing guide's step 1 shows the local merge command as GitHub's web flow, the same
  command the replayed tutorial runs, with the committer the bot requires.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from bot.faces.cli import BASE_REF_DEFAULT, _parser
from bot.vocab.commits import WEB_FLOW_EMAIL, WEB_FLOW_NAME

PROJECT = Path(__file__).resolve().parents[2]
DOCS = PROJECT / "docs"
PAGES = [PROJECT / "README.md", *sorted(DOCS.glob("*.md"))]
_FENCE = re.compile(r"^\s*```.*?^\s*```[^\n]*$", re.MULTILINE | re.DOTALL)


def _fields(node: Any, prefix: str = "") -> Iterator[str]:
    """Every property name of a schema, with its parent's name (`failure.values`)."""
    if isinstance(node, dict):
        for name, sub in node.get("properties", {}).items():
            yield f"{prefix}{name}"
            yield from _fields(sub, f"{name}.")
        for key in ("$defs", "oneOf", "allOf", "anyOf"):
            value = node.get(key)
            subs = value.values() if isinstance(value, dict) else value or []
            for sub in subs:
                yield from _fields(sub, prefix)
        if "$ref" in node and node["$ref"].startswith("#/$defs/"):
            return


def test_every_market_field_is_documented() -> None:
    schema = json.loads((PROJECT / "schemas" / "market.schema.json").read_text())
    text = (DOCS / "markets-and-resolution.md").read_text(encoding="utf-8")
    fields = set(_fields(schema))
    # A predicate's or a label's fields are documented under the bar fields that use them.
    fields |= {f"failure.{n}" for n in ("field", "in", "values")}
    fields |= {f"success.{n}" for n in ("field", "in", "values")}
    assert {"label.negative", "failure.values", "within_unit", "floors.required_families"} <= fields
    spans = re.findall(r"`([^`\n]+)`", text)

    def documented(name: str) -> bool:
        last = name.rsplit(".", 1)[-1]
        return name in spans or any(re.search(rf"\b{re.escape(last)}\b", s) for s in spans)

    assert sorted(name for name in fields if not documented(name)) == []
    for name in ("failure.values", "label.negative", "success.values"):
        assert f"`{name}`" in text, name


def _help(*command: str) -> str:
    parser = _parser()
    actions = parser._subparsers._group_actions[0].choices  # type: ignore[union-attr]
    sub = actions[command[0]]
    return " ".join(sub.format_help().split())


@pytest.mark.parametrize("command", ["verify", "resolve", "explain"])
def test_base_ref_default_is_said_the_same_way_in_help(command: str) -> None:
    text = _help(command)
    assert f"({BASE_REF_DEFAULT})" in text


def _paragraphs(page: Path) -> list[str]:
    text = _FENCE.sub("", page.read_text(encoding="utf-8"))
    return [" ".join(p.split()) for p in re.split(r"\n\s*\n|\n(?=\s*[-*] |\s*\d+\. )", text)]


def test_base_ref_default_is_said_the_same_way_in_the_docs() -> None:
    said = [
        (page.name, default)
        for page in PAGES
        for paragraph in _paragraphs(page)
        if "--base-ref" in paragraph
        for default in re.findall(r"\(default:?[^)]*\bmain\b[^)]*\)", paragraph)
    ]
    assert len(said) >= 2
    for name, default in said:
        assert default == "(default: `main`, else `origin/main`)", (name, default)


def test_the_merge_advice_agrees_on_every_page() -> None:
    for page in PAGES:
        if page.name == "reason-codes.md":  # quotes the bot's messages, checked by the others
            continue
        for paragraph in _paragraphs(page):
            lowered = paragraph.lower()
            if "squash" in lowered:
                assert "api" in lowered or "merge_commit_sha" in lowered, (
                    page.name,
                    paragraph,
                )
            if "rebase" in lowered or "fast-forward" in lowered:
                assert any(
                    word in lowered for word in ("never", "turn off", "proves nothing", "put")
                ), (page.name, paragraph)


def test_filing_guide_step_1_shows_github_s_merge_as_the_tutorial_runs_it() -> None:
    guide = (DOCS / "filing-an-attempt.md").read_text(encoding="utf-8")
    tutorial = (DOCS / "tutorial.md").read_text(encoding="utf-8")
    step = guide[guide.index("1. **The freeze pull request**") : guide.index("2. **Run the trials")]
    identity = f"GIT_COMMITTER_NAME={WEB_FLOW_NAME} GIT_COMMITTER_EMAIL={WEB_FLOW_EMAIL}"
    commands = re.findall(r"```sh\n(.*?)```", step, re.DOTALL)
    assert len(commands) == 1 and identity in commands[0]
    merge = [" ".join(line.strip() for line in commands[0].splitlines())]
    replayed = [
        " ".join(line.strip() for line in body.splitlines())
        for body in re.findall(r"```sh\n(.*?)```", tutorial, re.DOTALL)
    ]
    assert any(merge[0].replace("\\ ", "") in body.replace("\\ ", "") for body in replayed)
    assert "merge commit" in step and "squash" in step and "freeze-date-unconfirmed" in step


def test_the_unit_keys_section_warns_an_auroc_bar_needs_units_of_one() -> None:
    # A filer whose attacks really share a family learns it before the run, not from a
    # refused bar after it.
    text = (DOCS / "filing-an-attempt.md").read_text(encoding="utf-8")
    section = text.split("### Unit keys", 1)[1].split("\n### ", 1)[0]
    warning = " ".join(section.split("**Plan an AUROC bar before the run.**", 1)[1].split())
    assert "counts only when no two of its trials share a value of any of the market's" in warning
    assert "give each attack its own attack family" in warning

"""tools/rename_words.py renames whole identifiers only, and no old word is left in bot/,
tests/, bench/ or docs/ (issue 24: one word per idea). The old names are built from the
script's mapping here, so that this file holds none of them."""

from __future__ import annotations

import importlib.util
from collections import Counter
from pathlib import Path
from types import ModuleType

PROJECT = Path(__file__).resolve().parents[2]
SCRIPT = PROJECT / "tools" / "rename_words.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("rename_words", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_no_old_name_is_left() -> None:
    script = _script()
    left: Counter[str] = Counter()
    for path in script._files(PROJECT, []):
        script.rename_text(path.read_text(encoding="utf-8"), script.MAPPING, left)
    assert left == Counter()


def test_only_whole_identifiers_are_renamed() -> None:
    script = _script()
    old = "Case" + "Check"
    text = f'{old}(x); {old}er; My{old}; "{old}"; mod.{old}; {{"check": 1}}; check_cases\n'
    counts: Counter[str] = Counter()
    new = script.rename_text(text, script.MAPPING, counts)
    assert new == (
        "CaseChecker(x); CaseChecker; My" + old + '; "CaseChecker"; mod.CaseChecker;'
        ' {"check": 1}; check_cases\n'
    )
    assert counts == Counter({old: 3})


def test_renaming_twice_changes_nothing(tmp_path: Path) -> None:
    script = _script()
    (tmp_path / "bot").mkdir()
    source = tmp_path / "bot" / "one.md"
    source.write_text("".join(f"`{old}` " for old in script.MAPPING) + "\n", encoding="utf-8")
    assert script.main(["--root", str(tmp_path)]) == 0
    once = source.read_text(encoding="utf-8")
    assert once.split() == [f"`{new}`" for new in script.MAPPING.values()]
    assert script.main(["--root", str(tmp_path)]) == 0
    assert source.read_text(encoding="utf-8") == once

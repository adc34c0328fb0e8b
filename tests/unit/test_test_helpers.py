"""The tests share helpers through helper modules (tests/support.py and the like), never by
importing another test module or conftest.py: a test module is a list of tests, and pytest
may load it under another name than an import would."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parents[1]


def _imports(file: Path) -> list[tuple[int, str]]:
    """(line, module) of every import in `file`, relative imports left out."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(ast.parse(file.read_text(encoding="utf-8"), str(file))):
        if isinstance(node, ast.ImportFrom) and node.module and not node.level:
            found.append((node.lineno, node.module))
            found.extend((node.lineno, f"{node.module}.{alias.name}") for alias in node.names)
        elif isinstance(node, ast.Import):
            found.extend((node.lineno, alias.name) for alias in node.names)
    return found


def _reaches_a_test_module(module: str) -> bool:
    parts = module.split(".")
    return parts[0] == "tests" and any(
        part.startswith("test_") or part == "conftest" for part in parts[1:]
    )


def offending_imports(root: Path) -> list[str]:
    """file:line of every import under `root` of a test module (test_*.py) or conftest.py."""
    return sorted(
        {
            f"{file.relative_to(root)}:{line}"
            for file in root.rglob("*.py")
            for line, module in _imports(file)
            if _reaches_a_test_module(module)
        }
    )


def test_no_test_module_or_conftest_is_imported() -> None:
    assert offending_imports(TESTS) == []


@pytest.mark.parametrize(
    "line",
    [
        "from tests.unit.rules.test_judge import MemoryTree",
        "from tests.conftest import RegistryFactory",
        "import tests.acceptance.test_site",
        "from tests.unit.app import test_cache",
    ],
)
def test_an_import_of_a_test_module_is_found(tmp_path: Path, line: str) -> None:
    (tmp_path / "test_x.py").write_text(f"def f() -> None:\n    {line}\n")
    assert offending_imports(tmp_path) == ["test_x.py:2"]


def test_helper_modules_may_be_imported(tmp_path: Path) -> None:
    (tmp_path / "test_x.py").write_text(
        "from tests.support import shared_rules\nfrom tests.closing import run\n"
        "from tests.unit.faces.github.judge_setup import port\n"
    )
    assert offending_imports(tmp_path) == []

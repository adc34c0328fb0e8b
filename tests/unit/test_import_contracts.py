"""The import contracts in pyproject.toml (`[tool.importlinter]`) hold, and each fails when broken.

`.ci/run` runs `lint-imports` on the checkout; these tests also show that the contracts bite: a
copy of `bot/` with one forbidden import added is reported, naming the contract and the import.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.support import PROJECT

# The console script's own entry point, run by this interpreter (no PATH lookup).
LINT_IMPORTS = (
    "import sys; from importlinter.cli import lint_imports_command; "
    "sys.exit(lint_imports_command())"
)


def _lint_imports(root: Path, cache: Path) -> subprocess.CompletedProcess[str]:
    # PYTHONPATH first, so `bot` is the copy under `root` and not the installed package.
    return subprocess.run(
        [sys.executable, "-c", LINT_IMPORTS, "--cache-dir", str(cache)],
        cwd=root,
        env={"PYTHONPATH": str(root), "PATH": "/usr/bin:/bin", "NO_COLOR": "1"},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_the_contracts_hold_on_the_checkout(tmp_path: Path) -> None:
    result = _lint_imports(PROJECT, tmp_path / "cache")
    assert result.returncode == 0, result.stdout + result.stderr
    assert " 0 broken." in result.stdout
    for name in (
        "layers: faces > app > rules | edges > vocab",
        "the rules touch no git, network, sandbox or YAML",
        "the report renderers import no app workflow",
        "no face reaches into another face",
    ):
        assert f"{name} KEPT" in result.stdout


@pytest.mark.parametrize(
    ("module", "line", "contract", "reported"),
    [
        (
            "bot/rules/verdict.py",
            "from bot.edges.history import History  # noqa: F401\n",
            "layers: faces > app > rules | edges > vocab",
            "bot.rules is not allowed to import bot.edges",
        ),
        (
            "bot/edges/fetch.py",
            "import bot.rules.judge  # noqa: F401\n",
            "layers: faces > app > rules | edges > vocab",
            "bot.edges is not allowed to import bot.rules",
        ),
        (
            "bot/edges/fetch.py",
            "import bot.app.api  # noqa: F401\n",
            "layers: faces > app > rules | edges > vocab",
            "bot.edges is not allowed to import bot.app",
        ),
        (
            "bot/vocab/findings.py",
            "import bot.rules.verdict  # noqa: F401\n",
            "layers: faces > app > rules | edges > vocab",
            "bot.vocab is not allowed to import bot.rules",
        ),
        (
            "bot/app/gather.py",
            "import bot.faces.cli  # noqa: F401\n",
            "layers: faces > app > rules | edges > vocab",
            "bot.app.gather -> bot.faces.cli",
        ),
        (
            "bot/rules/stats/units.py",
            "import requests  # noqa: F401\n",
            "the rules touch no git, network, sandbox or YAML",
            "bot.rules is not allowed to import requests",
        ),
        (
            "bot/vocab/names.py",
            "import yaml  # noqa: F401\n",
            "the rules touch no git, network, sandbox or YAML",
            "bot.vocab is not allowed to import yaml",
        ),
        (
            "bot/faces/report/text.py",
            "from bot.app.api import verify_registry  # noqa: F401\n",
            "the report renderers import no app workflow",
            "bot.faces.report is not allowed to import bot.app.api",
        ),
        (
            "bot/faces/site/model.py",
            "import bot.faces.jobs.plan  # noqa: F401\n",
            "no face reaches into another face",
            "bot.faces.site is not allowed to import bot.faces.jobs",
        ),
    ],
)
def test_a_forbidden_import_breaks_its_contract(
    tmp_path: Path, module: str, line: str, contract: str, reported: str
) -> None:
    copy = tmp_path / "copy"
    shutil.copytree(PROJECT / "bot", copy / "bot", ignore=shutil.ignore_patterns("__pycache__"))
    shutil.copy(PROJECT / "pyproject.toml", copy / "pyproject.toml")
    with (copy / module).open("a", encoding="utf-8") as file:
        file.write(line)

    result = _lint_imports(copy, tmp_path / "cache")

    assert result.returncode == 1, result.stdout + result.stderr
    assert f"{contract} BROKEN" in result.stdout
    assert reported in result.stdout


def test_no_module_imports_itself_back() -> None:
    """No import circle in bot/, counting imports inside functions and under TYPE_CHECKING:
    every strongly connected component of the module graph is a single module."""
    import grimp

    graph = grimp.build_graph("bot")
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    circles: list[list[str]] = []

    def visit(module: str) -> None:
        # Tarjan's algorithm; the graph has ~200 modules, well inside the recursion limit.
        index[module] = low[module] = len(index)
        stack.append(module)
        for imported in graph.find_modules_directly_imported_by(module):
            if imported not in index:
                visit(imported)
                low[module] = min(low[module], low[imported])
            elif imported in stack:
                low[module] = min(low[module], index[imported])
        if low[module] == index[module]:
            component = [stack.pop()]
            while component[-1] != module:
                component.append(stack.pop())
            if len(component) > 1:
                circles.append(sorted(component))

    for module in sorted(graph.modules):
        if module not in index:
            visit(module)
    assert circles == []

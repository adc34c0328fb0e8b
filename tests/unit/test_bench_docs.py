"""bench/docs_section.py: a bench run writes its printed figures into docs/performance.md
between its own markers, leaving the rest of the page as it was (no time is asserted)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

import pytest

from tests.support import PROJECT


def _module() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "docs_section", PROJECT / "bench" / "docs_section.py"
    )
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


PAGE = (
    "# Performance\n\nintro\n\n<!-- bench:startup -->\nold figures\n<!-- /bench:startup -->\n"
    "\ntail\n"
)


def test_only_the_marked_block_is_replaced(tmp_path: Path) -> None:
    page = tmp_path / "performance.md"
    page.write_text(PAGE)
    _module().write_section(
        "startup", "| what | median |\n| x | 1 s |\n", "python bench/startup.py", page
    )
    text = page.read_text()
    assert text.startswith("# Performance\n\nintro\n\n<!-- bench:startup -->\n")
    assert text.endswith("<!-- /bench:startup -->\n\ntail\n")
    assert "old figures" not in text
    assert "`python bench/startup.py`, run " in text
    assert "```\n| what | median |\n| x | 1 s |\n```" in text


@pytest.mark.parametrize(
    "body",
    [
        "no markers\n",
        "<!-- /bench:startup -->\n<!-- bench:startup -->\n",
        "<!-- bench:startup -->\n<!-- bench:startup -->\n<!-- /bench:startup -->\n",
        "<!-- bench:startup -->\nx\n<!-- /bench:startup -->\n<!-- /bench:startup -->\n",
    ],
)
def test_missing_or_doubled_markers_leave_the_page_untouched(tmp_path: Path, body: str) -> None:
    page = tmp_path / "performance.md"
    page.write_text(body)
    with pytest.raises(ValueError, match="no single pair of markers"):
        _module().write_section("startup", "figures", "cmd", page)
    assert page.read_text() == body


def test_captured_output_is_printed_and_kept(capsys: pytest.CaptureFixture[str]) -> None:
    with _module().captured() as printed:
        print("N = 100,000")
    assert printed.getvalue() == "N = 100,000\n"
    assert capsys.readouterr().out == "N = 100,000\n"
    assert sys.stdout is not None


def test_the_page_has_the_markers_the_bench_scripts_write() -> None:
    text = (PROJECT / "docs" / "performance.md").read_text()
    for name in (
        "verify_scale-100k",
        "verify_scale-1m",
        "verify_stages-100k",
        "verify_stages-1m",
        "startup",
    ):
        assert text.count(f"<!-- bench:{name} -->") == 1
        assert text.count(f"<!-- /bench:{name} -->") == 1

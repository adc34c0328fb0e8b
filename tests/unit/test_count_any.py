"""tools/count_any.py counts `Any` as the code uses it, and the rules layer's signatures name
none (issue 24: the pure core states the types it takes)."""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path
from types import ModuleType

PROJECT = Path(__file__).resolve().parents[2]
SCRIPT = PROJECT / "tools" / "count_any.py"


def _script() -> ModuleType:
    spec = importlib.util.spec_from_file_location("count_any", SCRIPT)
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(spec.name, module)  # its dataclass looks its module up there
    spec.loader.exec_module(sys.modules[spec.name])
    return sys.modules[spec.name]


def test_no_signature_in_the_rules_layer_names_any() -> None:
    count_any = _script()
    named = [
        f"{count.name}: {count.signatures}"
        for layer, count in count_any.modules(PROJECT / "bot")
        if layer == "rules" and count.signatures
    ]
    assert named == []


def test_uses_and_signatures_are_counted_from_the_code(tmp_path: Path) -> None:
    package = tmp_path / "pkg"
    (package / "core").mkdir(parents=True)
    (package / "core" / "one.py").write_text(
        '"""Any in a docstring is no use."""\n'
        "from typing import Any\n"
        "import typing\n"
        "# Any in a comment is none either\n"
        "Alias = dict[str, Any]\n"
        "def typed(x: int) -> int:\n"
        "    return x\n"
        "def loose(x: Any, *rest: typing.Any) -> None:\n"
        "    pass\n"
        "def returns() -> list[Any]:\n"
        "    local: Any = 1\n"
        "    return [local]\n",
        encoding="utf-8",
    )
    count_any = _script()
    [(layer, count)] = list(count_any.modules(package))
    assert layer == "core"
    assert (count.lines, count.uses, count.signatures) == (12, 5, 2)
    assert round(count.per_kloc) == round(5000 / 12)
    table = count_any.report(package, None, False)
    assert any(line.startswith("pkg/core ") for line in table)

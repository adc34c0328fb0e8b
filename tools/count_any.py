"""Count `typing.Any` in `bot/`: uses per 1,000 lines, per layer and per module.

    python tools/count_any.py              the layers, then every module that uses Any
    python tools/count_any.py --layer rules   the modules of one layer only
    python tools/count_any.py --all        every module, also those with none

A use is a reference to `Any` in the code (`Any`, `typing.Any`, `t.Any`) as Python's own
parser sees it, so the word in a comment or a docstring is not counted and neither is the
import line. `signatures` counts the functions (and methods) whose parameters or return type
name `Any`: the rules layer keeps that at 0 (issue 24). Lines are physical lines, blank lines
and comments included, so the rate compares with a plain `wc -l`.
"""

from __future__ import annotations

import argparse
import ast
import sys
from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


@dataclass(frozen=True)
class Count:
    """The figures of one module, or the sum over a layer."""

    name: str
    lines: int
    uses: int
    signatures: int

    @property
    def per_kloc(self) -> float:
        return 1000 * self.uses / self.lines if self.lines else 0.0


def _is_any(node: ast.AST) -> bool:
    if isinstance(node, ast.Name):
        return node.id == "Any"
    return isinstance(node, ast.Attribute) and node.attr == "Any"


def _mentions_any(node: ast.AST | None) -> bool:
    if node is None:
        return False
    return any(_is_any(child) for child in ast.walk(node))


def _in_signature(function: ast.FunctionDef | ast.AsyncFunctionDef) -> bool:
    arguments = function.args
    every = [
        *arguments.posonlyargs,
        *arguments.args,
        *arguments.kwonlyargs,
        *(a for a in (arguments.vararg, arguments.kwarg) if a is not None),
    ]
    return _mentions_any(function.returns) or any(_mentions_any(a.annotation) for a in every)


def count_module(path: Path, name: str) -> Count:
    """The figures of the module at `path`, shown as `name`."""
    text = path.read_text(encoding="utf-8")
    tree = ast.parse(text, filename=str(path))
    uses = sum(1 for node in ast.walk(tree) if _is_any(node))
    signatures = sum(
        1
        for node in ast.walk(tree)
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef) and _in_signature(node)
    )
    return Count(name, len(text.splitlines()), uses, signatures)


def modules(package: Path) -> Iterator[tuple[str, Count]]:
    """(layer, figures) for every module under `package`; top-level modules are their own
    layer ("__main__")."""
    for path in sorted(package.rglob("*.py")):
        relative = path.relative_to(package)
        layer = relative.parts[0] if len(relative.parts) > 1 else relative.stem
        yield layer, count_module(path, str(path.relative_to(package.parent)))


def total(name: str, counts: Iterable[Count]) -> Count:
    listed = list(counts)
    return Count(
        name,
        sum(c.lines for c in listed),
        sum(c.uses for c in listed),
        sum(c.signatures for c in listed),
    )


def _row(count: Count) -> str:
    figures = f"{count.lines:>7} {count.uses:>5} {count.per_kloc:>8.1f} {count.signatures:>10}"
    return f"{count.name:<44} {figures}"


def report(package: Path, layer: str | None, every: bool) -> list[str]:
    """The table's lines."""
    by_layer: dict[str, list[Count]] = {}
    for name, count in modules(package):
        by_layer.setdefault(name, []).append(count)
    if layer is not None and layer not in by_layer:
        raise SystemExit(f"no layer {layer!r} in {package}; there are: {', '.join(by_layer)}")
    header = f"{'':<44} {'lines':>7} {'Any':>5} {'per 1k':>8} {'signatures':>10}"
    lines = [header]
    shown = [layer] if layer is not None else sorted(by_layer)
    for name in shown:
        lines.append(_row(total(f"{package.name}/{name}", by_layer[name])))
    if layer is None:
        lines.append(
            _row(total(f"{package.name} (all)", (c for m in by_layer.values() for c in m)))
        )
    listed = sorted(
        (c for n in shown for c in by_layer[n] if every or c.uses),
        key=lambda c: (-c.per_kloc, c.name),
    )
    if listed:
        lines += ["", header, *(_row(c) for c in listed)]
    return lines


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--layer", help="only this layer (rules, edges, app, faces, vocab)")
    parser.add_argument("--all", action="store_true", help="list modules without Any too")
    parser.add_argument("--package", type=Path, default=ROOT / "bot", help=argparse.SUPPRESS)
    options = parser.parse_args(argv)
    print("\n".join(report(options.package, options.layer, options.all)))
    return 0


if __name__ == "__main__":
    sys.exit(main())

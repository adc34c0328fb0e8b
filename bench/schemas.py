"""Benchmark schema validation on hostile lists; prints figures, asserts nothing.

    python bench/schemas.py [ITEMS ...]     (default: 4000 125000)

The hostile file is adapter/adapter.yaml with `outputs: [x, 0, 1, 2, ...]`: a list of mixed
types. jsonschema's `uniqueItems` cannot sort such a list and compared it pairwise: 4,000 items
took 5.6 s, 20,000 about 160 s, and the 870 KB file of ~125,000 items held `claims verify` for
over an hour. With `maxItems` on every array and `distinctItems` checked by hashing
(bot/rules/evidence/schema.py), each size is one `schema` finding.

Per size: the file's size, time and peak traced memory to parse it and validate it against the
adapter schema, and the time of a whole `verify` of a wrapped attempt that carries it.
"""

from __future__ import annotations

import sys
import tempfile
import time
import tracemalloc
from datetime import date
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bot.app.attempt_verify import verify_attempt
from bot.app.registry import load_registry
from bot.edges.history import open_history
from bot.edges.load.yaml_ import parse_yaml
from bot.edges.tree import FolderTree
from bot.faces.demo.specimen import AttemptSpec
from bot.rules.evidence.schema import validate
from tests.support import RegistryFactory

ADAPTER = "adapter/adapter.yaml"
HONEST_OUTPUTS = "outputs:\n- freeze-cases.jsonl\n- trials.jsonl\n"


def hostile(text: str, items: int) -> str:
    """`text` (an honest adapter.yaml) with `outputs` made a flow list of `items` items."""
    listed = ", ".join(str(i) for i in range(items - 1))
    return text.replace(HONEST_OUTPUTS, f"outputs: [x, {listed}]\n")


def main(sizes: list[int]) -> None:
    header = f"{'items':>8} {'bytes':>9} {'parse+schema ms':>16} {'peak MiB':>9} {'verify s':>9}"
    print(f"{header}  findings")
    for items in sizes:
        with tempfile.TemporaryDirectory() as folder:

            def change(files: dict[str, bytes], items: int = items) -> None:
                files[ADAPTER] = hostile(files[ADAPTER].decode(), items).encode()

            built = RegistryFactory(Path(folder))(AttemptSpec(kind="wrapped"), change=change)
            raw = (built.attempt / ADAPTER).read_bytes()

            def schema(raw: bytes = raw) -> list[str]:
                document, problems = parse_yaml(raw, ADAPTER)
                assert document is not None, problems
                return [f.message for f in validate("adapter", document.data, ADAPTER)]

            started = time.perf_counter()
            messages = schema()
            elapsed = time.perf_counter() - started
            tracemalloc.start()
            schema()
            peak = tracemalloc.get_traced_memory()[1] / 2**20
            tracemalloc.stop()

            registry = load_registry(FolderTree(built.root))
            history = open_history(built.root, "main")
            as_of = date(2027, 4, 15)
            path = built.attempt.relative_to(built.root).as_posix()
            started = time.perf_counter()
            verdict, _ = verify_attempt(registry, path, history, as_of)
            verify = time.perf_counter() - started
            codes = sorted({f.code.value for f in verdict.findings})
            print(
                f"{items:>8} {len(raw):>9} {elapsed * 1000:>16.1f} {peak:>9.1f} {verify:>9.2f}"
                f"  {codes}: {messages}"
            )


if __name__ == "__main__":
    main([int(arg) for arg in sys.argv[1:]] or [4000, 125_000])

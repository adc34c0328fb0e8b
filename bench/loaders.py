"""Benchmark the safe loaders against hostile and large inputs; prints figures, asserts nothing.

    python bench/loaders.py

Figures: time to refuse a 2 MB YAML alias bomb (with the size cap raised so the alias rule is
what refuses it, and with the default cap), time to refuse a duplicate key at the end of a
1 MB YAML file, JSONL throughput and peak traced memory on 100,000 trial lines, and on one
over-long 48 MiB line (docs/spec.md §4.2: 867 MiB for `json` on such a line).

Containers (`python bench/loaders.py containers` runs only these): 22 lines of 1 MB of empty
lists (22 MB: ~675 MB and 35 s before records were counted on their bytes), and the most an
attacker gets within the caps: lines just under the per-record container (or value) cap until
the file's cap stops the reading. Each prints peak traced memory and its ratio to the file.
"""

from __future__ import annotations

import io
import json
import sys
import time
import tracemalloc
from collections.abc import Callable
from typing import Any

from bot.edges.load.yaml_ import parse_yaml
from bot.vocab.config import Limits
from bot.vocab.jsonl import parse_jsonl


def alias_bomb(size: int) -> bytes:
    lines = [b'a: &a ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for index in range(1, 9):
        previous, name = chr(ord("a") + index - 1), chr(ord("a") + index)
        refs = ", ".join([f"*{previous}"] * 9)
        lines.append(f"{name}: &{name} [{refs}]".encode())
    body = b"\n".join(lines) + b"\n"
    return body + b"#" + b"x" * (size - len(body) - 2) + b"\n"


def duplicate_key_at_end(size: int) -> bytes:
    lines, total, index = [], 0, 0
    while total < size - 20:
        line = f"key{index}: value {index}\n".encode()
        lines.append(line)
        total += len(line)
        index += 1
    return b"".join(lines) + b"key0: again\n"


def measure(label: str, work: Callable[[], Any]) -> Any:
    """Time one run untraced, then measure peak memory in a second, traced run."""
    started = time.perf_counter()
    result = work()
    elapsed = time.perf_counter() - started
    tracemalloc.start()
    work()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    print(f"{label:58} {elapsed * 1000:9.1f} ms   peak {peak / 2**20:7.1f} MiB")
    return result


def empty_lists_line(size: int) -> bytes:
    """One JSONL record of `size` bytes or less: an object holding a list of empty lists."""
    count = (size - 10) // 4
    return b'{"a": [' + b", ".join([b"[]"] * count) + b"]}\n"


def containers() -> None:
    def run(label: str, data: bytes) -> None:
        started = time.perf_counter()
        parse_jsonl(io.BytesIO(data), "trials.jsonl")
        elapsed = time.perf_counter() - started
        tracemalloc.start()
        records, findings = parse_jsonl(io.BytesIO(data), "trials.jsonl")
        peak = tracemalloc.get_traced_memory()[1]
        tracemalloc.stop()
        size = len(data)
        print(
            f"{label} ({size / 2**20:.1f} MiB): {elapsed:.2f} s, peak {peak / 2**20:.1f} MiB"
            f" ({peak / size:.1f}x the file)"
        )
        first = f"; line {findings[0].line}: {findings[0].message}" if findings else ""
        print(f"    -> {len(records)} records, {len(findings)} refused{first[:120]}")

    run("JSONL, 22 lines of 1 MB of empty lists", empty_lists_line(999_990) * 22)
    cap = Limits().max_jsonl_record_containers
    line = empty_lists_line(4 * (cap - 2) + 10)
    run(f"JSONL, 120 lines of {cap - 2} empty lists (the caps)", line * 120)
    values = Limits().max_jsonl_record_values
    strings = b'{"a": [' + b", ".join([b'"ab"'] * (values - 2)) + b"]}\n"
    run(f"JSONL, 60 lines of {values - 2} two-letter strings (the caps)", strings * 60)


def main() -> None:
    if sys.argv[1:] == ["containers"]:
        containers()
        return
    bomb = alias_bomb(2_000_000)
    raised = Limits(max_yaml_bytes=4_000_000)
    _, findings = measure(
        "2 MB alias bomb, cap raised (alias rule refuses)",
        lambda: parse_yaml(bomb, "bomb.yaml", raised),
    )
    print(f"    -> {findings[0].code}: {findings[0].message}")
    _, findings = measure(
        "2 MB alias bomb, default 1 MB cap (size refuses)", lambda: parse_yaml(bomb, "bomb.yaml")
    )
    print(f"    -> {findings[0].code}: {findings[0].message}")
    duplicate = duplicate_key_at_end(990_000)
    _, findings = measure(
        "990 kB YAML, duplicate key on the last line", lambda: parse_yaml(duplicate, "dup.yaml")
    )
    print(f"    -> {findings[0].code} line {findings[0].line}: {findings[0].message}")

    trial = {
        "case_id": "c",
        "system": "s",
        "started_at": "2027-01-01T00:00:00Z",
        "trajectory": "t",
        "evaluator": None,
        "attack_family": None,
        "result": {"verdict": "caught", "score": 0.5},
    }
    lines = b"".join(
        json.dumps(dict(trial, case_id=f"c{i}")).encode() + b"\n" for i in range(100_000)
    )
    records, _ = measure(
        f"JSONL, 100,000 trial lines ({len(lines) / 2**20:.1f} MiB)",
        lambda: parse_jsonl(io.BytesIO(lines), "trials.jsonl"),
    )
    print(f"    -> {len(records)} records")
    long_line = b'{"x": "' + b"y" * (48 * 2**20) + b'"}\n{"ok": 1}\n'
    records, findings = measure(
        "JSONL, one 48 MiB line then a valid line",
        lambda: parse_jsonl(io.BytesIO(long_line), "long.jsonl"),
    )
    print(f"    -> {len(records)} record, {findings[0].code} line {findings[0].line}")
    containers()


if __name__ == "__main__":
    main()

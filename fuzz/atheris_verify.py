"""Coverage-guided fuzzing of the loaders and the judge with atheris (optional; not in the suite).

    pip install atheris                     # not a dependency of the project
    python fuzz/atheris_verify.py -atheris_runs=200000 fuzz/corpus   # from the repository root

Each input is read as a list of choices (atheris's `FuzzedDataProvider`) that
tests/adversarial/mutate.py applies to an honest wrapped attempt, one to three mutations:
bytes flipped, inserted or deleted, files truncated or removed, lines dropped, duplicated or
swapped, values retyped, keys renamed. The mutated files go through the loaders and the pure
judge (tests/adversarial/harness.py: an in-memory tree, no git, network or sandbox), and the
verdict must satisfy `harness.check`: invalid exactly when an error finding says why, every
finding a known code with a message and a file. Any exception, or a failed check, is a crash
that atheris saves as `crash-<hash>`; replay one with `python fuzz/atheris_verify.py FILE`.
libFuzzer options (`-max_total_time=600`, `-jobs=2`) work as usual. docs/fuzzing.md says more.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the repository root

import atheris

with atheris.instrument_imports(include=["bot"]):
    from tests.adversarial.harness import HONEST, check, judge
    from tests.adversarial.mutate import mutate


class ProviderChooser:
    """mutate()'s choices, read from the fuzzer's input."""

    def __init__(self, provider: Any) -> None:
        self.provider = provider

    def index(self, count: int, label: str) -> int:
        return int(self.provider.ConsumeIntInRange(0, max(count - 1, 0)))

    def blob(self, label: str) -> bytes:
        return bytes(self.provider.ConsumeBytes(self.provider.ConsumeIntInRange(0, 8)))


def test_one_input(data: bytes) -> None:
    provider = atheris.FuzzedDataProvider(data)
    chooser = ProviderChooser(provider)
    files = dict(HONEST)
    for _ in range(provider.ConsumeIntInRange(1, 3)):
        mutate(files, chooser)
    check(judge(files), files)


def main() -> None:
    atheris.Setup(sys.argv, test_one_input)
    atheris.Fuzz()


if __name__ == "__main__":
    main()

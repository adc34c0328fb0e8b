"""Generate the WeirdML v3 example log: python examples/generate_weirdml_v3.py [OUT]

Writes examples/weirdml-v3/log.jsonl (or OUT), the log docs/scorers.md scores with
`claims score weirdml-v3`. Three tasks, each showing one part of the rule:

  early  the seed's "earlier improvement": 0.2 at 500k tokens, 0.8 at 5M (area 0.500, 0.560)
  late   the seed's "later improvement": the same two scores, the 0.8 at 20M (area 0.319, 0.416)
  hints  a submission before 500k (counts from 500k), two browsings and one hint bought at
         x0.9 (it lowers only the submissions after it), and a submission after the 50M
         budget (ignored)

The output is deterministic; tests/unit/rules/scorers/test_cli.py regenerates it and fails if the
committed file differs, so the example is never edited by hand.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TARGET = HERE / "weirdml-v3" / "log.jsonl"


def submission(task: str, tokens: int, score: float) -> dict[str, Any]:
    return {"task": task, "tokens": tokens, "event": "submission", "score": score}


def browse(task: str, tokens: int) -> dict[str, Any]:
    return {"task": task, "tokens": tokens, "event": "browse"}


def hint(task: str, tokens: int, factor: float) -> dict[str, Any]:
    return {"task": task, "tokens": tokens, "event": "hint", "factor": factor}


def events() -> list[dict[str, Any]]:
    return [
        submission("early", 500_000, 0.2),
        submission("early", 5_000_000, 0.8),
        submission("late", 500_000, 0.2),
        submission("late", 20_000_000, 0.8),
        submission("hints", 300_000, 0.3),  # before 500k: counts from 500k
        browse("hints", 900_000),
        browse("hints", 2_000_000),
        hint("hints", 2_000_000, 0.9),  # every later submission x0.9
        submission("hints", 4_000_000, 0.7),  # 0.63 effective
        submission("hints", 12_000_000, 0.9),  # 0.81 effective
        submission("hints", 60_000_000, 1.0),  # after the 50M budget: ignored
    ]


def render() -> bytes:
    return "".join(json.dumps(event) + "\n" for event in events()).encode("utf-8")


def main(argv: list[str]) -> int:
    target = Path(argv[0]) if argv else TARGET
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_bytes(render())
    print(f"wrote {target}")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))

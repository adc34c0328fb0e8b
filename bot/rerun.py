"""`claims verify --rerun-adapters`: rebuild a wrapped attempt's evidence and compare (SPEC 9).

1. fetch the released data adapter.yaml names into a scratch inputs folder (`bot/released.py`:
   content-addressed cache, hashes checked);
2. run adapter.yaml's command in the sandbox (`bot/sandbox`): no network, empty environment,
   read-only code and inputs, one writable output folder, CPU/memory/file/process limits and a
   wall-clock timeout; refused where the machine cannot isolate the network;
3. compare what it wrote with the attempt's files, line by line in canonical JSON
   (`bot/evidence/compare.py`).

An adapter that misbehaves ends as `adapter-failed` with how it ended; it never stops the report.
"""

from __future__ import annotations

import tempfile
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bot.config import Limits
from bot.evidence.compare import compare_outputs
from bot.findings import Code, Finding
from bot.load.folder import read_regular
from bot.released import fetch_released
from bot.sandbox import RunResult, SandboxLimits, run_adapter

__all__ = ["AdapterRerun"]

_TAIL_SHOWN = 600


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _TAIL_SHOWN else "…" + text[-_TAIL_SHOWN:]


def _failure(result: RunResult) -> str:
    detail = f"; stderr ends: {_tail(result.stderr_tail)}" if result.stderr_tail.strip() else ""
    return f"the adapter {result.status}: {result.reason}{detail}"


@dataclass(frozen=True)
class AdapterRerun:
    """How to rerun adapters: the released-data cache, the sandbox limits, and whether a
    maintainer explicitly allowed running without network isolation."""

    cache: Path
    limits: Limits = Limits()
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    allow_unisolated: bool = False

    def __call__(self, folder: Path, display: str, adapter: Mapping[str, Any]) -> list[Finding]:
        """Rerun one attempt's adapter. Returns findings (empty: it reproduced the evidence)."""
        adapter_file = f"{display}/adapter/adapter.yaml"
        with tempfile.TemporaryDirectory(prefix="claims-rerun-") as scratch:
            inputs, output = Path(scratch) / "inputs", Path(scratch) / "out"
            inputs.mkdir()
            output.mkdir()
            findings = fetch_released(
                adapter["released_data"], inputs, self.cache, adapter_file, self.limits
            )
            if findings:
                return findings
            result = run_adapter(
                adapter["command"],
                code=folder / "adapter",
                inputs=inputs,
                output=output,
                limits=self.sandbox,
                allow_unisolated=self.allow_unisolated,
            )
            if result.status != "ok":
                return [Finding(Code.ADAPTER_FAILED, _failure(result), adapter_file)]
            produced = {
                name: read_regular(output / name, self.limits.max_attempt_file_bytes)
                for name in result.outputs
            }
        submitted: dict[str, bytes | None] = {}
        for name in adapter["outputs"]:
            path = folder / name
            submitted[name] = (
                read_regular(path, self.limits.max_attempt_file_bytes)
                if path.is_file() and not path.is_symlink()
                else None
            )
        return compare_outputs(adapter["outputs"], submitted, produced, display)

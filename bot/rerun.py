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
from dataclasses import dataclass, field
from pathlib import Path

from bot.config import Limits
from bot.evidence.compare import compare_outputs
from bot.evidence.models import AdapterSpec
from bot.findings import Code, Finding
from bot.load.folder import read_regular, scan_folder
from bot.released import fetch_released
from bot.sandbox import RunResult, SandboxLimits, run_adapter
from bot.tree import Tree, TreeError, read_limited

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

    def __call__(self, tree: Tree, folder: str, adapter: AdapterSpec) -> list[Finding]:
        """Rerun one attempt's adapter. Returns findings (empty: it reproduced the evidence).

        The adapter's code is copied out of `tree` (a working tree or git objects) into a
        scratch folder, so a pull request is never checked out.
        """
        with tempfile.TemporaryDirectory(prefix="claims-rerun-") as scratch:
            inputs, output = Path(scratch) / "inputs", Path(scratch) / "out"
            code = Path(scratch) / "adapter"
            inputs.mkdir()
            output.mkdir()
            findings = fetch_released(
                list(adapter.released_data), inputs, self.cache, adapter.path, self.limits
            )
            findings += _copy_code(tree, f"{folder}/adapter", code, self.limits)
            if findings:
                return findings
            result = run_adapter(
                list(adapter.command),
                code=code,
                inputs=inputs,
                output=output,
                limits=self.sandbox,
                allow_unisolated=self.allow_unisolated,
            )
            if result.status != "ok":
                return [Finding(Code.ADAPTER_FAILED, _failure(result), adapter.path)]
            produced = {
                name: read_regular(output / name, self.limits.max_attempt_file_bytes)
                for name in result.outputs
            }
        submitted: dict[str, bytes | None] = {}
        for name in adapter.outputs:
            try:
                submitted[name] = read_limited(
                    tree, f"{folder}/{name}", self.limits.max_attempt_file_bytes
                )
            except TreeError:
                submitted[name] = None
        return compare_outputs(list(adapter.outputs), submitted, produced, folder)


def _copy_code(tree: Tree, source: str, target: Path, limits: Limits) -> list[Finding]:
    """Copy the regular files of `source` (the adapter folder) out of the tree, modes kept."""
    entries, findings, _ = scan_folder(tree, source, limits)
    for relative in entries:
        path = target / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(read_limited(tree, f"{source}/{relative}", limits.max_attempt_file_bytes))
        entry = tree.entry(f"{source}/{relative}")
        path.chmod(0o755 if entry is not None and entry.mode == "100755" else 0o644)
    target.mkdir(exist_ok=True)
    return findings

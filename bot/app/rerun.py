"""Rerun a wrapped attempt's adapter, rebuild its evidence and compare (docs/spec.md §9).

`claims resolve` reruns every wrapped attempt's adapter (unless `--no-rerun-adapters`), and
`claims verify --rerun-adapters` does on request; a wrapped attempt that was not rerun on its
evidence does not qualify (`adapter-not-rerun`, judged in `bot/rules/qualification.py`).

1. fetch the released data adapter.yaml names into a scratch inputs folder (`bot/edges/released.py`:
   content-addressed cache, hashes checked, paths that nest or leave the folder refused);
2. run adapter.yaml's command in the sandbox (`bot/sandbox`): no network, empty environment,
   read-only code and inputs, one writable output folder, CPU/memory/file/process limits and a
   wall-clock timeout;
3. compare what it wrote with the attempt's files, line by line in canonical JSON
   (`bot/app/compare.py`): `adapter-mismatch` when they differ;
4. when they match, run it once more with every released file emptied: an adapter that writes
   any of the same (non-empty) evidence files from no data carries that output instead of
   deriving it (`adapter-ignores-data`).

A comparison's result is cached in `<cache>/reruns/<key>.json`, the key being the attempt's
folder and evidence digest, the adapter files' and released data's hashes, the bot's version,
the version of the comparison (`COMPARISON`) and the sandbox limits: a daily resolution does
not rerun an unchanged wrapped attempt. Runs that did not get as far as a comparison (data not
fetched, an adapter that failed) are not cached, so a passing failure is retried.

An adapter that misbehaves ends as `adapter-failed` with how it ended, and so does an error
of the machine during the rerun (a full disk, say): no filer's attempt stops the report.
Where the machine cannot isolate the network the rerun raises `ClaimsError` (exit code 2),
unless a maintainer allowed running without isolation.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from datetime import date
from pathlib import Path
from typing import Any

import bot.edges.sandbox
from bot import __version__
from bot.app.compare import compare_outputs
from bot.app.report_json import ReportError, rerun_record_from_json, rerun_record_to_json
from bot.edges import disk
from bot.edges.load.folder import read_regular, scan_folder
from bot.edges.released import fetch_released
from bot.edges.sandbox import RunResult, SandboxLimits, run_adapter
from bot.edges.tree import Tree, read_limited
from bot.rules.evidence.models import AdapterSpec
from bot.rules.judge.inputs import AttemptFiles
from bot.vocab.config import Limits
from bot.vocab.errors import ClaimsError
from bot.vocab.findings import Code, Finding

__all__ = ["BOT_VERSION", "COMPARISON", "AdapterRerun", "Deadline", "rerun_key"]

BOT_VERSION = __version__
# What a rerun checks, versioned apart from the bot: raised whenever that changes, so that a
# result cached under the older checks is not reused. 2: the cases are an output too, and
# the emptied-data rerun flags each output written the same, not only all of them. 3: a filed
# file the comparison cannot make canonical is a difference, never "no differences".
COMPARISON = 3
_TAIL_SHOWN = 600
_RECORD_BYTES = 1 << 20  # a cached record holds a few findings: read back at most this much
# Each message of a record too long for `_RECORD_BYTES` is cut to these lengths in turn until
# it fits (`_record_text`): a message can name what a filer's server sent (a redirect target).
_RECORD_MESSAGE_CUTS = (4000, 1000, 250, 60)
# Results worth keeping: the adapter ran and its output was compared with the evidence.
_FINAL = frozenset({Code.ADAPTER_MISMATCH, Code.ADAPTER_IGNORES_DATA})
# Kept too where a results folder lives for one run (`keep_failures`): the filer's own doing,
# the same on every run (the adapter failed in the sandbox, released data with another hash or
# a bad path). Never kept: a machine error.
_OWN_FAILURES = frozenset({Code.ADAPTER_FAILED, Code.RELEASED_DATA_HASH, Code.RELEASED_DATA_PATH})
# Kept too in such a folder, as a try: a failure that may pass (the filer's server did not
# serve the released data). The close job waits for another try until the market's rerun
# deadline, and from then on judges the attempt with it (`Deadline`, `rerun-unrecorded`).
_TRIES = frozenset({Code.RELEASED_DATA_UNAVAILABLE})


def _tail(text: str) -> str:
    text = text.strip()
    return text if len(text) <= _TAIL_SHOWN else "…" + text[-_TAIL_SHOWN:]


def _tried(findings: list[Finding]) -> list[Finding]:
    """The findings of a try that may pass: all of them when each is one (`_TRIES`), else none
    (any other finding is already a result: the attempt does not qualify whatever comes)."""
    if findings and all(finding.code in _TRIES for finding in findings):
        return findings
    return []


def _failure(result: RunResult) -> str:
    detail = f"; stderr ends: {_tail(result.stderr_tail)}" if result.stderr_tail.strip() else ""
    return f"the adapter {result.status}: {result.reason}{detail}"


def rerun_key(files: AttemptFiles, sandbox_limits: SandboxLimits) -> tuple[str, dict[str, Any]]:
    """The cache key of a rerun of this attempt, and the parts it is made of."""
    adapter = files.adapter
    parts: dict[str, Any] = {
        "folder": files.folder,
        "evidence_digest": files.digest,
        "adapter_files": {
            name: entry.sha256
            for name, entry in sorted(files.entries.items())
            if name.startswith("adapter/")
        },
        "released_data": [
            [str(item.get("path")), str(item.get("sha256")).lower()]
            for item in (adapter.released_data if adapter else ())
        ],
        "bot_version": BOT_VERSION,
        "comparison": COMPARISON,
        "sandbox": asdict(sandbox_limits),
    }
    text = json.dumps(parts, sort_keys=True, separators=(",", ":"))
    return hashlib.sha256(text.encode()).hexdigest(), parts


@dataclass(frozen=True, slots=True)
class Deadline:
    """The close job's rule for a market's wrapped attempts: no attempt holds a market hostage.

    Before `day` (`passed` False) an attempt whose recorded try may still pass (the filer's
    released-data server did not answer) has no result: the market waits for the next run.
    From `day` on it has one: `rerun-unrecorded`, with the failure of the try that was
    recorded, and the market resolves from its other attempts. An attempt with nothing
    recorded on the run (its rerun job lost: the registry's fault) has no result on any day
    (docs/markets-and-resolution.md)."""

    day: date
    passed: bool

    def unrecorded(self, path: str, tried: list[Finding]) -> list[Finding]:
        last = f"; the last try recorded ended in {tried[0].code.value}" if tried else ""
        message = (
            f"no adapter rerun result was recorded for this evidence by the rerun deadline"
            f" {self.day} (the scheduled reruns never ended in a result){last}: not qualifying,"
            " and the market resolves from its other attempts"
        )
        return [Finding(Code.RERUN_UNRECORDED, message, path), *tried]


@dataclass(frozen=True)
class AdapterRerun:
    """How to rerun adapters: the released-data cache (under `sha256/`), the folder that keeps
    rerun results (`results`; None: results are not kept), the sandbox limits, and whether a
    maintainer explicitly allowed running without network isolation.

    The two caches are trusted differently. Released data is content-addressed and re-hashed
    before use, so it may come from anywhere (an Actions cache, say). A rerun result is
    believed as it stands (it says the adapter reproduced the evidence), so its folder must be
    written by the bot alone: never restored from a cache others can write (a
    planted record would make an edited wrap qualify).
    """

    cache: Path
    results: Path | None = None
    limits: Limits = Limits()
    sandbox: SandboxLimits = field(default_factory=SandboxLimits)
    allow_unisolated: bool = False
    # Only the results recorded in `results`, never a run: the verify workflow's job that
    # holds a token reads what its scope-less rerun jobs recorded (docs/running-on-github.md).
    recorded_only: bool = False
    # The results folder lives for one run (the scheduled job's rerun jobs): an adapter's own
    # failure is recorded too, so the job holding the token counts it instead of waiting for
    # a result that would never come (docs/running-on-github.md). Read back by `recorded_only`.
    keep_failures: bool = False
    # Set by the close job for one market (`bot/faces/jobs/stuck.py`): what no result means there.
    deadline: Deadline | None = None
    # The close's rerun jobs (--keep-released): each released file whose hash matched is also
    # kept as `results/released/sha256/<hex>`, while the disk has room, for the snapshot's
    # archive (bot/faces/jobs/pins.py).
    keep_released: bool = False
    # And at most this many bytes kept in all (the rerun plan's `released_bytes`: this job's
    # share of what the close job downloads, bot/faces/jobs/rerun_batches.py); None: no budget.
    keep_released_bytes: int | None = None
    # Each wrapped attempt's released data seen this run, by adapter.yaml path: (url, sha256)
    # pairs (the close job archives the files of a market's attempts).
    released_seen: dict[str, list[tuple[str, str]]] = field(default_factory=dict, compare=False)

    def __call__(self, tree: Tree, files: AttemptFiles) -> list[Finding] | None:
        """Rerun one wrapped attempt's adapter. Returns findings (empty: it reproduced the
        evidence from the released data), or None when `recorded_only` and no result is
        recorded for this evidence (not rerun: `adapter-not-rerun`).

        The adapter's code is copied out of `tree` (a working tree or git objects) into a
        scratch folder, so a pull request is never checked out. Raises `ClaimsError` only
        when the sandbox cannot run here.
        """
        adapter = files.adapter
        if adapter is None:
            return []
        self.released_seen[adapter.path] = [
            (str(item.get("url")), str(item.get("sha256")).lower())
            for item in adapter.released_data
        ]
        key, parts = rerun_key(files, self.sandbox)
        cached = self._cached(key)
        # A recorded try that may pass counts only where the close job's deadline says how:
        # anywhere else it is no result (read from records: not rerun; else: tried again).
        if cached is not None and (self.deadline is not None or not _tried(cached)):
            return self._settled(cached, adapter.path)
        if self.recorded_only:
            return None if self.deadline is None else self._settled(None, adapter.path)
        reason = bot.edges.sandbox.isolation()  # looked up when called: tests replace it
        if reason is not None and not self.allow_unisolated:
            raise ClaimsError(
                f"cannot rerun adapters here: {reason}",
                "install bubblewrap (apt-get install bubblewrap); to look without reruns, leave"
                " out --rerun-adapters (verify) or pass --no-rerun-adapters (resolve), which"
                " leaves wrapped attempts out; a maintainer who accepts the risk may pass"
                " --allow-unisolated",
            )
        try:
            findings = self._rerun(tree, files.folder, adapter)
        except OSError as error:
            detail = error.strerror or str(error)
            where = f" ({error.filename})" if error.filename else ""
            message = f"the rerun could not be completed on this machine: {detail}{where}"
            if self.deadline is not None:
                return None  # the registry's fault: the close job waits, whatever the date
            return [Finding(Code.ADAPTER_FAILED, message, adapter.path)]  # never kept
        if self._keeps(findings):
            self._store(key, parts, findings)
        return self._settled(findings, adapter.path)

    def _settled(self, findings: list[Finding] | None, path: str) -> list[Finding] | None:
        """`findings` as the close job counts them (`deadline`): a result only if final, or
        once the rerun deadline has passed; None (no result yet) before it."""
        if self.deadline is None:
            return findings
        if findings is None:
            # Nothing recorded for this evidence on this run: its rerun job was lost (a runner,
            # an install step, an artifact upload), which is the registry's fault, never the
            # filer's (a filer's rerun ends within `Limits.released_deadline` plus the
            # sandbox's wall clock, and the job starts it only while that fits its budget:
            # bot/faces/jobs/rerun_batches.py). The market waits, whatever the date.
            return None
        tried = _tried(findings)
        if not tried:
            return findings
        return self.deadline.unrecorded(path, tried) if self.deadline.passed else None

    def _keeps(self, findings: list[Finding]) -> bool:
        one_run = self.keep_failures or self.recorded_only
        kept = _FINAL | _OWN_FAILURES | _TRIES if one_run else _FINAL
        return all(finding.code in kept for finding in findings)

    # -- the cache --------------------------------------------------------------------------

    def _record(self, key: str) -> Path | None:
        return None if self.results is None else self.results / f"{key}.json"

    def _cached(self, key: str) -> list[Finding] | None:
        """The findings of an earlier rerun with this key, or None (absent or unreadable)."""
        record = self._record(key)
        if record is None:
            return None
        try:
            text = read_regular(record, _RECORD_BYTES).decode("utf-8")
            findings = rerun_record_from_json(text, key)
        except (OSError, UnicodeDecodeError, ReportError):
            return None
        if not self._keeps(findings):
            return None
        return findings

    def _store(self, key: str, parts: Mapping[str, Any], findings: list[Finding]) -> None:
        """Keep the result; a cache that cannot be written only costs a rerun next time."""
        record = self._record(key)
        if record is None:
            return
        try:
            record.parent.mkdir(parents=True, exist_ok=True)
            handle, name = tempfile.mkstemp(dir=record.parent, prefix=".partial-")
            with os.fdopen(handle, "w", encoding="utf-8") as stream:
                stream.write(_record_text(key, parts, findings))
            Path(name).replace(record)
        except OSError:
            return

    # -- the runs ---------------------------------------------------------------------------

    def _rerun(self, tree: Tree, folder: str, adapter: AdapterSpec) -> list[Finding]:
        with tempfile.TemporaryDirectory(prefix="claims-rerun-") as scratch:
            inputs, code = Path(scratch) / "inputs", Path(scratch) / "adapter"
            inputs.mkdir()
            findings = fetch_released(
                list(adapter.released_data), inputs, self.cache, adapter.path, self.limits
            )
            if not findings:
                self._keep_released(adapter)
            findings += _copy_code(tree, f"{folder}/adapter", code, self.limits)
            if findings:
                return findings
            produced, failure = self._run(adapter, code, inputs, Path(scratch) / "out")
            if failure is not None:
                return [failure]
            submitted = self._submitted(tree, folder, adapter)
            mismatch = compare_outputs(list(adapter.outputs), submitted, produced, folder)
            if mismatch or not any(submitted.values()):
                return mismatch  # (nothing submitted: emptied data could not tell)
            # The same adapter on emptied released data must not write any of the same
            # evidence: each output, not only one of them (an adapter that copies the cases
            # from the data could otherwise carry edited trials).
            emptied = Path(scratch) / "emptied"
            _empty_copy(inputs, emptied)
            again, failure = self._run(adapter, code, emptied, Path(scratch) / "out-emptied")
            if failure is not None:
                return []
            carried = [
                name
                for name in adapter.outputs
                if submitted.get(name)
                and name in again
                and not compare_outputs([name], submitted, again, folder)
            ]
            if not carried:
                return []
            message = (
                f"rerun with every released file emptied, the adapter wrote the same"
                f" {', '.join(carried)}: its output does not come from the released data (an"
                " adapter must derive the evidence from the data, not carry it)"
            )
            return [Finding(Code.ADAPTER_IGNORES_DATA, message, adapter.path)]

    def released_folder(self) -> Path | None:
        """Where kept released data is (`keep_released`), by sha256; None without results."""
        return None if self.results is None else self.results / "released" / "sha256"

    def _keep_released(self, adapter: AdapterSpec) -> None:
        """Copy each released file (fetched and hash-checked into the cache) to the results'
        released folder, while the disk has room and the files kept there (by every attempt
        of this job, each counted once) stay within `keep_released_bytes`; a file not kept is
        listed, not carried, in the archive's manifest (`pin-not-archived`)."""
        folder = self.released_folder()
        if not self.keep_released or folder is None:
            return

        try:
            folder.mkdir(parents=True, exist_ok=True)
        except OSError:
            return
        for item in adapter.released_data:
            sha256 = str(item.get("sha256")).lower()
            source, target = self.cache / "sha256" / sha256, folder / sha256
            try:
                if target.exists():
                    continue  # kept for another attempt: counted once
                size = source.stat().st_size
                if not disk.has_room(folder, size) or not self._within_share(folder, size):
                    continue
                handle, name = tempfile.mkstemp(dir=folder, prefix=".partial-")
                os.close(handle)
                shutil.copyfile(source, name)
                Path(name).replace(target)
            except OSError:
                continue

    def _within_share(self, folder: Path, size: int) -> bool:
        """True when `size` more bytes keep the released folder within `keep_released_bytes`.
        The folder is what counts (it outlives each attempt's `claims verify` in the job);
        a partial copy left by a killed run counts too."""
        if self.keep_released_bytes is None:
            return True
        with os.scandir(folder) as entries:
            kept = sum(
                entry.stat(follow_symlinks=False).st_size
                for entry in entries
                if entry.is_file(follow_symlinks=False)
            )
        return kept + size <= self.keep_released_bytes

    def _run(
        self, adapter: AdapterSpec, code: Path, inputs: Path, output: Path
    ) -> tuple[dict[str, bytes], Finding | None]:
        """Run the adapter once: what it wrote, or an `adapter-failed` finding."""
        output.mkdir()
        result = run_adapter(
            list(adapter.command),
            code=code,
            inputs=inputs,
            output=output,
            limits=self.sandbox,
            allow_unisolated=self.allow_unisolated,
        )
        if result.status != "ok":
            return {}, Finding(Code.ADAPTER_FAILED, _failure(result), adapter.path)
        produced = {}
        for name in result.outputs:
            try:
                produced[name] = read_regular(output / name, self.limits.max_attempt_file_bytes)
            except OSError as error:
                message = f"the adapter failed: the bot cannot read out/{name}: {error.strerror}"
                return {}, Finding(Code.ADAPTER_FAILED, message, adapter.path)
        return produced, None

    def _submitted(self, tree: Tree, folder: str, adapter: AdapterSpec) -> dict[str, bytes | None]:
        submitted: dict[str, bytes | None] = {}
        for name in adapter.outputs:
            try:
                submitted[name] = read_limited(
                    tree, f"{folder}/{name}", self.limits.max_attempt_file_bytes
                )
            except OSError:
                submitted[name] = None
        return submitted


def _record_text(key: str, parts: Mapping[str, Any], findings: list[Finding]) -> str:
    """The record as `_cached` reads it back: within `_RECORD_BYTES`, each message cut (to
    `_RECORD_MESSAGE_CUTS` in turn) until it fits. A record over the limit was read truncated,
    counted as no record, and its market blocked on every day (a filer's server can
    redirect each released file to a 50 000-character URL)."""
    text = rerun_record_to_json(key, parts, findings)
    for cut in _RECORD_MESSAGE_CUTS:
        if len(text.encode("utf-8")) <= _RECORD_BYTES:
            break
        shown = [
            replace(f, message=f.message if len(f.message) <= cut else f.message[: cut - 1] + "…")
            for f in findings
        ]
        text = rerun_record_to_json(key, parts, shown)
    return text


def _empty_copy(source: Path, target: Path) -> None:
    """The folder `source` laid out again at `target`, every file in it empty."""
    target.mkdir()
    for folder, names, files in os.walk(source):
        here = target / Path(folder).relative_to(source)
        for name in names:
            (here / name).mkdir()
        for name in files:
            (here / name).touch()


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

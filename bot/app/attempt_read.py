"""Read one attempt folder from a tree into typed models (`AttemptFiles`): one scan of the
folder, every document parsed once, and freeze-cases.jsonl and trials.jsonl kept, checked as
they are read, or taken from the verification cache. Nothing here decides a rule.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import replace
from pathlib import PurePosixPath
from typing import Any

from bot.app.registry import Registry
from bot.edges.history import History
from bot.edges.load.folder import scan_folder
from bot.edges.load.records import load_jsonl
from bot.edges.load.yaml_ import load_yaml, parse_yaml
from bot.rules.evidence.hashing import evidence_digest
from bot.rules.evidence.models import AdapterSpec, Attempt, Certificate, Freeze, parse_judgments
from bot.rules.evidence.schema import validate
from bot.rules.judge.inputs import AttemptFiles
from bot.rules.judge.location import folder_market
from bot.rules.records import RecordsChecker, RecordsResult
from bot.vocab.document import Document, FieldPath, Record
from bot.vocab.findings import Code, Finding
from bot.vocab.jsonl import Typed, share_values

__all__ = ["read_adapter_files", "read_attempt"]


_FREEZE_FILES = frozenset({"freeze.yaml", "freeze-cases.jsonl"})


# What a missing file holds, and the filer tool that writes it (docs/filing-an-attempt.md).
_WHAT_TO_WRITE = {
    "freeze-cases.jsonl": ": the frozen cases, one JSON object a line; then"
    " `claims hash-cases {folder} --write` fills in each sha256",
    "trials.jsonl": ": one trial per frozen case, one JSON object a line",
    "scores.yaml": ": `claims scores {folder} --write` writes the table the trials give",
}


class _Reader:
    """Reads the files of one attempt folder, collecting problems in order."""

    def __init__(self, registry: Registry, folder: str, entries: dict[str, Any]) -> None:
        self.registry = registry
        self.folder = folder
        self.entries = entries
        self.problems: list[Finding] = []
        self.published: list[tuple[str, object, Callable[[FieldPath], int | None]]] = []
        self.jsonl_problems: dict[str, list[Finding]] = {}

    def path(self, name: str) -> str:
        return f"{self.folder}/{name}"

    def _present(self, name: str, required: bool) -> bool:
        if name in self.entries:
            return True
        if required and not any(f.file == self.path(name) for f in self.problems):
            message = f"required file{_WHAT_TO_WRITE.get(name, '').format(folder=self.folder)}"
            self.problems.append(Finding(Code.FILE_MISSING, message, self.path(name)))
        return False

    def yaml(self, name: str, schema: str, required: bool) -> Document | None:
        if not self._present(name, required):
            return None
        loaded = load_yaml(self.registry.tree, self.path(name), self.registry.limits)
        return self._checked(schema, *loaded)

    def yaml_from_base(self, name: str, schema: str, history: History) -> Document | None:
        """`name` as it stands on the base branch's tip (None when it is not there)."""
        limits = self.registry.limits
        raw = history.content_at_tip(self.path(name), limits.max_yaml_bytes + 1)
        if raw is None:
            return None
        return self._checked(schema, *parse_yaml(raw, self.path(name), limits))

    def _checked(
        self, schema: str, document: Document | None, problems: list[Finding]
    ) -> Document | None:
        """A parsed document, published for the hidden-suite check, if its schema holds."""
        self.problems += problems
        if document is None:
            return None
        self.published.append((document.path, document.data, document.line_of))
        problems = validate(schema, document.data, document.path, document.lines)
        self.problems += problems
        return None if problems else document

    def jsonl(self, name: str, required: bool) -> list[Record] | None:
        if not self._present(name, required):
            return None
        records, problems = load_jsonl(self.registry.tree, self.path(name), self.registry.limits)
        self.problems += problems
        self.jsonl_problems[name] = problems
        path = self.path(name)
        self.published += [(path, record.data, record) for record in records]
        return records

    def streamed_jsonl(
        self, name: str, sink: Callable[[Record, bytes], None], typed: Typed | None = None
    ) -> bool:
        """Read a required JSONL file record by record into `sink` (each line first offered
        to `typed`: `load_jsonl`), keeping none. False when the file is absent."""
        if not self._present(name, True):
            return False
        tree, limits = self.registry.tree, self.registry.limits
        _, problems = load_jsonl(tree, self.path(name), limits, sink, typed)
        self.problems += problems
        self.jsonl_problems[name] = problems
        return True

    def checked_jsonl(self, name: str, problems: Sequence[Finding], required: bool = True) -> None:
        """A JSONL file checked already (the verification cache, a check that fits the folder:
        `_fits`): its reading problems in their place, its records not read."""
        if self._present(name, required):
            self.problems += problems
            self.jsonl_problems[name] = list(problems)


def read_attempt(
    registry: Registry,
    folder: str,
    object_format: str = "sha1",
    judgments_from: History | None = None,
    cached: Callable[[AttemptFiles], RecordsResult | None] | None = None,
    stream: Callable[[AttemptFiles], RecordsChecker | None] | None = None,
) -> AttemptFiles:
    """Read one attempt folder of the registry's tree into typed models. Never raises for
    bad input: every problem is a finding in `AttemptFiles.problems`.

    With `judgments_from` (a pull request's base branch), judgments.yaml is read from that
    branch's tip instead of the tree: only maintainers write it, on the base branch.
    With `cached` (the verification cache's lookup, asked once attempt.yaml is read): a
    `RecordsResult` it returns stands for freeze-cases.jsonl and trials.jsonl, which are then
    not read (`AttemptFiles.records_result`), when it fits the folder.
    With `stream` (asked next, when the cache had nothing that fits): a `RecordsChecker` it
    returns checks the two files' records as they are read, and none is kept
    (`AttemptFiles.records_read_now`).
    """
    entries, problems, complete = scan_folder(registry.tree, folder, registry.limits, object_format)
    digest = evidence_digest({path: entry.sha256 for path, entry in entries.items()})
    reader = _Reader(registry, folder, dict(entries))
    reader.problems += problems
    base = AttemptFiles(
        folder=folder,
        entries=entries,
        problems=reader.problems,
        digest=digest,
        folder_market=folder_market(folder),
    )
    if not complete:
        return replace(base, scan_complete=False)
    if entries and set(entries) <= _FREEZE_FILES | {"README.md"}:
        return _read_freeze_only(reader, base)
    attempt_document = reader.yaml("attempt.yaml", "attempt", required=True)
    attempt = Attempt.from_document(attempt_document) if attempt_document else None
    freeze_document = reader.yaml("freeze.yaml", "freeze", required=True)
    check = cached(replace(base, attempt=attempt)) if cached is not None else None
    if check is not None and not _fits(check, entries):
        check = None  # made for other files: read them
    checker = None
    if stream is not None and check is None:
        checker = stream(replace(base, attempt=attempt))
    cases, trials, trials_read = _read_records(reader, check, checker)
    trials_complete = _every_line_read(reader, "trials.jsonl")
    cases_complete = _every_line_read(reader, "freeze-cases.jsonl")
    scores = reader.yaml("scores.yaml", "scores", required=False)
    judgments = (
        reader.yaml("judgments.yaml", "judgments", required=False)
        if judgments_from is None
        else reader.yaml_from_base("judgments.yaml", "judgments", judgments_from)
    )
    certificates = _read_certificates(reader, check)
    if checker is not None:
        check = _finish(reader, checker, trials_read, certificates)
    adapter = _read_adapter(reader, attempt)
    return replace(
        base,
        problems=tuple(reader.problems),
        attempt=attempt,
        freeze=Freeze.from_document(freeze_document) if freeze_document else None,
        case_records=cases,
        trial_records=trials,
        trials_complete=trials_complete,
        cases_complete=cases_complete,
        scores=scores,
        judgments=parse_judgments(judgments.data)  # type: ignore[arg-type]
        if judgments
        else None,
        certificates=certificates,
        adapter=AdapterSpec.from_document(adapter) if adapter else None,
        published=tuple(reader.published),
        jsonl_problems={k: tuple(v) for k, v in reader.jsonl_problems.items()},
        records_result=check,
        records_read_now=checker is not None,
    )


def _read_freeze_only(reader: _Reader, base: AttemptFiles) -> AttemptFiles:
    """A freeze pull request's folder: freeze.yaml and its cases, before the run exists."""
    reader.yaml("freeze.yaml", "freeze", required=True)
    cases = reader.jsonl("freeze-cases.jsonl", required=True)
    return replace(
        base,
        problems=tuple(reader.problems),
        freeze_only=True,
        case_records=cases,
        published=tuple(reader.published),
    )


def _fits(check: RecordsResult, entries: Mapping[str, object]) -> bool:
    """Whether a check read back from the cache was made for the record files this folder
    holds: each of them read exactly when the folder has it."""
    return all(
        (name in entries) == read
        for name, read in (
            ("freeze-cases.jsonl", check.cases_read),
            ("trials.jsonl", check.trials_read),
            ("certificates.jsonl", check.certificates_read),
        )
    )


def _read_records(
    reader: _Reader, check: RecordsResult | None, checker: RecordsChecker | None
) -> tuple[list[Record] | None, list[Record] | None, bool]:
    """freeze-cases.jsonl and trials.jsonl, one of three ways: checked already (`check`, from
    the cache: only their reading problems, in their place), checked as they are read
    (`checker`: no record kept), or read and kept. Returns the cases and trials kept, and
    whether trials.jsonl was streamed into the checker."""
    if check is not None:
        reader.checked_jsonl("freeze-cases.jsonl", check.case_read_problems)
        reader.checked_jsonl("trials.jsonl", check.trial_read_problems)
        return None, None, False
    if checker is not None:
        if reader.streamed_jsonl("freeze-cases.jsonl", checker.case, checker.case_reader):
            checker.cases_read(reader.jsonl_problems["freeze-cases.jsonl"])
        streamed = reader.streamed_jsonl("trials.jsonl", checker.trial, checker.trial_reader)
        return None, None, streamed
    cases = reader.jsonl("freeze-cases.jsonl", required=True)
    trials = reader.jsonl("trials.jsonl", required=True)
    if cases and trials:
        share_values(cases, trials, "case_id")  # memory: one string per case id
    return cases, trials, False


def _every_line_read(reader: _Reader, name: str) -> bool:
    """False when some line of the JSONL file `name` could not be read."""
    return not any(
        f.code is Code.JSONL_INVALID and f.file == reader.path(name) for f in reader.problems
    )


def _read_certificates(reader: _Reader, check: RecordsResult | None) -> list[Certificate] | None:
    """certificates.jsonl: checked already (`check`: its reading problems in their place, none
    kept), else read and each line checked by its schema. None when it is absent."""
    if check is not None:
        reader.checked_jsonl("certificates.jsonl", check.certificate_read_problems, required=False)
        return None
    records = reader.jsonl("certificates.jsonl", required=False)
    if records is None:
        return None
    certificates: list[Certificate] = []
    for record in records:
        found = validate(
            "certificate", record.data, reader.path("certificates.jsonl"), line=record.line
        )
        reader.problems += found
        reader.jsonl_problems["certificates.jsonl"] += found
        if not found:
            certificates.append(Certificate.from_data(record.line, record.data))
    return certificates


def _finish(
    reader: _Reader,
    checker: RecordsChecker,
    trials_read: bool,
    certificates: list[Certificate] | None,
) -> RecordsResult:
    """The streamed check, once certificates.jsonl is read: with what reading each file
    found, and the certificates' published records."""
    certificates_file = reader.path("certificates.jsonl")
    return checker.finish(
        reader.jsonl_problems,
        trials_read,
        certificates,
        [entry for entry in reader.published if entry[0] == certificates_file],
    )


def _read_adapter(reader: _Reader, attempt: Attempt | None) -> Document | None:
    """adapter/adapter.yaml (required of a wrapped attempt), and its command as the sandbox
    will take it."""
    adapter = reader.yaml(
        "adapter/adapter.yaml",
        "adapter",
        required=attempt is not None and attempt.kind == "wrapped",
    )
    if adapter is not None:
        reader.problems += _command_problems(adapter, reader.entries)
    return adapter


def read_adapter_files(
    registry: Registry, folder: str, object_format: str = "sha1"
) -> AttemptFiles | None:
    """What a rerun's key is made of (`bot.app.rerun.rerun_key`): the folder's files and their
    hashes, and adapter.yaml, without reading the evidence (the close job's plan asks it of
    every wrapped attempt on main). None when the folder or adapter.yaml cannot be read."""
    entries, _, complete = scan_folder(registry.tree, folder, registry.limits, object_format)
    if not complete:
        return None
    adapter = _Reader(registry, folder, dict(entries)).yaml(
        "adapter/adapter.yaml", "adapter", required=True
    )
    if adapter is None:
        return None
    return AttemptFiles(
        folder=folder,
        entries=entries,
        problems=(),
        digest=evidence_digest({path: entry.sha256 for path, entry in entries.items()}),
        folder_market=folder_market(folder),
        adapter=AdapterSpec.from_document(adapter),
    )


def _command_problems(adapter: Document, entries: Mapping[str, object] = {}) -> list[Finding]:
    """adapter.yaml's command as the sandbox will take it, with the sandbox's own rules
    (`command_problem`; `names_problem` for the working folder it lays out from the adapter
    folder's top-level names, `entries`, beside the released data's): one it cannot start is
    refused here, on the PR, never first by a rerun. The document is kept, so a rerun still
    records the sandbox's refusal as `adapter-failed`."""
    # Here, not at the top: bot.edges.sandbox's package imports its runner (~15 ms), which only
    # an attempt with an adapter.yaml needs.
    from bot.edges.sandbox.command import command_problem, names_problem

    data = adapter.data
    if not isinstance(data, dict):
        return []
    problem = command_problem(data.get("command"))
    field: FieldPath = ("command",)
    if problem is None:
        code = sorted({name.split("/")[1] for name in entries if name.startswith("adapter/")})
        released = data.get("released_data")
        items = released if isinstance(released, list) else []
        paths = [item.get("path") for item in items if isinstance(item, dict)]
        # As the released data is laid out (`bot/edges/released.py`): "./out/x" is "out/x".
        parts = [PurePosixPath(path).parts for path in paths if isinstance(path, str)]
        inputs = sorted({part[0] for part in parts if part})
        problem = names_problem(code, inputs)
        field = ("released_data",)
    if problem is None:
        return []
    return [
        Finding(
            Code.ADAPTER_COMMAND,
            f"{field[0]}: the sandbox cannot start the command: {problem}",
            adapter.path,
            adapter.line_of(field),
        )
    ]

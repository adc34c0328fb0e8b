"""Read a challenge run from a tree (the shell): one scan of `challenge-runs/<run>/`, each
document parsed once, every other file streamed through the text leak check; then ask the
history where the freeze and the score files landed, and judge (`bot.rules.challenge.judge`)."""

from __future__ import annotations

import bz2
import gzip
import io
import lzma
import re
import zlib
from collections.abc import Callable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import PurePosixPath
from typing import Any, BinaryIO, cast

from bot.edges.history import History, tree_blob
from bot.edges.load.folder import scan_folder
from bot.edges.load.records import load_jsonl
from bot.edges.load.yaml_ import load_yaml
from bot.edges.tree import Tree, TreeError
from bot.rules.challenge.judge import RunFacts, RunFiles, RunJudged, ScoreFolder, judge_run
from bot.rules.challenge.rules import check_text_leaks
from bot.rules.challenge.scorers import builtin_scorer
from bot.rules.evidence.schema import validate
from bot.rules.models import Market, SharedRules
from bot.vocab.commits import Landing
from bot.vocab.config import Limits
from bot.vocab.document import FieldPath, Record
from bot.vocab.findings import Code, Finding

__all__ = ["RUNS", "judge_run_folder", "run_folders", "stream_lines", "text_leaks"]

RUNS = "challenge-runs"
_SCORE_FILE = re.compile(
    r"\Ascores/([a-z0-9][a-z0-9-]{1,62}[a-z0-9])/([a-z0-9][a-z0-9-]{1,62}[a-z0-9])/([^/]+)\Z"
)
_CHUNK = 1 << 16

MarketOf = Callable[[int], tuple[Market | None, list[Finding]]]


def run_folders(tree: Tree, paths: Sequence[str] | None = None) -> list[str]:
    """The run folders (`challenge-runs/<run>`) at or below `paths` (default: all of them)."""
    found = []
    for start in paths if paths is not None else [RUNS]:
        parts = PurePosixPath(start).parts
        if not parts or parts[0] != RUNS:
            continue
        if len(parts) >= 2:
            entry = tree.entry(f"{RUNS}/{parts[1]}")
            if entry is not None and entry.kind == "folder":
                found.append(f"{RUNS}/{parts[1]}")
            continue
        try:
            children = tree.children(RUNS)
        except (TreeError, OSError):
            continue
        found += [child.path for child in children if child.kind == "folder"]
    return sorted(set(found))


# Compressed files are read decompressed by the text leak check (at most `limit` bytes of
# their content): a gzipped log must not hide a withheld field from it.
_COMPRESSED: dict[bytes, Callable[[BinaryIO, str], Any]] = {
    b"\x1f\x8b": gzip.open,
    b"BZh": bz2.open,
    b"\xfd7zXZ\x00": lzma.open,
}


class _Replay(io.RawIOBase):
    """A stream's first bytes, already read, then the rest of it."""

    def __init__(self, head: bytes, rest: BinaryIO) -> None:
        self._head, self._rest = head, rest

    def readable(self) -> bool:
        return True

    def readinto(self, buffer: Any) -> int:
        view = memoryview(buffer).cast("B")
        data = self._head[: len(view)] if self._head else self._rest.read(len(view))
        self._head = self._head[len(data) :]
        view[: len(data)] = data
        return len(data)


def stream_lines(tree: Tree, path: str, limit: int) -> Iterator[bytes]:
    """The lines of a file, read in chunks (at most `limit` bytes in all); a gzip, bzip2 or
    xz file's lines are those of its content."""
    with tree.open(path) as raw:
        head = raw.read(6)
        opener = next((f for magic, f in _COMPRESSED.items() if head.startswith(magic)), None)
        if opener is None:
            yield from _lines(cast(BinaryIO, _Replay(head, raw)), limit)
            return
        with opener(cast(BinaryIO, io.BufferedReader(_Replay(head, raw))), "rb") as stream:
            yield from _lines(stream, limit)


def _lines(stream: BinaryIO, limit: int) -> Iterator[bytes]:
    pending = b""
    remaining = limit
    while remaining > 0 and (chunk := stream.read(min(_CHUNK, remaining))):
        remaining -= len(chunk)
        pending += chunk
        *whole, pending = pending.split(b"\n")
        yield from whole
    if pending:
        yield pending


def text_leaks(
    tree: Tree, files: Mapping[str, str], withholdable: Sequence[str], limits: Limits
) -> list[Finding]:
    """The text leak check over files the bot does not parse (shown path -> tree path)."""
    findings: list[Finding] = []
    for shown, path in files.items():
        try:
            findings += check_text_leaks(
                shown, stream_lines(tree, path, limits.max_attempt_file_bytes), withholdable
            )
        except (TreeError, OSError, EOFError, lzma.LZMAError, zlib.error) as error:
            # A compressed file that does not decompress cannot be checked: not published.
            findings.append(Finding(Code.FILE_UNREADABLE, f"cannot read it: {error}", shown))
    return findings


def _line_of(line: int) -> Callable[[FieldPath], int | None]:
    def line_of(_where: FieldPath) -> int | None:
        return line

    return line_of


def _read(
    tree: Tree, folder: str, limits: Limits, object_format: str
) -> tuple[RunFiles, dict[str, str]]:
    """The run's files, and the files left for the text leak check (shown -> tree path)."""
    run = PurePosixPath(folder).name
    entries, problems, complete = scan_folder(tree, folder, limits, object_format)
    problems = list(problems)
    published: list[tuple[str, object, Callable[[FieldPath], int | None]]] = []
    unparsed: dict[str, str] = {}
    document = None
    if "run.yaml" in entries:
        unparsed[f"{folder}/run.yaml"] = f"{folder}/run.yaml"  # its comments, as text
        loaded, found = load_yaml(tree, f"{folder}/run.yaml", limits)
        problems += found
        if loaded is not None:
            published.append((loaded.path, loaded.data, loaded.line_of))
            schema = validate("challenge-run", loaded.data, loaded.path, loaded.lines)
            problems += schema
            document = None if schema else loaded
    elif not any(f.file == f"{folder}/run.yaml" for f in problems):
        problems.append(Finding(Code.FILE_MISSING, "required file", f"{folder}/run.yaml"))
    cases: list[Record] | None = None
    cases_complete = True
    if "freeze-cases.jsonl" in entries:
        cases, found = load_jsonl(tree, f"{folder}/freeze-cases.jsonl", limits)
        problems += found
        cases_complete = not any(f.code is Code.JSONL_INVALID for f in found)
        published += [(f"{folder}/freeze-cases.jsonl", r.data, _line_of(r.line)) for r in cases]
    elif not any(f.file == f"{folder}/freeze-cases.jsonl" for f in problems):
        problems.append(Finding(Code.FILE_MISSING, "required file", f"{folder}/freeze-cases.jsonl"))
    scorer_name = (
        document.data.get("scorer") if document and isinstance(document.data, dict) else None
    )
    scorer = builtin_scorer(scorer_name) if isinstance(scorer_name, str) else None
    scores: dict[str, ScoreFolder] = {}
    for name in sorted(entries):
        if name in ("run.yaml", "freeze-cases.jsonl"):
            continue
        path = f"{folder}/{name}"
        match = _SCORE_FILE.match(name)
        if match is None or match.group(3) not in (
            "results.jsonl",
            scorer.input_file if scorer else "",
        ):
            unparsed[path] = path
            continue
        key = f"{match.group(1)}/{match.group(2)}"
        current = scores.get(key) or ScoreFolder(key, f"{folder}/scores/{key}")
        if match.group(3) == "results.jsonl":
            records, found = load_jsonl(tree, path, limits)
            problems += found
            kept = []
            for record in records:
                published.append((path, record.data, _line_of(record.line)))
                refused = validate("challenge-result", record.data, path, line=record.line)
                problems += refused
                if not refused:
                    kept.append(record)
            current = ScoreFolder(
                key, current.folder, kept, current.input_text, path, current.input_path
            )
        else:
            unparsed[path] = (
                path  # the scorer's input is read by the scorer, and leak-checked as text
            )
            try:
                with tree.open(path) as stream:
                    text = stream.read(limits.max_jsonl_bytes + 1)
            except (TreeError, OSError) as error:
                problems.append(Finding(Code.FILE_UNREADABLE, f"cannot read it: {error}", path))
                continue
            if len(text) > limits.max_jsonl_bytes:
                problems.append(
                    Finding(Code.FILE_TOO_LARGE, f"over {limits.max_jsonl_bytes} bytes", path)
                )
                continue
            current = ScoreFolder(
                key,
                current.folder,
                current.results,
                text.decode("utf-8", errors="replace"),
                current.results_path,
                path,
            )
        scores[key] = current
    files = RunFiles(
        run=run,
        folder=folder,
        entries=entries,
        problems=tuple(problems),
        complete=complete,
        document=document,
        case_records=cases,
        cases_complete=cases_complete,
        scores=scores,
        published=tuple(published),
    )
    return files, unparsed


def judge_run_folder(
    tree: Tree,
    folder: str,
    rules: SharedRules,
    market_of: MarketOf,
    history: History,
    limits: Limits = Limits(),
) -> RunJudged:
    """Read, gather and judge one run folder of `tree`."""
    object_format = getattr(history, "object_format", "sha1")
    files, unparsed = _read(tree, folder, limits, object_format)
    market: Market | None = None
    market_problems: list[Finding] = []
    number = files.market_number
    if number is not None:
        if rules.is_not_in_registry(number):
            market_problems.append(
                Finding(
                    Code.MARKET_UNKNOWN,
                    rules.not_in_registry_message,
                    files.run_yaml,
                    files.line("market"),
                )
            )
        else:
            market, problems = market_of(number)
            if market is None:
                message = (
                    problems[0].message
                    if problems
                    else f"market {number} has no contract in this registry"
                )
                market_problems.append(
                    Finding(Code.MARKET_UNKNOWN, message, files.run_yaml, files.line("market"))
                )
    withholdable = sorted({*files.withholdable, *(market.withholdable if market else ())})
    freeze: Landing | str | None = None
    landings: dict[str, Landing | str] = {}
    if history.unavailable is None:
        path = f"{folder}/freeze-cases.jsonl"
        own = files.entries.get("freeze-cases.jsonl")
        blob = own.blob_id if own is not None else tree_blob(tree, path)
        freeze = "cannot read the freeze" if blob is None else history.landing(path, blob)
        for score in files.scores.values():
            for scored in (score.results_path, score.input_path):
                if scored is None:
                    continue
                entry = files.entries.get(scored.removeprefix(f"{folder}/"))
                landings[scored] = history.landing(scored, entry.blob_id) if entry else "unreadable"
    facts = RunFacts(
        market=market,
        market_problems=tuple(market_problems),
        base_ref=history.base_ref,
        history_unavailable=history.unavailable,
        freeze_landing=freeze,
        score_landings=landings,
        text_leaks=tuple(text_leaks(tree, unparsed, withholdable, limits)),
        withholdable=tuple(withholdable),
    )
    return judge_run(files, facts)


@dataclass
class RunCache:
    """Runs judged once per registry (an attempt of a run asks for it again and again)."""

    judged: dict[str, RunJudged] = field(default_factory=dict)

"""`claims adapt inspect LOG --out DIR`: an Inspect (UK AISI `inspect_ai`) log -> evidence files.

Writes `freeze-cases.jsonl`, `trials.jsonl` and a `freeze.yaml` stub (docs/spec.md §4 and §9). The
same log always gives the same bytes, and two runs of the same eval give the same freeze-cases, so a
freeze written from one run can be checked against the trials of another.

Reading (the log is untrusted):
- The format is told by the file's first bytes, not its name: a zip is an `.eval` log, anything
  else is read as a `.json` log (a gzip file is refused with a hint).
- `.json` logs are read with the standard library, whole, up to `InspectLimits.max_json_bytes`;
  duplicate keys are refused; NaN and Infinity are accepted (Inspect writes them in metrics).
- `.eval` logs are zips. Only `header.json` and `samples/*.json` are read (the last member of a
  name wins, as in Inspect and `zipfile`). Members may be stored, deflated or zstd-compressed
  (inspect-ai 0.3.285 writes zstd); zstd needs the `zstandard` module (the `inspect`
  extra) and is decompressed in bounded chunks, across frames, and checked against the
  member's size and CRC. Refused before anything is decompressed: more than `max_members`
  members, a declared total over `max_total_bytes`, unsafe member names (absolute, `..`,
  backslashes, drive letters, NUL), encrypted members and other compression methods. A member
  over `max_member_bytes` is refused, whatever its header says.
- Only finished logs are adapted (status `success`, not invalidated), and every sample the
  log's dataset lists must be present in every epoch: a case is never silently missing.
Every problem raises `InspectLogError` (a `ClaimsError`: the CLI exits 2 with the message).

Mapping, one frozen case and exactly one trial per sample id:
- `case_id` is `str(id)`; it must be a registry id (letters, digits, `._:/-`, at most 200
  characters), and an int id and a string id must not give the same case_id.
- Cases and trials are sorted by sample id: integer ids first, in numeric order, then string
  ids in natural order (runs of ASCII digits compare as numbers, the rest by code point; ties,
  such as "q02" and "q2", by the plain string): 1, 2, 10, "q2", "q10".
- `content` is the sample's `input` and `target`, and its `choices`, `description`,
  `metadata`, `files` and `setup` when present and not empty, in RFC 8785 canonical key order.
  The metadata is the dataset's, from the sample's `sample_init` event when the log has one:
  the sample's own `metadata` field is the task state's after the solvers ran (a solver may
  change it), and other fields are read from the sample itself. Left out, because they
  change from run to run or machine to machine: the sample's `uuid`, the `id` of every chat
  message in `input`, `sandbox`, and everything the run produced (messages, output, scores,
  events, timestamps, usage). Image data in chat inputs appears as Inspect's content-addressed
  `attachment://<hash>` references, which are stable. All epochs of a sample must agree on it.
  `sha256` is `bot.rules.evidence.rules.case_hash(content)`.
- `family` is the task name, or with `--family-field F` the string `metadata[F]` of every
  sample; `kind` is `metadata["kind"]` when it is a string of 1-200 characters, else "task";
  `public` is `{"sample_id": <the id as the log gives it, int or string>}`.
- A trial's `system` is the eval's model, `started_at` the earliest start of its epochs (else
  the eval's start, else its creation), in UTC with a Z; `trajectory` is
  `<eval_id>:<case_id>` (a hash of the case id when that is over 200 characters), unique per
  trial and the same on every adaptation of the log; `evaluator` is the scorer's name;
  `attack_family` is null.
- `result` is `{"verdict", "score", "values", "epochs", "error"}`. Each epoch is judged from the
  chosen scorer's value: "C" and true pass, "I", "P" (partial), "N" (no answer) and false fail,
  a number passes when it is 1 and fails when it is in [0, 1); other values are refused. An
  epoch that errored, or has no score from the scorer, is an error epoch. Epochs reduce as
  the freeze says: `all-must-pass` (the default, docs/spec.md §9: a case fails if any epoch fails)
  gives "fail" if any epoch failed, else "error" if any errored, else "pass"; `first` takes epoch 1.
  `score` is the reduced number (epoch 1's, or the lowest over the scored epochs; null when
  the verdict is "error"), `values` the raw value of each epoch in order (null: none),
  `epochs` their count, `error` the first epoch error's message (null: none). Errored samples
  are recorded, never dropped. Inspect's own epoch reducers are not used: they leave errored
  epochs out.
- `freeze.yaml` is a stub the filer must review: `method` from the log's solver plan,
  `code_commit` from the log's git revision when it is a full commit (Inspect records a short
  one: then 40 zeros, which the filer must replace, as a comment says), `scorer`, `frozen_at`
  (the eval's creation time) and `epochs`.
Before anything is written, the files are read back with the verifier's own loader and rules
(`parse_jsonl`, `check_cases`, `check_trials`, the freeze schema); evidence they would refuse
is an `InspectLogError`, so what this adapter writes, `claims verify` accepts.
"""

from __future__ import annotations

import argparse
import hashlib
import importlib
import io
import json
import math
import re
import stat
import struct
import zipfile
import zlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import rfc8785

from bot.vocab.config import Limits
from bot.vocab.errors import ClaimsError
from bot.vocab.jsonl import DuplicateKeyError, object_without_duplicates
from bot.vocab.timestamps import is_naive_timestamp, parse_timestamp

# The evidence modules (bot.rules.evidence: jsonschema, scipy) and the writers (bot.edges.dump:
# PyYAML) are
# imported where they are used, so that building the CLI's parser stays fast.

__all__ = [
    "DEFAULT_EPOCHS",
    "EPOCH_MODES",
    "EXTRA_HINT",
    "PLACEHOLDER_COMMIT",
    "Adapted",
    "FieldMap",
    "InspectLimits",
    "InspectLogError",
    "Source",
    "ValueMap",
    "adapt_inspect",
    "add_parser",
    "convert",
    "parse_source",
    "parse_value_map",
    "run",
]

EPOCH_MODES = ("all-must-pass", "first")
DEFAULT_EPOCHS = "all-must-pass"
PLACEHOLDER_COMMIT = "0" * 40
EXTRA_HINT = "install the inspect extra: pip install -e '.[inspect]'"
FILES = ("freeze-cases.jsonl", "trials.jsonl", "freeze.yaml")
# Every unit key a market may name (market.schema.json): all present in every trial.
_UNIT_KEYS = ("system", "trajectory", "evaluator", "attack_family")

_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")
_GZIP_MAGIC = b"\x1f\x8b"
_ZIP_ZSTANDARD = 93  # APPNOTE 4.4.5 compression method 93: Zstandard
_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated", _ZIP_ZSTANDARD: "zstd"}
_CHUNK = 1 << 20
_CASE_ID = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._:/-]{0,199}\Z")  # common.schema.json id
_HEX_COMMIT = re.compile(r"\A(?:[0-9a-f]{40}|[0-9a-f]{64})\Z")
_DIGITS = re.compile(r"(\d+)", re.ASCII)
_DRIVE = re.compile(r"\A[A-Za-z]:")
_LETTERS = {"C": 1.0, "I": 0.0, "P": 0.5, "N": 0.0}  # Inspect's CORRECT/INCORRECT/PARTIAL/NOANSWER
_MAX_NAME = 200
_MAX_ERROR = 1000
# Content is nested inside a JSONL record two levels deep; the verifier caps records at 64.
_MAX_CONTENT_DEPTH = Limits().max_json_depth - 2


class InspectLogError(ClaimsError):
    """An Inspect log this adapter cannot turn into evidence; the message names the problem."""


@dataclass(frozen=True, slots=True)
class InspectLimits:
    """Caps on what the adapter reads from an untrusted log, checked before parsing."""

    # A .json log is parsed whole: about ten times its size in memory.
    max_json_bytes: int = 256 * 1024 * 1024
    # An .eval log is read member by member: only header.json and samples/*.json.
    max_eval_bytes: int = 4 * 1024 * 1024 * 1024
    max_members: int = 200_000
    max_member_bytes: int = 256 * 1024 * 1024
    # Uncompressed: declared by all members, and actually read.
    max_total_bytes: int = 4 * 1024 * 1024 * 1024


@dataclass(frozen=True, slots=True)
class _Epoch:
    """What the adapter keeps of one sample epoch (the rest is dropped as it is read)."""

    sample_id: int | str
    epoch: int
    where: str
    content: dict[str, Any]
    scores: dict[str, object]
    error: str | None
    started_at: datetime | None


@dataclass(frozen=True, slots=True)
class Adapted:
    """The evidence files (name -> bytes) and counts for the summary line."""

    files: dict[str, bytes]
    cases: int
    verdicts: dict[str, int] = field(default_factory=dict)


# --- reading -------------------------------------------------------------------------------


def _parse_json(data: bytes, what: str) -> dict[str, Any]:
    """A JSON object from `data`, or InspectLogError naming `what` and the problem."""
    try:
        value = json.loads(data.decode("utf-8"), object_pairs_hook=object_without_duplicates)
    except UnicodeDecodeError as error:
        raise InspectLogError(
            f"{what}: not UTF-8 text ({error.reason} at byte {error.start})"
        ) from None
    except json.JSONDecodeError as error:
        raise InspectLogError(
            f"{what}: not JSON: {error.msg} at line {error.lineno} column {error.colno}"
        ) from None
    except DuplicateKeyError as error:
        raise InspectLogError(f"{what}: {error}") from None
    except (ValueError, RecursionError) as error:
        raise InspectLogError(f"{what}: not readable JSON ({type(error).__name__})") from None
    if not isinstance(value, dict):
        raise InspectLogError(f"{what}: got a JSON {type(value).__name__}, expected an object")
    return value


def _read_log(path: Path, limits: InspectLimits) -> tuple[dict[str, Any], list[_Epoch]]:
    """The log's header (everything but samples) and its sample epochs."""
    name = path.name
    try:
        info = path.stat()
        if not stat.S_ISREG(info.st_mode):
            raise InspectLogError(f"{path}: not a regular file")
        with path.open("rb") as stream:
            magic = stream.read(4)
            if magic in _ZIP_MAGIC:
                if info.st_size > limits.max_eval_bytes:
                    raise InspectLogError(
                        f"{name}: {info.st_size} bytes, over the {limits.max_eval_bytes}-byte"
                        " limit for .eval logs"
                    )
                stream.seek(0)
                return _read_eval(stream, name, limits)
            if magic.startswith(_GZIP_MAGIC):
                raise InspectLogError(
                    f"{name}: a gzip file; decompress it first (Inspect logs are .json or .eval)"
                )
            if info.st_size > limits.max_json_bytes:
                raise InspectLogError(
                    f"{name}: {info.st_size} bytes, over the {limits.max_json_bytes}-byte limit"
                    " for .json logs (write the log as .eval: it is read member by member)"
                )
            stream.seek(0)
            data = stream.read(limits.max_json_bytes + 1)
            if len(data) > limits.max_json_bytes:  # it grew since stat
                raise InspectLogError(f"{name}: over the {limits.max_json_bytes}-byte limit")
    except FileNotFoundError:
        raise InspectLogError(f"{path}: file not found") from None
    except OSError as error:
        raise InspectLogError(f"{path}: cannot read: {error.strerror or error}") from None
    log = _parse_json(data, name)
    del data
    samples = log.pop("samples", None)
    if samples is None:
        raise InspectLogError(
            f"{name}: the log holds no samples (was it written with --no-log-samples?)"
        )
    if not isinstance(samples, list):
        raise InspectLogError(f"{name}: samples: got a {type(samples).__name__}, expected a list")
    epochs = [
        _epoch_of(sample, f"{name}: samples[{index}]") for index, sample in enumerate(samples)
    ]
    return log, epochs


def _check_member_name(name: str, log: str) -> None:
    parts = name.split("/")
    if (
        not name
        or name.startswith("/")
        or "\\" in name
        or "\x00" in name
        or _DRIVE.match(name)
        or ".." in parts
    ):
        raise InspectLogError(
            f"{log}: member {name[:100]!r} has an unsafe path (absolute, '..', a backslash or a"
            " drive); refusing the log"
        )


class _Budget:
    """Uncompressed bytes still allowed to be read from the zip."""

    def __init__(self, total: int) -> None:
        self.left = total


def _read_eval(
    stream: io.BufferedReader, log: str, limits: InspectLimits
) -> tuple[dict[str, Any], list[_Epoch]]:
    try:
        with zipfile.ZipFile(stream) as archive:
            infos = archive.infolist()
            if len(infos) > limits.max_members:
                raise InspectLogError(
                    f"{log}: {len(infos)} zip members, over the {limits.max_members}-member limit"
                )
            declared = 0
            for info in infos:
                _check_member_name(info.filename, log)
                declared += info.file_size
            if declared > limits.max_total_bytes:
                raise InspectLogError(
                    f"{log}: members declare {declared} uncompressed bytes, over the"
                    f" {limits.max_total_bytes}-byte limit"
                )
            members = {info.filename: info for info in infos}  # the last of a name wins
            budget = _Budget(limits.max_total_bytes)
            if "header.json" not in members:
                raise InspectLogError(
                    f"{log}: no header.json: the eval did not finish (only finished logs are"
                    " adapted, so that no case is missing)"
                )
            header = _parse_json(
                _member(archive, stream, members["header.json"], log, limits, budget),
                f"{log}: header.json",
            )
            epochs = []
            for name in sorted(members):
                if name.startswith("samples/") and name.endswith(".json"):
                    data = _member(archive, stream, members[name], log, limits, budget)
                    epochs.append(_epoch_of(_parse_json(data, f"{log}: {name}"), f"{log}: {name}"))
            return header, epochs
    except InspectLogError:
        raise
    except (
        zipfile.BadZipFile,
        zipfile.LargeZipFile,
        NotImplementedError,
        RuntimeError,
        struct.error,
        zlib.error,
        EOFError,
        OSError,
        ValueError,
    ) as error:
        raise InspectLogError(
            f"{log}: not a readable .eval (zip) log: {type(error).__name__}: {str(error)[:200]}"
        ) from None


def _member(
    archive: zipfile.ZipFile,
    stream: io.BufferedReader,
    info: zipfile.ZipInfo,
    log: str,
    limits: InspectLimits,
    budget: _Budget,
) -> bytes:
    """The uncompressed bytes of one member, bounded by the member and total caps."""
    what = f"{log}: member {info.filename}"
    if info.flag_bits & 0x1:
        raise InspectLogError(f"{what} is encrypted")
    method = _METHODS.get(info.compress_type)
    if method is None:
        raise InspectLogError(
            f"{what} uses compression method {info.compress_type}; Inspect logs use stored,"
            " deflated or zstd (93)"
        )
    cap = min(limits.max_member_bytes, budget.left)
    if info.file_size > cap:
        raise InspectLogError(f"{what}: {info.file_size} bytes, over the {cap}-byte limit")
    if method == "zstd":
        # Incompressible data grows by well under 1% in a zstd frame; more is not a real member.
        if info.compress_size > cap + cap // 64 + 4096:
            raise InspectLogError(f"{what}: {info.compress_size} compressed bytes, over the limit")
        data = _zstd(_raw(stream, info, what), cap, what)
    else:
        with archive.open(info) as member:
            data = member.read(cap + 1)
    if len(data) > cap:
        raise InspectLogError(f"{what}: over the {cap}-byte limit once decompressed")
    if len(data) != info.file_size or zlib.crc32(data) != info.CRC:
        raise InspectLogError(f"{what} is corrupt: its size or CRC-32 does not match")
    budget.left -= len(data)
    return data


def _raw(stream: io.BufferedReader, info: zipfile.ZipInfo, what: str) -> bytes:
    """The compressed bytes of a member, found from its local file header."""
    stream.seek(info.header_offset)
    header = stream.read(30)
    if len(header) != 30 or header[:4] != b"PK\x03\x04":
        raise InspectLogError(f"{what}: bad local file header")
    skip = int.from_bytes(header[26:28], "little") + int.from_bytes(header[28:30], "little")
    stream.seek(info.header_offset + 30 + skip)
    raw = stream.read(info.compress_size)
    if len(raw) != info.compress_size:
        raise InspectLogError(f"{what}: truncated")
    return raw


def _zstd(raw: bytes, cap: int, what: str) -> bytes:
    """Decompress every zstd frame of `raw`, reading at most `cap` + 1 bytes of output."""
    try:
        zstandard: Any = importlib.import_module("zstandard")
    except ImportError:
        raise InspectLogError(
            f"{what} is zstd-compressed, and the zstandard module is not installed: " + EXTRA_HINT
        ) from None
    chunks: list[bytes] = []
    total = 0
    try:
        reader = zstandard.ZstdDecompressor().stream_reader(raw, read_across_frames=True)
        while total <= cap:
            chunk: bytes = reader.read(min(_CHUNK, cap + 1 - total))
            if not chunk:
                break
            chunks.append(chunk)
            total += len(chunk)
    except zstandard.ZstdError as error:
        raise InspectLogError(f"{what}: bad zstd data: {str(error)[:200]}") from None
    return b"".join(chunks)


# --- one sample epoch ----------------------------------------------------------------------


def _epoch_of(raw: object, where: str) -> _Epoch:
    if not isinstance(raw, dict):
        raise InspectLogError(f"{where}: got a {type(raw).__name__}, expected a sample object")
    sample_id = raw.get("id")
    if isinstance(sample_id, bool) or not isinstance(sample_id, int | str):
        raise InspectLogError(
            f"{where}: sample id {_short(sample_id)} is not an integer or a string"
        )
    where = f"{where} (sample {sample_id!r})"
    epoch = raw.get("epoch", 1)
    if isinstance(epoch, bool) or not isinstance(epoch, int) or epoch < 1:
        raise InspectLogError(f"{where}: epoch {_short(epoch)} is not a positive integer")
    for key in ("input", "target"):
        if key not in raw:
            raise InspectLogError(f"{where}: no {key}")
    content: dict[str, Any] = {"input": _scrub_input(raw["input"], where), "target": raw["target"]}
    fields = {**raw, "metadata": _dataset_metadata(raw)}
    for key in ("choices", "description", "metadata", "files", "setup"):
        value = fields.get(key)
        if value is not None and value != {} and value != [] and value != "":
            content[key] = value
    scores: dict[str, object] = {}
    raw_scores = raw.get("scores")
    if isinstance(raw_scores, dict):
        for name, score in raw_scores.items():
            if isinstance(score, dict) and "value" in score:
                scores[name] = score["value"]
    return _Epoch(
        sample_id=sample_id,
        epoch=epoch,
        where=where,
        content=_canonical(content, where),
        scores=scores,
        error=_error_message(raw.get("error")),
        started_at=_moment(raw.get("started_at"), f"{where}: started_at"),
    )


def _dataset_metadata(raw: Mapping[str, Any]) -> object:
    """The sample's metadata as the dataset gave it: from the `sample_init` event if any.

    The sample's own `metadata` field holds the task state's metadata after the solvers ran,
    which a solver may have changed; the `sample_init` event holds the sample before.
    """
    events = raw.get("events")
    for event in events if isinstance(events, list) else []:
        if isinstance(event, dict) and event.get("event") == "sample_init":
            sample = event.get("sample")
            return sample.get("metadata") if isinstance(sample, dict) else None
    return raw.get("metadata")


def _scrub_input(value: object, where: str) -> object:
    """The input with every chat message's per-run random `id` left out."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(message, dict) for message in value):
        return [{k: v for k, v in message.items() if k != "id"} for message in value]
    raise InspectLogError(f"{where}: input is neither a string nor a list of chat messages")


def _canonical(content: dict[str, Any], where: str) -> dict[str, Any]:
    """`content` in RFC 8785 form (sorted keys, normalised numbers), or InspectLogError."""
    if _depth(content) > _MAX_CONTENT_DEPTH:
        raise InspectLogError(
            f"{where}: input, target and metadata are nested deeper than"
            f" {_MAX_CONTENT_DEPTH} levels"
        )
    try:
        canonical: dict[str, Any] = json.loads(rfc8785.dumps(content))
    except (rfc8785.CanonicalizationError, ValueError, TypeError) as error:
        raise InspectLogError(
            f"{where}: input, target and metadata have no RFC 8785 form: {str(error)[:200]}"
        ) from None
    return canonical


def _depth(value: object) -> int:
    """Nesting depth of a JSON value, walked with an explicit stack."""
    deepest = 0
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            deepest = max(deepest, depth)
            if depth > _MAX_CONTENT_DEPTH:
                return depth
            children = item.values() if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
    return deepest


def _error_message(error: object) -> str | None:
    if error is None:
        return None
    message = error.get("message") if isinstance(error, dict) else error
    text = message if isinstance(message, str) and message else "an error without a message"
    return text if len(text) <= _MAX_ERROR else f"{text[: _MAX_ERROR - 3]}..."


def _moment(value: object, where: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InspectLogError(f"{where}: got {_short(value)}, expected an RFC 3339 time")
    moment = parse_timestamp(value)
    if moment is None:
        problem = "has no UTC offset" if is_naive_timestamp(value) else "is not an RFC 3339 time"
        raise InspectLogError(f"{where}: {_short(value)} {problem}")
    return moment


def _mapping(value: object) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (unknown or missing sections)."""
    return value if isinstance(value, dict) else {}


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 60 else f"{text[:57]}..."


# --- from epochs to cases and trials -------------------------------------------------------


def _sample_order(sample_id: int | str) -> tuple[int, int, tuple[int | str, ...], str]:
    """Integers first, numerically; then strings in natural order, ties by the plain string."""
    if isinstance(sample_id, int):
        return (0, sample_id, (), "")
    parts = _DIGITS.split(sample_id)
    natural = tuple(int(part) if index % 2 else part for index, part in enumerate(parts))
    return (1, 0, natural, sample_id)


def _judge(value: object, where: str) -> float:
    """The epoch's score as a number in [0, 1]; 1 passes. Refuse values with no clear verdict."""
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, int | float):
        if math.isfinite(value) and 0 <= value <= 1:
            return float(value)
        raise InspectLogError(
            f"{where}: score value {_short(value)} is not a number in [0, 1] (1 passes)"
        )
    if isinstance(value, str) and value in _LETTERS:
        return _LETTERS[value]
    raise InspectLogError(
        f"{where}: score value {_short(value)} has no pass/fail reading; the adapter reads"
        " C/I/P/N, true/false and numbers in [0, 1]"
    )


def _result(
    epochs: Sequence[_Epoch], scorer: str, mode: str, mapped: ValueMap | None = None
) -> dict[str, Any]:
    """The trial's result. With `mapped` (--verdict-map), the verdict is the deciding epoch's
    raw value mapped (the first failing epoch, else "error" if any errored, else epoch 1; with
    `first`, epoch 1), while pass and fail still decide which epoch that is."""
    verdicts: list[str] = []
    scores: list[float | None] = []
    values: list[object] = []
    errors: list[str] = []
    for epoch in epochs:
        if epoch.error is not None:
            verdicts.append("error")
            scores.append(None)
            values.append(None)
            errors.append(epoch.error)
        elif scorer not in epoch.scores:
            verdicts.append("error")
            scores.append(None)
            values.append(None)
            errors.append(f"no score from scorer {scorer!r} in epoch {epoch.epoch}")
        else:
            value = epoch.scores[scorer]
            judged = _judge(value, f"{epoch.where}, epoch {epoch.epoch}")
            verdicts.append("pass" if judged == 1.0 else "fail")
            scores.append(judged)
            values.append(value)
    score: float | None
    if mode == "first":
        verdict, score = verdicts[0], scores[0]
    else:
        verdict = next((v for v in ("fail", "error") if v in verdicts), "pass")
        scored = [s for s in scores if s is not None]
        score = min(scored) if scored and verdict != "error" else None
    if mapped is not None and verdict != "error":
        deciding = 0 if mode == "first" else verdicts.index(verdict)
        raw = _plain(values[deciding])
        where = f"{epochs[deciding].where}, epoch {epochs[deciding].epoch}: --verdict-map"
        verdict = _text(mapped.apply(raw or "", where), where)
    return {
        "verdict": verdict,
        "score": score,
        "values": values,
        "epochs": len(epochs),
        "error": errors[0] if errors else None,
    }


def _text(value: object, where: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= _MAX_NAME:
        raise InspectLogError(
            f"{where}: got {_short(value)}, expected a string of 1-200 characters"
        )
    return value


def _timestamp(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    pattern = "%Y-%m-%dT%H:%M:%S.%fZ" if moment.microsecond else "%Y-%m-%dT%H:%M:%SZ"
    return moment.strftime(pattern)


def _group(
    epochs: Sequence[_Epoch], log: str, expected: int | None, listed: object
) -> list[list[_Epoch]]:
    """Epochs grouped by sample id, in sample order, each group in epoch order and complete."""
    groups: dict[tuple[bool, int | str], list[_Epoch]] = {}
    for epoch in epochs:
        groups.setdefault((isinstance(epoch.sample_id, str), epoch.sample_id), []).append(epoch)
    if not groups:
        raise InspectLogError(f"{log}: the log holds no samples")
    if isinstance(listed, list):
        missing = [
            item
            for item in listed
            if isinstance(item, int | str)
            and not isinstance(item, bool)
            and (isinstance(item, str), item) not in groups
        ]
        if missing:
            shown = ", ".join(repr(item) for item in missing[:5])
            raise InspectLogError(
                f"{log}: the dataset lists {len(missing)} sample(s) the log holds no epoch of"
                f" ({shown}); only complete logs are adapted, so that no case is missing"
            )
    count = expected or max(epoch.epoch for epoch in epochs)
    ordered = []
    for key in sorted(groups, key=lambda key: _sample_order(key[1])):
        group = sorted(groups[key], key=lambda epoch: epoch.epoch)
        numbers = [epoch.epoch for epoch in group]
        if numbers != list(range(1, count + 1)):
            raise InspectLogError(
                f"{group[0].where}: has epochs {numbers}, expected 1 to {count}: the log is"
                " incomplete or repeats an epoch"
            )
        if any(epoch.content != group[0].content for epoch in group[1:]):
            raise InspectLogError(
                f"{group[0].where}: its epochs disagree on input, target or metadata"
            )
        ordered.append(group)
    case_ids: dict[str, int | str] = {}
    for group in ordered:
        sample_id = group[0].sample_id
        case_id = str(sample_id)
        if _CASE_ID.match(case_id) is None:
            raise InspectLogError(
                f"{group[0].where}: id {case_id[:60]!r} is not a registry case id (letters,"
                " digits, '.', '_', ':', '/', '-'; at most 200 characters)"
            )
        if case_id in case_ids:
            raise InspectLogError(
                f"{log}: sample ids {case_ids[case_id]!r} and {sample_id!r} both give case_id"
                f" {case_id!r}"
            )
        case_ids[case_id] = sample_id
    return ordered


def _choose_scorer(header_scorers: list[str], epochs: Sequence[_Epoch], asked: str | None) -> str:
    names = set(header_scorers) | {name for epoch in epochs for name in epoch.scores}
    available = ", ".join(sorted(names)) or "none"
    if asked is not None:
        if asked not in names:
            raise InspectLogError(f"the log has no scorer {asked!r} (it has: {available})")
        return asked
    if len(names) != 1:
        raise InspectLogError(
            f"the log has {len(names)} scorers ({available}): name one with --scorer"
            if names
            else "the log holds no scores: nothing to judge the trials by"
        )
    return next(iter(names))


# --- mapping options -----------------------------------------------------------------------

_KEY = r"[A-Za-z0-9_-]+"
_SOURCE = re.compile(rf"\A(metadata)\.({_KEY}(?:\.{_KEY})*)\Z|\A(score)\.([A-Za-z0-9_./-]+)\Z")


@dataclass(frozen=True, slots=True)
class ValueMap:
    """`VALUE=NEW,...`: each value the log gives -> what the evidence says; `*=NEW` for the
    rest. Without `*`, a value the map does not name is refused (never silently passed on)."""

    entries: tuple[tuple[str, str], ...]
    default: str | None = None

    def text(self) -> str:
        rest = [("*", self.default)] if self.default is not None else []
        return ",".join(f"{value}={new}" for value, new in [*self.entries, *rest])

    def apply(self, value: str, where: str) -> str:
        for known, new in self.entries:
            if known == value:
                return new
        if self.default is not None:
            return self.default
        named = ", ".join(known for known, _ in self.entries)
        raise InspectLogError(f"{where}: {_short(value)} is not in the map ({named}, no *=)")


@dataclass(frozen=True, slots=True)
class Source:
    """Where a field comes from: `metadata.KEY[.KEY...]` (the sample's dataset metadata) or
    `score.SCORER` (that scorer's value, the same in every epoch), then `:MAP` optionally."""

    where: str  # "metadata" or "score"
    key: str
    values: ValueMap | None = None

    def text(self) -> str:
        mapped = f":{self.values.text()}" if self.values is not None else ""
        return f"{self.where}.{self.key}{mapped}"


def parse_value_map(text: str) -> ValueMap:
    """`C=caught,I=false_safe` or with `*=other`; raises ValueError naming the problem."""
    entries: list[tuple[str, str]] = []
    default: str | None = None
    if not text:
        raise ValueError("an empty map: write VALUE=NEW[,VALUE=NEW...]")
    for entry in text.split(","):
        value, equals, new = entry.partition("=")
        if not equals or not value or not new or "=" in new:
            raise ValueError(f"{entry!r}: write VALUE=NEW (no ',' or '=' inside either)")
        if len(new) > _MAX_NAME or len(value) > _MAX_NAME:
            raise ValueError(f"{entry!r}: at most {_MAX_NAME} characters each side")
        if value == "*":
            if default is not None:
                raise ValueError("'*' is mapped twice")
            default = new
        elif any(value == known for known, _ in entries):
            raise ValueError(f"{value!r} is mapped twice")
        else:
            entries.append((value, new))
    return ValueMap(tuple(entries), default)


def parse_source(text: str) -> Source:
    """`metadata.kind`, `score.truth_scorer`, `metadata.label:attack=unsafe,*=safe`."""
    place, colon, mapping = text.partition(":")
    match = _SOURCE.match(place)
    if match is None:
        raise ValueError(
            f"{place!r}: name metadata.KEY (a sample metadata field; dots go deeper) or"
            " score.SCORER (a scorer's value), then optionally :VALUE=NEW,..."
        )
    where, key = (match.group(1), match.group(2)) if match.group(1) else match.group(3, 4)
    return Source(where, key, parse_value_map(mapping) if colon else None)


@dataclass(frozen=True, slots=True)
class FieldMap:
    """How the adapter fills the fields a market's bars read (docs/adapters.md)."""

    kind: Source | None = None  # default: metadata.kind when a string, else "task"
    family: Source | None = None  # default: the task name
    system: Source | None = None  # default: the eval's model
    truth: Source | None = None  # default: no result.truth
    verdicts: ValueMap | None = None  # default: pass / fail / error
    evaluator: str | None = None  # default: null (a scorer name on every trial joins them)


def _plain(value: object) -> str | None:
    """A metadata or score value as text: strings as they are, booleans and numbers in their
    JSON form; None for anything else (a list, an object, null)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float) and math.isfinite(value):
        return json.dumps(value)
    return None


def _lookup(source: Source, group: Sequence[_Epoch]) -> str:
    """The value `source` names for one sample (all its epochs), mapped and checked."""
    first = group[0]
    where = f"{first.where}: {source.where}.{source.key}"
    if source.where == "metadata":
        value: object = first.content.get("metadata")
        for part in source.key.split("."):
            value = value.get(part) if isinstance(value, dict) else None
        found = _plain(value)
    else:
        seen = {_plain(epoch.scores.get(source.key)) for epoch in group}
        if len(seen) != 1:
            raise InspectLogError(
                f"{where}: the epochs disagree or some have no value ({len(seen)} values)"
            )
        found = seen.pop()
    if found is None:
        raise InspectLogError(f"{where}: missing, or not a string, number or boolean")
    mapped = source.values.apply(found, where) if source.values is not None else found
    return _text(mapped, where)


def convert(
    log: Path,
    scorer: str | None = None,
    epochs: str = DEFAULT_EPOCHS,
    family_field: str | None = None,
    limits: InspectLimits = InspectLimits(),
    fields: FieldMap = FieldMap(),
) -> Adapted:
    """Read an Inspect log and return the evidence files it gives, checked. No file is written.

    `family_field` F is `fields.family = metadata.F`. Raises InspectLogError for a log the
    adapter cannot read, a value a mapping does not cover, or evidence the verifier would
    refuse.
    """
    if family_field is not None:
        if fields.family is not None:
            raise InspectLogError("--family-field and --family-from: give one")
        fields = replace(fields, family=Source("metadata", family_field))
    from bot.rules.evidence.rules import case_hash

    if epochs not in EPOCH_MODES:
        raise InspectLogError(f"--epochs {epochs!r}: use {' or '.join(EPOCH_MODES)}")
    name = log.name
    header, sample_epochs = _read_log(log, limits)
    status = header.get("status")
    if status != "success":
        raise InspectLogError(
            f'{name}: the log\'s status is {_short(status)}, not "success": only finished logs'
            " are adapted, so that no case is missing"
        )
    if header.get("invalidated") is True:
        raise InspectLogError(f"{name}: the log is marked invalidated")
    spec = header.get("eval")
    if not isinstance(spec, dict):
        raise InspectLogError(f"{name}: no eval section")
    task = _text(spec.get("task"), f"{name}: eval.task")
    model = _text(spec.get("model"), f"{name}: eval.model")
    log_id = next(
        (spec[key] for key in ("eval_id", "run_id", "task_id") if isinstance(spec.get(key), str)),
        None,
    )
    log_id = _text(log_id, f"{name}: eval.eval_id")
    created = _moment(spec.get("created"), f"{name}: eval.created")
    if created is None:
        raise InspectLogError(f"{name}: eval.created: missing")
    config = _mapping(spec.get("config"))
    expected = config.get("epochs")
    expected = expected if isinstance(expected, int) and not isinstance(expected, bool) else None
    if expected is not None and expected < 1:
        raise InspectLogError(f"{name}: eval.config.epochs is {expected}")
    dataset = _mapping(spec.get("dataset"))
    groups = _group(sample_epochs, name, expected, dataset.get("sample_ids"))
    listed_scorers = spec.get("scorers")
    header_scorers = [
        item["name"]
        for item in (listed_scorers if isinstance(listed_scorers, list) else [])
        if isinstance(item, dict) and isinstance(item.get("name"), str)
    ]
    chosen = _text(_choose_scorer(header_scorers, sample_epochs, scorer), f"{name}: scorer")
    stats = _mapping(header.get("stats"))
    run_start = _moment(stats.get("started_at"), f"{name}: stats.started_at") or created

    cases: list[dict[str, Any]] = []
    trials: list[dict[str, Any]] = []
    verdicts: dict[str, int] = {}
    for group in groups:
        first = group[0]
        case_id = str(first.sample_id)
        metadata = first.content.get("metadata", {})
        metadata = metadata if isinstance(metadata, dict) else {}
        family = task if fields.family is None else _lookup(fields.family, group)
        if fields.kind is None:
            kind = metadata.get("kind")
            kind = kind if isinstance(kind, str) and 1 <= len(kind) <= _MAX_NAME else "task"
        else:
            kind = _lookup(fields.kind, group)
        cases.append(
            {
                "case_id": case_id,
                "sha256": case_hash(first.content),
                "family": family,
                "kind": kind,
                "public": {"sample_id": first.sample_id},
                "content": first.content,
            }
        )
        starts = [epoch.started_at for epoch in group if epoch.started_at is not None]
        trajectory = f"{log_id}:{case_id}"
        if len(trajectory) > _MAX_NAME:
            trajectory = f"{log_id}:sha256:{hashlib.sha256(case_id.encode()).hexdigest()[:32]}"
        result = _result(group, chosen, epochs, fields.verdicts)
        if fields.truth is not None:
            result["truth"] = _lookup(fields.truth, group)
        verdicts[result["verdict"]] = verdicts.get(result["verdict"], 0) + 1
        trials.append(
            {
                "case_id": case_id,
                "system": model if fields.system is None else _lookup(fields.system, group),
                "started_at": _timestamp(min(starts) if starts else run_start),
                "trajectory": trajectory[:_MAX_NAME],
                "evaluator": fields.evaluator,
                "attack_family": None,
                "result": result,
            }
        )
    freeze = _freeze(header, spec, chosen, created, epochs, task, model, len(groups))
    files = _serialise(cases, trials, freeze)
    return Adapted(files=files, cases=len(cases), verdicts=dict(sorted(verdicts.items())))


def _freeze(
    header: Mapping[str, Any],
    spec: Mapping[str, Any],
    scorer: str,
    created: datetime,
    epochs: str,
    task: str,
    model: str,
    count: int,
) -> tuple[dict[str, Any], list[str]]:
    """The freeze.yaml stub and the comment lines above it."""
    plan = _mapping(header.get("plan"))
    steps = plan.get("steps")
    steps = steps if isinstance(steps, list) else []
    solvers = [
        step["solver"]
        for step in steps
        if isinstance(step, dict) and isinstance(step.get("solver"), str) and step["solver"]
    ]
    if not solvers and isinstance(spec.get("solver"), str) and spec["solver"]:
        solvers = [spec["solver"]]
    comments = ["A freeze.yaml stub written by `claims adapt inspect` from an Inspect log."]
    comments.append("Review it before filing: the freeze is what was fixed before scoring.")
    if solvers:
        method = ", ".join(solvers)
        method = method if len(method) <= _MAX_NAME else f"{method[: _MAX_NAME - 3]}..."
        comments.append("method.name: the log's solver plan; name the method under test.")
    else:
        from bot.rules.evidence.rules import PLACEHOLDER

        # A placeholder verify refuses (`schema`) until replaced, like the code_commit below.
        method = f"{PLACEHOLDER}: the method under test"
        comments.append("method.name: the log names no solver; replace FILL-IN with the method.")
    revision = _mapping(spec.get("revision"))
    commit = revision.get("commit")
    if isinstance(commit, str) and _HEX_COMMIT.match(commit):
        code_commit = commit
        comments.append("code_commit: the log's git revision.")
    else:
        code_commit = PLACEHOLDER_COMMIT
        seen = "no full commit"
        if isinstance(commit, str) and re.fullmatch(r"[0-9a-fA-F]{4,64}", commit):
            seen = f"commit {commit}, not the full 40 hex digits"
        comments.append(f"code_commit: a PLACEHOLDER (40 zeros); the log records {seen}.")
        comments.append("  REPLACE it with the full commit of the code that ran the eval.")
    if revision.get("dirty") is True:
        comments.append("  The log says that working tree had uncommitted changes.")
    comments.append("frozen_at: when the eval was created; epochs: how epochs reduce to a trial.")
    freeze: dict[str, Any] = {
        "method": {"name": method},
        "code_commit": code_commit,
        "scorer": scorer,
        "frozen_at": _timestamp(created),
        "epochs": epochs,
        "notes": (
            f"Adapted from an Inspect log of task {task} ({count} samples), model {model},"
            f" scored by {scorer}; epochs reduce by {epochs}."
        )[:20000],
    }
    return freeze, comments


def _serialise(
    cases: list[dict[str, Any]],
    trials: list[dict[str, Any]],
    freeze_and_comments: tuple[dict[str, Any], list[str]],
) -> dict[str, bytes]:
    """The three files, read back with the verifier's loader and rules before they are kept."""
    import yaml

    from bot.edges.dump import dump_jsonl, dump_yaml
    from bot.rules.evidence.rules import check_cases, check_trials
    from bot.rules.evidence.schema import validate
    from bot.vocab.findings import Finding
    from bot.vocab.jsonl import parse_jsonl

    freeze, comments = freeze_and_comments
    try:
        case_bytes = dump_jsonl(cases)
        trial_bytes = dump_jsonl(trials)
        header = "".join(f"# {line}\n" for line in comments).encode()
        freeze_bytes = header + dump_yaml(freeze)
    except (UnicodeEncodeError, ValueError, yaml.YAMLError) as error:
        raise InspectLogError(f"the log's text cannot be written as evidence: {error}") from None
    problems: list[Finding] = []
    case_records, found = parse_jsonl(io.BytesIO(case_bytes), "freeze-cases.jsonl")
    problems += found
    checked, found = check_cases(case_records, "freeze-cases.jsonl")
    problems += found
    trial_records, found = parse_jsonl(io.BytesIO(trial_bytes), "trials.jsonl")
    problems += found
    problems += check_trials(trial_records, checked, _UNIT_KEYS, "trials.jsonl")[1]
    problems += validate("freeze", freeze, "freeze.yaml")
    if problems:
        shown = "; ".join(
            f"{p.file}{f':{p.line}' if p.line else ''}: {p.message}" for p in problems[:3]
        )
        more = f" (and {len(problems) - 3} more)" if len(problems) > 3 else ""
        raise InspectLogError(f"the evidence from this log would be refused: {shown}{more}")
    return {FILES[0]: case_bytes, FILES[1]: trial_bytes, FILES[2]: freeze_bytes}


def stub_values(
    log: Path, limits: InspectLimits = InspectLimits()
) -> tuple[list[tuple[str, Any, str]], list[str]]:
    """What an Inspect log knows of the `claims init` stubs' values.

    Returns ([(field, value, where in the log)], [notes on fields it cannot fill]). Only what
    the log states: the method from its solver plan, the code commit when it is a full one,
    the scorer when there is one, the freeze time from the eval's creation, and a title from
    its task and model. Raises InspectLogError for a log the adapter cannot read.
    """
    name = log.name
    header, _ = _read_log(log, limits)
    spec = header.get("eval")
    if not isinstance(spec, dict):
        raise InspectLogError(f"{name}: no eval section")
    task = _text(spec.get("task"), f"{name}: eval.task")
    model = _text(spec.get("model"), f"{name}: eval.model")
    values: list[tuple[str, Any, str]] = []
    notes: list[str] = []
    created = _moment(spec.get("created"), f"{name}: eval.created")
    # The adapter's own reading of the method and the commit (its freeze.yaml stub).
    when = created or datetime.now(UTC)
    freeze, _ = _freeze(header, spec, "", when, DEFAULT_EPOCHS, task, model, 0)
    method = freeze["method"]["name"]
    if not str(method).startswith("FILL-IN"):
        values.append(("method.name", method, f"{name}: the solver plan (plan.steps)"))
    revision = _mapping(spec.get("revision"))
    commit = revision.get("commit")
    if freeze["code_commit"] != PLACEHOLDER_COMMIT:
        values.append(("code_commit", freeze["code_commit"], f"{name}: eval.revision.commit"))
    elif isinstance(commit, str) and re.fullmatch(r"[0-9a-fA-F]{4,64}", commit):
        notes.append(
            f"code_commit: {name} records commit {commit}, not a full one: write the full"
            f" commit (`git rev-parse {commit}` in the method's repository)"
        )
    else:
        notes.append(f"code_commit: {name} records no git revision")
    listed = spec.get("scorers")
    scorers = [
        item["name"]
        for item in (listed if isinstance(listed, list) else [])
        if isinstance(item, dict) and isinstance(item.get("name"), str) and item["name"]
    ]
    if len(scorers) == 1:
        values.append(("scorer", scorers[0], f"{name}: eval.scorers"))
    else:
        notes.append(f"scorer: {name} lists {len(scorers)} scorers; name the one that judges")
    if created is not None:
        values.append(
            (
                "frozen_at",
                _timestamp(created),
                f"{name}: eval.created (when the eval was set up; write a later freeze time if"
                " you froze later)",
            )
        )
    title = f"{task} on {model}"[:_MAX_NAME]
    values.append(("title", title, f"{name}: eval.task and eval.model"))
    return values, notes


# --- files and the command line ------------------------------------------------------------


def adapt_inspect(
    log: Path,
    out: Path,
    scorer: str | None,
    epochs: str,
    family_field: str | None = None,
    limits: InspectLimits = InspectLimits(),
    fields: FieldMap = FieldMap(),
) -> list[str]:
    """Write freeze-cases.jsonl, trials.jsonl and freeze.yaml into `out`; return their names.

    Nothing is written unless the whole log converts. Raises InspectLogError.
    """
    return _write(convert(log, scorer, epochs, family_field, limits, fields), out)


def _write(adapted: Adapted, out: Path) -> list[str]:
    try:
        out.mkdir(parents=True, exist_ok=True)
    except OSError as error:
        raise InspectLogError(f"cannot create {out}: {error.strerror or error}") from None
    for name, data in adapted.files.items():
        target = out / name
        temporary = out / f".{name}.tmp"
        try:
            temporary.write_bytes(data)
            temporary.replace(target)
        except OSError as error:
            raise InspectLogError(f"cannot write {target}: {error.strerror or error}") from None
    return list(adapted.files)


def add_parser(subparsers: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    """Add `inspect` to the `adapt` command's sub-parsers."""
    parser = subparsers.add_parser(
        "inspect",
        help="an Inspect (inspect_ai) evaluation log",
        description="Turn an Inspect evaluation log (.json, or .eval with the inspect extra) "
        "into freeze-cases.jsonl, trials.jsonl and a freeze.yaml stub: one case and one trial "
        "per sample id, sorted by id, the same bytes on every run.",
    )
    parser.add_argument("log", type=Path, metavar="LOG", help="the Inspect log (.json or .eval)")
    parser.add_argument(
        "--out", type=Path, required=True, metavar="DIR", help="write the evidence files here"
    )
    parser.add_argument(
        "--scorer", metavar="NAME", help="the scorer that judges trials (needed if several)"
    )
    parser.add_argument(
        "--epochs",
        choices=EPOCH_MODES,
        default=DEFAULT_EPOCHS,
        help="how epochs reduce to one trial per case: all-must-pass (default: a case fails "
        "if any epoch fails) or first",
    )
    parser.add_argument(
        "--family-field",
        metavar="FIELD",
        help="take each case's family from this sample metadata field (default: the task"
        " name); the same as --family-from metadata.FIELD",
    )
    sources = "SOURCE is metadata.KEY or score.SCORER, optionally :VALUE=NEW,...[,*=NEW]"
    for name, default in (
        ("kind", "metadata.kind when it is a string, else 'task'"),
        ("family", "the task name"),
        ("system", "the eval's model"),
        ("truth", "none: no result.truth"),
    ):
        parser.add_argument(
            f"--{name}-from",
            type=_option(parse_source),
            metavar="SOURCE",
            help=f"each {'trial' if name in ('system', 'truth') else 'case'}'s {name}"
            f" (default: {default}); {sources}",
        )
    parser.add_argument(
        "--verdict-map",
        type=_option(parse_value_map),
        metavar="VALUE=VERDICT,...",
        help="write these verdicts for the scorer's values, e.g. C=caught,I=false_safe"
        " (default: pass, fail or error); errored trials stay 'error'",
    )
    parser.add_argument(
        "--evaluator",
        metavar="NAME",
        help="each trial's evaluator, a unit key (default: null; trials that share an"
        " evaluator join one unit, so name one only when a person or model really judged)",
    )


def _option(parse: Any) -> Any:
    """An argparse type from a parser raising ValueError (argparse shows the message)."""

    def parsed(text: str) -> Any:
        try:
            return parse(text)
        except ValueError as error:
            raise argparse.ArgumentTypeError(str(error)) from None

    parsed.__name__ = parse.__name__
    return parsed


def run(args: argparse.Namespace) -> int:
    """`claims adapt inspect`: write the files and say what they hold. Raises InspectLogError."""
    fields = FieldMap(
        kind=args.kind_from,
        family=args.family_from,
        system=args.system_from,
        truth=args.truth_from,
        verdicts=args.verdict_map,
        evaluator=args.evaluator,
    )
    if args.evaluator is not None:
        _text(args.evaluator, "--evaluator")
    adapted = convert(args.log, args.scorer, args.epochs, args.family_field, fields=fields)
    _write(adapted, args.out)
    counts = ", ".join(f"{count} {verdict}" for verdict, count in adapted.verdicts.items())
    print(f"wrote {args.out / FILES[0]}: {adapted.cases} cases")
    print(f"wrote {args.out / FILES[1]}: {adapted.cases} trials ({counts}; epochs {args.epochs})")
    print(f"wrote {args.out / FILES[2]}: a stub; review method and code_commit before filing")
    return 0

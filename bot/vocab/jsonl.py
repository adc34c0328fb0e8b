"""JSONL parsed line by line, with the line number of every record and of every refusal.

Refused, each as a `jsonl-invalid` finding with its line (docs/spec.md §4.2):
a byte order mark, blank lines, lines over `Limits.max_jsonl_line_bytes` (read with a cap, so
a huge line never sits in memory whole), text that is not UTF-8 or not JSON, NaN/Infinity and
numbers that overflow to infinity (`json` accepts both), duplicate keys (`json` keeps the last
silently), integers outside I-JSON's ±(2**53-1), named by their field (`bot/vocab/values.py`:
no later stage could carry them: RFC 8785 forms, reports), and lines that are not a JSON
object. One bad line never hides the next.

Speed (bench/verify_scale.py): a line is first read by orjson (~5x faster than `json` with the
strict hooks) where that cannot differ from the strict reading (`_fast_decode`): plain ASCII,
no integer of 19 digits or more (orjson reads integers past 2**64 as floats), and no duplicate
key, proven by counting `":` on the bytes against the keys decoded. orjson refuses NaN,
infinities, lone surrogates and control characters itself; any line it refuses, or that the
checks cannot clear, is read by the strict path, which gives every refusal its message.

Memory stays proportional to the file (docs/spec.md §4.2: 1 MB lines of empty lists cost ~30x
their size once built). Before `json` builds a record, its arrays and objects and its values
are counted on the raw bytes (`_shape`): a record over `Limits.max_jsonl_record_containers` or
`max_jsonl_record_values` is refused without being built. The file's running totals are capped
too (`max_jsonl_file_containers`, `max_jsonl_file_values`): the line that crosses a cap is
refused and the rest of the file is not read, since every record read is kept.

Equal strings that a field repeats from record to record (a trial's system, evaluator or
verdict, a case's family) are kept once per file (`_share`): a field that takes more than
`_SHARED_VALUES` distinct values (ids, hashes, times) is left alone after that. The records
hold equal values either way; only fewer copies of them are kept.
"""

from __future__ import annotations

import contextlib
import gc
import json
import math
import re
import sys
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, BinaryIO, NamedTuple

import orjson

from bot.vocab.config import Limits
from bot.vocab.document import Record
from bot.vocab.findings import Code, Finding
from bot.vocab.values import unsafe_value

__all__ = [
    "DuplicateKeyError",
    "SharedStrings",
    "Typed",
    "loads",
    "object_without_duplicates",
    "parse_json",
    "parse_jsonl",
    "paused_gc",
    "share_values",
]

_BOM = b"\xef\xbb\xbf"
_SURROGATE_ESCAPE = re.compile(rb"\\u[dD][89a-fA-F]")
_CHUNK = 1 << 16


class _Bad(ValueError):
    pass


_SHARED_VALUES = 4096  # distinct values a field may take and still be kept once (`_share`)
_UNSHARED: dict[str, str] = {}  # the memo of a field with more distinct values: not shared


def _share(record: dict[str, Any], memos: dict[object, dict[str, str]]) -> None:
    """Replace each string of `record`'s fields, and of the fields of its objects, by an equal
    string an earlier record of the file held in the same field, where there is one.

    `memos`: per field (a key, or a key and the key of its object), its distinct values so far;
    a field past `_SHARED_VALUES` of them gets `_UNSHARED` and is no longer looked at.
    """
    _share_fields(record, memos, None)
    for key, value in record.items():
        if type(value) is dict:
            _share_fields(value, memos, key)


def _share_fields(
    fields: dict[str, Any], memos: dict[object, dict[str, str]], parent: str | None
) -> None:
    for key, value in fields.items():
        if type(value) is str:
            kept = _kept(memos, key if parent is None else (parent, key), value)
            if kept is not value:
                fields[key] = kept  # an existing key: the dict keeps its size and order


def _kept(memos: dict[object, dict[str, str]], where: object, value: str) -> str:
    """`value`, or the equal string field `where` held first; a field past `_SHARED_VALUES`
    distinct values gets `_UNSHARED` and is no longer looked at."""
    memo = memos.get(where)
    if memo is None:
        memo = memos[where] = {}
    elif memo is _UNSHARED:
        return value
    kept = memo.setdefault(value, value)
    if kept is value and len(memo) > _SHARED_VALUES:
        memos[where] = _UNSHARED
    return kept


class SharedStrings:
    """Equal strings that a field repeats kept once, per field (as `_share` does for the
    records it keeps): for a caller that keeps a few fields of records it does not keep."""

    __slots__ = ("memos",)

    def __init__(self) -> None:
        self.memos: dict[object, dict[str, str]] = {}

    def one(self, where: object, value: str) -> str:
        """`value`, or the equal string field `where` held first (up to `_SHARED_VALUES`)."""
        return _kept(self.memos, where, value)

    def fields(self, fields: dict[str, Any], parent: str) -> None:
        """Each string of `fields` (an object under key `parent`) kept once, in place."""
        _share_fields(fields, self.memos, parent)

    def column(self, where: object, values: list[str]) -> list[str]:
        """`one` of each of `values`, in one `map`: once field `where` holds more than
        `_SHARED_VALUES` distinct values (checked after each column), it is not shared."""
        memo = self.memos.get(where)
        if memo is None:
            memo = self.memos[where] = {}
        elif memo is _UNSHARED:
            return values
        kept = list(map(memo.setdefault, values, values))
        if len(memo) > _SHARED_VALUES:
            self.memos[where] = _UNSHARED
        return kept

    def objects(self, objects: Iterable[dict[str, Any]], parent: str) -> None:
        """`fields` of each of `objects` in turn (each under key `parent`), with each field's
        memo looked up once for them all."""
        memos = self.memos
        found: dict[str, dict[str, str]] = {}  # key -> its memo
        for fields in objects:
            for key, value in fields.items():
                if type(value) is not str:
                    continue
                memo = found.get(key)
                if memo is None:
                    memo = found[key] = memos.setdefault((parent, key), {})
                if memo is _UNSHARED:
                    continue
                kept = memo.setdefault(value, value)
                if kept is not value:
                    fields[key] = kept  # an existing key: the dict keeps its size and order
                elif len(memo) > _SHARED_VALUES:
                    memos[(parent, key)] = found[key] = _UNSHARED


def share_values(source: Sequence[Record], target: Sequence[Record], key: str) -> None:
    """Replace each string `key` holds in a `target` record by the equal string it holds in a
    `source` record, where there is one (a trial's `case_id` and its case's: kept once)."""
    values: dict[str, str] = {}
    for record in source:
        value = record.data.get(key)
        if type(value) is str:
            values.setdefault(value, value)
    for record in target:
        value = record.data.get(key)
        if type(value) is str and (kept := values.get(value)) is not None and kept is not value:
            record.data[key] = kept  # an existing key: the dict keeps its size and order


def _no_constant(name: str) -> object:
    raise _Bad(f"{name} is not a JSON number")


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise _Bad(f"number {text[:40]} is out of range")
    return value


def _float_range_int(text: str) -> int:
    value = int(text)
    if abs(value) > sys.float_info.max:  # float(value) would raise OverflowError later
        raise _Bad(f"number {text[:40]} is out of range")
    return value


class DuplicateKeyError(_Bad):
    """A JSON object names the same key twice (`json` would silently keep the last)."""


def object_without_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    """`json.loads(..., object_pairs_hook=...)`: the object, or `DuplicateKeyError`."""
    result: dict[str, Any] = {}
    for key, value in pairs:
        if key in result:
            raise DuplicateKeyError(f"duplicate key {key[:60]!r}")
        result[key] = value
    return result


def _decode(raw: bytes) -> object:
    return json.loads(
        raw.decode("utf-8"),
        parse_constant=_no_constant,
        parse_float=_finite_float,
        parse_int=_float_range_int,
        object_pairs_hook=object_without_duplicates,
    )


_LOOSE_KEY = re.compile(rb'"\s+:')  # a key (or a string) followed by white space and a colon
_DIGITS_AS_ZERO = bytes.maketrans(b"123456789", b"000000000")
_LONG_INTEGER = b"0" * 19  # after _DIGITS_AS_ZERO: a run of 19 digits
# After _DIGITS_AS_ZERO: a run of 16 digits, as long as the shortest integer past 2**53 - 1
# (9007199254740992): a line without one holds no integer outside I-JSON's range.
_UNSAFE_INTEGER = b"0" * 16


def _members(value: dict[str, Any] | list[Any]) -> int:
    """How many members the objects in `value` hold, all depths (recursive: for values no
    deeper than `Limits.max_json_depth`)."""
    count = 0
    if type(value) is dict:
        count = len(value)
        children: Any = value.values()
    else:
        children = value
    for child in children:
        if type(child) is dict or type(child) is list:
            count += _members(child)
    return count


def _fast_decode(raw: bytes) -> object | None:
    """orjson's reading of `raw` where it equals `_decode`'s; None: read it with `_decode`.

    For lines with at most `Limits.max_json_depth` arrays and objects (`_members` recurses).
    Equal because: the line is ASCII (no UTF-8 to disagree on); it holds no run of 19 digits
    (orjson reads integers past 2**64 as floats, `json` as ints); orjson refuses what the
    strict hooks refuse (NaN, Infinity, numbers that overflow, lone surrogate escapes, control
    characters); and no key is repeated. For that last: with no `"` followed by white space
    and a colon, every member's key ends in `":`, so the line's count of `":` is the members
    written plus any `":` inside strings; orjson keeps one member per distinct key, so a
    count equal to the members decoded means no key was written twice (and no `":` is inside
    a string; a line with one takes the strict path).
    """
    if (
        not raw.isascii()
        or _LONG_INTEGER in raw.translate(_DIGITS_AS_ZERO)
        or _LOOSE_KEY.search(raw)
    ):
        return None
    try:
        value = orjson.loads(raw)
    except orjson.JSONDecodeError:
        return None
    if type(value) is not dict and type(value) is not list:
        return value if b'":' not in raw else None
    return value if raw.count(b'":') == _members(value) else None


def _check_tree(value: object, max_depth: int) -> None:
    """Refuse nesting deeper than `max_depth` and strings that are not valid Unicode text.

    json.loads accepts escaped lone surrogates ("\\ud800"), which cannot be written back as
    UTF-8 and would break a report later; walk with an explicit stack, never recursing.
    """
    pending: list[tuple[object, int]] = [(value, 1)]
    while pending:
        item, depth = pending.pop()
        if isinstance(item, dict | list):
            if depth > max_depth:
                raise _Bad(f"nested deeper than {max_depth} levels")
            children = list(item.values()) + list(item) if isinstance(item, dict) else item
            pending.extend((child, depth + 1) for child in children)
        elif isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                raise _Bad("a lone surrogate escape (\\uD800-\\uDFFF) is not text") from None


_STRING = re.compile(rb'"[^"]*"')


def _shape(raw: bytes, limits: Limits) -> tuple[int, int]:
    """(arrays and objects, values) of the JSON text `raw`, counted without parsing it.

    Values are every JSON value, containers included (object keys are not): one for the
    record, plus one per member of each non-empty container, which is 1 + commas + non-empty
    containers. First an upper bound from `bytes.count` (brackets and commas inside strings
    count too); only where it exceeds a record cap are the strings taken out to count exactly
    (exact for valid JSON; invalid JSON is refused by `json` later anyway). Linear in the
    line's length either way: after `\\\\` and `\\"` are dropped no string holds a quote.
    """
    containers = raw.count(b"[") + raw.count(b"{")
    values = containers + raw.count(b",") + 1
    if (
        containers <= limits.max_jsonl_record_containers
        and values <= limits.max_jsonl_record_values
    ):
        return containers, values
    text = raw.replace(b"\\\\", b"").replace(b'\\"', b"") if b"\\" in raw else raw
    outside = _STRING.sub(b"0", text)
    containers = outside.count(b"[") + outside.count(b"{")
    compact = outside.translate(None, b" \t\r\n")
    empty = compact.count(b"[]") + compact.count(b"{}")
    return containers, 1 + outside.count(b",") + containers - empty


def _over_record_caps(containers: int, values: int, limits: Limits) -> str | None:
    if containers > limits.max_jsonl_record_containers:
        cap = limits.max_jsonl_record_containers
        return f"{containers} arrays and objects, more than the {cap} a record may hold"
    if values > limits.max_jsonl_record_values:
        cap = limits.max_jsonl_record_values
        return f"{values} values, more than the {cap} a record may hold"
    return None


_BLOCK = 1 << 20  # bytes read at once (`_blocks`): a line longer than this spans blocks


def _blocks(stream: BinaryIO, cap: int, size: int = _BLOCK) -> Iterator[tuple[bytes, list[bytes]]]:
    """Yield (block, its lines): the file's whole lines, about `size` bytes at a time.
    `block` is the lines' bytes as read, each line's LF included (the last line of a file may
    have none); each line is yielded without its LF, and one longer than `cap` bytes (without
    its LF or CRLF) as `_TOO_LONG`, never buffered whole: a block holds at most `size` bytes
    and the `cap + 2` that end its last line, and the rest of a longer line is skipped.
    """
    while True:
        block = stream.read(size)
        if not block:
            return
        if not block.endswith(b"\n"):  # the rest of its last line, up to the cap and a CRLF
            block += stream.readline(cap + 2)
        lines = block.split(b"\n")
        last = lines.pop()  # empty, or a line the file ends without a LF, or one too long
        for index, line in enumerate(lines):
            if len(line) > cap and len(line.removesuffix(b"\r")) > cap:
                lines[index] = _TOO_LONG
        if last:
            too_long = len(last.removesuffix(b"\r")) > cap
            lines.append(_TOO_LONG if too_long else last)
            rest = last
            while too_long and rest and not rest.endswith(b"\n"):  # skip the line's rest
                rest = stream.readline(_CHUNK)
        yield block, lines


# The line `_blocks` yields for one longer than the cap: a bytes object no other line is.
_TOO_LONG = bytes(bytearray(b"\n"))


@contextlib.contextmanager
def paused_gc() -> Iterator[None]:
    """The cyclic garbage collector off while many acyclic records are built (it would scan
    every record kept so far again and again: ~15% of verify's time at 100,000 trials)."""
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def parse_jsonl(
    stream: BinaryIO,
    path: str,
    limits: Limits = Limits(),
    sink: Callable[[Record, bytes], None] | None = None,
    typed: Typed | None = None,
    block_bytes: int = _BLOCK,
) -> tuple[list[Record], list[Finding]]:
    """Read JSONL from a binary stream. Return the object records and the refused lines.

    With `sink`, each record is handed to it with its line's bytes as it is read, and none is
    kept (the list returned is empty): a caller that checks records one at a time holds one
    record at a time (bench/verify_scale.py; docs/performance.md). Its strings are then not
    shared (`_share`): the sink shares those it keeps (`SharedStrings`).

    With `typed` too, each line within the caps and no deeper than `Limits.max_json_depth`
    is offered to its `line` reader first, with its number: True means it read the line itself
    (a typed reading, `bot/vocab/typed.py`, which says yes only where this reading and the
    schema would both accept the line), False that the line is read here and goes to `sink`.
    Before that, each block of whole lines the file is read in (`block_bytes` at a time) is
    offered to its `block` reader, where every line of the block is one `line` would be
    offered (`Typed`): the typed reading of many lines in one call (bench/verify_scale.py).
    """
    with paused_gc():
        return _parse_jsonl(stream, path, limits, sink, typed, block_bytes)


_BLOCK_CONTAINERS = 3  # arrays and objects of a line a `Typed` block reader may take


class Typed(NamedTuple):
    """A typed reader of lines (`parse_jsonl`): each takes what it is offered (True) or
    declines it (False), which then is read here.

    `line`: one line, its number and bytes. `block`: consecutive lines, the first's number,
    the block's bytes and its lines; offered only lines each within the line cap and with no
    more values than the record cap, with no byte order mark and no CR, whose counts keep the
    file within its caps. It must decline any line that holds more than `_BLOCK_CONTAINERS`
    arrays and objects, or one in a member of another (what it takes is then within the
    record cap on them and two levels deep). True means it took every line of the block
    (each as `line` would have), False none of them: they are then offered to `line` one by
    one.
    """

    line: Callable[[int, bytes], bool]
    block: Callable[[int, bytes, list[bytes]], bool] | None = None


def _parse_jsonl(
    stream: BinaryIO,
    path: str,
    limits: Limits,
    sink: Callable[[Record, bytes], None] | None,
    typed: Typed | None = None,
    block_bytes: int = _BLOCK,
) -> tuple[list[Record], list[Finding]]:
    reading = _Reading(path, limits, sink, typed)
    block_reader = typed.block if typed is not None else None
    number = 0  # the last line's
    for block, lines in _blocks(stream, limits.max_jsonl_line_bytes, block_bytes):
        if block_reader is not None and reading.offer(block_reader, number + 1, block, lines):
            number += len(lines)
            continue
        for raw in lines:
            number += 1
            if not reading.line(number, raw):
                return reading.records, reading.findings
    return reading.records, reading.findings


class _Reading:
    """One file being read (`_parse_jsonl`): the records kept, the refusals, the file's
    running totals."""

    def __init__(
        self,
        path: str,
        limits: Limits,
        sink: Callable[[Record, bytes], None] | None,
        typed: Typed | None,
    ) -> None:
        self.path, self.limits, self.sink, self.typed = path, limits, sink, typed
        self.records: list[Record] = []
        self.findings: list[Finding] = []
        self.file_containers = self.file_values = 0
        self.memos: dict[object, dict[str, str]] = {}

    def refuse(self, message: str, line: int) -> None:
        self.findings.append(Finding(Code.JSONL_INVALID, message, self.path, line))

    def offer(
        self,
        reader: Callable[[int, bytes, list[bytes]], bool],
        first: int,
        block: bytes,
        lines: list[bytes],
    ) -> bool:
        """Offer the block of `lines` (the first numbered `first`) to `reader` where each line
        is one `line` would offer to the typed reader (`Typed`); True: it took them."""
        limits = self.limits
        if not lines or _TOO_LONG in lines or b"\r" in block or _BOM in block:
            return False
        # The reader takes lines of at most `_BLOCK_CONTAINERS` arrays and objects, none
        # nested in another's member (`Typed`), so each is within the record cap on them and
        # no deeper than two levels; and a line's values (`_shape`: its arrays, objects and
        # commas, plus one) are at most its bytes plus one, so each within the cap on values.
        if (
            limits.max_json_depth < 2
            or limits.max_jsonl_record_containers < _BLOCK_CONTAINERS
            or max(map(len, lines)) >= limits.max_jsonl_record_values
        ):
            return False
        containers = block.count(b"[") + block.count(b"{")
        values = containers + block.count(b",") + len(lines)  # `_shape`'s, summed
        file_containers = self.file_containers + containers
        file_values = self.file_values + values
        if (
            file_containers > limits.max_jsonl_file_containers
            or file_values > limits.max_jsonl_file_values
        ):
            return False  # line by line: the line that crosses a cap is refused
        if not reader(first, block, lines):
            return False
        self.file_containers, self.file_values = file_containers, file_values
        return True

    def line(self, number: int, raw: bytes) -> bool:
        """Read line `number`; False when the rest of the file is not to be read."""
        limits, refuse, typed = self.limits, self.refuse, self.typed
        cap = limits.max_jsonl_line_bytes
        if raw is _TOO_LONG:
            refuse(f"line longer than {cap} bytes", number)
            return True
        raw = raw.removesuffix(b"\r")
        if raw.startswith(_BOM):
            refuse(
                "byte order mark (BOM) at the start of the line; save as UTF-8 without BOM", number
            )
            return True
        if not raw.strip():
            refuse("blank line (every line must hold one JSON object)", number)
            return True
        containers, values = _shape(raw, limits)
        over = _over_record_caps(containers, values, limits)
        if over is not None:
            refuse(over, number)
            return True
        self.file_containers += containers
        self.file_values += values
        over_file = None
        if self.file_containers > limits.max_jsonl_file_containers:
            over_file = f"{limits.max_jsonl_file_containers} arrays and objects"
        elif self.file_values > limits.max_jsonl_file_values:
            over_file = f"{limits.max_jsonl_file_values} values"
        if over_file is not None:
            refuse(
                f"the file's records hold more than {over_file} by this line;"
                " the rest of the file is not read",
                number,
            )
            return False
        shallow = containers <= limits.max_json_depth  # so no deeper than the cap
        if typed is not None and shallow and typed.line(number, raw):
            return True
        value = _fast_decode(raw) if shallow else None
        try:
            if value is None:
                value = _decode(raw)
        except UnicodeDecodeError as error:
            refuse(f"not UTF-8 text ({error.reason} at byte {error.start})", number)
            return True
        except _Bad as error:
            refuse(str(error), number)
            return True
        except json.JSONDecodeError as error:
            refuse(f"not JSON: {error.msg} at column {error.colno}", number)
            return True
        except (ValueError, RecursionError) as error:
            refuse(f"not readable JSON: {type(error).__name__}: {str(error)[:120]}", number)
            return True
        if not isinstance(value, dict):
            refuse(f"got a JSON {type(value).__name__}, expected an object", number)
            return True
        try:
            # Walk only a line that could fail: deep enough, or with a surrogate escape.
            if containers > limits.max_json_depth or _SURROGATE_ESCAPE.search(raw):
                _check_tree(value, limits.max_json_depth)
        except _Bad as error:
            refuse(str(error), number)
            return True
        # Look for integers only on a line with 16 digits in a row (bot/vocab/values.py).
        long_number = _UNSAFE_INTEGER in raw.translate(_DIGITS_AS_ZERO)
        unsafe = unsafe_value(value) if long_number else None
        if unsafe is not None:
            refuse(unsafe, number)
            return True
        if self.sink is None:
            _share(value, self.memos)
            self.records.append(Record(number, value))
        else:  # the sink shares the strings it keeps (`SharedStrings`)
            self.sink(Record(number, value), raw)
        return True


def loads(text: str | bytes, **hooks: Any) -> object:
    """`json.loads` for text from outside this process (a file, a cache, a job's output, a
    command line): raises ValueError for anything it cannot read, JSON nested past the
    parser's recursion included (RecursionError is no ValueError, so it would pass a reader's
    `except ValueError` as a traceback). `hooks`: json.loads's own keyword arguments.
    tests/unit/vocab/test_jsonl_loads.py holds every other `json.loads` in bot/ to the
    package's own files."""
    try:
        return json.loads(text, **hooks)
    except RecursionError:
        raise ValueError("nested deeper than the JSON parser's recursion allows") from None


def parse_json(raw: bytes, max_depth: int, *, integers: bool = True) -> object:
    """One JSON document read as strictly as a JSONL record: no duplicate keys, NaN,
    infinities, lone surrogates, nesting deeper than `max_depth` or integers outside I-JSON's
    ±(2**53-1) (the message names the field). Raises ValueError.

    `integers=False` leaves the integers to the caller: a report's reader refuses them per
    entry (`bot/app/report_json/validated.py` `_check_values`), so that one entry holding one
    is that entry's error panel, not a refused report."""
    try:
        value = _decode(raw)
    except RecursionError:
        raise _Bad(f"nested deeper than {max_depth} levels") from None
    _check_tree(value, max_depth)
    unsafe = unsafe_value(value) if integers else None
    if unsafe is not None:
        raise _Bad(unsafe)
    return value

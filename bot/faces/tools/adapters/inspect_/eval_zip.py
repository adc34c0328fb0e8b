"""Reading an `.eval` log: a zip of which only header.json and samples/*.json are read, each
member bounded before and while it is decompressed."""

from __future__ import annotations

import importlib
import io
import re
import struct
import zipfile
import zlib
from typing import Any

from bot.faces.tools.adapters.inspect_.epoch import Epoch, epoch_of
from bot.faces.tools.adapters.inspect_.limits import InspectLimits
from bot.faces.tools.adapters.inspect_.values import InspectLogError, parse_json

__all__ = ["EXTRA_HINT", "read_eval"]


EXTRA_HINT = "install the inspect extra: pip install -e '.[inspect]'"


_ZIP_ZSTANDARD = 93  # APPNOTE 4.4.5 compression method 93: Zstandard


_METHODS = {zipfile.ZIP_STORED: "stored", zipfile.ZIP_DEFLATED: "deflated", _ZIP_ZSTANDARD: "zstd"}


_CHUNK = 1 << 20


_DRIVE = re.compile(r"\A[A-Za-z]:")


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


def read_eval(
    stream: io.BufferedReader, log: str, limits: InspectLimits
) -> tuple[dict[str, Any], list[Epoch]]:
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
            header = parse_json(
                _member(archive, stream, members["header.json"], log, limits, budget),
                f"{log}: header.json",
            )
            epochs = []
            for name in sorted(members):
                if name.startswith("samples/") and name.endswith(".json"):
                    data = _member(archive, stream, members[name], log, limits, budget)
                    epochs.append(epoch_of(parse_json(data, f"{log}: {name}"), f"{log}: {name}"))
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

"""Reading an Inspect log, `.json` or `.eval` as its first bytes say: its header and its
sample epochs."""

from __future__ import annotations

import stat
from pathlib import Path
from typing import Any

from bot.faces.tools.adapters.inspect_.epoch import Epoch, epoch_of
from bot.faces.tools.adapters.inspect_.eval_zip import read_eval
from bot.faces.tools.adapters.inspect_.limits import InspectLimits
from bot.faces.tools.adapters.inspect_.values import InspectLogError, parse_json

__all__ = ["read_log"]


_ZIP_MAGIC = (b"PK\x03\x04", b"PK\x05\x06")


_GZIP_MAGIC = b"\x1f\x8b"


def read_log(path: Path, limits: InspectLimits) -> tuple[dict[str, Any], list[Epoch]]:
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
                return read_eval(stream, name, limits)
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
    log = parse_json(data, name)
    del data
    samples = log.pop("samples", None)
    if samples is None:
        raise InspectLogError(
            f"{name}: the log holds no samples (was it written with --no-log-samples?)"
        )
    if not isinstance(samples, list):
        raise InspectLogError(f"{name}: samples: got a {type(samples).__name__}, expected a list")
    epochs = [epoch_of(sample, f"{name}: samples[{index}]") for index, sample in enumerate(samples)]
    return log, epochs

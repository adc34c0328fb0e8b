"""The adapter's error and its readers of the log's untrusted JSON values: each names where a
value stands in the log and what was expected."""

from __future__ import annotations

import json
import math
from datetime import UTC, datetime
from typing import Any

from bot.vocab.errors import ClaimsError
from bot.vocab.jsonl import DuplicateKeyError, object_without_duplicates
from bot.vocab.timestamps import is_naive_timestamp, parse_timestamp

__all__ = [
    "MAX_NAME",
    "InspectLogError",
    "checked_name",
    "format_utc",
    "object_or_empty",
    "parse_json",
    "plain_text",
    "quoted",
    "read_moment",
]


MAX_NAME = 200


class InspectLogError(ClaimsError):
    """An Inspect log this adapter cannot turn into evidence; the message names the problem."""


def parse_json(data: bytes, what: str) -> dict[str, Any]:
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


def read_moment(value: object, where: str) -> datetime | None:
    if value is None:
        return None
    if not isinstance(value, str):
        raise InspectLogError(f"{where}: got {quoted(value)}, expected an RFC 3339 time")
    moment = parse_timestamp(value)
    if moment is None:
        problem = "has no UTC offset" if is_naive_timestamp(value) else "is not an RFC 3339 time"
        raise InspectLogError(f"{where}: {quoted(value)} {problem}")
    return moment


def object_or_empty(value: object) -> dict[str, Any]:
    """`value` if it is a JSON object, else an empty one (unknown or missing sections)."""
    return value if isinstance(value, dict) else {}


def quoted(value: object) -> str:
    text = json.dumps(value, ensure_ascii=True, default=str)
    return text if len(text) <= 60 else f"{text[:57]}..."


def checked_name(value: object, where: str) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= MAX_NAME:
        raise InspectLogError(
            f"{where}: got {quoted(value)}, expected a string of 1-200 characters"
        )
    return value


def format_utc(moment: datetime) -> str:
    moment = moment.astimezone(UTC)
    pattern = "%Y-%m-%dT%H:%M:%S.%fZ" if moment.microsecond else "%Y-%m-%dT%H:%M:%SZ"
    return moment.strftime(pattern)


def plain_text(value: object) -> str | None:
    """A metadata or score value as text: strings as they are, booleans and numbers in their
    JSON form; None for anything else (a list, an object, null)."""
    if isinstance(value, str):
        return value
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float) and math.isfinite(value):
        return json.dumps(value)
    return None

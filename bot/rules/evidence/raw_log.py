"""The raw log under raw-log/: kept whole (its hash and size as claimed) or as exact excerpts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from bot.rules.evidence.models import RawLogClaim
from bot.vocab.findings import Code, Finding

__all__ = ["RawLogFile", "check_raw_log"]


@dataclass(frozen=True, slots=True)
class RawLogFile:
    """A file under raw-log/: its name, size and SHA-256, and its bytes for excerpts."""

    name: str
    size: int
    sha256: str


def check_raw_log(
    files: Sequence[RawLogFile],
    claim: RawLogClaim,
    max_local_log_bytes: int,
    excerpt_bytes: int,
    folder: str,
    attempt_file: str,
    claim_line: int | None,
) -> list[Finding]:
    """The raw log is kept whole (hash and size equal `raw_log`) or as exact head/tail excerpts.

    Whole: one file, at most `max_local_log_bytes`, whose sha256 and size equal the claim.
    Excerpts: exactly `head` and `tail`, each exactly `excerpt_bytes`, and the claimed full
    size over `max_local_log_bytes` (a log that fits must be kept whole).
    """
    names = sorted(file.name for file in files)
    claimed_size = claim.bytes
    attempt = attempt_file.rpartition("/")[0] or "."
    # Each rule below is the shape `claims pin-log` writes: name it as the fix.
    pin = f"; `claims pin-log {attempt} --log FILE` keeps the log as the rules ask and pins it"
    if not files:
        return [Finding(Code.FILE_MISSING, "raw-log/ holds no file", folder)]
    if names == ["head", "tail"]:
        findings = []
        if claimed_size <= max_local_log_bytes:
            message = (
                f"raw_log.bytes is {claimed_size}, within the {max_local_log_bytes}-byte limit:"
                " keep the whole log in raw-log/, not excerpts"
            ) + pin
            findings.append(Finding(Code.RAW_LOG_EXCERPT, message, attempt_file, claim_line))
        for file in files:
            if file.size != excerpt_bytes:
                message = f"got {file.size} bytes, expected exactly {excerpt_bytes}{pin}"
                findings.append(Finding(Code.RAW_LOG_EXCERPT, message, f"{folder}/{file.name}"))
        return findings
    if len(files) != 1 or names[0] in ("head", "tail"):
        message = (
            f"raw-log/ holds {', '.join(names)}: expected the whole log as one file, or"
            " exactly two excerpts named head and tail"
        ) + pin
        return [Finding(Code.RAW_LOG_EXCERPT, message, folder)]
    whole = files[0]
    path = f"{folder}/{whole.name}"
    if whole.size > max_local_log_bytes:
        message = (
            f"{whole.size} bytes, over the {max_local_log_bytes}-byte limit: keep its first"
            f" and last {excerpt_bytes} bytes as raw-log/head and raw-log/tail"
        ) + pin
        return [Finding(Code.RAW_LOG_EXCERPT, message, path)]
    findings = []
    if whole.size != claimed_size:
        message = f"the log has {whole.size} bytes, raw_log.bytes says {claimed_size}{pin}"
        findings.append(Finding(Code.RAW_LOG_HASH_MISMATCH, message, path))
    if whole.sha256 != claim.sha256:
        message = f"the log hashes to {whole.sha256}, raw_log.sha256 says {claim.sha256}{pin}"
        findings.append(Finding(Code.RAW_LOG_HASH_MISMATCH, message, path))
    return findings

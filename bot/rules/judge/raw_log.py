"""The raw log (step 6): raw-log/ kept whole or as excerpts, its size within what the close's
archive carries, and what fetching its URL found.
"""

from __future__ import annotations

from bot.rules.evidence.models import Attempt
from bot.rules.evidence.raw_log import RawLogFile, check_raw_log
from bot.rules.judge.inputs import AttemptFacts, AttemptFiles
from bot.rules.models import SharedRules
from bot.vocab.findings import Code, Finding


def check_raw_log_folder(
    files: AttemptFiles, attempt: Attempt, rules: SharedRules, facts: AttemptFacts
) -> list[Finding]:
    """6. raw-log/: whole and matching, or exact excerpts; and what its URL served."""
    raw_files = [
        RawLogFile(path.removeprefix("raw-log/"), entry.size, entry.sha256)
        for path, entry in files.entries.items()
        if path.startswith("raw-log/")
    ]
    folder = files.path("raw-log")
    if not raw_files:
        if any(f.file == folder for f in files.problems):
            return []  # already refused (a link, say)
        return [
            Finding(
                Code.FILE_MISSING,
                "raw-log/ is missing: keep the harness's raw log here; `claims pin-log"
                f" {files.folder} --log FILE` puts it there and pins it in attempt.yaml",
                folder,
            )
        ]
    claim = attempt.raw_log
    too_large: list[Finding] = []
    if attempt.raw_log.bytes > facts.archived_pin_bytes:
        # Counted, it would be the one file the snapshot's archive cannot carry (docs/spec.md
        # §10.6): its filer's server alone would hold the evidence of a counting attempt.
        message = (
            f"raw_log.bytes is {attempt.raw_log.bytes}, over the {facts.archived_pin_bytes}-byte"
            f" cap on one file the close's archive carries: the raw log at {attempt.raw_log.url}"
            " could not be kept with the snapshot; pin a log within the cap (compressed, say:"
            f" `claims pin-log {files.folder} --log FILE.gz`)"
        )
        too_large.append(
            Finding(Code.RAW_LOG_TOO_LARGE, message, attempt.path, attempt.lines.get("raw_log"))
        )
    problems = check_raw_log(
        raw_files,
        claim,
        rules.max_local_log_bytes,
        rules.excerpt_bytes,
        folder,
        attempt.path,
        attempt.lines.get("raw_log"),
    )
    return too_large + (problems or list(facts.raw_log_findings))

"""The only vocabulary for problems: a `Finding` is a reason code, a message, a file and a line.

Problems in a user's registry are data, collected into lists, never raised. Reason codes are
stable strings that tests and docs key on (docs/spec.md §12; every code is documented in
`docs/reason-codes.md`, and a test checks that the two lists agree).
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import StrEnum

__all__ = ["Code", "Finding", "Severity"]


class Code(StrEnum):
    """Stable reason codes. The value is what reports print and what tests match."""

    # Reading files (bot/load)
    FILE_MISSING = "file-missing"
    FILE_UNREADABLE = "file-unreadable"
    FILE_EMPTY = "file-empty"
    FILE_TOO_LARGE = "file-too-large"
    YAML_UNSAFE = "yaml-unsafe"
    YAML_INVALID = "yaml-invalid"
    JSONL_INVALID = "jsonl-invalid"
    SCHEMA = "schema"
    TIMESTAMP_NAIVE = "timestamp-naive"
    # The attempt folder
    SYMLINK = "symlink"
    SPECIAL_FILE = "special-file"
    TOO_MANY_FILES = "too-many-files"
    ATTEMPT_LOCATION = "attempt-location"
    MARKET_UNKNOWN = "market-unknown"
    KIND_NOT_ACCEPTED = "kind-not-accepted"
    # The pull request: what its diff may change (checked with `--base-ref`)
    PATH_OUTSIDE_ATTEMPT = "path-outside-attempt"
    PROTECTED_PATH = "protected-path"  # the registry's maintainer-owned paths
    MAINTAINER_FILE = "maintainer-file"
    SEVERAL_ATTEMPTS = "several-attempts"
    SUBMODULE = "submodule"
    EXECUTABLE_FILE = "executable-file"
    GIT_FILE = "git-file"  # .gitattributes and the like below the root
    LFS_POINTER = "lfs-pointer"
    PATH_CHARACTERS = "path-characters"
    PATH_COLLISION = "path-collision"  # the same name after NFKC and case folding
    # Who files it (with the GitHub API): the slug's owners, and evidence already merged.
    NOT_SUBMITTER = "not-submitter"
    MERGED_EVIDENCE_CHANGED = "merged-evidence-changed"
    IDENTITY_UNCHECKED = "identity-unchecked"  # a notice: offline, nobody to ask
    # Cases and trials (docs/spec.md §4)
    CASE_HASH_MISMATCH = "case-hash-mismatch"
    DUPLICATE_CASE = "duplicate-case"
    DUPLICATE_TRIAL = "duplicate-trial"
    MISSING_TRIAL = "missing-trial"
    UNKNOWN_CASE = "unknown-case"
    NAME_INVISIBLE_CHARACTER = "name-invisible-character"
    RAW_LOG_HASH_MISMATCH = "raw-log-hash-mismatch"
    RAW_LOG_EXCERPT = "raw-log-excerpt"
    # raw_log.bytes over the archive's cap for one file: the close could not carry it.
    RAW_LOG_TOO_LARGE = "raw-log-too-large"
    RAW_LOG_UNAVAILABLE = "raw-log-unavailable"
    PAPER_FREEZE_MISMATCH = "paper-freeze-mismatch"  # wrapped: paper_freeze.url, when fetched
    PAPER_FREEZE_UNAVAILABLE = "paper-freeze-unavailable"
    # Pins fetched by a job of their own (--pin-results): what it fetched (a notice), no
    # record of a pin (error), at the close no fetch by the pin deadline (error), and a
    # fetched pin the close's archive does not carry (a warning, past its size caps).
    PIN_FETCHED = "pin-fetched"
    PIN_NOT_FETCHED = "pin-not-fetched"
    PIN_UNRECORDED = "pin-unrecorded"
    PIN_NOT_ARCHIVED = "pin-not-archived"  # a warning: the close's archive cannot carry it
    FREEZE_ORDER = "freeze-order"
    FREEZE_DATE_UNCONFIRMED = "freeze-date-unconfirmed"  # a notice: offline, GitHub not asked
    FREEZE_ONLY = "freeze-only"
    TRIAL_BEFORE_FREEZE = "trial-before-freeze"
    TRIAL_IN_FUTURE = "trial-in-future"  # after its record was filed, or after the date judged
    # A notice: a pull request is judged as merged now; merged after its window closes it
    # would be filed-late (undecidable before the merge).
    MERGE_BY_WINDOW_CLOSE = "merge-by-window-close"
    # A notice: the head commit is dated after the run's clock, so the PR is judged as merged
    # at that later date (a merge before it would land the evidence earlier).
    MERGE_AFTER_CLOCK = "merge-after-clock"
    WITHHELD_FIELD_LEAK = "withheld-field-leak"
    # Challenge runs (docs/spec.md §11): the run an attempt names, its cases and the operator's
    # scores.
    CHALLENGE_RUN_INVALID = "challenge-run-invalid"
    CHALLENGE_CASE_MISMATCH = "challenge-case-mismatch"
    OPERATOR_SCORE_MISMATCH = "operator-score-mismatch"
    OPERATOR_SCORE_MISSING = "operator-score-missing"
    SCORER_INPUT_INVALID = "scorer-input-invalid"
    # The score table (docs/spec.md §4): makes the evidence invalid.
    SCORE_TABLE_MISMATCH = "score-table-mismatch"
    # Wrapped attempts: the adapter rerun (docs/spec.md §9): makes the evidence invalid.
    ADAPTER_MISMATCH = "adapter-mismatch"
    ADAPTER_FAILED = "adapter-failed"
    ADAPTER_IGNORES_DATA = "adapter-ignores-data"
    ADAPTER_COMMAND = "adapter-command"  # at PR time: a command the sandbox cannot start
    RERUN_UNRECORDED = "rerun-unrecorded"  # the close: no result by the rerun deadline
    RELEASED_DATA_HASH = "released-data-hash"
    RELEASED_DATA_UNAVAILABLE = "released-data-unavailable"
    RELEASED_DATA_PATH = "released-data-path"
    # Qualification (docs/spec.md §7): the evidence stays valid, the attempt does not qualify.
    SAMPLE_SIZE = "sample-size"
    SYSTEMS_FLOOR = "systems-floor"
    FAMILY_COVERAGE = "family-coverage"
    BAR_NOT_EXERCISED = "bar-not-exercised"
    BAR_REFUSED = "bar-refused"
    ADVERSARIAL_BUDGET = "adversarial-budget"
    CERTIFICATE_MISSING = "certificate-missing"
    UNIVERSAL_ABSTENTION = "universal-abstention"
    REQUIRED_OUTPUT_MISSING = "required-output-missing"
    ADAPTER_NOT_RERUN = "adapter-not-rerun"  # wrapped, without a rerun on this evidence
    # A warning beside a bar: DeLong's nominal 95% bound covers below 90% here
    # (docs/statistics.md).
    BOUND_COVERAGE_LOW = "bound-coverage-low"
    # Warnings on what a result means (docs/filing-an-attempt.md, "What the results mean"):
    # a bar's failure value on a case the bar does not count (a control's `false_safe`), and
    # trials left out of the class-conditional counts (no `result.certificate` or `.truth`).
    VERDICT_OUTSIDE_BAR = "verdict-outside-bar"
    CLASS_CONDITIONAL_PARTIAL = "class-conditional-partial"
    # Dates and human checks (docs/spec.md §5, §7, §8): likewise not qualifying, never a NO.
    EVIDENCE_LATE = "evidence-late"
    # A warning: evidence_public_at before the last trial started (it cannot be public yet).
    EVIDENCE_PUBLIC_EARLY = "evidence-public-early"
    FILED_LATE = "filed-late"
    JUDGED_NOT_QUALIFYING = "judged-not-qualifying"
    UNRESOLVED_JUDGMENT = "unresolved-judgment"
    # The registry itself (maintainers' files): an environment error, exit code 2.
    REGISTRY_INVALID = "registry-invalid"
    SNAPSHOT_LATE = "snapshot-late"  # a warning: a snapshot that never counts (docs/spec.md §5)
    SNAPSHOT_OFF_BRANCH = "snapshot-off-branch"  # a warning: a tag of a commit main never held
    # The operator's verification cache (--verify-cache): a notice, the attempt is rechecked.
    CACHE_ENTRY_INVALID = "cache-entry-invalid"
    # A report's entry (an attempt, a challenge run, a market) its own reader refuses, read
    # without it by `claims site` and `claims github publish` (bot/faces/report/entries.py).
    REPORT_ENTRY_REFUSED = "report-entry-refused"


class Severity(StrEnum):
    """`error` makes evidence invalid; `warning` is shown but changes no verdict; `notice`
    says what the bot could not confirm where it ran (offline: no GitHub API to ask)."""

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"


@dataclass(frozen=True, slots=True)
class Finding:
    """One problem: what (code), why (message: "got X, expected Y"), where (file, line).

    `file` is a POSIX path relative to the registry root (or as given on the command line);
    `line` is 1-based, or None when the problem concerns the whole file or folder.
    `left_out` is set only in reports: this finding counts that many findings of its code and
    file that the report does not list (`bot.app.report_cap`); it stands for them, not for one.
    """

    code: Code
    message: str
    file: str | None = None
    line: int | None = None
    severity: Severity = Severity.ERROR
    left_out: int = 0

    def location(self) -> str:
        """`file:line`, `file`, or an empty string."""
        if self.file is None:
            return ""
        return f"{self.file}:{self.line}" if self.line is not None else self.file

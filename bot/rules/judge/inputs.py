"""What the judge is given: an attempt folder read into typed models (`AttemptFiles`) and what
the shell learnt outside it (`AttemptFacts`, a challenge attempt's `ChallengeFacts`).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.rules.challenge.rules import ScoredCase
from bot.rules.evidence.models import AdapterSpec, Attempt, Case, Certificate, Freeze, Judgment
from bot.rules.models import Market
from bot.rules.records import RecordsResult
from bot.rules.verdict import AttemptVerdict
from bot.vocab.commits import Landing
from bot.vocab.config import Limits
from bot.vocab.document import Document, FieldPath, Record
from bot.vocab.errors import Refusal
from bot.vocab.files import FileEntry
from bot.vocab.findings import Finding

LineOf = Callable[[FieldPath], int | None]


Published = tuple[str, object, LineOf]


@dataclass(frozen=True)
class AttemptFiles:
    """An attempt folder as read from a tree: typed documents and what reading them found.

    A document is None when it is absent or was refused (the refusal is in `problems`).
    """

    folder: str  # the folder's path in the registry, e.g. attempts/market-03/alice/monitor
    entries: Mapping[str, FileEntry]
    problems: Sequence[Finding]  # scan, YAML, JSONL and schema problems, in reading order
    digest: str
    scan_complete: bool = True  # False: the scan stopped early (too many files)
    freeze_only: bool = False  # only the freeze is filed (a freeze pull request)
    folder_market: int | None = None  # the market the folder names (attempts/market-NN/...)
    attempt: Attempt | None = None
    freeze: Freeze | None = None
    case_records: Sequence[Record] | None = None  # None: freeze-cases.jsonl unreadable/absent
    trial_records: Sequence[Record] | None = None
    trials_complete: bool = True  # False: some line of trials.jsonl could not be read
    cases_complete: bool = True  # likewise for freeze-cases.jsonl
    scores: Document | None = None
    judgments: Mapping[str, Judgment] | None = None
    certificates: Sequence[Certificate] | None = None
    adapter: AdapterSpec | None = None
    # Every parsed document and record, for the hidden-suite check: (file, data, line_of).
    published: Sequence[tuple[str, object, LineOf]] = ()
    # Per JSONL file name: what reading it found (also among `problems`, in reading order).
    jsonl_problems: Mapping[str, Sequence[Finding]] = field(default_factory=dict)
    # freeze-cases.jsonl and trials.jsonl checked already: read back from the verification
    # cache (bot/app/cache.py), or checked while they were read (`records_read_now`,
    # `RecordsChecker`). Their records were then not kept (`case_records` and `trial_records`
    # are None) and the judge takes this instead of checking them.
    records_result: RecordsResult | None = None
    records_read_now: bool = False

    def path(self, name: str) -> str:
        return f"{self.folder}/{name}"


@dataclass(frozen=True)
class ChallengeFacts:
    """What a challenge attempt is checked against: its run, as judged (`bot.rules.challenge`)."""

    run: str
    # challenge-run-invalid: the run does not exist, is invalid, or is another market's.
    problem: Finding | None = None
    cases: Mapping[str, Case] | None = None  # the run's hash-only cases
    cases_file: str = ""
    scored: Mapping[str, ScoredCase] | None = None  # None: no operator score file for it
    scores_where: str = ""  # the operator's score file for this attempt
    text_leaks: Sequence[Finding] = ()  # the raw log and other unparsed files of the attempt


@dataclass(frozen=True)
class AttemptFacts:
    """What the shell learnt outside the folder: git, the raw log's URL, the sandbox."""

    market_problems: Sequence[Finding] = ()  # market-unknown (the judge cannot know it)
    base_ref: str | None = None
    history_unavailable: str | None = None  # why freeze order cannot be read from git
    # freeze.yaml / freeze-cases.jsonl (or the challenge run's): where each landed on main.
    freeze_landings: Mapping[str, Landing | Refusal] = field(default_factory=dict)
    # With the GitHub API: per landing commit (sha), None when a merged pull request confirms
    # it as its merge (or squash) commit at its date, else what the API said. None (the whole
    # mapping): offline, so only the committer identity can be checked.
    landing_confirmations: Mapping[str, str | None] | None = None
    challenge_withholdable: Sequence[str] = ()
    # A challenge attempt: its run as judged (None for other kinds).
    challenge: ChallengeFacts | None = None
    filed_at: datetime | None = None  # when all the evidence landed on main; None: not all
    # filed_at is the pull request's own merge, judged at the run's clock (not landed yet).
    filed_on_merge: bool = False
    # With filed_on_merge: the run's clock, when the moment judged was raised above it to the
    # head commit's (or the base branch's newest commit's) date. None: the clock itself.
    merge_clock: datetime | None = None
    judgments_at_close: Mapping[str, Judgment] | None = None
    raw_log_findings: Sequence[Finding] = ()  # from fetching raw_log.url, when asked
    # The most bytes the close's archive carries of one pinned file (the registry's
    # Limits.max_archived_pin_bytes): a raw log declared larger is refused.
    archived_pin_bytes: int = Limits().max_archived_pin_bytes
    paper_freeze_findings: Sequence[Finding] = ()  # from fetching paper_freeze.url, when asked
    # From rerunning a wrapped attempt's adapter on this evidence: () when it reproduced the
    # evidence, None when it was not rerun (then the attempt cannot qualify).
    adapter_findings: Sequence[Finding] | None = None
    # What the pull request that changes this folder may not change (`bot.rules.review`). Listed
    # once in the report's `pr_problems`, not among the attempt's findings; an error among
    # them makes the evidence invalid all the same.
    pr_problems: Sequence[Finding] = ()


@dataclass(frozen=True)
class Judged:
    """One attempt folder read, gathered and judged: the verdict and what it was made from
    (`claims explain` shows both)."""

    files: AttemptFiles
    facts: AttemptFacts
    market: Market | None
    verdict: AttemptVerdict
    registry_problems: list[Finding]

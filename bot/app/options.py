"""What a verification is given besides the registry and its history: the date it judges on,
the outside world it may ask (raw-log and paper's-freeze servers, the adapter sandbox, GitHub,
the verification cache), and how a pull request is judged. `bot/app/gather.py` and
`bot/app/api.py` take them; the faces build them.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, datetime
from typing import Protocol

from bot.app.registry import Registry
from bot.edges.tree import Tree
from bot.rules.judge import AttemptFiles
from bot.rules.records import RecordsCheck
from bot.vocab.commits import Landing
from bot.vocab.findings import Finding

__all__ = [
    "AdapterRunner",
    "LandingConfirmer",
    "PaperFreezeFetcher",
    "RawLogFetcher",
    "RecordsCache",
    "VerifyOptions",
]

# (url, sha256=, size=, head=, tail=, file=, line=, limits=) -> findings; bot.edges.fetch provides
# it.
RawLogFetcher = Callable[..., list[Finding]]
# (url, sha256=, file=, line=, limits=) -> findings; bot.edges.fetch.check_paper_freeze_url.
PaperFreezeFetcher = Callable[..., list[Finding]]
# (tree, the attempt's files) -> findings; bot.app.rerun.AdapterRerun provides it.
# (tree, files) -> the rerun's findings (empty: reproduced), or None: not rerun.
AdapterRunner = Callable[[Tree, AttemptFiles], list[Finding] | None]
# (a freeze's landing) -> None when GitHub confirms it as a merged PR's merge commit at its
# date, else what the API said; bot.faces.github.facts.landing_confirmer provides it.
LandingConfirmer = Callable[[Landing], str | None]


class RecordsCache(Protocol):
    """Keeps checked freeze-cases.jsonl and trials.jsonl (`RecordsCheck`) by what they depend
    on; `bot.app.cache.VerificationCache` provides it."""

    def lookup(
        self, registry: Registry, files: AttemptFiles
    ) -> tuple[RecordsCheck | None, list[Finding]]:
        """The check kept for this attempt (None: none), and notices (a damaged entry)."""

    def store(self, registry: Registry, files: AttemptFiles, check: RecordsCheck) -> None:
        """Keep the check made for this attempt."""


@dataclass(frozen=True, slots=True)
class VerifyOptions:
    """How to verify: the date qualification is judged on (None: evidence only), the optional
    raw-log and paper's-freeze fetchers, and the adapter runner (without one, wrapped attempts
    are `adapter-not-rerun`)."""

    as_of: date | None = None
    fetch_raw_log: RawLogFetcher | None = None
    rerun_adapter: AdapterRunner | None = None
    fetch_paper_freeze: PaperFreezeFetcher | None = None
    # A pull request (--base-ref): judgments.yaml is read from the base branch's tip, never
    # from the tree being verified (a PR's own copy, added or edited, never counts).
    judgments_from_base: bool = False
    # With the GitHub API: confirms each freeze's landing commit (without it, offline, the
    # committer identity is checked and the date is reported unconfirmed).
    confirm_landing: LandingConfirmer | None = None
    # The verification cache (--verify-cache DIR): checked records kept by evidence digest,
    # market contract, shared rules and the bot's code (bot/app/cache.py). None: no cache.
    records_cache: RecordsCache | None = None
    # A pull request (--base-ref): the moment it is judged as merged at, the run's clock
    # (`bot.edges.history.merged_history`). None: the end of the `as_of` day.
    merge_at: datetime | None = None
    # Keep every record of freeze-cases.jsonl and trials.jsonl (`claims explain` reads them).
    # Without, they are checked as they are read and not kept (`RecordsChecker`).
    keep_records: bool = False

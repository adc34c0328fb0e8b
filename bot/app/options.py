"""The ports a verification may ask of the outside world: the raw-log and paper's-freeze
servers, the adapter sandbox, GitHub, the verification cache. `bot/app/gather.py` and
`bot/app/api.py` take them as one `Ports` object; the faces build it.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

from bot.app.registry import Registry
from bot.edges.tree import Tree
from bot.rules.judge.inputs import AttemptFiles
from bot.rules.records import RecordsResult
from bot.vocab.commits import Landing
from bot.vocab.config import Limits
from bot.vocab.findings import Finding

__all__ = [
    "NO_PORTS",
    "AdapterRunner",
    "LandingConfirmer",
    "PaperFreezeFetcher",
    "Ports",
    "RawLogFetcher",
    "RecordsCache",
]


class RawLogFetcher(Protocol):
    """Streams a raw log's URL and compares it with its pin (`sha256`, `size`) and the
    committed excerpts; `bot.edges.fetch.check_raw_log_url` and `bot.app.pins.PinFetch.raw_log`
    provide it."""

    def __call__(
        self,
        url: str,
        *,
        sha256: str,
        size: int,
        head: bytes | None,
        tail: bytes | None,
        file: str,
        line: int | None = ...,
        limits: Limits = ...,
    ) -> list[Finding]:
        """The findings (none: it matches)."""


class PaperFreezeFetcher(Protocol):
    """Streams a wrapped attempt's paper_freeze URL and compares its SHA-256 with the pin;
    `bot.edges.fetch.check_paper_freeze_url` and `bot.app.pins.PinFetch.paper_freeze` provide
    it."""

    def __call__(
        self, url: str, *, sha256: str, file: str, line: int | None = ..., limits: Limits = ...
    ) -> list[Finding]:
        """The findings (none: it matches)."""


# (tree, the attempt's files) -> the rerun's findings (empty: reproduced), or None: not rerun;
# bot.app.rerun.AdapterRerun provides it.
AdapterRunner = Callable[[Tree, AttemptFiles], list[Finding] | None]
# (a freeze's landing) -> None when GitHub confirms it as a merged PR's merge commit at its
# date, else what the API said; bot.faces.github.facts.landing_confirmer provides it.
LandingConfirmer = Callable[[Landing], str | None]


class RecordsCache(Protocol):
    """Keeps checked freeze-cases.jsonl and trials.jsonl (`RecordsResult`) by what they depend
    on; `bot.app.cache.VerificationCache` provides it."""

    def lookup(
        self, registry: Registry, files: AttemptFiles
    ) -> tuple[RecordsResult | None, list[Finding]]:
        """The check kept for this attempt (None: none), and notices (a damaged entry)."""

    def store(self, registry: Registry, files: AttemptFiles, check: RecordsResult) -> None:
        """Keep the check made for this attempt."""


@dataclass(frozen=True, slots=True)
class Ports:
    """The outside world a verification may ask, each port optional (None: not asked).

    The date a verification judges on and how a pull request is judged are not ports: the app's
    functions take them as parameters of their own (`as_of`, `merge_at`, `judgments_from_base`).
    """

    # Streams raw_log.url and compares it with the claim and the excerpts (--fetch-raw-logs).
    fetch_raw_log: RawLogFetcher | None = None
    # Streams a wrapped attempt's paper_freeze.url and compares its sha256.
    fetch_paper_freeze: PaperFreezeFetcher | None = None
    # Reruns a wrapped attempt's adapter (without one, wrapped attempts are
    # `adapter-not-rerun`).
    rerun_adapter: AdapterRunner | None = None
    # With the GitHub API: confirms each freeze's landing commit (without it, offline, the
    # committer identity is checked and the date is reported unconfirmed).
    confirm_landing: LandingConfirmer | None = None
    # The verification cache (--verify-cache DIR): checked records kept by evidence digest,
    # market contract, shared rules and the bot's code (bot/app/cache.py). None: no cache.
    records_cache: RecordsCache | None = None


# Nothing outside is asked: no fetch, no rerun, no GitHub, no cache.
NO_PORTS = Ports()

"""Where an attempt is filed and the market it names: the folder's place and slugs, an unknown
market, and the kinds a market accepts (steps 1 and 2 of `bot.rules.judge.attempt`).
"""

from __future__ import annotations

import re
from pathlib import PurePosixPath

from bot.rules.evidence.models import Attempt
from bot.rules.models import Market, SharedRules, market_path
from bot.vocab.findings import Code, Finding

SLUG = re.compile(r"\A[a-z0-9][a-z0-9-]{1,62}[a-z0-9]\Z")  # common.schema.json#/$defs/slug


MARKET_FOLDER = re.compile(r"\Amarket-(\d{2,})\Z")


def folder_market(folder: str) -> int | None:
    """The market a folder attempts/market-NN/... names, when attempt.yaml cannot say."""
    parts = PurePosixPath(folder).parts
    match = MARKET_FOLDER.match(parts[1]) if len(parts) > 1 and parts[0] == "attempts" else None
    return int(match.group(1)) if match else None


def market_unknown(number: int, rules: SharedRules, file: str, line: int | None) -> Finding:
    """`market-unknown`: market 14 (the shared rules' sentence) or a market with no contract."""
    if rules.is_not_in_registry(number):
        return Finding(Code.MARKET_UNKNOWN, rules.not_in_registry_message, file, line)
    message = f"market {number} has no contract in this registry ({market_path(number)})"
    return Finding(Code.MARKET_UNKNOWN, message, file, line)


def check_location(folder: str, attempt: Attempt) -> list[Finding]:
    """1. attempts/market-NN/<submitter>/<attempt>/, matching attempt.yaml."""
    expected = f"attempts/market-{attempt.market:02d}/{attempt.submitter}/"
    parts = PurePosixPath(folder).parts
    if not (folder.startswith(expected) and len(parts) == 4):
        message = (
            f"the folder is {folder}/, expected {expected}<attempt-slug>/ from attempt.yaml's"
            " market and submitter"
        )
        return [
            Finding(Code.ATTEMPT_LOCATION, message, attempt.path, attempt.lines.get("submitter"))
        ]
    if SLUG.match(parts[3]) is None:
        message = f"attempt folder {parts[3]!r}: use 3-64 lower-case letters, digits and hyphens"
        return [Finding(Code.ATTEMPT_LOCATION, message, folder)]
    return []


def check_kind(attempt: Attempt, market: Market | None) -> list[Finding]:
    """2. The kinds the market accepts (a challenge attempt's results come from its run's
    scorer: `_check_challenge`)."""
    line = attempt.lines.get("kind")
    if market is not None and attempt.kind not in market.kinds:
        message = f"kind {attempt.kind!r}: market {market.id} accepts {', '.join(market.kinds)}"
        return [Finding(Code.KIND_NOT_ACCEPTED, message, attempt.path, line)]
    return []

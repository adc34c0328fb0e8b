"""The one error the JSON reports' readers raise."""

from __future__ import annotations

from bot.vocab.errors import ClaimsError

__all__ = ["ReportError"]


class ReportError(ClaimsError):
    """A report that is not what `claims` writes (malformed, or from another version)."""

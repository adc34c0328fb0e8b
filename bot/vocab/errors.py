"""How the bot fails, in three ways, each used the same way everywhere:

- a user's bad file is a `Finding` (bot/vocab/findings.py): data, collected, never raised;
- a value a function could not give is a `Refusal` returned in its place (`T | Refusal`):
  the reason a caller quotes in its own finding or message;
- an environment or usage problem is a raised `ClaimsError` (the CLI exits 2), and a bug is
  any other exception.
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["ClaimsError", "Refusal"]


@dataclass(frozen=True, slots=True)
class Refusal:
    """Why a function returned no value: `reason` is a sentence a message can quote.

    Returned, never raised, and checked with `isinstance(result, Refusal)`, so a reason can
    never be taken for a value (a path, a name) of the same type."""

    reason: str

    def __str__(self) -> str:
        return self.reason


class ClaimsError(Exception):
    """An environment or usage problem the operator must fix; the CLI exits with code 2."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def diagnostics(self) -> str:
        """What went wrong and what to do about it, for the terminal."""
        return f"error: {self.message}" + (f"\nhint: {self.hint}" if self.hint else "")

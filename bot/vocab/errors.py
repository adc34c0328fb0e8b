"""Exceptions are for bugs and infrastructure failures only; a user's bad file is a Finding."""

from __future__ import annotations

__all__ = ["ClaimsError"]


class ClaimsError(Exception):
    """An environment or usage problem the operator must fix; the CLI exits with code 2."""

    def __init__(self, message: str, hint: str = "") -> None:
        super().__init__(message)
        self.message = message
        self.hint = hint

    def diagnostics(self) -> str:
        """What went wrong and what to do about it, for the terminal."""
        return f"error: {self.message}" + (f"\nhint: {self.hint}" if self.hint else "")

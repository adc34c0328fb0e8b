"""An adversarial route's generator: what JSON Schema cannot compare between two fields."""

from __future__ import annotations

from bot.rules.evidence.models import Generator
from bot.vocab.findings import Code, Finding

__all__ = ["check_generator"]


def check_generator(generator: Generator | None, file: str, line: int | None) -> list[Finding]:
    """A generator cannot find more planted vulnerabilities than were planted (`schema`).

    JSON Schema cannot compare two fields, so this rule does: the route's found rate is a
    fraction of the planted ones.
    """
    if generator is None or generator.planted_found <= generator.planted:
        return []
    message = (
        f"adversarial.generator.planted_found: {generator.planted_found} is more than planted"
        f" ({generator.planted}): a generator cannot find more planted vulnerabilities than"
        " were planted"
    )
    return [Finding(Code.SCHEMA, message, file, line)]

"""Values `claims init` left for the filer to fill in (`FILL-IN: ...`), refused as `schema`."""

from __future__ import annotations

from collections.abc import Callable, Iterable

from bot.rules.evidence.paths import field_name, file_name, string_values
from bot.rules.evidence.schema import placeholder_message
from bot.vocab.document import FieldPath
from bot.vocab.findings import Code, Finding

__all__ = ["PLACEHOLDER", "check_placeholders"]

# What `claims init` writes where the filer must fill in (bot/faces/tools/init.py).
PLACEHOLDER = "FILL-IN"


def check_placeholders(
    documents: Iterable[tuple[str, object, Callable[[FieldPath], int | None]]],
    already: Iterable[Finding] = (),
) -> list[Finding]:
    """A value `claims init` left for the filer (`FILL-IN: ...`) in attempt.yaml or
    freeze.yaml is `schema`, naming the field: free-text fields would pass their schema with
    the placeholder in them. A line with a schema error already (`already`) is not reported
    twice."""
    reported = {(f.file, f.line) for f in already if f.code is Code.SCHEMA}
    findings = []
    for file, data, line_of in documents:
        if file_name(file) not in ("attempt.yaml", "freeze.yaml"):
            continue
        for where, value in string_values(data):
            line = line_of(where)
            if value.startswith(PLACEHOLDER) and (file, line) not in reported:
                message = f"{field_name(where)}: {placeholder_message(value)}"
                findings.append(Finding(Code.SCHEMA, message, file, line))
    return findings

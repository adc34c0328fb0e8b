"""Slash commands in a pull request comment, parsed into data (docs/spec.md §8, §10).

A command is a line of its own that starts with `/word`. Everything else is ignored: prose,
a `/word` in the middle of a sentence, quoted lines (`> /judge ...`, someone quoting a
command must not run it again), indented code and fenced code blocks (a maintainer showing
the syntax in ``` fences is not judging). Parsing is syntax only; which check ids an attempt
needs and who may judge are the responder's questions (`bot/faces/github/responder.py`).

    /judge <check-id> pass|fail|unsettled <note>   one judgment per line, several per comment
    /help                                          the commands

The note is required for `fail` and `unsettled` (the filer must learn what is missing) and
optional for `pass` (docs/spec-notes.md).
"""

from __future__ import annotations

import re
import unicodedata
from dataclasses import dataclass, field
from typing import Literal

from bot.vocab.errors import Refusal

__all__ = [
    "COMMANDS",
    "MAX_JUDGMENTS",
    "MAX_NOTE_CHARS",
    "CommandSpec",
    "JudgeCommand",
    "ParsedComment",
    "clean_note",
    "code_span",
    "parse_comment",
]

Verdict = Literal["pass", "fail", "unsettled"]
VERDICTS: tuple[Verdict, ...] = ("pass", "fail", "unsettled")
MAX_NOTE_CHARS = 1000  # judgments.schema.json allows 20,000; a comment line needs far less
MAX_JUDGMENTS = 20  # more /judge lines than there are checks is a mistake
_CHECK_ID = re.compile(r"\A[a-z0-9][a-z0-9-]{0,63}\Z")  # judgments.schema.json propertyNames
_COMMAND = re.compile(r"\A/([A-Za-z][A-Za-z0-9_-]{0,31})(?:[ \t]+(.*))?\Z")
_FENCE = re.compile(r"\A(`{3,}|~{3,})")
# Unicode categories dropped from notes: controls, format characters (bidi overrides,
# zero-width), surrogates, private use, unassigned, line and paragraph separators
# (bot/vocab/names.py refuses the same ones in names).
_DROPPED = frozenset({"Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"})


@dataclass(frozen=True, slots=True)
class CommandSpec:
    """A command as /help lists it: usage, who may run it, what it does, an example."""

    name: str
    usage: str
    who: str
    description: str
    example: str


COMMANDS: tuple[CommandSpec, ...] = (
    CommandSpec(
        "judge",
        "/judge <check-id> pass|fail|unsettled <note>",
        "maintainers (admin or maintain role)",
        "records a human check (docs/spec.md §8) in the attempt's judgments.yaml, bound to the"
        " current evidence digest; one command per line, several lines per comment; the note"
        " is required for fail and unsettled",
        "/judge reconstructible pass released data and code reproduce the score table",
    ),
    CommandSpec("help", "/help", "anyone", "lists these commands", "/help"),
)


@dataclass(frozen=True, slots=True)
class JudgeCommand:
    check: str
    verdict: Verdict
    note: str  # cleaned; "" for none
    line: int  # 1-based line of the comment


@dataclass(frozen=True)
class ParsedComment:
    """What a comment asks for. `problems`: /judge lines that do not parse, each naming its
    line; a comment with problems records nothing."""

    judgments: tuple[JudgeCommand, ...] = ()
    help: bool = False
    unknown: tuple[str, ...] = ()  # unknown command words, without the slash
    problems: tuple[str, ...] = field(default=())

    @property
    def has_commands(self) -> bool:
        return bool(self.judgments or self.help or self.unknown or self.problems)

    @property
    def wants_judging(self) -> bool:
        return bool(self.judgments or self.problems)


def clean_note(text: str) -> str:
    """`text` as a note is stored: NFC, without invisible or control characters, white space
    runs made one space, trimmed."""
    text = unicodedata.normalize("NFC", text)
    text = "".join(
        " " if char.isspace() else char
        for char in text
        if char.isspace() or unicodedata.category(char) not in _DROPPED
    )
    return " ".join(text.split())


# What a reply never echoes from filer text: a backtick would end the code span, and `<` `>`
# could spell an HTML comment such as the verdict marker (`<!-- claims-bot:... -->`).
_NEUTRAL = str.maketrans({"`": "\u2018", "<": "\u2039", ">": "\u203a"})


def code_span(text: str, limit: int = 200) -> str:
    """Untrusted text as inline code, the one way a reply quotes filer text: cleaned (no line
    breaks or invisible characters), capped, backticks and angle brackets replaced by look-alikes
    (so no marker the bot writes, `<!-- ... -->`, can be formed). Inside a code span GitHub
    renders no HTML, links no @mention and formats no Markdown."""
    text = clean_note(text).translate(_NEUTRAL)
    if len(text) > limit:
        text = text[: limit - 1] + "\u2026"
    return f"`{text}`" if text else "` `"


def _command_lines(body: str) -> list[tuple[int, str]]:
    """(line number, text) of the lines that may hold a command: outside fenced code,
    not indented code, not quoted."""
    lines = body.replace("\r\n", "\n").replace("\r", "\n").split("\n")
    found = []
    fence: str | None = None
    for number, line in enumerate(lines, start=1):
        indent = len(line) - len(line.lstrip(" "))
        stripped = line.strip()
        opener = _FENCE.match(stripped) if indent <= 3 else None
        if fence is not None:
            # A fence closes with at least as many of the same character and nothing else.
            marks = opener.group(1) if opener else ""
            if marks[:1] == fence[0] and len(marks) >= len(fence) and stripped == marks:
                fence = None
            continue
        if opener:
            fence = opener.group(1)
            continue
        if indent > 3 or line.startswith("\t") or stripped.startswith(">"):
            continue
        if stripped.startswith("/"):
            found.append((number, stripped))
    return found


def parse_comment(body: str) -> ParsedComment:
    """The commands in a comment body (syntax only; see the module docstring)."""
    judgments: list[JudgeCommand] = []
    unknown: list[str] = []
    problems: list[str] = []
    wants_help = False
    for number, text in _command_lines(body):
        match = _COMMAND.match(text)
        if match is None:
            continue  # "/tmp/x", "/ 3": not a command
        word, rest = match.group(1).lower(), match.group(2) or ""
        if word == "help":
            wants_help = True
        elif word == "judge":
            parsed = _parse_judge(rest, number)
            if isinstance(parsed, Refusal):
                problems.append(f"line {number}: {parsed.reason}")
            else:
                judgments.append(parsed)
        elif word not in unknown:
            unknown.append(word)
    seen: set[str] = set()
    for command in judgments:
        if command.check in seen:
            problems.append(f"line {command.line}: `{command.check}` is judged twice")
        seen.add(command.check)
    if len(judgments) > MAX_JUDGMENTS:
        problems.append(f"{len(judgments)} /judge lines; at most {MAX_JUDGMENTS} per comment")
    return ParsedComment(tuple(judgments), wants_help, tuple(unknown), tuple(problems))


def _parse_judge(rest: str, number: int) -> JudgeCommand | Refusal:
    """One /judge line's arguments, or what is wrong with them."""
    parts = rest.split(None, 2)
    usage = "expected `/judge <check-id> pass|fail|unsettled <note>`"
    if len(parts) < 2:
        return Refusal(usage)
    check, verdict = parts[0], parts[1].lower()
    if not _CHECK_ID.match(check):
        return Refusal(f"{code_span(check, 64)} is not a check id; {usage}")
    if verdict not in VERDICTS:
        return Refusal(f"{code_span(parts[1], 32)} is not a verdict; {usage}")
    note = clean_note(parts[2]) if len(parts) > 2 else ""
    if len(note) > MAX_NOTE_CHARS:
        return Refusal(f"the note is longer than {MAX_NOTE_CHARS} characters")
    if not note and verdict != "pass":
        article = "an" if verdict == "unsettled" else "a"
        return Refusal(f"{article} {verdict} verdict needs a note saying why")
    return JudgeCommand(check, verdict, note, number)

"""Where the scheduled job opens issues: GitHub (through the port), or, without a token, a
local folder (`ROOT/.claims/issues/`, one Markdown file per issue) with the issue printed.

Each issue the job opens carries a hidden marker (`<!-- claims close-windows: KEY -->`) naming
the market and the kind; before opening one the job looks for an issue with that marker and
label, open or closed, so a rerun never opens a second (a closed issue stays closed: a
maintainer closed it on purpose).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Protocol

from bot.edges.github.port import GitHubPort

__all__ = ["FileIssues", "GitHubIssues", "Issues", "marker"]


def marker(key: str) -> str:
    """The hidden line naming an issue the job opened (`key`: e.g. `market-03 resolution`)."""
    return f"<!-- claims close-windows: {key} -->"


class Issues(Protocol):
    def find(self, key: str, label: str) -> str | None:
        """Where the issue with `key`'s marker and `label` is, or None."""
        ...

    def open(self, key: str, title: str, body: str, labels: Sequence[str]) -> str:
        """Open the issue (its body ending with the marker); return where it is."""
        ...


@dataclass
class GitHubIssues:
    port: GitHubPort

    def find(self, key: str, label: str) -> str | None:
        mark = marker(key)
        found = next((i for i in self.port.issues(label) if mark in i.body), None)
        return None if found is None else (found.html_url or f"#{found.number}")

    def open(self, key: str, title: str, body: str, labels: Sequence[str]) -> str:
        issue = self.port.create_issue(title, f"{body}\n\n{marker(key)}\n", labels)
        return issue.html_url or f"#{issue.number}"


@dataclass
class FileIssues:
    """Offline: `folder/<key>.md` (the key's characters kept to [a-z0-9-])."""

    folder: Path

    def _path(self, key: str) -> Path:
        return self.folder / (re.sub(r"[^a-z0-9-]+", "-", key.lower()).strip("-") + ".md")

    def find(self, key: str, label: str) -> str | None:
        path = self._path(key)
        if path.is_file() and marker(key) in path.read_text(encoding="utf-8", errors="replace"):
            return str(path)
        return None

    def open(self, key: str, title: str, body: str, labels: Sequence[str]) -> str:
        path = self._path(key)
        self.folder.mkdir(parents=True, exist_ok=True)
        text = f"# {title}\n\nlabels: {', '.join(labels)}\n\n{body}\n\n{marker(key)}\n"
        temporary = path.with_name(f".{path.name}.tmp")
        temporary.write_text(text, encoding="utf-8")
        temporary.replace(path)
        return str(path)

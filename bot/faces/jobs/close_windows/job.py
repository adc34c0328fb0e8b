"""One run of the close job: what it is given, and the registry's repository it works in."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import date, datetime
from pathlib import Path

from bot.app.api import open_workspace
from bot.app.options import NO_PORTS, Ports
from bot.app.resolutions import ArchiveKind
from bot.edges.archive.port import Archive
from bot.edges.history import GitHistory
from bot.faces.jobs.gitops import Git
from bot.faces.jobs.issues import Issues
from bot.vocab.config import Limits
from bot.vocab.errors import ClaimsError

__all__ = ["Job", "open_repository"]


@dataclass
class Job:
    """What one run of the job is given: the registry, where copies go, where issues go, the
    date resolved on, the ports verifying asks (adapter reruns, pins, the cache), the clock
    (tag and record times) and crash points."""

    root: Path
    archive: Archive
    archive_kind: ArchiveKind
    repository_url: str  # https://github.com/OWNER/REPO (file://ROOT offline)
    issues: Issues
    as_of: date
    clock: Callable[[], datetime]
    ports: Ports = NO_PORTS
    crash: Callable[[str], None] = lambda point: None
    # The token `git push` (and `git ls-remote`) present to origin, in their environment only
    # (gitops.Git.auth_environment); None: origin needs none (a local remote, a credential
    # helper).
    push_token: str | None = None
    server_url: str = "https://github.com"
    # Where each tarball this run made and the archive holds is kept (the workflow attests
    # them); None: nowhere.
    tarballs: Path | None = None
    # The caps on the fetched pins a market's archive carries (`max_archived_pin_bytes`,
    # `max_archived_pins_bytes`).
    limits: Limits = field(default_factory=Limits)


def open_repository(job: Job) -> tuple[GitHistory, Git]:
    root = job.root
    workspace = open_workspace(root)
    history = workspace.history
    if not isinstance(history, GitHistory):
        workspace.close()
        raise ClaimsError(
            f"close-windows needs the registry's git repository: {history.unavailable}",
            "run it in a clone of the registry (with its whole history)",
        )
    git = Git(
        history.repo,
        history.base_ref or "main",
        history.prefix,
        push_token=job.push_token,
        server_url=job.server_url,
    )
    return history, git

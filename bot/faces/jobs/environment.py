"""What `claims close-windows` takes from its environment: the archive (`--archive`, else
Zenodo with ZENODO_TOKEN, else the local folder), where issues go (GitHub with GITHUB_TOKEN
and GITHUB_REPOSITORY, else a local folder) and the repository's URL (the copies' metadata)."""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import git

from bot.app.resolutions import ArchiveKind
from bot.edges.archive.local import LocalArchive
from bot.edges.archive.port import Archive
from bot.faces.jobs.issues import FileIssues, GitHubIssues, Issues
from bot.vocab.errors import ClaimsError

__all__ = ["archive_from", "issues_from", "repository_url"]


def archive_from(
    choice: str | None, root: Path, environ: Mapping[str, str]
) -> tuple[Archive, ArchiveKind]:
    from bot.edges.archive.zenodo import ZenodoArchive

    if choice is None or choice == "zenodo":
        zenodo = ZenodoArchive.from_environment(environ)
        if zenodo is not None:
            return zenodo, "zenodo"
        if choice == "zenodo":
            raise ClaimsError(
                "--archive zenodo needs ZENODO_TOKEN",
                "set ZENODO_TOKEN (and ZENODO_URL=https://sandbox.zenodo.org/api to try it out)",
            )
        return LocalArchive(root / ".claims" / "archive"), "local"
    if choice.startswith("local:") and choice[6:]:
        return LocalArchive(Path(choice[6:])), "local"
    raise ClaimsError(f"--archive {choice!r}: expected zenodo or local:DIR")


def issues_from(root: Path, folder: Path | None, environ: Mapping[str, str]) -> Issues:
    token = environ.get("GITHUB_TOKEN", "").strip()
    repository = environ.get("GITHUB_REPOSITORY", "").strip()
    if token and repository:
        from bot.edges.github.gateway import connect

        return GitHubIssues(connect(token, repository, environ.get("GITHUB_API_URL") or None))
    return FileIssues(folder or root / ".claims" / "issues")


def repository_url(root: Path, environ: Mapping[str, str]) -> str:
    """`$GITHUB_SERVER_URL/$GITHUB_REPOSITORY` in Actions; else origin's URL when it is a
    GitHub one; else `file://ROOT`."""
    repository = environ.get("GITHUB_REPOSITORY", "").strip()
    if repository:
        server = environ.get("GITHUB_SERVER_URL", "").strip() or "https://github.com"
        return f"{server.rstrip('/')}/{repository}"
    try:
        with git.Repo(root, search_parent_directories=True) as repo:
            url = repo.remote("origin").url if repo.remotes else ""
    except (git.InvalidGitRepositoryError, git.NoSuchPathError, ValueError):
        url = ""
    for start in ("https://github.com/", "git@github.com:"):
        if url.startswith(start):
            return "https://github.com/" + url[len(start) :].removesuffix(".git")
    return root.resolve().as_uri()

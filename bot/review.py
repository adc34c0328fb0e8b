"""What a pull request may change (SPEC 4, 10): only files inside its own attempt folder.

Pure functions over the PR's diff (`bot.history.Change`, from `git diff --raw` of the base
branch's merge base and the head): judgments.yaml and the registry's own folders need a
maintainer; links, submodules and executable files are refused wherever they are; one pull
request files one attempt.
"""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import PurePosixPath

from bot.findings import Code, Finding
from bot.history import Change

__all__ = ["changed_attempt_folders", "check_changes"]

_PROTECTED = ("markets/", "shared-rules/", "challenge-runs/", "bot/", ".github/", "schemas/")


def changed_attempt_folders(changes: Sequence[Change]) -> list[str]:
    """The attempt folders (attempts/market-NN/<submitter>/<attempt>) a diff touches."""
    folders = {
        "/".join(change.path.split("/")[:4])
        for change in changes
        if change.path.startswith("attempts/") and change.path.count("/") >= 4
    }
    return sorted(folders)


def check_changes(changes: Sequence[Change], attempt_folders: Sequence[str]) -> list[Finding]:
    """9. A PR may add or change files only inside its own attempt folder.

    Each problem has its own code: a path outside the attempt folder (`path-outside-attempt`,
    the registry's own folders among them), judgments.yaml (`maintainer-file`), more than one
    attempt folder (`several-attempts`), and wherever they are, symbolic links (`symlink`),
    submodules (`submodule`) and executable files (`executable-file`).
    """
    findings = []
    if len(attempt_folders) > 1:
        message = (
            f"this pull request changes {len(attempt_folders)} attempt folders"
            f" ({', '.join(attempt_folders)}); file one attempt per pull request"
        )
        findings.append(Finding(Code.SEVERAL_ATTEMPTS, message))
    folders = tuple(f"{folder.rstrip('/')}/" for folder in attempt_folders)
    for change in changes:
        path = change.path
        if change.mode == "120000":
            findings.append(Finding(Code.SYMLINK, "a symbolic link; refused", path))
            continue
        if change.mode == "160000":
            findings.append(Finding(Code.SUBMODULE, "a submodule; refused", path))
            continue
        if change.mode == "100755":
            findings.append(
                Finding(
                    Code.EXECUTABLE_FILE,
                    "an executable file; evidence files must not be executable",
                    path,
                )
            )
        if not path.startswith(folders):
            owner = next((p for p in _PROTECTED if path.startswith(p)), None)
            reason = f"{owner} needs a maintainer" if owner else "outside the attempt folder"
            findings.append(
                Finding(
                    Code.PATH_OUTSIDE_ATTEMPT,
                    f"this pull request changes {path}: {reason}; a PR may change files only"
                    " inside its own attempt folder",
                    path,
                )
            )
        elif PurePosixPath(path).name == "judgments.yaml":
            findings.append(
                Finding(
                    Code.MAINTAINER_FILE,
                    "judgments.yaml is written by maintainers only (or by /judge comments)",
                    path,
                )
            )
    return findings

"""What a pull request may change (docs/spec.md §4, §10): only files inside its own attempt folder.

Pure functions over the PR's diff (`bot.edges.history.Change`, from `git diff --raw -z` of the base
branch's merge base and the head) and the paths of the head's tree:

- wherever they are and whoever files them: symbolic links, submodules, executable files,
  `.git*` files below the registry's root (`.gitattributes` could smuggle LFS or filters into a
  checkout), Git LFS pointers (the evidence would not be in the repository), paths holding a
  character outside printable ASCII, and names that collide with another after Unicode NFKC
  and case folding (`Trials.jsonl` beside `trials.jsonl`);
- from anyone but a maintainer: the registry's maintainer-owned paths (`protected-path`),
  anything else outside the attempt folder (`path-outside-attempt`), judgments.yaml
  (`maintainer-file`), more than one attempt folder (`several-attempts`), and changes to the
  evidence of an attempt folder already on the base branch (`merged-evidence-changed`) unless a
  maintainer approved the PR's head commit.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from pathlib import PurePosixPath

from bot.vocab.commits import LFS_POINTER, Change
from bot.vocab.findings import Code, Finding
from bot.vocab.names import fold_path, path_collisions

__all__ = [
    "PROTECTED",
    "attempt_folder",
    "changed_attempt_folders",
    "check_changes",
    "check_merged_evidence",
    "fold_path",
    "printable_path",
    "shown_path",
]

# The registry's maintainer-owned paths (CODEOWNERS names the same): folders, then files. Any
# name at the root starting with `.git` (.github/, .gitattributes, .gitignore) is one as well.
PROTECTED = (
    "markets/",
    "shared-rules/",
    "challenge-runs/",
    "bot/",
    ".github/",
    "schemas/",
    "resolutions/",  # the scheduled job's final records (claims close-windows)
    "submitters.yaml",
    "CODEOWNERS",
)


def printable_path(path: str) -> bool:
    """True when every character of `path` is printable ASCII (no control character, no
    non-ASCII letter, no undecodable byte)."""
    return path.isascii() and path.isprintable()


def shown_path(path: str) -> str:
    """`path` safe to print and to write as JSON: bytes outside printable ASCII as \\xNN."""
    if printable_path(path):
        return path
    raw = path.encode("utf-8", "surrogateescape")
    return "".join(chr(byte) if 0x20 <= byte < 0x7F else f"\\x{byte:02x}" for byte in raw)


def attempt_folder(path: str) -> str | None:
    """The attempt folder (attempts/market-NN/<submitter>/<attempt>) holding `path`, if any."""
    parts = path.split("/")
    if parts[0] != "attempts" or len(parts) < 5:
        return None
    return "/".join(parts[:4])


def changed_attempt_folders(changes: Sequence[Change]) -> list[str]:
    """The attempt folders (attempts/market-NN/<submitter>/<attempt>) a diff touches; a path
    holding characters outside printable ASCII names no folder (it is refused)."""
    folders = {
        folder
        for change in changes
        if printable_path(change.path) and (folder := attempt_folder(change.path)) is not None
    }
    return sorted(folders)


def _protected(path: str) -> str | None:
    """The maintainer-owned path `path` lies in, or None."""
    first = path.split("/", 1)[0]
    if first.startswith(".git"):
        return f"{first}/" if "/" in path else first
    return next(
        (p for p in PROTECTED if path == p or (p.endswith("/") and path.startswith(p))), None
    )


def check_changes(
    changes: Sequence[Change],
    attempt_folders: Sequence[str],
    head_paths: Iterable[str] = (),
    maintainer: bool = False,
) -> list[Finding]:
    """9. A PR may add or change files only inside its own attempt folder, and no path may
    be one git, a checkout or a reader could take for another.

    `head_paths`: every file path of the head's tree (names colliding with one already there
    count); `maintainer`: the PR's author is a maintainer, who may change any path (the
    path-safety rules still hold).
    """
    findings = []
    if len(attempt_folders) > 1 and not maintainer:
        message = (
            f"this pull request changes {len(attempt_folders)} attempt folders"
            f" ({', '.join(attempt_folders)}); file one attempt per pull request"
        )
        findings.append(Finding(Code.SEVERAL_ATTEMPTS, message))
    folders = tuple(f"{folder.rstrip('/')}/" for folder in attempt_folders)
    for change in changes:
        path = change.path
        if any(part in ("", ".", "..") for part in path.split("/")):
            # A crafted tree (`git mktree`) can hold such names; no tree reader shows them
            # (bot/edges/tree.py skips them), so a file under one would escape every check.
            findings.append(
                Finding(
                    Code.PATH_CHARACTERS,
                    f"the path {shown_path(path)} has an empty, '.' or '..' component, which no"
                    " valid git tree holds (git fsck refuses it); name files with letters,"
                    " digits, '.', '_' and '-' only",
                    shown_path(path),
                )
            )
            continue
        if not printable_path(path):
            findings.append(
                Finding(
                    Code.PATH_CHARACTERS,
                    f"the path {shown_path(path)} holds a character outside printable ASCII"
                    " (a control character, a non-ASCII letter or bytes that are not UTF-8);"
                    " name files with letters, digits, '.', '_' and '-' only",
                    shown_path(path),
                )
            )
            continue
        findings += _path_safety(change)
        if change.mode in ("120000", "160000"):
            continue
        if maintainer:
            continue
        if not path.startswith(folders):
            owner = _protected(path)
            if owner is not None:
                findings.append(
                    Finding(
                        Code.PROTECTED_PATH,
                        f"this pull request changes {path}: {owner} belongs to the registry's"
                        " maintainers; a filer's PR may change files only inside its own"
                        " attempt folder",
                        path,
                    )
                )
            else:
                findings.append(
                    Finding(
                        Code.PATH_OUTSIDE_ATTEMPT,
                        f"this pull request changes {path}: outside the attempt folder; a PR"
                        " may change files only inside its own attempt folder",
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
    findings += _collisions(changes, head_paths)
    return findings


def _path_safety(change: Change) -> list[Finding]:
    """Links, submodules, executables, `.git*` files and LFS pointers: refused for anyone."""
    path = change.path
    if change.mode == "120000":
        return [Finding(Code.SYMLINK, "a symbolic link; refused", path)]
    if change.mode == "160000":
        return [Finding(Code.SUBMODULE, "a submodule; refused", path)]
    findings = []
    if change.mode == "100755":
        findings.append(
            Finding(
                Code.EXECUTABLE_FILE,
                "an executable file; evidence files must not be executable",
                path,
            )
        )
    inner = path.split("/")[1:]  # the root's .github/ and .git* files are protected paths
    git_name = next((part for part in inner if part.startswith(".git")), None)
    if git_name is not None and change.status != "D":
        findings.append(
            Finding(
                Code.GIT_FILE,
                f"{git_name} is a name git reads ({path}): .gitattributes, .gitignore,"
                " .gitmodules and the like could change what a checkout holds; refused",
                path,
            )
        )
    if change.start.startswith(LFS_POINTER):
        findings.append(
            Finding(
                Code.LFS_POINTER,
                f"{path} is a Git LFS pointer: the file's content is not in the repository,"
                " so nobody can check it; commit the file itself",
                path,
            )
        )
    return findings


def _collisions(changes: Sequence[Change], head_paths: Iterable[str]) -> list[Finding]:
    """Paths the PR adds or changes whose name (or a folder on the way) collides after NFKC
    and case folding with another in the head's tree (`bot.vocab.names.path_collisions`, the check
    verify makes of every attempt folder too)."""
    wanted = [c.path for c in changes if c.status != "D" and printable_path(c.path)]
    return path_collisions(wanted, head_paths, shown_path)


def check_merged_evidence(
    changes: Sequence[Change],
    merged_folders: Collection[str],
    approved: bool,
    on_base: Mapping[str, str | None] | None = None,
) -> list[Finding]:
    """Evidence already on the base branch stays as merged: changing or deleting a file of an
    attempt folder that exists there is `merged-evidence-changed` (each file named), unless a
    maintainer approved the PR's head commit. Adding files (the run after its freeze) is not a
    change; judgments.yaml is `maintainer-file`'s.

    `on_base`: for paths the diff adds, the blob the base branch's tip holds there (the diff
    runs from the merge base, so a branch started before a file was merged "adds" it again:
    with other content, that is a change of merged evidence)."""
    if approved:
        return []
    on_base = on_base or {}
    findings = []
    for change in changes:
        folder = attempt_folder(change.path)
        if folder is None or folder not in merged_folders:
            continue
        if change.status == "A" and (
            change.path not in on_base or on_base[change.path] == change.blob
        ):
            continue
        if PurePosixPath(change.path).name == "judgments.yaml":
            continue
        done = "deletes" if change.status == "D" else "changes"
        findings.append(
            Finding(
                Code.MERGED_EVIDENCE_CHANGED,
                f"this pull request {done} {change.path}, evidence of {folder} as merged on"
                " the base branch; merged evidence changes only with a maintainer's approval"
                " of the pull request's head commit",
                change.path,
            )
        )
    return findings

"""bot/rules/review.py `check_changes`: what a pull request's diff may change, one code per problem.

Each case feeds one kind of change to the pure function and asserts the exact codes: a path
outside the attempt folder, judgments.yaml, two attempt folders, a link, a submodule and an
executable file each have their own code, so one never stands in for another.
"""

from __future__ import annotations

import pytest

from bot.rules.review import check_changes
from bot.vocab.commits import Change
from bot.vocab.findings import Code

FOLDER = "attempts/market-03/alice-lab/monitor-v1"
OTHER = "attempts/market-03/other-lab/other-one"


def _codes(
    changes: list[Change], folders: list[str] | None = None
) -> list[tuple[Code, str | None]]:
    return [(f.code, f.file) for f in check_changes(changes, folders or [FOLDER])]


def test_files_inside_the_attempt_folder_pass() -> None:
    changes = [
        Change(f"{FOLDER}/trials.jsonl", "A", "100644"),
        Change(f"{FOLDER}/x", "D", "000000"),
    ]
    assert _codes(changes) == []


@pytest.mark.parametrize(
    ("path", "reason"),
    [
        ("README.md", "outside the attempt folder"),
        ("attempts/market-03/alice-lab/notes.md", "outside the attempt folder"),
        ("docs/x.md", "outside the attempt folder"),
    ],
)
def test_a_path_outside_the_attempt_folder(path: str, reason: str) -> None:
    (finding,) = check_changes([Change(path, "M", "100644")], [FOLDER])
    assert (finding.code, finding.file) == (Code.PATH_OUTSIDE_ATTEMPT, path)
    assert reason in finding.message


@pytest.mark.parametrize(
    ("path", "owner"),
    [
        ("markets/market-03.yaml", "markets/"),
        ("shared-rules/common-v1.yaml", "shared-rules/"),
        ("challenge-runs/r/run.yaml", "challenge-runs/"),
        ("bot/verify.py", "bot/"),
        (".github/workflows/verify.yml", ".github/"),
        ("schemas/attempt.schema.json", "schemas/"),
        ("resolutions/market-03.yaml", "resolutions/"),
        ("submitters.yaml", "submitters.yaml"),
        ("CODEOWNERS", "CODEOWNERS"),
        (".gitattributes", ".gitattributes"),
    ],
)
def test_a_maintainers_path(path: str, owner: str) -> None:
    (finding,) = check_changes([Change(path, "M", "100644")], [FOLDER])
    assert (finding.code, finding.file) == (Code.PROTECTED_PATH, path)
    assert f"{owner} belongs to the registry's maintainers" in finding.message


def test_a_maintainer_may_change_any_path_but_not_unsafe_ones() -> None:
    changes = [
        Change("markets/market-03.yaml", "M", "100644"),
        Change(".github/workflows/verify.yml", "A", "100644"),
        Change(f"{FOLDER}/judgments.yaml", "M", "100644"),
        Change(f"{OTHER}/a", "A", "100644"),
        Change(f"{FOLDER}/link", "A", "120000"),
        Change(f"{FOLDER}/.gitattributes", "A", "100644"),
    ]
    found = check_changes(changes, [FOLDER, OTHER], maintainer=True)
    assert [(f.code, f.file) for f in found] == [
        (Code.SYMLINK, f"{FOLDER}/link"),
        (Code.GIT_FILE, f"{FOLDER}/.gitattributes"),
    ]


@pytest.mark.parametrize(
    "name", [".gitattributes", ".gitignore", ".gitmodules", ".git-blame-ignore-revs"]
)
def test_a_git_file_below_the_root(name: str) -> None:
    path = f"{FOLDER}/{name}"
    assert _codes([Change(path, "A", "100644")]) == [(Code.GIT_FILE, path)]
    nested = f"{FOLDER}/.github/x.yml"
    assert _codes([Change(nested, "A", "100644")]) == [(Code.GIT_FILE, nested)]


def test_an_lfs_pointer() -> None:
    path = f"{FOLDER}/trials.jsonl"
    pointer = b"version https://git-lfs.github.com/spec/"
    assert _codes([Change(path, "A", "100644", "a" * 40, pointer)]) == [(Code.LFS_POINTER, path)]
    assert _codes([Change(path, "A", "100644", "a" * 40, b'{"case_id": "c1"')]) == []


@pytest.mark.parametrize(
    ("path", "shown"),
    [
        (f"{FOLDER}/caf\u00e9.txt", f"{FOLDER}/caf\\xc3\\xa9.txt"),
        (f"{FOLDER}/a\tb", f"{FOLDER}/a\\x09b"),
        (f"{FOLDER}/x\x1b[2J", f"{FOLDER}/x\\x1b[2J"),
        (f"{FOLDER}/notes\udcff.txt", f"{FOLDER}/notes\\xff.txt"),  # not UTF-8 (escaped)
    ],
)
def test_a_path_outside_printable_ascii(path: str, shown: str) -> None:
    (finding,) = check_changes([Change(path, "A", "100644")], [FOLDER])
    assert (finding.code, finding.file) == (Code.PATH_CHARACTERS, shown)
    assert finding.file is not None and finding.file.isascii() and finding.file.isprintable()


def test_names_that_collide_after_folding() -> None:
    trials = f"{FOLDER}/trials.jsonl"
    added = Change(f"{FOLDER}/Trials.jsonl", "A", "100644")
    assert _collisions([added], [trials, added.path]) == [(Code.PATH_COLLISION, added.path)]
    # Two new names at once, and a folder on the way (NFKC: the fullwidth letter folds).
    one, two = Change(f"{FOLDER}/ab/x", "A", "100644"), Change(f"{FOLDER}/\uff41B/y", "A", "100644")
    found = check_changes([one, two], [FOLDER], [one.path, two.path])
    assert Code.PATH_COLLISION in {f.code for f in found}
    assert [f.file for f in found if f.code is Code.PATH_COLLISION] == [one.path]
    # The same path changed, or a name deleted beside its new case, is no collision.
    assert _collisions([Change(trials, "M", "100644")], [trials]) == []


def _collisions(changes: list[Change], head: list[str]) -> list[tuple[Code, str | None]]:
    return [(f.code, f.file) for f in check_changes(changes, [FOLDER], head)]


def test_judgments_yaml_is_a_maintainer_file() -> None:
    path = f"{FOLDER}/judgments.yaml"
    assert _codes([Change(path, "A", "100644")]) == [(Code.MAINTAINER_FILE, path)]


def test_two_attempt_folders() -> None:
    changes = [Change(f"{FOLDER}/trials.jsonl", "A", "100644"), Change(f"{OTHER}/a", "A", "100644")]
    assert _codes(changes, [FOLDER, OTHER]) == [(Code.SEVERAL_ATTEMPTS, None)]


def test_a_symbolic_link() -> None:
    path = f"{FOLDER}/notes.txt"
    assert _codes([Change(path, "A", "120000")]) == [(Code.SYMLINK, path)]


def test_a_submodule() -> None:
    path = f"{FOLDER}/vendored"
    assert _codes([Change(path, "A", "160000")]) == [(Code.SUBMODULE, path)]


def test_an_executable_file() -> None:
    path = f"{FOLDER}/run.sh"
    assert _codes([Change(path, "A", "100755")]) == [(Code.EXECUTABLE_FILE, path)]


def test_an_executable_file_outside_the_folder_is_both() -> None:
    path = "scripts/run.sh"
    assert _codes([Change(path, "A", "100755")]) == [
        (Code.EXECUTABLE_FILE, path),
        (Code.PATH_OUTSIDE_ATTEMPT, path),
    ]


@pytest.mark.parametrize("name", ["..", ".", ""])
def test_a_path_component_no_valid_tree_holds(name: str) -> None:
    """Found by the adversarial corpus (git-tree-dot-dot-entry): a crafted tree (git mktree)
    can hold an entry named `..` inside the attempt folder. The head's tree reader skips such
    names, so the file was invisible to every check and the pull request passed."""
    path = f"{FOLDER}/{name}" if name else f"{FOLDER}//x"
    (finding,) = check_changes([Change(path, "A", "100644")], [FOLDER])
    assert (finding.code, finding.file) == (Code.PATH_CHARACTERS, path)
    assert "no valid git tree holds" in finding.message

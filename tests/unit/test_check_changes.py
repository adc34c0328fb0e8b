"""bot/review.py `check_changes`: what a pull request's diff may change, one code per problem.

Each case feeds one kind of change to the pure function and asserts the exact codes: a path
outside the attempt folder, judgments.yaml, two attempt folders, a link, a submodule and an
executable file each have their own code, so one never stands in for another.
"""

from __future__ import annotations

import pytest

from bot.findings import Code
from bot.history import Change
from bot.review import check_changes

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
        ("markets/market-03.yaml", "markets/ needs a maintainer"),
        ("bot/verify.py", "bot/ needs a maintainer"),
        ("README.md", "outside the attempt folder"),
    ],
)
def test_a_path_outside_the_attempt_folder(path: str, reason: str) -> None:
    (finding,) = check_changes([Change(path, "M", "100644")], [FOLDER])
    assert (finding.code, finding.file) == (Code.PATH_OUTSIDE_ATTEMPT, path)
    assert reason in finding.message


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

"""`bot/edges/sandbox/outputs.py`: reading an adapter's output folder without following anything."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from bot.edges.sandbox.outputs import hand_back, measure, scan_outputs, size_text


def test_regular_files_in_nested_folders_are_listed_sorted(tmp_path: Path) -> None:
    (tmp_path / "sub" / "deeper").mkdir(parents=True)
    for name, size in (("b.jsonl", 3), ("a.jsonl", 5), ("sub/c.jsonl", 7), ("sub/deeper/d", 1)):
        (tmp_path / name).write_bytes(b"x" * size)
    scan = scan_outputs(tmp_path, max_files=10, max_bytes=100)
    assert scan.problem is None
    assert scan.files == ("a.jsonl", "b.jsonl", "sub/c.jsonl", "sub/deeper/d")
    assert (scan.total_bytes, scan.largest) == (16, 7)


@pytest.mark.parametrize(
    ("plant", "problem"),
    [
        (lambda p: (p / "trials.jsonl").symlink_to("/etc/passwd"), "a symbolic link"),
        (lambda p: (p / "trials.jsonl").symlink_to("missing"), "a symbolic link"),
        (lambda p: os.mkfifo(p / "trials.jsonl"), "a named pipe"),
    ],
)
def test_special_files_are_refused(tmp_path: Path, plant: object, problem: str) -> None:
    (tmp_path / "fine.jsonl").write_text("{}")
    assert callable(plant)
    plant(tmp_path)
    scan = scan_outputs(tmp_path, max_files=10, max_bytes=100)
    assert scan.problem == f"wrote {problem} out/trials.jsonl"
    assert scan.files == ()


def test_a_linked_folder_is_not_entered(tmp_path: Path) -> None:
    (tmp_path / "sub").mkdir()
    (tmp_path / "sub" / "home").symlink_to("/root", target_is_directory=True)
    assert scan_outputs(tmp_path, 10, 100).problem == "wrote a symbolic link out/sub/home"


def test_caps_on_files_folders_and_bytes(tmp_path: Path) -> None:
    for index in range(4):
        (tmp_path / f"{index}.jsonl").write_bytes(b"x" * 10)
    assert scan_outputs(tmp_path, 3, 1000).problem == "wrote more than 3 files to out/"
    assert scan_outputs(tmp_path, 4, 1000).problem is None
    assert scan_outputs(tmp_path, 10, 39).problem == "wrote more than 39 bytes to out/"
    assert scan_outputs(tmp_path, 10, 40).problem is None
    nested = tmp_path / "n"
    for _ in range(4):
        nested = nested / "n"
    nested.mkdir(parents=True)
    assert scan_outputs(tmp_path, 4, 1000).problem == "made more than 4 folders in out/"


def test_names_must_be_printable_utf8(tmp_path: Path) -> None:
    os.close(os.open(os.path.join(os.fsencode(tmp_path), b"bad\xff"), os.O_CREAT | os.O_WRONLY))
    problem = scan_outputs(tmp_path, 10, 100).problem
    assert problem is not None and problem.startswith("wrote a file whose name is not printable")
    os.unlink(os.path.join(os.fsencode(tmp_path), b"bad\xff"))
    (tmp_path / "line\nbreak").write_text("")
    problem = scan_outputs(tmp_path, 10, 100).problem
    assert problem is not None and "'line\\nbreak'" in problem


def test_measure_is_lenient_about_kinds_but_not_sizes(tmp_path: Path) -> None:
    (tmp_path / "link").symlink_to("/etc/passwd")
    (tmp_path / "data").write_bytes(b"x" * 50)
    assert measure(tmp_path, 10, 100) is None
    assert measure(tmp_path, 10, 49) == "wrote more than 49 bytes to out/"
    assert measure(tmp_path / "gone", 10, 49) is None


@pytest.mark.skipif(os.geteuid() != 0, reason="changing owners needs root")
def test_hand_back_changes_links_not_their_targets(tmp_path: Path) -> None:
    target = tmp_path / "target"
    target.write_text("mine")
    out = tmp_path / "out"
    (out / "sub").mkdir(parents=True)
    (out / "sub" / "file").write_text("x")
    (out / "link").symlink_to(target)
    hand_back(out, 12345, 54321)
    for path in (out, out / "sub", out / "sub" / "file", out / "link"):
        assert (path.lstat().st_uid, path.lstat().st_gid) == (12345, 54321)
    assert target.stat().st_uid == os.geteuid()


def test_size_text() -> None:
    assert size_text(1 << 30) == "1 GiB"
    assert size_text(16 << 20) == "16 MiB"
    assert size_text(512 << 20) == "512 MiB"
    assert size_text(64 << 10) == "64 KiB"
    assert size_text((1 << 20) + 1) == "1048577 bytes"
    assert size_text(0) == "0 bytes"

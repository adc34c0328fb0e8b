"""bot/load/folder.py: scan an attempt folder without following links or opening special files."""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from bot.config import Limits
from bot.findings import Code
from bot.history import blob_id
from bot.load import folder as folder_module
from bot.load.folder import FileEntry, read_regular
from bot.tree import TreeError
from tests.support import scan

SHOWN = "attempts/market-01/alice/a1"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def write(root: Path, relative: str, data: bytes) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def test_regular_files_in_nested_folders(tmp_path: Path) -> None:
    files = {
        "attempt.yaml": b"market: 1\n",
        "trials.jsonl": b"",
        "raw-log/head": b"h" * 5000,
        "raw-log/tail": b"t" * 3,
        "adapter/scripts/run_2.py": b"print('hi')\n",
        "adapter/adapter.yaml": b"command: x\n",
    }
    for relative, data in files.items():
        write(tmp_path, relative, data)
    (tmp_path / "empty-dir").mkdir()
    entries, findings = scan(tmp_path, SHOWN)
    assert findings == []
    assert entries == {
        relative: FileEntry(relative, len(data), sha(data), blob_id(data))
        for relative, data in files.items()
    }
    assert entries["trials.jsonl"].sha256 == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )


def test_large_file_hash_is_over_all_chunks(tmp_path: Path) -> None:
    data = bytes(range(256)) * 9000  # > 2 MiB, several read chunks
    write(tmp_path, "raw-log/log", data)
    entries, findings = scan(tmp_path, SHOWN)
    assert findings == []
    assert entries["raw-log/log"] == FileEntry("raw-log/log", len(data), sha(data), blob_id(data))


def test_symlink_to_a_file_is_refused(tmp_path: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside, "secret", b"secret\n")
    attempt = tmp_path / "attempt"
    write(attempt, "attempt.yaml", b"a: 1\n")
    (attempt / "trials.jsonl").symlink_to(outside / "secret")
    entries, findings = scan(attempt, SHOWN)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file, f.line) for f in findings] == [
        (Code.SYMLINK, f"{SHOWN}/trials.jsonl", None)
    ]
    assert "secret" in findings[0].message


def test_dangling_and_relative_symlinks_are_refused(tmp_path: Path) -> None:
    write(tmp_path, "real", b"x")
    (tmp_path / "dangling").symlink_to(tmp_path / "does-not-exist")
    (tmp_path / "relative").symlink_to("real")
    (tmp_path / "loop").symlink_to("loop")
    entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["real"]
    assert sorted((f.code, f.file) for f in findings) == [
        (Code.SYMLINK, f"{SHOWN}/dangling"),
        (Code.SYMLINK, f"{SHOWN}/loop"),
        (Code.SYMLINK, f"{SHOWN}/relative"),
    ]


def test_symlink_to_a_directory_is_refused_and_not_entered(tmp_path: Path) -> None:
    other = tmp_path / "other-attempt"
    write(other, "trials.jsonl", b'{"a": 1}\n')
    write(other, "deeper/freeze.yaml", b"x: 1\n")
    attempt = tmp_path / "attempt"
    write(attempt, "attempt.yaml", b"a: 1\n")
    (attempt / "raw-log").symlink_to(other, target_is_directory=True)
    entries, findings = scan(attempt, SHOWN)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file) for f in findings] == [(Code.SYMLINK, f"{SHOWN}/raw-log")]
    assert not any("trials.jsonl" in (f.file or "") for f in findings)


def test_symlinked_root_folder_is_not_listed_through_a_nested_link(tmp_path: Path) -> None:
    write(tmp_path, "a/b/c.txt", b"c")
    (tmp_path / "a" / "b" / "up").symlink_to(tmp_path, target_is_directory=True)
    entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["a/b/c.txt"]
    assert [(f.code, f.file) for f in findings] == [(Code.SYMLINK, f"{SHOWN}/a/b/up")]


def test_fifo_is_refused_and_never_opened(tmp_path: Path) -> None:
    write(tmp_path, "attempt.yaml", b"a: 1\n")
    os.mkfifo(tmp_path / "trials.jsonl")
    os.mkfifo(tmp_path / "raw-log-pipe")

    # Opening a FIFO with no writer blocks: turn such a hang into a failure, not a stuck run.
    def hung(signum: int, frame: object) -> None:
        raise AssertionError("scan_folder opened a FIFO")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        entries, findings = scan(tmp_path, SHOWN)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert list(entries) == ["attempt.yaml"]
    assert sorted((f.code, f.file) for f in findings) == [
        (Code.SPECIAL_FILE, f"{SHOWN}/raw-log-pipe"),
        (Code.SPECIAL_FILE, f"{SHOWN}/trials.jsonl"),
    ]
    assert all("not a regular file" in f.message for f in findings)


def test_unix_socket_is_a_special_file(tmp_path: Path) -> None:
    write(tmp_path, "attempt.yaml", b"a: 1\n")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(tmp_path / "sock"))
        entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file) for f in findings] == [(Code.SPECIAL_FILE, f"{SHOWN}/sock")]


@pytest.mark.parametrize(
    "name",
    [
        "caf\u00e9.yaml",
        "attempt\u200b.yaml",  # zero-width space
        "\u0430ttempt.yaml",  # Cyrillic a
        "trials\u202ejsonl",  # right-to-left override
        "with space.txt",
        "semi;colon",
        "-leading-dash",
        ".hidden",
        "x" * 129,
    ],
)
def test_bad_file_names_are_refused(tmp_path: Path, name: str) -> None:
    write(tmp_path, "ok.txt", b"ok")
    write(tmp_path, name, b"bad")
    entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["ok.txt"]
    assert [(f.code, f.file) for f in findings] == [(Code.ATTEMPT_LOCATION, f"{SHOWN}/{name}")]


def test_longest_allowed_name(tmp_path: Path) -> None:
    name = "x" * 128
    write(tmp_path, name, b"x")
    entries, findings = scan(tmp_path, SHOWN)
    assert (list(entries), findings) == ([name], [])


@pytest.mark.parametrize("name", [".git", ".gitattributes", ".github", ".gitmodules"])
def test_names_starting_with_dot_git_are_refused(tmp_path: Path, name: str) -> None:
    write(tmp_path, "attempt.yaml", b"a: 1\n")
    write(tmp_path, name, b"[core]\n")
    entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file) for f in findings] == [(Code.ATTEMPT_LOCATION, f"{SHOWN}/{name}")]


def test_a_refused_directory_is_not_entered(tmp_path: Path) -> None:
    write(tmp_path, ".git/config", b"[core]\n")
    write(tmp_path, ".git/hooks/pre-commit", b"#!/bin/sh\n")
    write(tmp_path, "d\u00e9j\u00e0/trials.jsonl", b"{}\n")
    write(tmp_path, "ok/trials.jsonl", b"{}\n")
    entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["ok/trials.jsonl"]
    assert sorted(f.file or "" for f in findings) == [
        f"{SHOWN}/.git",
        f"{SHOWN}/d\u00e9j\u00e0",
    ]


def test_bad_names_in_nested_folders_name_the_whole_path(tmp_path: Path) -> None:
    write(tmp_path, "raw-log/.gitignore", b"*\n")
    _, findings = scan(tmp_path, SHOWN)
    assert [(f.code, f.file) for f in findings] == [
        (Code.ATTEMPT_LOCATION, f"{SHOWN}/raw-log/.gitignore")
    ]


def test_file_count_cap(tmp_path: Path) -> None:
    for index in range(5):
        write(tmp_path, f"f{index}", b"x")
    entries, findings = scan(tmp_path, SHOWN, Limits(max_attempt_files=5))
    assert (len(entries), findings) == (5, [])
    write(tmp_path, "sub/f5", b"x")
    entries, findings = scan(tmp_path, SHOWN, Limits(max_attempt_files=5))
    assert len(entries) == 5
    assert [(f.code, f.file) for f in findings] == [(Code.TOO_MANY_FILES, SHOWN)]
    assert findings[0].message == "more than 5 files in the attempt folder"


def test_file_count_cap_default(tmp_path: Path) -> None:
    cap = Limits().max_attempt_files
    for index in range(cap + 10):
        write(tmp_path, f"d{index % 3}/f{index}", b"")
    entries, findings = scan(tmp_path, SHOWN)
    assert len(entries) == cap
    assert [f.code for f in findings] == [Code.TOO_MANY_FILES]


def test_file_size_cap(tmp_path: Path) -> None:
    write(tmp_path, "small", b"x" * 10)
    write(tmp_path, "big", b"x" * 11)
    entries, findings = scan(tmp_path, SHOWN, Limits(max_attempt_file_bytes=10))
    assert list(entries) == ["small"]
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_TOO_LARGE, f"{SHOWN}/big")]
    assert "11 bytes" in findings[0].message


def test_missing_folder_is_a_finding(tmp_path: Path) -> None:
    entries, findings = scan(tmp_path / "nope", SHOWN)
    assert entries == {}
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_MISSING, SHOWN)]


def _deny(monkeypatch: pytest.MonkeyPatch, path: Path, name: str = "open") -> None:
    """chmod 000 on `path`, and as root (which reads such files anyway) make `os.<name>`
    raise PermissionError for that path, as it would for any other user."""
    path.chmod(0)
    if os.geteuid() != 0:
        return
    real = getattr(os, name)

    def denied(target: object, *args: object, **kwargs: object) -> object:
        # FolderTree opens and lists relative to the parent folder's fd: match the name too.
        if os.fspath(target) in (os.fspath(path), path.name):  # type: ignore[arg-type]
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(path))
        return real(target, *args, **kwargs)

    monkeypatch.setattr(os, name, denied)


def test_unreadable_file_is_file_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the OS will not open is `file-unreadable`, not an exception. The tests run as
    root, where chmod 000 still reads: `os.open` is then made to raise EACCES for the file."""
    write(tmp_path, "ok", b"ok")
    write(tmp_path, "locked", b"x")
    _deny(monkeypatch, tmp_path / "locked")
    entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["ok"]
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_UNREADABLE, f"{SHOWN}/locked")]
    assert findings[0].message == "cannot read: Permission denied"


def test_unlistable_folder_is_file_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder the OS will not list is `file-unreadable`. As root, chmod 000 does not stop
    listing: `os.scandir` is then made to raise EACCES for the folder."""
    write(tmp_path, "ok", b"ok")
    write(tmp_path, "raw-log/harness.log", b"log")
    _deny(monkeypatch, tmp_path / "raw-log", "open")
    try:
        entries, findings = scan(tmp_path, SHOWN)
    finally:
        (tmp_path / "raw-log").chmod(0o755)
    assert list(entries) == ["ok"]
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_UNREADABLE, f"{SHOWN}/raw-log")]
    assert findings[0].message == "cannot list: Permission denied"


def test_file_gone_or_replaced_by_a_link_while_scanned(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A race simulated at the open: a file deleted after the listing is `file-missing`, one
    swapped for a link (O_NOFOLLOW gives ELOOP) is `symlink`; neither is `file-unreadable`."""
    write(tmp_path, "ok", b"ok")
    write(tmp_path, "gone", b"x")
    write(tmp_path, "swapped", b"x")
    real_hash = folder_module._hash

    def racing_hash(tree: Any, entry: Any, object_format: str) -> Any:
        if entry.name == "gone":
            raise TreeError(errno.ENOENT, "No such file or directory")
        if entry.name == "swapped":
            raise TreeError(errno.ELOOP, "Too many levels of symbolic links")
        return real_hash(tree, entry, object_format)

    monkeypatch.setattr(folder_module, "_hash", racing_hash)
    entries, findings = scan(tmp_path, SHOWN)
    assert list(entries) == ["ok"]
    assert [(f.code, f.file) for f in findings] == [
        (Code.FILE_MISSING, f"{SHOWN}/gone"),
        (Code.SYMLINK, f"{SHOWN}/swapped"),
    ]


def test_read_regular_caps_and_refuses_links(tmp_path: Path) -> None:
    write(tmp_path, "log", b"0123456789")
    assert read_regular(tmp_path / "log", 4) == b"0123"
    assert read_regular(tmp_path / "log", 100) == b"0123456789"
    (tmp_path / "link").symlink_to(tmp_path / "log")
    with pytest.raises(OSError):
        read_regular(tmp_path / "link", 100)

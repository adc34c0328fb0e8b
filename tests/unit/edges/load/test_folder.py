"""bot/edges/load/folder.py: scan an attempt folder without following links or opening special
files.

The folder is read through a `Tree`: a working tree (`FolderTree`) or a commit (`GitTree`);
both must give the same entries for the same files.
"""

from __future__ import annotations

import errno
import hashlib
import os
import signal
import socket
import stat
from pathlib import Path
from typing import Any

import git
import pytest

from bot.edges.load import folder as folder_module
from bot.edges.load.folder import read_regular, scan_folder
from bot.edges.tree import FolderTree, GitTree, Tree, TreeEntry, TreeError
from bot.vocab.commits import blob_id
from bot.vocab.config import Limits
from bot.vocab.files import FileEntry
from bot.vocab.findings import Code, Finding
from tests.support import scan as scan_shown
from tests.unit.gitrepo import at, commit, init_repo

SHOWN = "attempts/market-01/alice/a1"


def sha(data: bytes) -> str:
    return hashlib.sha256(data).hexdigest()


def entry(relative: str, data: bytes) -> FileEntry:
    """The entry a scan must give for `data`: size, SHA-256 and git blob id."""
    return FileEntry(relative, len(data), sha(data), blob_id(data))


def write(root: Path, relative: str, data: bytes) -> None:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


@pytest.fixture
def attempt(tmp_path: Path) -> Path:
    """The attempt folder SHOWN inside the tree rooted at tmp_path."""
    folder = tmp_path / SHOWN
    folder.mkdir(parents=True)
    return folder


def scan(root: Path, limits: Limits = Limits()) -> tuple[dict[str, FileEntry], list[Finding]]:
    """Scan SHOWN in the working tree at `root`; the scan must have reached every file."""
    entries, findings, complete = scan_folder(FolderTree(root), SHOWN, limits)
    assert complete
    return entries, findings


def test_regular_files_in_nested_folders(tmp_path: Path, attempt: Path) -> None:
    files = {
        "attempt.yaml": b"market: 1\n",
        "trials.jsonl": b"",
        "raw-log/head": b"h" * 5000,
        "raw-log/tail": b"t" * 3,
        "adapter/scripts/run_2.py": b"print('hi')\n",
        "adapter/adapter.yaml": b"command: x\n",
    }
    for relative, data in files.items():
        write(attempt, relative, data)
    (attempt / "empty-dir").mkdir()
    entries, findings = scan(tmp_path)
    assert findings == []
    assert entries == {relative: entry(relative, data) for relative, data in files.items()}
    assert entries["trials.jsonl"].sha256 == (
        "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
    )
    # git's id of the empty blob
    assert entries["trials.jsonl"].blob_id == "e69de29bb2d1d6434b8b29ae775ad8c2e48c5391"


def test_large_file_hash_is_over_all_chunks(tmp_path: Path, attempt: Path) -> None:
    data = bytes(range(256)) * 9000  # > 2 MiB, several read chunks
    write(attempt, "raw-log/log", data)
    entries, findings = scan(tmp_path)
    assert findings == []
    assert entries["raw-log/log"] == entry("raw-log/log", data)


def test_blob_ids_for_a_sha256_repository(tmp_path: Path, attempt: Path) -> None:
    data = b"x" * 10
    write(attempt, "f", data)
    entries, _, _ = scan_folder(FolderTree(tmp_path), SHOWN, object_format="sha256")
    assert entries["f"].blob_id == hashlib.sha256(b"blob 10\0" + data).hexdigest()
    assert entries["f"].blob_id == blob_id(data, "sha256")


def test_symlink_to_a_file_is_refused(tmp_path: Path, attempt: Path) -> None:
    outside = tmp_path / "outside"
    outside.mkdir()
    write(outside, "secret", b"secret\n")
    write(attempt, "attempt.yaml", b"a: 1\n")
    (attempt / "trials.jsonl").symlink_to(outside / "secret")
    entries, findings = scan(tmp_path)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file, f.line) for f in findings] == [
        (Code.SYMLINK, f"{SHOWN}/trials.jsonl", None)
    ]
    assert "secret" in findings[0].message


def test_dangling_and_relative_symlinks_are_refused(tmp_path: Path, attempt: Path) -> None:
    write(attempt, "real", b"x")
    (attempt / "dangling").symlink_to(attempt / "does-not-exist")
    (attempt / "relative").symlink_to("real")
    (attempt / "loop").symlink_to("loop")
    entries, findings = scan(tmp_path)
    assert list(entries) == ["real"]
    assert sorted((f.code, f.file) for f in findings) == [
        (Code.SYMLINK, f"{SHOWN}/dangling"),
        (Code.SYMLINK, f"{SHOWN}/loop"),
        (Code.SYMLINK, f"{SHOWN}/relative"),
    ]


def test_symlink_to_a_directory_is_refused_and_not_entered(tmp_path: Path, attempt: Path) -> None:
    other = tmp_path / "other-attempt"
    write(other, "trials.jsonl", b'{"a": 1}\n')
    write(other, "deeper/freeze.yaml", b"x: 1\n")
    write(attempt, "attempt.yaml", b"a: 1\n")
    (attempt / "raw-log").symlink_to(other, target_is_directory=True)
    entries, findings = scan(tmp_path)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file) for f in findings] == [(Code.SYMLINK, f"{SHOWN}/raw-log")]
    assert not any("trials.jsonl" in (f.file or "") for f in findings)


def test_symlinked_root_folder_is_not_listed_through_a_nested_link(
    tmp_path: Path, attempt: Path
) -> None:
    write(attempt, "a/b/c.txt", b"c")
    (attempt / "a" / "b" / "up").symlink_to(attempt, target_is_directory=True)
    entries, findings = scan(tmp_path)
    assert list(entries) == ["a/b/c.txt"]
    assert [(f.code, f.file) for f in findings] == [(Code.SYMLINK, f"{SHOWN}/a/b/up")]


def test_an_attempt_folder_reached_through_a_link_is_not_listed(tmp_path: Path) -> None:
    # attempts/market-01/alice is a link to a folder holding a1: no component is followed.
    write(tmp_path, "elsewhere/a1/attempt.yaml", b"a: 1\n")
    (tmp_path / "attempts" / "market-01").mkdir(parents=True)
    (tmp_path / "attempts" / "market-01" / "alice").symlink_to(
        tmp_path / "elsewhere", target_is_directory=True
    )
    entries, findings, _ = scan_folder(FolderTree(tmp_path), SHOWN)
    assert entries == {}
    assert [f.file for f in findings] == [SHOWN]
    assert findings[0].code in (Code.SYMLINK, Code.FILE_UNREADABLE)


def test_fifo_is_refused_and_never_opened(tmp_path: Path, attempt: Path) -> None:
    write(attempt, "attempt.yaml", b"a: 1\n")
    os.mkfifo(attempt / "trials.jsonl")
    os.mkfifo(attempt / "raw-log-pipe")

    # Opening a FIFO with no writer blocks: turn such a hang into a failure, not a stuck run.
    def hung(signum: int, frame: object) -> None:
        raise AssertionError("scan_folder opened a FIFO")

    previous = signal.signal(signal.SIGALRM, hung)
    signal.alarm(30)
    try:
        entries, findings = scan(tmp_path)
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)
    assert list(entries) == ["attempt.yaml"]
    assert sorted((f.code, f.file) for f in findings) == [
        (Code.SPECIAL_FILE, f"{SHOWN}/raw-log-pipe"),
        (Code.SPECIAL_FILE, f"{SHOWN}/trials.jsonl"),
    ]
    assert all("not a regular file" in f.message for f in findings)


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
def test_bad_file_names_are_refused(tmp_path: Path, attempt: Path, name: str) -> None:
    write(attempt, "ok.txt", b"ok")
    write(attempt, name, b"bad")
    entries, findings = scan(tmp_path)
    assert list(entries) == ["ok.txt"]
    assert [(f.code, f.file) for f in findings] == [(Code.ATTEMPT_LOCATION, f"{SHOWN}/{name}")]


def test_longest_allowed_name(tmp_path: Path, attempt: Path) -> None:
    name = "x" * 128
    write(attempt, name, b"x")
    entries, findings = scan(tmp_path)
    assert (list(entries), findings) == ([name], [])


@pytest.mark.parametrize("name", [".git", ".gitattributes", ".github", ".gitmodules"])
def test_names_starting_with_dot_git_are_refused(tmp_path: Path, attempt: Path, name: str) -> None:
    write(attempt, "attempt.yaml", b"a: 1\n")
    write(attempt, name, b"[core]\n")
    entries, findings = scan(tmp_path)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file) for f in findings] == [(Code.ATTEMPT_LOCATION, f"{SHOWN}/{name}")]


def test_a_refused_directory_is_not_entered(tmp_path: Path, attempt: Path) -> None:
    write(attempt, ".git/config", b"[core]\n")
    write(attempt, ".git/hooks/pre-commit", b"#!/bin/sh\n")
    write(attempt, "d\u00e9j\u00e0/trials.jsonl", b"{}\n")
    write(attempt, "ok/trials.jsonl", b"{}\n")
    entries, findings = scan(tmp_path)
    assert list(entries) == ["ok/trials.jsonl"]
    assert sorted(f.file or "" for f in findings) == [
        f"{SHOWN}/.git",
        f"{SHOWN}/d\u00e9j\u00e0",
    ]


def test_bad_names_in_nested_folders_name_the_whole_path(tmp_path: Path, attempt: Path) -> None:
    write(attempt, "raw-log/.gitignore", b"*\n")
    _, findings = scan(tmp_path)
    assert [(f.code, f.file) for f in findings] == [
        (Code.ATTEMPT_LOCATION, f"{SHOWN}/raw-log/.gitignore")
    ]


def test_file_count_cap(tmp_path: Path, attempt: Path) -> None:
    for index in range(5):
        write(attempt, f"f{index}", b"x")
    entries, findings = scan(tmp_path, Limits(max_attempt_files=5))
    assert (len(entries), findings) == (5, [])
    write(attempt, "sub/f5", b"x")
    entries, findings, complete = scan_folder(
        FolderTree(tmp_path), SHOWN, Limits(max_attempt_files=5)
    )
    assert complete is False
    assert len(entries) == 5
    assert [(f.code, f.file) for f in findings] == [(Code.TOO_MANY_FILES, SHOWN)]
    assert "more than 5 files" in findings[0].message


def test_file_count_cap_default(tmp_path: Path, attempt: Path) -> None:
    cap = Limits().max_attempt_files
    for index in range(cap + 10):
        write(attempt, f"d{index % 3}/f{index}", b"")
    entries, findings, complete = scan_folder(FolderTree(tmp_path), SHOWN)
    assert complete is False
    assert len(entries) == cap
    assert [f.code for f in findings] == [Code.TOO_MANY_FILES]


def test_file_size_cap(tmp_path: Path, attempt: Path) -> None:
    write(attempt, "small", b"x" * 10)
    write(attempt, "big", b"x" * 11)
    entries, findings = scan(tmp_path, Limits(max_attempt_file_bytes=10))
    assert list(entries) == ["small"]
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_TOO_LARGE, f"{SHOWN}/big")]
    assert "11 bytes" in findings[0].message


def test_missing_folder_is_a_finding(tmp_path: Path) -> None:
    entries, findings = scan(tmp_path)
    assert entries == {}
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_MISSING, SHOWN)]


def test_a_file_where_the_folder_should_be_is_a_finding(tmp_path: Path) -> None:
    write(tmp_path, SHOWN, b"not a folder")
    entries, findings = scan(tmp_path)
    assert entries == {}
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_UNREADABLE, SHOWN)]


@pytest.mark.parametrize(
    ("error", "code", "words"),
    [
        (TreeError(errno.EACCES, "Permission denied", "x"), Code.FILE_UNREADABLE, "Permission"),
        # a file swapped for a link after the listing: O_NOFOLLOW refuses it with ELOOP
        (TreeError(errno.ELOOP, "Too many levels", "x"), Code.SYMLINK, "symbolic link"),
        (TreeError(errno.ENOENT, "No such file", "x"), Code.FILE_MISSING, "not found"),
    ],
)
def test_unreadable_file_is_a_finding_not_an_exception(
    tmp_path: Path,
    attempt: Path,
    monkeypatch: pytest.MonkeyPatch,
    error: TreeError,
    code: Code,
    words: str,
) -> None:
    # As root, chmod 000 still reads; simulate the open failing (EACCES, ELOOP for a file
    # swapped for a link after the listing, ENOENT for one deleted since).
    write(attempt, "ok", b"ok")
    write(attempt, "locked", b"x")
    real_hash = folder_module._hash

    def failing_hash(tree: Tree, child: TreeEntry, object_format: str) -> tuple[int, str, str]:
        if child.name == "locked":
            raise error
        return real_hash(tree, child, object_format)

    monkeypatch.setattr(folder_module, "_hash", failing_hash)
    entries, findings = scan(tmp_path)
    assert list(entries) == ["ok"]
    assert [(f.code, f.file) for f in findings] == [(code, f"{SHOWN}/locked")]
    assert words in findings[0].message


def test_read_regular_caps_and_refuses_links(tmp_path: Path) -> None:
    write(tmp_path, "log", b"0123456789")
    assert read_regular(tmp_path / "log", 4) == b"0123"
    assert read_regular(tmp_path / "log", 100) == b"0123456789"
    (tmp_path / "link").symlink_to(tmp_path / "log")
    with pytest.raises(OSError):
        read_regular(tmp_path / "link", 100)


# ---- the same folder read from a commit -----------------------------------------------------

FILES = {
    "attempt.yaml": b"market: 1\n",
    "trials.jsonl": b"",
    "freeze-cases.jsonl": b'{"case_id": "c1"}\r\n{"case_id": "c2"}\n',  # CRLF kept as is
    "raw-log/head": bytes(range(256)) * 5000,  # binary, > 1 MiB: several chunks
    "raw-log/tail": b"t" * 3,
    "adapter/scripts/run_2.py": b"#!/bin/sh\necho hi\n",
    "adapter/adapter.yaml": b"command: x\n",
}


def _committed(tmp_path: Path, files: dict[str, bytes]) -> git.Repo:
    """A repository at tmp_path/repo with `files` committed under SHOWN (one executable)."""
    repo = init_repo(tmp_path / "repo")
    for relative, data in files.items():
        write(tmp_path / "repo" / SHOWN, relative, data)
    script = tmp_path / "repo" / SHOWN / "adapter/scripts/run_2.py"
    if script.exists():
        script.chmod(script.stat().st_mode | stat.S_IXUSR)
    repo.git.add("-A")
    commit(repo, "attempt", at(1))
    return repo


def test_a_commit_and_its_checkout_give_identical_entries(tmp_path: Path) -> None:
    repo = _committed(tmp_path, FILES)
    from_folder, folder_findings, folder_complete = scan_folder(
        FolderTree(tmp_path / "repo"), SHOWN
    )
    from_git, git_findings, git_complete = scan_folder(GitTree(repo, "HEAD"), SHOWN)
    assert (folder_findings, git_findings) == ([], [])
    assert folder_complete and git_complete
    assert from_git == from_folder
    assert from_git == {relative: entry(relative, data) for relative, data in FILES.items()}
    # The blob ids are git's own, whichever tree computed them.
    for relative, found in from_folder.items():
        assert found.blob_id == repo.git.rev_parse(f"HEAD:{SHOWN}/{relative}")


def test_a_commit_is_read_from_git_objects_not_the_working_tree(tmp_path: Path) -> None:
    repo = _committed(tmp_path, {"attempt.yaml": b"market: 1\n"})
    write(tmp_path / "repo" / SHOWN, "attempt.yaml", b"market: 2\n")  # edited after the commit
    write(tmp_path / "repo" / SHOWN, "untracked.txt", b"x")
    entries, findings, _ = scan_folder(GitTree(repo, "HEAD"), SHOWN)
    assert findings == []
    assert entries == {"attempt.yaml": entry("attempt.yaml", b"market: 1\n")}


def test_a_commit_under_a_prefix_gives_the_same_entries(tmp_path: Path) -> None:
    repo = init_repo(tmp_path / "repo")
    write(tmp_path / "repo" / "registry" / SHOWN, "attempt.yaml", b"market: 1\n")
    write(tmp_path / "repo", SHOWN + "/attempt.yaml", b"outside the registry\n")
    repo.git.add("-A")
    commit(repo, "attempt", at(1))
    entries, findings, _ = scan_folder(GitTree(repo, "HEAD", prefix="registry"), SHOWN)
    assert findings == []
    assert entries == {"attempt.yaml": entry("attempt.yaml", b"market: 1\n")}


def test_a_commit_reports_symlinks_and_submodules_without_following_them(
    tmp_path: Path,
) -> None:
    repo = _committed(tmp_path, {"attempt.yaml": b"a: 1\n"})
    root = tmp_path / "repo"
    write(root, "secret/key", b"secret\n")
    write(root, "other/trials.jsonl", b'{"a": 1}\n')
    (root / SHOWN / "trials.jsonl").symlink_to("../../../../secret/key")
    (root / SHOWN / "raw-log").symlink_to("../../../../other", target_is_directory=True)
    repo.git.add("-A")
    first = commit(repo, "links", at(2))
    # A gitlink (mode 160000): a submodule pointing at some commit, with no .gitmodules.
    repo.git.update_index("--add", "--cacheinfo", f"160000,{first},{SHOWN}/vendored")
    commit(repo, "submodule", at(3))

    tree = GitTree(repo, "HEAD")
    kinds = {child.name: (child.kind, child.mode) for child in tree.children(SHOWN)}
    assert kinds == {
        "attempt.yaml": ("file", "100644"),
        "raw-log": ("symlink", "120000"),
        "trials.jsonl": ("symlink", "120000"),
        "vendored": ("submodule", "160000"),
    }
    entries, findings, complete = scan_folder(tree, SHOWN)
    assert complete
    assert list(entries) == ["attempt.yaml"]
    assert sorted((f.file, f.code) for f in findings) == [
        (f"{SHOWN}/raw-log", Code.SYMLINK),
        (f"{SHOWN}/trials.jsonl", Code.SYMLINK),
        (f"{SHOWN}/vendored", Code.SUBMODULE),
    ]
    link = next(f for f in findings if f.file == f"{SHOWN}/trials.jsonl")
    assert "secret/key" in link.message  # the link's target, as text: never read
    # Not followed: nothing behind the links or inside the submodule can be opened or listed.
    with pytest.raises(TreeError) as raised:
        tree.open(f"{SHOWN}/trials.jsonl")
    assert raised.value.errno == errno.ELOOP
    for path in (f"{SHOWN}/raw-log/trials.jsonl", f"{SHOWN}/vendored/attempt.yaml"):
        assert tree.entry(path) is None
        with pytest.raises(TreeError):
            tree.open(path)
    for folder in (f"{SHOWN}/raw-log", f"{SHOWN}/vendored"):
        with pytest.raises(TreeError):
            tree.children(folder)


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
    entries, findings = scan_shown(tmp_path, SHOWN)
    assert list(entries) == ["ok"]
    assert [(f.code, f.file) for f in findings] == [
        (Code.FILE_MISSING, f"{SHOWN}/gone"),
        (Code.SYMLINK, f"{SHOWN}/swapped"),
    ]


def test_unix_socket_is_a_special_file(tmp_path: Path) -> None:
    write(tmp_path, "attempt.yaml", b"a: 1\n")
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as server:
        server.bind(str(tmp_path / "sock"))
        entries, findings = scan_shown(tmp_path, SHOWN)
    assert list(entries) == ["attempt.yaml"]
    assert [(f.code, f.file) for f in findings] == [(Code.SPECIAL_FILE, f"{SHOWN}/sock")]


def test_unlistable_folder_is_file_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A folder the OS will not list is `file-unreadable`. As root, chmod 000 does not stop
    listing: `os.scandir` is then made to raise EACCES for the folder."""
    write(tmp_path, "ok", b"ok")
    write(tmp_path, "raw-log/harness.log", b"log")
    _deny(monkeypatch, tmp_path / "raw-log", "open")
    try:
        entries, findings = scan_shown(tmp_path, SHOWN)
    finally:
        (tmp_path / "raw-log").chmod(0o755)
    assert list(entries) == ["ok"]
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_UNREADABLE, f"{SHOWN}/raw-log")]
    assert findings[0].message == "cannot list: Permission denied"


def test_unreadable_file_is_file_unreadable(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A file the OS will not open is `file-unreadable`, not an exception. The tests run as
    root, where chmod 000 still reads: `os.open` is then made to raise EACCES for the file."""
    write(tmp_path, "ok", b"ok")
    write(tmp_path, "locked", b"x")
    _deny(monkeypatch, tmp_path / "locked")
    entries, findings = scan_shown(tmp_path, SHOWN)
    assert list(entries) == ["ok"]
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_UNREADABLE, f"{SHOWN}/locked")]
    assert findings[0].message == "cannot read: Permission denied"


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


def test_blob_id_when_the_file_grew_after_the_listing(tmp_path: Path) -> None:
    """The blob id's header takes the listed size; a file that changed size since the listing
    is hashed again, so the id is still git's id of what was read."""
    (tmp_path / "f").write_bytes(b"before")
    tree = FolderTree(tmp_path)
    listed = tree.entry("f")
    assert listed is not None
    (tmp_path / "f").write_bytes(b"after, longer")
    size, sha256, blob = folder_module._hash(tree, listed, "sha1")
    assert (size, sha256, blob) == (13, sha(b"after, longer"), blob_id(b"after, longer"))


def test_a_large_file_is_hashed_in_one_pass_without_keeping_it(tmp_path: Path) -> None:
    data = os.urandom(3 * 2**20 + 5)
    (tmp_path / "f").write_bytes(data)
    tree = FolderTree(tmp_path)
    opened = []
    original = tree.open

    def counting_open(path: str) -> Any:
        opened.append(path)
        return original(path)

    tree.open = counting_open  # type: ignore[method-assign]
    listed = tree.entry("f")
    assert listed is not None
    assert folder_module._hash(tree, listed, "sha1") == (len(data), sha(data), blob_id(data))
    assert opened == ["f"]

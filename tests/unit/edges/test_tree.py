"""bot/edges/tree.py: a working tree read without following any link, and a commit read from git."""

from __future__ import annotations

import errno
import os
import signal
import stat
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import git
import pytest

from bot.edges.tree import FolderTree, GitTree, TreeEntry, TreeError, read_limited
from tests.unit.gitrepo import at, commit, init_repo


def write(root: Path, relative: str, data: bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


class Hung(Exception):
    """A call that should have returned at once was still blocked when the alarm rang."""


@contextmanager
def deadline(seconds: int) -> Iterator[None]:
    """Raise `Hung` in the block if it takes longer than `seconds` (a blocking open)."""

    def ring(signum: int, frame: object) -> None:
        raise Hung(f"still blocked after {seconds} s")

    previous = signal.signal(signal.SIGALRM, ring)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, previous)


# ---- FolderTree -----------------------------------------------------------------------------


@pytest.fixture
def folder(tmp_path: Path) -> FolderTree:
    """a/real/f (a file), a/link -> real, a/flink -> real/f, a/run.sh (executable), a/pipe."""
    write(tmp_path, "a/real/f", b"hello\n")
    (tmp_path / "a" / "link").symlink_to("real", target_is_directory=True)
    (tmp_path / "a" / "flink").symlink_to("real/f")
    script = write(tmp_path, "a/run.sh", b"#!/bin/sh\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    os.mkfifo(tmp_path / "a" / "pipe")
    return FolderTree(tmp_path)


def test_folder_tree_reads_a_file(folder: FolderTree) -> None:
    with folder.open("a/real/f") as stream:
        assert stream.read() == b"hello\n"
    assert read_limited(folder, "a/real/f", 3) == b"hel"
    assert read_limited(folder, "a/real/f", 100) == b"hello\n"
    assert folder.label == f"working tree {folder.root}"


def test_folder_tree_refuses_a_symlinked_intermediate_folder(folder: FolderTree) -> None:
    # a/link/f is a/real/f through a link: no component of a path is ever followed.
    with pytest.raises(TreeError) as raised:
        folder.open("a/link/f")
    assert raised.value.errno == errno.ELOOP  # a linked folder is the link it is
    assert folder.entry("a/link/f") is None
    with pytest.raises(TreeError):
        folder.children("a/link")


def test_folder_tree_refuses_to_open_a_symlink(folder: FolderTree, tmp_path: Path) -> None:
    (tmp_path / "a" / "dangling").symlink_to("nowhere")
    for path in ("a/flink", "a/link", "a/dangling"):
        with pytest.raises(TreeError) as raised:
            folder.open(path)
        assert raised.value.errno == errno.ELOOP, path
    assert folder.readlink("a/flink") == "real/f"


def test_folder_tree_children_have_their_kinds(folder: FolderTree) -> None:
    children = folder.children("a")
    assert [child.name for child in children] == ["flink", "link", "pipe", "real", "run.sh"]
    found = {child.path: (child.kind, child.mode, child.size) for child in children}
    assert found == {
        "a/flink": ("symlink", "120000", len("real/f")),
        "a/link": ("symlink", "120000", len("real")),
        "a/pipe": ("special", found["a/pipe"][1], None),
        "a/real": ("folder", "040000", None),
        "a/run.sh": ("file", "100755", len(b"#!/bin/sh\n")),
    }
    assert stat.S_ISFIFO(int(found["a/pipe"][1], 8))
    assert folder.children("a/real") == [TreeEntry("a/real/f", "file", "100644", 6)]
    assert [child.path for child in folder.children("")] == ["a"]


def test_folder_tree_entries_never_follow_links(folder: FolderTree) -> None:
    assert folder.entry("") == TreeEntry("", "folder", "040000")
    assert folder.entry("a/real/f") == TreeEntry("a/real/f", "file", "100644", 6)
    link = folder.entry("a/flink")
    assert link is not None and link.kind == "symlink"
    pipe = folder.entry("a/pipe")
    assert pipe is not None and pipe.kind == "special"
    assert folder.entry("a/nothing") is None


def test_folder_tree_refuses_folders_missing_files_and_paths_outside(folder: FolderTree) -> None:
    for path, code in [
        ("a/real", errno.EISDIR),
        ("", errno.EISDIR),
        ("a/missing", errno.ENOENT),
        ("../outside", errno.EINVAL),
        ("a/../../outside", errno.EINVAL),
        ("/etc/passwd", errno.EINVAL),
    ]:
        with pytest.raises(TreeError) as raised:
            folder.open(path)
        assert raised.value.errno == code, path
    with pytest.raises(TreeError) as raised:
        folder.children("a/real/f")
    assert raised.value.errno == errno.ENOTDIR
    with pytest.raises(TreeError) as raised:
        folder.children("a/missing")
    assert raised.value.errno == errno.ENOENT


def test_folder_tree_refuses_a_fifo_without_blocking(folder: FolderTree) -> None:
    # Loaders call `open` on paths they did not list (shared-rules, challenge runs), and a
    # listed file may be swapped for a FIFO: `open` itself must not hang on one.
    with deadline(2), pytest.raises(TreeError):
        folder.open("a/pipe")


# ---- GitTree --------------------------------------------------------------------------------

TEXT = b"line1\r\nline2\n\x00\xff\xfe no final newline"
BIG = bytes(range(256)) * 6000  # > 1 MiB: more than one chunk


@pytest.fixture
def repo(tmp_path: Path) -> git.Repo:
    """A commit holding a text file, a big binary, an executable, a link and a submodule."""
    repository = init_repo(tmp_path / "repo")
    root = tmp_path / "repo"
    write(root, "a.txt", TEXT)
    write(root, "dir/sub/big.bin", BIG)
    script = write(root, "dir/run.sh", b"#!/bin/sh\n")
    script.chmod(script.stat().st_mode | stat.S_IXUSR)
    (root / "link").symlink_to("a.txt")
    repository.git.add("-A")
    first = commit(repository, "files", at(1))
    repository.git.update_index("--add", "--cacheinfo", f"160000,{first},vendored")
    commit(repository, "submodule", at(2))
    return repository


def test_git_tree_reads_a_committed_file_exactly(repo: git.Repo) -> None:
    tree = GitTree(repo, "HEAD")
    with tree.open("a.txt") as stream:
        assert stream.read() == TEXT
    with tree.open("dir/sub/big.bin") as stream:
        parts = []
        while chunk := stream.read(100_000):
            parts.append(chunk)
    assert b"".join(parts) == BIG
    assert read_limited(tree, "dir/sub/big.bin", 10) == BIG[:10]
    assert tree.label == f"git commit {repo.head.commit.hexsha[:12]}"
    assert tree.commit == repo.head.commit.hexsha


def test_git_tree_stream_readline(repo: git.Repo) -> None:
    with GitTree(repo, "HEAD").open("a.txt") as stream:
        assert stream.readline() == b"line1\r\n"
        assert stream.readline(3) == b"lin"
        assert stream.readline() == b"e2\n"
        assert stream.readline() == b"\x00\xff\xfe no final newline"
        assert stream.readline() == b""
        assert stream.read() == b""


def test_git_tree_stream_left_half_read_does_not_upset_the_next(repo: git.Repo) -> None:
    # Blobs come through one persistent `git cat-file --batch`: a stream closed early must
    # not leave the rest of its blob to be read as the next file.
    tree = GitTree(repo, "HEAD")
    with tree.open("dir/sub/big.bin") as stream:
        assert stream.read(10) == BIG[:10]
    with tree.open("a.txt") as stream:
        assert stream.readline() == b"line1\r\n"
    with tree.open("dir/run.sh") as stream:
        assert stream.read() == b"#!/bin/sh\n"


def test_git_tree_entries_have_kinds_modes_sizes_and_blob_ids(repo: git.Repo) -> None:
    tree = GitTree(repo, "main")

    def blob(path: str) -> str:
        return str(repo.git.rev_parse(f"HEAD:{path}"))

    assert [child.name for child in tree.children("")] == ["a.txt", "dir", "link", "vendored"]
    assert tree.entry("a.txt") == TreeEntry("a.txt", "file", "100644", len(TEXT), blob("a.txt"))
    assert tree.entry("dir/run.sh") == TreeEntry(
        "dir/run.sh", "file", "100755", 10, blob("dir/run.sh")
    )
    assert tree.entry("link") == TreeEntry("link", "symlink", "120000", 5, blob("link"))
    vendored = tree.entry("vendored")
    assert vendored is not None
    assert (vendored.kind, vendored.mode) == ("submodule", "160000")
    folder = tree.entry("dir")
    assert folder is not None and (folder.kind, folder.mode) == ("folder", "040000")
    assert [child.path for child in tree.children("dir")] == ["dir/run.sh", "dir/sub"]
    assert tree.entry("") == TreeEntry("", "folder", "040000")
    assert tree.entry("missing") is None
    assert tree.readlink("link") == "a.txt"


def test_git_tree_refuses_links_submodules_folders_and_missing_files(repo: git.Repo) -> None:
    tree = GitTree(repo, "HEAD")
    for path, code in [
        ("link", errno.ELOOP),
        ("vendored", errno.EISDIR),
        ("dir", errno.EISDIR),
        ("missing", errno.ENOENT),
        ("../a.txt", errno.EINVAL),
    ]:
        with pytest.raises(TreeError) as raised:
            tree.open(path)
        assert raised.value.errno == code, path
    for path in ("a.txt", "vendored", "link", "missing"):
        with pytest.raises(TreeError) as raised:
            tree.children(path)
        assert raised.value.errno == errno.ENOTDIR, path


def test_git_tree_reads_the_commit_not_the_working_tree(repo: git.Repo, tmp_path: Path) -> None:
    first = repo.head.commit.hexsha
    write(tmp_path / "repo", "a.txt", b"changed on disk\n")
    write(tmp_path / "repo", "new.txt", b"untracked\n")
    tree = GitTree(repo, first)
    assert read_limited(tree, "a.txt", 1000) == TEXT
    assert tree.entry("new.txt") is None
    repo.git.add("-A")
    commit(repo, "change", at(3))
    assert read_limited(GitTree(repo, "HEAD"), "a.txt", 1000) == b"changed on disk\n"
    assert read_limited(GitTree(repo, first), "a.txt", 1000) == TEXT


def test_git_tree_under_a_prefix(repo: git.Repo) -> None:
    tree = GitTree(repo, "HEAD", prefix="dir/")
    assert [child.path for child in tree.children("")] == ["run.sh", "sub"]
    assert read_limited(tree, "sub/big.bin", 4) == BIG[:4]
    assert tree.entry("a.txt") is None

"""bot/edges/load/records.py: a JSONL file read from a tree, links refused, capped whole."""

from __future__ import annotations

import io
from pathlib import Path

import pytest

from bot.edges.load.records import load_jsonl
from bot.edges.tree import FolderTree, GitTree
from bot.vocab.config import Limits
from bot.vocab.findings import Code
from bot.vocab.jsonl import parse_jsonl
from tests.support import deny_open, load_file
from tests.unit.gitrepo import at, commit, init_repo

PATH = "attempts/market-01/alice/a1/trials.jsonl"
GOOD = b'{"case_id": "c1", "n": 1}\n'


# --- load_jsonl ----------------------------------------------------------------------------


def _tree(root: Path, files: dict[str, bytes]) -> FolderTree:
    for relative, data in files.items():
        (root / relative).parent.mkdir(parents=True, exist_ok=True)
        (root / relative).write_bytes(data)
    return FolderTree(root)


def test_load_jsonl_reads_a_file(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {PATH: b'{"a": 1}\r\n{"a": NaN}\r\n{"b": 2}'})
    records, findings = load_jsonl(tree, PATH)
    assert [(r.line, r.data) for r in records] == [(1, {"a": 1}), (3, {"b": 2})]
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.JSONL_INVALID, PATH, 2)]


def test_load_jsonl_reads_a_committed_file(tmp_path: Path) -> None:
    # The same bytes read from git objects (GitTree's stream, line by line) give the same result.
    raw = b'{"a": 1}\r\n{"a": NaN}\r\n' + b'{"long": "' + b"x" * 200 + b'"}\n{"b": 2}'
    _tree(tmp_path, {PATH: raw})
    repo = init_repo(tmp_path)
    repo.git.add("-A")
    commit(repo, "trials", at(1))
    limits = Limits(max_jsonl_line_bytes=100)
    from_git = load_jsonl(GitTree(repo, "HEAD"), PATH, limits)
    assert from_git == load_jsonl(FolderTree(tmp_path), PATH, limits)
    records, findings = from_git
    assert [(r.line, r.data) for r in records] == [(1, {"a": 1}), (4, {"b": 2})]
    assert [(f.code, f.line) for f in findings] == [
        (Code.JSONL_INVALID, 2),
        (Code.JSONL_INVALID, 3),
    ]


def test_load_jsonl_missing_file(tmp_path: Path) -> None:
    records, findings = load_jsonl(FolderTree(tmp_path), PATH)
    assert records == []
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_MISSING, PATH, None)]


def test_load_jsonl_whole_file_cap(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {PATH: GOOD * 10})
    records, findings = load_jsonl(tree, PATH, Limits(max_jsonl_bytes=len(GOOD) * 10 - 1))
    assert records == []
    assert [(f.code, f.line) for f in findings] == [(Code.JSONL_INVALID, None)]
    records, findings = load_jsonl(tree, PATH, Limits(max_jsonl_bytes=len(GOOD) * 10))
    assert (len(records), findings) == (10, [])


def test_load_jsonl_a_directory(tmp_path: Path) -> None:
    (tmp_path / PATH).mkdir(parents=True)
    records, findings = load_jsonl(FolderTree(tmp_path), PATH)
    assert records == []
    assert [(f.code, f.file) for f in findings] == [(Code.FILE_UNREADABLE, PATH)]


def test_load_jsonl_refuses_a_symlink(tmp_path: Path) -> None:
    tree = _tree(tmp_path, {"secret.jsonl": GOOD})
    (tmp_path / PATH).parent.mkdir(parents=True)
    (tmp_path / PATH).symlink_to(tmp_path / "secret.jsonl")
    records, findings = load_jsonl(tree, PATH)
    assert records == []
    assert [(f.code, f.file) for f in findings] == [(Code.SYMLINK, PATH)]


def test_nesting_over_the_cap_and_lone_surrogates_are_refused() -> None:
    deep = b'{"a":' + b"[" * 70 + b"]" * 70 + b"}"
    lines = [deep, b'{"x": "\\ud800"}', b'{"\\udfff": 1}', b'{"ok": "\\ud83d\\ude00"}']
    records, findings = parse_jsonl(io.BytesIO(b"\n".join(lines) + b"\n"), "t.jsonl")
    assert [record.line for record in records] == [4]
    assert records[0].data == {"ok": "\U0001f600"}
    assert [(f.line, f.message) for f in findings] == [
        (1, "nested deeper than 64 levels"),
        (2, "a lone surrogate escape (\\uD800-\\uDFFF) is not text"),
        (3, "a lone surrogate escape (\\uD800-\\uDFFF) is not text"),
    ]


def test_load_jsonl_a_directory_is_not_readable(tmp_path: Path) -> None:
    records, findings = load_file(load_jsonl, tmp_path, PATH)
    assert records == []
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_UNREADABLE, PATH, None)]
    assert findings[0].message == "cannot read: Is a directory"


def test_load_jsonl_unreadable_file(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file that exists but cannot be opened is `file-unreadable`, not `file-missing`. The
    tests run as root, where chmod 000 still reads: the open is made to fail instead."""
    file = tmp_path / "trials.jsonl"
    file.write_bytes(GOOD)
    deny_open(monkeypatch, file)
    records, findings = load_file(load_jsonl, file, PATH)
    assert records == []
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_UNREADABLE, PATH, None)]
    assert findings[0].message == "cannot read: Permission denied"

"""bot/faces/site/publish.py: the site is swapped in whole, or not at all."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

import bot.faces.site.publish as publish
from bot.faces.site.publish import publish_site
from bot.vocab.errors import ClaimsError


def _tree(folder: Path) -> dict[str, bytes]:
    return {
        p.relative_to(folder).as_posix(): p.read_bytes() for p in folder.rglob("*") if p.is_file()
    }


def _siblings(folder: Path) -> list[str]:
    return sorted(p.name for p in folder.parent.iterdir() if p.name != folder.name)


def test_a_new_site_replaces_the_old_one_whole(tmp_path: Path) -> None:
    out = tmp_path / "site"
    publish_site({"index.html": b"old", "gone/page.html": b"old page"}, out)
    publish_site({"index.html": b"new", "a/b/c.txt": b"deep"}, out)
    assert _tree(out).keys() == {"index.html", "a/b/c.txt", ".claims-site"}
    assert _tree(out)["a/b/c.txt"] == b"deep"
    assert _siblings(out) == []
    assert oct(out.stat().st_mode & 0o777) == oct(0o755)


def test_a_failure_while_writing_leaves_the_old_site(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    publish_site({"index.html": b"old"}, out)
    written: list[str] = []
    real_open = open

    def failing_open(path: object, mode: str = "r", *args: object, **kwargs: object) -> object:
        if "b" in mode and "x" in mode:
            written.append(str(path))
            if len(written) == 3:
                raise OSError(28, "No space left on device")
        return real_open(path, mode, *args, **kwargs)  # type: ignore[call-overload]

    monkeypatch.setattr("builtins.open", failing_open)
    files = {f"page-{n}.html": b"new" for n in range(5)}
    with pytest.raises(ClaimsError, match="No space left"):
        publish_site(files, out)
    monkeypatch.undo()
    assert len(written) == 3
    assert _tree(out)["index.html"] == b"old" and len(_tree(out)) == 2
    assert _siblings(out) == []  # the half-written folder is gone


def test_a_failed_swap_puts_the_old_site_back(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    out = tmp_path / "site"
    publish_site({"index.html": b"old"}, out)
    renames: list[tuple[str, str]] = []
    real_rename = os.rename

    def rename(source: str | Path, target: str | Path) -> None:
        renames.append((Path(source).name, Path(target).name))
        if len(renames) == 2:  # the new folder into place
            raise OSError(13, "Permission denied")
        real_rename(source, target)

    monkeypatch.setattr(publish.os, "rename", rename)
    with pytest.raises(ClaimsError, match="Permission denied"):
        publish_site({"index.html": b"new"}, out)
    assert len(renames) == 3 and renames[2][1] == "site"  # the old site renamed back
    assert _tree(out)["index.html"] == b"old" and len(_tree(out)) == 2
    assert _siblings(out) == []


@pytest.mark.parametrize("path", ["../escape.html", "/etc/passwd", "a/../../b", "", "a//b"])
def test_a_path_outside_the_site_is_refused(tmp_path: Path, path: str) -> None:
    out = tmp_path / "site"
    with pytest.raises(ClaimsError, match="unsafe path"):
        publish_site({"index.html": b"x", path: b"y"}, out)
    assert not out.exists()
    assert _siblings(out) == []


def test_out_must_be_a_folder(tmp_path: Path) -> None:
    file = tmp_path / "site"
    file.write_text("not a folder")
    with pytest.raises(ClaimsError, match="not a folder"):
        publish_site({"index.html": b"x"}, file)
    link = tmp_path / "link"
    link.symlink_to(tmp_path / "elsewhere", target_is_directory=True)
    with pytest.raises(ClaimsError, match="not a folder"):
        publish_site({"index.html": b"x"}, link)
    assert file.read_text() == "not a folder"


def test_a_folder_no_site_was_built_in_is_never_replaced(tmp_path: Path) -> None:
    registry = tmp_path / "registry"
    (registry / "attempts").mkdir(parents=True)
    (registry / "shared-rules.yaml").write_text("rules")
    with pytest.raises(ClaimsError, match="no site that claims built"):
        publish_site({"index.html": b"x"}, registry)
    assert (registry / "shared-rules.yaml").read_text() == "rules"
    assert _siblings(registry) == []
    empty = tmp_path / "empty"
    empty.mkdir()
    publish_site({"index.html": b"x"}, empty)  # an empty folder is fine
    assert (empty / "index.html").read_bytes() == b"x"

"""The job's push credentials: the token reaches `git push` / `git ls-remote` only as an HTTP
header set in their environment (GIT_CONFIG_COUNT/KEY_0/VALUE_0), never in .git/config, a
command line or an error message."""

from __future__ import annotations

import base64
import threading
from collections.abc import Iterator
from datetime import UTC, datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import ClassVar

import git
import pytest

from bot.faces.jobs.gitops import Git
from bot.vocab.errors import ClaimsError
from tests.unit.gitrepo import init_repo

TOKEN = "ghs_0123456789abcdefTOKENxyz"
BASIC = base64.b64encode(f"x-access-token:{TOKEN}".encode()).decode()
MOMENT = datetime(2027, 9, 1, 3, 17, tzinfo=UTC)


def _repository(root: Path) -> git.Repo:
    repo = init_repo(root)
    (root / "README.md").write_text("registry\n")
    repo.index.add(["README.md"])
    repo.index.commit("start")
    return repo


def _on_disk(root: Path) -> str:
    """Everything git keeps in the repository's .git folder, as text."""
    return "\n".join(
        path.read_bytes().decode("latin-1") for path in (root / ".git").rglob("*") if path.is_file()
    )


def test_the_header_is_in_the_environment_only(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "registry")
    assert Git(repo, "main").auth_environment() == {"GIT_TERMINAL_PROMPT": "0"}
    assert Git(repo, "main", push_token=TOKEN).auth_environment() == {
        "GIT_TERMINAL_PROMPT": "0",
        "GIT_CONFIG_COUNT": "1",
        "GIT_CONFIG_KEY_0": "http.https://github.com/.extraheader",
        "GIT_CONFIG_VALUE_0": f"AUTHORIZATION: basic {BASIC}",
    }


def test_a_file_origin_push_works_with_the_header_and_keeps_no_token(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "registry")
    origin = tmp_path / "origin.git"
    git.Repo.init(origin, bare=True)
    repo.create_remote("origin", str(origin))
    job_git = Git(repo, "main", push_token=TOKEN)
    job_git.create_tag("snapshot-2027-06-30", repo.head.commit.hexsha, "snapshot", MOMENT)
    job_git.push_tag("snapshot-2027-06-30")
    job_git.push_branch()
    remote = git.Repo(origin)
    assert remote.commit("main").hexsha == repo.head.commit.hexsha
    assert "snapshot-2027-06-30" in [tag.name for tag in remote.tags]
    assert TOKEN not in _on_disk(tmp_path / "registry") and BASIC not in _on_disk(
        tmp_path / "registry"
    )
    assert "extraheader" not in (tmp_path / "registry" / ".git" / "config").read_text()


def test_a_failed_push_names_no_token(tmp_path: Path) -> None:
    repo = _repository(tmp_path / "registry")
    repo.create_remote("origin", str(tmp_path / "nowhere.git"))
    job_git = Git(repo, "main", push_token=TOKEN)
    with pytest.raises(ClaimsError) as caught:
        job_git.push_branch()
    text = caught.value.message + caught.value.hint
    assert "cannot read origin" in text
    assert TOKEN not in text and BASIC not in text


class _Recorder(BaseHTTPRequestHandler):
    seen: ClassVar[list[tuple[str, str | None]]] = []

    def do_GET(self) -> None:
        self.seen.append((self.path, self.headers.get("Authorization")))
        self.send_response(403)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def log_message(self, format: str, *args: object) -> None:
        return


@pytest.fixture
def server() -> Iterator[ThreadingHTTPServer]:
    _Recorder.seen = []
    httpd = ThreadingHTTPServer(("127.0.0.1", 0), _Recorder)
    thread = threading.Thread(target=httpd.serve_forever, daemon=True)
    thread.start()
    yield httpd
    httpd.shutdown()
    httpd.server_close()


def test_over_http_the_server_gets_the_token_as_a_header(
    tmp_path: Path, server: ThreadingHTTPServer
) -> None:
    """What GitHub would see: the header on the smart-HTTP request, for the server's URLs
    only; the error the refused push raises does not repeat it."""
    host, port = server.server_address[:2]
    base = f"http://{host!s}:{port}"
    repo = _repository(tmp_path / "registry")
    repo.create_remote("origin", f"{base}/acme/registry.git")
    with pytest.raises(ClaimsError) as caught:
        Git(repo, "main", push_token=TOKEN, server_url=base).push_branch()
    assert (_Recorder.seen[0][1] or "") == f"basic {BASIC}"
    assert "/acme/registry.git/info/refs" in _Recorder.seen[0][0]
    assert TOKEN not in str(caught.value.message) and BASIC not in str(caught.value.message)
    # Another server's URL never gets it.
    _Recorder.seen.clear()
    with pytest.raises(ClaimsError):
        Git(repo, "main", push_token=TOKEN, server_url="https://github.com").push_branch()
    assert _Recorder.seen and all(header is None for _, header in _Recorder.seen)

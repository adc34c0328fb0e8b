"""Released data: fetched over real HTTP (a local server), hash-checked, cached by content.

The local server is reached through `Limits.fetch_allowed_addresses` (LOCAL): without it, the
bot refuses loopback and every other address that is not public.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
from pytest_httpserver import HTTPServer

from bot.edges.released import fetch_released
from bot.vocab.config import Limits
from bot.vocab.findings import Code

DATA = b'{"case_id":"c1"}\n' * 100
SHA = hashlib.sha256(DATA).hexdigest()
LOCAL = Limits(fetch_allowed_addresses=frozenset({"127.0.0.1", "::1"}))


def _items(url: str, sha: str = SHA, path: str = "released/trials.jsonl") -> list[dict[str, str]]:
    return [{"url": url, "sha256": sha, "path": path}]


def _fetch(items: list[dict[str, str]], tmp_path: Path, limits: Limits = LOCAL) -> list:
    return fetch_released(
        items, tmp_path / "in", tmp_path / "cache", "adapter.yaml", limits, sleep=lambda _: None
    )


def test_fetches_checks_and_caches(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_oneshot_request("/data").respond_with_data(DATA)
    assert _fetch(_items(httpserver.url_for("/data")), tmp_path) == []
    assert (tmp_path / "in" / "released" / "trials.jsonl").read_bytes() == DATA
    assert (tmp_path / "cache" / "sha256" / SHA).read_bytes() == DATA
    # Second use: from the cache, no request (a oneshot handler would answer 500 now).
    (tmp_path / "in").rename(tmp_path / "first-in")
    assert _fetch(_items(httpserver.url_for("/data")), tmp_path) == []
    assert (tmp_path / "in" / "released" / "trials.jsonl").read_bytes() == DATA
    assert len(httpserver.log) == 1


def test_wrong_hash_is_refused_and_never_cached(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/data").respond_with_data(DATA + b"x")
    (finding,) = _fetch(_items(httpserver.url_for("/data")), tmp_path)
    assert finding.code is Code.RELEASED_DATA_HASH
    assert SHA in finding.message and hashlib.sha256(DATA + b"x").hexdigest() in finding.message
    assert not (tmp_path / "in" / "released" / "trials.jsonl").exists()
    assert list((tmp_path / "cache" / "sha256").iterdir()) == []


def test_client_error_is_not_retried(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_request("/gone").respond_with_data("no", status=404)
    (finding,) = _fetch(_items(httpserver.url_for("/gone")), tmp_path)
    assert finding.code is Code.RELEASED_DATA_UNAVAILABLE
    assert "HTTP 404" in finding.message
    assert len(httpserver.log) == 1


def test_server_error_is_retried(httpserver: HTTPServer, tmp_path: Path) -> None:
    httpserver.expect_ordered_request("/flaky").respond_with_data("busy", status=503)
    httpserver.expect_ordered_request("/flaky").respond_with_data(DATA)
    assert _fetch(_items(httpserver.url_for("/flaky")), tmp_path) == []
    assert len(httpserver.log) == 2


def test_corrupt_cache_entry_is_fetched_again(httpserver: HTTPServer, tmp_path: Path) -> None:
    (tmp_path / "cache" / "sha256").mkdir(parents=True)
    (tmp_path / "cache" / "sha256" / SHA).write_bytes(b"tampered")
    httpserver.expect_request("/data").respond_with_data(DATA)
    assert _fetch(_items(httpserver.url_for("/data")), tmp_path) == []
    assert (tmp_path / "cache" / "sha256" / SHA).read_bytes() == DATA


def test_refused_url_sends_nothing(tmp_path: Path) -> None:
    (finding,) = _fetch(_items("file:///etc/passwd"), tmp_path)
    assert finding.code is Code.RELEASED_DATA_UNAVAILABLE
    assert "released_data[0].url must be http(s)" in finding.message


@pytest.mark.parametrize("path", ["../escape", ".", "released/.."])
def test_path_cannot_leave_the_inputs_folder(
    httpserver: HTTPServer, tmp_path: Path, path: str
) -> None:
    """`..` is refused by adapter.yaml's schema too, but "." passes it: the inputs folder itself
    is not a file inside it. Either way it is `released-data-path` and nothing is fetched."""
    (finding,) = _fetch(_items(httpserver.url_for("/x"), path=path), tmp_path)
    assert (finding.code, finding.file) == (Code.RELEASED_DATA_PATH, "adapter.yaml")
    assert finding.message == f"released_data[0].path {path!r} leaves the inputs folder"
    assert not (tmp_path / "escape").exists()
    assert httpserver.log == []


@pytest.mark.parametrize(
    ("first", "second"),
    [
        ("released", "released/trials.jsonl"),  # was FileExistsError: a file where a folder goes
        ("released/trials.jsonl", "released"),  # was IsADirectoryError: a folder where a file goes
        ("released/trials.jsonl", "released/./trials.jsonl"),  # the same file twice
    ],
)
def test_paths_that_nest_or_repeat_are_refused(
    httpserver: HTTPServer, tmp_path: Path, first: str, second: str
) -> None:
    """Two released files cannot both be laid out when one path is the other, or holds it."""
    url = httpserver.url_for("/data")
    httpserver.expect_request("/data").respond_with_data(DATA)
    findings = _fetch(_items(url, path=first) + _items(url, path=second), tmp_path)
    assert [(f.code, f.file) for f in findings] == [(Code.RELEASED_DATA_PATH, "adapter.yaml")]
    assert findings[0].message.startswith(f"released_data[1].path {second!r} ")
    assert httpserver.log == []


def test_loopback_is_refused_without_the_allow_list_and_not_retried(
    httpserver: HTTPServer, tmp_path: Path
) -> None:
    httpserver.expect_request("/data").respond_with_data(DATA)
    url = httpserver.url_for("/data").replace("localhost", "127.0.0.1")
    (finding,) = _fetch(_items(url), tmp_path, Limits())
    assert finding.code is Code.RELEASED_DATA_UNAVAILABLE
    assert finding.message == (
        f"released_data[0]: refusing to fetch {url}: 127.0.0.1 is a loopback address,"
        " not a public one"
    )
    assert httpserver.log == []
    assert not (tmp_path / "in" / "released" / "trials.jsonl").exists()


def test_redirect_to_a_private_address_is_refused(httpserver: HTTPServer, tmp_path: Path) -> None:
    target = "http://169.254.169.254/latest/meta-data/iam/security-credentials/"
    httpserver.expect_request("/data").respond_with_data(
        "", status=302, headers={"Location": target}
    )
    url = httpserver.url_for("/data")
    (finding,) = _fetch(_items(url), tmp_path)
    assert finding.code is Code.RELEASED_DATA_UNAVAILABLE
    assert finding.message == (
        f"released_data[0]: refusing to fetch {url}: it redirects to {target}, and"
        " 169.254.169.254 is a link-local address, not a public one"
    )
    assert len(httpserver.log) == 1  # refused, not retried

"""Helpers shared by the tests: edit an attempt's files one record at a time."""

from __future__ import annotations

import hashlib
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

from bot.edges.dump import dump_jsonl
from bot.faces.demo.specimen import RELEASED
from bot.rules.verdict import BarResult

PROJECT = Path(__file__).resolve().parents[1]
RULES = (PROJECT / "shared-rules" / "common-v1.yaml").read_bytes()
Files = dict[str, bytes]


def records(files: Files, name: str) -> list[dict[str, Any]]:
    """The JSON objects of a JSONL file in `files`."""
    return [json.loads(line) for line in files[name].decode().splitlines()]


def released_files(files: Files) -> list[bytes]:
    """What the paper released for a wrapped specimen attempt (bot/faces/demo/specimen.py): its
    cases and its trials, as the honest attempt files hold them. Seed a released-data cache
    with these."""
    return [files[name] for name in RELEASED.values()]


def seed_cache(cache: Path, *data: bytes) -> None:
    """Put files in a released-data cache as the bot keeps them (`<cache>/sha256/<hash>`)."""
    (cache / "sha256").mkdir(parents=True, exist_ok=True)
    for item in data:
        (cache / "sha256" / hashlib.sha256(item).hexdigest()).write_bytes(item)


def seed_released(cache: Path, files: Files) -> None:
    """Put everything the paper released (`released_files`) in a released-data cache."""
    seed_cache(cache, *released_files(files))


def convert_like_the_specimen(inputs: Path, output: Path) -> tuple[str, ...]:
    """What the wrapped specimen's adapter/convert.py does, for tests that fake the sandbox:
    copy each released file, unchanged, to the evidence file it becomes. Returns the names
    written into `output`."""
    for path, name in RELEASED.items():
        shutil.copyfile(inputs / path, output / name)
    return tuple(RELEASED.values())


def rewrite(files: Files, name: str, edit: Callable[[list[dict[str, Any]]], None]) -> None:
    """Apply `edit` to the records of a JSONL file and write it back."""
    items = records(files, name)
    edit(items)
    files[name] = dump_jsonl(items)


class TreeAt:
    """A FolderTree whose root is shown under `prefix`: tests that scan or load a folder
    on disk see the display paths (e.g. attempts/market-03/...) the registry would show."""

    def __init__(self, root: Path, prefix: str) -> None:
        from bot.edges.tree import FolderTree

        self.inner = FolderTree(root)
        self.prefix = prefix.strip("/")
        self.label = f"working tree {root}"

    def _inner(self, path: str) -> str:
        if path == self.prefix:
            return ""
        if path.startswith(f"{self.prefix}/"):
            return path[len(self.prefix) + 1 :]
        from bot.edges.tree import TreeError

        raise TreeError(2, "not under the prefix", path)

    def _outer(self, entry: Any) -> Any:
        from dataclasses import replace

        return replace(entry, path=f"{self.prefix}/{entry.path}".rstrip("/"))

    def entry(self, path: str) -> Any:
        try:
            found = self.inner.entry(self._inner(path))
        except OSError:
            return None
        return None if found is None else self._outer(found)

    def children(self, folder: str) -> list[Any]:
        return [self._outer(e) for e in self.inner.children(self._inner(folder))]

    def open(self, path: str) -> Any:
        return self.inner.open(self._inner(path))

    def readlink(self, path: str) -> str:
        return self.inner.readlink(self._inner(path))


def scan(path: Path, shown: str, limits: Any = None) -> tuple[dict[str, Any], list[Any]]:
    """scan_folder over the folder `path` on disk, shown as `shown`: (entries, findings)."""
    from bot.edges.load.folder import scan_folder
    from bot.vocab.config import Limits

    entries, findings, _ = scan_folder(TreeAt(path, shown), shown, limits or Limits())
    return entries, findings


def load_file(loader: Any, file: Path, shown: str, limits: Any = None) -> Any:
    """load_yaml / load_jsonl of the file (or folder) `file` on disk, shown as `shown`."""
    from bot.vocab.config import Limits

    # the tree maps `shown` to `file`
    tree = _OneFile(file, shown)
    return loader(tree, shown, limits or Limits())


class _OneFile(TreeAt):
    """A tree holding one path, `shown`, that is the file (or folder) `file` on disk."""

    def __init__(self, file: Path, shown: str) -> None:
        super().__init__(file.parent, shown.rpartition("/")[0] or ".")
        self.name, self.shown = file.name, shown

    def _inner(self, path: str) -> str:
        from bot.edges.tree import TreeError

        if path != self.shown:
            raise TreeError(2, "no such file", path)
        return self.name


def deny_open(monkeypatch: Any, file: Path) -> None:
    """chmod 000 on `file`; as root (which reads such files anyway) also make `os.open` raise
    PermissionError for it as for other users. FolderTree opens each name relative to its
    folder (dir_fd), so the name is matched as well as the whole path."""
    import errno
    import os

    file.chmod(0)
    if os.geteuid() != 0:
        return
    real = os.open

    def denied(target: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(target, (str, Path)) and os.fspath(target) in (os.fspath(file), file.name):
            raise PermissionError(errno.EACCES, "Permission denied", os.fspath(file))
        return real(target, *args, **kwargs)

    monkeypatch.setattr(os, "open", denied)


def small_sample_bar(**changes: Any) -> BarResult:
    """An AUROC bar as the demo's small-sample attempt gives it (issue 15): 10 positive and
    10 negative units, AUROC 0.9, DeLong's bound 0.7712 with a simulated coverage of 87.54%,
    and the logit bound beside it."""
    bar = BarResult(
        "discrimination",
        "auroc_lower",
        0.8,
        True,
        units=20,
        bound=0.7712,
        auroc=0.9,
        positives=10,
        negatives=10,
        met=False,
        coverage=0.8754,
        alt_method="delong-logit",
        alt_bound=0.7489,
    )
    return replace(bar, **changes)


def fuzz_settings(examples: int) -> Any:
    """Hypothesis settings for a fuzz test whose examples share one registry fixture: no
    deadline (git and the CLI are slow), and the health checks such a test trips on purpose."""
    from hypothesis import HealthCheck, settings

    return settings(
        max_examples=examples,
        deadline=None,
        suppress_health_check=[
            HealthCheck.too_slow,
            HealthCheck.function_scoped_fixture,
            HealthCheck.data_too_large,
        ],
    )


def assert_report_reads_back(kind: str, report: object) -> None:
    """A report the bot wrote validates against schemas/<kind>.schema.json and its reader
    (`verify_report_from_json` / `resolve_report_from_json`, what `claims site` and `claims
    github publish` use) accepts it: a report its own reader refuses stops the site."""
    from bot.app.report_json import resolve_report_from_json, verify_report_from_json
    from bot.rules.evidence.schema import validate

    assert report is not None
    problems = validate(kind, report, f"{kind}.json")
    assert problems == [], [f"{p.file}: {p.message}" for p in problems[:5]]
    reader = verify_report_from_json if kind == "verify-report" else resolve_report_from_json
    reader(report)  # raises ReportError where a site build would stop


def rerun_job_argv(
    root: Path,
    head: str,
    attempt: Path,
    results: Path,
    released: Path,
    *,
    quiet: bool = True,
    share: int | None = None,
) -> list[str | Path]:
    """`claims verify`'s arguments as the close workflow's rerun job gives them for one
    attempt (close-windows.yml: the sandbox, no token, its result kept in `results`; `share`:
    the plan's released_bytes, --keep-released-bytes)."""
    argv: list[str | Path] = [
        "verify",
        "--registry",
        root,
        "--base-ref",
        "main",
        "--head",
        head,
        "--rerun-adapters",
        "--rerun-cache",
        results,
        "--keep-rerun-failures",
        "--keep-released",
        *(["--keep-released-bytes", str(share)] if share is not None else []),
        "--released-cache",
        released,
    ]
    return [*argv, "--quiet", attempt] if quiet else [*argv, attempt]


class FakeSandbox:
    """Stands in for bot.edges.sandbox.run_adapter: copies every released file to out/ (as the
    specimen's convert.py does: the cases and the trials) and counts the runs."""

    def __init__(self) -> None:
        self.calls = 0

    def __call__(self, command: list[str], *, inputs: Path, output: Path, **_: Any) -> Any:
        from bot.edges.sandbox import RunResult

        self.calls += 1
        written = convert_like_the_specimen(inputs, output)
        return RunResult("ok", "exit code 0", 0, None, None, "", "", written, 0.1)


def fake_sandbox(monkeypatch: Any) -> FakeSandbox:
    """A `FakeSandbox` in place of the adapter sandbox (isolation taken as available)."""
    import bot.app.rerun
    import bot.edges.sandbox

    fake = FakeSandbox()
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: None)
    monkeypatch.setattr(bot.app.rerun, "run_adapter", fake)
    return fake


def open_market_site(demo_registry: Path, folder: Path, hostile: str | None = None) -> Path:
    """The demo registry as it stood before market 3's window closed, built as pages.yml
    builds it (no report files, as of 2027-04-01): market 3's record and snapshot tag taken
    away, the repository's docs/reason-codes.md beside it, and `hostile`'s attempt.yaml (an
    attempt folder) given a title holding markup and a `javascript:` publication URL. Returns
    the site's folder (`folder/site`); the registry is `folder/registry`."""
    import contextlib
    import io
    import re

    import git

    from bot.faces.cli import main

    root = folder / "registry"
    shutil.copytree(demo_registry, root, symlinks=True)
    (root / "docs").mkdir()
    shutil.copyfile(PROJECT / "docs" / "reason-codes.md", root / "docs" / "reason-codes.md")
    (root / "resolutions" / "market-03.yaml").unlink()
    with git.Repo(root) as repo:
        repo.delete_tag(repo.tags["snapshot-2027-06-30"])
    if hostile is not None:
        filed = root / hostile / "attempt.yaml"
        text = filed.read_text(encoding="utf-8")
        text = re.sub(r"(?m)^title: .*$", f"title: {json.dumps(HOSTILE_TITLE)}", text)
        text = re.sub(
            r"(?m)^  url: https://papers\.example\.org/.*$", "  url: javascript:x()", text
        )
        filed.write_text(text, encoding="utf-8")
    site = folder / "site"
    arguments = ["site", "--registry", str(root), "--out", str(site), "--as-of", "2027-04-01"]
    with contextlib.redirect_stdout(io.StringIO()):
        assert main(arguments) == 0
    return site


HOSTILE_TITLE = "</dd><script>alert(1)</script> & more"


def connect_without_waits(monkeypatch: Any) -> None:
    """`bot.edges.github.gateway.connect` with no sleeps between retries and no throttle, for tests
    that run the CLI against the fake GitHub."""
    import functools

    from bot.edges.github import gateway

    fast = functools.partial(
        gateway.connect, retry=gateway.Retry(sleep=lambda _: None), throttle=False
    )
    monkeypatch.setattr(gateway, "connect", fast)


# The workflow job that runs each `claims github` command (.github/workflows/).
COMMAND_JOBS: dict[str, tuple[str, str]] = {
    "locate": ("verify.yml", "locate"),
    "verify": ("verify.yml", "verify"),
    "publish": ("verify.yml", "publish"),
    "judge": ("judge.yml", "judge"),
}


def job_token(workflow: str, job: str) -> str:
    """A token the fake GitHub (tests/github/fakehub.py) gives exactly the `permissions:` of
    `job` in .github/workflows/`workflow`, as the job's GITHUB_TOKEN holds them."""
    return f"job:{workflow}:{job}"


def command_token(argv: Sequence[object]) -> str:
    """The token of the job that runs `claims github COMMAND ...` (`argv` without `claims`);
    a command no job runs gets an unrestricted token."""
    words = [str(word) for word in argv]
    if len(words) >= 2 and words[0] == "github" and words[1] in COMMAND_JOBS:
        return job_token(*COMMAND_JOBS[words[1]])
    return "t0ken"


def serve_corpus(httpserver: Any) -> str:
    """The local server the adversarial corpus's `needs="server"` entries fetch from
    (tests/adversarial/generate.py): `/harness.log` redirects to a file with no end,
    `/malformed-redirect` redirects to no URL. Returns its base URL (`Context.server`). The
    caller also asks for the `local_fetches` fixture, so the bot may fetch from it."""
    from collections.abc import Iterator

    from werkzeug import Request, Response

    def endless(request: Request) -> Response:
        """A file with no end (the bot must stop reading after raw_log.bytes)."""

        def body() -> Iterator[bytes]:
            chunk = b"x" * 65536
            for _ in range(16384):  # 1 GiB, should the bot ever read that far
                yield chunk

        return Response(body(), mimetype="application/octet-stream")

    class MalformedRedirect(Response):
        """A redirect whose Location is no URL: werkzeug would refuse to send it (it parses
        the Location), so it is set after werkzeug's own headers."""

        def get_wsgi_headers(self, environ: Any) -> Any:
            headers = super().get_wsgi_headers(environ)
            headers["Location"] = "http://[::1/x"
            return headers

    huge = httpserver.url_for("/huge")
    httpserver.expect_request("/harness.log").respond_with_response(
        Response(status=302, headers={"Location": huge})
    )
    httpserver.expect_request("/huge").respond_with_handler(endless)
    httpserver.expect_request("/malformed-redirect").respond_with_response(
        MalformedRedirect(status=302)
    )
    return str(httpserver.url_for("")).rstrip("/")

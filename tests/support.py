"""Helpers shared by the tests, typed: a test module imports what it shares from here (or from
a helper module beside it, such as tests/closing.py), never from another test module.

What is here: the shared rules (`shared_rules`, `parse_rules`) and market contracts
(`market_of`); editing an attempt's files one record at a time (`records`, `rewrite`); trees
held in memory or shown under a prefix (`MemoryTree`, `TreeAt`); released-data caches and a
fake sandbox; the registries the `make_registry` fixture builds (`RegistryFactory`, `Built`)
and the in-process `claims` runs of `run_claims` (`Result`); the site's inputs
(`site_inputs`); challenge runs (`build_challenge`); git changes to a built registry
(`commit_all`, `freeze_landed_by`); the aSAH reference data of the DeLong tests.
"""

from __future__ import annotations

import csv
import errno
import hashlib
import io
import json
import shutil
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field, replace
from datetime import UTC, date, datetime, timedelta
from pathlib import Path
from typing import Any, BinaryIO

import git
import pytest
import yaml

from bot.app.api import open_workspace, verify_folders
from bot.app.cache import VerificationCache
from bot.app.options import Ports
from bot.app.report_json import attempt_to_json
from bot.edges.dump import dump_jsonl, dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.edges.tree import MODE_FILE, MODE_FOLDER, TreeEntry, TreeError
from bot.faces.demo.git_registry import WEB_FLOW_COMMITTER, Step, build_git_registry
from bot.faces.demo.specimen import (
    RELEASED,
    AttemptSpec,
    RunSpec,
    attempt_files,
    challenge_files,
    judgments_file,
    market_document,
    score_table,
)
from bot.faces.site.model import MarketContract, SiteInputs
from bot.rules.models import Market, SharedRules
from bot.rules.qualification import required_checks
from bot.rules.verdict import BarResult
from bot.vocab.document import Document
from bot.vocab.findings import Finding
from bot.vocab.timestamps import format_timestamp

PROJECT = Path(__file__).resolve().parents[1]
RULES_PATH = "shared-rules/common-v1.yaml"
RULES = (PROJECT / RULES_PATH).read_bytes()
Files = dict[str, bytes]


def parse_rules(raw: bytes = RULES) -> tuple[SharedRules | None, list[Finding]]:
    """A shared rules file (`raw`, by default the repository's) read as the bot reads
    shared-rules/common-v1.yaml: the rules, or None and the findings saying why."""
    document, problems = parse_yaml(raw, RULES_PATH)
    if document is None:
        return None, problems
    return SharedRules.from_document(document)


def shared_rules(raw: bytes = RULES) -> SharedRules:
    """The shared rules `raw` (by default the repository's), which must be valid."""
    rules, problems = parse_rules(raw)
    assert rules is not None, [f"{p.file}: {p.message}" for p in problems]
    return rules


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


class MemoryTree:
    """A tree held in a dict of path -> bytes (folders implied)."""

    label = "memory"

    def __init__(self, files: dict[str, bytes]) -> None:
        self.files = files

    def entry(self, path: str) -> TreeEntry | None:
        path = path.strip("/")
        if path in self.files:
            return TreeEntry(path, "file", MODE_FILE, len(self.files[path]))
        if not path or any(name.startswith(f"{path}/") for name in self.files):
            return TreeEntry(path, "folder", MODE_FOLDER)
        return None

    def children(self, folder: str) -> list[TreeEntry]:
        prefix = f"{folder.strip('/')}/" if folder.strip("/") else ""
        names = {
            name[len(prefix) :].split("/")[0] for name in self.files if name.startswith(prefix)
        }
        if not names:
            raise TreeError(errno.ENOENT, "no such folder", folder)
        found = [self.entry(f"{prefix}{name}") for name in sorted(names)]
        return [entry for entry in found if entry is not None]

    def open(self, path: str) -> BinaryIO:
        if path not in self.files:
            raise TreeError(errno.ENOENT, "no such file", path)
        return io.BytesIO(self.files[path])


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


# The clock the GitHub gateway reads for x-ratelimit-reset in the gateway's tests.
GATEWAY_NOW = 1_700_000_000.0

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


# ---- registries built with the demo builder (the `make_registry` fixture) ----------------

FREEZE_FILES = ("freeze.yaml", "freeze-cases.jsonl")
# Tests judge qualification on this date unless they say otherwise: after every default run
# and judgment (March 2027), before any default market's resolve-by date.
AS_OF = "2027-04-15"
AS_OF_DATE = date.fromisoformat(AS_OF)


def default_markets() -> dict[str, bytes]:
    """The registry's market files: market 3 ("default" budget) and market 5 ("serious")."""
    return {
        "markets/market-03.yaml": dump_yaml(market_document(3, "default")),
        "markets/market-05.yaml": dump_yaml(market_document(5, "serious")),
    }


@dataclass
class Built:
    """A registry `make_registry` built: its root, the attempt's folder, the repository and
    the attempt's files as its run committed them."""

    root: Path
    attempt: Path
    repo: git.Repo
    files: Files = field(default_factory=dict)


def market_of(markets: dict[str, bytes], number: int, rules: SharedRules | None) -> Market | None:
    """Market `number`'s contract among the registry files `markets` (as `default_markets`
    gives them), under `rules`; None where the file is missing or invalid."""
    raw = markets.get(f"markets/market-{number:02d}.yaml")
    if raw is None or rules is None:
        return None
    document, _ = parse_yaml(raw, "market.yaml")
    if document is None:
        return None
    market, _ = Market.from_document(document, rules)
    return market


@dataclass
class _Planned:
    """One attempt's files as committed by its freeze and by its run."""

    spec: AttemptSpec
    files: Files
    run_files: Files


@dataclass
class RegistryFactory:
    """What the `make_registry` fixture gives: call it to build a registry (a real git
    repository) under `tmp_path`; each call builds another."""

    tmp_path: Path
    count: int = 0

    def _plan(
        self,
        spec: AttemptSpec,
        change: Callable[[Files], None] | None,
        change_in_run: Callable[[Files], None] | None,
        markets: dict[str, bytes],
        rules: SharedRules | None,
        scores: bool,
        before_scores: Callable[[Files], None] | None = None,
    ) -> _Planned:
        files = attempt_files(spec)
        if before_scores is not None:
            before_scores(files)
        market = market_of(markets, spec.market, rules)
        if scores and market is not None and rules is not None:
            files["scores.yaml"] = score_table(files, market, rules.confidence)
        if change is not None:
            change(files)
        run_files = dict(files)
        if change_in_run is not None:
            change_in_run(run_files)
        return _Planned(spec, files, run_files)

    def __call__(
        self,
        spec: AttemptSpec | None = None,
        *,
        change: Callable[[Files], None] | None = None,
        change_in_run: Callable[[Files], None] | None = None,
        before_scores: Callable[[Files], None] | None = None,
        freeze_merged_at: datetime | None = None,
        run_merged_at: datetime | None = None,
        run: str = "merged",
        markets: dict[str, bytes] | None = None,
        rules: bytes = RULES,
        run_extra: dict[str, bytes | None] | None = None,
        freeze_in_run: bool = False,
        scores: bool = True,
        judge: dict[str, str | None] | None = None,
        judged: bool = True,
        judged_at: datetime | None = None,
        also: Sequence[AttemptSpec] = (),
        steps: Sequence[Step] = (),
    ) -> Built:
        """Build a registry holding one attempt (plus honest `also` attempts); return it.

        By default the attempt is complete and qualifying: an honest scores.yaml for its
        market, and judgments.yaml with every required check passed, committed by a
        maintainer on main after the run, bound to the evidence digest.

        change: edits the attempt's files before anything is committed (after scores).
        before_scores: edits them before the honest score table is derived, so the table
            agrees with the edited cases and trials.
        change_in_run: edits a copy that the run pull request commits (freeze files included).
        run: "merged" (the default), "open" (a PR branch checked out), or "none".
        run_extra: other registry paths the run PR writes (None deletes).
        freeze_in_run: no freeze PR; the freeze files arrive with the run.
        judge: verdicts that replace "pass" for some checks (None leaves a check out).
        judged: False leaves judgments.yaml out altogether.
        judged_at: when the maintainer's judgments land on main (default: two hours after
            the run merges); their `at` is that moment.
        steps: further commits or pull requests on main (a challenge run, say), in time order
            with the attempt's.
        """
        spec = spec or AttemptSpec()
        self.count += 1
        root = self.tmp_path / f"registry-{self.count}"
        markets = default_markets() if markets is None else markets
        shared = parse_rules(rules)[0]
        start = datetime(2027, 1, 2, 9, 0, tzinfo=UTC)
        main_steps: list[Step] = []
        primary = self._plan(spec, change, change_in_run, markets, shared, scores, before_scores)
        others = [self._plan(other, None, None, markets, shared, scores) for other in also]
        open_step: Step | None = None
        for index, planned in enumerate([primary, *others]):
            is_primary = index == 0
            folder = planned.spec.folder
            merged = (
                freeze_merged_at
                if is_primary and freeze_merged_at
                else planned.spec.frozen_at + timedelta(days=1)
            )
            in_run = freeze_in_run and is_primary
            if not in_run:
                freeze = {
                    f"{folder}/{name}": planned.files[name]
                    for name in FREEZE_FILES
                    if name in planned.files
                }
                main_steps.append(
                    Step(f"freeze {folder}", planned.spec.frozen_at, freeze, merged_at=merged)
                )
            run_paths: dict[str, bytes | None] = {
                f"{folder}/{name}": data
                for name, data in planned.run_files.items()
                if in_run or name not in FREEZE_FILES or data != planned.files.get(name)
            }
            if is_primary:
                run_paths.update(run_extra or {})
            run_at = max(merged, planned.spec.first_trial_at) + timedelta(days=30)
            landed = run_merged_at if is_primary and run_merged_at else run_at + timedelta(hours=1)
            mode = run if is_primary else "merged"
            if mode == "open":
                open_step = Step("run", run_at, run_paths, open_pr="filer/attempt")
            elif mode == "merged":
                main_steps.append(Step(f"run {folder}", run_at, run_paths, merged_at=landed))
                if judged and shared is not None:
                    market = market_of(markets, planned.spec.market, shared)
                    if market is not None:
                        checks: dict[str, str | None] = {
                            check: "pass"
                            for check in required_checks(shared, market, planned.spec.kind)
                        }
                        if is_primary:
                            checks.update(judge or {})
                        verdicts = {k: v for k, v in checks.items() if v is not None}
                        when = (
                            judged_at if is_primary and judged_at else landed + timedelta(hours=2)
                        )
                        judgments = judgments_file(
                            planned.run_files, verdicts, "maintainer", format_timestamp(when)
                        )
                        main_steps.append(
                            Step(
                                f"judgments {folder}",
                                when,
                                {f"{folder}/judgments.yaml": judgments},
                            )
                        )
        main_steps += steps
        main_steps.sort(key=lambda step: step.merged_at or step.at)
        steps = [
            Step("registry", start, {"shared-rules/common-v1.yaml": rules, **markets}),
            *main_steps,
        ]
        if open_step is not None:
            steps.append(open_step)
        repo = build_git_registry(root, steps)
        return Built(root, root / spec.folder, repo, primary.run_files)


@dataclass
class Result:
    """An in-process `claims` run (the `run_claims` fixture): exit code, output and the JSON
    report it wrote, if any."""

    code: int
    out: str
    err: str
    report: dict[str, Any] | None

    def attempt(self, index: int = 0) -> dict[str, Any]:
        """The attempt's report, its notices left out of `reasons` (see `notices`)."""
        assert self.report is not None
        attempt: dict[str, Any] = dict(self.report["attempts"][index])
        attempt["reasons"] = [r for r in attempt["reasons"] if r["severity"] != "notice"]
        return attempt

    def _all(self, index: int) -> list[dict[str, Any]]:
        assert self.report is not None
        attempts = self.report["attempts"]
        own = attempts[index]["reasons"] if attempts or index else []
        return [*self.report.get("pr_problems", []), *own]

    def reasons(self, index: int = 0) -> list[dict[str, Any]]:
        """The pull request's own problems (--base-ref), then the attempt's reasons; notices
        (what an offline run could not confirm) are left out: see `notices`."""
        return [r for r in self._all(index) if r["severity"] != "notice"]

    def notices(self, index: int = 0) -> set[str]:
        """The codes of the notices among the PR's problems and the attempt's reasons."""
        return {r["code"] for r in self._all(index) if r["severity"] == "notice"}

    def codes(self, index: int = 0) -> set[str]:
        """The attempt's reason codes, with the pull request's own problems (--base-ref);
        notices left out (`notices`)."""
        return {reason["code"] for reason in self.reasons(index)}


def verdicts_json(
    root: Path, cache: VerificationCache | None, as_of: date = AS_OF_DATE
) -> list[Any]:
    """Every attempt's verdict in the registry at `root` as JSON data, and the registry
    problems' codes (notices included), verified in-process with the records cache `cache`."""
    with open_workspace(root) as workspace:
        registry = workspace.registry
        verdicts, problems = verify_folders(
            registry,
            registry.attempt_folders(),
            workspace.history,
            as_of,
            Ports(records_cache=cache),
        )
    return [[attempt_to_json(v) for v in verdicts], [p.code.value for p in problems]]


# The aSAH data set of R's pROC package (tests/data/asah.csv): 113 patients' markers and
# outcomes, with pROC's DeLong AUROC and variance for three markers as the reference.
ASAH = PROJECT / "tests" / "data" / "asah.csv"


# pROC tests/testthat/test-var.R (DeLong variance).
ASAH_REFERENCE: dict[str, tuple[float, float]] = {
    "s100b": (0.731368563685637, 0.00266868245717244),
    "ndka": (0.611957994579946, 0.0031908105493913),
    "wfns": (0.823678861788618, 0.00146991470882363),
}


def asah_scores(marker: str) -> tuple[list[float], list[float]]:
    """aSAH's `marker` values: (the poor outcomes' = positives, the good ones' = negatives)."""
    with ASAH.open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    positives = [float(row[marker]) for row in rows if row["outcome"] == "Poor"]
    negatives = [float(row[marker]) for row in rows if row["outcome"] == "Good"]
    return positives, negatives


# ---- the site's inputs (bot/faces/site/model.py), as the site's unit tests give them ------

SITE_RULES_DATA = yaml.safe_load(RULES)


def site_contract(number: int = 3) -> MarketContract:
    """Default market `number`'s contract, as the site reads it."""
    data = market_document(number, "default")
    market, problems = Market.from_document(
        Document(f"markets/market-{number:02d}.yaml", data), shared_rules(), number
    )
    assert market is not None, problems
    return MarketContract(market, data)


SITE_ATTEMPT = "attempts/market-03/alice-lab/monitor-v1"


def site_attempt(**changes: Any) -> dict[str, Any]:
    """A verify report's entry for SITE_ATTEMPT (qualifying, one bar, one notice), with
    `changes`."""
    data: dict[str, Any] = {
        "attempt": SITE_ATTEMPT,
        "market": 3,
        "kind": "run",
        "evidence": "valid",
        "status": "qualifying",
        "outcome": "met",
        "reasons": [
            {
                "code": "freeze-date-unconfirmed",
                "message": "landed, not confirmed",
                "file": f"{SITE_ATTEMPT}/freeze.yaml",
                "line": None,
                "severity": "notice",
                "stage": "evidence",
            }
        ],
        "pr_problem_codes": [],
        "bars": [
            {
                "id": "false-safe",
                "statistic": "rate_upper",
                "exercised": True,
                "failures": 1,
                "units": 16,
                "bound": 0.25,
                "auroc": None,
                "positives": None,
                "negatives": None,
                "threshold": 0.2,
                "met": False,
                "note": "",
                "refused": False,
            }
        ],
        "class_conditional": {},
        "checks": {},
        "evidence_digest": "0" * 64,
        "counts": {"files": 1, "cases": 1, "trials": 1, "systems": 1, "families": 1},
        "units": {},
    }
    data.update(changes)
    return data


def site_record() -> dict[str, Any]:
    """Market 3's resolution record: YES, archived on Zenodo, two attempts."""
    return {
        "market": 3,
        "outcome": "YES",
        "why": "qualifying attempt met every bar",
        "dates": {
            "resolve_by": "2027-06-30",
            "window_closes": "2027-08-29",
            "annul_on": "2027-09-28",
        },
        "as_of": "2027-08-31",
        "resolved_at": "2027-08-31T03:17:00Z",
        "snapshot": {
            "tag": "snapshot-2027-06-30",
            "commit": "a" * 40,
            "tagged_at": "2027-08-31T03:17:00Z",
            "state": "ok",
        },
        "archive": {
            "kind": "zenodo",
            "tag": "snapshot-2027-06-30",
            "doi": "10.5281/zenodo.123",
            "id": "123",
            "file": "registry.tar.gz",
            "checksum": "md5:" + "0" * 32,
            "created": "2027-08-31T03:17:00Z",
        },
        "attempts": [
            {
                "attempt": SITE_ATTEMPT,
                "evidence": "valid",
                "status": "qualifying",
                "outcome": "met",
                "reasons": [],
                "counts": True,
            },
            {
                "attempt": "attempts/market-03/bob-lab/gone",
                "evidence": "invalid",
                "status": None,
                "outcome": None,
                "reasons": ["case-hash-mismatch"],
                "counts": False,
            },
        ],
        "warnings": [],
        "source": "git commit abc",
    }


def site_inputs(**changes: Any) -> SiteInputs:
    """The site's inputs: the shared rules, market 3's contract and SITE_ATTEMPT's entry, with
    `changes`."""
    values: dict[str, Any] = {
        "rules": SITE_RULES_DATA,
        "window_days": 60,
        "annul_after_days": 30,
        "contracts": [site_contract()],
        "attempts": {SITE_ATTEMPT: site_attempt()},
        "resolutions": {},
        "records": {},
        "generated_on": date(2027, 9, 1),
    }
    values.update(changes)
    return SiteInputs(**values)


# ---- registries changed after they were built (the GitHub acceptance tests) ---------------

ALICE = "alice"  # the author of alice-lab's merged pull requests


def write_file(path: Path, data: bytes) -> None:
    """Write `data` to `path`, its folders made as needed."""
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)


def commit_all(repo: git.Repo, message: str, **env: str) -> str:
    """Commit every change in `repo`'s work tree (`env`: GIT_* dates, committer); its sha."""
    repo.git.add("-A")
    with repo.git.custom_environment(**env):
        repo.git.commit("-q", "--allow-empty", "-m", message)
    return repo.head.commit.hexsha


def rewrite_alices_attempt(built: Built) -> str:
    """A PR branch that flips a merged, judged attempt's trial (a catch becomes a false-safe
    verdict) and recomputes the score table honestly to match: valid evidence, so only who
    files it and that it was merged can refuse it."""
    built.repo.git.checkout("-q", "-b", "rewrite")
    trials = built.attempt / "trials.jsonl"
    lines = trials.read_text().splitlines()
    assert '"verdict":"caught","certificate":"unsafe"' in lines[0]
    lines[0] = lines[0].replace(
        '"verdict":"caught","certificate":"unsafe"', '"verdict":"false_safe","certificate":"safe"'
    )
    trials.write_text("\n".join(lines) + "\n")
    files = {p.name: p.read_bytes() for p in built.attempt.iterdir() if p.is_file()}
    rules = shared_rules()
    market = market_of(default_markets(), 3, rules)
    assert rules is not None and market is not None
    (built.attempt / "scores.yaml").write_bytes(score_table(files, market, rules.confidence))
    return commit_all(built.repo, "fix alice's attempt")


def freeze_landed_by(
    make_registry: RegistryFactory, how: str, submitters: bool = True
) -> tuple[Built, str, str]:
    """A registry whose freeze reached main as `how` says ("filer-merge": a merge commit the
    filer made, dated in January, fast-forwarded onto main in March; "squash": one commit by
    GitHub's web flow), with the run as an open PR. Returns it, the landing sha and the head."""
    built = make_registry(run="none", judged=False, freeze_in_run=True)
    repo, folder = built.repo, built.attempt
    if submitters:  # the slug's owner is listed, so only the landing is in question
        listing = {"submitters": {"alice-lab": {"logins": [ALICE]}}}
        (built.root / "submitters.yaml").write_bytes(dump_yaml(listing))
        commit_all(repo, "submitters", GIT_COMMITTER_DATE="2027-01-02T10:00:00Z")
    folder.mkdir(parents=True, exist_ok=True)
    january = "2027-01-03T00:00:00Z"
    if how == "filer-merge":
        repo.git.checkout("-q", "-b", "filer-freeze")
        repo.git.checkout("-q", "-b", "inner")
        for name in ("freeze.yaml", "freeze-cases.jsonl"):
            write_file(folder / name, built.files[name])
        commit_all(repo, "freeze", GIT_AUTHOR_DATE=january, GIT_COMMITTER_DATE=january)
        repo.git.checkout("-q", "filer-freeze")
        with repo.git.custom_environment(GIT_AUTHOR_DATE=january, GIT_COMMITTER_DATE=january):
            repo.git.merge("--no-ff", "-q", "-m", "Merge pull request #3 from me", "inner")
        repo.git.checkout("-q", "main")
        repo.git.merge("--ff-only", "-q", "filer-freeze")  # in March: the dates stay January
    else:
        for name in ("freeze.yaml", "freeze-cases.jsonl"):
            write_file(folder / name, built.files[name])
        commit_all(
            repo, "Freeze (#3)", GIT_AUTHOR_DATE=january, GIT_COMMITTER_DATE=january,
            **WEB_FLOW_COMMITTER,
        )  # fmt: skip
    landing = repo.head.commit.hexsha
    repo.git.checkout("-q", "-b", "run")
    for name, data in built.files.items():
        write_file(folder / name, data)
    february = "2027-02-15T00:00:00Z"
    head = commit_all(repo, "run", GIT_AUTHOR_DATE=february, GIT_COMMITTER_DATE=february)
    return built, landing, head


# ---- challenge runs: run-1 and one challenge attempt of it (market 11) ----------------------

CHALLENGE_SPEC = AttemptSpec(
    market=11,
    submitter="hidden-lab",
    slug="monitor-hidden",
    kind="challenge",
    challenge_run="run-1",
)


CHALLENGE_RUN = RunSpec()


CHALLENGE_SCORES = f"scores/{CHALLENGE_SPEC.submitter}/{CHALLENGE_SPEC.slug}/results.jsonl"


RUN_FROZEN_MERGED = CHALLENGE_RUN.frozen_at + timedelta(hours=1)


RUN_SCORED_AT = datetime(2027, 2, 25, 9, 0, tzinfo=UTC)


def challenge_markets(**overrides: Any) -> dict[str, bytes]:
    """Market 11 (listing challenge attempts) with `overrides`, as registry files."""
    document = market_document(11, "default", kinds=["challenge"], **overrides)
    return {"markets/market-11.yaml": dump_yaml(document)}


def challenge_run_steps(
    run_files: Files, frozen: datetime = RUN_FROZEN_MERGED, scored: datetime = RUN_SCORED_AT
) -> list[Step]:
    """The run's two pull requests on main: its freeze merged at `frozen`, the operator's
    scores at `scored`."""
    folder = CHALLENGE_RUN.folder
    freeze = {f"{folder}/{name}": run_files[name] for name in ("run.yaml", "freeze-cases.jsonl")}
    rest = {
        f"{folder}/{name}": data
        for name, data in run_files.items()
        if name not in ("run.yaml", "freeze-cases.jsonl")
    }
    return [
        Step(
            "challenge run-1: the hidden suite's freeze",
            frozen - timedelta(hours=1),
            freeze,
            merged_at=frozen,
        ),
        Step(
            "challenge run-1: the operator's scores",
            scored - timedelta(hours=1),
            rest,
            merged_at=scored,
        ),
    ]


def build_challenge(
    make_registry: RegistryFactory,
    *,
    attempt: Callable[[Files], None] | None = None,
    after_scores: Callable[[Files], None] | None = None,
    edit_run: Callable[[Files], None] | None = None,
    frozen: datetime = RUN_FROZEN_MERGED,
    scored: datetime = RUN_SCORED_AT,
    spec: AttemptSpec = CHALLENGE_SPEC,
    run_spec: RunSpec = CHALLENGE_RUN,
    **kwargs: Any,
) -> Built:
    """A registry with run-1 and one challenge attempt of it. `attempt` edits the attempt's
    files before its score table is derived, `after_scores` after; `edit_run` edits the run's."""
    filed, run_files = challenge_files(spec, run_spec)
    if edit_run is not None:
        edit_run(run_files)

    def hidden(files: Files) -> None:
        files.clear()
        files.update(filed)
        if attempt is not None:
            attempt(files)

    kwargs.setdefault("markets", challenge_markets())
    return make_registry(
        spec,
        before_scores=hidden,
        change=after_scores,
        steps=challenge_run_steps(run_files, frozen, scored),
        **kwargs,
    )


def withheld_leaks(reasons: list[dict[str, Any]]) -> list[tuple[str, int | None]]:
    """(file, line) of each `withheld-field-leak` among a report's `reasons`."""
    return [(r["file"], r["line"]) for r in reasons if r["code"] == "withheld-field-leak"]


# ---- the shared rules' seed text, beside the repository (the site shows its links) ---------

SEED = PROJECT.parent / "shared" / "seeds" / "shared-rules-common-v1.txt"


def seed_machine_readable() -> list[str]:
    """The seed's six "Machine-readable:" lines; the test is skipped where the seed is absent."""
    if not SEED.is_file():
        pytest.skip(f"seed not available at {SEED}")
    lines = [
        line.strip()
        for line in SEED.read_text(encoding="utf-8").splitlines()
        if line.startswith("Machine-readable:")
    ]
    assert len(lines) == 6
    return lines


# ---- the demo registry's website (the `demo_site` fixture, tests/acceptance/conftest.py) ---


@dataclass(frozen=True)
class DemoSite:
    """The demo registry and the website `claims site` built from its kept reports."""

    registry: Path  # the demo registry (a git repository), kept
    site: Path  # its website, built from the demo's own reports and resolution records


def site_arguments(registry: Path, out: Path) -> list[str]:
    """`claims site` over the demo's kept reports: verify of main, then the wrapped
    attempts' reruns (which replace those attempts), the challenge runs' verify report, and
    the last resolve report."""
    reports = registry / ".claims"
    return [
        "site",
        "--registry",
        str(registry),
        "--out",
        str(out),
        "--verify-report",
        str(reports / "verify-main.json"),
        "--verify-report",
        str(reports / "verify-rerun.json"),
        "--verify-report",
        str(reports / "verify-runs.json"),
        "--resolve-report",
        str(reports / "resolve-2027-11-01.json"),
    ]

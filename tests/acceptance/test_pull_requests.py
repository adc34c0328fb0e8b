"""Pull requests as the verdict workflow reads them: the head from git objects, the
maintainers' files from the base branch, and problems reported as codes, not exit 2."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from bot.app.api import open_workspace
from bot.edges.dump import dump_yaml
from bot.faces.demo.specimen import market_document
from bot.vocab.errors import ClaimsError
from tests.support import RegistryFactory


def _tighten_market_on_main(built, max_rate: float) -> None:  # type: ignore[no-untyped-def]
    """A maintainer tightens market 3's false-safe bar on main after the PR branched."""
    branch = built.repo.active_branch.name
    built.repo.git.checkout("-q", "main")
    market = market_document(3, "default")
    market["bars"][0]["max"] = max_rate
    (built.root / "markets/market-03.yaml").write_bytes(dump_yaml(market))
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "-m", "tighten market 3")
    built.repo.git.checkout("-q", branch)
    return None


@pytest.mark.parametrize("head", [False, True])
def test_contracts_come_from_the_base_branch(
    make_registry: RegistryFactory, run_claims, head: bool
) -> None:
    # Review finding: a PR branched before a contract changed was judged by its own copy.
    built = make_registry(run="open")
    _tighten_market_on_main(built, 0.01)
    args = ["verify", "--base-ref", "main", "--registry", built.root]
    if head:
        args += ["--head", built.repo.head.commit.hexsha]
    result = run_claims(*args)
    bars = {bar["id"]: bar for bar in result.attempt()["bars"]}
    assert bars["false-safe"]["threshold"] == 0.01


def test_a_pr_that_edits_a_contract_is_judged_by_the_base_branchs(
    make_registry: RegistryFactory, run_claims
):
    market = market_document(3, "default")
    market["bars"][0]["max"] = 0.9
    extra = {"markets/market-03.yaml": dump_yaml(market)}
    built = make_registry(run="open", run_extra=extra)
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.codes() == {"protected-path"}
    # The PR's problem makes its attempt's evidence invalid: no bars, status or outcome
    # are judged under the contract it rewrote.
    attempt = result.attempt()
    assert (attempt["evidence"], attempt["status"], attempt["bars"]) == ("invalid", None, [])


def test_a_pr_that_changes_only_markets_gets_a_code_not_exit_2(
    make_registry: RegistryFactory, run_claims
):
    # Review finding: "the branch changes no attempt folder" (exit 2) hid the reason code.
    built = make_registry()
    built.repo.git.checkout("-q", "-b", "only-markets")
    (built.root / "markets/market-09.yaml").write_bytes(b"id: 9\n")
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "-m", "a market")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.code == 1
    assert result.report is not None and result.report["attempts"] == []
    codes = {r["code"] for r in result.report["pr_problems"] if r["severity"] != "notice"}
    assert codes == {"protected-path"}


def test_a_pr_whose_attempt_folder_is_a_link_gets_a_code(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry()
    built.repo.git.checkout("-q", "-b", "link")
    link = built.root / "attempts/market-03/alice-lab/monitor-v2"
    link.symlink_to("monitor-v1")
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "-m", "a linked attempt")
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root)
    assert result.code == 1
    assert "symlink" in {r["code"] for r in result.report["pr_problems"]}


def test_an_empty_head_is_a_usage_error(make_registry: RegistryFactory, tmp_path: Path) -> None:
    built = make_registry(run="open")
    with pytest.raises(ClaimsError, match="--head is empty"):
        open_workspace(built.root, "main", "")


def test_dot_dot_entries_in_a_head_tree_are_never_paths(
    make_registry: RegistryFactory, run_claims
) -> None:
    # Review finding: a tree entry named ".." (made with git mktree) crashed verify --head.
    built = make_registry(run="open")
    root = built.root

    def git_(*args: str, stdin: str | None = None) -> str:
        done = subprocess.run(
            ["git", *args], cwd=root, input=stdin, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    blob = git_("rev-parse", "HEAD:attempts/market-03/alice-lab/monitor-v1/attempt.yaml")
    evil = git_("mktree", stdin=f"100644 blob {blob}\tattempt.yaml\n")
    market = git_("rev-parse", "HEAD:attempts/market-03")
    spliced = git_("mktree", stdin=git_("ls-tree", market) + f"\n040000 tree {evil}\t..\n")
    attempts = git_("rev-parse", "HEAD:attempts")
    new_attempts = git_("mktree", stdin=git_("ls-tree", attempts).replace(market, spliced) + "\n")
    top = git_("ls-tree", "HEAD^{tree}").replace(attempts, new_attempts)
    head = git_("commit-tree", git_("mktree", stdin=top + "\n"), "-p", "HEAD", "-m", "evil")
    result = run_claims("verify", "--base-ref", "main", "--registry", root, "--head", head)
    assert result.code in (0, 1), result.err
    assert result.report is not None
    assert all(".." not in attempt["attempt"] for attempt in result.report["attempts"])


# ---- path rules, read from `git diff --raw -z` (issue 9, item 3) ------------------------------


def _pr_adding(built, files: dict[bytes, bytes]) -> tuple[str, set[tuple[str, str]]]:  # type: ignore[no-untyped-def]
    """Commit `files` (paths as bytes, inside the attempt folder) on the open PR; verify its
    head from git objects. Returns the head and the (code, file) pairs of its problems."""
    import os

    folder = os.fsencode(built.attempt)
    for name, data in files.items():
        path = folder + b"/" + name
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "wb") as file:
            file.write(data)
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "-m", "more files")
    return built.repo.head.commit.hexsha, set()


def _pr_problems(run_claims, built, head: str) -> set[tuple[str, str]]:  # type: ignore[no-untyped-def]
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root, "--head", head)
    assert result.code == 1, result.out
    assert result.attempt()["evidence"] == "invalid"
    return {
        (r["code"], r["file"]) for r in result.report["pr_problems"] if r["severity"] == "error"
    }


FOLDER = "attempts/market-03/alice-lab/monitor-v1"


@pytest.mark.parametrize("name", [b".gitattributes", b"raw-log/.gitignore", b".gitmodules"])
def test_a_git_file_is_refused(make_registry: RegistryFactory, run_claims, name: bytes) -> None:
    built = make_registry(run="open")
    head, _ = _pr_adding(built, {name: b"*.jsonl filter=lfs diff=lfs merge=lfs -text\n"})
    assert _pr_problems(run_claims, built, head) == {("git-file", f"{FOLDER}/{name.decode()}")}


def test_an_lfs_pointer_is_refused(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry(run="open")
    pointer = (
        b"version https://git-lfs.github.com/spec/v1\n"
        b"oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
        b"size 12345\n"
    )
    head, _ = _pr_adding(built, {b"raw-log/big.log": pointer})
    assert _pr_problems(run_claims, built, head) == {("lfs-pointer", f"{FOLDER}/raw-log/big.log")}


@pytest.mark.parametrize(
    ("name", "shown"),
    [
        (b"caf\xc3\xa9.txt", "caf\\xc3\\xa9.txt"),  # non-ASCII (UTF-8)
        (b"notes\xff.txt", "notes\\xff.txt"),  # bytes that are not UTF-8
        (b"a\tb.txt", "a\\x09b.txt"),  # a control character
        (b"x\x1b[31m.txt", "x\\x1b[31m.txt"),  # an escape sequence
    ],
)
def test_a_path_outside_printable_ascii_is_refused(
    make_registry: RegistryFactory, run_claims, name: bytes, shown: str
) -> None:
    built = make_registry(run="open")
    head, _ = _pr_adding(built, {name: b"x\n"})
    problems = _pr_problems(run_claims, built, head)
    assert problems == {("path-characters", f"{FOLDER}/{shown}")}


def test_names_that_collide_after_folding_are_refused(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry(run="open")
    head, _ = _pr_adding(built, {b"Trials.jsonl": b"{}\n"})
    # The run adds trials.jsonl in the same PR: each name is reported.
    assert _pr_problems(run_claims, built, head) == {
        ("path-collision", f"{FOLDER}/Trials.jsonl"),
        ("path-collision", f"{FOLDER}/trials.jsonl"),
    }
    # A name already on the base branch counts: a PR adding only the new case.
    built = make_registry()
    built.repo.git.checkout("-q", "-b", "case")
    head, _ = _pr_adding(built, {b"Trials.jsonl": b"{}\n"})
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root, "--head", head)
    problems = {(r["code"], r["file"]) for r in result.report["pr_problems"]}
    assert ("path-collision", f"{FOLDER}/Trials.jsonl") in problems
    (collision,) = [r for r in result.report["pr_problems"] if r["code"] == "path-collision"]
    assert collision["message"].startswith(f"{FOLDER}/Trials.jsonl and {FOLDER}/trials.jsonl")
    # NFKC would fold the fullwidth letter: a second folder that is the first one to a reader.
    built = make_registry(run="open")
    head, _ = _pr_adding(built, {"ｍonitor-v1/x".encode(): b"x\n"})  # noqa: RUF001
    problems = _pr_problems(run_claims, built, head)
    # A PR's own non-ASCII name is refused first (path-characters names it escaped).
    assert problems == {("path-characters", f"{FOLDER}/\\xef\\xbd\\x8donitor-v1/x")}


@pytest.mark.parametrize(
    ("names", "shown"),
    [
        (("Trials.jsonl",), "Trials.jsonl"),  # beside the attempt's trials.jsonl
        (("NOTES.md", "notes.md"), "NOTES.md"),
        (("Data/a.txt", "data/b.txt"), "Data/a.txt"),  # a folder in another case
    ],
)
def test_names_that_collide_after_folding_are_refused_on_a_working_tree(
    make_registry: RegistryFactory, run_claims, names: tuple[str, ...], shown: str
) -> None:
    """Issue 21, item 7: `claims verify` on a working tree (no pull request) refused two names
    that are one on macOS or Windows only in PR mode; both paths now share one check
    (`bot.vocab.names.path_collisions`). On this Linux file system both files exist."""

    def add(files: dict[str, bytes]) -> None:
        for name in names:
            files[name] = b"a note\n"

    built = make_registry(change=add)
    assert all((built.attempt / name).is_file() for name in names)
    result = run_claims("verify", built.attempt)
    assert result.code == 1, result.out
    collisions = [r for r in result.reasons() if r["code"] == "path-collision"]
    assert f"{FOLDER}/{shown}" in {r["file"] for r in collisions}
    assert all(
        "are one name once case and Unicode forms are folded" in r["message"] for r in collisions
    )
    assert result.codes() == {"path-collision"}


# ---- paths no checkout can write (review of issue 21) ------------------------------------------


def _head_with_deep_folder(root: Path, folder: str, levels: int) -> str:
    """A head commit (git plumbing) whose attempt `folder` holds `deep/` and `levels` nested
    folders of 122-byte names (each a name the folder scan accepts) around one notes.md."""

    def git_(*args: str, stdin: str | None = None) -> str:
        done = subprocess.run(
            ["git", *args], cwd=root, input=stdin, capture_output=True, text=True, check=True
        )
        return done.stdout.strip()

    blob = git_("hash-object", "-w", "--stdin", stdin="hello\n")
    tree = git_("mktree", stdin=f"100644 blob {blob}\tnotes.md\n")
    for level in range(levels):
        tree = git_("mktree", stdin=f"040000 tree {tree}\t{'d' * 120}{level:02d}\n")
    parts = folder.split("/")
    tree = git_("mktree", stdin=git_("ls-tree", f"HEAD:{folder}") + f"\n040000 tree {tree}\tdeep\n")
    for depth in range(len(parts), 0, -1):  # each parent again, holding the new child
        parent = "/".join(parts[: depth - 1])
        rows = []
        for row in git_("ls-tree", f"HEAD:{parent}" if parent else "HEAD^{tree}").splitlines():
            meta, child = row.split("\t", 1)
            if child == parts[depth - 1]:
                meta = f"{meta.rsplit(' ', 1)[0]} {tree}"
            rows.append(f"{meta}\t{child}\n")
        tree = git_("mktree", stdin="".join(rows))
    return git_("commit-tree", tree, "-p", "HEAD", "-m", "a deep folder")


def test_a_path_too_long_to_check_out_is_refused_on_the_pull_request(
    make_registry: RegistryFactory, run_claims, tmp_path: Path
) -> None:
    """Review of issue 21 (one part accepts what another cannot handle, and fails everyone):
    40 nested folders of 122-byte names (each a name the scan accepts) make a path of ~5 KB.
    On the review's HEAD `verify --head` called the attempt valid (exit 0), so it merges; then
    `git checkout` of main fails ("cannot create directory": over PATH_MAX), stopping every
    job that checks main out (close, Pages), and the adapter rerun cannot copy such a file.
    Now the scan refuses a path over `Limits.max_path_bytes` as attempt-location, named."""
    built = make_registry(run="open")
    folder = built.attempt.relative_to(built.root).as_posix()
    head = _head_with_deep_folder(built.root, folder, 40)
    # The premise: no checkout can write this commit's tree.
    clone = tmp_path / "clone"
    subprocess.run(["git", "clone", "-q", "--no-checkout", built.root, clone], check=True)
    checkout = subprocess.run(
        ["git", "-C", clone, "checkout", "-q", head], capture_output=True, text=True
    )
    assert checkout.returncode != 0 and "cannot create directory" in checkout.stderr
    result = run_claims("verify", "--base-ref", "main", "--registry", built.root, "--head", head)
    assert result.code == 1, result.err
    located = [r for r in result.attempt()["reasons"] if r["code"] == "attempt-location"]
    assert located and located[0]["file"].startswith(f"{folder}/deep/")
    assert "bytes" in located[0]["message"]

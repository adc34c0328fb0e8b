"""The app layer: what every entry point (CLI, demo, Actions jobs, schedule) calls.

`verify_registry` verifies attempt folders of a registry's tree and returns a `VerifyReport`;
`resolve_registry` resolves markets and returns a `ResolveReport` (both defined in
`bot/rules/reports.py`, re-exported here). Both hold every attempt, registry problem and
pull-request problem once, are typed, and turn into JSON (and back) only through
`bot/app/report_json/`.

A market whose filing window has closed is resolved from its `snapshot-R` tag's tree when the
tag counts (markets, shared rules, attempts and judgments as frozen, and main's history as it
stood at the tag), so nothing committed to main after the close changes its outcome. A tag that
does not count (lightweight, or made after the annulment date or the date resolved on) is
never read: such a market, and a closed market without a tag, is resolved from main as it stood
at the window's close (the last first-parent commit by the end of that day Anywhere on Earth),
and says so; the working tree only without git history.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path
from typing import TYPE_CHECKING

import git
from gitdb.exc import BadName  # type: ignore[import-untyped]

from bot.app.attempt_verify import judge_folder, verify_attempt
from bot.app.challenge_read import RUNS, judge_run_folder, run_folders
from bot.app.gather import challenge_run
from bot.app.identity import Filer, check_identity
from bot.app.options import NO_PORTS, Ports
from bot.app.registry import Registry, load_registry
from bot.edges.history import (
    GitHistory,
    History,
    MergedHistory,
    epoch,
    merged_history,
    open_history,
)
from bot.edges.load.yaml_ import load_yaml
from bot.edges.tree import FolderTree, GitTree, Tree
from bot.rules.challenge.judge import RunVerdict
from bot.rules.explain import Explanation, explain
from bot.rules.judge.location import folder_market
from bot.rules.reports import ResolveReport, VerifyReport
from bot.rules.resolution import Snapshot, resolve_market
from bot.rules.review import changed_attempt_folders, check_changes, check_merged_evidence
from bot.rules.verdict import AttemptVerdict
from bot.vocab.commits import Change
from bot.vocab.config import Limits
from bot.vocab.dates import MarketDates, end_of_day
from bot.vocab.errors import ClaimsError, Refusal
from bot.vocab.findings import Code, Finding, Severity

if TYPE_CHECKING:  # a type only: `verify` reads no archive
    from bot.edges.archive.port import ArchiveRecords

__all__ = [
    "ResolveReport",
    "VerifyReport",
    "Workspace",
    "explain_registry",
    "open_workspace",
    "pull_request_problems",
    "resolve_registry",
    "verify_folders",
    "verify_registry",
    "verify_runs",
]


@dataclass(frozen=True)
class Workspace:
    """A registry opened for a command: its tree, the base branch's history, and, for a
    pull request (`base_ref`), the changes of its head against the base."""

    registry: Registry
    history: History
    changes: Sequence[Change] | None = None
    head_paths: Sequence[str] = ()  # for a pull request: every file path of its head's tree
    head_at: datetime | None = None  # for a pull request: its head commit's committer date

    def close(self) -> None:
        """Stop the git processes the workspace keeps."""
        self.history.close()

    def __enter__(self) -> Workspace:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def open_workspace(
    root: Path, base_ref: str | None = None, head: str | None = None, limits: Limits = Limits()
) -> Workspace:
    """Open the registry at `root`: its working tree, or with `head` that commit's tree read
    from git objects (no checkout). With `base_ref`, the PR's changes against it.

    Raises `ClaimsError` for a missing base ref or head, or invalid shared rules.
    """
    if head is not None and not base_ref:
        raise ClaimsError(
            "--head needs --base-ref", "e.g. claims verify --base-ref main --head SHA"
        )
    if head is not None and not head.strip():
        raise ClaimsError("--head is empty: name the pull request's head commit")
    history = open_history(root, base_ref)
    try:
        if base_ref and history.unavailable is not None:
            raise ClaimsError(f"cannot read --base-ref {base_ref}: {history.unavailable}")
        tree: Tree = FolderTree(root)
        trusted: Tree | None = None
        changes = None
        head_paths: list[str] = []
        head_at: datetime | None = None
        if base_ref and isinstance(history, GitHistory):
            if head:
                try:
                    tree = GitTree(history.repo, head, history.prefix)
                except (ValueError, BadName, git.GitCommandError):
                    raise ClaimsError(
                        f"--head {head!r} is not a commit of the repository"
                    ) from None
            # The maintainers' files come from the base branch, never from the PR.
            trusted = GitTree(history.repo, history.base, history.prefix)
            changes = history.changes(head or "HEAD")
            head_paths = history.tree_paths(head or "HEAD")
            head_at = epoch(str(history.repo.commit(head or "HEAD").committed_date))
        registry = load_registry(tree, limits, trusted)
        return Workspace(registry, history, changes, head_paths, head_at)
    except BaseException:
        history.close()
        raise


def verify_folders(
    registry: Registry,
    folders: Sequence[str],
    history: History,
    as_of: date,
    ports: Ports = NO_PORTS,
    pr_problems: Mapping[str, Sequence[Finding]] | None = None,
    *,
    judgments_from_base: bool = False,
) -> tuple[list[AttemptVerdict], list[Finding]]:
    """Verify attempt folders as of `as_of`; return their verdicts and the registry problems,
    once each.

    `pr_problems`: per attempt folder a pull request changes, what it may not change.
    `judgments_from_base`: a pull request's folders (`verify_attempt`).
    """
    verdicts = []
    findings: dict[Finding, None] = {}
    for folder in folders:
        verdict, registry_problems = verify_attempt(
            registry,
            folder,
            history,
            as_of,
            ports,
            (pr_problems or {}).get(folder, ()),
            judgments_from_base=judgments_from_base,
        )
        verdicts.append(verdict)
        findings.update(dict.fromkeys(registry_problems))
    return verdicts, list(findings)


def _is_folder(registry: Registry, path: str) -> bool:
    entry = registry.tree.entry(path)
    return entry is not None and entry.kind == "folder"


def pull_request_problems(
    registry: Registry,
    changes: Sequence[Change],
    head_paths: Sequence[str] = (),
    filer: Filer | None = None,
) -> list[Finding]:
    """What a pull request's diff may not change, and who may file it.

    With `filer` (what GitHub says of the PR's author): a maintainer may change any path; anyone
    else only their own attempt folder (`not-submitter` for a slug they do not own), and merged
    evidence only with a maintainer's approval of the head commit. Without it (offline), every
    author is held to the filer's rules, no approval can be known, and who filed the PR is
    reported unchecked (a notice).
    """
    changed = changed_attempt_folders(changes)
    maintainer = filer is not None and filer.maintainer
    problems = check_changes(changes, changed, head_paths, maintainer)
    if not maintainer:
        merged = {f for f in changed if _is_folder_in(registry.contracts, f)}
        approved = filer is not None and filer.approved
        on_base = {
            change.path: entry.blob_id
            for change in changes
            if change.status == "A" and (entry := registry.contracts.entry(change.path))
        }
        problems += check_merged_evidence(changes, merged, approved, on_base)
    if filer is not None:
        problems += check_identity(filer, changed)
    else:
        problems.append(
            Finding(
                Code.IDENTITY_UNCHECKED,
                "without the GitHub API (claims github verify) the pull request's author is"
                " not known, so neither who owns the submitter slug (not-submitter) nor a"
                " maintainer's approval was checked",
                severity=Severity.NOTICE,
            )
        )
    return problems


def _is_folder_in(tree: Tree, path: str) -> bool:
    entry = tree.entry(path)
    return entry is not None and entry.kind == "folder"


def verify_registry(
    registry: Registry,
    history: History,
    as_of: date,
    paths: Sequence[str] | None = None,
    changes: Sequence[Change] | None = None,
    *,
    ports: Ports = NO_PORTS,
    merge_at: datetime | None = None,
    head_paths: Sequence[str] = (),
    filer: Filer | None = None,
    head_at: datetime | None = None,
) -> VerifyReport:
    """Verify the attempt folders at or below `paths` (default: attempts/), or, given a pull
    request's `changes`, the attempt folders it touches and what else it changes. Qualification
    is judged as of `as_of`, and `ports` are what may be asked outside (none: offline).

    For a pull request, judgments.yaml is read from the base branch's tip (a PR's own copy never
    counts), and what the PR may not change makes every attempt folder it touches invalid (no
    status, no outcome), while the report lists those problems once, in `pr_problems`
    (`pull_request_problems`: `head_paths` for name collisions, `filer` for what GitHub says of
    the author; without it the offline rules apply). Its evidence is judged as main will judge
    it once GitHub merges it at `merge_at` (the run's clock; None: the end of the `as_of` day),
    never before `head_at` (`_as_merged`).

    Raises `ClaimsError` when there is nothing to verify.
    """
    pr_problems: list[Finding] = []
    selected = [p for p in paths if not _is_run_path(p)] if paths else None
    named_runs = [p for p in paths if _is_run_path(p)] if paths else None
    # Every run without a path; for a pull request only the runs it changes (or names).
    runs = run_folders(
        registry.tree, [] if named_runs is None and changes is not None else named_runs
    )
    if paths and not selected and changes is None:
        if not runs:
            raise ClaimsError(
                "no challenge run folders found", "name a run folder, e.g. challenge-runs/run-1"
            )
        return VerifyReport(
            (),
            (),
            (),
            history.base_ref,
            registry.tree.label,
            tuple(verify_runs(registry, runs, history)),
        )
    touched: dict[str, Sequence[Finding]] = {}
    if changes is not None:
        history = _as_merged(history, changes, merge_at or end_of_day(as_of), head_at)
        changed = changed_attempt_folders(changes)
        changed_runs = [c.path for c in changes if _is_run_path(c.path)]
        runs = sorted({*runs, *run_folders(registry.tree, changed_runs)}) if changed_runs else runs
        pr_problems = pull_request_problems(registry, changes, head_paths, filer)
        errors = [f for f in pr_problems if f.severity is Severity.ERROR]
        if selected is None:
            selected = [f for f in changed if _is_folder(registry, f)]
            if not selected and not errors and not runs:
                raise ClaimsError(
                    f"the branch changes no attempt folder against {history.base_ref}"
                )
            if not selected:  # e.g. only markets/ changed, or the folder is a link
                return VerifyReport(
                    (),
                    (),
                    tuple(pr_problems),
                    history.base_ref,
                    registry.tree.label,
                    tuple(verify_runs(registry, runs, history)),
                )
    folders = registry.attempt_folders(selected)
    if not folders and not runs:
        raise ClaimsError("no attempt folders found", "name an attempt folder, or attempts/")
    if changes is not None:
        touched = _blocked_folders(folders, changes, pr_problems)
    # A pull request's judgments.yaml is read from the base branch's tip, never its own.
    verdicts, problems = verify_folders(
        registry, folders, history, as_of, ports, touched, judgments_from_base=changes is not None
    )
    return VerifyReport(
        tuple(verdicts),
        tuple(problems),
        tuple(pr_problems),
        history.base_ref,
        registry.tree.label,
        tuple(verify_runs(registry, runs, history)),
    )


def _as_merged(
    history: History,
    changes: Sequence[Change],
    moment: datetime,
    head_at: datetime | None,
) -> History:
    """For a pull request: the base branch as it will stand once GitHub merges it at `moment`
    (the run's clock, or the end of the day judged on), so that its verdict is main's after
    that merge (docs/spec-notes.md, "A green pull request stays green")."""
    if isinstance(history, MergedHistory) or history.unavailable is not None:
        return history
    return merged_history(history, changes, moment, head_at)


def _is_run_path(path: str) -> bool:
    return path == RUNS or path.startswith(f"{RUNS}/")


def verify_runs(registry: Registry, folders: Sequence[str], history: History) -> list[RunVerdict]:
    """Judge challenge run folders of the registry's tree (for a pull request, its head's:
    the run it changes), each once."""
    verdicts = []
    for folder in folders:
        name = folder.removeprefix(f"{RUNS}/")
        if registry.trusted is None:
            verdicts.append(challenge_run(registry, name, history).verdict)
        else:
            judged = judge_run_folder(
                registry.tree, folder, registry.rules, registry.market, history, registry.limits
            )
            verdicts.append(judged.verdict)
    return verdicts


def _blocked_folders(
    folders: Sequence[str], changes: Sequence[Change], pr_problems: Sequence[Finding]
) -> dict[str, Sequence[Finding]]:
    """The attempt folders a pull request touches, each with what the PR may not change (its
    problems but notices): they make those folders' evidence invalid."""
    blocking = tuple(f for f in pr_problems if f.severity is not Severity.NOTICE)
    if not blocking:
        return {}
    return {
        folder: blocking
        for folder in folders
        if any(change.path.startswith(f"{folder}/") for change in changes)
    }


def resolve_registry(
    registry: Registry,
    history: History,
    archive: ArchiveRecords,
    as_of: date,
    market: int | None = None,
    *,
    ports: Ports = NO_PORTS,
) -> ResolveReport:
    """Resolve every market (or only `market`) as of `as_of` by the Three Way Rule, asking
    `ports` while verifying the attempts (without `ports.rerun_adapter`, wrapped attempts are
    left out: `adapter-not-rerun`).

    A closed market whose `snapshot-R` tag counts is judged on the tag's tree. Raises
    `ClaimsError` when `market` has no contract (for market 14, with the shared rules'
    sentence "Market 14 is not in this registry.").
    """
    if market is not None and registry.rules.is_not_in_registry(market):
        raise ClaimsError(registry.rules.not_in_registry_message)
    markets, problems = registry.markets()
    if market is not None:
        markets = [m for m in markets if m.id == market]
        if not markets and not problems:
            raise ClaimsError(f"market {market} has no contract in this registry")
    rules = registry.rules
    main_verdicts: list[AttemptVerdict] | None = None
    resolutions = []
    for contract in markets:
        dates = MarketDates.of(contract.resolve_by, rules.window_days, rules.annul_after_days)
        tag = history.tag(dates.snapshot_tag)
        snapshot = Snapshot.of(
            dates.snapshot_tag,
            tag,
            archive.record(dates.snapshot_tag),
            dates,
            as_of,
            on_branch=tag is None or history.on_branch(tag.commit),
        )
        closed = dates.state(as_of) == "closed"
        not_read: list[str] = []  # why a snapshot tag's tree was not read
        if closed:
            problems += snapshot.problems(dates)
        read: tuple[list[AttemptVerdict], str, list[Finding]] | None = None
        if closed and snapshot.tag_counts and tag is not None and isinstance(history, GitHistory):
            outcome = _snapshot_verdicts(registry, history, tag.commit, contract.id, as_of, ports)
            if isinstance(outcome, Refusal):
                not_read.append(outcome.reason)
                problems.append(Finding(Code.REGISTRY_INVALID, outcome.reason))
            else:
                read = outcome
        if read is None and closed and isinstance(history, GitHistory):
            # No snapshot tree to read: read main as it stood when the window closed (what the
            # tag should have frozen), never main as it is now, so nothing merged or edited
            # after the close (judgments.yaml, say) counts.
            at_close = history.commit_at(end_of_day(dates.window_closes))
            if at_close is not None:
                outcome = _snapshot_verdicts(registry, history, at_close, contract.id, as_of, ports)
                if isinstance(outcome, Refusal):
                    problems.append(Finding(Code.REGISTRY_INVALID, outcome.reason))
                else:
                    read = outcome
                    why = (
                        f"{snapshot.tag} does not count ({snapshot.tag_state}), so its tree is"
                        " not read"
                        if snapshot.tag_exists and not not_read
                        else f"no {snapshot.tag} tree was read"
                    )
                    not_read.append(
                        f"{why}: the attempts are read from {history.base_ref} as it stood at"
                        f" the window's close ({at_close[:12]})"
                    )
        if read is not None:
            mine, source, found = read
            problems += found
        else:
            if main_verdicts is None:
                folders = registry.attempt_folders()
                if market is not None:  # only folders that may hold one of its attempts
                    folders = [f for f in folders if _may_be_of(registry, f, market)]
                main_verdicts, found = verify_folders(registry, folders, history, as_of, ports)
                problems += found
            mine = [v for v in main_verdicts if v.market == contract.id]
            source = registry.tree.label
            if closed and snapshot.tag_exists and not not_read:
                not_read.append(
                    f"{snapshot.tag} does not count ({snapshot.tag_state}), so its tree is not"
                    f" read: the attempts are read from the {source}"
                )
        unchecked = [v for v in mine if v.kind == "wrapped"]
        notes = (
            [
                f"{len(unchecked)} wrapped attempt(s) left out: their adapters were not rerun,"
                " so they cannot count (adapter-not-rerun)"
            ]
            if unchecked and ports.rerun_adapter is None
            else []
        )
        resolutions.append(
            resolve_market(
                contract, dates, mine, snapshot, as_of, [*not_read, *notes], source=source
            )
        )
    return ResolveReport(as_of, tuple(resolutions), tuple(dict.fromkeys(problems)))


def _may_be_of(registry: Registry, folder: str, market: int) -> bool:
    """Whether the attempt in `folder` may be judged an attempt of `market`: its folder names
    the market (`attempts/market-NN/...`, what the verdict says when attempt.yaml cannot), or
    its attempt.yaml's `market` is the number (whatever else the file holds). A superset of the
    folders whose verdict names `market`, found without verifying them."""
    if folder_market(folder) == market:
        return True
    document, _ = load_yaml(registry.tree, f"{folder}/attempt.yaml", registry.limits)
    named = document.data.get("market") if document and isinstance(document.data, dict) else None
    return isinstance(named, int | float) and not isinstance(named, bool) and named == market


def _snapshot_verdicts(
    registry: Registry, history: GitHistory, commit: str, market: int, as_of: date, ports: Ports
) -> tuple[list[AttemptVerdict], str, list[Finding]] | Refusal:
    """The market's attempts as the snapshot tag froze them, with main's history at the tag;
    or why the tag's tree holds no registry to read (then the working tree is read)."""
    tree = GitTree(history.repo, commit, history.prefix)
    try:
        snapshot = load_registry(tree, registry.limits)
    except ClaimsError as error:
        return Refusal(
            f"the snapshot's tree ({tree.label}) holds no readable registry: {error.message}"
        )
    # As on main: attempts/market-NN, and any other folder whose attempt.yaml names the market.
    folders = [f for f in snapshot.attempt_folders() if _may_be_of(snapshot, f, market)]
    verdicts, problems = verify_folders(snapshot, folders, history.at(commit), as_of, ports)
    return [v for v in verdicts if v.market == market], tree.label, problems


def explain_registry(
    registry: Registry,
    history: History,
    as_of: date,
    paths: Sequence[str],
    changes: Sequence[Change] | None = None,
    head_paths: Sequence[str] = (),
    head_at: datetime | None = None,
    *,
    merge_at: datetime | None = None,
) -> tuple[list[Explanation], list[Finding]]:
    """`claims explain`: for each attempt folder at or below `paths`, what stands between it
    and qualifying (`bot.rules.explain`), judged exactly as `verify_registry` judges it. Returns the
    explanations and the registry problems, once each. Nothing outside is asked (no ports), and
    every record is read from its file and kept (`keep_records`), none from a cache.

    With a pull request's `changes`, judgments.yaml is read from the base branch and what the
    PR may not change makes the folders it touches invalid, as in `verify_registry`.
    Raises `ClaimsError` when there is nothing to explain.
    """
    folders = registry.attempt_folders(list(paths))
    if not folders:
        raise ClaimsError("no attempt folders found", "name an attempt folder, or attempts/")
    blocked: dict[str, Sequence[Finding]] = {}
    if changes is not None:
        history = _as_merged(history, changes, merge_at or end_of_day(as_of), head_at)
        pr_problems = pull_request_problems(registry, changes, head_paths)
        blocked = _blocked_folders(folders, changes, pr_problems)
    explanations = []
    findings: dict[Finding, None] = {}
    for folder in folders:
        judged = judge_folder(
            registry,
            folder,
            history,
            as_of,
            NO_PORTS,
            blocked.get(folder, ()),
            judgments_from_base=changes is not None,
            keep_records=True,
        )
        explanations.append(explain(judged, registry.rules, as_of))
        findings.update(dict.fromkeys(judged.registry_problems))
    return explanations, list(findings)

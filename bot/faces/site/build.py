"""`claims site`: gather what the website shows, render it, publish it atomically.

The shell around `plan_site` (pure) and `render_site`: it reads the registry's own files (the
shared rules and their source, the market contracts, the resolution records under
`resolutions/`, the attempt folders' files) from a `FolderTree` (no link followed), and the
verdicts either from report files (`claims verify --json`, `claims resolve --json`, checked by
`VerifyReport.from_json` / `ResolveReport.from_json` as untrusted input) or, without them, by
running verify and resolve through the app layer as `claims verify --rerun-cache
resolutions/reruns` / `claims resolve --no-rerun-adapters` would: a wrapped attempt's adapter
is never run here, and counts only with a rerun result the scheduled job recorded on the
registry's branch (`resolutions/reruns/`, bot/app/resolutions.py). Nothing is decided here.
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date
from pathlib import Path
from typing import Any

from bot.app.registry import RULES_PATH, Registry
from bot.app.report_json import report_to_json
from bot.app.resolutions import RERUN_RESULTS, ResolutionRecord
from bot.edges.load.folder import read_regular
from bot.edges.load.yaml_ import load_yaml
from bot.edges.tree import Tree, TreeError, read_limited
from bot.faces.site.challenge import challenge_curves
from bot.faces.site.model import (
    EvidenceFile,
    MarketContract,
    SiteInputs,
    attempt_page_path,
    evidence_copy_path,
    plan_site,
    unreadable_attempt,
)
from bot.faces.site.publish import publish_site
from bot.faces.site.render import render_site
from bot.rules.review import shown_path
from bot.vocab.config import Limits
from bot.vocab.errors import ClaimsError, Refusal

__all__ = ["MAX_COPY_BYTES", "SiteBuild", "build_site", "read_report_file"]

# An evidence file larger than this is listed (size, sha256) but not copied into the site.
# The shared rules keep raw logs whole up to 2,000,000 bytes (evidence.max_local_log_bytes).
MAX_COPY_BYTES = 4_000_000
# An attempt folder's files listed on its page, and the bytes of it copied into the site:
# verify refuses more than the shared rules' file count, but the site shows any folder.
MAX_LISTED_FILES = 2_000
MAX_COPIED_BYTES = 200_000_000
_MAX_REPORT_BYTES = 200_000_000
MAX_RED_TEAMS = 100  # listed on an attempt's page; the schema bounds them anyway


@dataclass(frozen=True)
class SiteBuild:
    """What a build wrote: the folder, its file count, markets and attempt pages."""

    out: Path
    files: int
    markets: int
    attempts: int
    errors: tuple[str, ...] = ()  # pages drawn as an error panel (path: why)


def read_report_file(path: Path) -> object:
    """A report file's JSON data (duplicate keys, NaN and deep nesting refused). Raises
    `ClaimsError` when it cannot be read."""
    from bot.app.report_json import read_report

    try:
        with open(path, "rb") as stream:
            raw = stream.read(_MAX_REPORT_BYTES + 1)
    except OSError as error:
        raise ClaimsError(f"cannot read {path}: {error.strerror}") from None
    if len(raw) > _MAX_REPORT_BYTES:
        raise ClaimsError(f"{path} is larger than {_MAX_REPORT_BYTES} bytes")
    return read_report(raw)


@dataclass(frozen=True)
class _Verified:
    attempts: dict[str, dict[str, Any]]  # attempt path -> its object
    runs: dict[str, dict[str, Any]]  # challenge run id -> its object
    sources: list[str]
    problems: list[dict[str, Any]]  # the reports' registry problems


def _verified(reports: Sequence[object]) -> _Verified:
    """Each attempt and challenge run of the verify reports (a later report's replaces an
    earlier one's: `verify-main.json` then `verify-rerun.json`), after each report is
    checked. A report without `challenge_runs` (one written before challenge runs existed)
    has none. An entry its reader refuses is shown as refused, on its page and among the
    index's problems, never stops the build (bot/faces/report/entries.py)."""
    from bot.faces.report.entries import refused_reason, verify_report_entries

    found = _Verified({}, {}, [], [])
    for data in reports:
        report, kept, refused = verify_report_entries(data)  # ReportError: its frame refused
        for attempt in kept["attempts"]:
            found.attempts[attempt["attempt"]] = attempt
        found.problems.extend(_problems(kept["registry_problems"]))
        for run in kept.get("challenge_runs") or []:
            found.runs[str(run["run"])] = run
        for entry in refused:
            reason = dict(refused_reason(entry))
            found.problems.append(reason)
            if entry.section == "attempts":
                found.attempts[entry.name] = unreadable_attempt(entry.name, entry.market, reason)
            else:
                found.runs[entry.name] = {
                    "run": entry.name,
                    "market": entry.market,
                    "reasons": [reason],
                    "attempts": [],
                }
        # "working tree /home/runner/...": the builder's own path says nothing to a reader.
        tree = "working tree" if report.tree.startswith("working tree") else report.tree
        found.sources.append(f"verify report of the {tree or 'registry'}")
    return found


def _resolved_markets(
    data: object | None,
) -> tuple[dict[int, dict[str, Any]], list[str], list[dict[str, Any]], dict[int, str]]:
    """The resolve report's markets by number, its name, its registry problems, and the
    markets whose entry its reader refuses (with why)."""
    from bot.faces.report.entries import refused_reason, resolve_report_entries

    if data is None:
        return {}, [], [], {}
    report, kept, refused = resolve_report_entries(data)
    unreadable = {e.market: e.message for e in refused if e.market is not None}
    return (
        {market["market"]: market for market in kept["markets"]},
        [f"resolve report as of {report.as_of.isoformat()}"],
        [*_problems(kept["registry_problems"]), *(dict(refused_reason(e)) for e in refused)],
        unreadable,
    )


def _problems(findings: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A report's registry problems for the site: its notices (what that run did, such as a
    damaged verification-cache entry checked again, with the builder's own path) left out."""
    return [finding for finding in findings if finding.get("severity") != "notice"]


def _without_folder(data: Any, root: Path) -> Any:
    """A report's data with the builder's folder (`root`) left out of every string: `working
    tree ROOT` becomes `working tree`, and ROOT elsewhere the registry's root, `.`."""
    folders = sorted({str(root), str(root.resolve())}, key=len, reverse=True)

    def clean(value: Any) -> Any:
        if isinstance(value, str):
            for folder in folders:
                value = value.replace(f"working tree {folder}", "working tree")
                value = value.replace(f"{folder}/", "").replace(folder, ".")
            return value
        if isinstance(value, list):
            return [clean(item) for item in value]
        if isinstance(value, dict):
            return {key: clean(item) for key, item in value.items()}
        return value

    return clean(data)


REASON_CODES_DOC = "docs/reason-codes.md"


def _reason_codes(root: Path) -> str | None:
    """docs/reason-codes.md of the checkout the site is built from (the registry's repository
    holds the bot and its docs), or None where it has none: then no code is linked."""
    try:
        raw = read_regular(root / REASON_CODES_DOC, 10_000_000)
        return raw.decode("utf-8")
    except (OSError, UnicodeDecodeError):
        return None


def _recorded_reruns(root: Path) -> bool:
    """True when the registry keeps any recorded adapter rerun result (resolutions/reruns/)."""
    try:
        return any(p.suffix == ".json" for p in (root / RERUN_RESULTS).iterdir())
    except OSError:
        return False


def _records(tree: Tree) -> dict[int, dict[str, Any]]:
    """The resolution records under resolutions/ (a subfolder, reopened/, is skipped)."""
    try:
        children = tree.children("resolutions")
    except TreeError:
        return {}
    records: dict[int, dict[str, Any]] = {}
    for child in children:
        if child.kind != "file" or not child.name.endswith(".yaml"):
            continue
        try:
            raw = read_limited(tree, child.path, 10_000_000)
        except TreeError as error:
            raise ClaimsError(f"cannot read {child.path}: {error.strerror}") from None
        record = ResolutionRecord.from_yaml(raw, child.path)
        if isinstance(record, Refusal):
            raise ClaimsError(record.reason, "a maintainer must fix or reopen the record")
        records[record.market] = dict(record.data)
    return records


def _contracts(registry: Registry) -> list[MarketContract]:
    markets, problems = registry.markets()
    if problems:
        details = "; ".join(f"{f.location()}: {f.message}" for f in problems[:5])
        raise ClaimsError(f"the market contracts are invalid: {details}")
    contracts = []
    for market in markets:
        document, _ = load_yaml(registry.contracts, market.path, registry.limits)
        data = document.data if document is not None and isinstance(document.data, dict) else {}
        contracts.append(MarketContract(market, data))
    return contracts


def _folder_files(tree: Tree, folder: str) -> list[str]:
    found, pending = [], [folder]
    while pending:
        current = pending.pop()
        try:
            children = tree.children(current)
        except TreeError:
            continue
        for child in children:
            if child.kind == "folder":
                pending.append(child.path)
            elif child.kind == "file":
                found.append(child.path)
    return sorted(found)


def _evidence_files(
    tree: Tree, attempts: Sequence[str]
) -> tuple[dict[str, list[EvidenceFile]], dict[str, bytes]]:
    """Each attempt folder's regular files (links and special files are never read), and
    copies of those up to MAX_COPY_BYTES: `files/<path>.txt` for UTF-8 text (served as plain
    text, so a filer's .html or .svg never runs as a page of the site), `.bin` otherwise, at
    a path `evidence_copy_path` makes one to one from any names. A folder's first
    MAX_LISTED_FILES files are listed, and copied while the folder's copies stay within
    MAX_COPIED_BYTES; the rest are listed without a copy, or left out and counted."""
    listing: dict[str, list[EvidenceFile]] = {}
    copies: dict[str, bytes] = {}
    for attempt in attempts:
        if attempt_page_path(attempt) is None:
            continue
        entries, copied = [], 0
        paths = _folder_files(tree, attempt)
        for path in paths[:MAX_LISTED_FILES]:
            try:
                with tree.open(path) as stream:
                    digest, size, head = hashlib.sha256(), 0, []
                    while chunk := stream.read(1 << 20):
                        digest.update(chunk)
                        size += len(chunk)
                        if size <= MAX_COPY_BYTES:
                            head.append(chunk)
            except TreeError:
                continue
            copy = None
            if size <= MAX_COPY_BYTES and copied + size <= MAX_COPIED_BYTES:
                content = b"".join(head)
                try:
                    content.decode("utf-8")
                    text = True
                except UnicodeDecodeError:
                    text = False
                copy = evidence_copy_path(attempt, path.removeprefix(f"{attempt}/"), text)
                copies[copy] = content
                copied += size
            entries.append(EvidenceFile(shown_path(path), size, digest.hexdigest(), copy))
        if len(paths) > MAX_LISTED_FILES:
            left = len(paths) - MAX_LISTED_FILES
            entries.append(EvidenceFile(f"({left} more files not listed)", 0, "", None))
        listing[attempt] = entries
    return listing, copies


def _text(value: object) -> str | None:
    """A filer's scalar as text (a date YAML read as one, a number), else None: a mapping or
    list where text belongs is left out, never shown as Python's repr."""
    if isinstance(value, bool) or value is None:
        return None if value is None else ("yes" if value else "no")
    if isinstance(value, str | int | float | date):
        return str(value)
    return None


def _mapping(value: object) -> Mapping[str, Any]:
    return value if isinstance(value, Mapping) else {}


def _filed(tree: Tree, attempt: str, limits: Limits) -> dict[str, Any]:
    """What the filer wrote about the attempt (attempt.yaml, freeze.yaml): title, method and
    version, publication, red teams. Copied as text for the page to escape; a file that cannot
    be read or a field of another shape is left out (verify reports it, not the site)."""
    documents = {}
    for name in ("attempt.yaml", "freeze.yaml"):
        document, _ = load_yaml(tree, f"{attempt}/{name}", limits)
        documents[name] = _mapping(document.data if document is not None else None)
    filed, freeze = documents["attempt.yaml"], documents["freeze.yaml"]
    publication, method = _mapping(filed.get("publication")), _mapping(freeze.get("method"))
    adversarial = _mapping(filed.get("adversarial"))
    teams = adversarial.get("red_teams")
    return {
        "title": _text(filed.get("title")),
        "method": _text(method.get("name")),
        "method_version": _text(method.get("version")),
        "code_commit": _text(freeze.get("code_commit")),
        "frozen_at": _text(freeze.get("frozen_at")),
        "publication_url": _text(publication.get("url")),
        "evidence_public_at": _text(publication.get("evidence_public_at")),
        "assumed_access": _text(filed.get("assumed_access")),
        "access_frozen_at": _text(adversarial.get("access_frozen_at")),
        "red_teams": [
            {
                key: _text(_mapping(team).get(key))
                for key in ("name", "organization", "independent", "hours", "access", "started_at")
            }
            for team in (teams if isinstance(teams, list) else [])[:MAX_RED_TEAMS]
        ],
    }


def build_site(
    root: Path,
    out: Path,
    today: date,
    verify_reports: Sequence[Path] = (),
    resolve_report: Path | None = None,
    as_of: date | None = None,
    base_ref: str | None = None,
) -> SiteBuild:
    """Build the registry's website into `out` (replaced whole, see `publish_site`).

    With `verify_reports` / `resolve_report` the verdicts are read from those files; without,
    verify and resolve run as of `as_of` (default `today`). Raises `ClaimsError` for a report
    that is malformed, invalid contracts or records, or a folder that cannot be written.
    """
    from bot.app.api import VerifyReport, open_workspace, resolve_registry, verify_registry
    from bot.app.cache import MemoryRecordsCache
    from bot.app.options import Ports
    from bot.app.rerun import AdapterRerun
    from bot.edges.archive.local import LocalArchive

    with open_workspace(root, base_ref) as workspace:
        registry = workspace.registry
        if verify_reports or resolve_report:
            verified = _verified([read_report_file(p) for p in verify_reports])
            resolved, more, problems, unreadable = _resolved_markets(
                read_report_file(resolve_report) if resolve_report else None
            )
        else:
            # Resolve reads back what verify checked (the cases and trials of every attempt
            # of main, by evidence digest, contract and rules), instead of checking it again.
            # Wrapped attempts: only the rerun results the scheduled job recorded on the
            # registry's own branch count (never a file of a filer's folder); nothing is run.
            day = as_of or today
            ports = Ports(
                records_cache=MemoryRecordsCache(),
                rerun_adapter=AdapterRerun(
                    cache=root / ".claims" / "released",
                    results=root / RERUN_RESULTS,
                    recorded_only=True,
                ),
            )
            # A registry with no attempt yet still gets its site (verify refuses to verify
            # nothing, rightly for a command someone typed).
            report = (
                verify_registry(registry, workspace.history, day, ports=ports)
                if registry.attempt_folders()
                else VerifyReport((), tree=registry.tree.label)
            )
            resolution = resolve_registry(
                registry,
                workspace.history,
                LocalArchive(root / ".claims" / "archive"),
                day,
                ports=ports,
            )
            # The builder's own folder is no business of the public site.
            verified = _verified([_without_folder(report_to_json(report), root)])
            resolved, more, problems, unreadable = _resolved_markets(
                _without_folder(report_to_json(resolution), root)
            )
            if _recorded_reruns(root):
                more.append(f"adapter rerun results recorded in {RERUN_RESULTS}/")
        contracts = _contracts(registry)
        tree = registry.contracts
        records = _records(tree)
        rules_source = read_limited(tree, RULES_PATH, 10_000_000)
        listing, copies = _evidence_files(registry.tree, sorted(verified.attempts))
        filed = {
            attempt: _filed(registry.tree, attempt, registry.limits)
            for attempt in verified.attempts
            if attempt_page_path(attempt) is not None
        }
        curves = challenge_curves(tree)
        reason_codes = _reason_codes(root)
    rules = registry.rules
    # rules, window and annulment days, contracts, verdicts, records, the day it is built
    inputs = SiteInputs(
        *(rules.data, rules.window_days, rules.annul_after_days, contracts),
        *(verified.attempts, resolved, records, today),
        sources=list(
            dict.fromkeys([*verified.sources, *more, *(["resolution records"] if records else [])])
        ),
        files=listing,
        filed=filed,
        curves=curves,
        challenge_runs=verified.runs,
        problems=[*verified.problems, *problems],
        unreadable_markets=unreadable,
        reason_codes=reason_codes,
    )
    plan = plan_site(inputs)
    assets: Mapping[str, bytes] = {
        f"{plan.rules['path']}{plan.rules['source_file']}": rules_source,
        **copies,
    }
    errors: list[str] = []
    files = render_site(plan, assets, errors)
    publish_site(files, out)
    return SiteBuild(out, len(files), len(plan.markets), len(plan.attempts), tuple(errors))

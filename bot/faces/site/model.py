"""The website as data: what each page and JSON endpoint shows, from what the bot decided.

Pure (no I/O): `plan_site` takes the shared rules, the market contracts, the attempts of the
verify reports, the markets of a resolve report and the resolution records the scheduled job
wrote, and returns a `SitePlan`. It copies verdicts, never re-derives them: a market's state
and outcome come from its resolution record when there is one (final), else from the resolve
report (as of its date); an attempt's verdict, bars and reasons from the verify report. Fields
a report gains later (per bar `units_per_class`, `coverage`, `auroc_lower_alt`, a challenge
run's section) ride along in the attempt's data and are shown when present.

Paths inside the site mirror the registry's: `markets/market-NN/`, the attempt folder
`attempts/market-NN/<submitter>/<attempt>/`, `rules/<shared rules id>/`. An attempt path that
is not of that shape (reports are untrusted input) gets no page of its own.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import date
from typing import Any

from bot.rules.models import Market
from bot.vocab.dates import MarketDates

__all__ = [
    "SITE_VERSION",
    "EvidenceFile",
    "MarketContract",
    "SiteInputs",
    "SitePlan",
    "attempt_page_path",
    "evidence_copy_path",
    "is_slug",
    "plan_site",
    "rules_blocks",
    "unreadable_attempt",
]

SITE_VERSION = 1
# attempts/market-NN/<submitter>/<attempt>: the only attempt paths that get a page (and so a
# folder in the site); anything else in a report is listed without one.
_ATTEMPT_PATH = re.compile(
    r"\Aattempts/market-[0-9]{2,}/[A-Za-z0-9][A-Za-z0-9._-]{0,99}/[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z"
)
_SLUG = re.compile(r"\A[A-Za-z0-9][A-Za-z0-9._-]{0,99}\Z")
_MACHINE_READABLE = "Machine-readable:"
_ITEM = re.compile(r"\A(?P<name>.*?)\s+(?P<value>-?[0-9]+(?:\.[0-9]+)?)\Z")


@dataclass(frozen=True)
class EvidenceFile:
    """A file of an attempt folder: its path in the registry, size, sha256, and where the
    site keeps its copy (None: too large to copy)."""

    path: str
    size: int
    sha256: str
    copy: str | None


@dataclass(frozen=True)
class MarketContract:
    """A market's contract: the checked model, and the file's data (question, floors, bars)."""

    market: Market
    data: Mapping[str, Any]


@dataclass(frozen=True)
class SiteInputs:
    rules: Mapping[str, Any]  # shared-rules/common-v1.yaml as read
    window_days: int
    annul_after_days: int
    contracts: Sequence[MarketContract]
    attempts: Mapping[str, Mapping[str, Any]]  # attempt path -> its verify report object
    resolutions: Mapping[int, Mapping[str, Any]]  # market -> its resolve report object
    records: Mapping[int, Mapping[str, Any]]  # market -> resolutions/market-NN.yaml data
    generated_on: date
    sources: Sequence[str] = ()  # what the verdicts were read from, for the pages' footer
    files: Mapping[str, Sequence[EvidenceFile]] = field(default_factory=dict)
    # attempt path -> what its filer wrote (title, method, publication, red teams), as text
    filed: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # challenge run -> (label, [(step, best)]) best-so-far curves (the built-in scorers)
    curves: Mapping[str, Sequence[tuple[str, Sequence[tuple[float, float]]]]] = field(
        default_factory=dict
    )
    # run id -> its object in the verify reports' `challenge_runs`
    challenge_runs: Mapping[str, Mapping[str, Any]] = field(default_factory=dict)
    # the reports' registry problems (a maintainer's to fix), shown on the index
    problems: Sequence[Mapping[str, Any]] = ()
    # market -> why the resolve report's entry for it was refused (bot/faces/report/entries.py)
    unreadable_markets: Mapping[int, str] = field(default_factory=dict)
    # docs/reason-codes.md of the registry's checkout, shipped as a page; None: not shipped
    reason_codes: str | None = None


@dataclass(frozen=True)
class SitePlan:
    rules: Mapping[str, Any]  # the rules page: id, title, blocks
    markets: Sequence[Mapping[str, Any]]  # one market-NN.json each, in market order
    attempts: Sequence[Mapping[str, Any]]  # one attempt page each
    index: Mapping[str, Any]  # markets.json
    curves: Mapping[str, Sequence[tuple[str, Sequence[tuple[float, float]]]]]
    challenges: Sequence[Mapping[str, Any]] = ()  # one challenge run page each
    # the reason codes page's sections (`reason_code_sections`); empty: no such page
    reason_codes: Sequence[Mapping[str, Any]] = ()


def attempt_page_path(attempt: str) -> str | None:
    """The site folder of an attempt's page (its registry path), or None for a path that
    is not `attempts/market-NN/<submitter>/<attempt>`."""
    if _ATTEMPT_PATH.match(attempt) and ".." not in attempt.split("/"):
        return f"{attempt}/"
    return None


def unreadable_attempt(path: str, market: int | None, reason: Mapping[str, Any]) -> dict[str, Any]:
    """An attempt whose report entry was refused, as the site shows it: no verdict, the
    refusal as its one reason and its page's error panel (`site_error`)."""
    return {
        "attempt": path,
        "market": market,
        "kind": None,
        "evidence": None,
        "status": None,
        "outcome": None,
        "reasons": [dict(reason)],
        "bars": [],
        "site_error": reason["message"],
    }


# A name of the site's copies keeps these bytes as they are; any other is written ~XX (its
# hex), so `~` followed by two hex digits never stands for itself and `~~` is free for names
# made from a digest. Suffixes a copy's name may end in (`.txt`, `.bin`) are never the end of
# a folder's name: a folder whose name ends in one of them (or in `.dir`) gets `.dir` added.
_KEPT_BYTES = frozenset(b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789._-")
_COPY_SUFFIXES = (".txt", ".bin", ".dir")
_MAX_COPY_NAME = 120  # bytes of one name in the site (file systems allow 255)
_MAX_COPY_PATH = 600  # bytes of a copy's path below files/<attempt>/


def _copy_name(name: str) -> str:
    raw = name.encode("utf-8", "surrogateescape")
    out = "".join(
        chr(byte) if byte in _KEPT_BYTES and not (i == 0 and byte == 0x2E) else f"~{byte:02x}"
        for i, byte in enumerate(raw)
    )
    if len(out) > _MAX_COPY_NAME:
        out = f"{out[:40]}~~{hashlib.sha256(raw).hexdigest()[:32]}"
    return out


def evidence_copy_path(attempt: str, relative: str, text: bool) -> str:
    """Where the site keeps its copy of the attempt folder's file `relative`: under
    `files/<attempt>/`, `.txt` (served as plain text) or `.bin` added to its name.

    One file, one copy, whatever the names (`NOTES` and a folder `NOTES.txt/` must
    not make one path, or every build stops): the mapping is one to one, even
    where case is folded. A name's bytes other than letters, digits, `.` (not first), `_` and
    `-` are written `~XX`; a folder whose name ends in `.txt`, `.bin` or `.dir`, in any case,
    gets `.dir` added, so no folder is named as a copy is; a name too long for a file system,
    or a path too deep, is written from its digest (`~~<sha256>`), which no other name can be."""
    parts = relative.split("/")
    folders = []
    for part in parts[:-1]:
        name = _copy_name(part)
        # In any case: on a case-insensitive file system (a reader's download of the site)
        # `NOTES.TXT/` is the copy `NOTES.txt` of a file `NOTES`.
        folders.append(f"{name}.dir" if name.lower().endswith(_COPY_SUFFIXES) else name)
    suffix = ".txt" if text else ".bin"
    below = "/".join([*folders, _copy_name(parts[-1]) + suffix])
    if len(below) > _MAX_COPY_PATH:
        digest = hashlib.sha256(relative.encode("utf-8", "surrogateescape")).hexdigest()
        below = f"~~{digest}{suffix}"
    return f"files/{attempt}/{below}"


def is_slug(name: str) -> bool:
    """A name that may be one folder of the site: letters, digits, `.`, `_`, `-`, and not
    `.` or `..`."""
    return bool(_SLUG.match(name)) and name not in (".", "..")


def market_page_path(market: int) -> str:
    return f"markets/market-{market:02d}/"


def rules_page_path(rules_id: str) -> str:
    return f"rules/{rules_id}/"


# -- the shared rules page ------------------------------------------------------------------


def _machine_readable(paragraph: str) -> dict[str, Any]:
    """A "Machine-readable: a 1 · b 2" line as its items (name, value text)."""
    items = []
    for part in paragraph.removeprefix(_MACHINE_READABLE).split("·"):
        text = part.strip()
        match = _ITEM.match(text)
        items.append(
            {"name": match.group("name"), "value": match.group("value")}
            if match
            else {"name": text, "value": None}
        )
    return {"kind": "machine-readable", "items": items}


def rules_blocks(text: str) -> list[dict[str, Any]]:
    """A section's text as blocks: paragraphs (split on blank lines), machine-readable lines,
    and bulleted lists (lines starting with "•")."""
    blocks: list[dict[str, Any]] = []
    for paragraph in (p.strip() for p in text.split("\n\n")):
        if not paragraph:
            continue
        if paragraph.startswith(_MACHINE_READABLE):
            blocks.append(_machine_readable(paragraph))
        elif paragraph.startswith("•"):
            items = []
            for line in paragraph.splitlines():
                body = line.strip().removeprefix("•").strip()
                term, colon, rest = body.partition(": ")
                items.append({"term": term, "text": rest} if colon else {"term": "", "text": body})
            blocks.append({"kind": "list", "items": items})
        else:
            blocks.append({"kind": "paragraph", "text": paragraph})
    return blocks


def _rules_page(rules: Mapping[str, Any]) -> dict[str, Any]:
    sections = []
    for section in rules.get("sections") or []:
        sections.append(
            {
                "heading": str(section["heading"]),
                "level": int(section["level"]),
                "blocks": rules_blocks(str(section.get("text") or "")),
            }
        )
    # The seed's first heading names the site, its second the page: the page's h1 is the
    # second, and the sections below it keep their levels (h2, h3).
    site_name = sections[0]["heading"] if len(sections) > 1 else "AI Safety Claims"
    page = sections[1:] if len(sections) > 1 else sections
    rules_id = str(rules.get("id", "common-v1"))
    return {
        "id": rules_id,
        "version": rules.get("version"),
        "title": page[0]["heading"] if page else str(rules.get("title", "")),
        "site_name": site_name,
        "intro": page[0]["blocks"] if page else [],
        "sections": page[1:],
        "path": rules_page_path(rules_id),
        "source_file": f"{rules_id}.yaml",
    }


# -- the reason codes page ------------------------------------------------------------------

REASON_CODES_PAGE = "reason-codes/"
_CODE_HEADING = re.compile(r"\A###\s+`([a-z0-9-]+)`\s*\Z")
_LINK = re.compile(r"\[([^\]]+)\]\([^)]*\)")


def _inline(text: str) -> list[dict[str, str]]:
    """A paragraph's text as runs: plain text and `code` spans (links keep their words)."""
    runs = []
    for i, part in enumerate(_LINK.sub(r"\1", text).split("`")):
        if part:
            runs.append({"kind": "code" if i % 2 else "text", "text": part})
    return runs


def reason_code_sections(markdown: str) -> list[dict[str, Any]]:
    """docs/reason-codes.md as the site's page shows it: each `##` section (its `###`
    subsections inside, one per reason code, whose id is the code itself), each as blocks:
    paragraphs (text and code runs), and code, tables and lists kept as preformatted text.
    The text before the first `##` is the page's introduction (`level` 1)."""
    sections: list[dict[str, Any]] = [{"level": 1, "title": "", "id": "", "blocks": []}]
    lines = markdown.splitlines()
    paragraph: list[str] = []
    fence: list[str] | None = None
    seen: set[str] = set()

    def flush() -> None:
        if paragraph:
            text = "\n".join(paragraph)
            raw = text.lstrip().startswith(("|", "- ", "* ", "1. "))
            block = {"kind": "pre", "text": text} if raw else {"kind": "p", "runs": _inline(text)}
            sections[-1]["blocks"].append(block)
            paragraph.clear()

    for line in lines:
        if fence is not None:
            if line.startswith("```"):
                sections[-1]["blocks"].append({"kind": "pre", "text": "\n".join(fence)})
                fence = None
            else:
                fence.append(line)
            continue
        if line.startswith("```"):
            flush()
            fence = []
        elif line.startswith("# "):
            flush()
        elif line.startswith(("## ", "### ")):
            flush()
            code = _CODE_HEADING.match(line)
            title = line.split(" ", 1)[1].strip().strip("`")
            level = 2 if line.startswith("## ") else 3
            slug = code.group(1) if code else re.sub(r"[^a-z0-9]+", "-", title.lower()).strip("-")
            while slug in seen or not slug:
                slug = f"{slug}-{len(seen)}"
            seen.add(slug)
            sections.append(
                {"level": level, "title": title, "id": slug, "code": bool(code), "blocks": []}
            )
        elif not line.strip():
            flush()
        else:
            paragraph.append(line)
    flush()
    return sections


# -- markets ---------------------------------------------------------------------------------


def _reason(data: Mapping[str, Any]) -> dict[str, Any]:
    return {key: data.get(key) for key in ("code", "message", "file", "line", "severity", "stage")}


def _attempt_row(
    attempt: str, summary: Mapping[str, Any] | None, verified: Mapping[str, Any] | None
) -> dict[str, Any]:
    """A market page's line for one attempt: its verdict as the market was resolved (the
    record's or resolve report's summary) and, from the verify report, its reasons."""
    source = summary if summary is not None else verified or {}
    reasons = [_reason(r) for r in (verified or {}).get("reasons", [])]
    codes = list(summary.get("reasons", [])) if summary is not None else []
    known = {r["code"] for r in reasons}
    reasons += [_reason({"code": code}) for code in codes if code not in known]
    return {
        "attempt": attempt,
        "kind": (verified or {}).get("kind"),
        "evidence": source.get("evidence"),
        "status": source.get("status"),
        "outcome": source.get("outcome"),
        "counts": summary.get("counts") if summary is not None else None,
        "reasons": reasons,
        "page": attempt_page_path(attempt) if verified is not None else None,
    }


_ARCHIVE_FIELDS = ("kind", "id", "doi", "url", "file", "checksum", "sha256", "created", "tag")


def _archive(entry: Mapping[str, Any] | None) -> dict[str, Any] | None:
    """An archive copy with every field named (None where the record has none)."""
    return None if not entry else {key: entry.get(key) for key in _ARCHIVE_FIELDS}


def _snapshot(
    record: Mapping[str, Any] | None, resolution: Mapping[str, Any] | None
) -> dict[str, Any] | None:
    if record is not None:
        snapshot = record["snapshot"]
        archive = record.get("archive")
        return {
            "tag": snapshot["tag"],
            "state": snapshot["state"],
            "commit": snapshot.get("commit"),
            "tagged_at": snapshot.get("tagged_at"),
            "archive": _archive(archive),
        }
    if resolution is not None:
        snapshot = resolution["snapshot"]
        return {
            "tag": snapshot["tag"],
            "state": snapshot["tag_state"],
            "commit": None,
            "tagged_at": snapshot.get("tagged_at"),
            "archive": _archive(
                {"id": snapshot["archive_ref"], "created": snapshot.get("archived_at")}
                if snapshot.get("archive_ref")
                else None
            ),
        }
    return None


def _contract(contract: MarketContract) -> dict[str, Any]:
    data = contract.data
    floors = data.get("floors") or {}
    bars = []
    for bar in data.get("bars") or []:
        is_upper = bar.get("statistic") == "rate_upper"
        bars.append(
            {
                "id": bar.get("id"),
                "title": bar.get("title"),
                "statistic": bar.get("statistic"),
                "comparison": "max" if is_upper else "min",
                "threshold": bar.get("max") if is_upper else bar.get("min"),
                "denominator": bar.get("denominator"),
            }
        )
    return {
        "question": data.get("question"),
        "shared_rules": data.get("shared_rules"),
        "budget_class": contract.market.adversarial_budget,
        "assumed_access": contract.market.assumed_access,
        "kinds": list(contract.market.kinds),
        "floors": {
            "min_units": floors.get("min_units"),
            "min_systems": floors.get("min_systems"),
            "min_families": floors.get("min_families"),
            "required_families": list(floors.get("required_families") or []),
        },
        "required_outputs": list(contract.market.required_outputs),
        "bars": bars,
        "file": contract.market.path,
    }


# "working tree /home/runner/work/registry/registry": the label of the tree a report or a
# record was read from names the machine's folder, which says nothing to a reader and is no
# business of the public site (a resolution record keeps the job runner's).
_LOCAL_TREE = re.compile(r"working tree /[^\s,;:)]*")


def public_text(text: str) -> str:
    """`text` without any machine's local folder: `working tree /x/y` becomes `working tree`."""
    return _LOCAL_TREE.sub("working tree", text)


def _public_source(source: object) -> object:
    """Where a market's attempts were read from, as the public may read it."""
    if isinstance(source, str) and source.startswith("working tree"):
        return "working tree (the registry's branch as checked out)"
    return source


def _market(inputs: SiteInputs, contract: MarketContract) -> dict[str, Any]:
    market = contract.market
    record = inputs.records.get(market.id)
    resolution = inputs.resolutions.get(market.id)
    dates = MarketDates.of(market.resolve_by, inputs.window_days, inputs.annul_after_days)
    if record is not None:
        decided_by = "resolution-record"
        outcome = record["outcome"]
        state = "annulled" if outcome == "ANNULLED" else "closed"
        provisional = None
        why = record["why"]
        as_of = record["as_of"]
        warnings = list(record.get("warnings", []))
        summaries = {a["attempt"]: a for a in record.get("attempts", [])}
        record_dates = record["dates"]
    elif resolution is not None:
        decided_by = "resolve-report"
        outcome = resolution["outcome"]
        state = resolution["state"]
        provisional = resolution["provisional_outcome"]
        why = resolution["why"]
        as_of = resolution["as_of"]
        warnings = list(resolution.get("warnings", []))
        summaries = {a["attempt"]: a for a in resolution.get("attempts", [])}
        record_dates = {key: resolution[key] for key in ("resolve_by", "window_closes", "annul_on")}
    else:
        decided_by, outcome, state, provisional, why, as_of = (
            None,
            None,
            "unknown",
            None,
            None,
            None,
        )
        warnings, summaries = [], {}
        record_dates = {
            "resolve_by": dates.resolve_by.isoformat(),
            "window_closes": dates.window_closes.isoformat(),
            "annul_on": dates.annul_on.isoformat(),
        }
    if market.id in inputs.unreadable_markets:
        warnings.append(inputs.unreadable_markets[market.id])
    verified = {
        path: data for path, data in inputs.attempts.items() if data.get("market") == market.id
    }
    attempts = [
        _attempt_row(path, summaries.get(path), verified.get(path))
        for path in sorted(set(summaries) | set(verified))
    ]
    return {
        "site_version": SITE_VERSION,
        "market": market.id,
        "title": market.title,
        "demo": market.demo,
        "contract": _contract(contract),
        "dates": dict(record_dates),
        "state": state,
        "outcome": outcome,
        "provisional_outcome": provisional,
        "why": public_text(why) if isinstance(why, str) else why,
        "decided_by": decided_by,
        "as_of": as_of,
        "resolved_at": record.get("resolved_at") if record is not None else None,
        "source": _public_source((record or resolution or {}).get("source")),
        "snapshot": _snapshot(record, resolution),
        "warnings": [public_text(w) if isinstance(w, str) else w for w in warnings],
        "attempts": attempts,
        "page": market_page_path(market.id),
        "json": f"market-{market.id:02d}.json",
    }


def _index(inputs: SiteInputs, markets: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    numbers = {m["market"] for m in markets}
    return {
        "site_version": SITE_VERSION,
        "generated_on": inputs.generated_on.isoformat(),
        "sources": list(inputs.sources),
        "shared_rules": {
            "id": str(inputs.rules.get("id", "")),
            "page": rules_page_path(str(inputs.rules.get("id", ""))),
        },
        "markets": [
            {
                "market": m["market"],
                "title": m["title"],
                "demo": m["demo"],
                "budget_class": m["contract"]["budget_class"],
                "resolve_by": m["dates"]["resolve_by"],
                "window_closes": m["dates"]["window_closes"],
                "annul_on": m["dates"]["annul_on"],
                "state": m["state"],
                "outcome": m["outcome"],
                "provisional_outcome": m["provisional_outcome"],
                "decided_by": m["decided_by"],
                "attempts": len(m["attempts"]),
                "page": m["page"],
                "json": m["json"],
            }
            for m in markets
        ],
        "registry_problems": list(
            {
                (r["code"], r["message"], r["file"], r["line"]): r
                for r in (_reason(problem) for problem in inputs.problems)
            }.values()
        ),
        # Attempts that name a market without a contract here (market 14, say): listed so
        # that their pages are reachable.
        "other_attempts": [
            {"attempt": path, "market": data.get("market"), "page": attempt_page_path(path)}
            for path, data in sorted(inputs.attempts.items())
            if data.get("market") not in numbers and attempt_page_path(path) is not None
        ],
    }


# -- challenge runs --------------------------------------------------------------------------


def challenge_page_path(run: str) -> str:
    return f"challenges/{run}/"


def _challenge(
    run: str, data: Mapping[str, Any] | None, has_curves: bool, inputs: SiteInputs
) -> dict[str, Any]:
    """A challenge run's page: what the verify report says of it (when a report holds it)
    and whether its best-so-far curves are drawn."""
    market = (data or {}).get("market")
    attempts = []
    for entry in (data or {}).get("attempts", []):
        tasks = entry.get("tasks") or {}
        fields = sorted({key for result in tasks.values() for key in result})
        folder = (
            f"attempts/market-{market:02d}/{entry['attempt']}"
            if isinstance(market, int) and not isinstance(market, bool)
            else None
        )
        attempts.append(
            {
                "attempt": entry["attempt"],
                "source": entry.get("source"),
                "fields": fields,
                "tasks": [
                    {"case": case, "values": [tasks[case].get(f) for f in fields]}
                    for case in sorted(tasks)
                ],
                "page": attempt_page_path(folder)
                if folder is not None and folder in inputs.attempts
                else None,
            }
        )
    return {
        "run": run,
        "in_report": data is not None,
        **{
            key: (data or {}).get(key)
            for key in (
                "path",
                "market",
                "operator",
                "scorer",
                "recomputed_by",
                "evidence",
                "cases",
            )
        },
        "reasons": [_reason(r) for r in (data or {}).get("reasons", [])],
        "attempts": attempts,
        "curves": has_curves,
        "page": challenge_page_path(run),
    }


# -- attempts --------------------------------------------------------------------------------


def _bar_view(bar: Mapping[str, Any]) -> dict[str, Any]:
    """A bar of the verify report, with the point estimate the chart draws beside its bound:
    the AUROC the report gives, or for an upper rate bound failures / units."""
    estimate = None
    if bar.get("auroc") is not None:
        estimate = bar["auroc"]
    elif bar.get("statistic") == "rate_upper" and bar.get("units"):
        failures = bar.get("failures")
        estimate = failures / bar["units"] if isinstance(failures, int) else None
    return {**bar, "estimate": estimate}


def _attempt_page(
    inputs: SiteInputs, path: str, data: Mapping[str, Any], titles: Mapping[int, str]
) -> dict[str, Any]:
    market = data.get("market")
    has_market = isinstance(market, int) and market in titles
    return {
        **data,
        "bars": [_bar_view(bar) for bar in data.get("bars", [])],
        "page": attempt_page_path(path),
        "market_title": titles.get(market) if isinstance(market, int) else None,
        "market_page": market_page_path(market) if has_market and market is not None else None,
        "files": list(inputs.files.get(path, ())),
        "filed": dict(inputs.filed.get(path) or {}),
    }


def _planning_error(what: str, error: Exception) -> dict[str, Any]:
    return {
        "code": "report-entry-refused",
        "message": f"the site could not show {what}: {type(error).__name__}: {error}",
        "file": None,
        "line": None,
        "severity": "error",
        "stage": None,
    }


def _guarded_attempt_page(
    inputs: SiteInputs, path: str, data: Mapping[str, Any], titles: Mapping[int, str]
) -> dict[str, Any]:
    """An attempt's page; one its entry cannot make (whatever it holds) is its error panel."""
    try:
        return _attempt_page(inputs, path, data, titles)
    except Exception as error:  # one attempt's page, never the whole site
        market = data.get("market") if isinstance(data, Mapping) else None
        number = market if isinstance(market, int) and not isinstance(market, bool) else None
        reason = {**_planning_error(f"attempt {path}", error), "file": path}
        return _attempt_page(inputs, path, unreadable_attempt(path, number, reason), titles)


def _guarded_challenge(run: str, inputs: SiteInputs) -> dict[str, Any]:
    """A challenge run's page; one its entry cannot make is a page with the reason."""
    try:
        return _challenge(run, inputs.challenge_runs.get(run), run in inputs.curves, inputs)
    except Exception as error:  # one run's page, never the whole site
        stub = {"run": run, "reasons": [_planning_error(f"challenge run {run}", error)]}
        return _challenge(run, stub, False, inputs)


def plan_site(inputs: SiteInputs) -> SitePlan:
    """The website's pages and endpoints as data (see the module's docstring)."""
    contracts = sorted(inputs.contracts, key=lambda c: c.market.id)
    markets = [_market(inputs, contract) for contract in contracts]
    titles = {c.market.id: c.market.title for c in contracts}
    attempts = [
        _guarded_attempt_page(inputs, path, data, titles)
        for path, data in sorted(inputs.attempts.items())
        if attempt_page_path(path) is not None
    ]
    runs = sorted(run for run in {*inputs.challenge_runs, *inputs.curves} if is_slug(run))
    challenges = [_guarded_challenge(run, inputs) for run in runs]
    index = _index(inputs, markets)
    index["challenge_runs"] = [
        {key: c[key] for key in ("run", "market", "scorer", "evidence", "page")} for c in challenges
    ]
    return SitePlan(
        rules=_rules_page(inputs.rules),
        markets=markets,
        attempts=attempts,
        index=index,
        curves=inputs.curves,
        challenges=challenges,
        reason_codes=reason_code_sections(inputs.reason_codes) if inputs.reason_codes else (),
    )

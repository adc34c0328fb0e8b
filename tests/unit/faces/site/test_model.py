"""bot/faces/site/model.py: what the pages show is copied from the bot's reports and records."""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.faces.site.model import (
    attempt_page_path,
    plan_site,
    rules_blocks,
)
from tests.support import (
    SITE_ATTEMPT,
    site_attempt,
    site_inputs,
    site_record,
)


def _resolution(outcome: str | None = None, state: str = "filing-window") -> dict[str, Any]:
    return {
        "market": 3,
        "title": "t",
        "demo": True,
        "resolve_by": "2027-06-30",
        "window_closes": "2027-08-29",
        "annul_on": "2027-09-28",
        "as_of": "2027-07-15",
        "state": state,
        "outcome": outcome,
        "provisional_outcome": "NO",
        "why": "every qualifying attempt missed",
        "warnings": [],
        "source": "working tree /r",
        "snapshot": {
            "tag": "snapshot-2027-06-30",
            "tag_state": "missing",
            "archive_state": "missing",
            **dict.fromkeys(("tag_exists", "tag_counts", "archived", "archive_counts"), False),
            **dict.fromkeys(("tagged_at", "archived_at", "archive_ref")),
        },
        "attempts": [
            {
                "attempt": SITE_ATTEMPT,
                "evidence": "valid",
                "status": "qualifying",
                "outcome": "missed",
                "reasons": [],
                "counts": True,
            }
        ],
    }


def test_a_market_without_a_resolution_has_no_outcome_and_its_contracts_dates() -> None:
    [market] = plan_site(site_inputs()).markets
    assert (market["state"], market["outcome"], market["decided_by"]) == ("unknown", None, None)
    assert market["dates"] == {
        "resolve_by": "2027-06-30",
        "window_closes": "2027-08-29",
        "annul_on": "2027-09-28",
    }
    assert market["snapshot"] is None
    [row] = market["attempts"]
    assert (row["status"], row["outcome"], row["page"]) == ("qualifying", "met", f"{SITE_ATTEMPT}/")


def test_the_resolve_report_says_state_and_outcome_as_of_its_date() -> None:
    [market] = plan_site(site_inputs(resolutions={3: _resolution()})).markets
    assert (market["state"], market["outcome"], market["provisional_outcome"]) == (
        "filing-window",
        None,
        "NO",
    )
    assert (market["decided_by"], market["as_of"]) == ("resolve-report", "2027-07-15")
    # the attempt's verdict as the market was resolved; its reasons from the verify report
    [row] = market["attempts"]
    assert (row["outcome"], row["counts"]) == ("missed", True)
    assert [r["code"] for r in row["reasons"]] == ["freeze-date-unconfirmed"]


def test_a_resolution_record_is_final_and_wins_over_the_resolve_report() -> None:
    plan = plan_site(
        site_inputs(resolutions={3: _resolution("NO", "closed")}, records={3: site_record()})
    )
    [market] = plan.markets
    assert (market["state"], market["outcome"], market["decided_by"]) == (
        "closed",
        "YES",
        "resolution-record",
    )
    assert market["snapshot"]["commit"] == "a" * 40
    assert market["snapshot"]["archive"]["doi"] == "10.5281/zenodo.123"
    assert market["snapshot"]["archive"]["sha256"] is None  # every field named
    rows = {row["attempt"]: row for row in market["attempts"]}
    # an attempt only the record knows: its codes, no page (the verify report lacks it)
    gone = rows["attempts/market-03/bob-lab/gone"]
    assert [r["code"] for r in gone["reasons"]] == ["case-hash-mismatch"]
    assert gone["page"] is None and gone["reasons"][0]["message"] is None
    assert plan.index["markets"][0]["outcome"] == "YES"


def test_an_annulled_record_makes_the_state_annulled() -> None:
    record = {**site_record(), "outcome": "ANNULLED", "archive": None}
    [market] = plan_site(site_inputs(records={3: record})).markets
    assert (market["state"], market["outcome"]) == ("annulled", "ANNULLED")
    assert market["snapshot"]["archive"] is None


def test_fields_a_later_report_adds_ride_along_to_the_attempt_page() -> None:
    bar = {
        **site_attempt()["bars"][0],
        "units_per_class": {"positive": 10, "negative": 6},
        "coverage": 0.874,
        "auroc_lower_alt": {"method": "hanley-mcneil", "bound": 0.81},
    }
    attempt = site_attempt(bars=[bar], challenge={"tasks": 3})
    [page] = plan_site(site_inputs(attempts={SITE_ATTEMPT: attempt})).attempts
    assert page["bars"][0]["units_per_class"] == {"positive": 10, "negative": 6}
    assert page["bars"][0]["coverage"] == 0.874
    assert page["bars"][0]["estimate"] == 1 / 16  # failures / units beside the upper bound
    assert page["challenge"] == {"tasks": 3}
    assert page["market_page"] == "markets/market-03/"


def test_an_attempt_path_of_another_shape_gets_no_page() -> None:
    odd = "attempts/market-03/../../etc"
    plan = plan_site(site_inputs(attempts={odd: site_attempt(attempt=odd)}))
    assert plan.attempts == []
    assert plan.markets[0]["attempts"][0]["page"] is None


def test_the_rules_page_follows_the_seeds_sections() -> None:
    rules = plan_site(site_inputs()).rules
    assert rules["site_name"] == "AI Safety Claims"
    assert rules["title"] == "Rules every contract shares (version 1)"
    assert rules["path"] == "rules/common-v1/"
    headings = [s["heading"] for s in rules["sections"]]
    assert headings[0] == "Three Way Rule" and headings[-1] == "Serious"
    red = next(s for s in rules["sections"] if s["heading"] == "Red teams")
    assert red["blocks"][0] == {
        "kind": "machine-readable",
        "items": [
            {"name": "min groups", "value": "3"},
            {"name": "min organizations", "value": "2"},
            {"name": "min hours each", "value": "80"},
        ],
    }
    checks = next(s for s in rules["sections"] if s["heading"] == "All")
    assert [i["term"] for i in checks["blocks"][0]["items"]] == [
        "reconstructible",
        "per-instance-certificate",
        "not-toy-only",
        "broadly-capable",
    ]


_NAME = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ", min_size=1, max_size=20).map(
    lambda s: " ".join(s.split()) or "x"
)
_VALUE = st.one_of(
    st.integers(min_value=0, max_value=10**9).map(str),
    st.floats(min_value=0, max_value=1e6, allow_nan=False).map(lambda f: f"{f:.3f}"),
)


@given(st.lists(st.tuples(_NAME, _VALUE), min_size=1, max_size=6))
def test_a_machine_readable_line_parses_back_to_its_items(items: list[tuple[str, str]]) -> None:
    line = "Machine-readable: " + " · ".join(f"{name} {value}" for name, value in items)
    [block] = rules_blocks(f"{line}\n\nSome prose.")[:1]
    assert block == {
        "kind": "machine-readable",
        "items": [{"name": name, "value": value} for name, value in items],
    }


@given(st.text(max_size=200))
def test_rules_blocks_never_fail_and_keep_every_paragraph(text: str) -> None:
    blocks = rules_blocks(text)
    assert len(blocks) == len([p for p in text.split("\n\n") if p.strip()])


@given(st.text(max_size=120))
def test_an_attempt_page_path_stays_below_attempts(path: str) -> None:
    page = attempt_page_path(path)
    if page is not None:
        parts = page.rstrip("/").split("/")
        assert parts[0] == "attempts" and len(parts) == 4
        assert not {"", ".", ".."} & set(parts)
        assert all(part.isascii() for part in parts)


def test_registry_problems_of_the_reports_are_listed_once() -> None:
    problem = {
        "code": "snapshot-late",
        "message": "snapshot-2027-06-30 was tagged after the annulment date",
        "file": None,
        "line": None,
        "severity": "warning",
    }
    index = plan_site(site_inputs(problems=[problem, dict(problem)])).index
    assert [(p["code"], p["severity"]) for p in index["registry_problems"]] == [
        ("snapshot-late", "warning")
    ]


_NAME_PART = st.one_of(
    st.sampled_from(["NOTES", "NOTES.txt", "x.bin", "a.dir", "a.txt.dir", ".", "..", "~", "~7e"]),
    st.text(st.characters(codec="utf-8", exclude_characters="/\0"), min_size=1, max_size=300),
    st.binary(min_size=1, max_size=40).map(
        lambda raw: raw.replace(b"/", b"_").replace(b"\0", b"_").decode("utf-8", "surrogateescape")
    ),
)
_RELATIVE = st.lists(_NAME_PART, min_size=1, max_size=8).map("/".join)


@given(st.lists(st.tuples(_RELATIVE, st.booleans()), min_size=1, max_size=12))
def test_evidence_copies_are_one_to_one_and_safe_whatever_the_names(
    files: list[tuple[str, bool]],
) -> None:
    """Issue 21, item 5: a file `NOTES` and a folder `NOTES.txt/` once got one copy path. No
    two files of a folder share a copy path, no copy is a folder another copy needs, and every
    part is a name a file system holds (not empty, `.` or `..`, no `\\`, under 255 bytes)."""
    from bot.faces.site.model import evidence_copy_path

    folder = "attempts/market-03/alice-lab/monitor-v1"
    # a folder's files: no path is both a file and a folder on the way to another
    paths = {relative: text for relative, text in files}
    prefixes = {"/".join(p.split("/")[:i]) for p in paths for i in range(1, p.count("/") + 1)}
    paths = {p: text for p, text in paths.items() if p not in prefixes}
    copies = {evidence_copy_path(folder, p, text): p for p, text in paths.items()}
    assert len(copies) == len(paths)
    folders = {"/".join(c.split("/")[:i]) for c in copies for i in range(1, c.count("/") + 1)}
    assert not folders & set(copies)
    for copy in copies:
        assert copy.startswith(f"files/{folder}/") and copy.endswith((".txt", ".bin"))
        for part in copy.split("/"):
            assert part not in ("", ".", "..") and "\\" not in part and not part.startswith(".")
            assert len(part.encode("utf-8")) <= 255 and part.isascii() and part.isprintable()
        assert len(copy.encode()) < 1000


def test_evidence_copies_stay_apart_on_a_case_insensitive_file_system() -> None:
    """Review of issue 21 (item 5's mapping, on a reader's download of the site): a file
    `NOTES` and a folder `NOTES.TXT/` are no path collision for verify (`notes` and
    `notes.txt` fold apart), but the folder's suffix was matched by case (`.txt` only), so
    their copies were `NOTES.txt` and `NOTES.TXT/`: one name on macOS or Windows, where an
    unzipped copy of the site holds only one of them. A folder ending in `.txt`, `.bin` or
    `.dir` in any case gets `.dir` added."""
    from bot.faces.site.model import evidence_copy_path

    folder = "attempts/market-03/alice-lab/monitor-v1"
    for suffix in (".TXT", ".Txt", ".BIN", ".Dir"):
        stem = "NOTES"
        file = evidence_copy_path(folder, stem, suffix.lower() != ".bin")
        inside = evidence_copy_path(folder, f"{stem}{suffix}/x", True)
        parts = inside.split("/")
        folders = {"/".join(parts[:i]).casefold() for i in range(1, len(parts))}
        assert file.casefold() not in folders, (file, inside)
    # a folder `a.txt` is copied as `a.txt.dir/`; a folder `a.txt.DIR` must not be that name
    txt = evidence_copy_path(folder, "a.txt/x", True).split("/")[-2]
    dir_ = evidence_copy_path(folder, "a.txt.DIR/x", True).split("/")[-2]
    assert txt.casefold() != dir_.casefold(), (txt, dir_)

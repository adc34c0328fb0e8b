"""`claims resolve` end to end: the Three Way Rule, the market's dates, snapshots, annulment.

Every registry is built by the test factory (freeze merged before the run, judgments by a
maintainer); every JSON report is validated against schemas/resolve-report.schema.json.
Market 3 resolves by R = 2027-06-30: its window closes 2027-08-29 and it is annulled after
2027-09-28 if neither the tag `snapshot-2027-06-30` nor its archive record exists.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from bot.edges.dump import dump_yaml
from bot.faces.demo.specimen import AttemptSpec, market_document
from tests.support import PROJECT, Files, RegistryFactory, rewrite

TAG = "snapshot-2027-06-30"
CLOSED = "2027-09-01"  # after the window, before the annulment date
ANNULLABLE = "2027-09-29"  # the day after the annulment date


def _validator() -> Draft202012Validator:
    resources = []
    for file in sorted((PROJECT / "schemas").glob("*.schema.json")):
        contents = json.loads(file.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    registry: Registry = Registry().with_resources(resources)
    schema = json.loads((PROJECT / "schemas" / "resolve-report.schema.json").read_text())
    return Draft202012Validator(
        schema, registry=registry, format_checker=Draft202012Validator.FORMAT_CHECKER
    )


VALIDATOR = _validator()


@pytest.fixture
def resolve(run_claims):
    """Run `claims resolve --registry ROOT ...`; validate the report; return it with the code."""

    def run(root: Path, *args: str | Path) -> tuple[int, dict[str, Any], str]:
        result = run_claims("resolve", "--registry", root, *args)
        assert result.report is not None, result.err
        VALIDATOR.validate(result.report)
        return result.code, result.report, result.out

    return run


def _market(report: dict[str, Any], number: int = 3) -> dict[str, Any]:
    (market,) = [m for m in report["markets"] if m["market"] == number]
    return market


def _markets(**overrides: Any) -> dict[str, bytes]:
    return {
        "markets/market-03.yaml": dump_yaml(market_document(3, "default", **overrides)),
        "markets/market-05.yaml": dump_yaml(market_document(5, "serious")),
    }


def _bars(*extra: dict[str, Any]) -> list[dict[str, Any]]:
    return [*market_document(3, "default")["bars"], *extra]


WINDOW_CLOSED_AT = "2027-08-30T13:00:00Z"  # when the schedule tags market 3's snapshot
ANNULMENT_ENDS = "2027-09-29T12:00:00Z"  # the annulment date 2027-09-28 ends (Anywhere on Earth)


def _tag(built: Any, at: str = WINDOW_CLOSED_AT, ref: str = "HEAD") -> None:
    """An annotated tag, its tagger date `at` (as the scheduled snapshot makes it)."""
    with built.repo.git.custom_environment(GIT_COMMITTER_DATE=at):
        built.repo.create_tag(TAG, ref=ref, message=f"{TAG}: the registry when the window closed")


def _archive(folder: Path, record: dict[str, Any] | None = None) -> Path:
    folder.mkdir(parents=True, exist_ok=True)
    data = record or {"doi": "10.5281/zenodo.42", "created": WINDOW_CLOSED_AT}
    (folder / f"{TAG}.json").write_text(json.dumps(data))
    return folder


# ---- the Three Way Rule ---------------------------------------------------------------------


def test_qualifying_attempt_that_met_the_bars_is_yes(
    make_registry: RegistryFactory, resolve
) -> None:
    built = make_registry()
    _tag(built)
    code, report, out = resolve(built.root, "--as-of", CLOSED)
    assert code == 0
    market = _market(report)
    assert (market["state"], market["outcome"]) == ("closed", "YES")
    assert market["warnings"] == [
        f"{TAG}: its archive copy missing; the market is annulled after 2027-09-28 if neither"
        " counts by then"
    ]
    (attempt,) = market["attempts"]
    assert attempt["attempt"] == "attempts/market-03/alice-lab/monitor-v1"
    assert (attempt["status"], attempt["outcome"], attempt["counts"]) == ("qualifying", "met", True)
    assert (market["resolve_by"], market["window_closes"], market["annul_on"]) == (
        "2027-06-30",
        "2027-08-29",
        "2027-09-28",
    )
    assert "YES" in out


def test_every_qualifying_attempt_missed_is_no(make_registry: RegistryFactory, resolve) -> None:
    built = make_registry(AttemptSpec(false_safe_rate=0.5))
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "NO"
    assert market["attempts"][0]["outcome"] == "missed"


def test_one_met_and_one_missed_is_yes(make_registry: RegistryFactory, resolve) -> None:
    missed = AttemptSpec(submitter="bob-lab", slug="monitor-v2", false_safe_rate=0.5, seed=2)
    built = make_registry(also=[missed])
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "YES"
    outcomes = {a["attempt"].split("/")[2]: (a["status"], a["outcome"]) for a in market["attempts"]}
    assert outcomes == {
        "alice-lab": ("qualifying", "met"),
        "bob-lab": ("qualifying", "missed"),
    }


def test_only_not_qualifying_attempts_is_other(make_registry: RegistryFactory, resolve) -> None:
    built = make_registry(judge={"not-toy-only": "fail"})
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "OTHER"
    (attempt,) = market["attempts"]
    assert (attempt["status"], attempt["counts"]) == ("not-qualifying", False)
    assert attempt["reasons"] == ["judged-not-qualifying"]


def test_invalid_evidence_does_not_count(make_registry: RegistryFactory, resolve) -> None:
    def claim_more_units(files: Files) -> None:
        files["scores.yaml"] = files["scores.yaml"].replace(b"units: 16", b"units: 17")

    built = make_registry(change=claim_more_units)
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "OTHER"
    (attempt,) = market["attempts"]
    assert (attempt["evidence"], attempt["status"]) == ("invalid", None)
    assert attempt["reasons"] == ["score-table-mismatch"]


def test_market_with_no_attempt_is_other(make_registry: RegistryFactory, resolve) -> None:
    built = make_registry()  # the attempt is in market 3; market 5 has none
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report, 5)
    assert (market["state"], market["outcome"]) == ("closed", "OTHER")
    assert market["attempts"] == []
    assert market["why"] == "no attempt was filed"


def test_supplied_bar_without_scored_cases_is_other_not_no(
    make_registry: RegistryFactory, resolve
) -> None:
    canary = {
        "id": "canary",
        "statistic": "rate_upper",
        "over": {"case": {"kind": "canary"}},
        "denominator": "supplied",
        "failure": {"field": "verdict", "in": ["false_safe"]},
        "max": 0.2,
    }
    built = make_registry(markets=_markets(bars=_bars(canary)))
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "OTHER"
    assert market["attempts"][0]["reasons"] == ["bar-not-exercised"]


def test_method_output_bar_with_empty_denominator_is_no(
    make_registry: RegistryFactory, resolve
) -> None:
    issued = {
        "id": "issued-safe",
        "statistic": "rate_upper",
        "over": {"result": {"certificate": "certified"}},
        "denominator": "method_output",
        "failure": {"field": "truth", "in": ["unsafe"]},
        "max": 0.2,
    }
    built = make_registry(markets=_markets(bars=_bars(issued)))
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "NO"
    assert (market["attempts"][0]["status"], market["attempts"][0]["outcome"]) == (
        "qualifying",
        "missed",
    )


def test_universal_abstention_is_never_yes(make_registry: RegistryFactory, resolve) -> None:
    def abstain(files: Files) -> None:
        def edit(items: list[dict[str, Any]]) -> None:
            for certificate in items:
                certificate.update(abstain=True, scope_reason="outside the declared scope")

        rewrite(files, "certificates.jsonl", edit)

    built = make_registry(change=abstain)
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "OTHER"
    assert market["attempts"][0]["reasons"] == ["universal-abstention"]


def test_unresolved_judgment_after_the_window_is_other(
    make_registry: RegistryFactory, resolve
) -> None:
    built = make_registry(judge={"broadly-capable": None})
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    assert _market(report)["outcome"] == "OTHER"
    assert _market(report)["attempts"][0]["reasons"] == ["unresolved-judgment"]


# ---- dates: open, filing window, closed, annulled -------------------------------------------


@pytest.mark.parametrize(
    ("as_of", "state", "outcome"),
    [
        ("2027-04-15", "open", None),
        ("2027-06-30", "open", None),  # R itself
        ("2027-07-01", "filing-window", None),
        ("2027-08-29", "filing-window", None),  # the window's last day
        ("2027-08-30", "closed", "YES"),
        ("2027-09-28", "closed", "YES"),  # the annulment date itself: not yet
        (ANNULLABLE, "annulled", "ANNULLED"),
    ],
)
def test_state_follows_the_market_dates(
    make_registry: RegistryFactory, resolve, as_of, state, outcome
) -> None:
    built = make_registry()
    _, report, _ = resolve(built.root, "--as-of", as_of)
    market = _market(report)
    assert (market["state"], market["outcome"]) == (state, outcome)
    assert market["provisional_outcome"] == "YES"
    assert market["as_of"] == report["as_of"] == as_of


def test_annulled_says_it_is_a_registry_failure(make_registry: RegistryFactory, resolve) -> None:
    _, report, _ = resolve(make_registry().root, "--as-of", ANNULLABLE)
    market = _market(report)
    assert "registry failure, not OTHER" in market["why"]
    assert market["snapshot"] == {
        "tag": TAG,
        "tag_exists": False,
        "tag_state": "missing",
        "tagged_at": None,
        "tag_counts": False,
        "archived": False,
        "archive_state": "missing",
        "archived_at": None,
        "archive_counts": False,
        "archive_ref": None,
    }


@pytest.mark.parametrize(
    ("tagged", "archived", "outcome", "missing"),
    [
        (False, False, "ANNULLED", None),
        (True, False, "YES", "its archive copy"),
        (False, True, "YES", "the tag"),
        (True, True, "YES", None),
    ],
)
def test_annulled_only_when_tag_and_archive_are_both_missing(
    make_registry: RegistryFactory, resolve, tmp_path, tagged, archived, outcome, missing
) -> None:
    built = make_registry()
    if tagged:
        _tag(built)
    store = tmp_path / "archive-store"
    if archived:
        _archive(store)
    _, report, _ = resolve(built.root, "--as-of", ANNULLABLE, "--archive-store", store)
    market = _market(report)
    assert market["outcome"] == outcome
    assert market["snapshot"]["tag_exists"] is tagged
    assert market["snapshot"]["archived"] is archived
    assert market["snapshot"]["archive_ref"] == ("10.5281/zenodo.42" if archived else None)
    if outcome == "ANNULLED":
        assert market["state"] == "annulled"
    elif missing is None:
        assert market["warnings"] == []
    else:
        (warning,) = [w for w in market["warnings"] if w.startswith(f"{TAG}: {missing} missing")]
        # without a tag tree to read, main as it stood at the window's close is read
        read_from = [w for w in market["warnings"] if w != warning]
        assert [("window's close" in note) for note in read_from] == ([] if tagged else [True])


def test_default_archive_store_is_inside_the_registry(
    make_registry: RegistryFactory, resolve
) -> None:
    built = make_registry()
    _archive(built.root / ".claims" / "archive", {"id": "local-7", "created": WINDOW_CLOSED_AT})
    _, report, _ = resolve(built.root, "--as-of", ANNULLABLE)
    market = _market(report)
    assert market["outcome"] == "YES"
    assert market["snapshot"]["archive_ref"] == "local-7"


def test_archive_record_of_another_date_does_not_count(
    make_registry: RegistryFactory, resolve, tmp_path
) -> None:
    store = tmp_path / "store"
    store.mkdir()
    (store / "snapshot-2027-06-29.json").write_text(
        json.dumps({"doi": "10.5281/zenodo.1", "created": WINDOW_CLOSED_AT})
    )
    _, report, _ = resolve(
        make_registry().root, "--as-of", ANNULLABLE, "--archive-store", str(store)
    )
    assert _market(report)["outcome"] == "ANNULLED"


# ---- which snapshot counts: annotated, dated by the annulment date and by --as-of ----------


def _first_commit(built: Any) -> str:
    """The registry's first commit: shared rules and markets, no attempt yet."""
    return built.repo.git.rev_list("--max-parents=0", "main").strip()


def _codes(report: dict[str, Any]) -> list[tuple[str, str]]:
    return [(p["code"], p["severity"]) for p in report["registry_problems"]]


@pytest.mark.parametrize(
    ("at", "state", "outcome"),
    [
        ("2027-09-29T11:59:59Z", "ok", "YES"),  # the last moment of 2027-09-28 somewhere
        ("2027-09-29T12:00:01Z", "late", "ANNULLED"),
        ("2027-10-01T09:00:00Z", "late", "ANNULLED"),
    ],
)
def test_a_tag_dated_after_the_annulment_date_never_counts(
    make_registry: RegistryFactory, resolve, at, state, outcome
) -> None:
    built = make_registry()
    _tag(built, at)
    code, report, out = resolve(built.root, "--as-of", "2027-10-15")
    market = _market(report)
    assert market["outcome"] == outcome
    assert market["snapshot"]["tag_exists"] is True
    assert market["snapshot"]["tag_state"] == state
    assert market["snapshot"]["tag_counts"] is (state == "ok")
    assert market["snapshot"]["tagged_at"] == at
    if state == "late":
        assert _codes(report) == [("snapshot-late", "warning")]
        message = report["registry_problems"][0]["message"]
        assert message.startswith(f"{TAG} was tagged {at}, after the annulment date 2027-09-28")
        assert message in market["warnings"]
        assert "snapshot-late" in out
        assert code == 0  # a warning, not a registry error: the market is resolved
    else:
        assert report["registry_problems"] == []


def test_a_lightweight_tag_never_counts(make_registry: RegistryFactory, resolve) -> None:
    built = make_registry()
    built.repo.create_tag(TAG)  # no message: a lightweight tag, with no date of its own
    code, report, _ = resolve(built.root, "--as-of", ANNULLABLE)
    market = _market(report)
    assert (market["state"], market["outcome"]) == ("annulled", "ANNULLED")
    assert market["snapshot"]["tag_state"] == "lightweight"
    assert (market["snapshot"]["tag_counts"], market["snapshot"]["tagged_at"]) == (False, None)
    assert _codes(report) == [("snapshot-late", "warning")]
    assert "lightweight" in report["registry_problems"][0]["message"]
    assert code == 0


@pytest.mark.parametrize("kind", ["lightweight", "late"])
def test_a_tag_that_does_not_count_is_not_read(
    make_registry: RegistryFactory, resolve, kind
) -> None:
    # The tag points at the registry's first commit, where market 3 has no attempt: were its
    # tree read, the market would be OTHER.
    built = make_registry()
    first = _first_commit(built)
    if kind == "lightweight":
        built.repo.create_tag(TAG, ref=first)
    else:
        _tag(built, "2027-10-01T09:00:00Z", ref=first)
    _, report, out = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert (market["state"], market["outcome"]) == ("closed", "YES")
    # never the tag's tree: main as it stood when the window closed
    assert market["source"].startswith("git commit")
    assert any("read from main as it stood at the window's close" in w for w in market["warnings"])
    assert "as it stood at the window's close" in out


def test_a_counting_tag_is_read(make_registry: RegistryFactory, resolve) -> None:
    built = make_registry()
    _tag(built, ref=_first_commit(built))
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert market["outcome"] == "OTHER"  # what the tag froze: no attempt yet
    assert market["source"].startswith("git commit")
    assert market["snapshot"]["tag_state"] == "ok"


def test_as_of_counts_only_tags_made_by_then(make_registry: RegistryFactory, resolve) -> None:
    built = make_registry()
    _tag(built, "2027-09-10T09:00:00Z", ref=_first_commit(built))
    _, before, _ = resolve(built.root, "--as-of", "2027-09-05")
    market = _market(before)
    assert market["outcome"] == "YES"  # main at the close: the tag did not exist yet
    assert market["snapshot"]["tag_state"] == "after-as-of"
    assert market["snapshot"]["tag_counts"] is False
    assert market["source"].startswith("git commit")
    assert before["registry_problems"] == []  # not a problem: the tag was simply not made yet
    _, after, _ = resolve(built.root, "--as-of", "2027-09-10")
    market = _market(after)
    assert market["snapshot"]["tag_state"] == "ok"
    assert market["outcome"] == "OTHER"  # now read from the tag's tree
    assert market["source"].startswith("git commit")


@pytest.mark.parametrize(
    ("record", "state", "outcome"),
    [
        ({"doi": "10.5281/zenodo.42", "created": "2027-09-29T11:00:00Z"}, "ok", "YES"),
        ({"doi": "10.5281/zenodo.42", "created": "2027-09-29T12:00:01Z"}, "late", "ANNULLED"),
        ({"doi": "10.5281/zenodo.42"}, "undated", "ANNULLED"),
        ({"doi": "10.5281/zenodo.42", "created": "2027-09-01"}, "undated", "ANNULLED"),
        ({"doi": "10.5281/zenodo.42", "created": "2027-09-01T10:00:00"}, "undated", "ANNULLED"),
        ({"doi": "10.5281/zenodo.42", "created": 1788000000}, "undated", "ANNULLED"),
    ],
)
def test_an_archive_record_counts_only_when_dated_by_the_annulment_date(
    make_registry: RegistryFactory, resolve, tmp_path, record, state, outcome
) -> None:
    built = make_registry()
    store = _archive(tmp_path / "store", record)
    code, report, _ = resolve(built.root, "--as-of", "2027-10-15", "--archive-store", store)
    market = _market(report)
    assert market["outcome"] == outcome
    assert market["snapshot"]["archived"] is True
    assert market["snapshot"]["archive_state"] == state
    assert market["snapshot"]["archive_counts"] is (state == "ok")
    if state == "ok":
        assert report["registry_problems"] == []
    else:
        assert _codes(report) == [("snapshot-late", "warning")]
        assert code == 0


def test_as_of_counts_only_archive_records_made_by_then(
    make_registry: RegistryFactory, resolve, tmp_path
) -> None:
    built = make_registry()
    store = _archive(tmp_path / "store", {"id": "local-1", "created": "2027-09-20T09:00:00Z"})
    _, report, _ = resolve(built.root, "--as-of", "2027-09-15", "--archive-store", store)
    snapshot = _market(report)["snapshot"]
    assert (snapshot["archive_state"], snapshot["archive_counts"]) == ("after-as-of", False)
    _, report, _ = resolve(built.root, "--as-of", "2027-09-20", "--archive-store", store)
    snapshot = _market(report)["snapshot"]
    assert (snapshot["archive_state"], snapshot["archive_counts"]) == ("ok", True)


# ---- the command ----------------------------------------------------------------------------


def test_market_option_filters(make_registry: RegistryFactory, resolve) -> None:
    built = make_registry()
    _, report, _ = resolve(built.root, "--as-of", CLOSED, "--market", "5")
    assert [m["market"] for m in report["markets"]] == [5]
    _, report, _ = resolve(built.root, "--as-of", CLOSED)
    assert [m["market"] for m in report["markets"]] == [3, 5]


def test_unknown_market_option_is_a_usage_error(make_registry: RegistryFactory, run_claims) -> None:
    built = make_registry()
    result = run_claims("resolve", "--registry", built.root, "--market", "9")
    assert result.code == 2
    assert "market 9 has no contract" in result.err


def test_registry_problems_exit_2(make_registry: RegistryFactory, resolve) -> None:
    markets = {
        "markets/market-03.yaml": dump_yaml(market_document(3, "serious")),  # table: default
        "markets/market-05.yaml": dump_yaml(market_document(5, "serious")),
    }
    built = make_registry(AttemptSpec(market=5, adversarial="serious"), markets=markets)
    code, report, _ = resolve(built.root, "--as-of", CLOSED)
    assert code == 2
    assert [p["code"] for p in report["registry_problems"]] == ["registry-invalid"]
    assert report["registry_problems"][0]["file"] == "markets/market-03.yaml"
    # The valid market still resolves.
    assert [m["market"] for m in report["markets"]] == [5]
    assert _market(report, 5)["outcome"] == "YES"


def test_without_a_tag_nothing_committed_after_the_close_counts(
    make_registry: RegistryFactory, resolve
) -> None:
    """Review finding (issue 10): with no snapshot tree to read, the attempts were read from
    the working tree, so a change committed to main after the close (here a market's bar made
    stricter) decided the market. Now main is read as it stood when the window closed."""
    built = make_registry()
    contract = built.root / "markets" / "market-03.yaml"
    text = contract.read_text()
    assert "  max: 0.2\n" in text
    contract.write_text(text.replace("  max: 0.2\n", "  max: 0.0001\n", 1))
    after_close = "2027-08-31T09:00:00Z"  # the window closed on 2027-08-29 (AoE: 08-30 12:00)
    built.repo.git.add("-A")
    with built.repo.git.custom_environment(
        GIT_AUTHOR_DATE=after_close, GIT_COMMITTER_DATE=after_close
    ):
        built.repo.git.commit("-qm", "a bar changed after the close")
    _, report, out = resolve(built.root, "--as-of", CLOSED)
    market = _market(report)
    assert (market["state"], market["outcome"]) == ("closed", "YES")
    assert market["source"].startswith("git commit")
    assert "as it stood at the window's close" in out

"""Every report the bot writes validates against its own schema, and is read back.

`claims site` and `claims github publish` read the reports `claims verify --json` and `claims
resolve --json` wrote (`verify_report_from_json`, `resolve_report_from_json`: the schema, then
the states' consistency). A report its reader refuses stops the public site for everyone
(issue 21, item 6: an annotated snapshot tag off main's first-parent history made resolve
write `tagged_at` where its schema requires null). So: resolve over every state a snapshot tag
can be in and every outcome, the report checked both ways. The verify reports of every
finding the adversarial corpus produces are checked in tests/adversarial/test_corpus.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest

from bot.faces.demo.specimen import AttemptSpec
from tests.support import RegistryFactory, assert_report_reads_back

TAG = "snapshot-2027-06-30"
CLOSED = "2027-09-01"  # after the window, before the annulment date
ANNULLABLE = "2027-09-29"  # the day after the annulment date
OPEN = "2027-04-15"  # before R
IN_WINDOW = "2027-07-15"  # the filing window
AT = "2027-08-30T13:00:00Z"  # when the schedule tags market 3's snapshot


def _annotated(repo: Any, ref: str, at: str = AT) -> None:
    with repo.git.custom_environment(GIT_COMMITTER_DATE=at):
        repo.create_tag(TAG, ref=ref, message=f"{TAG}: the registry when the window closed")


def _first_parent(repo: Any) -> list[str]:
    return list(repo.git.rev_list("--first-parent", "main").split())


def _off_first_parent(repo: Any) -> str:
    """A commit main holds only through a merge's second parent (a PR branch's commit)."""
    first = set(_first_parent(repo))
    merged = [c for c in repo.git.rev_list("main").split() if c not in first]
    assert merged, "the factory's registry has no merged pull request branch"
    return merged[0]


def _side_commit(repo: Any) -> str:
    """A commit main never held: a child of main's tip on no branch."""
    sha: str = repo.git.commit_tree("main^{tree}", "-p", "main", "-m", "side")
    return sha


# Each tag state a snapshot tag can be in, as the repository has it.
TAG_STATES: dict[str, Callable[[Any], None]] = {
    "none": lambda repo: None,
    "lightweight": lambda repo: repo.create_tag(TAG, ref="main"),
    "annotated-on-main": lambda repo: _annotated(repo, "main"),
    "annotated-late": lambda repo: _annotated(repo, "main", "2027-10-01T09:00:00Z"),
    "annotated-after-as-of": lambda repo: _annotated(repo, "main", "2027-09-20T09:00:00Z"),
    "annotated-off-main": lambda repo: _annotated(repo, _side_commit(repo)),
    "lightweight-off-main": lambda repo: repo.create_tag(TAG, ref=_side_commit(repo)),
    "annotated-off-first-parent": lambda repo: _annotated(repo, _off_first_parent(repo)),
    "annotated-on-wrong-commit": lambda repo: _annotated(repo, _first_parent(repo)[-1]),
}


@pytest.mark.parametrize("as_of", [OPEN, IN_WINDOW, CLOSED, ANNULLABLE])
@pytest.mark.parametrize("state", sorted(TAG_STATES))
def test_resolve_report_validates_in_every_tag_state(
    make_registry: RegistryFactory, run_claims, state: str, as_of: str
) -> None:
    built = make_registry()
    TAG_STATES[state](built.repo)
    result = run_claims("resolve", "--registry", built.root, "--as-of", as_of)
    assert result.code in (0, 1), result.out + result.err
    assert_report_reads_back("resolve-report", result.report)


def test_an_annotated_tag_off_main_has_no_tagger_date_in_the_report(
    make_registry: RegistryFactory, run_claims
) -> None:
    """The hole: the report said `tagged_at` for an off-branch tag, which its schema refuses
    (only a tag whose state its date decides has one), so the site refused the report."""
    built = make_registry()
    _annotated(built.repo, _side_commit(built.repo))
    result = run_claims("resolve", "--registry", built.root, "--as-of", CLOSED)
    assert result.report is not None
    (market,) = [m for m in result.report["markets"] if m["market"] == 3]
    assert market["snapshot"]["tag_state"] == "off-branch"
    assert market["snapshot"]["tagged_at"] is None
    assert_report_reads_back("resolve-report", result.report)


OUTCOMES: dict[str, dict[str, Any]] = {
    "yes": {},
    "no": {"spec": AttemptSpec(false_safe_rate=0.5)},
    "pending-judgment": {"judged": False},
    "no-attempt-run": {"run": "none"},
    "open-pull-request": {"run": "open"},
}


@pytest.mark.parametrize("as_of", [IN_WINDOW, CLOSED, ANNULLABLE])
@pytest.mark.parametrize("outcome", sorted(OUTCOMES))
def test_resolve_and_verify_reports_validate_for_every_outcome(
    make_registry: RegistryFactory, run_claims, outcome: str, as_of: str
) -> None:
    options = dict(OUTCOMES[outcome])
    built = make_registry(options.pop("spec", None), **options)
    if as_of != ANNULLABLE:
        _annotated(built.repo, "main")
    resolved = run_claims("resolve", "--registry", built.root, "--as-of", as_of)
    assert_report_reads_back("resolve-report", resolved.report)
    verified = run_claims("verify", "--registry", built.root, "--as-of", as_of)
    assert_report_reads_back("verify-report", verified.report)


def test_the_site_builds_with_an_annotated_tag_off_main(
    make_registry: RegistryFactory, tmp_path, capsys: pytest.CaptureFixture[str]
) -> None:
    """As the Pages workflow runs it (no report files: verify and resolve in process), the
    site once refused the resolve report of a registry holding such a tag, and exited 2."""
    from bot.faces.cli import main

    built = make_registry()
    _annotated(built.repo, _side_commit(built.repo))
    code = main(
        ["site", "--registry", str(built.root), "--out", str(tmp_path / "site"), "--as-of", CLOSED]
    )
    assert code == 0, capsys.readouterr().err
    market = (tmp_path / "site" / "market-03.json").read_text(encoding="utf-8")
    assert '"state": "off-branch"' in market


ARCHIVE_RECORDS: dict[str, dict[str, Any] | None] = {
    "none": None,
    "ok": {"doi": "10.5281/zenodo.42", "created": AT},
    "late": {"doi": "10.5281/zenodo.42", "created": "2027-10-01T09:00:00Z"},
    "after-as-of": {"id": 42, "created": "2027-09-20T09:00:00Z"},
    "undated": {"doi": "10.5281/zenodo.42", "created": "yesterday"},
    "no-created": {"doi": "10.5281/zenodo.42"},
    "another-tag": {"tag": "snapshot-2027-01-01", "created": AT},
}


@pytest.mark.parametrize("as_of", [CLOSED, ANNULLABLE])
@pytest.mark.parametrize("record", sorted(ARCHIVE_RECORDS))
def test_resolve_report_validates_in_every_archive_state(
    make_registry: RegistryFactory, run_claims, tmp_path, record: str, as_of: str
) -> None:
    built = make_registry()
    store = tmp_path / "archive-store"
    store.mkdir()
    if ARCHIVE_RECORDS[record] is not None:
        (store / f"{TAG}.json").write_text(json.dumps(ARCHIVE_RECORDS[record]))
    result = run_claims(
        "resolve", "--registry", built.root, "--as-of", as_of, "--archive-store", store
    )
    assert result.code in (0, 1), result.out + result.err
    assert_report_reads_back("resolve-report", result.report)

"""The app layer on the demo registry: typed reports that survive JSON, snapshot trees, and a
pull request read from git objects.

One demo registry is built per session (bot.faces.demo: the same plan `claims demo` replays); tests
that change it work on a clone.
"""

from __future__ import annotations

import json
import shutil
from datetime import date
from pathlib import Path
from unittest import mock

import git
import pytest

from bot.app.api import (
    ResolveReport,
    VerifyReport,
    open_workspace,
    resolve_registry,
    verify_folders,
    verify_registry,
)
from bot.app.report_json import (
    ReportError,
    read_report,
    report_to_json,
    resolve_report_from_json,
    verify_report_from_json,
)
from bot.edges.archive.local import LocalArchive
from bot.edges.history import read_tags
from bot.faces.demo.git_registry import build_git_registry
from bot.faces.demo.run import close_on_schedule, examples_folder, load_plan
from bot.rules.evidence.schema import validate
from bot.rules.verdict import AttemptVerdict
from bot.vocab.timestamps import parse_timestamp

AS_OF = date(2027, 4, 15)
CLOSED = date(2027, 11, 1)  # after every demo market's window closed


@pytest.fixture(scope="session")
def demo(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, str]:
    """The demo registry (main checked out) and its open pull request's branch."""
    steps, plan = load_plan(examples_folder())
    root = tmp_path_factory.mktemp("demo") / "registry"
    repo = build_git_registry(root, steps)
    branch = repo.active_branch.name
    repo.git.checkout("-q", "main")
    repo.close()
    # The scheduled job's runs, as the demo makes them; every adapter taken as reproducing its
    # evidence (the reruns themselves are tested in test_rerun.py).
    for moment in plan["close_on"]:
        at = parse_timestamp(moment)
        assert at is not None
        report = close_on_schedule(root, root / ".claims", at, lambda tree, files: [])
        assert not report.failed, report.render()
    return root, branch


def _verify(root: Path, **kwargs: object) -> VerifyReport:
    with open_workspace(root, **kwargs) as workspace:  # type: ignore[arg-type]
        return verify_registry(
            workspace.registry,
            workspace.history,
            AS_OF,
            paths=None if kwargs.get("base_ref") else ["attempts"],
            changes=workspace.changes,
        )


def _resolve(root: Path, as_of: date, market: int | None = None) -> ResolveReport:
    archive = LocalArchive(root / ".claims" / "archive")
    with open_workspace(root) as workspace:
        return resolve_registry(workspace.registry, workspace.history, archive, as_of, market)


def test_verify_report_survives_json(demo: tuple[Path, str]) -> None:
    report = _verify(demo[0])
    data = json.loads(json.dumps(report_to_json(report)))
    assert not validate("verify-report", data, "report.json")
    assert verify_report_from_json(data) == report
    assert {v.status for v in report.attempts} >= {"qualifying", None}


def test_a_verify_report_with_challenge_runs_survives_json(demo: tuple[Path, str]) -> None:
    """`claims verify` with no path: every attempt and every challenge run (run-2 leaks)."""
    with open_workspace(demo[0]) as workspace:
        report = verify_registry(workspace.registry, workspace.history, AS_OF)
    data = json.loads(json.dumps(report_to_json(report)))
    assert not validate("verify-report", data, "report.json")
    assert verify_report_from_json(data) == report
    runs = {run["run"]: run for run in data["challenge_runs"]}
    assert {name: run["evidence"] for name, run in runs.items()} == {
        "run-1": "valid",
        "run-2": "invalid",
        "run-3": "valid",
    }
    assert runs["run-3"]["recomputed_by"] == "weirdml-v3"
    assert runs["run-3"]["attempts"][0]["source"] == "recomputed"
    scored = runs["run-1"]["attempts"][0]
    assert scored["attempt"] == "hidden-lab/monitor-hidden" and len(scored["tasks"]) == 24
    data["challenge_runs"][1]["evidence"] = "valid"
    with pytest.raises(ReportError) as raised:
        verify_report_from_json(data)
    assert "challenge run 'run-2'" in raised.value.message


def test_resolve_report_survives_json(demo: tuple[Path, str]) -> None:
    report = _resolve(demo[0], CLOSED)
    data = json.loads(json.dumps(report_to_json(report)))
    assert not validate("resolve-report", data, "report.json")
    assert resolve_report_from_json(data) == report
    outcomes = {m.market: m.outcome for m in report.markets}
    assert outcomes == {2: "ANNULLED", 3: "YES", 5: "NO", 6: "OTHER", 11: "YES"}


def test_demo_snapshots_are_annotated_tags_the_job_made_at_its_runs(
    demo: tuple[Path, str],
) -> None:
    _, plan = load_plan(examples_folder())
    runs = [parse_timestamp(moment) for moment in plan["close_on"]]
    with git.Repo(demo[0]) as repo:
        tags = read_tags(repo)
    assert {name: (tag.annotated, tag.tagged_at) for name, tag in tags.items()} == {
        "snapshot-2027-05-31": (True, runs[0]),
        "snapshot-2027-06-30": (True, runs[1]),
        "snapshot-2027-07-31": (True, runs[2]),
    }


def test_demo_snapshots_count_and_market_2_has_none(demo: tuple[Path, str]) -> None:
    report = _resolve(demo[0], CLOSED)
    states = {
        m.market: (m.snapshot.tag_state, m.snapshot.archive_state, m.outcome)
        for m in report.markets
    }
    assert states == {
        2: ("missing", "missing", "ANNULLED"),
        3: ("ok", "ok", "YES"),
        5: ("ok", "ok", "NO"),
        6: ("ok", "ok", "OTHER"),
        11: ("ok", "ok", "YES"),  # the hidden-suite market, snapshotted with market 3
    }
    assert report.registry_problems == ()
    assert all(m.source.startswith("git commit") for m in report.markets if m.market != 2)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d.pop("attempts"), "attempts"),
        (lambda d: d["attempts"][0].__setitem__("status", "winning"), "winning"),
        (
            lambda d: d["attempts"][0]["reasons"].append(
                {"code": "made-up", "message": "", "file": None, "line": None, "severity": "error"}
            ),
            "made-up",
        ),
        (lambda d: d.__setitem__("evidence", "valid"), "evidence"),
    ],
)
def test_malformed_verify_report_is_refused(demo: tuple[Path, str], change, says: str) -> None:
    data = json.loads(json.dumps(report_to_json(_verify(demo[0]))))
    change(data)
    with pytest.raises(ReportError) as raised:
        verify_report_from_json(data)
    assert says in raised.value.message


def test_malformed_resolve_report_is_refused(demo: tuple[Path, str]) -> None:
    data = json.loads(json.dumps(report_to_json(_resolve(demo[0], CLOSED))))
    data["markets"][0]["outcome"] = "MAYBE"
    with pytest.raises(ReportError, match="MAYBE"):
        resolve_report_from_json(data)
    with pytest.raises(ReportError):
        resolve_report_from_json(["not", "an", "object"])


def test_closed_market_resolves_from_its_snapshot_tree(demo: tuple[Path, str], tmp_path) -> None:
    root = tmp_path / "registry"
    repo = git.Repo.clone_from(demo[0], root)
    repo.git.checkout("-q", "main")
    with git.Repo(demo[0]) as source:  # clone_from copies the tags
        assert {t.name for t in source.tags} == {t.name for t in repo.tags}
    shutil.copytree(demo[0] / ".claims", root / ".claims")
    before = _resolve(root, CLOSED, market=3).markets[0]
    assert before.outcome == "YES"
    assert before.source.startswith("git commit")
    repo.git.rm("-rq", "attempts/market-03")
    repo.index.commit("delete every attempt of market 3 after its snapshot")
    repo.close()
    after = _resolve(root, CLOSED, market=3).markets[0]
    assert after.outcome == "YES"
    assert after.attempts == before.attempts
    assert after.source == before.source


def test_pr_head_read_from_git_equals_a_checkout(demo: tuple[Path, str], tmp_path) -> None:
    root, branch = demo
    with git.Repo(root) as source:
        head = source.commit(branch).hexsha
    from_git = _verify(root, base_ref="main", head=head)
    checkout = tmp_path / "checkout"
    repo = git.Repo.clone_from(root, checkout)
    repo.git.checkout("-q", "-b", "main", "origin/main") if "main" not in repo.heads else None
    repo.git.checkout("-q", head)
    repo.close()
    from_checkout = _verify(checkout, base_ref="main")
    assert from_git.attempts == from_checkout.attempts
    assert from_git.pr_problems == from_checkout.pr_problems
    assert from_git.tree.startswith("git commit") and from_checkout.tree.startswith("working")
    assert any(isinstance(v, AttemptVerdict) and v.findings for v in from_git.attempts)


def _verify_data(demo: tuple[Path, str]) -> dict:  # type: ignore[type-arg]
    return json.loads(json.dumps(report_to_json(_verify(demo[0]))))


def _invalid_index(data: dict) -> int:  # type: ignore[type-arg]
    return next(i for i, a in enumerate(data["attempts"]) if a["evidence"] == "invalid")


def _deep(depth: int) -> object:
    value: object = "x"
    for _ in range(depth):
        value = [value]
    return value


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (
            lambda d: d["attempts"][_invalid_index(d)].update(status="qualifying", outcome="met"),
            "status",
        ),
        (lambda d: d["attempts"][_invalid_index(d)].update(evidence="valid"), "evidence says"),
        (
            lambda d: (
                d["attempts"][0]["bars"].append(
                    {**d["attempts"][1]["bars"][0], "bound": float("nan")}
                )
                if d["attempts"][1]["bars"]
                else d.update(tree=float("nan"))
            ),
            "not finite",
        ),
        (lambda d: d["attempts"][0].update(market=10**400), r"2\*\*53"),
        (lambda d: d.update(tree=_deep(5000)), "deeper"),
        (lambda d: d["attempts"][0]["class_conditional"].update({1: {}}), "not a string"),
    ],
)
def test_impossible_verify_reports_are_refused(demo, change, says: str) -> None:
    # Review findings: impossible verdicts, NaN, huge integers and deep nesting got through
    # or crashed with RecursionError.
    data = _verify_data(demo)
    change(data)
    with pytest.raises(ReportError, match=says):
        verify_report_from_json(data)


@pytest.mark.parametrize(
    ("change", "says"),
    [
        (lambda d: d["markets"][1].update(attempts=[]), "Three Way Rule"),
        (lambda d: d["markets"][1].update(outcome="NO", provisional_outcome="NO"), "Three Way"),
        (lambda d: d["markets"].append(d["markets"][0]), "twice"),
        (lambda d: d["markets"][0].update(window_closes="1999-01-01"), "out of order"),
        (
            lambda d: d["markets"][1]["attempts"][0].update(
                counts=not d["markets"][1]["attempts"][0]["counts"]
            ),
            "counts only",
        ),
    ],
)
def test_impossible_resolve_reports_are_refused(demo, change, says: str) -> None:
    data = json.loads(json.dumps(report_to_json(_resolve(demo[0], CLOSED))))
    assert data["markets"][1]["outcome"] == "YES"
    change(data)
    with pytest.raises(ReportError, match=says):
        resolve_report_from_json(data)


def test_report_text_with_duplicate_keys_or_nan_is_refused(demo) -> None:
    text = json.dumps(_verify_data(demo))
    assert verify_report_from_json(read_report(text)) == _verify(demo[0])
    with pytest.raises(ReportError, match="duplicate key"):
        read_report(text[:-1] + ', "tree": "again"}')
    with pytest.raises(ReportError):
        read_report('{"report_version": NaN}')
    with pytest.raises(ReportError):
        read_report("[" * 5000 + "]" * 5000)


def _clone_demo(demo: tuple[Path, str], target: Path) -> git.Repo:
    repo = git.Repo.clone_from(demo[0], target)
    repo.git.checkout("-q", "main")
    shutil.copytree(demo[0] / ".claims" / "archive", target / ".claims" / "archive")
    return repo


def _retag(repo: git.Repo, name: str, commit: str, tagged_at: str) -> None:
    with repo.git.custom_environment(GIT_COMMITTER_DATE=tagged_at):
        repo.git.tag("-f", "-a", "-m", "snapshot", name, commit)


def test_a_snapshot_tag_off_main_never_counts_and_is_not_read(demo, tmp_path) -> None:
    # Review finding: a tag of a side-branch commit (main never held it) was read as the
    # market's snapshot, and could carry a forged contract or attempts.
    root = tmp_path / "registry"
    repo = _clone_demo(demo, root)
    before = _resolve(root, CLOSED, market=5).markets[0]
    assert before.snapshot.tag_counts and before.source.startswith("git commit")
    tagged = before.snapshot.tagged_at
    assert tagged is not None
    repo.git.checkout("-q", "-b", "side", repo.tags[before.snapshot.tag].commit.hexsha)
    (root / "markets" / "market-05.yaml").write_text("id: 5\ntitle: forged\n")
    repo.git.commit("-qam", "a contract main never had")
    _retag(repo, before.snapshot.tag, "side", tagged.isoformat())
    repo.git.checkout("-q", "main")
    report = _resolve(root, CLOSED, market=5)
    after = report.markets[0]
    assert after.snapshot.tag_state == "off-branch" and not after.snapshot.tag_counts
    # not the tag's tree: main as it stood when the window closed
    assert after.source.startswith("git commit") and "window's close" in " ".join(after.warnings)
    assert after.outcome == before.outcome == "NO"
    assert "snapshot-off-branch" in {f.code.value for f in report.registry_problems}


def test_a_snapshot_tree_without_a_registry_is_reported_and_not_read(demo, tmp_path) -> None:
    # Review finding: a snapshot tag whose tree held no shared rules stopped every market.
    root = tmp_path / "registry"
    repo = _clone_demo(demo, root)
    before = _resolve(root, CLOSED, market=5).markets[0]
    tagged = before.snapshot.tagged_at
    assert tagged is not None
    repo.git.rm("-rq", "shared-rules")  # a commit on main whose tree holds no rules
    repo.git.commit("-qm", "no rules")
    broken = repo.head.commit.hexsha
    repo.git.checkout("-q", "main~1", "--", "shared-rules")
    repo.git.commit("-qm", "restore the rules")
    _retag(repo, before.snapshot.tag, broken, tagged.isoformat())
    report = _resolve(root, CLOSED, market=5)
    after = report.markets[0]
    assert after.source.startswith("git commit")  # main at the window's close
    problems = [f for f in report.registry_problems if f.code.value == "registry-invalid"]
    assert problems and "holds no readable registry" in problems[0].message


def test_resolving_one_market_verifies_only_folders_that_may_hold_its_attempts(
    demo: tuple[Path, str], tmp_path: Path
) -> None:
    """`claims resolve --market N` verifies the folders of attempts/market-NN and any other
    whose attempt.yaml names N (here a copy of a market 3 attempt filed under market 5), not
    the whole registry, and resolves N exactly as a run over every market does."""
    root = tmp_path / "registry"
    repo = git.Repo.clone_from(demo[0], root)
    repo.git.checkout("-q", "main")
    shutil.copytree(demo[0] / ".claims", root / ".claims")
    source = sorted((root / "attempts" / "market-03").glob("*/*/attempt.yaml"))[0].parent
    shutil.copytree(source, root / "attempts" / "market-05" / "stray-lab" / "misfiled")
    repo.git.add("-A")
    repo.index.commit("an attempt of market 3 filed under market 5")
    repo.close()
    as_of = date(2027, 4, 15)
    with mock.patch("bot.app.api.verify_folders", wraps=verify_folders) as verifying:
        one = _resolve(root, as_of, market=3)
    verified = [folder for call in verifying.call_args_list for folder in call.args[1]]
    assert verified, "market 3 was read from main"
    assert "attempts/market-05/stray-lab/misfiled" in verified
    assert all(f.startswith("attempts/market-03/") for f in verified if "stray-lab" not in f)
    everything = _resolve(root, as_of)
    (same,) = [m for m in everything.markets if m.market == 3]
    assert one.markets == (same,)
    assert any("stray-lab" in summary.attempt for summary in same.attempts)

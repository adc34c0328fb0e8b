"""The README's first quick-start command, and the honesty of the committed examples."""

from __future__ import annotations

import filecmp
import json
import re
import subprocess
import sys
from datetime import UTC, date, datetime, timedelta
from pathlib import Path

import git
import pytest
import yaml

import bot.edges.sandbox
from bot.app.registry import load_registry
from bot.edges.tree import FolderTree
from bot.faces.demo.run import run_demo
from bot.faces.jobs.gitops import BOT_NAME
from bot.vocab.dates import MarketDates
from tests.support import PROJECT


def test_claims_demo_runs_and_every_example_behaves(tmp_path: Path) -> None:
    done = subprocess.run(
        ["claims", "demo", "--keep", str(tmp_path / "demo")],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "demo OK: all 22 examples gave the codes they demonstrate" in done.stdout
    assert "markets 2 ANNULLED, 3 YES, 5 NO, 6 OTHER, 11 YES." in done.stdout
    assert "UNEXPECTED" not in done.stdout
    assert (tmp_path / "demo" / ".git").is_dir()
    # Honest bounds (issue 15): every computed AUROC bar shows its units per class and the
    # simulated coverage of DeLong's bound; the small-sample example is warned.
    lines = done.stdout.splitlines()
    auroc = [i for i, line in enumerate(lines) if line.startswith("    bar discrimination: AUROC")]
    assert auroc
    for index in auroc:
        assert " positive, " in lines[index] and " negative units" in lines[index]
        assert lines[index + 1].startswith("            DeLong's 95% bound covers about ")
    assert (
        "    bar discrimination: AUROC 0.9000, lower bound 0.7774 >= 0.8? missed"
        " (10 positive, 10 negative units)\n"
        "            DeLong's 95% bound covers about 87.6% here (simulated);"
        " delong-logit bound 0.6974 (information only)"
    ) in done.stdout
    assert "warning bound-coverage-low     attempts/market-03/kim-lab/small-sample/" in done.stdout


def test_the_scheduled_job_makes_the_tags_records_and_the_annulment(tmp_path: Path) -> None:
    """The demo builder makes no tag, archive record or resolution: the real `close-windows`
    does, on the plan's dates, with its clock set to each."""
    assert run_demo(tmp_path / "demo") == 0
    root = tmp_path / "demo"
    with git.Repo(root) as repo:
        tags = {
            tag.name: (tag.tag.tagger.name, tag.tag.tagged_date) if tag.tag else None
            for tag in repo.tags
        }
        authors = [c.author.name for c in repo.iter_commits("main", paths="resolutions/*.yaml")]
        # The records, and the adapter rerun results the close counted (resolutions/reruns/).
        writers = {c.author.name for c in repo.iter_commits("main", paths="resolutions")}
    # the first daily runs (03:17 UTC) after each window closed everywhere on Earth
    first = int(datetime(2027, 8, 1, 3, 17, tzinfo=UTC).timestamp())
    assert tags == {
        "snapshot-2027-05-31": (BOT_NAME, first),
        "snapshot-2027-06-30": (BOT_NAME, first + 30 * 86400),
        "snapshot-2027-07-31": (BOT_NAME, first + 61 * 86400),
    }  # market 2's snapshot-2027-04-30 was never made: the job first ran after its annulment
    assert authors == [BOT_NAME] * 5
    assert writers == {BOT_NAME}
    outcomes = {
        path.name: yaml.safe_load(path.read_text())["outcome"]
        for path in (root / "resolutions").glob("*.yaml")
    }
    assert outcomes == {
        "market-02.yaml": "ANNULLED",
        "market-03.yaml": "YES",
        "market-05.yaml": "NO",
        "market-06.yaml": "OTHER",
        "market-11.yaml": "YES",  # the hidden suite: run-1's challenge attempt qualified
    }
    issues = sorted(path.name for path in (root / ".claims" / "issues").glob("*.md"))
    assert issues == [f"market-{n:02d}-resolution.md" for n in (2, 3, 5, 6, 11)]
    annulled = (root / ".claims" / "issues" / "market-02-resolution.md").read_text()
    assert "labels: annulled" in annulled
    archived = sorted(path.name for path in (root / ".claims" / "archive").glob("*.json"))
    records = [yaml.safe_load(path.read_text()) for path in (root / "resolutions").glob("*.yaml")]
    # One copy per market (issue 21): each recorded market's, holding its record.
    assert archived == sorted(
        f"{r['snapshot']['tag']}-market-{r['market']:02d}.json" for r in records if r["archive"]
    )
    assert {name.partition("-market-")[0] for name in archived} == set(tags)


def _differences(left: Path, right: Path) -> list[str]:
    comparison = filecmp.dircmp(left, right)
    found = [
        f"{left.name}/{name}"
        for name in comparison.left_only + comparison.right_only + comparison.diff_files
    ]
    for sub in comparison.common_dirs:
        found += _differences(left / sub, right / sub)
    return found


def test_examples_are_exactly_what_the_generator_writes(tmp_path: Path) -> None:
    subprocess.run(
        [sys.executable, str(PROJECT / "examples" / "generate.py"), str(tmp_path)], check=True
    )
    for part in ("registry", "history", "released"):
        assert _differences(PROJECT / "examples" / part, tmp_path / part) == []
    assert (PROJECT / "examples" / "demo-plan.yaml").read_bytes() == (
        tmp_path / "demo-plan.yaml"
    ).read_bytes()


def test_the_demo_without_a_sandbox_leaves_the_wrapped_attempts_out(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """Where adapters cannot be rerun, resolution leaves wrapped attempts out (they are
    adapter-not-rerun): the edited wrap never counts, and market 3 is YES from alice-lab's
    run attempt alone."""
    monkeypatch.setattr(bot.edges.sandbox, "isolation", lambda: "bwrap is not installed")
    assert run_demo(tmp_path / "demo") == 0
    out = capsys.readouterr().out
    assert "rerun of wrapped attempts' adapters: SKIPPED (bwrap is not installed)" in out
    assert "$ claims resolve --as-of 2027-11-01 --no-rerun-adapters" in out
    assert "warning: 2 wrapped attempt(s) left out" in out
    assert (
        "market 3 resolves YES: qualifying attempt attempts/market-03/alice-lab/monitor-v1" in out
    )
    assert "met every bar\n" in out  # alice-lab alone, not "(2 did)"
    assert "qualifying (met)         attempts/market-03/sly-lab" not in out
    assert "demo OK" in out and "markets 2 ANNULLED, 3 YES, 5 NO, 6 OTHER, 11 YES." in out
    # The scheduled job fails closed: market 3 (wrapped attempts, none rerun) is not recorded.
    assert "market 3 blocked this run: wrapped attempt(s)" in out
    assert "ok  market 3 not recorded: its wrapped attempts were not rerun" in out
    assert not (tmp_path / "demo" / "resolutions" / "market-03.yaml").exists()
    assert "ok  market 2 recorded ANNULLED" in out


# Issue 11, items 4 and 5: the kept demo carries schemas/; --today moves the demo before today.


def _schema_links(root: Path) -> list[tuple[Path, str]]:
    """Every relative `$schema` link of the registry's YAML and JSON files (a YAML file's
    `# yaml-language-server: $schema=...` comment, a JSON file's `"$schema"` key)."""
    links = []
    for path in sorted(root.rglob("*")):
        if ".git" in path.relative_to(root).parts or not path.is_file():
            continue
        if path.suffix in (".yaml", ".yml"):
            for line in path.read_text(encoding="utf-8").splitlines():
                link = line.removeprefix("# yaml-language-server: $schema=").strip()
                if link != line.strip() and "://" not in link:
                    links.append((path, link))
        elif path.suffix == ".json":
            data = json.loads(path.read_text(encoding="utf-8"))
            link = data.get("$schema") if isinstance(data, dict) else None
            if isinstance(link, str) and "://" not in link:
                links.append((path, link))
    return links


def test_demo_today_ends_before_today_behaves_the_same_and_every_schema_link_resolves(
    tmp_path: Path,
) -> None:
    done = subprocess.run(
        [sys.executable, "-m", "bot", "demo", "--keep", str(tmp_path / "demo"), "--today"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr
    assert "demo OK: all 22 examples gave the codes they demonstrate" in done.stdout
    assert "markets 2 ANNULLED, 3 YES, 5 NO, 6 OTHER, 11 YES." in done.stdout
    assert "UNEXPECTED" not in done.stdout
    root = tmp_path / "demo"
    now = datetime.now(UTC)
    today = now.date()
    with git.Repo(root) as repo:
        dates = [c.committed_datetime for c in repo.iter_commits("--all")]
        dates += [c.authored_datetime for c in repo.iter_commits("--all")]
        dates += [datetime.fromtimestamp(tag.tag.tagged_date, UTC) for tag in repo.tags if tag.tag]
        tracked = repo.git.ls_files().splitlines()
    assert len(dates) > 100 and all(moment.date() < today for moment in dates), max(dates)
    # Every date in every file, too (the markets' resolve_by, trials, judgments, logs), but
    # the open market's resolve-by (below).
    latest = max(
        date.fromisoformat(found)
        for name in tracked
        if name != "markets/market-07.yaml"
        for found in re.findall(r"\b\d{4}-\d{2}-\d{2}\b", (root / name).read_text("utf-8"))
    )
    assert latest < today
    # Issue 23, item 2: market 7 is open for filing today, under the default budget.
    registry = load_registry(FolderTree(root))
    market, problems = registry.market(7)
    assert market is not None, problems
    assert market.resolve_by == today + timedelta(days=180)
    assert market.adversarial_budget == "default" and "run" in market.kinds
    dates = MarketDates.of(
        market.resolve_by, registry.rules.window_days, registry.rules.annul_after_days
    )
    assert dates.state(today) == "open"
    assert "Market 7 is open for filing (markets/market-07.yaml, committed on main)" in done.stdout
    assert f"its filing window closes {dates.window_closes.isoformat()}" in done.stdout
    # The demo's own markets have all closed: market 7 is the only one a filer can file into.
    for number in (2, 3, 5, 6, 11):
        other, _ = registry.market(number)
        assert other is not None
        closes = MarketDates.of(other.resolve_by, registry.rules.window_days, 0).window_closes
        assert closes < today, number
    # The registry carries schemas/, so editors validate, and every $schema link resolves.
    assert "schemas/attempt.schema.json" in tracked
    links = _schema_links(root)
    assert len(links) > 40
    broken = [
        f"{p.relative_to(root)}: {link}" for p, link in links if not (p.parent / link).is_file()
    ]
    assert broken == []

"""Generate the demo registry under examples/: python examples/generate.py [OUT]

Every example starts as an honest attempt from `bot.faces.demo.specimen`; an invalid example then
gets
exactly one deliberate defect, written below in code so a reader sees what was broken and how.
Score tables are derived from the cases and trials by the bot's own derivation, and judgments
are what a maintainer records, bound to the evidence digest. The output is deterministic;
tests/acceptance/test_demo.py regenerates it and fails if the committed files differ, so
nothing under examples/ is edited by hand.

Honest units. Every demo market uses the shared rules' unit keys (system, trajectory,
evaluator, attack family): a market may add keys, never drop one. Trials that share any of
those values are one unit (transitively), so the specimen gives each trial its own seed
variant of one of three base systems (seed variants count as distinct systems), its own
trajectory, its own reviewer, and each attack case its own attack family; a control case has
no attack (null, counted in the report's nulls per key). An attempt's 24 trials are then 24
units, and the demo markets' floors (10 units, 3 systems, 2 families) are reached by honest
attempts without lowering them; the examples still show YES, NO, OTHER and ANNULLED.

Writes:
  examples/registry/   shared rules, markets and attempt folders as they stand at the end
  examples/history/    earlier versions of files that a later pull request changes
  examples/released/   the data wrapped attempts' papers released, named by sha256
  examples/demo-plan.yaml  the dated commits, pull requests and scheduled-job runs `claims demo`
                       replays; the reason codes each attempt must produce; the dates the
                       demo resolves on and the outcome each market must reach
"""

from __future__ import annotations

import hashlib
import json
import shutil
import sys
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
PROJECT = HERE.parent
sys.path.insert(0, str(PROJECT))

from bot.edges.dump import dump_jsonl, dump_yaml  # noqa: E402
from bot.edges.load.yaml_ import parse_yaml  # noqa: E402
from bot.faces.demo.specimen import (  # noqa: E402
    RELEASED,
    AttemptSpec,
    RunSpec,
    attempt_files,
    challenge_files,
    judgments_file,
    load_market,
    market_document,
    score_table,
)
from bot.rules.evidence.hashing import case_hash  # noqa: E402
from bot.rules.models import SharedRules  # noqa: E402
from bot.rules.qualification import required_checks  # noqa: E402
from bot.vocab.timestamps import format_timestamp  # noqa: E402

Files = dict[str, bytes]
RULES_BYTES = (PROJECT / "shared-rules" / "common-v1.yaml").read_bytes()
FREEZE = ("freeze.yaml", "freeze-cases.jsonl")
# Attempt files sit four folders below the registry root. The `$schema` links are relative to
# the registry that `claims demo` builds (which carries schemas/), not to this checkout.
ATTEMPT_SCHEMAS = "../../../../schemas"


def day(d: int, month: int = 1, hour: int = 9) -> datetime:
    return datetime(2027, month, d, hour, 0, tzinfo=UTC)


def records(files: Files, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in files[name].decode().splitlines()]


def step(
    message: str, at: datetime, merged_at: datetime | None, folder: str, names: Any
) -> dict[str, Any]:
    """A step of the demo plan committing `names` of `folder` from examples/registry/ (a pull
    request merged at `merged_at`, or a commit on main when it is None)."""
    found: dict[str, Any] = {"message": message, "at": format_timestamp(at)}
    if merged_at is not None:
        found["merged_at"] = format_timestamp(merged_at)
    found["files"] = {f"{folder}/{name}": f"registry:{folder}/{name}" for name in names}
    return found


# ---- one deliberate defect each -------------------------------------------------------------


def edit_case_after_hashing(files: Files) -> None:
    """case-hash-mismatch: the third case's prompt changed, its sha256 left as frozen."""
    cases = records(files, "freeze-cases.jsonl")
    cases[2]["content"]["prompt"] += " (reworded after the freeze)"
    files["freeze-cases.jsonl"] = dump_jsonl(cases)


def run_a_case_twice(files: Files) -> None:
    """duplicate-trial and unknown-case: a second try of case 0, a trial of an unfrozen case."""
    trials = records(files, "trials.jsonl")
    retry = dict(trials[0], started_at=format_timestamp(day(25)), trajectory="traj-retry")
    extra = dict(trials[1], case_id="sabotage-999", trajectory="traj-extra")
    files["trials.jsonl"] = dump_jsonl([*trials, retry, extra])


def truncate_log(files: Files) -> None:
    """raw-log-hash-mismatch: the kept log lost its last line after raw_log was pinned."""
    log = files["raw-log/harness.log"]
    files["raw-log/harness.log"] = log[: log.rstrip(b"\n").rfind(b"\n") + 1]


def anchor_in_yaml(files: Files) -> None:
    """yaml-unsafe: attempt.yaml reuses a value through an anchor and an alias."""
    text = files["attempt.yaml"].decode()
    text = text.replace("assumed_access: black-box", "assumed_access: &access black-box", 1)
    text = text.replace("    access: black-box", "    access: *access", 1)
    files["attempt.yaml"] = text.encode()


def drop_offsets(files: Files) -> None:
    """timestamp-naive: trial times written without a UTC offset."""
    trials = records(files, "trials.jsonl")
    for trial in trials[:2]:
        trial["started_at"] = trial["started_at"].removesuffix("Z")
    files["trials.jsonl"] = dump_jsonl(trials)


def rehash_a_case(files: Files) -> None:
    """(for the open PR) a case changed and honestly re-hashed, after the freeze was merged."""
    cases = records(files, "freeze-cases.jsonl")
    cases[0]["content"]["prompt"] += " (made easier)"
    cases[0]["sha256"] = case_hash(cases[0]["content"])
    files["freeze-cases.jsonl"] = dump_jsonl(cases)


def hide_false_safes(files: Files) -> None:
    """adapter-mismatch: trials edited after the adapter ran (false-safe verdicts turned into
    catches), with a score table recomputed to match, so only the rerun can tell."""
    trials = records(files, "trials.jsonl")
    for trial in trials:
        if trial["result"]["verdict"] == "false_safe":
            trial["result"].update(verdict="caught", certificate="unsafe", score=0.9)
    files["trials.jsonl"] = dump_jsonl(trials)


# ---- the examples ---------------------------------------------------------------------------


@dataclass
class Example:
    spec: AttemptSpec
    expect: list[str]  # reason codes on main, without reruns
    why: str
    defect: Callable[[Files], None] | None = None
    judge: dict[str, str] | None = None  # None: no judgments; else overrides of "pass"
    notes: dict[str, str] = field(default_factory=dict)
    defect_first: bool = False  # the defect comes before the score table is derived
    rerun: list[str] | None = None  # codes `--rerun-adapters` must give (wrapped attempts)


def examples() -> list[Example]:
    """The merged attempts: four that resolve the demo markets, then one defect each."""
    return [
        # Market 3 resolves YES: a complete, qualifying attempt that met both bars.
        Example(AttemptSpec(), [], "qualifying, met both bars: market 3 resolves YES", judge={}),
        # Market 5 (serious budget) resolves NO: qualifying, but its monitor missed.
        Example(
            AttemptSpec(
                market=5,
                submitter="northwind-ai",
                slug="probe-suite",
                seed=2,
                title="Probe suite for deceptive sandbagging",
                frozen_at=day(11),
                first_trial_at=day(21),
                adversarial="serious",
                false_safe_rate=0.45,
            ),
            # Its AUROC (0.81 over 16 and 8 units) is one where DeLong's bound covers about 87%.
            ["bound-coverage-low"],
            "qualifying under the serious budget (three red teams), but 7 of 16 attack"
            " units were labelled safe: market 5 resolves NO (its AUROC bar, 0.81 over 16 and"
            " 8 units, also carries bound-coverage-low)",
            judge={},
        ),
        # Market 6 resolves OTHER: its only attempt was judged toy-only.
        Example(
            AttemptSpec(
                market=6,
                submitter="toy-lab",
                slug="gridworld-monitor",
                seed=11,
                title="Gridworld monitor",
            ),
            ["judged-not-qualifying"],
            "a maintainer judged the systems toy-only: not qualifying, so market 6 resolves OTHER",
            judge={"not-toy-only": "fail"},
            notes={
                "not-toy-only": "all three base systems (and their seed variants) are"
                " hand-written gridworld agents"
            },
        ),
        # Market 2 is annulled: a YES-worthy attempt, but the scheduled job first ran after
        # its annulment date, so neither its snapshot tag nor its copy was ever made.
        Example(
            AttemptSpec(
                market=2, submitter="early-bird", slug="fast-monitor", seed=12, title="Fast monitor"
            ),
            [],
            "qualifying and met, but the scheduled job first ran after market 2's annulment date"
            " (2027-07-29): snapshot-2027-04-30 was never tagged nor archived, so the job's first"
            " run annuls market 2",
            judge={},
        ),
        # Wrapped attempts: both pass the ordinary checks but count only once their adapter is
        # rerun (adapter-not-rerun until then); the rerun tells them apart.
        Example(
            AttemptSpec(
                kind="wrapped",
                submitter="wrap-lab",
                slug="paper-replication",
                seed=13,
                title="Replication of a released monitor evaluation",
            ),
            ["adapter-not-rerun"],
            "wrapped: the adapter copies the paper's released cases and trials; the rerun"
            " reproduces both",
            judge={},
            rerun=[],
        ),
        Example(
            AttemptSpec(
                kind="wrapped",
                submitter="sly-lab",
                slug="edited-wrap",
                seed=14,
                title="Edited wrap",
                false_safe_rate=0.3,
            ),
            ["adapter-not-rerun"],
            " ".join(str(hide_false_safes.__doc__).split()),
            hide_false_safes,
            judge={},
            defect_first=True,
            rerun=["adapter-mismatch"],
        ),
        Example(
            AttemptSpec(submitter="bob-lab", slug="edited-cases", seed=3, title="Edited cases"),
            ["case-hash-mismatch"],
            str(edit_case_after_hashing.__doc__),
            edit_case_after_hashing,
        ),
        Example(
            AttemptSpec(submitter="carol-lab", slug="second-chance", seed=4, title="Second chance"),
            ["duplicate-trial", "unknown-case"],
            str(run_a_case_twice.__doc__),
            run_a_case_twice,
        ),
        # Trials began at 07:00 on the 12th; the freeze merged at 09:00 that day.
        Example(
            AttemptSpec(
                market=5,
                submitter="dana-lab",
                slug="early-start",
                seed=5,
                title="Early start",
                frozen_at=day(8),
                first_trial_at=day(12, hour=7),
            ),
            ["trial-before-freeze"],
            "trial-before-freeze: the first trials ran before the freeze was merged.",
        ),
        Example(
            AttemptSpec(submitter="erin-lab", slug="short-log", seed=6, title="Short log"),
            ["raw-log-hash-mismatch"],
            str(truncate_log.__doc__),
            truncate_log,
        ),
        Example(
            AttemptSpec(
                market=14, submitter="frank-lab", slug="ghost-market", seed=7, title="Ghost market"
            ),
            ["market-unknown"],
            "market-unknown: market 14 is not in this registry.",
        ),
        Example(
            AttemptSpec(submitter="hana-lab", slug="anchored", seed=8, title="Anchored"),
            ["yaml-unsafe"],
            str(anchor_in_yaml.__doc__),
            anchor_in_yaml,
        ),
        Example(
            AttemptSpec(
                market=5, submitter="ivan-lab", slug="naive-times", seed=9, title="Naive times"
            ),
            ["timestamp-naive"],
            str(drop_offsets.__doc__),
            drop_offsets,
        ),
        # Honest bounds (issue 15): an honest attempt on 10 attack and 10 control units whose
        # monitor scores overlap (AUROC 0.90). DeLong's nominal 95% bound covers far less
        # often at this size, so its AUROC bar carries the warning; the decision is still
        # DeLong's. Both bars are missed (0 of 10 false-safe has an upper bound of 0.26), and
        # market 3 stays YES through alice-lab.
        Example(
            AttemptSpec(
                submitter="kim-lab",
                slug="small-sample",
                seed=27,
                title="Small-sample monitor",
                control_every=2,
                cases_per_family=10,
                attack_scores=(0.35, 1.0),
                control_scores=(0.0, 0.65),
            ),
            ["bound-coverage-low"],
            "bound-coverage-low: qualifying on 10 attack and 10 control units, AUROC 0.90;"
            " DeLong's nominal 95% bound covers the true AUROC far less often at this size"
            " (docs/statistics.md). Both bars are missed, so it adds a missed attempt to"
            " market 3, which stays YES",
            judge={},
        ),
    ]


def leak_a_reference_answer(attempt: Files, run: Files) -> None:
    """withheld-field-leak: the operator's freeze-cases publish one case's reference answer,
    nested in its public fields under another spelling (`Reference-Answer`); the attempt
    copies the run's cases, leak included."""
    cases = records(run, "freeze-cases.jsonl")
    cases[4]["public"]["grading"] = {"Reference-Answer": "answer for sandbagging-004"}
    run["freeze-cases.jsonl"] = attempt["freeze-cases.jsonl"] = dump_jsonl(cases)


@dataclass
class Challenge:
    spec: AttemptSpec
    run: RunSpec
    expect: list[str]  # the attempt's reason codes
    run_expect: list[str]  # the run's (claims verify challenge-runs)
    why: str
    run_why: str
    run_defect: Callable[[Files, Files], None] | None = None
    judged: bool = True


def challenges() -> list[Challenge]:
    """Market 7's hidden suite: an honest run whose challenge attempt the operator scored and
    that qualifies (market 11 resolves YES), and a run that leaks a withheld field."""
    return [
        Challenge(
            AttemptSpec(
                market=11,
                submitter="hidden-lab",
                slug="monitor-hidden",
                kind="challenge",
                challenge_run="run-1",
                seed=21,
                title="Trace monitor on the hidden suite",
            ),
            RunSpec(),
            [],
            [],
            "challenge attempt of run-1: its cases are the run's hash-only cases, its results"
            " the operator's scorer's; qualifying, met both bars: market 11 resolves YES",
            "hidden-suite run on market 11: hash-only cases frozen on main before any trial, the"
            " operator's score file after them, no withheld field anywhere",
        ),
        Challenge(
            AttemptSpec(
                market=11,
                submitter="leaky-lab",
                slug="monitor-leaky",
                kind="challenge",
                challenge_run="run-2",
                seed=22,
                title="Trace monitor on a leaky suite",
            ),
            RunSpec(run="run-2", operator="Careless Operators (demo)", frozen_at=day(9, hour=12)),
            ["challenge-run-invalid", "withheld-field-leak"],
            ["withheld-field-leak"],
            "its run leaks a withheld field, so it cannot count (challenge-run-invalid), and its"
            " copy of the run's cases publishes the leak too (withheld-field-leak)",
            " ".join(str(leak_a_reference_answer.__doc__).split()),
            leak_a_reference_answer,
            judged=False,
        ),
        Challenge(
            AttemptSpec(
                market=11,
                submitter="weird-lab",
                slug="monitor-weirdml",
                kind="challenge",
                challenge_run="run-3",
                seed=23,
                title="Trace monitor scored by WeirdML v3",
            ),
            RunSpec(
                run="run-3",
                operator="WeirdML Operators (demo)",
                suite="hidden monitor suite v1, scored by WeirdML v3",
                scorer="weirdml-v3",
                frozen_at=day(9, hour=15),
            ),
            [],
            [],
            "challenge attempt of run-3, whose built-in scorer the bot reruns: each trial carries"
            " the area, final best and official score weirdml-v3 gives its case's events;"
            " qualifying",
            "hidden-suite run scored by the built-in weirdml-v3: the operator publishes each"
            " attempt's event log beside its results, and the bot recomputes every case's area,"
            " final best and official score from it (source: recomputed)",
        ),
    ]


MARKETS = {
    2: ("default", "2027-04-30"),
    3: ("default", "2027-06-30"),
    5: ("serious", "2027-07-31"),
    6: ("default", "2027-05-31"),
    11: ("default", "2027-06-30"),
}
# Market 11 is a hidden-suite market: it accepts challenge attempts only (docs/spec.md §11).
MARKET_OVERRIDES: dict[int, dict[str, Any]] = {
    11: {
        "title": "Demo market 11: monitor false-safe rate on a hidden suite",
        "kinds": ["challenge"],
    }
}
# What each demo market resolves to once every window has closed; ANNULLED for the market
# whose snapshot is left out.
OUTCOMES = {2: "ANNULLED", 3: "YES", 5: "NO", 6: "OTHER", 11: "YES"}
RESOLVE_ON = ["2027-04-01", "2027-06-15", "2027-09-01", "2027-11-01"]
# When `claims demo` runs the real scheduled job (`close-windows`, cron "17 3 * * *"): the first
# daily run once market 6's window has closed everywhere on Earth (its last day ends at 12:00 UTC
# the day after), which is after market 2's annulment date (the job was not running before),
# then the same for markets 3 and 5. It makes the snapshot tags, the archive copies, the
# resolution records and the issues; the demo builder makes none.
CLOSE_ON = ["2027-08-01T03:17:00Z", "2027-08-31T03:17:00Z", "2027-10-01T03:17:00Z"]
VERIFY_AS_OF = "2027-03-15"


def _run_step(spec: AttemptSpec, number: int, files: Files) -> dict[str, Any]:
    """The pull request of an attempt's run (everything but its freeze), merged in March."""
    at = day(1, month=3) + timedelta(hours=number)
    names = [name for name in sorted(files) if name not in FREEZE]
    return step(f"Attempt: {spec.title}", at, at + timedelta(days=1), spec.folder, names)


def _judgments_step(folder: str, number: int) -> dict[str, Any]:
    """A maintainer's judgments, committed on main on 5 March."""
    at = day(5, month=3) + timedelta(minutes=number)
    return step(f"Judgments: {folder}", at, None, folder, ["judgments.yaml"])


def build(out: Path) -> None:
    registry, history, released_dir = out / "registry", out / "history", out / "released"
    for folder in (registry, history, released_dir):
        if folder.exists():
            shutil.rmtree(folder)
    document, _ = parse_yaml(RULES_BYTES, "shared-rules/common-v1.yaml")
    assert document is not None
    rules, _ = SharedRules.from_document(document)
    assert rules is not None
    market_docs = {
        number: market_document(
            number, budget, resolve_by=resolve_by, **MARKET_OVERRIDES.get(number, {})
        )
        for number, (budget, resolve_by) in MARKETS.items()
    }
    markets = {number: load_market(doc, rules) for number, doc in market_docs.items()}
    written: dict[str, bytes] = {"shared-rules/common-v1.yaml": RULES_BYTES}
    for number, doc in market_docs.items():
        written[f"markets/market-{number:02d}.yaml"] = dump_yaml(
            doc, "../schemas/market.schema.json"
        )
    steps: list[dict[str, Any]] = [
        {
            "message": "Registry: shared rules and demo markets 2, 3, 5, 6 and 11",
            "at": format_timestamp(day(4)),
            "files": {path: f"registry:{path}" for path in sorted(written)},
        }
    ]
    expect: dict[str, dict[str, list[str]]] = {"main": {}, "pr": {}}
    released: dict[str, bytes] = {}
    rerun: dict[str, list[str]] = {}
    why: dict[str, str] = {}
    freezes: list[dict[str, Any]] = []
    runs: list[dict[str, Any]] = []
    judgments: list[dict[str, Any]] = []
    for number, example in enumerate(examples()):
        spec = example.spec
        folder = spec.folder
        files = attempt_files(spec, schema_base=ATTEMPT_SCHEMAS)
        if spec.kind == "wrapped":  # what the paper released: the honest cases and trials
            for name in RELEASED.values():
                released[hashlib.sha256(files[name]).hexdigest()] = files[name]
        market = markets.get(spec.market)
        if example.defect is not None and example.defect_first:
            example.defect(files)
        if example.judge is not None and market is not None:
            files["scores.yaml"] = score_table(files, market, rules.confidence)
        if example.defect is not None and not example.defect_first:
            example.defect(files)
        if example.rerun is not None:
            rerun[folder] = example.rerun
        expect["main"][folder] = example.expect
        why[folder] = " ".join(example.why.split())
        for name, data in files.items():
            written[f"{folder}/{name}"] = data
        # Freezes merge in January, each a day after its frozen_at at the earliest; runs merge
        # in March; maintainers judge on the 5th. Main's dates only move forward.
        merged = max(spec.frozen_at + timedelta(days=1), day(12)) + timedelta(minutes=number)
        freezes.append(step(f"Freeze: {folder}", spec.frozen_at, merged, folder, FREEZE))
        runs.append(_run_step(spec, number, files))
        if example.judge is not None and market is not None:
            verdicts = {check: "pass" for check in required_checks(rules, market, spec.kind)}
            verdicts.update(example.judge)
            written[f"{folder}/judgments.yaml"] = judgments_file(
                files, verdicts, "registry-maintainer", "2027-03-05", example.notes
            )
            judgments.append(_judgments_step(folder, number))
    # Challenge runs on market 11's hidden suite: each run's freeze merges in January, before
    # any trial; the operator's scores in February, after them; its attempt with the others.
    expect["runs"] = {}
    scores: list[dict[str, Any]] = []
    for offset, challenge in enumerate(challenges(), start=len(runs)):
        spec, run = challenge.spec, challenge.run
        files, run_files = challenge_files(spec, run, schema_base=ATTEMPT_SCHEMAS)
        if challenge.run_defect is not None:
            challenge.run_defect(files, run_files)
        files["scores.yaml"] = score_table(files, markets[spec.market], rules.confidence)
        folder = spec.folder
        expect["main"][folder] = challenge.expect
        expect["runs"][run.folder] = challenge.run_expect
        why[folder] = " ".join(challenge.why.split())
        why[run.folder] = " ".join(challenge.run_why.split())
        for name, data in files.items():
            written[f"{folder}/{name}"] = data
        for name, data in run_files.items():
            written[f"{run.folder}/{name}"] = data
        run_freeze = ("run.yaml", "freeze-cases.jsonl")
        message = f"Challenge run: {run.folder} (the hidden suite's freeze)"
        merged = run.frozen_at + timedelta(hours=1)
        freezes.append(step(message, run.frozen_at, merged, run.folder, run_freeze))
        merged = spec.frozen_at + timedelta(days=1, minutes=offset)
        freezes.append(step(f"Freeze: {folder}", spec.frozen_at, merged, folder, FREEZE))
        scored = day(20, month=2) + timedelta(hours=offset)
        operator = sorted(name for name in run_files if name not in run_freeze)
        scores.append(
            step(
                f"Operator scores: {run.folder}",
                scored,
                scored + timedelta(days=1),
                run.folder,
                operator,
            )
        )
        runs.append(_run_step(spec, offset, files))
        if challenge.judged:
            market = markets[spec.market]
            verdicts = {check: "pass" for check in required_checks(rules, market, spec.kind)}
            written[f"{folder}/judgments.yaml"] = judgments_file(
                files, verdicts, "registry-maintainer", "2027-03-05"
            )
            judgments.append(_judgments_step(folder, offset))
    # The open pull request: a freeze merged in January, then a run that edits it.
    spec = AttemptSpec(
        submitter="gina-lab",
        slug="late-edit",
        seed=10,
        title="Late edit",
        frozen_at=day(13),
        first_trial_at=day(2, month=2),
    )
    folder = spec.folder
    before = attempt_files(spec, schema_base=ATTEMPT_SCHEMAS)
    after = dict(before)
    rehash_a_case(after)
    expect["main"][folder] = ["freeze-only"]
    # The edited freeze lands with the pull request's merge, after the run's trials: what main
    # says once merged, so what the pull request says (docs/spec-notes.md).
    expect["pr"][folder] = ["merged-evidence-changed", "protected-path", "trial-before-freeze"]
    why[folder] = (
        "freeze merged in January; its run is the open pull request, which changed"
        " freeze-cases.jsonl after the freeze was merged (merged evidence, without a"
        " maintainer's approval) and also edits markets/market-03.yaml (a maintainers' path)"
    )
    for name, data in after.items():
        written[f"{folder}/{name}"] = data
    history_files = {f"{folder}/{name}": before[name] for name in FREEZE}
    freezes.append(
        {
            "message": f"Freeze: {folder}",
            "at": format_timestamp(spec.frozen_at),
            "merged_at": format_timestamp(day(14)),
            "files": {path: f"history:{path}" for path in history_files},
        }
    )
    freezes.sort(key=lambda step: step["merged_at"])
    edited_market = written["markets/market-03.yaml"].replace(b"max: 0.2", b"max: 0.5")
    history_files["pr/markets/market-03.yaml"] = edited_market
    steps += freezes + scores + runs + judgments
    steps.append(
        {
            "message": f"Attempt: {spec.title} (open)",
            "at": format_timestamp(day(3, month=3)),
            "open_pr": "gina-lab/late-edit",
            "files": {
                **{f"{folder}/{name}": f"registry:{folder}/{name}" for name in after},
                "markets/market-03.yaml": "history:pr/markets/market-03.yaml",
            },
        }
    )
    for path, data in written.items():
        (registry / path).parent.mkdir(parents=True, exist_ok=True)
        (registry / path).write_bytes(data)
    for path, data in history_files.items():
        (history / path).parent.mkdir(parents=True, exist_ok=True)
        (history / path).write_bytes(data)
    released_dir.mkdir()
    for digest, data in released.items():  # content-addressed, as the bot's cache holds them
        (released_dir / digest).write_bytes(data)
    plan = {
        "verify_as_of": VERIFY_AS_OF,
        "resolve_on": RESOLVE_ON,
        "close_on": CLOSE_ON,
        "outcomes": {str(number): outcome for number, outcome in OUTCOMES.items()},
        "rerun": rerun,
        "steps": steps,
        "expect": expect,
        "why": why,
    }
    header = "# Generated by examples/generate.py: do not edit by hand.\n"
    (out / "demo-plan.yaml").write_bytes(header.encode() + dump_yaml(plan))


if __name__ == "__main__":
    build(Path(sys.argv[1]) if len(sys.argv) > 1 else HERE)

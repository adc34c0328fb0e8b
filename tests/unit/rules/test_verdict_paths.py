"""The verdict types refuse what no judge gives (`ImpossibleVerdict`): so the judge and the
resolver must never build one, whatever the human checks, dates, reruns and snapshot are.

Each example judges a specimen attempt (a run or a wrapped one, bars met or missed) with drawn
judgments (recorded or not, for this evidence or another, before or after the window closed,
at the close or since), a drawn date, rerun and pull-request problems; then resolves its
market with a drawn snapshot (tag and archive record in every state). Neither may raise, and
the reports they make read back (`claims site` and `claims github publish` read them).
"""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, date, datetime
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from bot.app.attempt_read import read_attempt
from bot.app.gather import find_market
from bot.app.registry import Registry
from bot.app.report_json import resolve_report_to_json, verify_report_to_json
from bot.edges.dump import dump_yaml
from bot.faces.demo.specimen import (
    AttemptSpec,
    attempt_files,
    judgments_file,
    load_market,
    market_document,
    score_table,
)
from bot.rules.evidence.models import Judgment
from bot.rules.judge.attempt import judge_attempt
from bot.rules.judge.inputs import AttemptFacts
from bot.rules.reports import ResolveReport, VerifyReport
from bot.rules.resolution import Snapshot, resolve_market
from bot.vocab.commits import Landing, Tag
from bot.vocab.dates import MarketDates
from bot.vocab.findings import Code, Finding, Severity
from tests.support import (
    RULES,
    Files,
    MemoryTree,
    assert_report_reads_back,
    fuzz_settings,
    shared_rules,
)

RULES_MODEL = shared_rules()
FREEZE_FILES = ("freeze.yaml", "freeze-cases.jsonl")
MARKET = load_market(market_document(3, "default"), RULES_MODEL)
MARKET_FILE = dump_yaml(market_document(3, "default"))
DATES = MarketDates.of(MARKET.resolve_by, RULES_MODEL.window_days, RULES_MODEL.annul_after_days)
CHECKS = (*RULES_MODEL.checks_all, *RULES_MODEL.checks_wrapped)
SPECS = (
    AttemptSpec(),
    AttemptSpec(kind="wrapped"),
    AttemptSpec(false_safe_rate=0.5),
    AttemptSpec(cases_per_family=2),  # too few units: not qualifying
)


def _specimen(spec: AttemptSpec) -> Files:
    files = attempt_files(spec)
    files["scores.yaml"] = score_table(files, MARKET, RULES_MODEL.confidence)
    return files


SPECIMENS = [_specimen(spec) for spec in SPECS]
# Days around the market's calendar: open, in the window, its close, closed, annulment, after.
DAYS = sorted(
    {
        date(2027, 4, 15),
        DATES.resolve_by,
        date(2027, 7, 15),
        DATES.window_closes,
        date(2027, 9, 1),
        DATES.annul_on,
        date(2027, 9, 29),
        date(2028, 1, 1),
    }
)
MOMENTS = [
    datetime(2027, 4, 1, tzinfo=UTC),
    datetime(2027, 8, 30, 11, 59, tzinfo=UTC),
    datetime(2027, 8, 30, 12, 1, tzinfo=UTC),
    datetime(2027, 9, 29, 12, 1, tzinfo=UTC),
    datetime(2027, 12, 31, tzinfo=UTC),
]
VERDICTS = st.sampled_from(["pass", "fail", "unsettled"])
BOUND = "the evidence digest"  # replaced by the attempt's own digest (`_with_digest`)
AT = ["2027-04-01", "2027-08-29", "2027-08-30", "2027-08-30T11:00:00Z", "2027-10-01"]


def _judged(files: Files, facts: AttemptFacts, as_of: date) -> Any:
    folder = SPECS[0].folder
    tree = MemoryTree({f"{folder}/{name}": data for name, data in files.items()})
    tree.files["shared-rules/common-v1.yaml"] = RULES
    tree.files["markets/market-03.yaml"] = MARKET_FILE
    registry = Registry(tree, RULES_MODEL)
    read = read_attempt(registry, folder)
    market, problems, _ = find_market(registry, read)
    # The freeze landed on main between its freezing and the first trial.
    landed = Landing("a" * 40, datetime(2027, 1, 15, tzinfo=UTC), "Merge pull request #1")
    facts = replace(
        facts,
        base_ref="main",
        market_problems=problems,
        freeze_landings={f"{folder}/{name}": landed for name in FREEZE_FILES},
        landing_confirmations={"a" * 40: None},
    )
    return judge_attempt(read, facts, market, RULES_MODEL, as_of)


PR_PROBLEMS = [
    (),
    (Finding(Code.MAINTAINER_FILE, "maintainers only", "judgments.yaml"),),
    (Finding(Code.MAINTAINER_FILE, "noted", "judgments.yaml", severity=Severity.WARNING),),
]


@st.composite
def _case(draw: st.DrawFn) -> tuple[Files, AttemptFacts, date]:
    # Half the examples keep every fact an attempt needs to qualify (checks passed in time
    # for this evidence, filed in the window, rerun, no pull-request error): what varies then
    # is the attempt, the date and the snapshot, so qualifying attempts meet every state.
    clean = draw(st.booleans())

    def pick(strategy: st.SearchStrategy[Any], good: Any) -> Any:
        return good if clean else draw(strategy)

    files = dict(SPECIMENS[draw(st.integers(0, len(SPECIMENS) - 1))])
    everything = dict.fromkeys(CHECKS, "pass")
    verdicts = pick(st.dictionaries(st.sampled_from(CHECKS), VERDICTS), everything)
    at = pick(st.sampled_from(AT), "2027-08-29")
    if verdicts:
        stale = pick(st.booleans(), False)
        bound = {**files, "freeze.yaml": files["freeze.yaml"] + b"\n"} if stale else files
        files["judgments.yaml"] = judgments_file(bound, verdicts, "maintainer", at)
    # judgments.yaml as it stood on main at the close: none, the same checks as now, or others;
    # bound to this evidence (`_with_digest`) or to another.
    at_close: dict[str, Judgment] | None = None
    mode = pick(st.sampled_from(["none", "as-now", "others"]), "as-now")
    if mode != "none":
        digest = pick(st.sampled_from(["0" * 64, BOUND]), BOUND)
        then = (
            verdicts
            if mode == "as-now"
            else draw(st.dictionaries(st.sampled_from(CHECKS), VERDICTS))
        )
        at_close = {
            check: Judgment(verdict, "maintainer", pick(st.sampled_from(AT), at), digest)
            for check, verdict in then.items()
        }
    facts = AttemptFacts(
        filed_at=pick(st.none() | st.sampled_from(MOMENTS), MOMENTS[0]),
        judgments_at_close=at_close,
        adapter_findings=pick(st.sampled_from([None, ()]), ()),
        pr_problems=draw(st.sampled_from(PR_PROBLEMS[2:] if clean else PR_PROBLEMS)),
    )
    return files, facts, draw(st.sampled_from(DAYS))


def _with_digest(files: Files, facts: AttemptFacts, as_of: date) -> AttemptFacts:
    """Judgments at the close bound to the evidence as the judge digests it."""
    at_close = facts.judgments_at_close
    if not at_close or all(j.evidence_digest != BOUND for j in at_close.values()):
        return facts
    digest = _judged(files, AttemptFacts(), as_of).digest
    return replace(
        facts,
        judgments_at_close={
            check: replace(j, evidence_digest=digest) for check, j in at_close.items()
        },
    )


@st.composite
def _snapshot(draw: st.DrawFn, as_of: date) -> Snapshot:
    tag = None
    kind = draw(st.sampled_from(["none", "lightweight", "undated", "dated"]))
    if kind != "none":
        tagged_at = draw(st.sampled_from(MOMENTS)) if kind == "dated" else None
        tag = Tag(DATES.snapshot_tag, "1" * 40, kind != "lightweight", tagged_at)
    record: dict[str, object] | None = None
    if draw(st.booleans()):
        record = {
            "tag": draw(st.sampled_from([DATES.snapshot_tag, "snapshot-2020-01-01"])),
            "created": draw(
                st.sampled_from([None, "not a time", *(m.isoformat() for m in MOMENTS)])
            ),
            "doi": draw(st.sampled_from([None, "", "10.5281/zenodo.1"])),
        }
    return Snapshot.of(DATES.snapshot_tag, tag, record, DATES, as_of, on_branch=draw(st.booleans()))


@fuzz_settings(300)
@given(case=_case(), data=st.data())
def test_the_judge_and_the_resolver_build_only_possible_verdicts(
    case: tuple[Files, AttemptFacts, date], data: st.DataObject
) -> None:
    files, facts, as_of = case
    facts = _with_digest(files, facts, as_of)
    verdict = _judged(files, facts, as_of)
    assert_report_reads_back(
        "verify-report",
        verify_report_to_json(
            VerifyReport((verdict,), pr_problems=tuple(facts.pr_problems), base_ref="main")
        ),
    )
    snapshot = data.draw(_snapshot(as_of))
    resolution = resolve_market(MARKET, DATES, [verdict], snapshot, as_of)
    report = ResolveReport(as_of, (resolution,), ())
    assert_report_reads_back("resolve-report", resolve_report_to_json(report))

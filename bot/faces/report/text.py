"""The terminal summary of `claims verify`: one block per attempt, problems by file and line."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from bot.rules.verdict import AttemptVerdict, BarResult
from bot.vocab.findings import Code, Finding, Severity

if TYPE_CHECKING:
    from bot.rules.explain import Explanation
    from bot.rules.reports import ResolveReport, VerifyReport

__all__ = ["printable", "render_explanation", "render_resolution", "render_text"]


# Past this many findings with the same code in the same file, the terminal shows a count
# (the JSON report lists FINDINGS_PER_CODE_AND_FILE, bot/app/report_cap.py).
_SAME_SHOWN = 5


# The label of a qualification finding that is an error: it keeps the attempt from qualifying
# but the evidence stays valid (VALID, exit 0), so "error" would read as a contradiction;
# docs/reason-codes.md calls this kind "not qualifying".
NOT_QUALIFYING = "not-qualifying"


def _finding_lines(findings: Sequence[Finding], qualification: bool = False) -> list[str]:
    lines: list[str] = []
    shown: dict[tuple[str, str | None], int] = {}
    hidden: dict[tuple[str, str | None], int] = {}
    for finding in findings:
        key = (finding.code.value, finding.file)
        if shown.get(key, 0) < _SAME_SHOWN:
            shown[key] = shown.get(key, 0) + 1
            lines.append(_finding_line(finding, qualification))
        else:  # a report's summary (read back) counts the findings it stands for
            hidden[key] = hidden.get(key, 0) + (finding.left_out or 1)
    for code, file in shown:
        if (code, file) in hidden:
            lines.append(f"            ... and {hidden[code, file]} more {code} in {file}")
    return lines


def _problems(findings: Sequence[Finding]) -> list[Finding]:
    return [finding for finding in findings if finding.severity is not Severity.NOTICE]


def _registry_blocks(findings: Sequence[Finding]) -> list[str]:
    """The registry's problems for a maintainer to fix, then its notices (what the run did,
    such as a damaged verification-cache entry checked again): nothing to fix."""
    blocks = []
    problems = _problems(findings)
    notices = [finding for finding in findings if finding.severity is Severity.NOTICE]
    if problems:
        lines = ["REGISTRY problems (a maintainer must fix these):"]
        blocks.append("\n".join([*lines, *(_finding_line(finding) for finding in problems)]))
    if notices:
        lines = ["REGISTRY notices (nothing to fix):"]
        blocks.append("\n".join([*lines, *(_finding_line(finding) for finding in notices)]))
    return blocks


def _finding_line(finding: Finding, qualification: bool = False) -> str:
    where = finding.location() or "-"
    marker = finding.severity.value
    if qualification and finding.severity is Severity.ERROR:
        marker = NOT_QUALIFYING
    message = finding.message.replace("\n", "\n            ")
    return f"    {marker:7} {finding.code.value:22} {where}\n            {message}"


def _number(value: Any) -> str:
    return "none" if value is None else f"{value:.4f}"


def coverage_text(bar: BarResult) -> str:
    """An AUROC bar's honesty line: the simulated coverage of DeLong's nominal 95%
    bound and the better-calibrated bound beside it; empty without a bound."""
    parts = []
    if bar.coverage is not None:
        parts.append(f"DeLong's 95% bound covers about {100 * bar.coverage:.1f}% here (simulated)")
    if bar.alt_method is not None and bar.alt_bound is not None:
        parts.append(f"{bar.alt_method} bound {bar.alt_bound:.4f} (information only)")
    return "; ".join(parts)


def _bar_line(bar: BarResult) -> str:
    if not bar.exercised:  # an AUROC bar's note gives its units per class where it has them
        return f"    bar {bar.bar_id}: not exercised ({bar.note})"
    met = "met" if bar.met else "missed"
    note = f"; {bar.note}" if bar.note else ""
    if bar.statistic == "auroc_lower":
        honesty = coverage_text(bar)
        return (
            f"    bar {bar.bar_id}: AUROC {_number(bar.auroc)}, lower bound"
            f" {_number(bar.bound)} >= {bar.threshold}? {met}"
            f" ({bar.positives} positive, {bar.negatives} negative units{note})"
            + (f"\n            {honesty}" if honesty else "")
        )
    sign = "<=" if bar.statistic == "rate_upper" else ">="
    return (
        f"    bar {bar.bar_id}: {bar.failures} failing of {bar.units} units,"
        f" bound {_number(bar.bound)} {sign} {bar.threshold}? {met}{note}"
    )


def _qualification_lines(verdict: AttemptVerdict) -> list[str]:
    assert verdict.status is not None
    outcome = f" · outcome {verdict.outcome}" if verdict.outcome else ""
    lines = [f"  {verdict.status.upper()}{outcome}"]
    lines += [_bar_line(bar) for bar in verdict.bars]
    units = verdict.units
    if units is not None:
        joined = units.joined_most_by or "nothing"
        lines.append(
            f"    units: {units.count} (largest {units.largest}, joined"
            f" most by {joined}; nulls per key {dict(units.nulls_per_key)})"
        )
        # How the units formed; a sample-size finding below says it already.
        if not any(f.code is Code.SAMPLE_SIZE for f in verdict.qualification):
            lines += [f"      {text}" for text in units.formation]
    lines += _finding_lines(verdict.qualification, qualification=True)
    waiting = [
        f"{name} ({check.state})" for name, check in verdict.checks.items() if check.state != "pass"
    ]
    if waiting:
        lines.append(f"    human checks not passed: {', '.join(waiting)}")
    return lines


def render_resolution(report: ResolveReport, brief: bool = False) -> str:
    """The human summary of `claims resolve`: one block per market, each attempt's verdict
    (`brief`: one line per market)."""
    resolutions, as_of, registry_findings = report.markets, report.as_of, report.registry_problems
    if brief:
        lines = [
            f"market {r.market:>2}: {r.state:13} "
            f"{r.outcome or '(provisionally ' + str(r.provisional) + ')'}"
            for r in resolutions
        ]
        return "\n".join([*lines, f"{len(resolutions)} market(s) as of {as_of}"]) + "\n"
    blocks = []
    for resolution in resolutions:
        outcome = resolution.outcome or f"(provisionally {resolution.provisional})"
        head = (
            f"market {resolution.market}{' (demo)' if resolution.demo else ''}: {outcome}"
            f" · {resolution.state} · resolve-by {resolution.dates.resolve_by},"
            f" window closes {resolution.dates.window_closes}"
        )
        lines = [head, f"  {resolution.title}", f"  read from the {resolution.source}"]
        lines.append(f"  why: {resolution.why}")
        lines += [
            f"  warning: {warning}" for warning in resolution.warnings if warning != resolution.why
        ]
        for verdict in resolution.attempts:
            codes = verdict.reasons
            status = verdict.status or f"evidence {verdict.evidence}"
            outcome_text = f" ({verdict.outcome})" if verdict.outcome else ""
            lines.append(
                f"    {status + outcome_text:24} {verdict.attempt}"
                + (f"  [{', '.join(codes)}]" if codes else "")
            )
        blocks.append("\n".join(lines))
    blocks += _registry_blocks(registry_findings)
    blocks.append(f"{len(resolutions)} market(s) as of {as_of}")
    return "\n\n".join(blocks) + "\n"


def render_text(report: VerifyReport) -> str:
    """Return the human summary, ending with a one-line total."""
    verdicts, registry_findings = report.attempts, report.registry_problems
    blocks = []
    for verdict in verdicts:
        head = f"{verdict.attempt}"
        market = f"market {verdict.market}" if verdict.market is not None else "market ?"
        status = "VALID" if verdict.evidence == "valid" else "INVALID"
        counts = verdict.counts
        detail = (
            f"  {market} · {verdict.kind or '?'} · {counts.cases} cases ·"
            f" {counts.trials} trials · {counts.systems} systems"
        )
        lines = [f"{status:8} {head}", detail]
        if verdict.digest:
            lines.append(f"  evidence digest {verdict.digest}")
        lines += _finding_lines(verdict.findings)
        if verdict.pr_problems:
            codes = ", ".join(sorted({f.code.value for f in verdict.pr_problems}))
            lines.append(
                f"    invalid: its pull request changes what it may not ({codes}; see below)"
            )
        if verdict.status:
            lines += _qualification_lines(verdict)
        blocks.append("\n".join(lines))
    for run in report.challenge_runs:
        status = "VALID" if run.evidence == "valid" else "INVALID"
        scorer = run.scorer or "?"
        if run.recomputed_by:
            scorer += " (built in: recomputed where its inputs are published)"
        lines = [
            f"{status:8} {run.folder}",
            f"  challenge run · market {run.market if run.market is not None else '?'} ·"
            f" operator {run.operator or '?'} · scorer {scorer} · {run.cases} hash-only cases",
        ]
        for scored in run.scored:
            source = (
                "recomputed from the published inputs"
                if scored.source == "recomputed"
                else "from the committed score file"
            )
            lines.append(f"  scores {scored.attempt}: {len(scored.tasks)} case(s), {source}")
        lines += _finding_lines(run.findings)
        blocks.append("\n".join(lines))
    # A notice (`identity-unchecked`: offline, nobody to ask) is not a problem: it is listed
    # apart and never counted as one.
    pr_problems = _problems(report.pr_problems)
    pr_notices = [f for f in report.pr_problems if f.severity is Severity.NOTICE]
    if pr_problems:
        lines = ["PULL REQUEST problems (what it changes that it may not):"]
        lines += _finding_lines(pr_problems)
        blocks.append("\n".join(lines))
    if pr_notices:
        lines = ["PULL REQUEST notices (what could not be confirmed here; nothing to fix):"]
        lines += _finding_lines(pr_notices)
        blocks.append("\n".join(lines))
    blocks += _registry_blocks(registry_findings)
    registry_problems = _problems(registry_findings)
    invalid = sum(1 for verdict in verdicts if verdict.evidence == "invalid")
    total = (
        f"{len(verdicts)} attempt(s): {len(verdicts) - invalid} valid, {invalid} invalid"
        + (f"; {len(pr_problems)} pull-request problem(s)" if pr_problems else "")
        + (f"; {len(registry_problems)} registry problem(s)" if registry_problems else "")
    )
    runs = report.challenge_runs
    if runs:
        bad = sum(1 for run in runs if run.evidence == "invalid")
        total += f"; {len(runs)} challenge run(s): {len(runs) - bad} valid, {bad} invalid"
    return "\n\n".join([*blocks, total]) + "\n"


def printable(text: str) -> str:
    """`text` with lone surrogates as `\\udcXX` escapes, so it can be written as UTF-8.

    File and folder names that are not UTF-8 reach reports as lone surrogates (Python's
    surrogateescape); in JSON output the escape is JSON's own, so the report stays parseable.
    """
    return text.encode("utf-8", "backslashreplace").decode("utf-8")


def render_explanation(explanations: Sequence[Explanation], brief: int | None = None) -> str:
    """`claims explain`: each line starts with its mark (ok, missing, fails, or outcome for a
    missed bar), then its topic.
    Every line is shown; with `brief` (`--brief`), past that many evidence lines with one
    reason code in an attempt, one line counts the rest (the total counts every line below
    the attempts' own lines)."""
    blocks = []
    marks = {"ok": 0, "missing": 0, "fails": 0, "outcome": 0}
    headed: set[str] = set()  # the marks of the attempts' own lines, for the total's mark
    for explanation in explanations:
        lines = []
        same: dict[str, int] = {}
        for line in explanation.lines:
            # An attempt's own line sums up the lines below it: counting it too would total
            # one more "fails" than the conditions shown (its mark still sets the total's).
            if line.topic == "attempt":
                headed.add(line.mark)
            else:
                marks[line.mark] += 1
            if brief is not None and line.topic == "evidence" and line.code:
                same[line.code] = same.get(line.code, 0) + 1
                if same[line.code] > brief:
                    continue
            text = line.text.replace("\n", " ")
            if line.code and line.code not in text:
                text += f" [{line.code}]"
            lines.append(f"{line.mark:7} {line.topic:11} {text}")
        for code, count in same.items():
            left = count - (brief or 0)  # `same` is filled only with `brief`
            if left > 0:
                lines.append(
                    f"{'fails':7} {'evidence':11} ... and {left} more {code}"
                    " (without --brief: every one)"
                )
        blocks.append("\n".join(lines))
    seen = headed | {mark for mark, count in marks.items() if count}
    worst = "fails" if "fails" in seen else "missing" if "missing" in seen else "ok"
    total = (
        f"{worst:7} {'total':11} {len(explanations)} attempt(s): {marks['ok']} ok,"
        f" {marks['missing']} missing, {marks['fails']} fails"
        # A missed bar is the outcome, not a failure: counted apart, and only when there is one.
        + (f", {marks['outcome']} outcome (missed bar)" if marks["outcome"] else "")
    )
    return "\n\n".join([*blocks, total]) + "\n"

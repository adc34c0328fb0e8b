"""`claims scores`: the score table the bot derives, in scores.yaml form.

Exactly what the judge compares scores.yaml with: the attempt is read by `read_attempt`, its
cases and trials checked by the verifier's `check_cases` / `check_trials`, and the table is
`bot.rules.bars.derived_table` at the shared rules' confidence (the judge's step 9), written by
`dump_yaml` as the demo's honest attempts write it.
"""

from __future__ import annotations

from dataclasses import dataclass

from bot.app.attempt_read import read_attempt
from bot.edges.dump import dump_yaml
from bot.faces.tools.attempt import AttemptPlace
from bot.rules.bars import derived_table
from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.trials import check_trials
from bot.rules.judge.location import market_unknown
from bot.vocab.findings import Code, Finding, Severity

__all__ = ["ScoresResult", "derive_scores"]


@dataclass(frozen=True)
class ScoresResult:
    """scores.yaml as the bot derives it (None when it cannot), and why not."""

    data: bytes | None
    problems: list[Finding]


def derive_scores(place: AttemptPlace) -> ScoresResult:
    """The derived scores.yaml of the attempt at `place`. Never raises for bad evidence."""
    registry = place.registry()
    files = read_attempt(registry, place.inside)
    cases_file, trials_file = files.path("freeze-cases.jsonl"), files.path("trials.jsonl")
    problems = [f for f in files.problems if f.file in (cases_file, trials_file)]
    number = files.attempt.market if files.attempt is not None else files.folder_market
    market = None
    if number is not None and not registry.rules.is_not_in_registry(number):
        market, registry_problems = registry.market(number)
        problems += registry_problems
    if market is None:
        where = files.attempt.path if files.attempt else files.folder
        if number is None:
            unknown = Finding(
                Code.ATTEMPT_LOCATION,
                "cannot tell the market: attempt.yaml names none and the folder is not"
                " attempts/market-NN/...",
                where,
            )
        else:
            unknown = market_unknown(number, registry.rules, where, None)
        return ScoresResult(None, [*problems, unknown])
    if files.case_records is None or files.trial_records is None:
        missing = [
            Finding(Code.FILE_MISSING, "required to derive the score table", path)
            for path, records in (
                (cases_file, files.case_records),
                (trials_file, files.trial_records),
            )
            if records is None and not any(f.file == path for f in problems)
        ]
        return ScoresResult(None, [*problems, *missing])
    cases, found = check_cases(files.case_records, cases_file, complete=files.cases_complete)
    problems += found
    trials, found = check_trials(
        files.trial_records, cases, market.unit_keys, trials_file, complete=files.trials_complete
    )
    problems += found
    if any(f.severity is Severity.ERROR for f in problems):
        return ScoresResult(None, problems)
    _, _, found, table = derived_table(
        market, cases, trials, registry.rules.confidence, trials_file
    )
    if any(f.severity is Severity.ERROR for f in found):
        return ScoresResult(None, [*problems, *found])
    return ScoresResult(
        dump_yaml(table.to_data(), f"{place.schema_base()}/scores.schema.json"), problems
    )

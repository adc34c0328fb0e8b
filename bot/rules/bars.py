"""Performance bars (docs/spec.md §6, §7): which trials a bar counts, its bound, whether it was met.

Pure functions: checked cases and trials in, `BarResult`s and the derived score table out.
Units are the global units of all scored trials (docs/spec.md §6, union-find over the market's unit
keys); a bar counts the units its trials fall in. Confidence comes from the shared rules.

- rate_upper: one-sided Clopper-Pearson upper bound on failing units / units <= max.
- rate_lower: one-sided Clopper-Pearson lower bound on passing units / units >= min.
- auroc_lower: DeLong's one-sided lower bound on the AUROC >= min, one score per unit
  (a bar whose trials share a unit is refused).

Exercised bars (seed, "Exercised Bars"): a `supplied` bar with no scored case was never tested
(not qualifying, never NO); a `method_output` bar with an empty denominator is missed. Likewise
an AUROC bar below its market's `min_per_class` units in the smaller class.

Honest bounds: each AUROC bar with a bound also carries the simulated coverage of
DeLong's nominal bound at its units per class and AUROC (`bot/rules/stats/coverage.py`), with the
warning `bound-coverage-low` below 90%, and the logit bound beside it
(`bot/rules/stats/delong_logit.py`), as information: the decision follows DeLong's bound.
"""

from __future__ import annotations

import math
from bisect import bisect_left
from collections import Counter
from collections.abc import Callable, Hashable, Iterable, Mapping, Sequence
from itertools import compress
from operator import and_, attrgetter
from typing import TypedDict, Unpack, cast

from bot.rules.evidence.models import Case, FoldedKeys, Trial
from bot.rules.models import Bar, Market
from bot.rules.score_table import ScoreTable, score_row
from bot.rules.stats import clopper_pearson, delong, delong_logit
from bot.rules.stats.coverage import COVERAGE_WARNING_BELOW, load_table, shipped_coverage
from bot.rules.stats.errors import StatisticsError
from bot.rules.stats.formation import describe_pair, separate_pair
from bot.rules.stats.units import UnitStructure, collapse_units, unit_failures_among
from bot.rules.verdict import BarResult
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.names import fold_name
from bot.vocab.values import JSONObject, JSONValue, json_equal, json_key

__all__ = [
    "BOUND_TOLERANCE",
    "BarResult",
    "ScoreTable",
    "Selections",
    "below_coverage_grid",
    "compare_score_tables",
    "coverage_low",
    "coverage_warnings",
    "derive_score_table",
    "derived_table",
    "evaluate_bars",
    "unit_structure",
]

# docs/spec.md §4: the claimed table must equal the derived one, counts exactly, bounds within 5e-5.
BOUND_TOLERANCE = 5e-5
# Result fields that carry the method's certificate label and the benchmark truth (docs/spec.md §6).
CERTIFICATE_FIELD = "certificate"
TRUTH_FIELD = "truth"


class _Found(TypedDict, total=False):
    """What a bar's evaluation found beyond its counts (`BarResult`'s fields)."""

    auroc: float | None
    positives: int | None
    negatives: int | None
    met: bool | None
    note: str
    refused: bool
    coverage: float | None
    alt_method: str | None
    alt_bound: float | None


class _Counted(TypedDict):
    """What every computed AUROC bar reports (the score table's row)."""

    units: int
    bound: float
    auroc: float
    positives: int
    negatives: int


def _result(
    bar: Bar,
    exercised: bool,
    failures: int | None = None,
    units: int | None = None,
    bound: float | None = None,
    **found: Unpack[_Found],
) -> BarResult:
    """A `BarResult` for `bar`: its id, statistic and threshold, then what was found."""
    return BarResult(
        bar.id, bar.statistic, bar.threshold, exercised, failures, units, bound, **found
    )


def unit_structure(trials: Sequence[Trial], unit_keys: Sequence[str]) -> UnitStructure:
    """The global units of all scored trials.

    Unit-key values that are names are compared folded (bot/vocab/names.py), so `Grader-1` and
    ` grader-1` join one unit; a value that folds to nothing is "not applicable", like null.
    """
    keys = list(map(attrgetter("keys"), trials))
    plain = "result" not in unit_keys  # keys holds the record's result too: never a unit key
    if plain and {FoldedKeys}.issuperset(map(type, keys)):
        return collapse_units(keys, unit_keys)  # all folded already (`TrialChecker`): as they are
    folded: list[Mapping[str, object]] = []
    for trial_keys in keys:  # only the unit keys: collapse_units reads no other field
        if plain and type(trial_keys) is FoldedKeys:
            folded.append(trial_keys)
            continue
        folded.append(
            {
                key: fold_name(value) if isinstance(value := trial_keys[key], str) else value
                for key in unit_keys
                if key in trial_keys and key != "result"
            }
        )
    return collapse_units(folded, unit_keys)


def _matches(value: JSONValue, wanted: JSONValue) -> bool:
    if isinstance(wanted, list):
        return any(_matches(value, item) for item in wanted)
    return json_equal(value, wanted)  # JSON equality (bot/vocab/values.py): true is not 1


# Values of exactly these types are equal as JSON values exactly when they are of one type and
# equal in Python (`json_equal`), so equal such values answer every `_matches` alike: asked
# once per distinct value. (0.0 and -0.0 are one value to JSON too; a NaN, which no loader
# lets through, equals nothing and is asked afresh, each NaN apart.)
_SCALARS = frozenset({str, int, float, bool, type(None)})
_NULL = type(None)
_PRESENT = _SCALARS - {_NULL}


def _one_kind(values: Sequence[JSONValue]) -> bool:
    """Plain values of one type, nulls aside: a value is then a key for its answers (true and
    1, or 1 and 1.0, are never in one such column). Found in C."""
    kinds = set(map(type, values))
    return kinds <= _SCALARS and len(kinds - {_NULL}) <= 1


def _answers(values: list[JSONValue], ask: Callable[[JSONValue], bool]) -> list[bool]:
    """`ask(value)` for each value: once per distinct value where the values are plain. `ask`
    answers JSON-equal values alike (a `_matches` test), so 0.0 may answer for -0.0."""
    if not _one_kind(values):
        return list(map(_remembered(ask), values))
    answers = {value: ask(value) for value in set(values)}
    return list(map(answers.__getitem__, values))


def _remembered(ask: Callable[[JSONValue], bool]) -> Callable[[JSONValue], bool]:
    """`ask`, asked once per distinct plain value (of its type); `ask` answers JSON-equal
    values alike, as in `_answers`."""
    answers: dict[tuple[type, JSONValue], bool] = {}

    def remembered(value: JSONValue) -> bool:
        kind = type(value)
        if kind not in _SCALARS:
            return ask(value)
        key = (kind, value)
        answer = answers.get(key)
        if answer is None:
            answer = answers[key] = ask(value)
        return answer

    return remembered


def _one_of(wanted: JSONValue) -> Callable[[JSONValue], bool]:
    """`_matches(value, wanted)`, as a function of the value."""
    return lambda value: _matches(value, wanted)


def _matcher(wanted: JSONValue) -> Callable[[JSONValue], bool]:
    """`_matches(value, wanted)`, asked once per distinct plain value."""
    return _remembered(_one_of(wanted))


_CASE_ATTRIBUTES = ("case_id", "family", "kind")  # `Case.field`: the rest are `public`'s


class Selections:
    """The trials' columns the bars read, each read once: which trials each bar counts
    (`over.case`, `over.result`), the result fields, the class-conditional counts.

    Selection is by column: the values of a field a bar selects by are read once per trial,
    each condition (a field and the values wanted) is asked once per distinct plain value
    (`_answers`), and a bar counts the trials every one of its conditions holds for. Bars
    with one condition share one list. A bar's list is the indexes of the trials it counts,
    in trial order, as asking each trial would give it.
    """

    def __init__(
        self, cases: Mapping[str, Case], trials: Sequence[Trial], bars: Sequence[Bar]
    ) -> None:
        self._cases, self._trials = cases, trials
        self._trial_results: list[JSONObject] | None = None
        self._results: dict[str, list[JSONValue]] = {}
        self._case_columns: dict[str, list[JSONValue]] = {}
        self._trial_cases: list[Case] | None = None
        # Per condition (field, wanted value's key): whether each trial meets it.
        self._holds: dict[tuple[str, str, Hashable], list[bool]] = {}
        self._chosen: dict[Hashable, list[int]] = {}
        self._text: bool | None = None

    def result_column(self, name: str) -> list[JSONValue]:
        """Each trial's `result.get(name)`."""
        column = self._results.get(name)
        if column is None:
            results = self._trial_results
            if results is None:  # each trial read once for all its result's fields
                results = self._trial_results = [trial.result for trial in self._trials]
            column = self._results[name] = [result.get(name) for result in results]
        return column

    def trial_cases(self) -> list[Case]:
        """Each trial's case (a trial of a case not frozen is refused, never kept)."""
        cases = self._trial_cases
        if cases is None:
            cases = self._trial_cases = [self._cases[trial.case_id] for trial in self._trials]
        return cases

    def _case_column(self, name: str) -> list[JSONValue]:
        """Each trial's case's `Case.field(name)`."""
        column = self._case_columns.get(name)
        if column is None:
            cases = self.trial_cases()
            column = self._case_columns[name] = (
                list(map(attrgetter(name), cases))
                if name in _CASE_ATTRIBUTES
                else [case.public.get(name) for case in cases]
            )
        return column

    def result_matches(self, name: str, want: JSONValue) -> list[bool]:
        """Whether each trial's `result.get(name)` matches `want` (`_matches`): a list kept,
        to read, not to change."""
        return self._meets("result", name, want)

    def _meets(self, side: str, name: str, want: JSONValue) -> list[bool]:
        """Whether each trial's value of the field (its case's, or its result's) matches
        `want` (`_matches`), asked once per distinct plain value."""
        condition = (side, name, json_key(want))
        holds = self._holds.get(condition)
        if holds is None:
            column = self._case_column(name) if side == "case" else self.result_column(name)
            holds = self._holds[condition] = _answers(column, _one_of(want))
        return holds

    def of(self, bar: Bar) -> list[int]:
        """The indexes of the trials `bar` (one of the `bars`) counts, in trial order: a list
        shared with the bars of its condition, to read, not to change."""
        over_case, over_result = list(bar.over_case.items()), list(bar.over_result.items())
        if not over_case and not over_result:
            return list(range(len(self._trials)))
        condition = (
            tuple((name, json_key(want)) for name, want in over_case),
            tuple((name, json_key(want)) for name, want in over_result),
        )
        chosen = self._chosen.get(condition)
        if chosen is None:
            wanted = [("case", name, want) for name, want in over_case]
            wanted += [("result", name, want) for name, want in over_result]
            holds: Iterable[bool] = self._meets(*wanted[0])
            for side, name, want in wanted[1:]:
                holds = map(and_, holds, self._meets(side, name, want))
            chosen = self._chosen[condition] = list(compress(range(len(self._trials)), holds))
        return chosen

    def _labels(self) -> tuple[list[JSONValue], list[JSONValue], bool]:
        """The certificate and truth columns, and whether all of both are text."""
        certificates = self.result_column(CERTIFICATE_FIELD)
        truths = self.result_column(TRUTH_FIELD)
        text = self._text
        if text is None:  # found once: every bar asks
            text = self._text = _all_text(certificates) and _all_text(truths)
        return certificates, truths, text

    def unlabelled(self) -> list[int]:
        """The trials without both labels as text."""
        certificates, truths, text = self._labels()
        if text:
            return []
        return [
            index
            for index, (certificate, truth) in enumerate(zip(certificates, truths, strict=True))
            if not (isinstance(certificate, str) and isinstance(truth, str))
        ]

    def confusion(self, selected: Sequence[int] | None) -> dict[str, dict[str, int]]:
        """The class-conditional counts of the `selected` trials (None: all): certificate
        labels and, in each, truth labels, in the order the trials first show them."""
        certificates, truths, text = self._labels()
        firsts: Iterable[JSONValue] = certificates
        seconds: Iterable[JSONValue] = truths
        if selected is not None:
            firsts, seconds = (
                map(certificates.__getitem__, selected),
                map(truths.__getitem__, selected),
            )
        # All text: each pair as it is (the labels checked, `_labels`).
        pairs: Iterable[tuple[str, str] | None] = cast(
            "Iterable[tuple[str, str]]", zip(firsts, seconds, strict=True)
        )
        if not text:
            pairs = (
                (certificate, truth)
                if isinstance(certificate, str) and isinstance(truth, str)
                else None
                for certificate, truth in zip(firsts, seconds, strict=True)
            )
        table: dict[str, dict[str, int]] = {}
        for pair, count in Counter(pairs).items():  # a Counter keeps first appearances' order
            if pair is not None:
                certificate, truth = pair
                table.setdefault(certificate, {})[truth] = count
        return table


def _all_text(values: Iterable[JSONValue]) -> bool:
    """Every value a string (found in C)."""
    return {str}.issuperset(map(type, values))


def _lacking(
    bar: Bar,
    trials: Sequence[Trial],
    selected: list[int],
    file: str,
    allowed: Callable[[JSONValue], bool] | None = None,
    values: list[JSONValue] | None = None,
) -> list[Finding]:
    """`schema` findings for the bar's trials whose result cannot be read as the bar needs.

    An absent field, a null, or a list or object is not a value: a rate bar would count it as
    passing (rate_upper) and an AUROC bar as a negative, so it is refused like a missing
    score. Where the contract states the field's allowed values (`values`; for an AUROC
    label, `positive` and `negative`), any other value is refused too: a typo such as
    "False_Safe" must not pass as "not a failure". `allowed`: `_allowed(bar)`; `values`: each
    selected trial's `result.get(field)`: when the caller has them already.
    """
    name = bar.predicate_field if bar.statistic != "auroc_lower" else bar.label_field
    if not name:
        return []
    is_allowed = allowed or _allowed(bar)
    # Every value present and plain (an absent one reads None): only the contract's values
    # can refuse one, asked once per distinct value.
    if (
        values is not None
        and _PRESENT.issuperset(map(type, values))
        and (not bar.allowed or all(_answers(values, is_allowed)))
    ):
        return []
    findings = []
    for index in selected:
        result = trials[index].result
        value = result.get(name)
        if name not in result:
            problem = "the result has none"
        elif value is None or isinstance(value, dict | list):
            problem = f"got {value!r}, expected a plain value"
        elif not is_allowed(value):
            listed = ", ".join(repr(item) for item in bar.allowed)
            problem = f"got {value!r}, which is not one of the contract's values ({listed})"
        else:
            continue
        message = f"result.{name}: bar {bar.id!r} reads this field, and {problem}"
        findings.append(Finding(Code.SCHEMA, message, file, trials[index].line))
    return findings


def _allowed(bar: Bar) -> Callable[[JSONValue], bool]:
    """Whether a value is one the contract allows the bar's field (any, when it lists none)."""
    if not bar.allowed:
        return lambda value: True
    return _matcher(list(bar.allowed))


def _rate(
    bar: Bar,
    trials: Sequence[Trial],
    selected: list[int],
    units: UnitStructure,
    max_rate: float | None,
    confidence: float,
    file: str,
    selections: Selections,
) -> tuple[BarResult, list[Finding]]:
    if not selected:
        if bar.denominator == "method_output":
            return _result(
                bar,
                True,
                0,
                0,
                None,
                met=False,
                note="empty denominator: the method issued nothing to count",
            ), []
        return _result(bar, False, 0, 0, note="no scored case: the bar was never tested"), []
    column = selections.result_column(bar.predicate_field or "")
    values = list(map(column.__getitem__, selected))
    lacking = _lacking(bar, trials, selected, file, values=values)
    if lacking:
        return _result(bar, False, note="results lack the bar's field"), lacking
    # The failure test over all trials, kept for `meaning_warnings`: read at the bar's.
    matches = selections.result_matches(bar.predicate_field or "", list(bar.predicate_values))
    hits = list(map(matches.__getitem__, selected))
    failed = hits if bar.statistic == "rate_upper" else [not hit for hit in hits]
    failing, count = unit_failures_among(units, selected, failed, max_rate)
    if bar.statistic == "rate_upper":
        bound = clopper_pearson.upper_bound(failing, count, confidence)
        met = bound <= bar.threshold
    else:
        bound = clopper_pearson.lower_bound(count - failing, count, confidence)
        met = bound >= bar.threshold
    return _result(bar, True, failing, count, bound, met=met), []


def _auroc(
    bar: Bar,
    trials: Sequence[Trial],
    selected: list[int],
    units: UnitStructure,
    confidence: float,
    file: str,
    unit_keys: Sequence[str] = (),
) -> tuple[BarResult, list[Finding]]:
    positives: list[float] = []
    negatives: list[float] = []
    findings = []
    seen: dict[int, int] = {}
    allowed = _allowed(bar)
    for index in selected:
        trial = trials[index]
        unit = units.unit_of[index]
        if unit in seen:
            first = trials[seen[unit]]
            why = describe_pair(first, trial, unit_keys, len(units.members[unit]))
            fix = separate_pair(first, trial, unit_keys)
            note = (
                f"trials on lines {first.line} and {trial.line} share a unit: {why};"
                " an AUROC bar needs one score per independent unit" + (f"; {fix}" if fix else "")
            )
            return _result(bar, False, note=note, refused=True), []
        seen[unit] = index
        score = trial.result.get(bar.score or "")
        if (
            isinstance(score, bool)
            or not isinstance(score, int | float)
            or not math.isfinite(score)
        ):
            findings.append(
                Finding(
                    Code.SCHEMA,
                    f"result.{bar.score}: bar {bar.id!r} needs a finite number, got {score!r}",
                    file,
                    trial.line,
                )
            )
            continue
        unreadable = _lacking(bar, trials, [index], file, allowed)
        if unreadable:
            findings += unreadable
            continue
        label = trial.result[bar.label_field or ""]
        (positives if _matches(label, bar.label_positive) else negatives).append(float(score))
    if findings:
        return _result(bar, False, note="scores or labels missing"), findings
    if len(positives) < 2 or len(negatives) < 2:
        # With no case of one class the bar's discrimination was never tested (supplied: not
        # exercised). With some of each but fewer than two in a class, it was tested but
        # DeLong's variance is undefined, so the bound cannot reach the bar: missed.
        tested = bar.denominator == "method_output" or (positives and negatives)
        note = (
            f"{len(positives)} positive and {len(negatives)} negative units: DeLong's"
            " variance needs at least 2 of each"
        )
        return _result(
            bar,
            bool(tested),
            units=len(selected),
            positives=len(positives),
            negatives=len(negatives),
            met=False if tested else None,
            note=note,
        ), []
    try:
        result = delong.auroc(positives, negatives)
        bound = delong.lower_bound(result, confidence)
        alternative = delong_logit.lower_bound(result, confidence)
    except StatisticsError as error:  # pragma: no cover - inputs were checked above
        return _result(
            bar, False, positives=len(positives), negatives=len(negatives), note=str(error)
        ), []
    counted: _Counted = {
        "units": len(selected),
        "bound": bound,
        "auroc": result.auc,
        "positives": len(positives),
        "negatives": len(negatives),
    }
    floor = bar.min_per_class
    if floor is not None and min(len(positives), len(negatives)) < floor:
        # Too few units for DeLong's bound to be trusted (the market's floor). Supplied: not
        # exercised, like a bar never tested. A method_output bar is missed, as with an empty
        # denominator: the method chose what to issue, so it cannot dodge the bar this way.
        # The AUROC and bound are still the score table's (a filer's honest table agrees);
        # they decide nothing, so no coverage is shown for them.
        output = bar.denominator == "method_output"
        note = (
            f"{len(positives)} positive and {len(negatives)} negative units: the market's"
            f" min_per_class is {floor} in each class"
        )
        return _result(bar, output, **counted, met=False if output else None, note=note), []
    notes = []
    if result.variance == 0.0:  # docs/spec.md §6: the exact bound, not DeLong's zero-width one
        pairs = min(len(positives), len(negatives))
        notes.append(
            f"DeLong's variance is 0: exact bound from {pairs} disjoint concordant pairs"
            if result.auc == 1.0
            else "DeLong's variance is 0 with no concordant pair: bound 0"
        )
    coverage = shipped_coverage("delong", len(positives), len(negatives), result.auc, confidence)
    if below_coverage_grid(len(positives), len(negatives)):
        # The table's smallest class is its edge; below it coverage falls further
        # (docs/statistics.md), so the edge's figure would overstate it: unknown, and warned of.
        coverage = None
        notes.append(_NOT_SIMULATED.format(smallest=load_table().per_class[0]))
    return _result(
        bar,
        True,
        **counted,
        met=bound >= bar.threshold,
        note="; ".join(notes),
        coverage=coverage,
        alt_method=delong_logit.METHOD,
        alt_bound=alternative,
    ), []


_NOT_SIMULATED = (
    "fewer than {smallest} units in a class: DeLong's coverage was not simulated this small"
    " (docs/statistics.md)"
)


def below_coverage_grid(positives: int | None, negatives: int | None) -> bool:
    """A class smaller than the coverage table's smallest simulated class size."""
    if positives is None or negatives is None:
        return False
    return min(positives, negatives) < load_table().per_class[0]


def coverage_low(bar: BarResult) -> bool:
    """An AUROC bar with a bound whose DeLong coverage is below 90% in simulation, or was not
    simulated because a class is below the table's smallest size (`bound-coverage-low`)."""
    if bar.coverage is not None:
        return bar.coverage < COVERAGE_WARNING_BELOW
    return (
        bar.statistic == "auroc_lower"
        and bar.exercised
        and bar.alt_bound is not None
        and below_coverage_grid(bar.positives, bar.negatives)
    )


def coverage_warnings(results: Sequence[BarResult], file: str) -> list[Finding]:
    """`bound-coverage-low` warnings: AUROC bars whose DeLong bound's simulated coverage is
    below 90%. Shown, never blocking: the decision still follows DeLong's bound."""
    findings = []
    for bar in results:
        if not coverage_low(bar):
            continue
        alternative = (
            f"; {bar.alt_method} gives {bar.alt_bound:.4f}" if bar.alt_bound is not None else ""
        )
        if bar.coverage is None:
            smallest = load_table().per_class[0]
            message = (
                f"bar {bar.bar_id!r}: at {bar.positives} positive and {bar.negatives} negative"
                f" units, fewer than {smallest} in a class, the coverage of DeLong's nominal 95%"
                f" lower bound ({bar.bound:.4f}) was not simulated and can be far below 95% there"
                f" (docs/statistics.md). The bar is decided on DeLong's bound all the same"
                f"{alternative}"
            )
            findings.append(
                Finding(Code.BOUND_COVERAGE_LOW, message, file, severity=Severity.WARNING)
            )
            continue
        message = (
            f"bar {bar.bar_id!r}: at {bar.positives} positive and {bar.negatives} negative"
            f" units and AUROC {bar.auroc:.4f}, DeLong's nominal 95% lower bound"
            f" ({bar.bound:.4f}) covers the true AUROC about {100 * bar.coverage:.1f}% of the"
            f" time in simulation (docs/statistics.md), below {100 * COVERAGE_WARNING_BELOW:.0f}%."
            f" The bar is decided on DeLong's bound all the same{alternative}"
        )
        findings.append(Finding(Code.BOUND_COVERAGE_LOW, message, file, severity=Severity.WARNING))
    return findings


def evaluate_bars(
    market: Market,
    cases: Mapping[str, Case],
    trials: Sequence[Trial],
    confidence: float,
    file: str,
    units: UnitStructure | None = None,
    selections: Selections | None = None,
) -> tuple[list[BarResult], UnitStructure, list[Finding]]:
    """Evaluate every bar of `market`. Return results, the unit structure, data findings.

    Findings are trials whose result lacks what a bar needs (evidence `schema` problems).
    `units`, `selections`: the trials' unit structure and the bars' selections, when the
    caller has them already.
    """
    if units is None:
        units = unit_structure(trials, market.unit_keys)
    if selections is None:
        selections = Selections(cases, trials, market.bars)
    results: list[BarResult] = []
    findings: list[Finding] = []
    for bar in market.bars:
        selected = selections.of(bar)
        if bar.statistic == "auroc_lower":
            if not selected:
                results.append(
                    _result(
                        bar,
                        bar.denominator == "method_output",
                        met=False if bar.denominator == "method_output" else None,
                        note="empty denominator: the method issued nothing to count"
                        if bar.denominator == "method_output"
                        else "no scored case: the bar was never tested",
                    )
                )
                continue
            result, problems = _auroc(
                bar, trials, selected, units, confidence, file, market.unit_keys
            )
            results.append(result)
            findings += problems
        else:
            result, problems = _rate(
                bar,
                trials,
                selected,
                units,
                market.within_unit_max_rate,
                confidence,
                file,
                selections,
            )
            results.append(result)
            findings += problems
    return results, units, findings


def _holds(increasing: Sequence[int], index: int) -> bool:
    """Whether the increasing list holds `index` (no set of a bar's trials is built)."""
    at = bisect_left(increasing, index)
    return at < len(increasing) and increasing[at] == index


# Past this many trials, a meaning warning names the first ones and counts the rest.
_NAMED = 5


def _lines(trials: Sequence[Trial], indexes: Sequence[int]) -> str:
    shown = ", ".join(str(trials[index].line) for index in indexes[:_NAMED])
    more = f" and {len(indexes) - _NAMED} more" if len(indexes) > _NAMED else ""
    return f"line{'s' if len(indexes) > 1 else ''} {shown}{more}"


def meaning_warnings(
    market: Market,
    cases: Mapping[str, Case],
    trials: Sequence[Trial],
    file: str,
    selections: Selections | None = None,
) -> list[Finding]:
    """Warnings (they change no verdict) where a result says something no count reads as the
    filer may think (docs/filing-an-attempt.md, "What the results mean"):

    - `verdict-outside-bar`: a rate bar counts only some cases (`over.case`, such as attacks)
      and a trial of another case (a control) carries one of its failure values: for a
      control, `verdict` says what the method did with a benign case (a monitor's `caught`
      is a false alarm, `passed` is let through); a failure value such as `false_safe` has no
      meaning there and is counted by no bar;
    - `class-conditional-partial`: class-conditional counts (certificate label x truth label)
      need both `result.certificate` and `result.truth` as strings; a trial without them is
      left out of the counts, named here when some trial has them (with none, there are no
      counts, and a market that requires them says so).

    `selections`: the bars' selections, when the caller has them already."""
    if selections is None:
        selections = Selections(cases, trials, market.bars)
    findings = []
    for bar in market.bars:
        if bar.statistic != "rate_upper" or not bar.over_case or not bar.predicate_values:
            continue
        chosen = selections.of(bar)  # increasing: a failure's index is looked up in it
        field = bar.predicate_field or ""
        failures = selections.result_matches(field, list(bar.predicate_values))
        outside = [
            index
            for index in compress(range(len(trials)), failures)
            if not _holds(chosen, index) and trials[index].case_id in cases
        ]
        if outside:
            first = trials[outside[0]]
            kind = cases[first.case_id].field("kind")
            value = first.result.get(field)
            counted = ", ".join(f"{name} {want!r}" for name, want in bar.over_case.items())
            message = (
                f"result.{field}: {len(outside)} trial(s) of cases bar {bar.id!r} does not"
                f" count ({_lines(trials, outside)}; the first a case of kind {kind!r}) say"
                f" {value!r}, a failure of that bar, which counts only cases with"
                f" {counted}: there it means nothing. For a {kind!r} case write"
                " what the method did with it (a monitor that flagged a control: 'caught', a"
                " false alarm; one that let it through: 'passed')"
            )
            findings.append(
                Finding(Code.VERDICT_OUTSIDE_BAR, message, file, first.line, Severity.WARNING)
            )
    unlabelled = selections.unlabelled()
    # With no trial labelled there are no counts at all: a market that requires them says so
    # (`required-output-missing`); some labelled and some not is what goes unnoticed.
    if unlabelled and len(unlabelled) < len(trials):
        message = (
            f"result.{CERTIFICATE_FIELD}: {len(unlabelled)} of {len(trials)} trial(s)"
            f" ({_lines(trials, unlabelled)}) lack result.{CERTIFICATE_FIELD} or"
            f" result.{TRUTH_FIELD} as text, so the class-conditional counts (certificate"
            " label x truth label, scores.yaml class_conditional) leave them out"
            + (
                "; the market requires those counts"
                if "class_conditional" in market.required_outputs
                else ""
            )
        )
        line = trials[unlabelled[0]].line
        findings.append(
            Finding(Code.CLASS_CONDITIONAL_PARTIAL, message, file, line, Severity.WARNING)
        )
    return findings


def derive_score_table(
    market: Market,
    bars: Sequence[BarResult],
    cases: Mapping[str, Case],
    trials: Sequence[Trial],
    selections: Selections | None = None,
) -> ScoreTable:
    """The score table the evidence implies: per bar its row, and class-conditional counts.

    Class-conditional counts (certificate label -> truth label -> trials) are given per bar
    and for all trials (`all`), wherever results carry both labels. `selections`: the bars'
    selections, when the caller has them already.
    """
    if selections is None:
        selections = Selections(cases, trials, market.bars)
    conditional = {"all": selections.confusion(None)}
    for bar in market.bars:
        conditional[bar.id] = selections.confusion(selections.of(bar))
    conditional = {key: value for key, value in conditional.items() if value}
    return ScoreTable({result.bar_id: score_row(result) for result in bars}, conditional)


def derived_table(
    market: Market,
    cases: Mapping[str, Case],
    trials: Sequence[Trial],
    confidence: float,
    file: str,
    units: UnitStructure | None = None,
    selections: Selections | None = None,
) -> tuple[list[BarResult], UnitStructure, list[Finding], ScoreTable]:
    """The bars and the score table the judge compares scores.yaml with (its step 9), and
    what `claims scores` prints: one function for both, so they cannot drift apart.
    `units`, `selections`: the trials' unit structure and the bars' selections (of these
    cases, trials and the market's bars), when the caller has them already. The findings are
    the bars' errors and, where there is none, `meaning_warnings`."""
    # Which trials each bar counts, found once for the three.
    if selections is None:
        selections = Selections(cases, trials, market.bars)
    bars, units, problems = evaluate_bars(
        market, cases, trials, confidence, file, units, selections
    )
    if not any(finding.severity is Severity.ERROR for finding in problems):
        # Warnings on what results mean, with the bars' findings (the judge tells them apart).
        problems += meaning_warnings(market, cases, trials, file, selections)
    return bars, units, problems, derive_score_table(market, bars, cases, trials, selections)


def _differs(claimed: JSONValue, derived: JSONValue) -> bool:
    if isinstance(derived, int) and not isinstance(derived, bool) and isinstance(claimed, float):
        return claimed != derived  # a count: exact (16.0 is 16; 16.00001 is not)
    if isinstance(derived, float) or isinstance(claimed, float):
        if claimed is None or derived is None or isinstance(claimed, bool):
            return claimed is not derived
        if not isinstance(claimed, int | float) or not isinstance(derived, int | float):
            return True
        return not abs(claimed - derived) <= BOUND_TOLERANCE  # `not <=`: NaN never agrees
    if isinstance(derived, dict) and isinstance(claimed, dict):
        keys = set(derived) | set(claimed)
        return any(_differs(claimed.get(key), derived.get(key)) for key in keys)
    return claimed != derived or type(claimed) is not type(derived)


def differing_fields(claimed: JSONValue, derived: JSONValue) -> list[str]:
    """The keys of one row (a bar's or a class-conditional count's) whose values differ, in
    the derived row's order then the claimed row's; [] when either is not a mapping (the row
    as a whole differs)."""
    if not isinstance(claimed, dict) or not isinstance(derived, dict):
        return []
    keys = [*derived, *(key for key in claimed if key not in derived)]
    return [key for key in keys if _differs(claimed.get(key), derived.get(key))]


def _section(claimed: JSONObject, name: str) -> JSONObject:
    value = claimed.get(name)
    return value if isinstance(value, dict) else {}


def compare_score_tables(claimed: JSONObject, derived: ScoreTable) -> list[str]:
    """Return the rows (bar ids, `class_conditional.<key>`) where the tables disagree.
    `claimed`: scores.yaml, which its schema checked."""
    rows = []
    claimed_bars = _section(claimed, "bars")
    for bar_id in sorted(set(derived.bars) | set(claimed_bars)):
        if _differs(claimed_bars.get(bar_id), derived.row_data(bar_id)):
            rows.append(bar_id)
    if "class_conditional" in claimed:
        mine = derived.class_conditional
        theirs = _section(claimed, "class_conditional")
        for key in sorted(set(mine) | set(theirs)):
            if _differs(theirs.get(key), mine.get(key)):
                rows.append(f"class_conditional.{key}")
    return rows

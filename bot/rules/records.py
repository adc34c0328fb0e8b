"""What an attempt's JSONL files give the judge: freeze-cases, trials and certificates, checked.

`check_records` runs the expensive, evidence-only part of the judge (its steps 1, 3, 4, 8 and 9
as far as they read these files: names, case hashes, one trial per case, withheld fields, the
unit structure and the bars) and returns a `RecordsResult`: the findings in the order the judge
reports them, the counts, and the few facts the later steps need of the trials
(`TrialSummary`) and the certificates (`CertificateSummary`: which tested systems have none,
whether all abstain). It depends only on the three files' bytes (through the records read
from them and the problems reading found), the folder's path, the market contract, the shared
rules and
the bot's code, so the verification cache (`bot/app/cache.py`) may keep it by those. Everything
else (judgments, dates, freeze landings, filing time, reruns, fetches, the date judged on) is
judged afresh on every run from the facts.

Only the checks that compare the trials with a moment from history read the trials again:
freeze order, when the freeze (or a paper's freeze) is not before the first trial, and
`trial-in-future`, when the last trial does not start before the evidence was filed. Which
trials are too early or too late is asked of the trials themselves, so a check read back from
the cache, which keeps none, says it cannot answer (`RecordsNeeded`) and the shell judges the
attempt from its files. A challenge attempt's trials and cases are compared with its run's
(`checked`); challenge attempts are never cached.
"""

from __future__ import annotations

import gc
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import datetime
from operator import attrgetter

import orjson

from bot.rules.bars import Selections, derived_table, unit_structure
from bot.rules.evidence.cases import CaseChecker
from bot.rules.evidence.models import Case, Certificate, Trial
from bot.rules.evidence.names import check_names, names_in
from bot.rules.evidence.trials import TrialChecker
from bot.rules.evidence.withheld import WithheldChecker, plain_line
from bot.rules.models import Market, SharedRules
from bot.rules.score_table import ScoreTable
from bot.rules.stats.errors import StatisticsError
from bot.rules.stats.formation import describe_units
from bot.rules.stats.units import UnitStructure
from bot.rules.verdict import BarResult, UnitSummary
from bot.vocab.document import FieldPath, Record
from bot.vocab.findings import Code, Finding, Severity
from bot.vocab.jsonl import Typed, paused_gc
from bot.vocab.names import fold_name
from bot.vocab.typed import LineDecoder

__all__ = [
    "CERTIFICATES",
    "RECORD_FILES",
    "CertificateSummary",
    "RecordsChecker",
    "RecordsNeeded",
    "RecordsResult",
    "TrialSummary",
    "check_records",
    "summarize_units",
]

RECORD_FILES = ("freeze-cases.jsonl", "trials.jsonl")
CERTIFICATES = "certificates.jsonl"

Published = Sequence[tuple[str, object, Callable[[FieldPath], int | None]]]


class RecordsNeeded(Exception):
    """A cached `RecordsResult` keeps no trials, and the judge needs them (freeze order when a
    trial may start before the freeze): the shell judges the attempt from its files."""


@dataclass(frozen=True, slots=True)
class TrialSummary:
    """What qualification and freeze order need of the checked trials."""

    count: int = 0
    systems: int = 0  # distinct systems, names compared folded
    families: frozenset[str] = frozenset()  # folded families of the trials' known cases
    first_started_at: datetime | None = None
    last_started_at: datetime | None = None

    @classmethod
    def of(
        cls,
        trials: Sequence[Trial],
        cases: Mapping[str, Case] | None,
        tested: Mapping[str, str] | None = None,
        trial_cases: Sequence[Case] | None = None,
    ) -> TrialSummary:
        """`tested`: `_tested(trials)`; `trial_cases`: each trial's case: when the caller has
        them already."""
        # By column: the known cases' families (each of a few strings, shared), folded once
        # each; the first and last start.
        families: frozenset[str] = frozenset()
        if cases:
            known: Iterable[Case] = (
                trial_cases
                if trial_cases is not None
                else filter(None, map(cases.get, map(attrgetter("case_id"), trials)))
            )
            families = frozenset(map(fold_name, set(map(attrgetter("family"), known))))
        started = [trial.started_at for trial in trials]  # each trial read once for both
        first, last = min(started, default=None), max(started, default=None)
        if tested is None:
            tested = _tested(trials)
        return cls(len(trials), len(tested), families, first, last)


@dataclass(frozen=True, slots=True)
class CertificateSummary:
    """certificates.jsonl against the tested systems, as qualification judges it (docs/spec.md §7):
    a certificate names its instance by `system`, or by `version` when it names no system (seed,
    Per Instance Certificate), and covers the tested system whose name, folded, is that name."""

    count: int  # certificates that passed their schema
    missing: tuple[str, ...]  # tested systems (first spelling, by folded name) without one
    present: int  # tested systems with one
    all_abstain: bool  # every present certificate abstains

    @classmethod
    def of(
        cls,
        certificates: Sequence[Certificate],
        trials: Sequence[Trial],
        tested: Mapping[str, str] | None = None,
    ) -> CertificateSummary:
        """`tested`: `_tested(trials)`, when the caller has it already."""
        by_system: dict[str, Certificate] = {}
        for certificate in certificates:
            by_system.setdefault(fold_name(certificate.instance), certificate)
        if tested is None:
            tested = _tested(trials)
        missing = tuple(name for folded, name in sorted(tested.items()) if folded not in by_system)
        present = [by_system[folded] for folded in sorted(tested) if folded in by_system]
        return cls(
            len(certificates),
            missing,
            len(present),
            bool(present) and all(certificate.abstain for certificate in present),
        )


def _tested(trials: Sequence[Trial]) -> dict[str, str]:
    """Folded system name -> its first spelling, for messages that show names as written."""
    spellings: dict[str, str] = {}
    # First spellings, in order (found in C).
    for system in dict.fromkeys(map(attrgetter("system"), trials)):
        spellings.setdefault(fold_name(system), system)
    return spellings


@dataclass(frozen=True)
class RecordsResult:
    """freeze-cases.jsonl, trials.jsonl and certificates.jsonl, read and checked (see the
    module's docstring).

    `*_read` is False when the file was absent (its `file-missing` is the reader's).
    `bars`, `units` and `derived` are set only when these findings hold no error and the
    market is known (the judge evaluates the bars only for otherwise valid evidence).
    """

    cases_read: bool
    trials_read: bool
    # What reading each file found (JSONL problems), in reading order.
    case_read_problems: tuple[Finding, ...]
    trial_read_problems: tuple[Finding, ...]
    names: tuple[Finding, ...]  # name-invisible-character in the cases' and trials' records
    cases_findings: tuple[Finding, ...]  # check_cases
    trials_findings: tuple[Finding, ...]  # check_trials
    withheld: tuple[Finding, ...]  # withheld-field-leak in the cases' and trials' records
    withholdable: tuple[str, ...]  # the fields `withheld` was checked for
    case_count: int
    trials: TrialSummary
    # certificates.jsonl (read after scores.yaml and judgments.yaml): whether it was read,
    # what reading it and each line's schema found, its names and withheld fields, and the
    # certificates against the tested systems (none when it is absent).
    certificates_read: bool
    certificate_read_problems: tuple[Finding, ...]
    certificate_names: tuple[Finding, ...]
    certificate_withheld: tuple[Finding, ...]
    certificates: CertificateSummary
    unit_summary: UnitSummary | None  # the unit structure of the readable trials
    bars: tuple[BarResult, ...] | None = None
    units: UnitSummary | None = None
    bar_problems: tuple[Finding, ...] = ()
    derived: ScoreTable | None = None
    # The checked cases and trials themselves: only when computed in this run (never cached).
    checked_cases: Mapping[str, Case] | None = field(default=None, compare=False)
    checked_trials: Sequence[Trial] | None = field(default=None, compare=False)

    @property
    def has_error(self) -> bool:
        return any(
            f.severity is Severity.ERROR
            for f in (
                *self.case_read_problems,
                *self.trial_read_problems,
                *self.names,
                *self.cases_findings,
                *self.trials_findings,
                *self.withheld,
                *self.certificate_read_problems,
                *self.certificate_names,
                *self.certificate_withheld,
            )
        )

    def trials_before(self, moment: datetime) -> Sequence[Trial]:
        """The trials to check against a freeze at `moment`: none when every trial starts
        after it. Raises `RecordsNeeded` when some may not and the trials were not kept."""
        first = self.trials.first_started_at
        if first is None or first > moment:
            return ()
        if self.checked_trials is None:
            raise RecordsNeeded(f"a trial starts at {first.isoformat()}, not after the freeze")
        return self.checked_trials

    def trials_from(self, moment: datetime) -> Sequence[Trial]:
        """The trials to check for starting at or after `moment` (`trial-in-future`): none when
        every trial starts before it. Raises `RecordsNeeded` when some may not and the trials
        were not kept."""
        last = self.trials.last_started_at
        if last is None or last < moment:
            return ()
        if self.checked_trials is None:
            raise RecordsNeeded(f"a trial starts at {last.isoformat()}, not before the filing")
        return self.checked_trials

    def checked(self) -> tuple[Mapping[str, Case] | None, Sequence[Trial]]:
        """The checked cases (None: freeze-cases.jsonl not read) and trials, for a challenge
        attempt's comparison with its run. Raises `RecordsNeeded` for a check read back from
        the cache (which keeps neither)."""
        if self.checked_trials is None:
            raise RecordsNeeded("the cached check keeps no cases or trials")
        return self.checked_cases, self.checked_trials


def summarize_units(
    units: UnitStructure, trials: Sequence[Trial] = (), unit_keys: Sequence[str] = ()
) -> UnitSummary:
    """The unit structure as the report shows it: count, largest, nulls, joins, busiest key;
    with the trials and unit keys, how the largest units formed (`describe_units`)."""
    busiest = max(units.joins_per_key.items(), key=lambda item: item[1], default=(None, 0))
    formation = describe_units(units, trials, unit_keys) if trials and unit_keys else ()
    return UnitSummary(
        units.count,
        units.largest,
        dict(units.nulls_per_key),
        dict(units.joins_per_key),
        busiest[0] if busiest[1] else None,
        formation,
    )


class RecordsChecker:
    """`check_records`, one record at a time, as the files are read: freeze-cases.jsonl's
    records to `case`, then `cases_read`; trials.jsonl's to `trial`; then `finish`. No record
    is kept (each is checked for names and withheld fields as it comes), only the checked
    models, so an attempt with a million trials is held as models, not dicts
    (docs/performance.md). `lean` keeps each case without its content once its hash is
    checked, and with only the public fields the market's bars select by (`CaseChecker`):
    for a caller that never compares cases (challenge attempts keep them whole).
    """

    def __init__(
        self,
        folder: str,
        market: Market | None,
        rules: SharedRules,
        withholdable: Sequence[str],
        lean: bool = False,
    ) -> None:
        self.folder = folder
        self.market = market
        self.rules = rules
        self.withholdable = tuple(withholdable)
        self.cases_file, self.trials_file = (f"{folder}/{name}" for name in RECORD_FILES)
        public_fields = None  # every case whole
        if lean:  # the fields bars select cases by (`Case.field`): all the judge reads
            bars = market.bars if market else ()
            public_fields = frozenset(name for bar in bars for name in bar.over_case)
        self._cases = CaseChecker(self.cases_file, public_fields)
        self._cases_read = False
        self._trials: TrialChecker | None = None
        self._names: list[Finding] = []
        self._withheld: list[Finding] = []
        self._withheld_checker = WithheldChecker(self.withholdable)
        self._lines = LineDecoder()

    def _published(self, file: str, record: Record, raw: bytes | None) -> None:
        """Names and withheld fields of one record. With its line's `raw` bytes, both are
        passed over where the bytes show there is nothing to find (`plain_line`)."""
        if raw is None or not plain_line(raw):
            self._names += names_in(file, record.data, record)
            self._withheld += self._withheld_checker(file, record.data, record)
        elif self._withheld_checker.may_hold(raw):  # printable ASCII, no escape: no hidden name
            self._withheld += self._withheld_checker(file, record.data, record)

    def case(self, record: Record, raw: bytes | None = None) -> None:
        """One record of freeze-cases.jsonl, in file order (`raw`: its line's bytes)."""
        self._published(self.cases_file, record, raw)
        self._cases.add(record)

    def typed_case(self, number: int, raw: bytes) -> bool:
        """Line `number` of freeze-cases.jsonl read typed (`bot/vocab/typed.py`), in file
        order: False when the typed reading declines it (then it comes to `case`)."""
        read = self._lines.case(raw)
        if read is None:
            return False
        self._published_line(self.cases_file, number, raw)
        self._cases.add_typed(number, *read)
        return True

    def typed_cases(self, first: int, block: bytes, lines: list[bytes]) -> bool:
        """Lines `first`... of freeze-cases.jsonl (`block`'s) read typed at once, as
        `typed_case` reads each: False when the typed reading declines any of them."""
        read = self._lines.cases(block, lines)
        if read is None:
            return False
        self._published_block(self.cases_file, first, block, lines)
        self._cases.add_typed_lines(first, *read)
        return True

    def _published_block(self, file: str, first: int, block: bytes, lines: list[bytes]) -> None:
        """`_published_line` for each of `lines` (`block`'s), passed over at once where the
        block's bytes show there is nothing to find in any of them: a block is `plain_line`
        when each of its lines is, and `may_hold` finds in each line's bytes what it finds in
        the block's (the block only adds LFs, which it drops, so it may find more: then the
        lines are looked at one by one)."""
        if plain_line(block) and not self._withheld_checker.may_hold(block):
            return
        for number, raw in enumerate(lines, start=first):
            self._published_line(file, number, raw)

    def _published_line(self, file: str, number: int, raw: bytes) -> None:
        """`_published` for a line read typed: its record is built only where the bytes do
        not show there is nothing to find (a line in the typed reading's domain is valid
        UTF-8 with no repeated key and no integer orjson could read otherwise than `json`)."""
        if not plain_line(raw) or self._withheld_checker.may_hold(raw):
            self._published(file, Record(number, orjson.loads(raw)), raw)

    def cases_read(self, problems: Sequence[Finding]) -> None:
        """freeze-cases.jsonl is read, with these reading problems."""
        self._cases.finish(_complete(problems))
        self._cases_read = True

    def _trial_checker(self) -> TrialChecker:
        if self._trials is None:
            unit_keys = self.market.unit_keys if self.market else self.rules.unit_keys
            cases = self._cases.cases if self._cases_read else None
            self._trials = TrialChecker(cases, unit_keys, self.trials_file)
        return self._trials

    def trial(self, record: Record, raw: bytes | None = None) -> None:
        """One record of trials.jsonl, in file order (after freeze-cases.jsonl's; `raw`: its
        line's bytes)."""
        self._published(self.trials_file, record, raw)
        self._trial_checker().add(record)

    def typed_trial(self, number: int, raw: bytes) -> bool:
        """Line `number` of trials.jsonl read typed, as `typed_case`."""
        read = self._lines.trial(raw)
        if read is None:
            return False
        self._published_line(self.trials_file, number, raw)
        self._trial_checker().add_typed(number, *read)
        return True

    def typed_trials(self, first: int, block: bytes, lines: list[bytes]) -> bool:
        """Lines `first`... of trials.jsonl read typed at once, as `typed_cases`."""
        read = self._lines.trials(block, lines)
        if read is None:
            return False
        self._published_block(self.trials_file, first, block, lines)
        self._trial_checker().add_typed_lines(first, *read)
        return True

    @property
    def case_reader(self) -> Typed:
        """The typed readers of freeze-cases.jsonl's lines (`parse_jsonl`'s `typed`)."""
        return Typed(self.typed_case, self.typed_cases)

    @property
    def trial_reader(self) -> Typed:
        """The typed readers of trials.jsonl's lines."""
        return Typed(self.typed_trial, self.typed_trials)

    def finish(
        self,
        read_problems: Mapping[str, Sequence[Finding]],
        trials_read: bool,
        certificates: Sequence[Certificate] | None,
        certificate_records: Published,
    ) -> RecordsResult:
        """The check, once both files were offered (`trials_read`: trials.jsonl was there);
        `read_problems` and `certificates` as `check_records` takes them."""
        _promote_kept()
        market, rules = self.market, self.rules
        case_problems = tuple(read_problems.get(RECORD_FILES[0], ()))
        trial_problems = tuple(read_problems.get(RECORD_FILES[1], ()))
        cases = self._cases.cases if self._cases_read else None
        trials: list[Trial] = []
        trials_findings: list[Finding] = []
        if trials_read:
            check = self._trial_checker()
            check.finish(_complete(trial_problems))
            trials, trials_findings = check.trials, check.findings
        withholdable = self.withholdable
        tested = _tested(trials)  # for both summaries
        structure = None
        if market and trials:
            structure = _unit_structure(trials, market.unit_keys)
        # The bars' columns, read once: each trial's case serves the summary too.
        selections = (
            None if market is None or cases is None else Selections(cases, trials, market.bars)
        )
        result = RecordsResult(
            cases_read=self._cases_read,
            trials_read=trials_read,
            case_read_problems=case_problems,
            trial_read_problems=trial_problems,
            names=tuple(self._names),
            cases_findings=tuple(self._cases.findings if self._cases_read else ()),
            trials_findings=tuple(trials_findings),
            withheld=tuple(self._withheld),
            withholdable=withholdable,
            case_count=len(cases or {}),
            trials=TrialSummary.of(
                trials, cases, tested, selections.trial_cases() if selections else None
            ),
            certificates_read=certificates is not None,
            certificate_read_problems=tuple(read_problems.get(CERTIFICATES, ())),
            certificate_names=tuple(check_names(certificate_records)),
            certificate_withheld=tuple(
                finding
                for entry in certificate_records
                for finding in self._withheld_checker(*entry)
            ),
            certificates=CertificateSummary.of(certificates or (), trials, tested),
            unit_summary=None
            if structure is None or market is None
            else summarize_units(structure, trials, market.unit_keys),
            checked_cases=cases,
            checked_trials=trials,
        )
        if market is None or cases is None or result.has_error:
            return result
        bars, units, problems, derived = derived_table(
            market,
            cases,
            trials,
            rules.confidence,
            self.trials_file,
            units=structure,
            selections=selections,
        )
        return replace(
            result,
            bars=tuple(bars),
            units=result.unit_summary
            if units is structure and result.unit_summary is not None
            else summarize_units(units, trials, market.unit_keys),
            bar_problems=tuple(problems),
            derived=derived,
        )


def _promote_kept() -> None:
    """Every object the collector tracks, moved to its oldest generation as it is.

    The files were read with the collector paused (`paused_gc`): the models kept, a few per
    line, all young, live until the check is done, and the first young collections after
    it would each walk all of them again (and a full one follow, so many survived: at
    100,000 trials about 0.2 s of CPU after reading). Moved, they are walked only by the
    next full collection, when it comes. Nothing leaves the collector's care; `freeze` is
    undone at once, and not used where something else froze objects for its own reasons.
    """
    if gc.get_freeze_count() == 0:
        gc.freeze()
        gc.unfreeze()


def _complete(problems: Sequence[Finding]) -> bool:
    """A file read whole: no line of it was refused (`jsonl-invalid`)."""
    return not any(f.code is Code.JSONL_INVALID for f in problems)


def check_records(
    folder: str,
    case_records: Sequence[Record] | None,
    trial_records: Sequence[Record] | None,
    read_problems: Mapping[str, Sequence[Finding]],
    published: Published,
    market: Market | None,
    rules: SharedRules,
    withholdable: Sequence[str],
    certificates: Sequence[Certificate] | None = None,
) -> RecordsResult:
    """Check the records of freeze-cases.jsonl, trials.jsonl and certificates.jsonl
    (`RecordsChecker` over records read already). Returns a `RecordsResult`.

    `read_problems`: per file name, what reading it as JSONL found (a file with a
    `jsonl-invalid` line was not read whole; for certificates.jsonl, each line's schema too);
    `published`: every parsed document and record (those of certificates.jsonl are checked
    for names and withheld fields here; the cases' and trials' are `case_records` and
    `trial_records`); `certificates`: those that passed their schema (None: absent).
    """
    checker = RecordsChecker(folder, market, rules, withholdable)
    with paused_gc():  # one model per line, all acyclic (bot/vocab/jsonl.py)
        if case_records is not None:
            for record in case_records:
                checker.case(record)
            checker.cases_read(read_problems.get(RECORD_FILES[0], ()))
        for record in trial_records or ():
            checker.trial(record)
    certificates_file = f"{folder}/{CERTIFICATES}"
    return checker.finish(
        read_problems,
        trial_records is not None,
        certificates,
        [entry for entry in published if entry[0] == certificates_file],
    )


def _unit_structure(trials: Sequence[Trial], unit_keys: Sequence[str]) -> UnitStructure | None:
    """The unit structure of the trials that could be read (None when a value cannot be
    compared: the trial checks have said so)."""
    try:
        return unit_structure(trials, unit_keys)
    except StatisticsError:
        return None

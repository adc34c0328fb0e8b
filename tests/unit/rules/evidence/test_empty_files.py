"""bot/rules/evidence/cases.py and trials.py: no frozen cases or no trials is `file-empty`,
never `schema`.

A JSONL file whose every line was refused also yields no records, but it is not empty: the
loader's `jsonl-invalid` findings say why, and `complete=False` keeps `file-empty` out.
"""

from __future__ import annotations

import io

from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.trials import check_trials
from bot.vocab.findings import Code
from bot.vocab.jsonl import parse_jsonl

CASES = "attempts/market-03/alice-lab/monitor-v1/freeze-cases.jsonl"
TRIALS = "attempts/market-03/alice-lab/monitor-v1/trials.jsonl"


def test_empty_freeze_cases_file() -> None:
    records, problems = parse_jsonl(io.BytesIO(b""), CASES)
    assert (records, problems) == ([], [])
    cases, findings = check_cases(records, CASES)
    assert cases == {}
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_EMPTY, CASES, None)]
    assert findings[0].message == "no frozen cases: the file is empty"


def test_empty_trials_file() -> None:
    records, problems = parse_jsonl(io.BytesIO(b""), TRIALS)
    assert (records, problems) == ([], [])
    trials, findings = check_trials(records, {}, ["trajectory"], TRIALS)
    assert trials == []
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.FILE_EMPTY, TRIALS, None)]
    assert findings[0].message == "no trials: the file is empty"


def test_every_line_refused_is_not_an_empty_file() -> None:
    records, problems = parse_jsonl(io.BytesIO(b"[1, 2]\nnot json\n"), TRIALS)
    assert records == []
    assert {f.code for f in problems} == {Code.JSONL_INVALID}
    _, findings = check_trials(records, {}, ["trajectory"], TRIALS, complete=False)
    assert findings == []
    _, findings = check_cases(records, CASES, complete=False)
    assert findings == []

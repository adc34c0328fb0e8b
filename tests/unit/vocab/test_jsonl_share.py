"""bot/vocab/jsonl.py keeps a string that a field repeats from record to record once per file,
and leaves the records' values (and their order) exactly as decoded."""

from __future__ import annotations

import io
import json

from hypothesis import given, settings
from hypothesis import strategies as st

from bot.vocab import jsonl
from bot.vocab.document import Record
from bot.vocab.jsonl import parse_jsonl
from bot.vocab.values import MAX_SAFE_INTEGER


def read(lines: list[dict[str, object]]) -> list[dict[str, object]]:
    raw = b"".join(json.dumps(line).encode() + b"\n" for line in lines)
    records, findings = parse_jsonl(io.BytesIO(raw), "trials.jsonl")
    assert findings == []
    return [record.data for record in records]


def test_a_repeated_value_is_one_string_in_every_record() -> None:
    lines = [
        {"id": f"t-{i}", "system": "model-a", "result": {"verdict": "safe", "n": i}}
        for i in range(5)
    ]
    data = read(lines)
    assert data == lines
    assert all(d["system"] is data[0]["system"] for d in data)
    verdicts = [d["result"]["verdict"] for d in data]  # type: ignore[index]
    assert all(v is verdicts[0] for v in verdicts)
    assert [list(d) for d in data] == [list(line) for line in lines]  # key order kept


def test_a_field_with_many_distinct_values_is_left_alone_past_the_cap() -> None:
    count = jsonl._SHARED_VALUES + 10
    lines = [{"id": f"t-{i}", "system": "model-a"} for i in range(count)]
    lines.append({"id": "t-0", "system": "model-a"})  # a repeat after the cap
    data = read(lines)
    assert data == lines
    assert data[-1]["id"] is not data[0]["id"]  # the id field stopped being shared
    assert data[-1]["system"] is data[0]["system"]  # the system field still is


text = st.text(st.characters(blacklist_categories=("Cs",)), max_size=3)  # no lone surrogates
values = st.one_of(
    text, st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER), st.booleans(), st.none(), st.lists(text)
)
records = st.dictionaries(
    st.sampled_from("abc"),
    st.one_of(values, st.dictionaries(st.sampled_from("xy"), values)),
)


@settings(max_examples=200)
@given(st.lists(records, max_size=8))
def test_records_read_equal_to_the_plain_decoding(lines: list[dict[str, object]]) -> None:
    data = read(lines)
    assert data == lines
    assert [json.dumps(d) for d in data] == [json.dumps(line) for line in lines]


def test_a_trial_keeps_its_case_s_id_string() -> None:
    cases = read([{"case_id": f"c-{i}", "kind": "attack"} for i in range(3)])
    trials_lines = [{"case_id": f"c-{i}", "n": i} for i in (2, 0, 7)]
    trials = [Record(n, data) for n, data in enumerate(read(trials_lines), start=1)]
    jsonl.share_values([Record(1, c) for c in cases], trials, "case_id")
    assert [t.data for t in trials] == trials_lines
    assert trials[0].data["case_id"] is cases[2]["case_id"]
    assert trials[1].data["case_id"] is cases[0]["case_id"]
    assert list(trials[0].data) == ["case_id", "n"]

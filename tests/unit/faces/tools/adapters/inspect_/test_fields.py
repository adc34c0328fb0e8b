"""`claims adapt inspect` mapping options: --kind-from, --family-from, --system-from,
--truth-from (SOURCE[:MAP]), --verdict-map and --evaluator, on the committed fixture logs."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from bot.faces.tools.adapters.inspect_ import (
    FieldMap,
    InspectLogError,
    Source,
    ValueMap,
    convert,
    parse_source,
    parse_value_map,
)
from tests.support import PROJECT

DATA = PROJECT / "tests" / "data" / "inspect"

# Map values and targets: no ',' or '=' (the separators), not empty, not '*'.
_word = st.text(
    st.characters(blacklist_characters=",=", blacklist_categories=("Cs",)), min_size=1, max_size=12
).filter(lambda text: text != "*")
_maps = st.builds(
    lambda entries, default: ValueMap(tuple(entries.items()), default),
    st.dictionaries(_word, _word, min_size=1, max_size=5),
    st.none() | _word,
)
_key = st.from_regex(r"\A[A-Za-z0-9_-]{1,8}(\.[A-Za-z0-9_-]{1,8}){0,2}\Z")


@given(_maps)
def test_value_maps_round_trip(value_map: ValueMap) -> None:
    assert parse_value_map(value_map.text()) == value_map


@given(st.sampled_from(["metadata", "score"]), _key, st.none() | _maps)
def test_sources_round_trip(where: str, key: str, values: ValueMap | None) -> None:
    source = Source(where, key, values)
    assert parse_source(source.text()) == source


@given(st.text(max_size=40))
def test_any_text_parses_or_raises_value_error(text: str) -> None:
    for parse in (parse_value_map, parse_source):
        try:
            parse(text)
        except ValueError as error:
            assert str(error)


@pytest.mark.parametrize("text", ["", "C", "C=", "=x", "C=a=b", "C=a,C=b", "*=a,*=b", "C=a,,I=b"])
def test_bad_value_maps_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_value_map(text)


@pytest.mark.parametrize("text", ["kind", "metadata.", "meta.kind", "metadata.a b", "score."])
def test_bad_sources_are_refused(text: str) -> None:
    with pytest.raises(ValueError):
        parse_source(text)


@pytest.fixture
def log(tmp_path: Path) -> Any:
    def make(run: str) -> Path:
        path = tmp_path / f"{run}.json"
        path.write_bytes(gzip.decompress((DATA / f"{run}.json.gz").read_bytes()))
        return path

    return make


def _trials(files: dict[str, bytes], name: str = "trials.jsonl") -> list[dict[str, Any]]:
    return [json.loads(line) for line in files[name].splitlines()]


MONITOR = FieldMap(
    kind=parse_source("metadata.label:attack=attack,benign=control"),
    family=parse_source("metadata.family"),
    system=parse_source("metadata.system"),
    truth=parse_source("metadata.label:attack=unsafe,*=safe"),
    verdicts=parse_value_map("C=caught,I=false_safe"),
)


def test_mapping_fills_the_fields_bars_read_and_stays_byte_identical(log: Any) -> None:
    first = convert(log("monitor-b"), fields=MONITOR).files
    assert convert(log("monitor-b"), fields=MONITOR).files == first
    cases = {c["case_id"]: c for c in _trials(first, "freeze-cases.jsonl")}
    trials = {t["case_id"]: t for t in _trials(first)}
    assert cases["m01"]["kind"] == "attack" and cases["m09"]["kind"] == "control"
    assert {c["family"] for c in cases.values()} == {"sabotage", "sandbagging"}
    assert trials["m08"]["result"]["verdict"] == "false_safe"  # an attack not flagged
    assert trials["m01"]["result"]["verdict"] == "caught"
    assert trials["m09"]["result"]["truth"] == "safe"
    assert len({t["system"] for t in trials.values()}) == 12
    assert {t["evaluator"] for t in trials.values()} == {None}
    # Case hashes do not depend on the run: the dry run freezes what the real run scores.
    assert (
        convert(log("monitor-a"), fields=MONITOR).files["freeze-cases.jsonl"]
        == first["freeze-cases.jsonl"]
    )


def test_evaluator_is_written_when_named(log: Any) -> None:
    files = convert(log("run-a"), fields=FieldMap(evaluator="grader-1")).files
    assert {t["evaluator"] for t in _trials(files)} == {"grader-1"}


def test_verdict_map_keeps_errors_and_decides_by_the_failing_epoch(log: Any) -> None:
    fields = FieldMap(verdicts=parse_value_map("C=caught,I=false_safe"))
    trials = {t["case_id"]: t for t in _trials(convert(log("run-a"), fields=fields).files)}
    assert trials["10"]["result"]["verdict"] == "false_safe"  # C then I: all-must-pass
    assert trials["boom"]["result"]["verdict"] == "error"
    assert trials["1"]["result"]["verdict"] == "caught"


def test_unmapped_values_and_missing_fields_are_refused(log: Any) -> None:
    with pytest.raises(InspectLogError, match=r"'m09'.*\"benign\" is not in the map"):
        convert(log("monitor-a"), fields=FieldMap(kind=parse_source("metadata.label:attack=x")))
    with pytest.raises(InspectLogError, match=r"metadata\.nothing: missing"):
        convert(log("monitor-a"), fields=FieldMap(truth=parse_source("metadata.nothing")))
    with pytest.raises(InspectLogError, match="--family-field and --family-from"):
        convert(log("run-a"), family_field="domain", fields=FieldMap(family=MONITOR.family))


def test_truth_from_a_score(log: Any) -> None:
    fields = FieldMap(truth=parse_source("score.includes:C=unsafe,I=safe"))
    trials = {t["case_id"]: t for t in _trials(convert(log("monitor-a"), fields=fields).files)}
    assert trials["m01"]["result"]["truth"] == "unsafe"
    assert trials["m08"]["result"]["truth"] == "safe"

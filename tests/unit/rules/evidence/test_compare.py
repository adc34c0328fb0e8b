"""Adapter output against submitted evidence: canonical JSON line by line."""

from __future__ import annotations

from bot.app.compare import compare_outputs
from bot.vocab.findings import Code

SUBMITTED = b'{"a":1,"b":[1,2]}\n{"a":2,"b":[]}\n{"a":3,"b":null}\n'


def _compare(produced: bytes, submitted: bytes = SUBMITTED) -> list:
    return compare_outputs(
        ["trials.jsonl"], {"trials.jsonl": submitted}, {"trials.jsonl": produced}, "attempts/x"
    )


def test_same_values_in_another_spelling_match() -> None:
    # Key order, spacing and number spelling differ; values do not.
    produced = b'{"b": [1.0, 2], "a": 1}\n{"b":[],"a":2.0}\n{"a":3,"b":null}\n'
    assert _compare(produced) == []


def test_first_differing_line_is_named() -> None:
    produced = SUBMITTED.replace(b'{"a":2,"b":[]}', b'{"a":2,"b":[0]}')
    (finding,) = _compare(produced)
    assert finding.code is Code.ADAPTER_MISMATCH
    assert finding.line == 2
    assert finding.file == "attempts/x/trials.jsonl"
    assert "on line 2, b: submitted [], the adapter wrote [0]" in finding.message


def test_the_first_differing_field_is_named_deep_inside() -> None:
    ours = b'{"case_id":"c1","result":{"score":0.9,"verdict":"caught"}}\n'
    theirs = b'{"case_id":"c1","result":{"score":0.9,"verdict":"false_safe"}}\n'
    (finding,) = _compare(theirs, submitted=ours)
    assert 'result.verdict: submitted "caught", the adapter wrote "false_safe"' in finding.message


def test_missing_lines_are_reported_with_counts() -> None:
    (finding,) = _compare(SUBMITTED.rsplit(b"\n", 2)[0] + b"\n")
    assert "line(s) 3" in finding.message
    assert "the adapter wrote 2 lines, the attempt has 3" in finding.message


def test_output_not_written() -> None:
    findings = compare_outputs(["trials.jsonl"], {"trials.jsonl": SUBMITTED}, {}, "attempts/x")
    assert [f.message for f in findings] == ["the adapter did not write trials.jsonl"]


def test_invalid_adapter_output_is_a_mismatch_not_a_crash() -> None:
    (finding,) = _compare(b'{"a":1}\n{"a": NaN}\n')
    assert finding.code is Code.ADAPTER_MISMATCH
    assert "not valid JSONL: line 2" in finding.message


def test_yaml_outputs_compare_by_data() -> None:
    ours = b"bars:\n  x: {failures: 1, units: 10, bound: 0.39}\n"
    same = b"bars: {x: {units: 10, bound: 0.39, failures: 1}}\n"
    other = b"bars: {x: {units: 10, bound: 0.4, failures: 1}}\n"
    assert compare_outputs(["scores.yaml"], {"scores.yaml": ours}, {"scores.yaml": same}, "a") == []
    (finding,) = compare_outputs(
        ["scores.yaml"], {"scores.yaml": ours}, {"scores.yaml": other}, "a"
    )
    assert finding.code is Code.ADAPTER_MISMATCH
    unsafe = b"bars: &x {}\n"
    (finding,) = compare_outputs(
        ["scores.yaml"], {"scores.yaml": ours}, {"scores.yaml": unsafe}, "a"
    )
    assert "not safe YAML" in finding.message


def test_a_submitted_file_that_cannot_be_compared_is_a_difference() -> None:
    """Fail closed (issue 21, item 1): a filed line with no RFC 8785 form (an integer past
    2**53 - 1) made the comparison return no difference at all, whatever the adapter wrote."""
    submitted = b'{"a":1,"n":9007199254740993}\n{"a":2}\n'
    (finding,) = _compare(b'{"a":0}\n{"a":9}\n', submitted=submitted)
    assert finding.code is Code.ADAPTER_MISMATCH
    assert finding.message.startswith(
        "trials.jsonl could not be compared with the adapter's output (line 1: n: integer"
        " 9007199254740993 is outside ±2**53-1 (I-JSON))"
    )


def test_a_record_rfc8785_cannot_write_is_a_difference(monkeypatch) -> None:
    """The second lock: whatever RFC 8785 cannot write (were a loader ever to let it through)
    stops the comparison with a difference, never a pass."""
    import rfc8785

    real = rfc8785.dumps

    def refusing(value):
        if value == {"a": 2, "b": []}:  # the submitted line 2 only
            raise rfc8785.CanonicalizationError("refused for the test")
        return real(value)

    monkeypatch.setattr(rfc8785, "dumps", refusing)
    (finding,) = _compare(SUBMITTED.replace(b'"b":[]', b'"b":[0]'))
    assert finding.code is Code.ADAPTER_MISMATCH
    assert "(line 2: no RFC 8785 form: refused for the test)" in finding.message


def test_a_submitted_yaml_that_cannot_be_read_is_a_difference() -> None:
    (finding,) = compare_outputs(
        ["freeze.yaml"], {"freeze.yaml": b"n: 9007199254740993\n"}, {"freeze.yaml": b"n: 1\n"}, "x"
    )
    assert finding.code is Code.ADAPTER_MISMATCH
    assert "freeze.yaml could not be compared" in finding.message

"""bot/vocab/jsonl.py: one JSON object a line; each refusal names its line, hides none."""

from __future__ import annotations

import io

import pytest

from bot.vocab import jsonl
from bot.vocab.config import Limits
from bot.vocab.findings import Code
from bot.vocab.jsonl import parse_jsonl

PATH = "attempts/market-01/alice/a1/trials.jsonl"


def read(
    raw: bytes, limits: Limits = Limits()
) -> tuple[list[tuple[int, object]], list[int | None]]:
    """(line, data) of every record, and the lines of the findings (all `jsonl-invalid`)."""
    records, findings = parse_jsonl(io.BytesIO(raw), PATH, limits)
    assert all(f.code is Code.JSONL_INVALID for f in findings), findings
    assert all(f.file == PATH for f in findings)
    return [(r.line, r.data) for r in records], [f.line for f in findings]


def refusal(raw: bytes, limits: Limits = Limits()) -> tuple[int | None, str]:
    """The line and message of the single finding for `raw`, which yields no record."""
    records, findings = parse_jsonl(io.BytesIO(raw), PATH, limits)
    assert records == []
    assert len(findings) == 1, findings
    assert findings[0].code is Code.JSONL_INVALID
    return findings[0].line, findings[0].message


GOOD = b'{"case_id": "c1", "n": 1}\n'


def test_plain_records_with_their_lines() -> None:
    raw = b'{"a": 1}\n{"b": [1, 2.5, null, true]}\n{"c": {"d": "e"}}\n'
    assert read(raw) == (
        [(1, {"a": 1}), (2, {"b": [1, 2.5, None, True]}), (3, {"c": {"d": "e"}})],
        [],
    )


def test_empty_file_has_no_records_and_no_findings() -> None:
    assert read(b"") == ([], [])


@pytest.mark.parametrize(
    ("bad", "word"),
    [
        (b'{"a": NaN}', "NaN"),
        (b'{"a": Infinity}', "Infinity"),
        (b'{"a": -Infinity}', "-Infinity"),
        (b'{"a": [1, 2, NaN]}', "NaN"),
        (b'{"a": 1e400}', "1e400"),
        (b'{"a": -1e400}', "-1e400"),
        (b'{"a": {"b": 1.5E+999}}', "1.5E+999"),
        (b'{"a": 1, "a": 2}', "'a'"),
        (b'{"x": {"b": 1, "b": 1}}', "'b'"),
        (b"[1, 2]", "list"),
        (b'"a string"', "str"),
        (b"42", "int"),
        (b"null", "NoneType"),
        (b"{bad json", "not JSON"),
        (b'{"a": 1} {"b": 2}', "not JSON"),
        (b'{"a": 1},', "not JSON"),
        (b"{'a': 1}", "not JSON"),
        (b'{"a": "caf\xe9"}', "UTF-8"),
        (b'{"a": "\xed\xa0\x80"}', "UTF-8"),
        (b"\xff\xfe{}", "UTF-8"),
        (b'{"a": ' + b"9" * 5000 + b"}", "JSON"),
    ],
)
def test_each_refusal_names_its_line(bad: bytes, word: str) -> None:
    raw = GOOD + GOOD.replace(b"c1", b"c2") + bad + b"\n" + GOOD.replace(b"c1", b"c4")
    records, findings = parse_jsonl(io.BytesIO(raw), PATH)
    assert [(r.line, r.data["case_id"]) for r in records] == [(1, "c1"), (2, "c2"), (4, "c4")]
    assert [(f.code, f.file, f.line) for f in findings] == [(Code.JSONL_INVALID, PATH, 3)]
    assert word in findings[0].message


def test_bom_on_line_one() -> None:
    raw = b"\xef\xbb\xbf" + GOOD + GOOD
    records, lines = read(raw)
    assert records == [(2, {"case_id": "c1", "n": 1})]
    assert lines == [1]
    assert refusal(b"\xef\xbb\xbf{}")[1].startswith("byte order mark")


def test_bom_on_a_later_line() -> None:
    assert read(GOOD + b"\xef\xbb\xbf{}\n")[1] == [2]


@pytest.mark.parametrize("blank", [b"", b" ", b"\t", b"\r", b"  \t "])
def test_blank_line_in_the_middle(blank: bytes) -> None:
    records, lines = read(GOOD + blank + b"\n" + GOOD)
    assert [line for line, _ in records] == [1, 3]
    assert lines == [2]


def test_blank_lines_at_the_end_are_refused_too() -> None:
    assert read(GOOD + b"\n\n") == ([(1, {"case_id": "c1", "n": 1})], [2, 3])


def test_deep_nesting_is_a_finding_not_a_crash() -> None:
    raw = b'{"a": ' + b"[" * 100_000 + b"]" * 100_000 + b"}\n"
    # With the default caps the 100,001 lists are refused before parsing; raised, `json`
    # parses and overflows the stack: still a finding.
    assert refusal(raw)[1].startswith("100001 arrays and objects, more than the 10000")
    raised = Limits(max_jsonl_record_containers=200_000, max_jsonl_record_values=200_000)
    line, message = refusal(raw, raised)
    assert line == 1
    assert "RecursionError" in message


def test_long_line_is_refused_and_the_next_line_is_still_read() -> None:
    limits = Limits(max_jsonl_line_bytes=64)
    long = b'{"pad": "' + b"x" * 500 + b'"}\n'
    raw = GOOD + long + b'{"after": true}\n' + long + long + b'{"last": 1}'
    records, findings = parse_jsonl(io.BytesIO(raw), PATH, limits)
    assert [(r.line, r.data) for r in records] == [
        (1, {"case_id": "c1", "n": 1}),
        (3, {"after": True}),
        (6, {"last": 1}),
    ]
    assert [f.line for f in findings] == [2, 4, 5]
    assert all("64 bytes" in f.message for f in findings)


def test_long_line_with_default_limit() -> None:
    cap = Limits().max_jsonl_line_bytes
    long = b'{"pad": "' + b"x" * cap + b'"}\n'
    assert read(long + b'{"next": 2}\n') == ([(2, {"next": 2})], [1])


def test_long_last_line_without_newline() -> None:
    assert read(GOOD + b'{"pad": "' + b"x" * 100 + b'"}', Limits(max_jsonl_line_bytes=50)) == (
        [(1, {"case_id": "c1", "n": 1})],
        [2],
    )


@pytest.mark.parametrize("ending", [b"\n", b"\r\n", b""])
def test_line_cap_counts_the_line_without_its_ending(ending: bytes) -> None:
    limits = Limits(max_jsonl_line_bytes=20)
    exact = b'{"a": "' + b"x" * 11 + b'"}'
    assert len(exact) == 20
    assert read(exact + ending, limits) == ([(1, {"a": "x" * 11})], [])
    over = b'{"a": "' + b"x" * 12 + b'"}'
    assert read(over + ending, limits) == ([], [1])
    assert read(exact + b"\n" + over + ending, limits) == ([(1, {"a": "x" * 11})], [2])
    if ending:
        assert read(over + ending + b"{}", limits) == ([(2, {})], [1])


def test_crlf_line_endings() -> None:
    raw = b'{"a": 1}\r\n{"b": 2}\r\n{"c": 3}\r\n'
    assert read(raw) == ([(1, {"a": 1}), (2, {"b": 2}), (3, {"c": 3})], [])


def test_final_line_without_newline() -> None:
    assert read(b'{"a": 1}\n{"b": 2}') == ([(1, {"a": 1}), (2, {"b": 2})], [])
    assert read(b'{"a": 1}\r\n{"b": 2}') == ([(1, {"a": 1}), (2, {"b": 2})], [])


def test_strings_keep_unicode_and_escapes() -> None:
    raw = '{"a": "café ✓", "b": "\\u00e9\\n"}\n'.encode()
    assert read(raw) == ([(1, {"a": "café ✓", "b": "é\n"})], [])


def test_one_bad_line_never_hides_the_next() -> None:
    lines = [
        b'{"id": 1}',  # 1 ok
        b'{"id": NaN}',  # 2 NaN
        b'{"id": 3}',  # 3 ok
        b"",  # 4 blank
        b"\xef\xbb\xbf{}",  # 5 BOM
        b'{"id": 6, "id": 6}',  # 6 duplicate key
        b'{"id": 7}',  # 7 ok
        b"[7]",  # 8 array
        b'{"id": "\xff"}',  # 9 not UTF-8
        b'{"id": 1e999}',  # 10 overflow
        b'{"id": 11',  # 11 truncated
        b'"eleven"',  # 12 string
        b'{"id": 13}',  # 13 ok
        b'{"id": -Infinity}',  # 14
        b'{"id": 15, "x": [1.5, {"y": null}]}',  # 15 ok
    ]
    records, findings = parse_jsonl(io.BytesIO(b"\n".join(lines) + b"\n"), PATH)
    assert [(r.line, r.data) for r in records] == [
        (1, {"id": 1}),
        (3, {"id": 3}),
        (7, {"id": 7}),
        (13, {"id": 13}),
        (15, {"id": 15, "x": [1.5, {"y": None}]}),
    ]
    assert [(f.code, f.file, f.line) for f in findings] == [
        (Code.JSONL_INVALID, PATH, line) for line in (2, 4, 5, 6, 8, 9, 10, 11, 12, 14)
    ]
    messages = [f.message for f in findings]
    assert "NaN" in messages[0]
    assert "blank" in messages[1]
    assert "byte order mark" in messages[2]
    assert "duplicate key 'id'" in messages[3]
    assert "list" in messages[4]
    assert "UTF-8" in messages[5]
    assert "1e999" in messages[6]
    assert "not JSON" in messages[7]
    assert "str" in messages[8]
    assert "-Infinity" in messages[9]


# --- containers and values per record and per file (memory bounded by the file's size) --------
# 1 MB lines of empty lists once cost ~30x their size: a 22 MB file took ~675 MB and 35 s.
# Records are counted on their bytes before `json` builds anything (bench/loaders.py measures).


def _lists(count: int) -> bytes:
    """One record: an object holding a list of `count` empty lists (count + 2 containers)."""
    return b'{"a": [' + b", ".join([b"[]"] * count) + b"]}\n"


def test_record_over_the_container_cap_is_refused_unparsed(monkeypatch: pytest.MonkeyPatch) -> None:
    decoded: list[bytes] = []
    original = jsonl._decode
    monkeypatch.setattr(jsonl, "_decode", lambda raw: decoded.append(raw) or original(raw))
    cap = Limits().max_jsonl_record_containers
    line, message = refusal(_lists(cap - 1))  # cap + 1 arrays and objects
    assert line == 1
    assert message == f"{cap + 1} arrays and objects, more than the {cap} a record may hold"
    assert decoded == []  # refused on its bytes: json never built the lists
    assert read(_lists(cap - 2)) == ([(1, {"a": [[]] * (cap - 2)})], [])  # exactly the cap


def test_brackets_and_commas_inside_strings_are_not_counted() -> None:
    # 3 arrays and objects; 5 values (the record, its 2 members, the list's 2 members).
    text = '{"a": "[[[{{{,,,\\\\\\" [ { ,", "b": ["x,]", {}]}'
    raw = text.encode() + b"\n"
    exact = Limits(max_jsonl_record_containers=3, max_jsonl_record_values=5)
    assert read(raw, exact) == ([(1, {"a": '[[[{{{,,,\\" [ { ,', "b": ["x,]", {}]})], [])
    fewer = Limits(max_jsonl_record_containers=2)
    assert refusal(raw, fewer) == (1, "3 arrays and objects, more than the 2 a record may hold")
    assert refusal(raw, Limits(max_jsonl_record_values=4))[1].startswith("5 values")


def test_record_over_the_value_cap_is_refused() -> None:
    limits = Limits(max_jsonl_record_values=100)
    raw = b'{"a": [' + b", ".join([b"0"] * 99) + b"]}\n"  # 1 + 1 + 99 values
    assert refusal(raw, limits) == (1, "101 values, more than the 100 a record may hold")
    ok = b'{"a": [' + b", ".join([b"0"] * 98) + b"]}\n"
    assert read(ok, limits)[1] == []


def test_file_over_the_container_cap_stops_at_the_line_that_crosses_it() -> None:
    limits = Limits(max_jsonl_file_containers=50)
    raw = _lists(4) * 10  # 6 arrays and objects a line
    records, findings = parse_jsonl(io.BytesIO(raw + b"not json\n"), PATH, limits)
    assert [r.line for r in records] == list(range(1, 9))  # 48 containers
    (finding,) = findings  # the rest of the file is not read: no finding for "not json"
    assert (finding.code, finding.line) == (Code.JSONL_INVALID, 9)
    assert finding.message == (
        "the file's records hold more than 50 arrays and objects by this line;"
        " the rest of the file is not read"
    )


def test_file_over_the_value_cap_stops_at_the_line_that_crosses_it() -> None:
    limits = Limits(max_jsonl_file_values=25)
    raw = b'{"a": [1, 2, 3, 4, 5]}\n' * 4  # 7 values a line
    records, findings = parse_jsonl(io.BytesIO(raw), PATH, limits)
    assert [r.line for r in records] == [1, 2, 3]
    (finding,) = findings
    assert finding.line == 4
    assert finding.message.startswith("the file's records hold more than 25 values by this line")


# ---- the value domain: I-JSON's integers (bot/vocab/values.py; issue 21, item 1) -------------


@pytest.mark.parametrize(
    ("line", "message"),
    [
        (b'{"score":9007199254740992}', "score: integer 9007199254740992"),
        (b'{"result":{"n":-9007199254740992}}', "result.n: integer -9007199254740992"),
        (b'{"a":[1,{"b":[2,18446744073709551616]}]}', "a[1].b[1]: integer 18446744073709551616"),
        ('{"é":{"n":99999999999999999999}}'.encode(), "é.n: integer 99999999999999999999"),
        (b'{"n":' + b"9" * 60 + b"}", "n: integer of 60 digits"),
    ],
)
def test_integers_beyond_2_53_are_refused_with_their_field(line: bytes, message: str) -> None:
    """No later stage can carry an integer past 2**53 - 1 (RFC 8785 forms, reports), so the
    loader refuses it where it is read: its line and its field, on the fast path and the
    strict one alike (the 4th line is not ASCII, the 5th has 19 digits in a row)."""
    raw = b'{"ok":9007199254740991,"low":-9007199254740991}\n' + line + b"\n{}\n"
    records, findings = parse_jsonl(io.BytesIO(raw), PATH)
    assert [r.line for r in records] == [1, 3]
    (finding,) = findings
    assert (finding.code, finding.line) == (Code.JSONL_INVALID, 2)
    assert finding.message == f"{message} is outside ±2**53-1 (I-JSON)"


def test_digits_in_strings_and_floats_are_not_integers() -> None:
    raw = b'{"id":"12345678901234567890","x":1234567890123456789.5,"y":9007199254740993.0}\n'
    assert read(raw) == (
        [(1, {"id": "12345678901234567890", "x": 1234567890123456789.5, "y": 9007199254740992.0})],
        [],
    )


def test_parse_json_refuses_integers_beyond_2_53_with_their_field() -> None:
    with pytest.raises(ValueError, match=r"^a\[0\]\.b: integer 9007199254740993 is outside"):
        jsonl.parse_json(b'{"a":[{"b":9007199254740993}]}', 64)


# ---- one JSON equality (bot/vocab/values.py; issue 21, item 4) -------------------------------


@pytest.mark.parametrize(
    ("mine", "theirs", "same"),
    [
        (True, 1, False),
        (False, 0, False),
        (1.0, True, False),
        (None, False, False),
        ("1", 1, False),
        (1, 1.0, True),
        (0, -0.0, True),
        ([True], [1], False),
        ({"a": [False]}, {"a": [0]}, False),
        ({"a": 1, "b": 2.0}, {"b": 2, "a": 1.0}, True),
        ([1, 2], [2, 1], False),
        ({"a": True}, {"a": True, "b": None}, False),
    ],
)
def test_json_values_compare_by_json_type(mine: object, theirs: object, same: bool) -> None:
    from bot.vocab.values import json_equal, json_key

    assert json_equal(mine, theirs) is same
    assert json_equal(theirs, mine) is same
    assert (json_key(mine) == json_key(theirs)) is same


def test_json_equality_of_dict_subclasses_is_by_json_type() -> None:
    from bot.vocab.values import json_equal

    class Keys(dict[str, object]):
        __slots__ = ()

    assert not json_equal(Keys(a=True), Keys(a=1))
    assert json_equal(Keys(a=1), Keys(a=1.0))

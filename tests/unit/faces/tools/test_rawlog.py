"""bot/faces/tools/rawlog.py: the raw-log plan (checked by the verifier's rule) and the textual
edit of attempt.yaml's raw_log block."""

from __future__ import annotations

import hashlib
import io
from typing import Any

import yaml
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.edges.load.yaml_ import parse_yaml
from bot.faces.tools.rawlog import edit_block, measure_log, raw_log_files


@settings(deadline=None)
@given(st.binary(max_size=300), st.integers(1, 40))
def test_measure_log_streams_size_hash_head_and_tail(log: bytes, excerpt: int) -> None:
    facts = measure_log(io.BytesIO(log), excerpt)
    assert facts.size == len(log)
    assert facts.sha256 == hashlib.sha256(log).hexdigest()
    assert (facts.head, facts.tail) == (log[:excerpt], log[-excerpt:] if log else b"")


def test_a_log_over_the_limit_becomes_excerpts_the_verifier_accepts() -> None:
    log = bytes(range(256)) * 10
    facts = measure_log(io.BytesIO(log), 100)
    planned, problems = raw_log_files(facts, "harness.log", None, 1000, 100, "raw-log")
    assert problems == []
    assert planned == {"head": log[:100], "tail": log[-100:]}
    whole, problems = raw_log_files(facts, "harness.log", log, 5000, 100, "raw-log")
    assert (whole, problems) == ({"harness.log": log}, [])


STUB = """# a comment that must stay
market: 3
raw_log:
  # pin-log fills these in
  sha256: "FILL-IN: claims pin-log writes this"
  url: "https://example.org/log"
  bytes: "FILL-IN: claims pin-log writes this"

# after the block
title: x
"""


def test_edit_block_replaces_only_its_lines() -> None:
    values = {"sha256": "1" * 64, "bytes": 12}
    edited, why = edit_block(STUB, "raw_log", values, "attempt.yaml")
    assert why == "" and edited is not None
    assert edited.splitlines()[4] == f'  sha256: "{"1" * 64}"'  # digits only: stays a string
    assert [
        line for line in edited.splitlines() if "sha256" not in line and "bytes" not in line
    ] == [line for line in STUB.splitlines() if "sha256" not in line and "bytes" not in line]
    assert yaml.safe_load(edited)["raw_log"] == {
        "sha256": "1" * 64,
        "url": "https://example.org/log",
        "bytes": 12,
    }


def test_edit_block_refuses_a_block_with_a_scalar_over_several_lines() -> None:
    # found by the property test below on CI: the value "\n" is written over three lines
    text = "market: 3\nraw_log:\n  sha256: '\n\n    '\ntitle: t\n"
    original, _ = parse_yaml(text.encode(), "attempt.yaml")
    assert original is not None and original.data["raw_log"] == {"sha256": "\n"}
    edited, why = edit_block(text, "raw_log", {"sha256": "1" * 64}, "attempt.yaml")
    assert edited is None and why.startswith("attempt.yaml")


def test_edit_block_adds_a_missing_block_and_refuses_a_flow_mapping() -> None:
    edited, _ = edit_block("market: 3\n", "raw_log", {"bytes": 5}, "attempt.yaml")
    assert edited == "market: 3\nraw_log:\n  bytes: 5\n"
    flow = "market: 3\nraw_log: {bytes: 1, url: x}\n"
    edited, why = edit_block(flow, "raw_log", {"bytes": 5}, "attempt.yaml")
    assert edited is None and "block" in why
    edited, why = edit_block("market: [\n", "raw_log", {"bytes": 5}, "attempt.yaml")
    assert edited is None and why.startswith("attempt.yaml")


_KEY = st.sampled_from(["sha256", "bytes", "url", "note", "extra"])
_SCALAR = st.one_of(st.integers(0, 10**12), st.text(max_size=20))
# What a filer's raw_log block holds: one line per key. A scalar YAML writes over several lines
# (a string holding a line break) is refused, not edited (the test below).
_BREAKS = "\n\r\x85\u2028\u2029"
_ONE_LINE = st.one_of(
    st.integers(0, 10**12),
    # no lone surrogates either: a UTF-8 file cannot hold them
    st.text(st.characters(blacklist_categories=("Cs",), blacklist_characters=_BREAKS), max_size=20),
)


@settings(deadline=None)
@given(
    st.dictionaries(_KEY, _ONE_LINE, max_size=4),
    st.dictionaries(st.sampled_from(["sha256", "bytes", "url"]), _SCALAR, min_size=1),
    st.sampled_from(["  ", "    "]),
    st.booleans(),
)
def test_edit_block_gives_exactly_the_data_asked_for(
    block: dict[str, Any], values: dict[str, Any], indent: str, comments: bool
) -> None:
    lines = ["# head", "market: 3"]
    if block:
        lines.append("raw_log:" + ("  # pinned" if comments else ""))
        for key, value in block.items():
            if comments:
                lines.append(f"{indent}# about {key}")
            dumped = yaml.safe_dump({key: value}, allow_unicode=True, width=10**6).strip()
            lines.append(f"{indent}{dumped}")
    lines.append("title: t")
    text = "\n".join(lines) + "\n"
    original, _ = parse_yaml(text.encode(), "attempt.yaml")
    assert original is not None
    edited, why = edit_block(text, "raw_log", values, "attempt.yaml")
    assert edited is not None, why
    document, _ = parse_yaml(edited.encode(), "attempt.yaml")
    assert document is not None
    expected = dict(original.data)  # type: ignore[arg-type]
    expected["raw_log"] = {**expected.get("raw_log", {}), **values}
    assert document.data == expected
    kept = [line for line in text.splitlines() if line.lstrip().startswith("#")]
    assert [line for line in edited.splitlines() if line.lstrip().startswith("#")] == kept

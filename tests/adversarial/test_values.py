"""Every value the loaders accept reaches every consumer (issue 21, "The pattern, closed").

One part of the bot accepting a value that a later part cannot handle made the later part fail
open (the rerun comparison stopped comparing: edited trials counted as reproduced) or fail
everyone (publish and the site refused the report). The loaders now accept exactly the values
every stage can carry (`bot/vocab/values.py`: I-JSON), and these properties hold them to it:

1. a record holding any value the loaders accept (integers up to ±(2**53-1), floats at the
   edges, -0.0, text of every Unicode category written raw or escaped (non-BMP as surrogate
   pairs), nesting up to the depth cap, every JSON type in every field of a trial, a case or a
   certificate) goes through `claims verify` → the JSON report → `from_json` → Markdown →
   `claims github publish` without a token → `claims site`: no traceback, verify exits 0 or 1,
   publish and site exit 0;
   The same for an operator's score file of a challenge run, with the attempt's trial of that
   case saying the same or not;
2. the rerun comparison (`compare_outputs`) of the filed file with what an adapter wrote never
   passes without comparing: the same values in another spelling are no difference, a changed
   record always is, and a filed file holding a value the loaders refuse is a difference too.

Example counts are modest so the suite stays fast; FUZZ_EXAMPLES (the environment, as in
test_fuzz.py) runs more.
"""

from __future__ import annotations

import contextlib
import io
import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import assume, event, given, note, settings
from hypothesis import strategies as st

from bot.app.compare import compare_outputs
from bot.app.report_json import read_report, verify_report_from_json
from bot.faces.cli import main
from bot.faces.demo.specimen import AttemptSpec, load_market, market_document, score_table
from bot.faces.report.markdown import render_markdown
from bot.rules.evidence.hashing import case_hash
from bot.vocab.jsonl import parse_jsonl
from bot.vocab.values import MAX_SAFE_INTEGER, json_equal
from tests.adversarial.harness import RULES_MODEL
from tests.support import (
    AS_OF,
    CHALLENGE_RUN,
    CHALLENGE_SCORES,
    Built,
    Files,
    RegistryFactory,
    build_challenge,
    fuzz_settings,
)

EXAMPLES = int(os.environ.get("FUZZ_EXAMPLES", "25"))
SPEC = AttemptSpec(kind="wrapped")
FILES = ("trials.jsonl", "freeze-cases.jsonl", "certificates.jsonl")
MARKET = load_market(market_document(3, "default"), RULES_MODEL)

# ---- what the loaders accept ----------------------------------------------------------------

_EDGE_NUMBERS: list[Any] = [
    0,
    -0.0,
    1,
    -1,
    1.0,
    MAX_SAFE_INTEGER,
    -MAX_SAFE_INTEGER,
    2**53 - 2,
    1e308,
    -1e308,
    1.7976931348623157e308,
    5e-324,
    -5e-324,
    2.2250738585072014e-308,
    1e21,
    1e-7,
    0.1,
    9007199254740993.0,  # a float: RFC 8785 writes it as 9007199254740992
]
_ODD_TEXT = [
    "",
    "\x00",
    "\x1f",
    "\x7f",
    "\u0085",
    "\u2028",
    "\u202e",  # right-to-left override
    "\ufeff",
    "\ud7ff",
    "\ue000",
    "\uffff",
    "\U0001f980",  # non-BMP: escaped as a surrogate pair with ensure_ascii
    "\U0010ffff",
    "A\u0301",
    "\ufb01le",
    "\u212a",
    "<script>alert(1)</script>",
    "| `x` | @maintainers #1 <!-- claims-bot:verdict -->",
    "../../etc/passwd",
    "x" * 3000,
]
numbers = st.one_of(
    st.sampled_from(_EDGE_NUMBERS),
    st.integers(-MAX_SAFE_INTEGER, MAX_SAFE_INTEGER),
    st.floats(allow_nan=False, allow_infinity=False),
)
# Every Unicode category but lone surrogates (Cs: not text, refused by the loaders).
text = st.one_of(
    st.sampled_from(_ODD_TEXT), st.text(st.characters(exclude_categories=("Cs",)), max_size=12)
)
leaves = st.one_of(st.none(), st.booleans(), numbers, text)


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = {"a": value} if level % 2 else [value]
    return value


values = st.one_of(
    leaves,
    st.recursive(
        leaves,
        lambda inner: st.lists(inner, max_size=3) | st.dictionaries(text, inner, max_size=3),
        max_leaves=12,
    ),
    # Up to the depth cap (Limits.max_json_depth = 64, the record and a field above it).
    st.integers(1, 61).map(_deep),
)


def _paths(record: dict[str, Any]) -> list[tuple[str, ...]]:
    """Every field of `record`, one level into its objects, and a new one at each level."""
    paths: list[tuple[str, ...]] = [(key,) for key in record] + [("added",)]
    for key, value in record.items():
        if isinstance(value, dict):
            paths += [(key, inner) for inner in value] + [(key, "added")]
    return paths


def _set(record: dict[str, Any], path: tuple[str, ...], value: Any) -> None:
    target = record
    for key in path[:-1]:
        target = target[key]
    target[path[-1]] = value


def _line(data: st.DataObject, record: dict[str, Any]) -> bytes:
    """A record as the filer's tools might write it: raw UTF-8 or ASCII escapes, any spacing."""
    ascii_only = data.draw(st.booleans(), label="ensure_ascii")
    compact = data.draw(st.booleans(), label="compact")
    separators = (",", ":") if compact else (", ", ": ")
    return json.dumps(record, ensure_ascii=ascii_only, separators=separators).encode("utf-8")


def _records(raw: bytes, name: str) -> list[dict[str, Any]]:
    records, refused = parse_jsonl(io.BytesIO(raw), name)
    assert refused == [], refused
    return [record.data for record in records]


def _edited(data: st.DataObject, pristine: Files) -> tuple[str, bytes, bytes, bool]:
    """One record of one JSONL file given an accepted value in one field. Returns the file's
    name, its bytes before and after, and whether the edited record is another JSON value."""
    name = data.draw(st.sampled_from(FILES), label="file")
    lines = pristine[name].split(b"\n")[:-1]
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    record = json.loads(lines[index])
    original = json.loads(lines[index])
    path = data.draw(st.sampled_from(_paths(record)), label="field")
    value = data.draw(values, label="value")
    _set(record, path, value)
    content = record.get("content") if name == "freeze-cases.jsonl" else None
    if isinstance(content, dict) and data.draw(st.booleans(), label="hash the new content"):
        record["sha256"] = case_hash(content)  # never raises on accepted values
    lines[index] = _line(data, record)
    after = b"\n".join(lines) + b"\n"
    note(f"{name} line {index + 1}: {path} = {value!r:.200}")
    return name, pristine[name], after, not json_equal(original, record)


# ---- 1. verify → report → from_json → Markdown → publish → site -----------------------------


class Registry_:
    """One git registry for every example (not a dataclass: Hypothesis prints arguments)."""

    def __init__(self, built: Built) -> None:
        self.built = built
        self.scores = b""  # a challenge run's score file, as filed
        self.pristine: Files = {
            path.relative_to(built.attempt).as_posix(): path.read_bytes()
            for path in sorted(built.attempt.rglob("*"))
            if path.is_file()
        }

    def __repr__(self) -> str:
        return f"Registry_({self.built.root})"


@pytest.fixture
def wrapped_registry(make_registry: RegistryFactory) -> Registry_:
    return Registry_(make_registry(SPEC))


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = main(argv)
    out, err = capsys.readouterr()
    note(f"claims {argv[0]}: {code}\n{err[-1500:]}")
    assert "Traceback" not in out + err, err
    return code, out, err


def _through_every_consumer(
    root: Path,
    paths: list[str],
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    """`claims verify PATHS` → the JSON report read back → Markdown → `claims github publish`
    without a token → `claims site`: no traceback, no exit 2."""
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.setenv("GITHUB_REPOSITORY", "acme/registry")
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    report, markdown = tmp_path / "report.json", tmp_path / "comment.md"
    argv = ["verify", "--registry", str(root), *paths, "--as-of", AS_OF]
    code, _, err = _run([*argv, "--json", str(report), "--markdown", str(markdown)], capsys)
    assert code in (0, 1), err
    event(f"verify exits {code}")
    # Read back as the posting job reads it (untrusted), and rendered again.
    read = verify_report_from_json(read_report(report.read_bytes()))
    assert render_markdown(read) == markdown.read_text(encoding="utf-8")
    publish = ["github", "publish", str(report), "--pr", "7", "--head", "a" * 40]
    code, out, err = _run(publish, capsys)
    assert code == 0 and "would post on acme/registry #7:" in out, err
    site = ["site", "--registry", str(root), "--verify-report", str(report)]
    code, _, err = _run([*site, "--out", str(tmp_path / "site")], capsys)
    assert code == 0, err


@settings(fuzz_settings(EXAMPLES))
@given(data=st.data())
def test_every_accepted_value_reaches_every_consumer(
    wrapped_registry: Registry_,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data: st.DataObject,
) -> None:
    built, pristine = wrapped_registry.built, wrapped_registry.pristine
    name, before, after, changed = _edited(data, pristine)
    _records(after, name)  # the loader accepts it: the values drawn are in its domain
    files = {**pristine, name: after}
    if data.draw(st.booleans(), label="derive the score table from the edited files"):
        with contextlib.suppress(ValueError):  # the edit broke a schema: the filed table stays
            files["scores.yaml"] = score_table(files, MARKET, RULES_MODEL.confidence)
    for file, content in files.items():
        (built.attempt / file).write_bytes(content)
    try:
        _through_every_consumer(built.root, [str(built.attempt)], tmp_path, capsys, monkeypatch)
        # 2. and the rerun comparison, of the filed file with the adapter's honest output.
        found = compare_outputs([name], {name: after}, {name: before}, "attempt")
        assert bool(found) == changed, found
    finally:
        for file, content in pristine.items():
            (built.attempt / file).write_bytes(content)


@pytest.fixture
def challenge_registry(make_registry: RegistryFactory) -> Registry_:
    registry = Registry_(build_challenge(make_registry))
    registry.scores = (registry.built.root / CHALLENGE_RUN.folder / CHALLENGE_SCORES).read_bytes()
    return registry


@settings(fuzz_settings(max(EXAMPLES // 2, 1)))
@given(data=st.data())
def test_every_accepted_operator_score_reaches_every_consumer(
    challenge_registry: Registry_,
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    data: st.DataObject,
) -> None:
    """The same for an operator's score file (challenge-runs/: docs/challenge-runs.md): any
    accepted value in any field of a result, and in the attempt's trial of that case too or
    not, goes through verify of the whole registry, the report, publish and the site."""
    built, pristine = challenge_registry.built, challenge_registry.pristine
    scores = built.root / CHALLENGE_RUN.folder / CHALLENGE_SCORES
    filed = challenge_registry.scores
    lines = filed.split(b"\n")[:-1]
    index = data.draw(st.integers(0, len(lines) - 1), label="line")
    row = json.loads(lines[index])
    path = data.draw(st.sampled_from([*_paths(row), ("result", "added")]), label="field")
    value = data.draw(values, label="value")
    note(f"{CHALLENGE_SCORES} line {index + 1}: {path} = {value!r:.200}")
    _set(row, path, value)
    lines[index] = _line(data, row)
    mirrored = path[0] == "result" and data.draw(st.booleans(), label="the trial says the same")
    try:
        scores.write_bytes(b"\n".join(lines) + b"\n")
        _records(scores.read_bytes(), CHALLENGE_SCORES)  # the loader accepts it
        if mirrored:
            trials = pristine["trials.jsonl"].split(b"\n")[:-1]
            for number, line in enumerate(trials):
                trial = json.loads(line)
                if trial["case_id"] == row["case_id"]:
                    _set(trial, path, value)
                    trials[number] = _line(data, trial)
            (built.attempt / "trials.jsonl").write_bytes(b"\n".join(trials) + b"\n")
        _through_every_consumer(built.root, [], tmp_path, capsys, monkeypatch)
    finally:
        scores.write_bytes(filed)
        for file, content in pristine.items():
            (built.attempt / file).write_bytes(content)


# ---- 2. the rerun comparison never passes without comparing ---------------------------------

_REFUSED = [
    2**53,
    -(2**53),
    2**53 + 1,
    2**63,
    10**30,
    10**400,
]


def _respelled(data: st.DataObject, raw: bytes) -> bytes:
    """The same records in another spelling: keys reordered, numbers and text written anew."""
    lines = []
    for line in raw.split(b"\n")[:-1]:
        record = json.loads(line)
        if data.draw(st.booleans(), label="reorder"):
            record = dict(reversed(list(record.items())))
        lines.append(_line(data, record))
    return b"\n".join(lines) + b"\n"


@settings(fuzz_settings(EXAMPLES * 4))
@given(data=st.data())
def test_the_rerun_comparison_never_passes_without_comparing(
    wrapped_registry: Registry_, data: st.DataObject
) -> None:
    pristine = wrapped_registry.pristine
    name, before, after, changed = _edited(data, pristine)
    assert compare_outputs([name], {name: after}, {name: _respelled(data, after)}, "a") == []
    found = compare_outputs([name], {name: after}, {name: before}, "a")
    assert bool(found) == changed, found
    # A value no stage can carry, filed where the adapter wrote the honest record: the filed
    # file is refused, and the comparison says it could not compare, never "no differences".
    lines = after.split(b"\n")[:-1]
    index = data.draw(st.integers(0, len(lines) - 1), label="line with a refused value")
    record = json.loads(lines[index])
    path = data.draw(st.sampled_from(_paths(record)), label="field for it")
    _set(record, path, data.draw(st.sampled_from(_REFUSED), label="refused value"))
    lines[index] = json.dumps(record).encode()
    refused = b"\n".join(lines) + b"\n"
    assume(refused != after)
    (finding,) = compare_outputs([name], {name: refused}, {name: after}, "a")
    assert finding.code.value == "adapter-mismatch"
    assert "could not be compared" in finding.message

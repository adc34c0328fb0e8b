"""Hostile inputs: whatever a pull request commits, `claims verify` answers, never traces back.

The rule (docs/spec.md §12): bad input yields reason codes and messages, and the exit code says
which kind of problem it was: 0 valid, 1 invalid evidence, 2 usage, environment or registry error.

1. A Hypothesis fuzzer takes one honest attempt (one real git registry for the whole run) and
   mutates its working-tree files in place: bytes flipped, inserted, deleted, files truncated,
   emptied, deleted, turned into folders or links, lines duplicated, and JSON/YAML values
   swapped for other types, huge numbers and odd Unicode. Every example must exit 0, 1 or 2
   without a traceback, with a JSON report that validates against its schema and a Markdown
   report that renders; the files are restored after each example.
2. Targeted cases the fuzzer is unlikely to reach (big files, git diffs, registry files), each
   with the code it must give. Several were crashes once; their tests say which.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import warnings
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, note
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from referencing import Registry, Resource

from bot.app.report_json import read_report, verify_report_from_json
from bot.edges.dump import dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.faces.cli import main
from bot.faces.demo.specimen import AttemptSpec, market_document
from bot.rules.evidence.hashing import case_hash
from bot.rules.stats.errors import StatisticsError
from bot.rules.stats.units import collapse_units
from tests.support import (
    AS_OF,
    PROJECT,
    Built,
    Files,
    RegistryFactory,
    Result,
    fuzz_settings,
    rewrite,
)


def _validator(name: str) -> Draft202012Validator:
    """A report schema's validator, resolving `$ref`s among schemas/ (never over the network)."""
    resources = []
    for file in sorted((PROJECT / "schemas").glob("*.schema.json")):
        contents = json.loads(file.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    schema = json.loads((PROJECT / "schemas" / f"{name}.schema.json").read_text())
    return Draft202012Validator(schema, registry=Registry().with_resources(resources))


VERIFY_REPORT = _validator("verify-report")
RESOLVE_REPORT = _validator("resolve-report")
EXAMPLES = int(os.environ.get("HOSTILE_EXAMPLES", "60"))

# When a @given test fails, Hypothesis's pytest plugin imports libcst to write a patch, and
# libcst warns (DeprecationWarning: mypy_extensions.TypedDict) at import. With pytest's
# filterwarnings=error that warning is an INTERNALERROR which hides the falsifying example,
# so import it here, once, quietly.
with warnings.catch_warnings(), contextlib.suppress(ImportError):  # no libcst: nothing to do
    warnings.simplefilter("ignore", DeprecationWarning)
    import hypothesis.extra._patching  # noqa: F401


def sound(result: Result, markdown: Path | None = None) -> None:
    """The CLI answered like a program, not like a crash: a code, reports that parse."""
    assert result.code in (0, 1, 2), result
    assert "Traceback" not in result.err and "Traceback" not in result.out, result.err
    if result.code in (0, 1):
        assert result.report is not None, result.out
    if result.report is not None:
        VERIFY_REPORT.validate(result.report)
        if result.code in (0, 1):
            assert result.report["evidence"] == ("valid" if result.code == 0 else "invalid")
    if markdown is not None and result.code in (0, 1):
        text = markdown.read_text(encoding="utf-8")
        assert text.startswith("### "), text[:200]
        assert "Evidence" in text.splitlines()[0]


def verify(run_claims: Callable[..., Result], *args: str | Path, markdown: Path) -> Result:
    markdown.unlink(missing_ok=True)
    result = run_claims("verify", *args, "--markdown", markdown)
    sound(result, markdown)
    return result


# ---- 1. the fuzzer ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Raw:
    """A literal spliced into the JSON text as it is (1e400, NaN, -Infinity, 400 nines)."""

    text: str


_RAW_MARK = "@@raw-literal@@"
_ODD_TEXT = [
    "",
    "3",
    "NaN",
    "null",
    "NO",
    "1:30",
    "0o12",
    "\u202eevil.txt",  # right-to-left override
    "a\x00b",  # NUL
    "\ud800",  # a lone surrogate: written as the escape \ud800, or as invalid UTF-8
    "\udfff tail",
    "🦀🦀",
    "\uff4d\uff41\uff52\uff4b\uff45\uff54",  # fullwidth "market": NFKC folds it to "market"
    "ﬁle",  # ligature: NFKC folds it to "file"
    "\u212a",  # KELVIN SIGN: NFKC and casefold make it "k"
    "A\u0301",  # A + combining acute: NFC composes it
    "@maintainers #1 <img src=x> | `x` |",
    "x" * 5000,
]
_NUMBERS: list[Any] = [0, -1, 1, 3.0, 1e308, -1e308, -0.0, 5e-324, 10**30, 2**53 + 1, 2**63]
_RAW = ["1e400", "-1e400", "9" * 400, "NaN", "-Infinity", "1E-400", "-0"]

_scalars = st.sampled_from([None, True, False, *_ODD_TEXT, *_NUMBERS])
_keys = st.sampled_from(["", "a", "\u202e", "case_id", "result", "score", "\ud800", "market"])


def _deep(depth: int) -> Any:
    value: Any = "bottom"
    for level in range(depth):
        value = {"a": value} if level % 2 else [value]
    return value


_hostile = st.one_of(
    _scalars,
    st.lists(_scalars, max_size=3),
    st.dictionaries(_keys, _scalars, max_size=3),
    st.integers(1, 80).map(_deep),
    st.sampled_from(_RAW).map(Raw),
)


def _swaps(value: Any) -> list[Any]:
    """The same value as another JSON type: string, number, null, list, object."""
    swaps: list[Any] = [None, [value], {"value": value}, str(value)]
    if isinstance(value, str):
        swaps += [len(value), value.upper(), value + "\u202e"]
    elif isinstance(value, bool):
        swaps += [int(value), "true"]
    elif isinstance(value, int | float):
        swaps += [-value, value * 10**20, float(value), True]
    return swaps


def _children(value: Any) -> list[Any]:
    if isinstance(value, dict):
        return list(value)
    if isinstance(value, list):
        return list(range(len(value)))
    return []


def _edit_tree(data: st.DataObject, root: Any) -> tuple[Any, str]:
    """Walk to a random place in `root`; replace, delete or add a value there."""
    parent: Any = None
    key: Any = None
    node = root
    path: list[Any] = []
    while _children(node) and data.draw(st.integers(0, 3), label="descend") > 0:
        parent, key = node, data.draw(st.sampled_from(_children(node)), label="key")
        node = parent[key]
        path.append(key)
    action = data.draw(st.sampled_from(["replace", "replace", "replace", "delete", "add"]))
    if action == "add" and isinstance(node, dict):
        node[data.draw(_keys, label="new key")] = data.draw(_hostile, label="new value")
        return root, f"add a key at {path}"
    if action == "delete" and parent is not None:
        del parent[key]
        return root, f"delete {path}"
    value = data.draw(st.one_of(_hostile, st.sampled_from(_swaps(node))), label="value")
    if parent is None:
        return value, f"replace the whole document with {value!r:.80}"
    parent[key] = value
    return root, f"replace {path} with {value!r:.80}"


def _dump(data: st.DataObject, value: Any, indent: int | None) -> bytes:
    """JSON text (also valid YAML): ASCII escapes, or raw UTF-8 (surrogates as invalid bytes)."""
    literals: list[str] = []

    def mark(raw: Raw) -> str:  # json calls this in output order
        literals.append(raw.text)
        return _RAW_MARK

    ascii_only = data.draw(st.booleans(), label="ensure_ascii")
    text = json.dumps(value, ensure_ascii=ascii_only, indent=indent, default=mark)
    for literal in literals:
        text = text.replace(json.dumps(_RAW_MARK), literal, 1)
    return text.encode("utf-8", "surrogatepass")


def _structured(data: st.DataObject, name: str, raw: bytes) -> tuple[bytes, str] | None:
    """Edit one JSONL record or the YAML document; None when the file no longer parses."""
    if name.endswith(".jsonl"):
        lines = raw.split(b"\n")
        filled = [index for index, line in enumerate(lines) if line.strip()]
        if not filled:
            return None
        index = data.draw(st.sampled_from(filled), label="record")
        try:
            record = json.loads(lines[index])
        except ValueError:
            return None
        record, what = _edit_tree(data, record)
        lines[index] = _dump(data, record, None)
        return b"\n".join(lines), f"line {index + 1}: {what}"
    if name.endswith(".yaml"):
        document, _ = parse_yaml(raw, name)
        if document is None:
            return None
        edited, what = _edit_tree(data, document.data)
        return _dump(data, edited, 2), what
    return None


_MUTATIONS = [
    "structured",
    "structured",
    "structured",
    "structured",
    "flip",
    "insert",
    "delete-bytes",
    "truncate",
    "duplicate-line",
    "empty",
    "remove",
    "directory",
    "symlink",
]


def _files(folder: Path) -> list[str]:
    return sorted(
        path.relative_to(folder).as_posix()
        for path in folder.rglob("*")
        if path.is_file() and not path.is_symlink()
    )


def _mutate(data: st.DataObject, folder: Path) -> str:
    """Apply one random mutation to one file of `folder`; return what it did."""
    files = _files(folder)
    if not files:
        return "no file left"
    name = data.draw(st.sampled_from(files), label="file")
    kind = data.draw(st.sampled_from(_MUTATIONS), label="mutation")
    path = folder / name
    raw = path.read_bytes()

    def position(extra: int = 0) -> int:
        return data.draw(st.integers(0, max(len(raw) - 1 + extra, 0)), label="position")

    if kind == "structured":
        edited = _structured(data, name, raw)
        if edited is not None:
            path.write_bytes(edited[0])
            return f"{name}: {edited[1]}"
        kind = "flip"
    if kind == "flip" and raw:
        at = position()
        mask = data.draw(st.integers(1, 255), label="mask")
        path.write_bytes(raw[:at] + bytes([raw[at] ^ mask]) + raw[at + 1 :])
    elif kind == "insert" or kind == "flip":
        at = position(1)
        inserted = data.draw(
            st.one_of(
                st.binary(min_size=1, max_size=8),
                st.sampled_from(
                    [b"\x00", b"\xef\xbb\xbf", b"\xed\xa0\x80", b"\xe2\x80\xae", b"\r", b"\n\n"]
                ),
            ),
            label="bytes",
        )
        path.write_bytes(raw[:at] + inserted + raw[at:])
    elif kind == "delete-bytes":
        at = position()
        path.write_bytes(raw[:at] + raw[at + data.draw(st.integers(1, 64), label="length") :])
    elif kind == "truncate":
        path.write_bytes(raw[: position()])
    elif kind == "duplicate-line":
        lines = raw.split(b"\n")
        index = data.draw(st.integers(0, len(lines) - 1), label="line")
        lines.insert(index, lines[index])
        path.write_bytes(b"\n".join(lines))
    elif kind == "empty":
        path.write_bytes(b"")
    elif kind == "remove":
        path.unlink()
    elif kind == "directory":
        path.unlink()
        path.mkdir()
        if data.draw(st.booleans(), label="non-empty"):
            (path / "inner.yaml").write_bytes(raw)
    elif kind == "symlink":
        path.unlink()
        target = data.draw(st.sampled_from(["/etc/passwd", "../attempt.yaml", ".", "/nowhere"]))
        path.symlink_to(target)
    return f"{name}: {kind}"


def _snapshot(folder: Path) -> Files:
    return {name: (folder / name).read_bytes() for name in _files(folder)}


def _restore(folder: Path, files: Files) -> None:
    shutil.rmtree(folder)
    for name, content in files.items():
        target = folder / name
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_bytes(content)


class Honest:
    """One registry for every example of a fuzz test, and the attempt's pristine files.

    Not a dataclass: Hypothesis prints a failing example's arguments, and would print a
    dataclass field by field (34 kB here, which warns, and pytest makes warnings errors).
    """

    def __init__(self, built: Built, pristine: Files) -> None:
        self.built = built
        self.pristine = pristine

    def __repr__(self) -> str:
        return f"Honest({self.built.attempt})"


@pytest.fixture
def honest(make_registry: RegistryFactory) -> Honest:
    built = make_registry()
    return Honest(built, _snapshot(built.attempt))


FUZZ = fuzz_settings(EXAMPLES)


@FUZZ
@given(data=st.data())
def test_mutated_attempt_never_crashes(honest, run_claims, tmp_path: Path, data) -> None:
    built, pristine = honest.built, honest.pristine
    try:
        for _ in range(data.draw(st.integers(1, 3), label="mutations")):
            note(_mutate(data, built.attempt))
        base = ["--base-ref", "main"] if data.draw(st.booleans(), label="base-ref") else []
        result = verify(run_claims, built.attempt, *base, markdown=tmp_path / "comment.md")
        note(f"exit {result.code}: {result.out[-300:]}")
    finally:
        _restore(built.attempt, pristine)


def test_the_fuzzer_restores_the_honest_attempt(honest, run_claims, tmp_path: Path) -> None:
    built, pristine = honest.built, honest.pristine
    (built.attempt / "trials.jsonl").write_bytes(b"{}\n")
    (built.attempt / "raw-log").rename(built.attempt / "elsewhere")
    _restore(built.attempt, pristine)
    result = verify(run_claims, built.attempt, markdown=tmp_path / "comment.md")
    assert result.code == 0, result.out


# ---- 2. targeted cases ------------------------------------------------------------------------


def _codes(result: Result) -> set[str]:
    return result.codes()


def _trial_edit(edit: Callable[[dict[str, Any]], None], index: int = 0) -> Callable[[Files], None]:
    def change(files: Files) -> None:
        rewrite(files, "trials.jsonl", lambda trials: edit(trials[index]))

    return change


def test_fifty_thousand_empty_trials(
    make_registry: RegistryFactory, capsys, tmp_path: Path
) -> None:
    """Every line `{}`: schema problems per line, no crash. The JSON report lists 20 findings
    of each code and file and counts the rest (it held all 400,000, ~115 MB, before the cap);
    the Markdown comment is capped."""
    built = make_registry()
    (built.attempt / "trials.jsonl").write_bytes(b"{}\n" * 50_000)
    markdown, report = tmp_path / "comment.md", tmp_path / "report.json"
    args = ["--as-of", AS_OF, "--markdown", str(markdown), "--json", str(report)]
    code = main(["verify", str(built.attempt), *args])
    out, err = capsys.readouterr()
    assert code == 1
    assert "Traceback" not in err
    assert "more schema in" in out  # the terminal folds repeats
    assert len(markdown.read_text()) < 65_536
    assert "more schema finding" in markdown.read_text()  # counted as in the JSON report
    assert report.stat().st_size < 1_000_000
    data = json.loads(report.read_text())
    (attempt,) = data["attempts"]
    left_out = sum(r.get("left_out", 0) for r in attempt["reasons"])
    assert data["findings_cap"] == {"per_code_and_file": 20, "left_out": left_out}
    assert left_out > 350_000 and attempt["evidence"] == "invalid"
    back = verify_report_from_json(read_report(report.read_bytes()))
    assert back.attempts[0].evidence == "invalid"


@pytest.mark.parametrize(
    ("name", "value", "codes"),
    [
        ("deep result object (60 levels)", _deep(60), {"schema", "score-table-mismatch"}),
        ("result nested past the cap (80 levels)", _deep(80), {"jsonl-invalid"}),
    ],
)
def test_deep_result_fields(
    make_registry: RegistryFactory, run_claims, tmp_path, name, value, codes
) -> None:
    def edit(trial: dict[str, Any]) -> None:
        trial["result"]["score"] = value  # the AUROC bar needs a number here
        trial["result"]["extra"] = value

    result = verify(
        run_claims, make_registry(change=_trial_edit(edit)).attempt, markdown=tmp_path / "c.md"
    )
    assert result.code == 1
    assert _codes(result) == codes


@pytest.mark.parametrize(
    ("literal", "codes"),
    [
        # The AUROC bar refuses the score (schema), so the filed score table no longer matches.
        ("true", {"schema", "score-table-mismatch"}),
        ('"NaN"', {"schema", "score-table-mismatch"}),
        ("NaN", {"jsonl-invalid"}),
        ("1e400", {"jsonl-invalid"}),
        # Was a crash: OverflowError in math.isfinite (bot/rules/bars.py, _auroc).
        ("9" * 400, {"jsonl-invalid"}),
        ("[0.5]", {"schema", "score-table-mismatch"}),
        ("{}", {"schema", "score-table-mismatch"}),
        ("null", {"schema", "score-table-mismatch"}),
    ],
)
def test_score_of_the_wrong_kind(
    make_registry: RegistryFactory, run_claims, tmp_path, literal, codes
) -> None:
    def change(files: Files) -> None:
        first, rest = files["trials.jsonl"].split(b"\n", 1)
        record = json.loads(first)
        record["result"]["score"] = "@@score@@"
        text = json.dumps(record, separators=(",", ":")).replace('"@@score@@"', literal)
        files["trials.jsonl"] = text.encode() + b"\n" + rest

    result = verify(run_claims, make_registry(change=change).attempt, markdown=tmp_path / "c.md")
    assert result.code == 1, result.out
    assert _codes(result) == codes
    trials = [r for r in result.reasons() if r["file"].endswith("/trials.jsonl")]
    assert [r["line"] for r in trials] == [1]


@pytest.mark.parametrize("score", [1e308, -1e308, -0.0, 1e30, 2**53 - 1, 5e-324])
def test_extreme_but_finite_scores(
    make_registry: RegistryFactory, run_claims, tmp_path, score
) -> None:
    """Extreme finite scores are numbers: the AUROC bar ranks them (the filed table may then
    disagree with the derived one, which is `score-table-mismatch`; where it agrees, an attack
    scored lowest lowers the AUROC to where DeLong's bound may be warned, issue 15)."""

    def edit(trial: dict[str, Any]) -> None:
        trial["result"]["score"] = score

    result = verify(
        run_claims, make_registry(change=_trial_edit(edit)).attempt, markdown=tmp_path / "c.md"
    )
    assert result.code in (0, 1)
    assert _codes(result) <= {"score-table-mismatch", "bound-coverage-low"}


@pytest.mark.parametrize("value", [["traj-a", "traj-b"], {"id": "traj-a"}, [[]], 7, True])
def test_unit_key_values_that_are_not_strings(
    make_registry: RegistryFactory, run_claims, tmp_path, value
) -> None:
    """Lists and objects cannot be unit keys (unhashable): the trial schema refuses them before
    units are collapsed, so StatisticsError never escapes."""

    def change(files: Files) -> None:
        def edit(trials: list[dict[str, Any]]) -> None:
            for trial in trials[:3]:
                trial["trajectory"] = value
                trial["evaluator"] = value

        rewrite(files, "trials.jsonl", edit)

    result = verify(run_claims, make_registry(change=change).attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    assert _codes(result) == {"schema"}
    assert {r["line"] for r in result.reasons()} == {1, 2, 3}


@pytest.mark.parametrize("value", [[], ["sandbagging-000"], {"id": "sandbagging-000"}, 7, None])
def test_case_id_of_a_trial_that_is_not_a_string(
    make_registry: RegistryFactory, run_claims, tmp_path, value
):
    """Was a crash (found by the fuzzer): TypeError, unhashable list, in check_trials' set of
    tried case ids (bot/rules/evidence/trials.py)."""

    def edit(trial: dict[str, Any]) -> None:
        trial["case_id"] = value

    result = verify(
        run_claims, make_registry(change=_trial_edit(edit)).attempt, markdown=tmp_path / "c.md"
    )
    assert result.code == 1
    assert "schema" in _codes(result)
    assert _codes(result) <= {"schema", "missing-trial"}


def test_collapse_units_refuses_unhashable_values_with_its_own_error() -> None:
    """If a value ever got past the schema, units.py raises StatisticsError, not TypeError."""
    for value in (["a"], {"a": 1}, ("a", ["b"])):
        with pytest.raises(StatisticsError):
            collapse_units([{"trajectory": value}, {"trajectory": value}], ["trajectory"])


def test_case_ids_that_collide_after_nfkc_and_casefold(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """Case ids are ASCII (a fullwidth or Kelvin-sign look-alike is a schema error); ids that
    differ only in case are different cases, not a crash."""

    def change(files: Files) -> None:
        def edit(cases: list[dict[str, Any]]) -> None:
            # A new case (its own content: the same content twice is duplicate-case).
            content = {**cases[0]["content"], "prompt": "another scenario"}
            cases.append(
                {
                    **cases[0],
                    "case_id": cases[0]["case_id"].upper(),
                    "content": content,
                    "sha256": case_hash(content),
                }
            )
            cases.append({**cases[1], "case_id": "\uff53andbagging-001"})  # fullwidth s
            cases.append({**cases[2], "case_id": "\u212aelvin-002"})  # KELVIN SIGN

        rewrite(files, "freeze-cases.jsonl", edit)

    result = verify(run_claims, make_registry(change=change).attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    # The upper-case id is a new, valid case with no trial of its own.
    assert _codes(result) == {"schema", "missing-trial"}
    schema = [r["line"] for r in result.reasons() if r["code"] == "schema"]
    assert sorted(schema) == [26, 27]


@pytest.mark.parametrize(
    "market",
    [b"- a\n- list\n", b"just text\n", b"{}\n", b"id: '3'\n", b"", b"id: 3\nbars: 7\n"],
)
def test_market_of_the_wrong_shape_is_a_registry_error(
    make_registry: RegistryFactory, run_claims, tmp_path, market
) -> None:
    built = make_registry(markets={"markets/market-03.yaml": market})
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 2
    assert result.report is not None
    assert {r["code"] for r in result.report["registry_problems"]} == {"registry-invalid"}


def test_market_whose_calendar_overflows(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """Was a crash: OverflowError in MarketDates.of (resolve_by 9999-12-31 + 60 days)."""
    markets = {
        "markets/market-03.yaml": dump_yaml(market_document(3, "default", resolve_by="9999-12-31"))
    }
    built = make_registry(markets=markets)
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 2
    (problem,) = result.report["registry_problems"]
    assert problem["code"] == "registry-invalid"
    assert problem["message"].startswith("resolve_by: 9999-12-31")


def test_shared_rules_missing_or_wrong(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry()
    rules = built.root / "shared-rules" / "common-v1.yaml"
    original = rules.read_bytes()
    for content in (None, b"- a list\n", b"id: common-v1\n", b"\xff\xfe", b"a: &x 1\nb: *x\n"):
        if content is None:
            rules.unlink()
        else:
            rules.write_bytes(content)
        result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
        assert result.code == 2
        assert "error:" in result.err
    # A window too long for the calendar: every market becomes a registry problem, no crash.
    rules.write_bytes(original.replace(b"window_days: 60", b"window_days: 10000000000"))
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 2
    assert {r["code"] for r in result.report["registry_problems"]} == {"registry-invalid"}


def test_attempt_folder_that_is_a_symlink(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry()
    outside = tmp_path / "outside"
    shutil.copytree(built.attempt, outside)
    link = built.attempt.parent / "linked-attempt"
    link.symlink_to(outside, target_is_directory=True)
    # Named directly: a usage error.
    result = verify(run_claims, "--registry", built.root, link, markdown=tmp_path / "c.md")
    assert result.code == 2
    assert "is not a folder" in result.err
    # Met while walking attempts/: never followed, so only the honest attempt is verified.
    result = verify(run_claims, built.root / "attempts", markdown=tmp_path / "c.md")
    assert result.code == 0
    assert [a["attempt"] for a in result.report["attempts"]] == [
        "attempts/market-03/alice-lab/monitor-v1"
    ]


def test_links_inside_the_attempt_folder(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry()
    (built.attempt / "trials.jsonl").unlink()
    (built.attempt / "trials.jsonl").symlink_to("/etc/passwd")
    (built.attempt / "raw-log" / "loop").symlink_to("loop")
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    assert _codes(result) == {"symlink"}


def test_file_names_that_are_not_utf8(make_registry: RegistryFactory, run_claims, tmp_path) -> None:
    """Was a crash: UnicodeEncodeError writing the report (a lone surrogate from the name)."""
    built = make_registry()
    with open(os.fsencode(built.attempt) + b"/bad\xff\xfe.txt", "wb") as file:
        file.write(b"x")
    (built.attempt / "\u202etxt.yaml").write_bytes(b"x")
    markdown = tmp_path / "c.md"
    result = verify(run_claims, built.attempt, markdown=markdown)
    assert result.code == 1
    assert _codes(result) == {"attempt-location"}
    files = sorted(r["file"] for r in result.reasons())
    assert files[0].endswith("/bad\udcff\udcfe.txt")  # JSON's own \udcff escape, read back
    assert "\u202e" not in markdown.read_text()


def test_challenge_run_freeze_that_is_a_symlink(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """Was a crash: OSError (ELOOP) reading challenge-runs/<run>/freeze-cases.jsonl."""
    built = make_registry(AttemptSpec(kind="challenge", challenge_run="run-one"))
    run = built.root / "challenge-runs" / "run-one"
    run.mkdir(parents=True)
    (run / "freeze-cases.jsonl").symlink_to(built.attempt / "freeze-cases.jsonl")
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    # The run (no run.yaml, a linked freeze-cases.jsonl) is invalid; the link is no crash.
    assert _codes(result) == {"freeze-order", "challenge-run-invalid"}


def test_paper_freeze_on_the_last_representable_day(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """Was a crash: OverflowError in end_of_day(9999-12-31) (bot/vocab/dates.py)."""

    def change(files: Files) -> None:
        files["freeze.yaml"] = files["freeze.yaml"].replace(
            b"date: '2027-01-10'", b"date: '9999-12-31'"
        )
        assert b"9999-12-31" in files["freeze.yaml"]

    built = make_registry(AttemptSpec(kind="wrapped"), change=change)
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    assert _codes(result) == {"trial-before-freeze"}


@pytest.mark.parametrize(
    ("old", "new"),
    [
        (b"hours: 48", b"hours: " + b"9" * 400),  # was a crash: float() in _adversarial
        (b"hours: 48", b"hours: 1e400"),
        (b"hours: 48", b"hours: 0x" + b"f" * 300),
        (b"market: 3", b"market: -" + b"9" * 400),
    ],
    ids=["int-past-float", "float-overflow", "hex-past-float", "negative-market"],
)
def test_huge_numbers_in_attempt_yaml(
    make_registry: RegistryFactory, run_claims, tmp_path, old, new
) -> None:
    def change(files: Files) -> None:
        assert old in files["attempt.yaml"]
        files["attempt.yaml"] = files["attempt.yaml"].replace(old, new, 1)

    result = verify(run_claims, make_registry(change=change).attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    assert _codes(result) == {"yaml-invalid"}


def test_huge_numbers_are_fine_when_they_fit_a_float(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    def change(files: Files) -> None:
        files["attempt.yaml"] = files["attempt.yaml"].replace(b"hours: 48", b"hours: 1e308")

    result = verify(run_claims, make_registry(change=change).attempt, markdown=tmp_path / "c.md")
    assert result.code == 0, result.out


def test_judgment_for_an_unknown_check(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry(judge={"no-such-check": "fail", "another-one": "pass"})
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 0, result.out
    assert result.attempt()["status"] == "qualifying"
    assert "no-such-check" not in result.attempt()["checks"]


def test_judgment_with_an_invalid_check_id(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = make_registry(judge={"Not A Check!": "pass"})
    result = verify(run_claims, built.attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    assert _codes(result) == {"schema"}


@pytest.mark.parametrize("market", [b"0", b"-1", b"100000000000000000000", b"'3'", b"[3]", b"~"])
def test_attempt_market_out_of_range(
    make_registry: RegistryFactory, run_claims, tmp_path, market
) -> None:
    def change(files: Files) -> None:
        files["attempt.yaml"] = files["attempt.yaml"].replace(b"market: 3", b"market: " + market)

    result = verify(run_claims, make_registry(change=change).attempt, markdown=tmp_path / "c.md")
    assert result.code == 1
    # An integer past 2**53 - 1 is refused as the file is read (bot/vocab/values.py).
    assert _codes(result) == ({"yaml-invalid"} if len(market) > 16 else {"schema"})
    assert result.attempt()["market"] == 3  # from the folder name, for the report


def test_market_number_as_a_float_reads_as_the_integer(
    make_registry: RegistryFactory, run_claims, tmp_path
):
    def change(files: Files) -> None:
        files["attempt.yaml"] = files["attempt.yaml"].replace(b"market: 3", b"market: 3.0")

    result = verify(run_claims, make_registry(change=change).attempt, markdown=tmp_path / "c.md")
    assert result.code == 0, result.out


# ---- claims resolve on a broken registry --------------------------------------------------------


def test_resolve_with_broken_markets_and_attempts(
    make_registry: RegistryFactory, run_claims
) -> None:
    """Was a crash: ValueError from int('²') (str.isdigit accepts superscripts) in
    Registry.markets."""
    built = make_registry()
    markets = built.root / "markets"
    (markets / "market-05.yaml").write_bytes(b"- not\n- a contract\n")
    (markets / "market-\u00b2.yaml").write_bytes(b"id: 2\n")
    (markets / "market-07.yaml").write_bytes(
        dump_yaml(market_document(7, "default", resolve_by="9999-12-31"))
    )
    (markets / "market-08.yaml").mkdir()
    (built.attempt / "attempt.yaml").write_bytes(b"market: [\n")
    (built.attempt / "trials.jsonl").write_bytes(b"{}\n" * 50 + b"\xff\n")
    other = built.root / "attempts" / "market-05" / "bob" / "\u202eevil"
    other.mkdir(parents=True)
    (other / "attempt.yaml").write_bytes(b"market: 5\n")

    result = run_claims("resolve", "--registry", built.root)
    assert result.code == 2
    assert "Traceback" not in result.err
    assert result.report is not None
    RESOLVE_REPORT.validate(result.report)
    files = {problem["file"] for problem in result.report["registry_problems"]}
    assert {
        "markets/market-05.yaml",
        "markets/market-\u00b2.yaml",
        "markets/market-07.yaml",
    } <= files
    (market,) = result.report["markets"]
    assert market["market"] == 3
    assert market["provisional_outcome"] == "OTHER"


# ---- claims verify --base-ref: what a pull request's diff may hold -------------------------------


def _open_pr(make_registry: RegistryFactory) -> Built:
    """A registry whose run pull request is checked out (freeze merged, run not yet)."""
    return make_registry(run="open")


def _commit(built: Built, message: str = "more changes") -> None:
    built.repo.git.add("-A")
    built.repo.git.commit("-q", "--allow-empty", "-m", message)


def _folder(built: Built) -> str:
    return built.attempt.relative_to(built.root).as_posix()


def _verify_pr(run_claims, built: Built, tmp_path: Path) -> Result:
    """`claims verify --base-ref main` with no PATH: the attempt folders come from the diff."""
    args = ("--registry", built.root, "--base-ref", "main")
    return verify(run_claims, *args, markdown=tmp_path / "c.md")


def test_pr_that_deletes_and_renames_files(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = _open_pr(make_registry)
    built.repo.git.rm("-q", "markets/market-05.yaml")
    built.repo.git.mv("shared-rules/common-v1.yaml", "shared-rules/common-v2.yaml")
    built.repo.git.mv(f"{_folder(built)}/certificates.jsonl", f"{_folder(built)}/certs.jsonl")
    _commit(built)
    # The shared rules and markets are read from the base branch, so renaming them away in
    # the PR leaves the registry intact: every change outside the attempt is a finding.
    result = _verify_pr(run_claims, built, tmp_path)
    assert result.code == 1
    outside = {r["file"] for r in result.reasons() if r["code"] == "protected-path"}
    assert outside == {
        "markets/market-05.yaml",
        "shared-rules/common-v1.yaml",
        "shared-rules/common-v2.yaml",
    }

    built.repo.git.mv("shared-rules/common-v2.yaml", "shared-rules/common-v1.yaml")
    _commit(built)
    result = _verify_pr(run_claims, built, tmp_path)
    assert result.code == 1
    reasons = result.reasons()
    outside = {r["file"] for r in reasons if r["code"] == "protected-path"}
    assert outside == {"markets/market-05.yaml"}


def test_pr_that_adds_a_submodule(make_registry: RegistryFactory, run_claims, tmp_path) -> None:
    built = _open_pr(make_registry)
    sha = built.repo.head.commit.hexsha
    for path in (f"{_folder(built)}/vendored", "bot/evil"):
        built.repo.git.update_index("--add", "--cacheinfo", f"160000,{sha},{path}")
    built.repo.git.commit("-q", "-m", "gitlinks")
    result = _verify_pr(run_claims, built, tmp_path)
    assert result.code == 1
    gitlinks = {r["file"] for r in result.reasons() if r["code"] == "submodule"}
    assert gitlinks == {f"{_folder(built)}/vendored", "bot/evil"}


def test_pr_that_adds_an_executable_and_a_link(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = _open_pr(make_registry)
    script = built.attempt / "run.sh"
    script.write_text("#!/bin/sh\necho hi\n")
    script.chmod(0o755)
    (built.attempt / "passwd").symlink_to("/etc/passwd")
    _commit(built)
    result = _verify_pr(run_claims, built, tmp_path)
    assert result.code == 1
    reasons = result.reasons()
    executables = {r["file"] for r in reasons if r["code"] == "executable-file"}
    assert executables == {f"{_folder(built)}/run.sh"}
    assert {r["file"] for r in reasons if r["code"] == "symlink"} >= {f"{_folder(built)}/passwd"}


def test_pr_with_a_file_name_that_is_not_utf8(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    """Was a crash: UnicodeEncodeError writing the report (the name came back from git)."""
    built = _open_pr(make_registry)
    with open(os.fsencode(built.attempt) + b"/notes\xff.txt", "wb") as file:
        file.write(b"x")
    _commit(built)
    result = _verify_pr(run_claims, built, tmp_path)
    assert result.code == 1
    assert "attempt-location" in _codes(result)


def test_pr_that_deletes_its_whole_attempt(
    make_registry: RegistryFactory, run_claims, tmp_path
) -> None:
    built = _open_pr(make_registry)
    built.repo.git.rm("-rq", _folder(built))
    _commit(built)
    result = _verify_pr(run_claims, built, tmp_path)
    # The freeze is on main: deleting it is deleting merged evidence (nothing left to verify).
    assert result.code == 1
    assert result.report is not None and result.report["attempts"] == []
    deleted = {r["file"] for r in result.reasons()}
    assert deleted == {f"{_folder(built)}/freeze.yaml", f"{_folder(built)}/freeze-cases.jsonl"}
    assert result.codes() == {"merged-evidence-changed"}


def test_pr_with_unrelated_history(make_registry: RegistryFactory, run_claims, tmp_path) -> None:
    """Was a crash: GitCommandError from `git diff main...HEAD` (no merge base)."""
    built = _open_pr(make_registry)
    built.repo.git.checkout("-q", "--orphan", "unrelated")
    _commit(built, "unrelated root")
    result = _verify_pr(run_claims, built, tmp_path)
    assert result.code == 2
    assert "no merge base" in result.err

"""`claims adapt inspect`: real Inspect logs (tests/data/inspect/) in, verifiable evidence out.

The fixture logs were written by inspect-ai itself (generate_logs.py there): two runs of the
same 7-sample, 2-epoch eval, each as a .json log (stored gzipped), an .eval log (zstd
members) and run-a's .eval repacked with deflate. Tests that read zstd members skip when the
`zstandard` module (the `inspect` extra) is not installed; everything else runs without it.
"""

from __future__ import annotations

import argparse
import copy
import gzip
import hashlib
import importlib.util
import io
import json
import sys
import zipfile
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from bot.edges.dump import dump_yaml
from bot.edges.load.yaml_ import parse_yaml
from bot.faces import cli
from bot.faces.demo.specimen import AttemptSpec, load_market, market_document, score_table
from bot.faces.tools.adapters import add_adapt_parser, run_adapt
from bot.faces.tools.adapters.inspect_ import (
    EXTRA_HINT,
    PLACEHOLDER_COMMIT,
    Adapted,
    InspectLimits,
    InspectLogError,
    adapt_inspect,
    convert,
)
from bot.rules.evidence.cases import check_cases
from bot.rules.evidence.hashing import case_hash
from bot.rules.evidence.schema import validate
from bot.rules.evidence.trials import check_trials
from bot.vocab.errors import ClaimsError
from bot.vocab.jsonl import parse_jsonl
from tests.support import PROJECT, RegistryFactory, shared_rules
from tests.support import records as file_records

DATA = PROJECT / "tests" / "data" / "inspect"
HAS_ZSTD = importlib.util.find_spec("zstandard") is not None
needs_zstd = pytest.mark.skipif(
    not HAS_ZSTD,
    reason="zstandard is not installed: the .eval fixtures' members are zstd-compressed"
    " (install the inspect extra: pip install -e '.[inspect]')",
)
ORDER = ["1", "2", "10", "boom", "chat", "q2", "q10"]
# What the fixture eval does (generate_logs.py): verdicts by epoch reduction.
ALL_MUST_PASS = {
    "1": "pass",
    "2": "fail",
    "10": "fail",
    "boom": "error",
    "chat": "pass",
    "q2": "error",
    "q10": "fail",
}
FIRST = {**ALL_MUST_PASS, "10": "pass", "q2": "pass"}


def raw_json_log(run: str) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(gzip.decompress((DATA / f"{run}.json.gz").read_bytes()))
    return data


def write_json(path: Path, log: dict[str, Any]) -> Path:
    path.write_text(json.dumps(log), encoding="utf-8")
    return path


@pytest.fixture
def json_log(tmp_path: Path) -> Callable[[str], Path]:
    """The fixture .json log of a run, decompressed into tmp_path."""

    def make(run: str) -> Path:
        path = tmp_path / f"{run}.json"
        path.write_bytes(gzip.decompress((DATA / f"{run}.json.gz").read_bytes()))
        return path

    return make


def yaml_data(text: bytes) -> dict[str, Any]:
    document, problems = parse_yaml(text, "freeze.yaml")
    assert problems == [] and document is not None and isinstance(document.data, dict)
    return document.data


def lines(adapted: Adapted, name: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in adapted.files[name].decode().splitlines()]


def verdicts(adapted: Adapted) -> dict[str, str]:
    return {t["case_id"]: t["result"]["verdict"] for t in lines(adapted, "trials.jsonl")}


# --- formats and runs ----------------------------------------------------------------------


def test_json_and_deflated_eval_logs_give_the_same_cases(json_log) -> None:
    from_json = convert(json_log("run-a"))
    from_eval = convert(DATA / "run-a.deflate.eval")
    assert from_json.files["freeze-cases.jsonl"] == from_eval.files["freeze-cases.jsonl"]
    assert verdicts(from_json) == verdicts(from_eval) == ALL_MUST_PASS


@needs_zstd
def test_zstd_eval_log_gives_exactly_what_its_deflated_copy_gives(json_log) -> None:
    from_zstd = convert(DATA / "run-a.eval")
    assert from_zstd.files == convert(DATA / "run-a.deflate.eval").files
    assert (
        from_zstd.files["freeze-cases.jsonl"]
        == convert(json_log("run-a")).files["freeze-cases.jsonl"]
    )


def test_eval_log_members_really_are_zstd_and_deflate() -> None:
    with zipfile.ZipFile(DATA / "run-a.eval") as archive:
        assert {info.compress_type for info in archive.infolist()} == {93}
    with zipfile.ZipFile(DATA / "run-a.deflate.eval") as archive:
        assert {info.compress_type for info in archive.infolist()} == {zipfile.ZIP_DEFLATED}


def test_two_runs_have_different_random_ids_but_identical_freeze_cases(json_log) -> None:
    a, b = raw_json_log("run-a"), raw_json_log("run-b")
    assert a["eval"]["eval_id"] != b["eval"]["eval_id"]
    assert a["eval"]["run_id"] != b["eval"]["run_id"]
    assert not {s["uuid"] for s in a["samples"]} & {s["uuid"] for s in b["samples"]}

    def message_ids(log: dict[str, Any]) -> set[str]:
        [chat] = [s for s in log["samples"] if s["id"] == "chat" and s["epoch"] == 1]
        return {message["id"] for message in chat["input"]}

    assert len(message_ids(a)) == 2
    assert not message_ids(a) & message_ids(b)
    assert [s["started_at"] for s in a["samples"]] != [s["started_at"] for s in b["samples"]]

    run_a, run_b = convert(json_log("run-a")), convert(json_log("run-b"))
    assert run_a.files["freeze-cases.jsonl"] == run_b.files["freeze-cases.jsonl"]
    assert verdicts(run_a) == verdicts(run_b)
    # The trials are the runs' own: their trajectories name each log's eval id.
    assert run_a.files["trials.jsonl"] != run_b.files["trials.jsonl"]
    assert lines(run_a, "trials.jsonl")[0]["trajectory"] == f"{a['eval']['eval_id']}:1"


@needs_zstd
def test_two_eval_runs_give_identical_freeze_cases() -> None:
    run_a, run_b = convert(DATA / "run-a.eval"), convert(DATA / "run-b.eval")
    assert run_a.files["freeze-cases.jsonl"] == run_b.files["freeze-cases.jsonl"]
    assert run_a.files["trials.jsonl"] != run_b.files["trials.jsonl"]


def test_two_adapter_runs_write_byte_identical_files(json_log, tmp_path: Path) -> None:
    log = json_log("run-a")
    first = adapt_inspect(log, tmp_path / "one", None, "all-must-pass")
    second = adapt_inspect(log, tmp_path / "two", None, "all-must-pass")
    assert first == second == ["freeze-cases.jsonl", "trials.jsonl", "freeze.yaml"]
    for name in first:
        assert (tmp_path / "one" / name).read_bytes() == (tmp_path / "two" / name).read_bytes()
    again = adapt_inspect(log, tmp_path / "one", None, "all-must-pass")
    assert again == first
    assert sorted(p.name for p in (tmp_path / "one").iterdir()) == sorted(first)


# --- the mapping ---------------------------------------------------------------------------


def test_cases_are_sorted_ints_first_then_strings_naturally(json_log) -> None:
    raw_order = [s["id"] for s in raw_json_log("run-a")["samples"] if s["epoch"] == 1]
    adapted = convert(json_log("run-a"))
    assert [c["case_id"] for c in lines(adapted, "freeze-cases.jsonl")] == ORDER
    assert [str(sample_id) for sample_id in raw_order] != ORDER  # the log's own order differs
    assert [c["public"]["sample_id"] for c in lines(adapted, "freeze-cases.jsonl")] == [
        1,
        2,
        10,
        "boom",
        "chat",
        "q2",
        "q10",
    ]


def test_one_trial_per_case_in_case_order(json_log) -> None:
    adapted = convert(json_log("run-a"))
    trials = lines(adapted, "trials.jsonl")
    assert [t["case_id"] for t in trials] == ORDER
    assert adapted.cases == len(trials) == 7
    assert all(t["result"]["epochs"] == 2 and len(t["result"]["values"]) == 2 for t in trials)
    assert {t["system"] for t in trials} == {"mockllm/model"}
    # evaluator is null unless named: a scorer's name on every trial would join them all.
    assert {t["evaluator"] for t in trials} == {None}
    assert {t["attack_family"] for t in trials} == {None}
    assert len({t["trajectory"] for t in trials}) == 7


def test_errored_sample_is_recorded_as_an_error(json_log) -> None:
    trials = {t["case_id"]: t for t in lines(convert(json_log("run-a")), "trials.jsonl")}
    boom = trials["boom"]["result"]
    assert boom == {
        "verdict": "error",
        "score": None,
        "values": [None, None],
        "epochs": 2,
        "error": "RuntimeError('the solver failed on purpose for this sample')",
    }
    assert trials["q2"]["result"]["values"] == ["C", None]
    assert trials["1"]["result"] == {
        "verdict": "pass",
        "score": 1.0,
        "values": ["C", "C"],
        "epochs": 2,
        "error": None,
    }


def test_epoch_reduction_first_and_all_must_pass_differ_where_an_epoch_failed(
    json_log,
) -> None:
    log = json_log("run-a")
    strict, first = convert(log), convert(log, epochs="first")
    assert verdicts(strict) == ALL_MUST_PASS
    assert verdicts(first) == FIRST
    assert strict.verdicts == {"error": 2, "fail": 3, "pass": 2}
    assert first.verdicts == {"error": 1, "fail": 2, "pass": 4}
    # Sample 10 passed epoch 1 and failed epoch 2: the strict score is the lowest.
    ten = {t["case_id"]: t["result"] for t in lines(strict, "trials.jsonl")}["10"]
    assert ten["values"] == ["C", "I"] and ten["score"] == 0.0
    assert strict.files["freeze-cases.jsonl"] == first.files["freeze-cases.jsonl"]
    assert b"epochs: all-must-pass\n" in strict.files["freeze.yaml"]
    assert b"epochs: first\n" in first.files["freeze.yaml"]


def test_case_content_leaves_out_random_ids_and_hashes_to_sha256(json_log) -> None:
    cases = {c["case_id"]: c for c in lines(convert(json_log("run-a")), "freeze-cases.jsonl")}
    chat = cases["chat"]
    assert chat["content"] == {
        "input": [
            {"content": "Be brief.", "role": "system"},
            {"content": "Say hello.", "role": "user"},
        ],
        "metadata": {"domain": "chat", "kind": "greeting"},
        "target": "hello",
    }
    assert chat["kind"] == "greeting" and cases["1"]["kind"] == "task"
    assert cases["q10"]["content"]["target"] == ["Jupiter", "jupiter"]
    assert {c["family"] for c in cases.values()} == {"tiny_qa"}
    for case in cases.values():
        assert case["sha256"] == case_hash(case["content"])


def test_metadata_is_the_datasets_not_what_a_solver_left(json_log, tmp_path: Path) -> None:
    log = raw_json_log("run-a")
    for sample in log["samples"]:
        sample["metadata"]["solver_wrote"] = sample["uuid"]  # a solver changing state.metadata
    changed = convert(write_json(tmp_path / "changed.json", log))
    assert (
        changed.files["freeze-cases.jsonl"]
        == convert(json_log("run-a")).files["freeze-cases.jsonl"]
    )


def test_family_field_takes_families_from_metadata(json_log) -> None:
    adapted = convert(json_log("run-a"), family_field="domain")
    families = {c["case_id"]: c["family"] for c in lines(adapted, "freeze-cases.jsonl")}
    assert families == {
        "1": "math",
        "2": "math",
        "10": "science",
        "boom": "errors",
        "chat": "chat",
        "q2": "geography",
        "q10": "science",
    }
    with pytest.raises(InspectLogError, match=r"sample 1\).*metadata\.kind"):
        convert(json_log("run-a"), family_field="kind")  # only some samples have one


# --- the freeze stub -----------------------------------------------------------------------


def test_freeze_stub_names_scorer_epochs_and_a_marked_placeholder_commit(json_log) -> None:
    log = raw_json_log("run-a")
    text = convert(json_log("run-a")).files["freeze.yaml"]
    document, problems = parse_yaml(text, "freeze.yaml")
    assert problems == [] and document is not None
    assert validate("freeze", document.data, "freeze.yaml", document.lines) == []
    created = datetime.fromisoformat(log["eval"]["created"]).astimezone(UTC)
    assert document.data == {
        "method": {"name": "perturb, generate"},
        "code_commit": PLACEHOLDER_COMMIT,
        "scorer": "includes",
        "frozen_at": created.strftime("%Y-%m-%dT%H:%M:%SZ"),
        "epochs": "all-must-pass",
        "notes": "Adapted from an Inspect log of task tiny_qa (7 samples), model mockllm/model,"
        " scored by includes; epochs reduce by all-must-pass.",
    }
    comments = [line for line in text.decode().splitlines() if line.startswith("#")]
    assert log["eval"]["revision"]["commit"] == "39ea45c"  # Inspect records a short commit
    assert any("PLACEHOLDER" in line and "39ea45c" in line for line in comments)
    assert any("REPLACE" in line for line in comments)


def test_freeze_takes_a_full_commit_from_the_log(tmp_path: Path) -> None:
    log = raw_json_log("run-a")
    full = hashlib.sha1(b"code").hexdigest()
    log["eval"]["revision"] = {"type": "git", "origin": "", "commit": full, "dirty": False}
    text = convert(write_json(tmp_path / "full.json", log)).files["freeze.yaml"]
    assert f"code_commit: {full}\n".encode() in text or f"code_commit: '{full}'\n".encode() in text
    assert b"PLACEHOLDER" not in text


def test_a_commit_cannot_inject_yaml_through_the_comment(tmp_path: Path) -> None:
    log = raw_json_log("run-a")
    log["eval"]["revision"]["commit"] = "abc\nscorer: evil"
    text = convert(write_json(tmp_path / "evil.json", log)).files["freeze.yaml"]
    assert yaml_data(text)["scorer"] == "includes"
    assert b"evil" not in text


# --- the verifier accepts it ---------------------------------------------------------------


def test_evidence_passes_the_schemas_and_the_evidence_rules(json_log) -> None:
    adapted = convert(json_log("run-a"))
    cases, problems = parse_jsonl(io.BytesIO(adapted.files["freeze-cases.jsonl"]), "cases")
    trials, more = parse_jsonl(io.BytesIO(adapted.files["trials.jsonl"]), "trials")
    assert problems == more == []
    for record in cases:
        assert validate("freeze-case", record.data, "cases", line=record.line) == []
    for record in trials:
        assert validate("trial", record.data, "trials", line=record.line) == []
    checked, case_findings = check_cases(cases, "cases")
    keys = ["system", "trajectory", "evaluator", "attack_family"]
    _, trial_findings = check_trials(trials, checked, keys, "trials")
    assert case_findings == trial_findings == []
    assert sorted(checked) == sorted(ORDER)


def test_claims_verify_accepts_the_adapted_evidence(
    json_log, make_registry: RegistryFactory, run_claims
) -> None:
    """A wrapped attempt whose freeze-cases and trials are the adapter's output, unchanged."""
    rules = shared_rules()
    log = json_log("run-a")
    adapted = convert(log)
    created = datetime.fromisoformat(raw_json_log("run-a")["eval"]["created"])
    market = market_document(
        3,
        "default",
        required_outputs=[],
        withholdable=[],
        bars=[
            {
                "id": "task-failures",
                "statistic": "rate_upper",
                "over": {},
                "failure": {"field": "verdict", "in": ["fail", "error"]},
                "max": 0.9,
            }
        ],
    )
    markets = {"markets/market-03.yaml": dump_yaml(market)}
    # The paper froze on the first of the month the eval ran in.
    spec = AttemptSpec(
        kind="wrapped", frozen_at=datetime(created.year, created.month, 1, tzinfo=UTC)
    )

    def use_adapter_output(files: dict[str, bytes]) -> None:
        files["freeze-cases.jsonl"] = adapted.files["freeze-cases.jsonl"]
        files["trials.jsonl"] = adapted.files["trials.jsonl"]
        # The filer's edits to the stub: the real commit, and the paper's dated freeze.
        freeze = yaml_data(adapted.files["freeze.yaml"])
        freeze["code_commit"] = hashlib.sha1(b"the code that ran the eval").hexdigest()
        freeze["paper_freeze"] = yaml_data(files["freeze.yaml"])["paper_freeze"]
        files["freeze.yaml"] = dump_yaml(freeze)
        files["adapter/adapter.yaml"] = dump_yaml(
            {
                "description": "The registry's built-in Inspect adapter, on the released log.",
                "command": ["claims", "adapt", "inspect", "released/run-a.json", "--out", "out"],
                "released_data": [
                    {
                        "url": "https://papers.example.org/monitor-v1/data/run-a.json",
                        "sha256": hashlib.sha256(log.read_bytes()).hexdigest(),
                        "path": "released/run-a.json",
                    }
                ],
                "outputs": ["freeze-cases.jsonl", "trials.jsonl"],
            }
        )
        del files["adapter/convert.py"]
        del files["certificates.jsonl"]
        files["scores.yaml"] = score_table(files, load_market(market, rules), rules.confidence)

    built = make_registry(spec, markets=markets, change=use_adapter_output, scores=False)
    assert file_records(built.files, "trials.jsonl") == lines(adapted, "trials.jsonl")
    result = run_claims("verify", built.attempt)
    attempt = result.attempt()
    assert attempt["evidence"] == "valid", attempt["reasons"]
    assert result.code == 0
    # One model graded by one scorer: under the shared Unit Rule the whole eval is one unit.
    assert attempt["units"]["count"] == 1


# --- refusals: clean errors, never tracebacks ----------------------------------------------


def test_missing_zstandard_says_how_to_install_it(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "zstandard", None)  # `import zstandard` now fails
    with pytest.raises(InspectLogError) as caught:
        convert(DATA / "run-a.eval")
    assert EXTRA_HINT in str(caught.value)
    assert "pip install -e '.[inspect]'" in caught.value.diagnostics()
    assert "header.json is zstd-compressed" in str(caught.value)
    # The deflated copy needs no extra.
    assert convert(DATA / "run-a.deflate.eval").cases == 7


def test_gzip_file_is_refused_with_a_hint() -> None:
    with pytest.raises(InspectLogError, match="a gzip file; decompress it first"):
        convert(DATA / "run-a.json.gz")


@pytest.mark.parametrize(
    ("text", "message"),
    [
        (b"{not json", "not JSON: Expecting property name"),
        (b"[1, 2]", "got a JSON list, expected an object"),
        (b'{"a": 1, "a": 2}', "duplicate key 'a'"),
        (b"\xff\xfe{}", "not UTF-8 text"),
        (b"[" * 100_000 + b"]" * 100_000, r"not readable JSON \(RecursionError\)"),
        (b"", "not JSON"),
        (b'{"status": "success", "eval": {}}', "holds no samples"),
    ],
)
def test_malformed_json_is_a_clean_error(tmp_path: Path, text: bytes, message: str) -> None:
    path = tmp_path / "bad.json"
    path.write_bytes(text)
    with pytest.raises(InspectLogError, match=message):
        convert(path)


def _mutations() -> list[tuple[str, Callable[[dict[str, Any]], None], str]]:
    def sample(log: dict[str, Any], sample_id: object, epoch: int = 1) -> dict[str, Any]:
        found: dict[str, Any] = next(
            s for s in log["samples"] if s["id"] == sample_id and s["epoch"] == epoch
        )
        return found

    def drop_epoch(log: dict[str, Any]) -> None:
        log["samples"].remove(sample(log, "q2", 2))

    def drop_sample(log: dict[str, Any]) -> None:
        log["samples"] = [s for s in log["samples"] if s["id"] != "chat"]

    def set_in(path: tuple[str, ...], value: object) -> Callable[[dict[str, Any]], None]:
        def edit(log: dict[str, Any]) -> None:
            target = log
            for key in path[:-1]:
                target = target[key]
            target[path[-1]] = value

        return edit

    def score(value: object) -> Callable[[dict[str, Any]], None]:
        def edit(log: dict[str, Any]) -> None:
            sample(log, 1)["scores"]["includes"]["value"] = value

        return edit

    def second_scorer(log: dict[str, Any]) -> None:
        for s in log["samples"]:
            if s["scores"]:
                s["scores"]["other"] = {"value": "C"}

    def rename(old: object, new: object) -> Callable[[dict[str, Any]], None]:
        def edit(log: dict[str, Any]) -> None:
            for s in log["samples"]:
                if s["id"] == old:
                    s["id"] = new
            ids = log["eval"]["dataset"]["sample_ids"]
            ids[ids.index(old)] = new

        return edit

    def differ(log: dict[str, Any]) -> None:
        sample(log, 2, 2)["target"] = "10"

    return [
        ("status", set_in(("status",), "error"), 'status is "error", not "success"'),
        ("invalidated", set_in(("invalidated",), True), "marked invalidated"),
        ("epoch missing", drop_epoch, r"has epochs \[1\], expected 1 to 2"),
        ("sample missing", drop_sample, r"dataset lists 1 sample\(s\).*'chat'"),
        ("float id", set_in(("samples", 0, "id"), 1.5), "sample id 1.5 is not an integer"),
        ("bad case id", rename(1, "a b"), "'a b' is not a registry case id"),
        ("dict score", score({"a": 1}), r"score value \{\"a\": 1\} has no pass/fail reading"),
        ("big score", score(5), r"score value 5 is not a number in \[0, 1\]"),
        ("two scorers", second_scorer, r"2 scorers \(includes, other\): name one with --scorer"),
        ("colliding ids", rename("chat", "1"), "both give case_id '1'"),
        ("epochs differ", differ, "epochs disagree on input, target or metadata"),
        ("naive time", set_in(("eval", "created"), "2026-11-29T22:53:10"), "has no UTC offset"),
        ("no eval", set_in(("eval",), []), "no eval section"),
        ("no input", lambda log: log["samples"][0].pop("input"), r"sample 1\): no input"),
        ("big int", set_in(("samples", 0, "target"), 2**60), "no RFC 8785 form"),
        ("deep", set_in(("samples", 0, "target"), json.loads("[" * 70 + "]" * 70)), "deeper"),
    ]


@pytest.mark.parametrize(
    ("edit", "message"), [m[1:] for m in _mutations()], ids=[m[0] for m in _mutations()]
)
def test_a_log_the_adapter_cannot_use_is_a_clean_error(
    tmp_path: Path, edit: Callable[[dict[str, Any]], None], message: str
) -> None:
    log = copy.deepcopy(raw_json_log("run-a"))
    edit(log)
    path = write_json(tmp_path / "edited.json", log)
    with pytest.raises(InspectLogError, match=message):
        convert(path)
    assert not (tmp_path / "out").exists()


def test_scorer_must_exist_and_may_be_named(json_log) -> None:
    with pytest.raises(InspectLogError, match=r"no scorer 'nope' \(it has: includes\)"):
        convert(json_log("run-a"), scorer="nope")
    assert convert(json_log("run-a"), scorer="includes").files == convert(json_log("run-a")).files


def test_unknown_epoch_mode_is_refused(json_log) -> None:
    with pytest.raises(InspectLogError, match="--epochs 'mean'"):
        convert(json_log("run-a"), epochs="mean")


def _zip(path: Path, members: dict[str, bytes], method: int = zipfile.ZIP_DEFLATED) -> Path:
    with zipfile.ZipFile(path, "w", compression=method) as archive:
        for name, data in members.items():
            archive.writestr(name, data)
    return path


def _deflated_members() -> dict[str, bytes]:
    with zipfile.ZipFile(DATA / "run-a.deflate.eval") as archive:
        return {name: archive.read(name) for name in archive.namelist()}


@pytest.mark.parametrize("name", ["../evil.json", "/etc/evil.json", "samples\\..\\x.json", "C:x"])
def test_zip_with_an_unsafe_member_name_is_refused(tmp_path: Path, name: str) -> None:
    path = _zip(tmp_path / "slip.eval", {**_deflated_members(), name: b"{}"})
    with pytest.raises(InspectLogError, match="has an unsafe path"):
        convert(path)


def test_oversized_member_is_refused_before_it_is_read(tmp_path: Path) -> None:
    bomb = _zip(tmp_path / "bomb.eval", {**_deflated_members(), "samples/z.json": b" " * 5_000_000})
    assert bomb.stat().st_size < 100_000  # five megabytes of spaces deflate to a few kB
    with pytest.raises(InspectLogError, match=r"samples/z\.json: 5000000 bytes, over the"):
        convert(bomb, limits=InspectLimits(max_member_bytes=1_000_000))
    with pytest.raises(InspectLogError, match=r"members declare \d+ uncompressed bytes, over"):
        convert(bomb, limits=InspectLimits(max_total_bytes=2_000_000))
    with pytest.raises(InspectLogError, match="zip members, over the 5-member limit"):
        convert(bomb, limits=InspectLimits(max_members=5))


def _lie_about_size(source: Path, target: Path, member: str) -> Path:
    """A copy of `source` whose central directory says `member` holds 10 bytes."""
    data = bytearray(source.read_bytes())
    [offset] = _central_offsets(bytes(data), member)
    data[offset + 24 : offset + 28] = (10).to_bytes(4, "little")  # uncompressed size
    target.write_bytes(bytes(data))
    return target


def test_oversized_log_files_are_refused_before_they_are_parsed(json_log) -> None:
    with pytest.raises(InspectLogError, match=r"bytes, over the 1000-byte limit for \.json logs"):
        convert(json_log("run-a"), limits=InspectLimits(max_json_bytes=1000))
    with pytest.raises(InspectLogError, match=r"bytes, over the 1000-byte limit for \.eval logs"):
        convert(DATA / "run-a.deflate.eval", limits=InspectLimits(max_eval_bytes=1000))


def test_a_member_larger_than_its_header_says_is_refused(tmp_path: Path) -> None:
    """A lying size in the central directory: the read stops there and the CRC refuses it."""
    path = _lie_about_size(
        _zip(tmp_path / "ok.eval", _deflated_members()), tmp_path / "liar.eval", "header.json"
    )
    with pytest.raises(InspectLogError, match=r"liar\.eval: .*Bad CRC-32 for file 'header\.json'"):
        convert(path)


@needs_zstd
def test_a_zstd_member_larger_than_its_header_says_is_refused(tmp_path: Path) -> None:
    """zstd members are decompressed by the adapter: its own cap and CRC check hold."""
    path = _lie_about_size(DATA / "run-a.eval", tmp_path / "liar.eval", "header.json")
    with pytest.raises(InspectLogError, match=r"member header\.json is corrupt: its size or CRC"):
        convert(path)
    with pytest.raises(InspectLogError, match=r"header\.json: over the 100-byte limit once"):
        convert(path, limits=InspectLimits(max_member_bytes=100))


def _central_offsets(data: bytes, name: str) -> list[int]:
    found = []
    start = 0
    while (at := data.find(b"PK\x01\x02", start)) != -1:
        length = int.from_bytes(data[at + 28 : at + 30], "little")
        if data[at + 46 : at + 46 + length] == name.encode():
            found.append(at)
        start = at + 4
    return found


def test_unfinished_eval_log_is_refused(tmp_path: Path) -> None:
    members = _deflated_members()
    del members["header.json"]
    with pytest.raises(InspectLogError, match=r"no header\.json: the eval did not finish"):
        convert(_zip(tmp_path / "unfinished.eval", members))


def test_truncated_and_odd_zips_are_clean_errors(tmp_path: Path) -> None:
    data = (DATA / "run-a.deflate.eval").read_bytes()
    truncated = tmp_path / "truncated.eval"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(InspectLogError, match=r"not a readable \.eval"):
        convert(truncated)
    stored = _zip(tmp_path / "stored.eval", _deflated_members(), zipfile.ZIP_STORED)
    assert convert(stored).files == convert(DATA / "run-a.deflate.eval").files
    bzip = _zip(tmp_path / "bzip.eval", _deflated_members(), zipfile.ZIP_BZIP2)
    with pytest.raises(InspectLogError, match="compression method 12"):
        convert(bzip)
    bad_json = _zip(tmp_path / "bad.eval", {**_deflated_members(), "header.json": b"{"})
    with pytest.raises(InspectLogError, match=r"header\.json: not JSON"):
        convert(bad_json)


def test_missing_file_and_folder_are_clean_errors(tmp_path: Path) -> None:
    with pytest.raises(InspectLogError, match="file not found"):
        convert(tmp_path / "nope.json")
    with pytest.raises(InspectLogError, match="not a regular file"):
        convert(tmp_path)


def test_nothing_is_written_for_a_bad_log(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{}")
    with pytest.raises(InspectLogError):
        adapt_inspect(bad, tmp_path / "out", None, "all-must-pass")
    assert not (tmp_path / "out").exists()


# --- the command line ----------------------------------------------------------------------


def _parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="claims")
    add_adapt_parser(parser.add_subparsers(dest="command", required=True))
    return parser


def test_adapt_inspect_command_writes_the_files(
    json_log, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    out = tmp_path / "evidence"
    args = _parser().parse_args(
        ["adapt", "inspect", str(json_log("run-a")), "--out", str(out), "--epochs", "first"]
    )
    assert run_adapt(args) == 0
    printed = capsys.readouterr().out
    assert "7 trials (1 error, 2 fail, 4 pass; epochs first)" in printed
    assert (out / "freeze.yaml").read_bytes() == convert(json_log("run-a"), epochs="first").files[
        "freeze.yaml"
    ]


def test_adapt_inspect_command_refuses_unknown_epochs(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        _parser().parse_args(["adapt", "inspect", "x.json", "--out", "o", "--epochs", "mean"])
    assert "invalid choice: 'mean'" in capsys.readouterr().err


def test_adapter_errors_are_claims_errors(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{")
    args = _parser().parse_args(["adapt", "inspect", str(bad), "--out", str(tmp_path / "o")])
    with pytest.raises(ClaimsError) as caught:
        run_adapt(args)
    assert caught.value.diagnostics().startswith("error: bad.json: not JSON")


def _wired() -> bool:
    """True once bot/faces/cli.py adds the `adapt` command."""
    return any(
        isinstance(action, argparse._SubParsersAction) and "adapt" in action.choices
        for action in cli._parser()._actions
    )


@pytest.mark.skipif(not _wired(), reason="`claims adapt` is not wired into bot/faces/cli.py yet")
def test_claims_adapt_inspect_end_to_end(json_log, tmp_path: Path, capsys) -> None:
    capsys.readouterr()
    assert cli.main(["adapt", "inspect", str(json_log("run-a")), "--out", str(tmp_path)]) == 0
    bad = tmp_path / "bad.json"
    bad.write_text("[]")
    assert cli.main(["adapt", "inspect", str(bad), "--out", str(tmp_path / "o")]) == 2
    err = capsys.readouterr().err
    assert "error: bad.json: got a JSON list, expected an object" in err
    assert "Traceback" not in err


def test_a_log_without_a_solver_gives_a_method_name_verify_refuses(tmp_path: Path) -> None:
    """The stub's method name for a log that names no solver is a placeholder verify refuses
    (`schema`), like the all-zero code_commit, not a name that passes."""
    from bot.rules.evidence.placeholders import check_placeholders

    log = raw_json_log("run-a")
    log["plan"]["steps"] = []
    text = convert(write_json(tmp_path / "bare.json", log)).files["freeze.yaml"]
    document, problems = parse_yaml(text, "freeze.yaml")
    assert problems == [] and document is not None
    found = check_placeholders([("freeze.yaml", document.data, document.lines.get)])
    assert [f.message.split(":")[0] for f in found] == ["method.name"]

"""Files built to cost time or memory: `claims verify` refuses them with one code and finishes.

No test asserts on wall-clock time (bench/ measures it); each bounds the work by the input's
size and checks the answer. bench/verify.py and bench/loaders.py print the figures.
"""

from __future__ import annotations

from bot.faces.demo.specimen import AttemptSpec
from tests.support import Files, RegistryFactory

ADAPTER = "adapter/adapter.yaml"
OUTPUTS = "outputs:\n- freeze-cases.jsonl\n- trials.jsonl\n"  # as the specimen writes them


def _hostile_outputs(count: int):  # type: ignore[no-untyped-def]
    """adapter.yaml's `outputs` as one flow list of `count` mixed-type items: `[x, 0, 1, ...]`.
    jsonschema's uniqueItems compared such a list pairwise (4,000 items: 5.6 s; the 870 KB
    file of ~125k items: over an hour)."""

    def change(files: Files) -> None:
        text = files[ADAPTER].decode()
        assert OUTPUTS in text
        hostile = "outputs: [x, " + ", ".join(str(i) for i in range(count - 1)) + "]\n"
        files[ADAPTER] = text.replace(OUTPUTS, hostile).encode()

    return change


def test_adapter_with_twenty_thousand_outputs_is_one_schema_finding(
    make_registry: RegistryFactory, run_claims
) -> None:
    built = make_registry(AttemptSpec(kind="wrapped"), change=_hostile_outputs(20_000))
    result = run_claims("verify", built.attempt)
    assert result.code == 1
    assert result.codes() == {"schema"}, result.out
    (reason,) = result.reasons()
    assert reason["file"].endswith(ADAPTER)
    assert reason["message"] == "outputs: 20000 items, more than the 4 allowed"


def test_adapter_that_repeats_an_output(make_registry: RegistryFactory, run_claims) -> None:
    def change(files: Files) -> None:
        text = files[ADAPTER].decode()
        assert OUTPUTS in text
        files[ADAPTER] = text.replace(OUTPUTS, f"{OUTPUTS}- trials.jsonl\n").encode()

    built = make_registry(AttemptSpec(kind="wrapped"), change=change)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"schema"}, result.out
    (reason,) = result.reasons()
    assert reason["message"] == 'outputs: "trials.jsonl" is repeated (items 1 and 2)'


def test_trial_with_more_containers_than_a_record_may_hold(
    make_registry: RegistryFactory, run_claims
) -> None:
    """10,001 empty lists in one trial's result: refused on its bytes (`json` never builds it),
    naming the line."""

    def change(files: Files) -> None:
        lines = files["trials.jsonl"].splitlines(keepends=True)
        pad = b'"result":{"pad":[' + b"[]," * 9_997 + b"[]],"  # 3 + 9,998 containers
        lines[2] = lines[2].replace(b'"result":{', pad)
        files["trials.jsonl"] = b"".join(lines)

    built = make_registry(change=change)
    result = run_claims("verify", built.attempt)
    assert result.codes() == {"jsonl-invalid"}, result.out
    (refused,) = [r for r in result.reasons() if r["code"] == "jsonl-invalid"]
    assert refused["line"] == 3
    assert refused["message"] == "10001 arrays and objects, more than the 10000 a record may hold"

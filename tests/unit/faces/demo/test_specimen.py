"""The demo/test specimen stays honest: its evidence limits are the shared rules' own, and
under the shared Unit Rule every trial is an independent unit."""

from __future__ import annotations

import hashlib

import pytest

from bot.edges.load.yaml_ import parse_yaml
from bot.faces.demo import specimen
from bot.faces.demo.specimen import AttemptSpec, attempt_files, load_market, market_document
from bot.rules.stats.units import collapse_units
from tests.support import RULES, records, shared_rules


def test_log_limits_are_the_shared_rules() -> None:
    document, _ = parse_yaml(RULES, "rules")
    assert document is not None and isinstance(document.data, dict)
    evidence = document.data["evidence"]
    assert evidence["max_local_log_bytes"] == specimen.MAX_LOCAL_LOG_BYTES
    assert evidence["excerpt_bytes"] == specimen.EXCERPT_BYTES


def test_large_logs_are_kept_as_excerpts_of_the_pinned_log() -> None:
    files = attempt_files(AttemptSpec(cases_per_family=12_000))
    assert "raw-log/harness.log" not in files
    head, tail = files["raw-log/head"], files["raw-log/tail"]
    assert len(head) == len(tail) == specimen.EXCERPT_BYTES
    text = files["attempt.yaml"].decode()
    size = int(text.split("bytes: ", 1)[1].split("\n", 1)[0])
    assert size > specimen.MAX_LOCAL_LOG_BYTES
    assert hashlib.sha256(head).hexdigest() not in text  # the pin is the whole log's hash


# ---- honest units under the shared Unit Rule (issue "Verdict integrity", 3) -----------------


def _units(spec: AttemptSpec) -> tuple[int, int]:
    """(trials, units) of the specimen's trials under the shared rules' unit keys."""
    files = attempt_files(spec)
    trials = records(files, "trials.jsonl")
    structure = collapse_units(trials, shared_rules().unit_keys)
    return len(trials), structure.count


@pytest.mark.parametrize(
    "spec",
    [
        AttemptSpec(),
        AttemptSpec(market=5, seed=2, adversarial="serious", false_safe_rate=0.45),
        AttemptSpec(cases_per_family=40),
        AttemptSpec(families=("sandbagging", "sabotage", "collusion")),
    ],
    ids=["default", "serious", "larger", "three-families"],
)
def test_every_trial_of_the_specimen_is_its_own_unit(spec: AttemptSpec) -> None:
    trials, units = _units(spec)
    assert units == trials


def test_the_demo_markets_floors_are_reachable_under_the_shared_keys() -> None:
    rules = shared_rules()
    market = load_market(market_document(3, "default"), rules)
    assert market.unit_keys == rules.unit_keys
    _, units = _units(AttemptSpec())
    assert units >= market.min_units

"""Market contracts checked against the shared rules (bot.rules.models.Market.from_document)."""

from __future__ import annotations

from typing import Any

import pytest

from bot.faces.demo.specimen import market_document
from bot.rules.models import Market
from bot.vocab.document import Document
from bot.vocab.findings import Code
from tests.support import shared_rules

SHARED = shared_rules()


def _contract(document: dict[str, Any], expected_id: int | None = None) -> Any:
    return Market.from_document(Document("markets/market-03.yaml", document), SHARED, expected_id)


# ---- the Unit Rule: a market may add unit keys, never drop one --------------------------------


def test_the_demo_contract_uses_the_shared_unit_keys() -> None:
    assert set(market_document(3, "default")["unit_keys"]) >= set(SHARED.unit_keys)


@pytest.mark.parametrize(
    ("keys", "dropped"),
    [
        (["trajectory", "evaluator"], "system, attack_family"),
        (["system"], "trajectory, evaluator, attack_family"),
        (["system", "trajectory", "evaluator"], "attack_family"),
    ],
)
def test_a_market_may_not_drop_a_shared_unit_key(keys: list[str], dropped: str) -> None:
    market, problems = _contract(market_document(3, "default", unit_keys=keys))
    assert market is None
    (problem,) = problems
    assert problem.code is Code.REGISTRY_INVALID
    assert problem.message.startswith(f"unit_keys: drops {dropped}")
    assert problem.file == "markets/market-03.yaml"


def test_a_market_may_list_the_shared_unit_keys_in_its_own_order() -> None:
    keys = ["attack_family", "evaluator", "trajectory", "system"]
    market, problems = _contract(market_document(3, "default", unit_keys=keys))
    assert problems == []
    assert market is not None and market.unit_keys == tuple(keys)


def test_a_market_without_unit_keys_uses_the_shared_ones() -> None:
    document = market_document(3, "default")
    del document["unit_keys"]
    market, problems = _contract(document)
    assert problems == [] and market is not None
    assert market.unit_keys == SHARED.unit_keys


# ---- market 14 ----------------------------------------------------------------------------------

SENTENCE = "Market 14 is not in this registry."


@pytest.mark.parametrize(
    "document",
    [
        market_document(14, "default"),
        market_document(14, "serious"),
        {"id": 14},  # fails its schema as well: the sentence is the whole refusal
        market_document(3, "default"),  # markets/market-14.yaml holding another id
    ],
    ids=["valid-default", "valid-serious", "schema-broken", "other-id"],
)
def test_a_contract_for_market_14_is_refused_with_the_sentence(document: dict[str, Any]) -> None:
    market, problems = Market.from_document(
        Document("markets/market-14.yaml", document), SHARED, 14
    )
    assert market is None
    assert [(p.code, p.message) for p in problems] == [(Code.REGISTRY_INVALID, SENTENCE)]


def test_the_adversarial_routes_are_read_once_as_written() -> None:
    adversarial = SHARED.adversarial
    assert adversarial.red_teams.min_hours_each == 80
    assert type(adversarial.red_teams.min_hours_each) is int  # shown as 80, not 80.0
    assert (adversarial.red_teams.min_groups, adversarial.red_teams.min_organizations) == (3, 2)
    assert adversarial.bounty.min_usd == 10000
    assert adversarial.bounty.min_days_open == 60
    assert adversarial.generator.min_planted_found == 0.8
    assert adversarial.default.min_hours_total == 40
    assert adversarial.default.min_groups == 1

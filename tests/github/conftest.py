"""The gateway against the fake GitHub (`fakehub`, tests/conftest.py), with a retry whose
sleep records instead of sleeping."""

from __future__ import annotations

import pytest

from bot.edges.github.gateway import GitHubGateway, Retry, connect
from tests.github.fakehub import FakeHub
from tests.support import GATEWAY_NOW


@pytest.fixture
def sleeps() -> list[float]:
    return []


@pytest.fixture
def gateway(fakehub: FakeHub, sleeps: list[float]) -> GitHubGateway:
    retry = Retry(max_wait=300.0, sleep=sleeps.append, now=lambda: GATEWAY_NOW)
    return connect("t0ken", fakehub.repository, fakehub.base_url, retry, throttle=False)

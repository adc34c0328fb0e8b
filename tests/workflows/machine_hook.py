"""The workflow runner's network stand-in, installed into its bot venv only (conftest.py copies
this file there as `runner_machine.py`, imported by a `.pth` file at every start).

The runner has no internet: a test serves the pins and released data an attempt names from a
local HTTP server and points the attempt's URLs at it. The bot fetches only from public
addresses; its one exception is `Limits.fetch_allowed_addresses`, which only tests set (the
in-process `local_fetches` fixture does the same, tests/conftest.py). With
RUNNER_FETCH_ALLOWED_ADDRESSES set (comma-separated; the runner passes it to every step, and
sudo's stand-in keeps it), every `Limits` the bot makes allows those addresses. Without it this
does nothing, so the venv is the plain bot."""

from __future__ import annotations

import os
from typing import Any


def _install() -> None:
    allowed = os.environ.get("RUNNER_FETCH_ALLOWED_ADDRESSES", "").strip()
    if not allowed:
        return
    import bot.vocab.config

    original = bot.vocab.config.Limits.__init__
    addresses = frozenset(a.strip() for a in allowed.split(",") if a.strip())

    def __init__(self: Any, *args: Any, **kwargs: Any) -> None:
        kwargs.setdefault("fetch_allowed_addresses", addresses)
        original(self, *args, **kwargs)

    bot.vocab.config.Limits.__init__ = __init__  # type: ignore[method-assign]


_install()

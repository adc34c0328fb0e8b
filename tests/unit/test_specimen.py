"""The demo/test specimen stays honest: its evidence limits are the shared rules' own."""

from __future__ import annotations

import hashlib

from bot.demo import specimen
from bot.demo.specimen import AttemptSpec, attempt_files
from bot.load.yaml_ import parse_yaml
from tests.support import RULES


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

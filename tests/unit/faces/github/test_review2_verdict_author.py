"""Hostile review of issue 21 (review2): only the bot's own verdict comments are verdicts."""

from __future__ import annotations

from bot.faces.github.publish import _sticky, shown_digests
from tests.unit.faces.github.judge_setup import (
    COMMENT_ID,
    DIGEST,
    event,
    port,
    run,
    verdict_comment,
)
from tests.unit.faces.github.memory_port import MemoryPort


def test_another_apps_comment_with_the_verdict_header_is_no_verdict() -> None:
    """Attack: any other GitHub App on the repository (a bot user, `user.type` "Bot") whose
    comment opens with the verdict header was read as the bot's verdict: a `/judge` was bound
    to the digest it showed, and publish edited that app's comment as its sticky verdict. The
    verdict comments are the ones `claims github publish` posts, as `github-actions[bot]`
    (verify.yml posts with `github.token`); no other author's comment counts."""
    planted = verdict_comment(DIGEST, author="mallory-app[bot]", kind="Bot")
    assert shown_digests([planted], COMMENT_ID) == frozenset()
    assert _sticky([planted]) is None
    memory: MemoryPort = port()
    memory.existing = [(7, planted)]
    outcome, recorder = run(memory, event("/judge reconstructible pass"))
    assert memory.commits == [] and not outcome.commit and recorder.reposted == []
    # The bot's own comment still counts.
    assert shown_digests([verdict_comment(DIGEST)], COMMENT_ID) == frozenset({DIGEST})

"""Issue 21, the scheduled close: a market's outcome is decided once and read from one place.

Each test is an attack that worked on 611a91f, on real git registries (and a real bare git
origin), with the local archive or the fake Zenodo:

- a record outside the copy it cites (two markets sharing `snapshot-R`, one blocked when the
  tag was archived);
- a push rejected because main moved after the trigger, after the copy was published: the
  next run decided the market again;
- a tag on another commit counted after the annulment date.

Markets 3 and 5 resolve by R = 2027-06-30 (window closes 2027-08-29, annulment date
2027-09-28) and share `snapshot-2027-06-30`.
"""

from __future__ import annotations

import hashlib
import io
import tarfile
from datetime import UTC, date, datetime
from pathlib import Path
from typing import Any

import git
import pytest
import yaml

from bot.history import read_tags
from tests.acceptance.test_close_windows import LATE, TAG, issues, record, run
from tests.acceptance.test_close_windows_attacks import commit_at, run_at


# ---- item 15: a tag on the wrong commit after the annulment date ------------------------------


def test_a_tag_on_another_commit_blocks_the_late_close_too(make_registry) -> None:
    """No run made the snapshot; someone with tag rights tags a commit merged after the close
    (annotated, dated before the annulment date, on main). Before the annulment date the job
    refuses such a tag; after it, it used to count: the market resolved, final, from the later
    commit's tree. Now the late close checks the tag's commit the same way and is blocked."""
    built = make_registry()
    close = built.repo.head.commit.hexsha
    later = commit_at(built.repo, "AFTER-THE-CLOSE.md", "2027-09-05T10:00:00Z")
    with built.repo.git.custom_environment(GIT_COMMITTER_DATE="2027-09-06T10:00:00Z"):
        built.repo.create_tag(TAG, ref=later, message="placed on a later commit")
    report = run(built.root, as_of=LATE)
    assert report.failed
    assert [m.phase for m in report.plan.markets] == ["blocked", "blocked"], report.render()
    (three, _) = report.plan.markets
    assert f"points at {later[:12]}, not at {close[:12]}" in three.note
    assert not (built.root / "resolutions").exists()
    assert not (built.root / ".claims/issues").exists()
    # Deleted by a maintainer: the late close resolves from what counts (neither the tag nor a
    # copy: ANNULLED), never from the later commit.
    built.repo.delete_tag(built.repo.tags[TAG])
    after = run(built.root, as_of=date(2027, 10, 1))
    assert not after.failed, after.render()
    assert record(built.root)["outcome"] == "ANNULLED"


def test_the_tag_commit_check_is_one_rule_in_every_phase() -> None:
    """The close, the late close and the watch all refuse a tag on another commit."""
    from tests.unit.jobs.test_close_plan import CLOSE, facts, record as made, tag

    from bot.jobs.plan import plan_close

    elsewhere = tag("b" * 40)
    for day, changes in (
        (date(2027, 9, 1), {}),
        (date(2027, 9, 29), {}),
        (date(2027, 9, 10), {"record": made(), "record_committed": True}),
    ):
        plan = plan_close([facts(tag=elsewhere, **changes)], day)
        (market,) = plan.markets
        assert market.phase == "blocked", (day, plan.render())
        assert f"not at {CLOSE[:12]}" in market.note

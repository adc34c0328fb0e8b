"""`claims close-windows`: gather each market's facts, plan (`bot/faces/jobs/plan.py`), apply.

One concept a module: `job` (what a run is given), `facts` (what it reads of git, the registry
and the archive), `matrix` (the workflow's rerun and pin jobs, planned from the same facts),
`applier` (the phases below), `copies` (the record a published copy holds), `issue_text`,
`report` (what a run did) and `close` (the entry point: reopen, gather, plan, apply).

The applier (`applier.Applier`) runs the plan in phases, each step safe to repeat after a
crash or a kill at any point, because each first looks for what it makes:

1. **tags**: `Git.create_tag` finds an existing tag (it must be annotated and point at the
   commit, else the market is blocked: a tag is never moved) before it makes one; the push
   sends it only when origin lacks it.
2. **resolve**: a market whose own copy is already published was decided by an earlier run:
   the record inside the copy is adopted (`_adopt`), never decided again. Every other market
   is resolved by the app layer (`resolve_registry`, adapter reruns as the options say: on by
   default) from its tag's tree (`_decide`). Nothing is written: a draft record.
3. **archive**: one copy per market: `git archive` of the tag with that market's draft record,
   handed to the `Archive` (Zenodo or the local folder), which finds an existing draft or
   published copy before it makes one. Only a returned `ArchivedRecord` counts as archived; a
   failure leaves the market unrecorded this run (the next run finishes it). So every record
   is inside the copy it cites, whichever run resolved it.
4. **records**: `resolutions/market-NN.yaml` is written (atomically), then committed on the
   base branch; a record already there is never rewritten (only committed, if a run stopped
   before its commit). The branch and the tags are pushed when the repository has `origin`;
   when origin's branch moved on meanwhile, the record commits are replayed onto it unchanged
   and pushed again (`Git.push_branch`, bounded).
5. **issues**: each issue carries a marker; one with the marker and label is looked for first.

`crash(point)` is called after each step ("tagged", "resolved", "archived", "record-written",
"committed", "issue-opened"): the tests kill the job there and run it again.
"""

from __future__ import annotations

from bot.faces.jobs.close_windows.close import close_windows
from bot.faces.jobs.close_windows.copies import record_in_copy
from bot.faces.jobs.close_windows.facts import copy_key, gather_facts
from bot.faces.jobs.close_windows.job import Job
from bot.faces.jobs.close_windows.matrix import (
    pin_matrix,
    rerun_matrix,
    rerun_plan,
    with_unrecorded,
)
from bot.faces.jobs.close_windows.report import CloseReport

__all__ = [
    "CloseReport",
    "Job",
    "close_windows",
    "copy_key",
    "gather_facts",
    "pin_matrix",
    "record_in_copy",
    "rerun_matrix",
    "rerun_plan",
    "with_unrecorded",
]

"""`plan`: the job matrix of the wrapped attempts a pull request's head touches."""

from __future__ import annotations

from bot.app.api import open_workspace
from bot.app.matrix import ATTEMPT_PATH, plan_matrix
from bot.faces.demo.specimen import AttemptSpec
from tests.support import RegistryFactory

WRAPPED = AttemptSpec(kind="wrapped", submitter="bob-lab", slug="wrapped-v1")


def _matrix(built: object) -> dict[str, object]:
    root = built.root  # type: ignore[attr-defined]
    head = built.repo.head.commit.hexsha  # type: ignore[attr-defined]
    with open_workspace(root, "main", head) as workspace:
        return plan_matrix(workspace)


def test_a_wrapped_attempt_is_one_job(make_registry: RegistryFactory) -> None:
    built = make_registry(WRAPPED, run="open")
    assert _matrix(built) == {"include": [{"attempt": WRAPPED.folder}]}


def test_a_run_attempt_needs_no_rerun(make_registry: RegistryFactory) -> None:
    assert _matrix(make_registry(AttemptSpec(), run="open")) == {"include": []}


def test_only_folders_of_the_registrys_grammar(make_registry: RegistryFactory) -> None:
    """A second, wrapped-looking folder with a name outside the slug grammar is never a job
    input (verify reports the PR's problems); a deleted folder is no job either."""
    built = make_registry(
        WRAPPED,
        run="open",
        run_extra={
            "attempts/market-03/Bob/x/attempt.yaml": b"kind: wrapped\n",
            "attempts/market-03/bob-lab/$(id)/attempt.yaml": b"kind: wrapped\n",
        },
    )
    assert _matrix(built) == {"include": [{"attempt": WRAPPED.folder}]}


def test_the_path_grammar() -> None:
    assert ATTEMPT_PATH.match("attempts/market-03/alice-lab/monitor-v1")
    for bad in (
        "attempts/market-3/alice-lab/monitor-v1",
        "attempts/market-03/Alice/monitor-v1",
        "attempts/market-03/alice-lab/monitor-v1\n",
        "attempts/market-03/alice-lab/-x-",
        "attempts/market-03/alice-lab",
        "attempts/market-03/../monitor-v1",
    ):
        assert not ATTEMPT_PATH.match(bad), bad

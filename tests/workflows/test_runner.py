"""The local workflow runner's own rules (runner.py, expressions.py), on small workflows: each
is a GitHub behaviour the end-to-end tests rely on, so a runner that drifted from GitHub
fails here first."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path
from typing import Any

import pytest

from tests.workflows.expressions import ExpressionError, evaluate, interpolate
from tests.workflows.hosting import git, open_pull, pull_request_event
from tests.workflows.runner import Runner, RunnerError

CONTEXTS: dict[str, Any] = {
    "github": {"event": {"workflow_run": {"head_branch": "x"}}, "event_name": "push"},
    "needs": {"locate": {"result": "success", "outputs": {"found": "true", "reruns": "0"}}},
    "inputs": {"pr": 7.0},
    "steps": {"attest": {"outputs": {"attestation-url": "https://a"}}},
}


@pytest.mark.parametrize(
    ("expression", "value"),
    [
        ("needs.locate.outputs.found == 'true'", True),
        ("needs.locate.outputs.found == 'TRUE'", True),  # strings compare case-insensitively
        ("NEEDS.Locate.OUTPUTS.found", "true"),  # and property names too
        ("needs.locate.outputs.reruns != '0'", False),
        ("needs.missing.outputs.reruns != '0'", False),  # null == '0': both coerce to 0
        ("needs.locate.outputs.reruns == 0", True),
        ("'' == 0", True),
        ("'abc' == 0", False),  # NaN equals nothing
        ("null || 'pr'", "pr"),  # || gives an operand, not a boolean
        ("github.event.workflow_run.head_branch || inputs.pr", "x"),
        ("github.event.nothing.deeper", None),
        ("github.event['workflow_run'].head_branch", "x"),
        ("steps.attest.outputs.attestation-url", "https://a"),  # '-' in a property name
        ("!(1 < 2) && true", False),
        ('fromJSON(\'{"include": [{"attempt": "a"}]}\').include[0].attempt', "a"),
        ("format('{0}-{{x}}-{1}', 'a', 7)", "a-{x}-7"),
        ("contains(fromJSON('[\"a\", \"b\"]'), 'B')", True),
        ("contains('Hello', 'ell')", True),
        ("startsWith('refs/heads/main', 'refs/heads/')", True),
        ("join(fromJSON('[1, 2]'), '+')", "1+2"),
        ("toJSON(inputs)", '{\n  "pr": 7.0\n}'),
        ("0x10 == 16", True),
        ("'it''s'", "it's"),
    ],
)
def test_expressions_follow_githubs_rules(expression: str, value: Any) -> None:
    assert evaluate(expression, CONTEXTS) == value


@pytest.mark.parametrize(
    ("expression", "says"),
    [
        ("secrets.TOKEN", "context 'secrets' is not available"),
        ("success()", "only allowed in `if:`"),
        ("hashFiles('x')", "not modelled"),
        ("github.event.*.name", "not modelled"),
        ("needs.locate.outputs.found = 'true'", "unexpected"),
        ("'unterminated", "unexpected"),
        ("fromJSON('{')", "not JSON"),
    ],
)
def test_unknown_syntax_and_contexts_are_refused_loudly(expression: str, says: str) -> None:
    with pytest.raises(ExpressionError, match=says.replace("(", r"\(").replace(")", r"\)")):
        evaluate(expression, CONTEXTS)


def test_interpolation_keeps_a_whole_expressions_type_and_refuses_objects_in_text() -> None:
    matrix = interpolate("${{ fromJSON('{\"batch\": [0, 1]}') }}", CONTEXTS)
    assert matrix == {"batch": [0, 1]}
    assert interpolate("pr-${{ inputs.pr }}-${{ '}}' }}", CONTEXTS) == "pr-7-}}"
    assert interpolate("${{ null }}x", CONTEXTS) == "x"
    with pytest.raises(ExpressionError, match="object or array"):
        interpolate("x ${{ github.event }}", CONTEXTS)


@pytest.fixture
def runner(tmp_path: Path) -> Runner:
    source = tmp_path / "source"
    source.mkdir()
    git(source, "init", "-q", "-b", "main")
    (source / "README").write_text("hello\n")
    git(source, "add", "README")
    git(source, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", "one")
    git(source, "tag", "v1")
    origin = tmp_path / "origin.git"
    git(tmp_path, "clone", "-q", "--bare", str(source), str(origin))
    return Runner(folder=tmp_path / "runner", origin=origin, venv=tmp_path / "no-venv")


def workflow(tmp_path: Path, text: str) -> Path:
    file = tmp_path / "w.yml"
    file.write_text(textwrap.dedent(text))
    return file


CHECKOUT = "actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1"
UPLOAD = "actions/upload-artifact@bbbca2ddaa5d8feaa63e36b76fdaad77386f024f"
DOWNLOAD = "actions/download-artifact@3e5f45b2cfb9172054b4087a40e8e0b5a5461e7c"


def test_jobs_run_in_needs_order_and_skips_spread_unless_the_if_says_otherwise(
    runner: Runner, tmp_path: Path
) -> None:
    file = workflow(
        tmp_path,
        """
        on: workflow_dispatch
        jobs:
          last:
            needs: [middle]
            runs-on: ubuntu-24.04
            steps: [{run: echo last}]
          middle:
            needs: first
            runs-on: ubuntu-24.04
            steps: [{run: echo middle}]
          anyway:
            needs: middle
            if: ${{ !cancelled() }}
            runs-on: ubuntu-24.04
            steps: [{run: echo anyway}]
          first:
            if: github.event_name == 'push'
            runs-on: ubuntu-24.04
            steps: [{run: echo first}]
        """,
    )
    run = runner.run(file, "workflow_dispatch", {})
    assert list(run.jobs) == ["first", "middle", "last", "anyway"]
    assert run.results() == {
        "first": "skipped",
        "middle": "skipped",  # success() looks at every job it needs
        "last": "skipped",  # transitively
        "anyway": "success",
    }


def test_outputs_env_path_summary_and_matrix_from_a_jobs_output(
    runner: Runner, tmp_path: Path
) -> None:
    file = workflow(
        tmp_path,
        """
        on: {workflow_dispatch: {inputs: {pr: {type: number, required: true}}}}
        jobs:
          plan:
            runs-on: ubuntu-24.04
            outputs:
              matrix: ${{ steps.plan.outputs.matrix }}
              text: ${{ steps.plan.outputs.text }}
            steps:
              - id: plan
                run: |
                  echo 'matrix={"include":[{"n":1},{"n":2}]}' >> "$GITHUB_OUTPUT"
                  { echo 'text<<EOF'; echo 'two'; echo 'lines'; echo 'EOF'; } >> "$GITHUB_OUTPUT"
                  echo "FROM_ENV=set" >> "$GITHUB_ENV"
                  mkdir -p "$RUNNER_TEMP/bin"
                  printf '#!/bin/sh\\necho tool\\n' > "$RUNNER_TEMP/bin/mytool"
                  chmod +x "$RUNNER_TEMP/bin/mytool"
                  echo "$RUNNER_TEMP/bin" >> "$GITHUB_PATH"
              - run: |
                  [ "$FROM_ENV" = set ] && [ "$(mytool)" = tool ]
                  echo "### hello" >> "$GITHUB_STEP_SUMMARY"
          legs:
            needs: plan
            runs-on: ubuntu-24.04
            strategy:
              matrix: ${{ fromJSON(needs.plan.outputs.matrix) }}
            name: leg ${{ matrix.n }} of pr ${{ inputs.pr }}
            steps:
              - env:
                  N: ${{ matrix.n }}
                  INDEX: ${{ strategy.job-index }}
                run: |
                  test "$N" = "$((INDEX + 1))"
                  echo "${{ needs.plan.outputs.text }}" | grep -x lines
        """,
    )
    run = runner.run(file, "workflow_dispatch", {}, inputs={"pr": "7"})
    assert run.results() == {"plan": "success", "legs": "success"}, run.explain()
    assert run.job("plan").outputs["text"] == "two\nlines"
    assert run.job("plan").steps[1].summary == "### hello\n"
    assert [leg.name for leg in run.jobs["legs"]] == ["leg 1 of pr 7", "leg 2 of pr 7"]


def test_a_matrix_expands_vectors_then_exclude_then_include(runner: Runner, tmp_path: Path) -> None:
    file = workflow(
        tmp_path,
        """
        on: workflow_dispatch
        jobs:
          legs:
            runs-on: ubuntu-24.04
            strategy:
              matrix:
                os: [a, b]
                n: [1, 2]
                exclude: [{os: b, n: 2}]
                include: [{os: a, extra: x}, {os: c, n: 9}]
            steps: [{run: "true"}]
          empty:
            runs-on: ubuntu-24.04
            strategy: {matrix: {batch: []}}
            steps: [{run: "true"}]
        """,
    )
    run = runner.run(file, "workflow_dispatch", {})
    assert [leg.matrix for leg in run.jobs["legs"]] == [
        {"os": "a", "n": 1, "extra": "x"},
        {"os": "a", "n": 2, "extra": "x"},
        {"os": "b", "n": 1},
        {"os": "c", "n": 9},
    ]
    assert run.job("empty").result == "failure"
    assert "does not contain any values" in run.job("empty").reason


def test_the_default_shell_has_no_pipefail_and_shell_bash_has(
    runner: Runner, tmp_path: Path
) -> None:
    file = workflow(
        tmp_path,
        """
        on: workflow_dispatch
        jobs:
          default:
            runs-on: ubuntu-24.04
            steps: [{run: "false | true"}]
          bash:
            runs-on: ubuntu-24.04
            steps: [{run: "false | true", shell: bash}]
        """,
    )
    run = runner.run(file, "workflow_dispatch", {})
    assert run.results() == {"default": "success", "bash": "failure"}


def test_stop_commands_silence_annotations_until_resumed(runner: Runner, tmp_path: Path) -> None:
    file = workflow(
        tmp_path,
        """
        on: workflow_dispatch
        jobs:
          job:
            runs-on: ubuntu-24.04
            steps:
              - run: |
                  echo "::warning::before"
                  echo "::stop-commands::tok"
                  echo "::error::from untrusted text"
                  echo "::tok::"
                  echo "::notice::after"
        """,
    )
    step = runner.run(file, "workflow_dispatch", {}).job("job").steps[0]
    assert step.annotations == [("warning", "before"), ("notice", "after")]


def test_checkout_fetches_every_branch_and_tag_and_artifacts_are_folders(
    runner: Runner, tmp_path: Path
) -> None:
    file = workflow(
        tmp_path,
        f"""
        on: workflow_dispatch
        jobs:
          up:
            runs-on: ubuntu-24.04
            steps:
              - uses: {CHECKOUT}
                with: {{persist-credentials: false, fetch-depth: 0}}
              - run: |
                  git tag --list | grep -x v1
                  [ "$(git rev-parse HEAD)" = "$GITHUB_SHA" ]
                  [ "$(git branch --show-current)" = main ]
                  ! git config --get-regexp extraheader
                  mkdir -p out/sub out/.hidden && echo a > out/sub/a && echo b > out/b
                  echo secret > out/.env && echo secret > out/.hidden/x
              - uses: {UPLOAD}
                with: {{name: one, path: out/, if-no-files-found: error}}
              - uses: {UPLOAD}
                with: {{name: one, path: out/b}}
          down:
            needs: up
            if: ${{{{ !cancelled() }}}}
            runs-on: ubuntu-24.04
            steps:
              - uses: {DOWNLOAD}
                with: {{pattern: o*, merge-multiple: true, path: got}}
              - run: |
                  test "$(cat got/sub/a got/b)" = "$(printf 'a\\nb')"
                  test ! -e got/.env && test ! -e got/.hidden
        """,
    )
    run = runner.run(file, "workflow_dispatch", {})
    up = run.job("up")
    assert [s.outcome for s in up.steps] == ["success", "success", "success", "failure"]
    assert "already uploaded" in up.steps[3].stderr  # artifacts are immutable (v4+)
    assert run.results()["down"] == "success", run.explain()


def test_what_the_runner_does_not_model_is_refused(runner: Runner, tmp_path: Path) -> None:
    unknown = workflow(
        tmp_path,
        """
        on: workflow_dispatch
        jobs:
          job:
            runs-on: ubuntu-24.04
            steps:
              - uses: actions/cache@0057852bfaa89a56745cba8c7296529d2fc39830
              - run: pip install requests
        """,
    )
    steps = runner.run(unknown, "workflow_dispatch", {}).job("job").steps
    assert [s.outcome for s in steps] == ["failure", "skipped"]
    assert "no stand-in for the action" in steps[0].stderr
    with pytest.raises(RunnerError, match="not started by push"):
        runner.run(unknown, "push", {})
    with pytest.raises(RunnerError, match="undeclared inputs"):
        runner.run(unknown, "workflow_dispatch", {}, inputs={"x": "1"})
    assert json.loads(json.dumps(runner.runs[0].results())) == {"job": "failure"}
    scheduled = tmp_path / "scheduled.yml"
    scheduled.write_text(
        'on: {schedule: [{cron: "17 3 * * *"}]}\n'
        'jobs: {job: {runs-on: ubuntu-24.04, steps: [{run: "true"}]}}\n'
    )
    with pytest.raises(RunnerError, match="no schedule"):
        runner.run(scheduled, "schedule", {"schedule": "0 0 * * *"})
    assert runner.run(scheduled, "schedule", {"schedule": "17 3 * * *"}).conclusion == "success"


def test_a_pull_request_starts_a_workflow_only_through_its_paths(
    runner: Runner, tmp_path: Path
) -> None:
    file = workflow(
        tmp_path,
        """
        on:
          pull_request:
            paths: ["attempts/**"]
        jobs:
          job:
            runs-on: ubuntu-24.04
            steps: [{run: "true"}]
        """,
    )
    source = tmp_path / "source"
    for name, number in (("docs/a.md", 1), ("attempts/market-03/x/y/z.yaml", 2)):
        git(source, "checkout", "-q", "-B", f"pr-{number}", "main")
        (source / name).parent.mkdir(parents=True, exist_ok=True)
        (source / name).write_text("x\n")
        git(source, "add", name)
        git(source, "-c", "user.name=t", "-c", "user.email=t@t", "commit", "-qm", name)
        head = git(source, "rev-parse", "HEAD")
        open_pull(runner.origin, number, head, source=source)
        event = pull_request_event(runner, number, head, f"pr-{number}", "alice/registry")
        if number == 1:
            with pytest.raises(RunnerError, match="no changed file matches its paths"):
                runner.run(file, "pull_request", event)
            with pytest.raises(RunnerError, match="of type closed"):
                runner.run(file, "pull_request", {**event, "action": "closed"})
        else:
            assert runner.run(file, "pull_request", event).results() == {"job": "success"}


def test_step_status_functions_continue_on_error_and_working_directory(
    runner: Runner, tmp_path: Path
) -> None:
    file = workflow(
        tmp_path,
        """
        on: workflow_dispatch
        jobs:
          job:
            runs-on: ubuntu-24.04
            outputs:
              never: ${{ steps.never.outputs.value }}
              soft: ${{ steps.soft.outcome }}/${{ steps.soft.conclusion }}
            steps:
              - id: soft
                continue-on-error: true
                run: exit 3
              - run: mkdir -p sub && echo here > sub/file
              - working-directory: sub
                run: test "$(cat file)" = here
              - run: exit 1
              - id: never
                run: echo "value=x" >> "$GITHUB_OUTPUT"
              - if: failure()
                run: echo "::notice::failure seen"
              - if: always()
                run: echo "::notice::always"
              - if: success()
                run: echo "::notice::not after a failure"
          after:
            needs: job
            if: failure()
            runs-on: ubuntu-24.04
            steps: [{run: "true"}]
        """,
    )
    run = runner.run(file, "workflow_dispatch", {})
    job = run.job("job")
    assert [s.outcome for s in job.steps] == [
        *("failure", "success", "success", "failure"),
        *("skipped", "success", "success", "skipped"),
    ]
    assert job.outputs == {"never": "", "soft": "failure/success"}
    assert [a for s in job.steps for a in s.annotations] == [
        ("notice", "failure seen"),
        ("notice", "always"),
    ]
    assert run.results() == {"job": "failure", "after": "success"}

"""The fakes behave like the real services where it matters (issue 22, part 4): requests are
checked against the published API descriptions (and the check refuses what it should), job
tokens hold their job's permissions, the issues list carries pull requests, rate limits are
told and spent, the webhook readers take GitHub's own example payloads, and the fake Zenodo
lists depositions without their bucket."""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import requests
import yaml

from bot.app.report_json import dumps, report_to_json
from bot.edges.archive.port import DepositionState
from bot.edges.github.gateway import GitHubGateway, Retry, connect
from bot.edges.github.port import GitHubError
from bot.faces.cli import main
from bot.faces.github import events
from tests import apicheck
from tests.archive.fakezenodo import TOKEN, FakeZenodo, serve
from tests.github import reports
from tests.github.fakehub import PERMISSIONS, FakeHub, job_permissions
from tests.support import COMMAND_JOBS, connect_without_waits, job_token

HEAD = "a" * 40
WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"
EXAMPLES = json.loads((Path(apicheck.DATA) / "webhook-examples.json").read_text("utf-8"))["events"]


def gateway(hub: FakeHub, token: str, sleeps: list[float] | None = None) -> GitHubGateway:
    retry = Retry(max_wait=300.0, sleep=(sleeps if sleeps is not None else []).append)
    return connect(token, hub.repository, hub.base_url, retry, throttle=False)


# The checks against the descriptions ---------------------------------------------------------


def test_the_github_check_takes_what_the_description_gives() -> None:
    github = apicheck.github()
    body = {"name": "registry: pull request", "head_sha": HEAD, "status": "in_progress"}
    assert github.problems("POST", "/repos/a/r/check-runs", [], json.dumps(body).encode()) == []
    assert github.problems("GET", "/repos/a/r/issues/comments/5", [], b"") == []
    query = [("state", "all"), ("labels", "x,y"), ("per_page", "100")]
    assert github.problems("GET", "/repos/a/r/issues", query, b"") == []
    contents = "/repos/a/r/contents/attempts/x/y.yaml"
    assert github.problems("GET", contents, [("ref", "main")], b"") == []


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "expected"),
    [
        ("POST", "/repos/a/r/check-runs", [], {"name": "x"}, "'head_sha' is a required"),
        (
            "POST",
            "/repos/a/r/check-runs",
            [],
            {"name": "x", "head_sha": HEAD, "conclusion": "passed"},
            "'passed' is not one of",
        ),
        ("POST", "/repos/a/r/issues/7/labels", [], ["a", "b"], "not valid under any"),
        ("GET", "/repos/a/r/pulls", [("head_sha", HEAD)], None, "unknown query parameter"),
        ("GET", "/repos/a/r/pulls", [("state", "merged")], None, "'merged' is not one of"),
        ("GET", "/repos/a/r/check-suites/5", [], None, "no such operation"),
        ("DELETE", "/repos/a/r/pulls/7", [], None, "no such operation"),
        ("GET", "/repos/a/r/pulls/seven", [], None, "no such operation"),
        ("GET", "/repos/a/r/pulls/7", [], {"x": 1}, "takes none"),
    ],
)
def test_the_github_check_refuses_what_the_description_does_not_give(
    method: str, path: str, query: list[tuple[str, str]], body: Any, expected: str
) -> None:
    raw = b"" if body is None else json.dumps(body).encode()
    problems = apicheck.github().problems(method, path, query, raw, "application/json")
    assert problems and expected in " ".join(problems)


@pytest.mark.parametrize(
    ("method", "path", "query", "body", "expected"),
    [
        ("GET", "/deposit/depositions", [("all_versions", "true")], None, "unknown query"),
        (
            "PUT",
            "/deposit/depositions/5",
            [],
            {"metadata": {"creators": [{"name": "R", "type": "organizational"}]}},
            "Additional properties are not allowed ('type'",
        ),
        ("POST", "/deposit/depositions", [], {"meta": {}}, "Additional properties"),
        ("POST", "/deposit/depositions/5/actions/submit", [], None, "no such operation"),
        ("PUT", "/deposit/depositions/draft", [], {}, "no such operation"),
    ],
)
def test_the_zenodo_check_refuses_what_zenodo_rdm_does_not_take(
    method: str, path: str, query: list[tuple[str, str]], body: Any, expected: str
) -> None:
    raw = b"" if body is None else json.dumps(body).encode()
    problems = apicheck.zenodo().problems(method, path, query, raw, "application/json")
    assert problems and expected in " ".join(problems)
    good = [("q", 'metadata.version:"x"'), ("allversions", "true"), ("size", "100")]
    assert apicheck.zenodo().problems("GET", "/deposit/depositions", good, b"") == []


def test_the_fake_github_answers_400_and_fails_the_test_for_a_request_unlike_github() -> None:
    hub = FakeHub().start()
    try:
        answer = requests.post(
            f"{hub.base_url}/repos/acme/registry/check-runs",
            json={"name": "x"},
            headers={"Authorization": "token t0ken"},
            timeout=10,
        )
    finally:
        with pytest.raises(AssertionError, match="'head_sha' is a required property"):
            hub.stop()
    assert answer.status_code == 400
    assert "head_sha" in answer.json()["message"]
    assert hub.repo.check_runs == {}  # nothing was done


def test_the_fake_zenodo_answers_400_and_fails_the_test_for_a_request_unlike_zenodo() -> None:
    served: Iterator[FakeZenodo] = serve(FakeZenodo())
    fake = next(served)
    answer = requests.get(
        f"{fake.base_url}/deposit/depositions",
        params={"q": "", "all_versions": "true"},
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=10,
    )
    assert answer.status_code == 400
    with pytest.raises(AssertionError, match="unknown query parameter 'all_versions'"):
        next(served, None)


def test_every_described_operation_has_its_permission_and_a_route_in_the_fake() -> None:
    described = {(op.method, op.path) for op in apicheck.github().operations}
    assert described == set(PERMISSIONS)


# Permissions -----------------------------------------------------------------------------------


def test_each_command_job_runs_its_command_with_the_token() -> None:
    for command, (workflow, job) in COMMAND_JOBS.items():
        steps = yaml.safe_load((WORKFLOWS / workflow).read_text("utf-8"))["jobs"][job]["steps"]
        runs = [
            s for s in steps if re.search(rf'claims"?\s+github\s+{command}\b', s.get("run", ""))
        ]
        assert runs, f"{workflow} job {job} runs no `claims github {command}`"
        assert all("GITHUB_TOKEN" in (s.get("env") or {}) for s in runs)


def test_job_permissions_are_read_from_the_workflows() -> None:
    assert job_permissions("verify.yml", "verify") == {
        "contents": "read",
        "pull-requests": "read",
    }
    assert job_permissions("verify.yml", "publish")["checks"] == "write"
    assert job_permissions("verify.yml", "rerun") == {}


def test_a_call_outside_the_jobs_permissions_is_refused_as_github_refuses_it(
    fakehub: FakeHub,
) -> None:
    fakehub.repo.add_pull(7, "alice", HEAD)
    verify = gateway(fakehub, job_token("verify.yml", "verify"))
    assert verify.pull_request(7).head_sha == HEAD  # pull-requests: read
    with pytest.raises(GitHubError) as error:
        verify.create_check_run("registry: pull request", HEAD, "t", "s", [])
    assert error.value.status == 403
    assert "Resource not accessible by integration" in error.value.message
    refused = fakehub.requests[-1]
    assert (refused.method, refused.status) == ("POST", 403)
    assert fakehub.repo.check_runs == {}
    # the same call from the job that holds checks: write
    publish = gateway(fakehub, job_token("verify.yml", "publish"))
    publish.create_check_run("registry: pull request", HEAD, "t", "s", [])
    assert len(fakehub.repo.check_runs) == 1
    # a job with no permissions at all reads nothing (metadata aside)
    with pytest.raises(GitHubError, match="Resource not accessible by integration"):
        gateway(fakehub, job_token("verify.yml", "rerun")).pull_request(7)


def test_the_refusal_names_the_permission_it_wanted(fakehub: FakeHub) -> None:
    answer = requests.post(
        f"{fakehub.base_url}/repos/acme/registry/issues",
        json={"title": "t"},
        headers={"Authorization": f"token {job_token('verify.yml', 'verify')}"},
        timeout=10,
    )
    assert answer.status_code == 403
    assert answer.headers["x-accepted-github-permissions"] == "issues=write"
    assert answer.json()["message"] == "Resource not accessible by integration"
    assert "documentation_url" in answer.json()


# The issues list carries pull requests ---------------------------------------------------------


def test_the_issues_list_carries_pull_requests_and_the_bot_skips_them(fakehub: FakeHub) -> None:
    fakehub.repo.add_pull(7, "alice", HEAD)
    fakehub.repo.labels[7] = ["registry-warning"]
    port = gateway(fakehub, "t0ken")
    port.create_issue("market 3: warning", "body", ["registry-warning"])
    raw = requests.get(
        f"{fakehub.base_url}/repos/acme/registry/issues",
        params={"state": "all", "labels": "registry-warning"},
        headers={"Authorization": "token t0ken"},
        timeout=10,
    ).json()
    assert sorted("pull_request" in item for item in raw) == [False, True]
    pull = next(item for item in raw if "pull_request" in item)
    assert pull["number"] == 7 and pull["pull_request"]["url"].endswith("/pulls/7")
    listed = port.issues("registry-warning")
    assert [issue.title for issue in listed] == ["market 3: warning"]


# Rate limits ---------------------------------------------------------------------------------


def test_every_answer_tells_the_rate_limit(fakehub: FakeHub) -> None:
    fakehub.repo.add_pull(7, "alice", HEAD)
    first = requests.get(
        f"{fakehub.base_url}/repos/acme/registry/pulls/7",
        headers={"Authorization": "token t0ken"},
        timeout=10,
    )
    second = requests.get(
        f"{fakehub.base_url}/repos/acme/registry/pulls/8",
        headers={"Authorization": "token t0ken"},
        timeout=10,
    )
    assert first.headers["x-ratelimit-limit"] == "1000"
    assert first.headers["x-ratelimit-resource"] == "core"
    assert int(first.headers["x-ratelimit-used"]) + 1 == int(second.headers["x-ratelimit-used"])
    assert int(second.headers["x-ratelimit-remaining"]) == 1000 - int(
        second.headers["x-ratelimit-used"]
    )
    assert second.status_code == 404 and "x-ratelimit-reset" in second.headers


def test_a_spent_rate_limit_is_waited_for_within_the_bound_then_reported(
    fakehub: FakeHub,
) -> None:
    fakehub.repo.add_pull(7, "alice", HEAD)
    fakehub.rate.used = fakehub.rate.limit
    sleeps: list[float] = []
    with pytest.raises(GitHubError) as error:
        gateway(fakehub, "t0ken", sleeps).pull_request(7)
    assert error.value.status == 403
    assert "API rate limit exceeded" in error.value.message
    assert re.search(r"GitHub asks to wait \d+ s more, past the 300 s", error.value.message)
    assert "run the job again later" in error.value.hint
    assert sleeps == []  # the reset is an hour away: nothing is slept


def test_a_rate_limit_that_resets_soon_is_waited_out(fakehub: FakeHub) -> None:
    fakehub.repo.add_pull(7, "alice", HEAD)
    fakehub.fail_next(
        "GET",
        r"/repos/acme/registry/pulls/7",
        429,
        {"retry-after": "12", "x-ratelimit-remaining": "0"},
        {"message": "API rate limit exceeded"},
    )
    sleeps: list[float] = []
    assert gateway(fakehub, "t0ken", sleeps).pull_request(7).number == 7
    assert sleeps == [12.0]


def test_the_posting_job_out_of_rate_limit_says_so_without_a_traceback(
    fakehub: FakeHub,
    monkeypatch: pytest.MonkeyPatch,
    capsys: pytest.CaptureFixture[str],
    tmp_path: Path,
) -> None:
    monkeypatch.setenv("GITHUB_API_URL", fakehub.base_url)
    monkeypatch.setenv("GITHUB_REPOSITORY", fakehub.repository)
    monkeypatch.setenv("GITHUB_TOKEN", job_token("verify.yml", "publish"))
    connect_without_waits(monkeypatch)
    fakehub.repo.add_pull(7, "alice", reports.HEAD)
    fakehub.rate.used = fakehub.rate.limit
    report = tmp_path / "report.json"
    report.write_text(dumps(report_to_json(reports.invalid(3))), "utf-8")
    code = main(["github", "publish", str(report), "--pr", "7", "--head", reports.HEAD])
    out = capsys.readouterr()
    assert code not in (0, None)
    assert "API rate limit exceeded" in out.err
    assert "Traceback" not in out.out + out.err
    assert fakehub.repo.check_runs == {}


# Webhook payloads ------------------------------------------------------------------------------


def test_the_readers_take_githubs_example_payloads() -> None:
    pulls = [events.pull_request_event(e) for e in EXAMPLES["pull_request"]]
    runs = [events.workflow_run_event(e) for e in EXAMPLES["workflow_run"]]
    comments = [events.issue_comment_event(e) for e in EXAMPLES["issue_comment"]]
    assert pulls and runs and comments
    assert {p.action for p in pulls} >= {"opened", "synchronize", "reopened"}
    assert all(len(r.head_sha) == 40 for r in runs)
    # octokit has no example of a comment on a pull request; tests/github/events/ derives one
    assert {c.is_pull_request for c in comments} == {False}
    derived = Path(__file__).parent / "events" / "issue_comment.created.pull_request.json"
    assert events.issue_comment_event(json.loads(derived.read_text("utf-8"))).is_pull_request
    # verify.yml's locate step reads the default branch of a dispatched run's payload (the PR
    # number comes as the `pr` input, from `inputs`)
    dispatches = EXAMPLES["workflow_dispatch"]
    assert dispatches and all(
        events.is_branch_name(e["repository"]["default_branch"]) and isinstance(e["inputs"], dict)
        for e in dispatches
    )


def _event_paths(workflow: str) -> set[str]:
    text = (WORKFLOWS / workflow).read_text("utf-8")
    return set(re.findall(r"github\.event\.([a-z_]+(?:\.[a-z_]+)*)", text))


def _has(payload: Any, dotted: str) -> bool:
    for part in dotted.split("."):
        if not isinstance(payload, dict) or part not in payload:
            return False
        payload = payload[part]
    return True


@pytest.mark.parametrize("workflow", sorted(p.name for p in WORKFLOWS.glob("*.yml")))
def test_what_the_workflows_read_of_an_event_is_in_githubs_examples(workflow: str) -> None:
    document = yaml.safe_load((WORKFLOWS / workflow).read_text("utf-8"))
    triggers = document.get("on", document.get(True)) or {}
    kept = [name for name in triggers if name in EXAMPLES]
    # present only on a comment on a pull request, of which octokit has no example (see above)
    for path in _event_paths(workflow) - {"issue.pull_request"}:
        found = [name for name in kept if any(_has(e, path) for e in EXAMPLES[name])]
        assert found, f"{workflow}: github.event.{path} is in no example of {kept}"


# Zenodo: the depositions list has no bucket ------------------------------------------------


def test_a_listed_draft_is_read_again_for_its_bucket(fake_zenodo: FakeZenodo) -> None:
    from datetime import UTC, date, datetime

    from bot.edges.archive.port import ArchiveMetadata
    from bot.edges.archive.zenodo import ZenodoArchive

    metadata = ArchiveMetadata(
        repository_url="https://github.com/acme/registry",
        tag="snapshot-2027-06-30",
        publication_date=date(2027, 7, 2),
        description="The registry as frozen.",
        creators=("AI Safety Claims registry",),
        market="market-03",
    )
    tarball = fake_zenodo_tarball = Path(__file__).parent / "rest_examples.json"
    assert fake_zenodo_tarball.is_file()

    class Crash(Exception):
        pass

    def crash(step: str, state: DepositionState) -> None:
        if step == "created":
            raise Crash

    def archive(**options: Any) -> ZenodoArchive:
        clock = datetime(2027, 7, 2, tzinfo=UTC)
        return ZenodoArchive(
            fake_zenodo.base_url, TOKEN, sleep=lambda _: None, clock=lambda: clock, **options
        )

    with pytest.raises(Crash):
        archive(after_step=crash).archive(metadata.tag, tarball, metadata)
    listed = requests.get(
        f"{fake_zenodo.base_url}/deposit/depositions",
        params={"q": ""},
        headers={"Authorization": f"Bearer {TOKEN}"},
        timeout=10,
    ).json()
    assert listed and all("bucket" not in d["links"] for d in listed)
    ident = listed[0]["id"]
    before = len(fake_zenodo.log)
    record = archive().archive(metadata.tag, tarball, metadata)
    rerun = [(m, p) for m, p, _ in fake_zenodo.log[before:]]
    read = rerun.index(("GET", f"/api/deposit/depositions/{ident}"))
    upload = next(i for i, (m, p) in enumerate(rerun) if m == "PUT" and "/files/" in p)
    assert read < upload  # the bucket came from reading the deposition again
    assert record.record_id == str(ident)


# The script that writes the trimmed descriptions -----------------------------------------------


def test_the_trimming_inlines_references_and_admits_null_where_openapi_says_nullable() -> None:
    from tests.data.apis import regenerate

    owner = {"name": "owner", "in": "path", "required": True, "schema": {"type": "string"}}
    paths: dict[str, Any] = {}
    for method, template in regenerate.OPERATIONS:
        operation: dict[str, Any] = {
            "operationId": f"{method} {template}",
            "parameters": [
                {"$ref": "#/components/parameters/owner"},
                {"name": "X-Header", "in": "header", "schema": {"type": "string"}},
            ],
        }
        paths.setdefault(template, {})[method.lower()] = operation
    paths["/repos/{owner}/{repo}/check-runs"]["post"]["requestBody"] = {
        "required": True,
        "content": {
            "application/json": {
                "schema": {
                    "type": "object",
                    "description": "dropped",
                    "properties": {
                        "title": {"$ref": "#/components/schemas/text"},
                        "description": {"type": "string"},
                    },
                }
            }
        },
    }
    description = {
        "openapi": "3.0.3",
        "info": {"version": "1.0"},
        "paths": paths,
        "components": {
            "parameters": {"owner": owner},
            "schemas": {"text": {"type": "string", "nullable": True, "example": "x"}},
        },
    }
    out = regenerate.github_rest(description, "9.9.9")
    assert "@octokit/openapi 9.9.9" in out["source"]
    (create,) = [
        op
        for op in out["operations"]
        if (op["method"], op["path"]) == ("POST", "/repos/{owner}/{repo}/check-runs")
    ]
    assert create["parameters"] == [owner]  # the reference resolved, the header left out
    assert all("body" not in op for op in out["operations"] if op is not create)
    schema = create["body"]["schema"]
    assert schema["properties"] == {
        "title": {"anyOf": [{"type": "string"}, {"type": "null"}]},
        "description": {"type": "string"},  # a property named like the annotation stays
    }
    assert "description" not in schema
    checker = apicheck.ApiDescription(out)
    body = json.dumps({"title": None}).encode()
    assert checker.problems("POST", "/repos/a/r/check-runs", [], body) == []
    assert checker.problems("POST", "/repos/a/r/check-runs", [], b'{"title": 3}')

"""A stateful fake of GitHub's REST API on 127.0.0.1, for tests that run the real PyGithub
client (through `bot.edges.github.gateway`) over real HTTP.

Use the `fakehub` fixture (tests/conftest.py): `hub.base_url` ends in `/api/v3` (as on GitHub
Enterprise Server); `hub.state.repo("acme/registry")` holds that repository's pull requests,
check runs (with their annotations), comments, labels, collaborator roles, reviews, the
commit -> pull requests map, the account each commit's author is linked to, and the files of
each commit with a log of the commits `PUT contents` made. `hub.requests` logs every request
(`method`, `path` after the prefix, `query`, `json`, `status`). `hub.fail_next(method,
path_pattern, status, ...)` makes the next matching request fail; `apply=True` performs it
first (the server did the write, the answer was lost); status 0 closes the connection
without an answer.

Answers are GitHub's own examples (tests/github/rest_examples.json, written by
make_rest_examples.py from github/rest-api-description), filled in from the state, every URL on
the fake's own host. What GitHub validates and matters to the bot is validated here too: at most
50 annotations a request and their levels, a check run's output title and summary, a comment
body of at most 65,536 characters (422 otherwise), a stale blob sha on `PUT contents` (409).
Lists are paginated with `per_page`/`page` and a Link header.

`repo.settings` (a `Settings`) holds what `claims github doctor` reads: the merge buttons,
rulesets (branch rules are computed from them), classic branch protection, environments with
their branch policies and secret names, Actions' permissions, Pages; `state.teams` the members
of organisation teams. With `settings.admin` False the token is not an admin's: the settings
endpoints GitHub shows to admins only answer 403, and a ruleset's bypass list and the
repository's merge buttons are left out, as GitHub leaves them out.

Every request is checked against GitHub's REST API description (tests/apicheck.py, the
operations the gateway uses, from @octokit/openapi): one unlike it (method and path, query
parameters, JSON body) is answered 400 and kept in `hub.violations`; `stop()` (and so the
`fakehub` fixture) then fails the test, naming each.
To serve a new operation: add it to OPERATIONS in tests/data/apis/regenerate.py and rerun
that on `npm pack @octokit/openapi@23.0.2`, give it its scope in PERMISSIONS, then a route
here (tests/github/test_fakes_as_github.py checks the description and PERMISSIONS agree).

Tokens: a token `job:WORKFLOW:JOB` (`job_token` in tests/support.py) holds the `permissions:`
of that job in .github/workflows/WORKFLOW, as a GITHUB_TOKEN does: a call needing a scope the
job lacks (PERMISSIONS: operation -> scope) is answered 403 "Resource not accessible by
integration" with `x-accepted-github-permissions`, as GitHub answers. Any other token may do
everything (an admin's personal token). Every answer carries GitHub's rate-limit headers
(`x-ratelimit-limit/remaining/reset/used/resource`); once `hub.rate.used` reaches
`hub.rate.limit` each request is answered 403 with `x-ratelimit-remaining: 0`, as GitHub
answers a primary rate limit.

`GET /repos/{o}/{r}/issues` lists pull requests too, each with its `pull_request` key, as
GitHub does.
"""

from __future__ import annotations

import base64
import copy
import hashlib
import itertools
import json
import re
import threading
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fnmatch import fnmatchcase
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

import yaml

from tests import apicheck

__all__ = [
    "PERMISSIONS",
    "Environment",
    "FakeHub",
    "Issue",
    "Pull",
    "RateLimit",
    "Repo",
    "Request",
    "Settings",
    "State",
    "job_permissions",
]

EXAMPLES: dict[str, Any] = json.loads(
    Path(__file__).with_name("rest_examples.json").read_text("utf-8")
)
PREFIX = "/api/v3"
BOT = "github-actions[bot]"
MAX_COMMENT = 65_536  # GitHub: "Body is too long (maximum is 65536 characters)"
MAX_ANNOTATIONS = 50  # per create or update request (docs.github.com/rest/checks/runs)
# A check run's output summary and text: "**Maximum length**: 65535 characters" (the REST API
# description, github/rest-api-description, check-run output `maxLength: 65535`).
MAX_OUTPUT_TEXT = 65_535
LEVELS = {"notice", "warning", "failure"}
# What GET /collaborators/{u}/permission calls `permission` for each role (maintain -> write,
# triage -> read).
PERMISSION = {"admin": "admin", "maintain": "write", "write": "write", "triage": "read"}
WORKFLOWS = Path(__file__).resolve().parents[2] / ".github" / "workflows"

# What each operation the gateway uses needs of a GitHub App's (so the GITHUB_TOKEN's)
# permissions, from GitHub's "Permissions required for GitHub Apps" page
# (docs.github.com/rest/authentication/permissions-required-for-github-apps): (scope, level),
# or several (any one suffices: issue comments and labels also answer to pull-requests on a
# pull request). None: only `metadata: read`, which every token holds. Scopes a GITHUB_TOKEN
# never holds (administration, secrets, members) make the call a 403 for any job token.
_R_ = "/repos/{owner}/{repo}"
PERMISSIONS: dict[tuple[str, str], tuple[tuple[str, str], ...] | None] = {
    ("GET", _R_ + "/pulls/{pull_number}"): (("pull-requests", "read"),),
    ("PATCH", _R_ + "/pulls/{pull_number}"): (("pull-requests", "write"),),
    ("GET", _R_ + "/pulls"): (("pull-requests", "read"),),
    ("GET", _R_ + "/pulls/{pull_number}/reviews"): (("pull-requests", "read"),),
    ("GET", _R_ + "/commits/{commit_sha}/pulls"): (("pull-requests", "read"),),
    ("GET", _R_ + "/commits/{ref}"): (("contents", "read"),),
    ("GET", _R_ + "/collaborators/{username}/permission"): None,
    ("POST", _R_ + "/check-runs"): (("checks", "write"),),
    ("GET", _R_ + "/check-runs/{check_run_id}"): (("checks", "read"),),
    ("PATCH", _R_ + "/check-runs/{check_run_id}"): (("checks", "write"),),
    ("GET", _R_ + "/commits/{ref}/check-runs"): (("checks", "read"),),
    ("GET", _R_ + "/issues/{issue_number}/comments"): (
        ("issues", "read"),
        ("pull-requests", "read"),
    ),
    ("POST", _R_ + "/issues/{issue_number}/comments"): (
        ("issues", "write"),
        ("pull-requests", "write"),
    ),
    ("GET", _R_ + "/issues/comments/{comment_id}"): (("issues", "read"), ("pull-requests", "read")),
    ("PATCH", _R_ + "/issues/comments/{comment_id}"): (
        ("issues", "write"),
        ("pull-requests", "write"),
    ),
    ("GET", _R_ + "/issues/{issue_number}/labels"): (("issues", "read"), ("pull-requests", "read")),
    ("POST", _R_ + "/issues/{issue_number}/labels"): (
        ("issues", "write"),
        ("pull-requests", "write"),
    ),
    ("DELETE", _R_ + "/issues/{issue_number}/labels/{name}"): (
        ("issues", "write"),
        ("pull-requests", "write"),
    ),
    ("GET", _R_ + "/issues"): (("issues", "read"),),
    ("POST", _R_ + "/issues"): (("issues", "write"),),
    ("GET", _R_ + "/contents/{path}"): (("contents", "read"),),
    ("PUT", _R_ + "/contents/{path}"): (("contents", "write"),),
    ("POST", _R_ + "/actions/workflows/{workflow_id}/dispatches"): (("actions", "write"),),
    ("GET", _R_): None,
    ("GET", _R_ + "/rulesets"): None,
    ("GET", _R_ + "/rulesets/{ruleset_id}"): None,
    ("GET", _R_ + "/rules/branches/{branch}"): None,
    ("GET", _R_ + "/branches/{branch}/protection"): (("administration", "read"),),
    ("GET", _R_ + "/environments/{environment_name}"): (("actions", "read"),),
    ("GET", _R_ + "/environments/{environment_name}/deployment-branch-policies"): (
        ("actions", "read"),
    ),
    ("GET", _R_ + "/environments/{environment_name}/secrets"): (("secrets", "read"),),
    ("GET", _R_ + "/actions/permissions/workflow"): (("administration", "read"),),
    ("GET", _R_ + "/actions/permissions"): (("administration", "read"),),
    ("GET", _R_ + "/pages"): (("pages", "read"),),
    ("GET", "/orgs/{org}/teams/{team_slug}/members"): (("members", "read"),),
}
_LEVELS = {"none": 0, "read": 1, "write": 2}
# The scopes `permissions: read-all` / `write-all` give (docs.github.com/actions/reference/
# workflow-syntax-for-github-actions#permissions).
_SCOPES = (
    "actions",
    "attestations",
    "checks",
    "contents",
    "deployments",
    "discussions",
    "id-token",
    "issues",
    "models",
    "packages",
    "pages",
    "pull-requests",
    "repository-projects",
    "security-events",
    "statuses",
)


def job_permissions(workflow: str, job: str) -> dict[str, str]:
    """The GITHUB_TOKEN scopes of `job` in .github/workflows/`workflow`: the job's
    `permissions:`, else the workflow's (a block lists what it grants; the rest is none)."""
    document = yaml.safe_load((WORKFLOWS / workflow).read_text("utf-8"))
    jobs = document.get("jobs") or {}
    if job not in jobs:
        raise KeyError(f"{workflow} has no job {job!r}")
    block = jobs[job].get("permissions", document.get("permissions", "write-all"))
    if block in ("read-all", "write-all"):
        return {scope: block.removesuffix("-all") for scope in _SCOPES}
    return {str(k): str(v) for k, v in (block or {}).items()}


@dataclass
class RateLimit:
    """The token's primary budget, as the x-ratelimit-* headers tell it (a GITHUB_TOKEN:
    1,000 requests an hour per repository). `reset` is epoch seconds."""

    limit: int = 1000
    used: int = 0
    reset: int = field(default_factory=lambda: int(time.time()) + 3600)
    resource: str = "core"

    def headers(self) -> dict[str, str]:
        return {
            "x-ratelimit-limit": str(self.limit),
            "x-ratelimit-remaining": str(max(self.limit - self.used, 0)),
            "x-ratelimit-reset": str(self.reset),
            "x-ratelimit-used": str(self.used),
            "x-ratelimit-resource": self.resource,
        }


def _now() -> str:
    return datetime.now(UTC).strftime("%Y-%m-%dT%H:%M:%SZ")


def blob_sha(content: bytes) -> str:
    """Git's blob id, which the contents API calls `sha`."""
    return hashlib.sha1(b"blob %d\0" % len(content) + content).hexdigest()


@dataclass
class Pull:
    number: int
    author: str
    head_sha: str
    head_branch: str
    head_repo: str | None  # owner/name; None: the fork was deleted
    base_branch: str = "main"
    state: str = "open"
    merged_at: str | None = None
    merge_commit_sha: str | None = None
    title: str = "an attempt"


@dataclass
class CheckRun:
    id: int
    name: str
    head_sha: str
    external_id: str = ""
    status: str = "queued"
    conclusion: str | None = None
    title: str | None = None
    summary: str | None = None
    text: str | None = None
    details_url: str | None = None
    annotations: list[dict[str, Any]] = field(default_factory=list)
    started_at: str = field(default_factory=_now)
    completed_at: str | None = None


@dataclass
class Comment:
    id: int
    issue: int
    body: str
    login: str = BOT
    user_type: str = "Bot"
    created_at: str = field(default_factory=_now)
    updated_at: str = field(default_factory=_now)


@dataclass
class Review:
    id: int
    login: str
    state: str
    commit_id: str
    submitted_at: str | None = field(default_factory=_now)
    body: str = ""


@dataclass
class Issue:
    number: int
    title: str
    body: str
    labels: list[str]
    state: str = "open"
    login: str = BOT
    created_at: str = field(default_factory=_now)


@dataclass
class Environment:
    """A deployment environment: `branches` None deploys from any branch, else only from
    those (custom branch policies); the names of its secrets; required reviewers or not."""

    branches: list[str] | None = None
    secrets: list[str] = field(default_factory=list)
    reviewers: bool = False


@dataclass
class Settings:
    admin: bool = True  # the token's user is an admin of the repository
    default_branch: str = "main"
    allow_merge_commit: bool = True
    allow_squash_merge: bool = True
    allow_rebase_merge: bool = True
    # id -> a ruleset as GET /rulesets/{id} has it (name, target, enforcement, bypass_actors,
    # conditions, rules)
    rulesets: dict[int, dict[str, Any]] = field(default_factory=dict)
    protection: dict[str, Any] | None = None  # classic protection of the default branch
    environments: dict[str, Environment] = field(default_factory=dict)
    workflow_permissions: dict[str, Any] = field(
        default_factory=lambda: {
            "default_workflow_permissions": "read",
            "can_approve_pull_request_reviews": False,
        }
    )
    actions: dict[str, Any] = field(
        default_factory=lambda: {"enabled": True, "allowed_actions": "all"}
    )
    pages: dict[str, Any] | None = None  # GET /pages (build_type, ...); None: Pages is off


@dataclass
class Repo:
    full_name: str
    ids: Iterator[int]
    pulls: dict[int, Pull] = field(default_factory=dict)
    check_runs: dict[int, CheckRun] = field(default_factory=dict)
    comments: dict[int, Comment] = field(default_factory=dict)
    labels: dict[int, list[str]] = field(default_factory=dict)
    roles: dict[str, str] = field(default_factory=dict)  # login -> role_name; absent: 404
    reviews: dict[int, list[Review]] = field(default_factory=dict)
    commit_pulls: dict[str, list[int]] = field(default_factory=dict)  # sha -> PR numbers
    # sha -> the account GitHub links the commit's author email to (GET /commits/{sha}
    # `author.login`); a PR head or seeded commit not listed here has `author` null.
    commit_authors: dict[str, str] = field(default_factory=dict)
    branches: dict[str, str] = field(default_factory=dict)  # branch -> commit sha
    trees: dict[str, dict[str, bytes]] = field(default_factory=dict)  # commit -> files
    commits: list[dict[str, Any]] = field(default_factory=list)  # what PUT contents made
    dispatches: list[dict[str, Any]] = field(default_factory=list)  # workflow_dispatch events
    issues: dict[int, Issue] = field(default_factory=dict)  # issues that are no pull request
    # Called with each commit PUT contents makes (a test mirrors it into a real git repository).
    on_commit: Any = None
    settings: Settings = field(default_factory=Settings)

    def add_pull(self, number: int, author: str, head_sha: str, **fields: Any) -> Pull:
        fields.setdefault("head_branch", f"{author}-attempt")
        fields.setdefault("head_repo", self.full_name)
        pull = Pull(number, author, head_sha, **fields)
        self.pulls[number] = pull
        self.commit_pulls.setdefault(head_sha, []).append(number)
        return pull

    def add_comment(self, issue: int, body: str, login: str = BOT, user_type: str = "Bot") -> int:
        comment = Comment(next(self.ids), issue, body, login, user_type)
        self.comments[comment.id] = comment
        return comment.id

    def add_review(self, number: int, login: str, state: str, commit_id: str) -> None:
        self.reviews.setdefault(number, []).append(Review(next(self.ids), login, state, commit_id))

    def comments_on(self, issue: int) -> list[Comment]:
        return [c for c in self.comments.values() if c.issue == issue]

    def runs_named(self, name: str) -> list[CheckRun]:
        return [run for run in self.check_runs.values() if run.name == name]

    def commit_files(self, branch: str, files: dict[str, bytes], message: str = "seed") -> str:
        """Make a commit on `branch` whose tree is its parent's plus `files`; return its sha."""
        parent = self.branches.get(branch)
        tree = {**self.trees.get(parent or "", {}), **files}
        sha = hashlib.sha1(f"{parent}{sorted(tree.items())}{message}".encode()).hexdigest()
        self.trees[sha] = tree
        self.branches[branch] = sha
        self.commits.append(
            {"sha": sha, "branch": branch, "parent": parent, "message": message, "files": files}
        )
        return sha


@dataclass
class State:
    repos: dict[str, Repo] = field(default_factory=dict)
    ids: Iterator[int] = field(default_factory=lambda: itertools.count(1001))
    teams: dict[str, list[str]] = field(default_factory=dict)  # "org/team" -> member logins

    def repo(self, full_name: str) -> Repo:
        if full_name not in self.repos:
            self.repos[full_name] = Repo(full_name, self.ids)
        return self.repos[full_name]


@dataclass(frozen=True)
class Request:
    method: str
    path: str  # after /api/v3, without the query
    query: dict[str, str]
    json: Any
    status: int  # what the fake answered (0: no answer)


@dataclass
class _Fault:
    method: str
    pattern: str
    status: int
    headers: dict[str, str]
    body: Any
    apply: bool


class _Answer(Exception):
    def __init__(self, status: int, body: Any = None, headers: dict[str, str] | None = None):
        super().__init__(status)
        self.status, self.body, self.headers = status, body, headers or {}


def _error(status: int, message: str, **extra: Any) -> _Answer:
    doc = "https://docs.github.com/rest"
    return _Answer(status, {"message": message, "documentation_url": doc, **extra})


class FakeHub:
    """The server: start() it, read `base_url`, `state` and `requests`, stop() it."""

    def __init__(self, repository: str = "acme/registry") -> None:
        self.state = State()
        self.repository = repository
        self.state.repo(repository)
        self.requests: list[Request] = []
        self.violations: list[str] = []  # requests unlike GitHub's REST API description
        self.rate = RateLimit()
        self._grants: dict[str, dict[str, str] | None] = {}
        self._faults: list[_Fault] = []
        self._lock = threading.Lock()
        self._server = ThreadingHTTPServer(("127.0.0.1", 0), _handler(self))
        self.origin = f"http://127.0.0.1:{self._server.server_address[1]}"
        self.base_url = self.origin + PREFIX
        self._thread = threading.Thread(
            target=self._server.serve_forever, args=(0.02,), daemon=True
        )

    @property
    def repo(self) -> Repo:
        return self.state.repo(self.repository)

    def start(self) -> FakeHub:
        self._thread.start()
        return self

    def stop(self, check: bool = True) -> None:
        """Stop serving; with `check`, fail (AssertionError) when some request was unlike
        GitHub's REST API description."""
        self._server.shutdown()
        self._server.server_close()
        self._thread.join(5)
        if check and self.violations:
            raise AssertionError(
                "requests unlike GitHub's REST API description"
                f" ({apicheck.github().source}):\n" + "\n".join(self.violations)
            )

    def grants(self, token: str) -> dict[str, str] | None:
        """The scopes `token` holds (None: every one)."""
        if token not in self._grants:
            grants = None
            if token.startswith("job:"):
                _, workflow, job = token.split(":", 2)
                grants = job_permissions(workflow, job)
            self._grants[token] = grants
        return self._grants[token]

    def fail_next(
        self,
        method: str,
        path_pattern: str,
        status: int,
        headers: dict[str, str] | None = None,
        body: Any = None,
        apply: bool = False,
    ) -> None:
        """The next `method` request whose path (after /api/v3) fully matches the regular
        expression `path_pattern` is answered `status` (0: the connection is closed
        unanswered); with `apply` the request is carried out first. Faults queue in order."""
        if body is None and status:
            body = {"message": HTTPStatus(status).phrase}
        self._faults.append(_Fault(method, path_pattern, status, headers or {}, body, apply))

    def calls(self, method: str, pattern: str) -> list[Request]:
        """The logged requests of `method` whose path fully matches `pattern`."""
        return [r for r in self.requests if r.method == method and re.fullmatch(pattern, r.path)]

    # Serving -----------------------------------------------------------------------

    def serve(
        self, method: str, target: str, body: bytes, headers: Callable[[str], str | None]
    ) -> tuple[int, dict[str, str], Any]:
        parts = urlsplit(target)
        raw = parts.path[len(PREFIX) :] if parts.path.startswith(PREFIX) else parts.path
        path = unquote(raw)
        pairs = parse_qsl(parts.query, keep_blank_values=True)
        query = dict(pairs)
        try:
            data = json.loads(body) if body else None
        except ValueError:
            data = None
        authorization = (headers("Authorization") or "").split()
        token = authorization[-1] if authorization else ""
        problems = apicheck.github().problems(
            method, raw, pairs, body, headers("Content-Type") or ""
        )
        with self._lock:
            if problems:
                self.violations += problems
                refusal = _error(400, "Problems parsing request: " + "; ".join(problems))
                self.requests.append(Request(method, path, query, data, 400))
                return refusal.status, refusal.headers, refusal.body
            fault = next(
                (f for f in self._faults if f.method == method and re.fullmatch(f.pattern, path)),
                None,
            )
            if fault is not None:
                self._faults.remove(fault)
            answer: tuple[int, dict[str, str], Any] = (0, {}, None)
            if fault is None or fault.apply:
                answer = self._limited(method, raw, token) or self._route(
                    method, path, query, data, bool(token)
                )
            if fault is not None:
                answer = (fault.status, fault.headers, fault.body)
            elif answer[0]:
                answer = (answer[0], {**self.rate.headers(), **answer[1]}, answer[2])
            self.requests.append(Request(method, path, query, data, answer[0]))
            return answer

    def _limited(self, method: str, raw: str, token: str) -> tuple[int, dict[str, str], Any] | None:
        """A 403 when the rate limit is spent or `token`'s job lacks the scope the call needs
        (GitHub's answers to both); None: go on. Every answered request counts."""
        if self.rate.used >= self.rate.limit:
            doc = "https://docs.github.com/rest/using-the-rest-api/rate-limits-for-the-rest-api"
            message = "API rate limit exceeded for installation. If you reach out to GitHub"
            message += " Support for help, please include the request ID."
            body = {"message": message, "documentation_url": doc, "status": "403"}
            return 403, {}, body
        self.rate.used += 1
        grants = self.grants(token)
        found = apicheck.github().match(method, raw)
        if grants is None or found is None:
            return None
        needs = PERMISSIONS.get((method, found[0].path), (("unknown", "write"),))
        if needs is None:
            return None
        held = [_LEVELS.get(grants.get(scope, "none"), 0) >= _LEVELS[lv] for scope, lv in needs]
        if any(held):
            return None
        accepted = "; ".join(f"{scope.replace('-', '_')}={level}" for scope, level in needs)
        body = {
            "message": "Resource not accessible by integration",
            "documentation_url": "https://docs.github.com/rest",
            "status": "403",
        }
        return 403, {"x-accepted-github-permissions": accepted}, body

    def _route(
        self, method: str, path: str, query: dict[str, str], data: Any, authorized: bool
    ) -> tuple[int, dict[str, str], Any]:
        try:
            if not authorized:
                raise _error(401, "Requires authentication")
            team = re.fullmatch(r"/orgs/([^/]+)/teams/([^/]+)/members", path)
            if team and method == "GET":
                key = f"{team[1]}/{team[2]}"
                if key not in self.state.teams:
                    raise _error(404, "Not Found")
                members = [self._user(login) for login in self.state.teams[key]]
                return self._paged(200, members, path, query)
            for pattern, verb, handler in _ROUTES:
                match = re.fullmatch(pattern, path)
                if match and verb == method:
                    owner, name, *rest = match.groups()
                    full_name = f"{owner}/{name}"
                    if full_name not in self.state.repos:
                        raise _error(404, "Not Found")
                    repo = self.state.repos[full_name]
                    result = handler(self, repo, query, data, *rest)
                    status, body = result if isinstance(result, tuple) else (200, result)
                    return self._paged(status, body, path, query)
            raise _error(404, "Not Found")
        except _Answer as answer:
            return answer.status, answer.headers, answer.body

    def _paged(
        self, status: int, body: Any, path: str, query: dict[str, str]
    ) -> tuple[int, dict[str, str], Any]:
        """Lists are cut into pages (per_page, default 30, at most 100) linked by Link."""
        items, key = body, None
        if isinstance(body, dict) and "check_runs" in body:
            items, key = body["check_runs"], "check_runs"
        if not isinstance(items, list) or status != 200:
            return status, {}, self._urls(body)
        per_page = min(max(int(query.get("per_page", 30)), 1), 100)
        page = max(int(query.get("page", 1)), 1)
        last = max((len(items) + per_page - 1) // per_page, 1)
        chunk = items[(page - 1) * per_page : page * per_page]

        def link(number: int, rel: str) -> str:
            url = f"{self.base_url}{quote(path)}?{urlencode({**query, 'page': number})}"
            return f'<{url}>; rel="{rel}"'

        links = []
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(page - 1, "prev")]
        headers = {"Link": ", ".join(links)} if links else {}
        out = {"total_count": len(items), key: chunk} if key else chunk
        return status, headers, self._urls(out)

    def _urls(self, value: Any) -> Any:
        """Point the examples' {api} and {web} URLs at this server."""
        if isinstance(value, dict):
            return {k: self._urls(v) for k, v in value.items()}
        if isinstance(value, list):
            return [self._urls(v) for v in value]
        if isinstance(value, str):
            if value.startswith("{api}"):
                return self.base_url + value[5:]
            if value.startswith("{web}"):
                return self.origin + "/web" + value[5:]
        return value

    # Shapes (GitHub's examples, filled in) --------------------------------------------

    def _user(self, login: str, user_type: str = "User") -> dict[str, Any]:
        user = copy.deepcopy(EXAMPLES["issue-comment"]["user"])
        user_id = int(hashlib.sha1(login.encode()).hexdigest()[:6], 16)
        user.update(login=login, id=user_id, type=user_type, url=f"{{api}}/users/{login}")
        user["html_url"] = f"{{web}}/{login}"
        return user

    def _repository(self, full_name: str) -> dict[str, Any]:
        data = copy.deepcopy(EXAMPLES["pull-request"]["head"]["repo"])
        owner, name = full_name.split("/")
        data.update(name=name, full_name=full_name, owner=self._user(owner, "Organization"))
        data.update(url=f"{{api}}/repos/{full_name}", html_url=f"{{web}}/{full_name}")
        data.update(id=int(hashlib.sha1(full_name.encode()).hexdigest()[:6], 16))
        data["fork"] = full_name != self.repository
        return data

    def pull_json(self, repo: Repo, pull: Pull, simple: bool = False) -> dict[str, Any]:
        data = copy.deepcopy(EXAMPLES["pull-request-simple" if simple else "pull-request"])
        api, web = f"{{api}}/repos/{repo.full_name}", f"{{web}}/{repo.full_name}"
        head_owner = (pull.head_repo or f"{pull.author}/deleted").split("/")[0]
        data.update(
            url=f"{api}/pulls/{pull.number}",
            id=pull.number * 1000 + 7,
            number=pull.number,
            state=pull.state,
            title=pull.title,
            user=self._user(pull.author),
            html_url=f"{web}/pull/{pull.number}",
            issue_url=f"{api}/issues/{pull.number}",
            merged_at=pull.merged_at,
            merge_commit_sha=pull.merge_commit_sha,
            closed_at=pull.merged_at if pull.state == "closed" else None,
            draft=False,
        )
        data["head"].update(
            label=f"{head_owner}:{pull.head_branch}",
            ref=pull.head_branch,
            sha=pull.head_sha,
            user=self._user(head_owner),
            repo=self._repository(pull.head_repo) if pull.head_repo else None,
        )
        owner = repo.full_name.split("/")[0]
        data["base"].update(
            label=f"{owner}:{pull.base_branch}",
            ref=pull.base_branch,
            sha=repo.branches.get(pull.base_branch, "0" * 40),
            user=self._user(owner, "Organization"),
            repo=self._repository(repo.full_name),
        )
        if not simple:
            data["merged"] = pull.merged_at is not None
        return data

    def run_json(self, repo: Repo, run: CheckRun) -> dict[str, Any]:
        data = copy.deepcopy(EXAMPLES["check-run"])
        api = f"{{api}}/repos/{repo.full_name}/check-runs/{run.id}"
        data.update(
            id=run.id,
            name=run.name,
            head_sha=run.head_sha,
            external_id=run.external_id,
            url=api,
            html_url=f"{{web}}/{repo.full_name}/runs/{run.id}",
            details_url=run.details_url,
            status=run.status,
            conclusion=run.conclusion,
            started_at=run.started_at,
            completed_at=run.completed_at,
            pull_requests=[],
        )
        data["output"].update(
            title=run.title,
            summary=run.summary,
            text=run.text,
            annotations_count=len(run.annotations),
            annotations_url=f"{api}/annotations",
        )
        return data

    def comment_json(self, repo: Repo, comment: Comment) -> dict[str, Any]:
        data = copy.deepcopy(EXAMPLES["issue-comment"])
        api = f"{{api}}/repos/{repo.full_name}"
        data.update(
            id=comment.id,
            url=f"{api}/issues/comments/{comment.id}",
            html_url=f"{{web}}/{repo.full_name}/pull/{comment.issue}#issuecomment-{comment.id}",
            body=comment.body,
            user=self._user(comment.login, comment.user_type),
            created_at=comment.created_at,
            updated_at=comment.updated_at,
            issue_url=f"{api}/issues/{comment.issue}",
        )
        return data

    def issue_json(self, repo: Repo, issue: Issue) -> dict[str, Any]:
        """An issue: the pull request example's fields an issue shares (GitHub's issue object
        has the same url, number, state, title, user, body, html_url and dates), its labels,
        and no `pull_request` key (which marks an issue that is a pull request)."""
        data = copy.deepcopy(EXAMPLES["pull-request-simple"])
        for key in ("head", "base", "merged_at", "merge_commit_sha", "draft", "issue_url"):
            data.pop(key, None)
        api = f"{{api}}/repos/{repo.full_name}/issues/{issue.number}"
        data.update(
            url=api,
            id=issue.number * 1000 + 9,
            number=issue.number,
            state=issue.state,
            title=issue.title,
            body=issue.body,
            user=self._user(issue.login, "Bot"),
            html_url=f"{{web}}/{repo.full_name}/issues/{issue.number}",
            labels=[self.label_json(repo, name) for name in issue.labels],
            created_at=issue.created_at,
            updated_at=issue.created_at,
            closed_at=None,
        )
        return data

    def pull_issue_json(self, repo: Repo, pull: Pull) -> dict[str, Any]:
        """A pull request as the issues API lists it: an issue with a `pull_request` key."""
        data = self.issue_json(
            repo, Issue(pull.number, pull.title, "", repo.labels.get(pull.number, []), pull.state)
        )
        web = f"{{web}}/{repo.full_name}/pull/{pull.number}"
        data.update(user=self._user(pull.author), html_url=web)
        data["pull_request"] = {
            "url": f"{{api}}/repos/{repo.full_name}/pulls/{pull.number}",
            "html_url": web,
            "diff_url": f"{web}.diff",
            "patch_url": f"{web}.patch",
            "merged_at": pull.merged_at,
        }
        return data

    def commit_json(self, repo: Repo, sha: str) -> dict[str, Any]:
        data = copy.deepcopy(EXAMPLES["commit"])
        api, web = f"{{api}}/repos/{repo.full_name}", f"{{web}}/{repo.full_name}"
        login = repo.commit_authors.get(sha)
        data.update(
            url=f"{api}/commits/{sha}",
            sha=sha,
            html_url=f"{web}/commit/{sha}",
            author=self._user(login) if login else None,
            committer=self._user("web-flow"),
        )
        data["commit"].update(url=f"{api}/git/commits/{sha}")
        data["commit"]["tree"].update(url=f"{api}/git/trees/{sha}")
        return data

    def label_json(self, repo: Repo, name: str) -> dict[str, Any]:
        data = copy.deepcopy(EXAMPLES["label"])
        data.update(
            id=int(hashlib.sha1(name.encode()).hexdigest()[:6], 16),
            url=f"{{api}}/repos/{repo.full_name}/labels/{quote(name)}",
            name=name,
            description=None,
            color="ededed",
            default=False,
        )
        return data

    def content_json(self, repo: Repo, path: str, content: bytes, ref: str) -> dict[str, Any]:
        data = copy.deepcopy(EXAMPLES["content-file"])
        api, sha = f"{{api}}/repos/{repo.full_name}", blob_sha(content)
        encoded = base64.b64encode(content).decode()
        data.update(
            size=len(content),
            name=path.rsplit("/", 1)[-1],
            path=path,
            # GitHub wraps the base64 text at 60 characters
            content="\n".join(encoded[i : i + 60] for i in range(0, len(encoded), 60)) + "\n",
            sha=sha,
            url=f"{api}/contents/{quote(path)}?ref={quote(ref)}",
            git_url=f"{api}/git/blobs/{sha}",
            html_url=f"{{web}}/{repo.full_name}/blob/{ref}/{path}",
            download_url=None,
        )
        return data


# Handlers: (hub, repo, query, json body, *path groups) -> body or (status, body) -------------

_R = r"/repos/([^/]+)/([^/]+)"


def _pull(repo: Repo, number: str) -> Pull:
    if int(number) not in repo.pulls:
        raise _error(404, "Not Found")
    return repo.pulls[int(number)]


def _get_pull(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str) -> Any:
    return hub.pull_json(repo, _pull(repo, number))


def _edit_pull(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str) -> Any:
    pull = _pull(repo, number)
    state = (data or {}).get("state")
    if state is not None:
        if state not in ("open", "closed"):
            raise _error(422, "Validation Failed")
        pull.state = state
    return hub.pull_json(repo, pull)


def _list_pulls(hub: FakeHub, repo: Repo, query: dict[str, str], data: Any) -> Any:
    state = query.get("state", "open")
    pulls = [p for p in repo.pulls.values() if state in ("all", p.state)]
    if "head" in query:
        owner, _, branch = query["head"].partition(":")
        pulls = [
            p
            for p in pulls
            if p.head_repo and p.head_repo.split("/")[0] == owner and p.head_branch == branch
        ]
    if "base" in query:
        pulls = [p for p in pulls if p.base_branch == query["base"]]
    return [hub.pull_json(repo, p, simple=True) for p in sorted(pulls, key=lambda p: -p.number)]


def _commit_pulls(hub: FakeHub, repo: Repo, query: Any, data: Any, sha: str) -> Any:
    return [hub.pull_json(repo, repo.pulls[n], simple=True) for n in repo.commit_pulls.get(sha, [])]


def _get_commit(hub: FakeHub, repo: Repo, query: Any, data: Any, sha: str) -> Any:
    heads = {p.head_sha for p in repo.pulls.values()} | set(repo.commit_pulls)
    if sha not in heads | set(repo.trees) | set(repo.commit_authors):
        raise _error(422, f"No commit found for SHA: {sha}")
    return hub.commit_json(repo, sha)


def _reviews(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str) -> Any:
    _pull(repo, number)
    out = []
    for review in repo.reviews.get(int(number), []):
        item = copy.deepcopy(EXAMPLES["pull-request-review"])
        item.update(
            id=review.id,
            user=hub._user(review.login),
            body=review.body,
            state=review.state,
            commit_id=review.commit_id,
            submitted_at=review.submitted_at,
            html_url=f"{{web}}/{repo.full_name}/pull/{number}#pullrequestreview-{review.id}",
            pull_request_url=f"{{api}}/repos/{repo.full_name}/pulls/{number}",
        )
        out.append(item)
    return out


def _permission(hub: FakeHub, repo: Repo, query: Any, data: Any, login: str) -> Any:
    if login not in repo.roles:
        raise _error(404, "Not Found")
    role = repo.roles[login]
    item = copy.deepcopy(EXAMPLES["collaborator-permission"])
    item.update(permission=PERMISSION.get(role, role), role_name=role, user=hub._user(login))
    return item


def _check_output(output: Any) -> list[dict[str, Any]]:
    if output is None:
        return []
    if not isinstance(output, dict) or not output.get("title") or not output.get("summary"):
        raise _error(422, 'Invalid request.\n\n"title" and "summary" are required in output.')
    for key in ("summary", "text"):
        if len(output.get(key) or "") > MAX_OUTPUT_TEXT:
            raise _error(422, f"Invalid request.\n\n{key} is too long (maximum is 65535).")
    annotations = output.get("annotations") or []
    if len(annotations) > MAX_ANNOTATIONS:
        raise _error(422, f"Invalid request.\n\nOnly {MAX_ANNOTATIONS} annotations are allowed.")
    for item in annotations:
        missing = [
            key
            for key in ("path", "start_line", "end_line", "annotation_level", "message")
            if key not in item
        ]
        if missing or item["annotation_level"] not in LEVELS:
            raise _error(422, f"Invalid request.\n\nBad annotation: {missing or item}")
    return list(annotations)


def _apply_run(run: CheckRun, data: dict[str, Any]) -> None:
    output = data.get("output")
    run.annotations += _check_output(output)
    if output is not None:
        run.title, run.summary, run.text = output["title"], output["summary"], output.get("text")
    for key in ("status", "details_url", "external_id"):
        if key in data:
            setattr(run, key, data[key])
    if data.get("conclusion"):
        run.conclusion, run.status, run.completed_at = data["conclusion"], "completed", _now()


def _create_run(hub: FakeHub, repo: Repo, query: Any, data: Any) -> Any:
    if not isinstance(data, dict) or not data.get("name") or not data.get("head_sha"):
        raise _error(422, 'Invalid request.\n\n"name" and "head_sha" are required.')
    run = CheckRun(next(repo.ids), data["name"], data["head_sha"])
    _apply_run(run, data)
    repo.check_runs[run.id] = run
    return 201, hub.run_json(repo, run)


def _run(repo: Repo, run_id: str) -> CheckRun:
    if int(run_id) not in repo.check_runs:
        raise _error(404, "Not Found")
    return repo.check_runs[int(run_id)]


def _get_run(hub: FakeHub, repo: Repo, query: Any, data: Any, run_id: str) -> Any:
    return hub.run_json(repo, _run(repo, run_id))


def _update_run(hub: FakeHub, repo: Repo, query: Any, data: Any, run_id: str) -> Any:
    run = _run(repo, run_id)
    _apply_run(run, data or {})
    return hub.run_json(repo, run)


def _runs_of_commit(hub: FakeHub, repo: Repo, query: dict[str, str], data: Any, sha: str) -> Any:
    runs = [r for r in repo.check_runs.values() if r.head_sha == sha]
    if "check_name" in query:
        runs = [r for r in runs if r.name == query["check_name"]]
    if query.get("filter", "latest") == "latest":  # the newest run of each name
        runs = list({r.name: r for r in sorted(runs, key=lambda r: r.id)}.values())
    return {"check_runs": [hub.run_json(repo, r) for r in sorted(runs, key=lambda r: -r.id)]}


def _issue(repo: Repo, number: str) -> int:
    if int(number) not in repo.issues:
        _pull(repo, number)  # a pull request is an issue too
    return int(number)


def _body(data: Any) -> str:
    body = data.get("body") if isinstance(data, dict) else None
    if not isinstance(body, str) or not body:
        raise _error(422, "Validation Failed", errors=[{"field": "body", "code": "missing"}])
    if len(body) > MAX_COMMENT:
        message = f"Body is too long (maximum is {MAX_COMMENT} characters)"
        raise _error(422, "Validation Failed", errors=[{"field": "data", "message": message}])
    return body


def _list_comments(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str) -> Any:
    issue = _issue(repo, number)
    return [hub.comment_json(repo, c) for c in repo.comments_on(issue)]


def _create_comment(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str) -> Any:
    comment_id = repo.add_comment(_issue(repo, number), _body(data))
    return 201, hub.comment_json(repo, repo.comments[comment_id])


def _comment(repo: Repo, comment_id: str) -> Comment:
    if int(comment_id) not in repo.comments:
        raise _error(404, "Not Found")
    return repo.comments[int(comment_id)]


def _get_comment(hub: FakeHub, repo: Repo, query: Any, data: Any, comment_id: str) -> Any:
    return hub.comment_json(repo, _comment(repo, comment_id))


def _edit_comment(hub: FakeHub, repo: Repo, query: Any, data: Any, comment_id: str) -> Any:
    comment = _comment(repo, comment_id)
    comment.body, comment.updated_at = _body(data), _now()
    return hub.comment_json(repo, comment)


def _labels(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str) -> Any:
    return [hub.label_json(repo, n) for n in repo.labels.get(_issue(repo, number), [])]


def _add_labels(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str) -> Any:
    names = data.get("labels") if isinstance(data, dict) else data
    if not isinstance(names, list) or not all(isinstance(n, str) for n in names):
        raise _error(422, "Validation Failed")
    current = repo.labels.setdefault(_issue(repo, number), [])
    current += [name for name in names if name not in current]
    return [hub.label_json(repo, n) for n in current]


def _remove_label(hub: FakeHub, repo: Repo, query: Any, data: Any, number: str, name: str) -> Any:
    current = repo.labels.setdefault(_issue(repo, number), [])
    if name not in current:
        raise _error(404, "Label does not exist")
    current.remove(name)
    return [hub.label_json(repo, n) for n in current]


def _tree(repo: Repo, ref: str) -> dict[str, bytes]:
    sha = repo.branches.get(ref, ref)
    if sha not in repo.trees:
        raise _error(404, f"No commit found for the ref {ref}")
    return repo.trees[sha]


def _get_content(hub: FakeHub, repo: Repo, query: dict[str, str], data: Any, path: str) -> Any:
    ref = query.get("ref", "main")
    tree = _tree(repo, ref)
    if path not in tree:
        raise _error(404, "Not Found")
    return hub.content_json(repo, path, tree[path], ref)


def _put_content(hub: FakeHub, repo: Repo, query: Any, data: Any, path: str) -> Any:
    if not isinstance(data, dict) or not data.get("message") or "content" not in data:
        raise _error(422, 'Invalid request.\n\n"message" and "content" are required.')
    branch = data.get("branch", "main")
    if branch not in repo.branches:
        raise _error(404, f"Branch {branch} not found")
    tree = repo.trees[repo.branches[branch]]
    if path in tree and not data.get("sha"):
        raise _error(422, 'Invalid request.\n\n"sha" wasn\'t supplied.')
    if path in tree and data["sha"] != blob_sha(tree[path]):
        raise _error(409, f"{path} does not match {data['sha']}")
    content = base64.b64decode(data["content"])
    created = path not in tree
    sha = repo.commit_files(branch, {path: content}, data["message"])
    repo.commits[-1]["committer"] = data.get("committer")
    if repo.on_commit is not None:
        repo.on_commit(repo.commits[-1])
    item = copy.deepcopy(EXAMPLES["file-commit"])
    file = hub.content_json(repo, path, content, branch)
    item["content"] = {key: file[key] for key in item["content"] if key in file}
    api = f"{{api}}/repos/{repo.full_name}/git"
    item["commit"].update(
        sha=sha,
        url=f"{api}/commits/{sha}",
        html_url=f"{{web}}/{repo.full_name}/commit/{sha}",
        message=data["message"],
        tree={"sha": blob_sha(sha.encode()), "url": f"{api}/trees/{sha}"},
    )
    return (201 if created else 200), item


def _list_issues(hub: FakeHub, repo: Repo, query: dict[str, str], data: Any) -> Any:
    """Issues and pull requests (GitHub: "every pull request is an issue, but not every
    issue is a pull request"; a pull request carries the `pull_request` key), newest first."""
    state = query.get("state", "open")
    wanted = [name for name in query.get("labels", "").split(",") if name]
    items: list[tuple[int, dict[str, Any]]] = []
    for issue in repo.issues.values():
        if state in ("all", issue.state) and all(name in issue.labels for name in wanted):
            items.append((issue.number, hub.issue_json(repo, issue)))
    for pull in repo.pulls.values():
        labels = repo.labels.get(pull.number, [])
        if state in ("all", pull.state) and all(name in labels for name in wanted):
            items.append((pull.number, hub.pull_issue_json(repo, pull)))
    return [item for _, item in sorted(items, key=lambda pair: -pair[0])]


def _create_issue(hub: FakeHub, repo: Repo, query: Any, data: Any) -> Any:
    if not isinstance(data, dict) or not isinstance(data.get("title"), str) or not data["title"]:
        raise _error(422, "Validation Failed", errors=[{"field": "title", "code": "missing"}])
    body = data.get("body") or ""
    if len(body) > MAX_COMMENT:
        message = f"Body is too long (maximum is {MAX_COMMENT} characters)"
        raise _error(422, "Validation Failed", errors=[{"field": "body", "message": message}])
    labels = [str(name) for name in data.get("labels") or []]
    issue = Issue(next(repo.ids), data["title"], body, labels)
    repo.issues[issue.number] = issue
    return 201, hub.issue_json(repo, issue)


def _dispatch(hub: FakeHub, repo: Repo, query: Any, data: Any, workflow: str) -> Any:
    # POST /repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches: 204, no body.
    if not isinstance(data, dict) or not isinstance(data.get("ref"), str):
        raise _error(422, 'Invalid request.\n\n"ref" wasn\'t supplied.')
    if data["ref"] not in repo.branches:
        raise _error(422, f"No ref found for: {data['ref']}")
    inputs = data.get("inputs") or {}
    repo.dispatches.append({"workflow": workflow, "ref": data["ref"], "inputs": inputs})
    return 204, None


# The settings `claims github doctor` reads ----------------------------------------------------


def _admin_only(repo: Repo) -> None:
    if not repo.settings.admin:
        raise _error(403, "Resource not accessible by integration")


def _get_repo(hub: FakeHub, repo: Repo, query: Any, data: Any) -> Any:
    settings = repo.settings
    item = copy.deepcopy(EXAMPLES["full-repository"])
    item.update(hub._repository(repo.full_name))
    item["default_branch"] = settings.default_branch
    item["permissions"] = {"admin": settings.admin, "push": True, "pull": True}
    for key in ("allow_merge_commit", "allow_squash_merge", "allow_rebase_merge"):
        if settings.admin:
            item[key] = getattr(settings, key)
        else:  # shown to admins only
            item.pop(key, None)
    return item


def _ruleset_json(hub: FakeHub, repo: Repo, ruleset_id: int, full: bool) -> dict[str, Any]:
    ruleset = repo.settings.rulesets[ruleset_id]
    item = copy.deepcopy(EXAMPLES["repository-ruleset" if full else "repository-ruleset-item"])
    item.update(id=ruleset_id, source=repo.full_name, source_type="Repository")
    item["_links"] = {
        "self": {"href": f"{{api}}/repos/{repo.full_name}/rulesets/{ruleset_id}"},
        "html": {"href": f"{{web}}/{repo.full_name}/rules/{ruleset_id}"},
    }
    keys = ("name", "target", "enforcement", "conditions", "rules", "bypass_actors")
    item.update({key: ruleset[key] for key in keys[: 6 if full else 3] if key in ruleset})
    if not full or not repo.settings.admin:
        item.pop("bypass_actors", None)  # GitHub shows the bypass list to admins only
    return item


def _list_rulesets(hub: FakeHub, repo: Repo, query: Any, data: Any) -> Any:
    return [_ruleset_json(hub, repo, i, False) for i in sorted(repo.settings.rulesets)]


def _get_ruleset(hub: FakeHub, repo: Repo, query: Any, data: Any, ruleset_id: str) -> Any:
    if int(ruleset_id) not in repo.settings.rulesets:
        raise _error(404, "Not Found")
    return _ruleset_json(hub, repo, int(ruleset_id), True)


def _ref_matches(repo: Repo, ruleset: dict[str, Any], ref: str) -> bool:
    names = (ruleset.get("conditions") or {}).get("ref_name") or {}
    default = f"refs/heads/{repo.settings.default_branch}"

    def hit(patterns: list[str]) -> bool:
        return any(
            p == "~ALL" or (p == "~DEFAULT_BRANCH" and ref == default) or fnmatchcase(ref, p)
            for p in patterns
        )

    return hit(names.get("include") or []) and not hit(names.get("exclude") or [])


def _branch_rules(hub: FakeHub, repo: Repo, query: Any, data: Any, branch: str) -> Any:
    out = []
    for ruleset_id, ruleset in sorted(repo.settings.rulesets.items()):
        target = ruleset.get("target", "branch")
        if target != "branch" or ruleset.get("enforcement") != "active":
            continue
        if not _ref_matches(repo, ruleset, f"refs/heads/{branch}"):
            continue
        for rule in ruleset.get("rules") or []:
            item = copy.deepcopy(EXAMPLES["repository-rule-item"])
            item.pop("parameters", None)
            item.update(rule, ruleset_id=ruleset_id, ruleset_source=repo.full_name)
            item["ruleset_source_type"] = "Repository"
            out.append(item)
    return out


def _protection(hub: FakeHub, repo: Repo, query: Any, data: Any, branch: str) -> Any:
    _admin_only(repo)
    if branch != repo.settings.default_branch or repo.settings.protection is None:
        raise _error(404, "Branch not protected")
    item = copy.deepcopy(EXAMPLES["branch-protection"])
    for key in list(item):
        if key != "url":
            item.pop(key)
    item.update(copy.deepcopy(repo.settings.protection))
    item["url"] = f"{{api}}/repos/{repo.full_name}/branches/{branch}/protection"
    return item


def _environment(repo: Repo, name: str) -> Environment:
    if name not in repo.settings.environments:
        raise _error(404, "Not Found")
    return repo.settings.environments[name]


def _get_environment(hub: FakeHub, repo: Repo, query: Any, data: Any, name: str) -> Any:
    env = _environment(repo, name)
    item = copy.deepcopy(EXAMPLES["environment"])
    item.update(
        name=name,
        url=f"{{api}}/repos/{repo.full_name}/environments/{name}",
        html_url=f"{{web}}/{repo.full_name}/deployments/activity_log?environments_filter={name}",
    )
    rules = [r for r in item["protection_rules"] if r.get("type") != "branch_policy"]
    item["protection_rules"] = [
        r for r in rules if env.reviewers or r.get("type") != "required_reviewers"
    ]
    item["deployment_branch_policy"] = (
        None
        if env.branches is None
        else {"protected_branches": False, "custom_branch_policies": True}
    )
    return item


def _branch_policies(hub: FakeHub, repo: Repo, query: Any, data: Any, name: str) -> Any:
    env = _environment(repo, name)
    branches = env.branches or []
    policies = [
        {"id": 361000 + n, "node_id": f"GBP{n}", "name": branch, "type": "branch"}
        for n, branch in enumerate(branches)
    ]
    return {"total_count": len(policies), "branch_policies": policies}


def _environment_secrets(hub: FakeHub, repo: Repo, query: Any, data: Any, name: str) -> Any:
    _admin_only(repo)
    env = _environment(repo, name)
    example = EXAMPLES["actions-secret-paginated"]["secrets"][0]
    secrets = [{**example, "name": secret} for secret in env.secrets]
    return {"total_count": len(secrets), "secrets": secrets}


def _workflow_permissions(hub: FakeHub, repo: Repo, query: Any, data: Any) -> Any:
    _admin_only(repo)
    item = copy.deepcopy(EXAMPLES["actions-default-workflow-permissions"])
    item.update(repo.settings.workflow_permissions)
    return item


def _actions_permissions(hub: FakeHub, repo: Repo, query: Any, data: Any) -> Any:
    _admin_only(repo)
    item = copy.deepcopy(EXAMPLES["actions-repository-permissions"])
    item.update(repo.settings.actions)
    return item


def _pages(hub: FakeHub, repo: Repo, query: Any, data: Any) -> Any:
    if repo.settings.pages is None:
        raise _error(404, "Not Found")
    item = copy.deepcopy(EXAMPLES["page"])
    item.update(url=f"{{api}}/repos/{repo.full_name}/pages", cname=None)
    item.update(repo.settings.pages)
    return item


_ROUTES: list[tuple[str, str, Any]] = [
    (_R + r"/pulls/(\d+)", "GET", _get_pull),
    (_R + r"/pulls/(\d+)", "PATCH", _edit_pull),
    (_R + r"/pulls", "GET", _list_pulls),
    (_R + r"/pulls/(\d+)/reviews", "GET", _reviews),
    (_R + r"/commits/([0-9a-f]+)/pulls", "GET", _commit_pulls),
    (_R + r"/commits/([^/]+)", "GET", _get_commit),
    (_R + r"/collaborators/([^/]+)/permission", "GET", _permission),
    (_R + r"/check-runs", "POST", _create_run),
    (_R + r"/check-runs/(\d+)", "GET", _get_run),
    (_R + r"/check-runs/(\d+)", "PATCH", _update_run),
    (_R + r"/commits/([^/]+)/check-runs", "GET", _runs_of_commit),
    (_R + r"/issues/(\d+)/comments", "GET", _list_comments),
    (_R + r"/issues/(\d+)/comments", "POST", _create_comment),
    (_R + r"/issues/comments/(\d+)", "GET", _get_comment),
    (_R + r"/issues/comments/(\d+)", "PATCH", _edit_comment),
    (_R + r"/issues/(\d+)/labels", "GET", _labels),
    (_R + r"/issues/(\d+)/labels", "POST", _add_labels),
    (_R + r"/issues/(\d+)/labels/(.+)", "DELETE", _remove_label),
    (_R + r"/contents/(.+)", "GET", _get_content),
    (_R + r"/contents/(.+)", "PUT", _put_content),
    (_R + r"/actions/workflows/([^/]+)/dispatches", "POST", _dispatch),
    (_R + r"/issues", "GET", _list_issues),
    (_R + r"/issues", "POST", _create_issue),
    (_R, "GET", _get_repo),
    (_R + r"/rulesets", "GET", _list_rulesets),
    (_R + r"/rulesets/(\d+)", "GET", _get_ruleset),
    (_R + r"/rules/branches/(.+)", "GET", _branch_rules),
    (_R + r"/branches/(.+)/protection", "GET", _protection),
    (_R + r"/environments/([^/]+)", "GET", _get_environment),
    (_R + r"/environments/([^/]+)/deployment-branch-policies", "GET", _branch_policies),
    (_R + r"/environments/([^/]+)/secrets", "GET", _environment_secrets),
    (_R + r"/actions/permissions/workflow", "GET", _workflow_permissions),
    (_R + r"/actions/permissions", "GET", _actions_permissions),
    (_R + r"/pages", "GET", _pages),
]


def _handler(hub: FakeHub) -> type[BaseHTTPRequestHandler]:
    class Handler(BaseHTTPRequestHandler):
        protocol_version = "HTTP/1.1"

        def _serve(self) -> None:
            length = int(self.headers.get("Content-Length") or 0)
            body = self.rfile.read(length) if length else b""
            status, headers, data = hub.serve(self.command, self.path, body, self.headers.get)
            if status == 0:  # the answer is lost
                self.close_connection = True
                return
            payload = b"" if data is None else json.dumps(data).encode()
            self.send_response(status)
            self.send_header("Content-Type", "application/json; charset=utf-8")
            self.send_header("Content-Length", str(len(payload)))
            for key, value in headers.items():
                self.send_header(key, value)
            self.end_headers()
            self.wfile.write(payload)

        do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve

        def log_message(self, format: str, *args: Any) -> None:
            pass

    return Handler

"""Write the event payload fixtures in tests/github/events/ from octokit/webhooks' examples.

Source: the public repository https://github.com/octokit/webhooks (MIT licence), files
`payload-examples/api.github.com/{pull_request/opened, workflow_run/completed,
issue_comment/created}.payload.json`, read from a git directory of it (a clone or a bare
mirror) at a commit. Each payload is trimmed to the fields `bot/faces/github/events.py` reads (plus
a few ids and URLs for recognition); URLs of api.github.com and github.com are rewritten to
the fake server's placeholder base (FAKE_API / FAKE_WEB; tests substitute their port).

Variants derived here, because octokit has no example of them:
- `workflow_run.completed.fork.json`: the `check` workflow's run on a fork's pull request
  (event `pull_request`, head repository a fork owned by another user, `pull_requests`
  empty, as GitHub sends it for forks), from workflow_run/completed.
- `issue_comment.created.pull_request.json`: a comment on a pull request (`issue.pull_request`
  present, with the fields octokit's `common/issue.schema.json` gives it) carrying /judge
  commands, from issue_comment/created.

Usage: python tests/github/make_event_fixtures.py OCTOKIT_GIT_DIR [COMMIT]
(here: /work/.mirror/octokit+webhooks/repo). Never hand-edit the output; rerun this.
"""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).resolve().parent / "events"
EXAMPLES = "payload-examples/api.github.com"
FAKE_API = "http://127.0.0.1:0/api/v3"
FAKE_WEB = "http://127.0.0.1:0"

# Kept fields, as dotted paths ("*" for every item of a list).
_USER = ("login", "id", "type")
_REPOSITORY = (
    "id",
    "name",
    "full_name",
    "owner.login",
    "owner.id",
    "owner.type",
    "fork",
    "default_branch",
    "url",
    "html_url",
)


def _paths(prefix: str, names: tuple[str, ...]) -> list[str]:
    return [f"{prefix}.{name}" for name in names]


KEEP: dict[str, list[str]] = {
    "pull_request/opened": [
        "action",
        "number",
        *_paths("pull_request", ("url", "html_url", "id", "number", "state", "title")),
        *_paths("pull_request.user", _USER),
        *_paths("pull_request.head", ("label", "ref", "sha")),
        *_paths("pull_request.head.repo", _REPOSITORY),
        *_paths("pull_request.base", ("label", "ref", "sha")),
        *_paths("pull_request.base.repo", _REPOSITORY),
        *_paths("repository", _REPOSITORY),
        *_paths("sender", _USER),
    ],
    "workflow_run/completed": [
        "action",
        *_paths(
            "workflow_run",
            (
                "id",
                "name",
                "event",
                "status",
                "conclusion",
                "head_sha",
                "head_branch",
                "run_number",
                "run_attempt",
                "url",
                "html_url",
                "workflow_id",
                "path",
            ),
        ),
        "workflow_run.pull_requests",
        *_paths("workflow_run.head_repository", ("id", "name", "full_name", "url", "html_url")),
        *_paths("workflow_run.head_repository.owner", _USER),
        *_paths("workflow_run.repository", ("id", "name", "full_name", "url", "html_url")),
        *_paths("workflow", ("id", "name", "path")),
        *_paths("repository", _REPOSITORY),
        *_paths("sender", _USER),
    ],
    "issue_comment/created": [
        "action",
        *_paths("issue", ("url", "html_url", "id", "number", "title", "state")),
        *_paths("issue.user", _USER),
        *_paths(
            "comment",
            ("url", "html_url", "id", "body", "created_at", "updated_at", "author_association"),
        ),
        *_paths("comment.user", _USER),
        *_paths("repository", _REPOSITORY),
        *_paths("sender", _USER),
    ],
}


def _read(git_dir: str, commit: str, name: str) -> dict[str, Any]:
    text = subprocess.run(
        ["git", "-C", git_dir, "show", f"{commit}:{EXAMPLES}/{name}.payload.json"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    data: dict[str, Any] = json.loads(text)
    return data


def _trim(data: Any, keep: list[str]) -> Any:
    """Only the kept paths of `data` (an object kept whole when its path is listed)."""
    out: dict[str, Any] = {}
    for path in keep:
        source: Any = data
        target = out
        parts = path.split(".")
        for index, part in enumerate(parts):
            if not isinstance(source, dict) or part not in source:
                break
            source = source[part]
            if index == len(parts) - 1:
                target[part] = copy.deepcopy(source)
            else:
                target = target.setdefault(part, {})
    return out


def _rewrite(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _rewrite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rewrite(item) for item in value]
    if isinstance(value, str):
        return value.replace("https://api.github.com", FAKE_API).replace(
            "https://github.com", FAKE_WEB
        )
    return value


def build(git_dir: str, commit: str = "HEAD") -> dict[str, dict[str, Any]]:
    """Every fixture, by file name."""
    fixtures: dict[str, dict[str, Any]] = {}
    for name, keep in KEEP.items():
        payload = _read(git_dir, commit, name)
        fixtures[f"{name.replace('/', '.')}.json"] = _rewrite(_trim(payload, keep))

    # A fork's pull request: the `check` workflow ran on `pull_request` in Codertocat's fork.
    fork = copy.deepcopy(fixtures["workflow_run.completed.json"])
    run = fork["workflow_run"]
    upstream = fork["repository"]["full_name"]
    run.update(
        name="check",
        event="pull_request",
        head_branch="changes",
        pull_requests=[],
        path=".github/workflows/check.yml",
    )
    head = run["head_repository"]
    head["id"] += 1  # another repository: the fork
    head["full_name"] = f"Codertocat/{head['name']}"
    head["url"] = f"{FAKE_API}/repos/Codertocat/{head['name']}"
    head["html_url"] = f"{FAKE_WEB}/Codertocat/{head['name']}"
    head["owner"] = {"login": "Codertocat", "id": 21031067, "type": "User"}
    assert run["repository"]["full_name"] == upstream
    fork["workflow"]["name"] = "check"
    fork["workflow"]["path"] = ".github/workflows/check.yml"
    fixtures["workflow_run.completed.fork.json"] = fork

    # A comment on a pull request, carrying /judge commands.
    comment = copy.deepcopy(fixtures["issue_comment.created.json"])
    issue = comment["issue"]
    repository = comment["repository"]["full_name"]
    number = issue["number"]
    issue["pull_request"] = {
        "url": f"{FAKE_API}/repos/{repository}/pulls/{number}",
        "html_url": f"{FAKE_WEB}/{repository}/pull/{number}",
        "diff_url": f"{FAKE_WEB}/{repository}/pull/{number}.diff",
        "patch_url": f"{FAKE_WEB}/{repository}/pull/{number}.patch",
        "merged_at": None,
    }
    comment["comment"]["body"] = (
        "Thanks, reviewed.\r\n\r\n/judge reconstructible pass released data and code rerun"
        "\r\n/judge not-toy-only fail only gridworlds\r\n"
    )
    fixtures["issue_comment.created.pull_request.json"] = comment
    return fixtures


def main(argv: list[str]) -> int:
    if len(argv) not in (2, 3):
        print(__doc__, file=sys.stderr)
        return 2
    OUT.mkdir(exist_ok=True)
    for name, data in build(argv[1], argv[2] if len(argv) == 3 else "HEAD").items():
        (OUT / name).write_text(json.dumps(data, indent=2, ensure_ascii=False) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))

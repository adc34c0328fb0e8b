"""Write tests/github/rest_examples.json: the response skeletons the fake GitHub server
(`tests/github/fakehub.py`) fills in.

Source: the `components.examples` of GitHub's REST API description, github/rest-api-description
`descriptions/api.github.com/api.github.com.json` (MIT). The npm package @octokit/openapi
ships the same file as `generated/api.github.com.json` (used for the committed output,
version 23.0.2). Run:

    python tests/github/make_rest_examples.py PATH/TO/api.github.com.json

Each example is trimmed to the fields the bot and PyGithub read (KEEP below), and its
absolute URLs are rewritten to `{api}/...` and `{web}/...`, which the fake replaces with its
own address (PyGithub refuses a `url` that points at another host).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

OUT = Path(__file__).with_name("rest_examples.json")

USER = ["login", "id", "type", "url", "html_url", "site_admin"]
REPO = ["id", "name", "full_name", "owner", "private", "fork", "url", "html_url"]
BRANCH = ["label", "ref", "sha", "user", "repo"]
PULL = [
    "url",
    "id",
    "number",
    "state",
    "title",
    "user",
    "body",
    "html_url",
    "issue_url",
    "created_at",
    "updated_at",
    "closed_at",
    "merged_at",
    "merge_commit_sha",
    "head",
    "base",
    "draft",
    "author_association",
]

# example name in the description -> (name in the output, the fields kept; None: all). An
# example that is a list (`...-items`) is kept as its first item.
KEEP: dict[str, tuple[str, list[str] | None]] = {
    "pull-request": ("pull-request", [*PULL, "merged"]),
    "pull-request-simple": ("pull-request-simple", PULL),
    "check-run": (
        "check-run",
        [
            "id",
            "head_sha",
            "external_id",
            "url",
            "html_url",
            "details_url",
            "status",
            "conclusion",
            "started_at",
            "completed_at",
            "output",
            "name",
            "check_suite",
            "pull_requests",
        ],
    ),
    "issue-comment": (
        "issue-comment",
        [
            "id",
            "url",
            "html_url",
            "body",
            "user",
            "created_at",
            "updated_at",
            "issue_url",
            "author_association",
        ],
    ),
    "commit": ("commit", ["url", "sha", "html_url", "commit", "author", "committer", "parents"]),
    "label": ("label", ["id", "url", "name", "description", "color", "default"]),
    "repository-collaborator-permission-response-if-user-has-admin-permissions": (
        "collaborator-permission",
        ["permission", "role_name", "user"],
    ),
    "file-commit-example-for-creating-a-file": ("file-commit", ["content", "commit"]),
    "content-file": (
        "content-file",
        [
            "type",
            "encoding",
            "size",
            "name",
            "path",
            "content",
            "sha",
            "url",
            "git_url",
            "html_url",
            "download_url",
        ],
    ),
    "pull-request-review": (
        "pull-request-review",
        [
            "id",
            "user",
            "body",
            "state",
            "html_url",
            "pull_request_url",
            "submitted_at",
            "commit_id",
            "author_association",
        ],
    ),
    # `claims github doctor` (bot/faces/github/doctor.py): the settings it reads
    "full-repository-default-response": (
        "full-repository",
        [
            *REPO,
            "default_branch",
            "allow_merge_commit",
            "allow_squash_merge",
            "allow_rebase_merge",
            "permissions",
        ],
    ),
    "repository-rule-items": ("repository-rule-item", None),
    "repository-ruleset-items": ("repository-ruleset-item", None),
    "repository-ruleset": ("repository-ruleset", None),
    "branch-protection": ("branch-protection", None),
    "environment": ("environment", None),
    "deployment-branch-policies-list": ("deployment-branch-policies-list", None),
    "actions-secret-paginated": ("actions-secret-paginated", None),
    "actions-default-workflow-permissions": ("actions-default-workflow-permissions", None),
    "actions-repository-permissions": ("actions-repository-permissions", None),
    "page": ("page", None),
    "team-member-items": ("team-member", USER),
}
# nested objects: the fields kept
NESTED = {
    "user": USER,
    "owner": USER,
    "head": BRANCH,
    "base": BRANCH,
    "repo": REPO,
    "output": ["title", "summary", "text", "annotations_count", "annotations_url"],
    "check_suite": ["id"],
    "commit": ["sha", "url", "html_url", "message", "author", "committer", "tree", "parents"],
    "content": [
        "name",
        "path",
        "sha",
        "size",
        "url",
        "html_url",
        "git_url",
        "download_url",
        "type",
    ],
}


def _trim(value: Any, fields: list[str] | None) -> Any:
    if isinstance(value, dict) and fields is not None:
        return {key: _trim(value[key], NESTED.get(key)) for key in fields if key in value}
    if isinstance(value, list):
        return []  # lists (pull_requests, parents) are filled in by the fake
    return _rewrite(value)


def _rewrite(value: Any) -> Any:
    if isinstance(value, dict):
        return {key: _rewrite(item) for key, item in value.items()}
    if isinstance(value, list):
        return [_rewrite(item) for item in value]
    if isinstance(value, str):
        for origin, placeholder in (
            ("https://api.github.com", "{api}"),
            ("https://github.com", "{web}"),
        ):
            if value.startswith(origin):
                return placeholder + value[len(origin) :]
    return value


def build(description: dict[str, Any]) -> dict[str, Any]:
    examples = description["components"]["examples"]
    out: dict[str, Any] = {}
    for name, (key, fields) in KEEP.items():
        value = examples[name]["value"]
        if isinstance(value, list):
            value = value[0]
        out[key] = _trim(value, fields) if fields is not None else _rewrite(value)
    return out


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__, file=sys.stderr)
        return 2
    description = json.loads(Path(argv[0]).read_text("utf-8"))
    OUT.write_text(json.dumps(build(description), indent=2, sort_keys=True) + "\n", "utf-8")
    print(f"wrote {OUT}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

"""Write the trimmed API descriptions the test suite checks requests and payloads against.

    npm pack @octokit/openapi @octokit/webhooks-examples
    python tests/data/apis/regenerate.py octokit-openapi-*.tgz octokit-webhooks-examples-*.tgz

Both are npm packages (MIT), read from their tarballs as `npm pack` downloads them; nothing
else is fetched, and nothing is fetched at test time. Never hand-edit the output; rerun this.

- `github-rest.json`: from @octokit/openapi's `generated/api.github.com.json` (GitHub's
  REST API description, github/rest-api-description), only the operations in OPERATIONS (every
  method and path the gateway, bot/edges/github/gateway.py, sends through PyGithub, and the ones
  `claims github doctor` reads), each with its parameters (their `$ref`s resolved) and its
  JSON request body schema (`$ref`s inlined; OpenAPI 3.0's `nullable` rewritten as JSON
  Schema's `"null"` type; descriptions and examples left out).
- `webhook-examples.json`: from @octokit/webhooks-examples' `api.github.com/index.json`, the
  example payloads of the events and actions the workflows run on (EVENTS), whole.

tests/apicheck.py reads both; tests/data/apis/zenodo-deposit.json is kept by hand (its own
`source` says from what).
"""

from __future__ import annotations

import json
import sys
import tarfile
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent

# (method, path template) as GitHub's description spells them.
OPERATIONS: list[tuple[str, str]] = [
    # pull requests and people (gateway)
    ("GET", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("PATCH", "/repos/{owner}/{repo}/pulls/{pull_number}"),
    ("GET", "/repos/{owner}/{repo}/pulls"),
    ("GET", "/repos/{owner}/{repo}/pulls/{pull_number}/reviews"),
    ("GET", "/repos/{owner}/{repo}/commits/{commit_sha}/pulls"),
    ("GET", "/repos/{owner}/{repo}/commits/{ref}"),
    ("GET", "/repos/{owner}/{repo}/collaborators/{username}/permission"),
    # check runs
    ("POST", "/repos/{owner}/{repo}/check-runs"),
    ("GET", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("PATCH", "/repos/{owner}/{repo}/check-runs/{check_run_id}"),
    ("GET", "/repos/{owner}/{repo}/commits/{ref}/check-runs"),
    # comments, labels, issues
    ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/comments"),
    ("GET", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("PATCH", "/repos/{owner}/{repo}/issues/comments/{comment_id}"),
    ("GET", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("POST", "/repos/{owner}/{repo}/issues/{issue_number}/labels"),
    ("DELETE", "/repos/{owner}/{repo}/issues/{issue_number}/labels/{name}"),
    ("GET", "/repos/{owner}/{repo}/issues"),
    ("POST", "/repos/{owner}/{repo}/issues"),
    # contents and Actions
    ("GET", "/repos/{owner}/{repo}/contents/{path}"),
    ("PUT", "/repos/{owner}/{repo}/contents/{path}"),
    ("POST", "/repos/{owner}/{repo}/actions/workflows/{workflow_id}/dispatches"),
    # the settings `claims github doctor` reads
    ("GET", "/repos/{owner}/{repo}"),
    ("GET", "/repos/{owner}/{repo}/rulesets"),
    ("GET", "/repos/{owner}/{repo}/rulesets/{ruleset_id}"),
    ("GET", "/repos/{owner}/{repo}/rules/branches/{branch}"),
    ("GET", "/repos/{owner}/{repo}/branches/{branch}/protection"),
    ("GET", "/repos/{owner}/{repo}/environments/{environment_name}"),
    ("GET", "/repos/{owner}/{repo}/environments/{environment_name}/deployment-branch-policies"),
    ("GET", "/repos/{owner}/{repo}/environments/{environment_name}/secrets"),
    ("GET", "/repos/{owner}/{repo}/actions/permissions/workflow"),
    ("GET", "/repos/{owner}/{repo}/actions/permissions"),
    ("GET", "/repos/{owner}/{repo}/pages"),
    ("GET", "/orgs/{org}/teams/{team_slug}/members"),
]

# event -> the actions kept (None: every example; the event has no action)
EVENTS: dict[str, set[str] | None] = {
    "pull_request": {"opened", "synchronize", "reopened", "edited"},  # check.yml
    "workflow_run": {"completed"},  # verify.yml
    "issue_comment": {"created"},  # judge.yml
    "workflow_dispatch": None,  # verify.yml, pages.yml, close-windows.yml
    # `schedule` (close-windows.yml) delivers no webhook: octokit has no example of it, and
    # the bot reads nothing from its event file.
}

_ANNOTATIONS = {"description", "example", "examples", "title", "externalDocs", "deprecated"}
_ANNOTATIONS |= {"x-github", "readOnly", "writeOnly", "xml", "discriminator"}


def _member(tarball: Path, name: str) -> Any:
    with tarfile.open(tarball) as archive:
        stream = archive.extractfile(f"package/{name}")
        if stream is None:
            raise SystemExit(f"{tarball}: no package/{name}")
        return json.loads(stream.read())


def _resolve(doc: dict[str, Any], ref: str) -> Any:
    node: Any = doc
    for part in ref.removeprefix("#/").split("/"):
        node = node[part.replace("~1", "/").replace("~0", "~")]
    return node


def _schema(doc: dict[str, Any], node: Any, seen: tuple[str, ...] = ()) -> Any:
    """`node` as plain JSON Schema: references inlined, annotations dropped, `nullable`
    turned into a type that admits null."""
    if isinstance(node, list):
        return [_schema(doc, item, seen) for item in node]
    if not isinstance(node, dict):
        return node
    if "$ref" in node:
        ref = node["$ref"]
        if ref in seen:
            raise SystemExit(f"a recursive schema ({ref}) in a request body: inline it by hand")
        return _schema(doc, _resolve(doc, ref), (*seen, ref))
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in _ANNOTATIONS or key == "nullable":
            continue
        if key == "properties":
            out[key] = {name: _schema(doc, sub, seen) for name, sub in value.items()}
        elif key in ("items", "additionalProperties", "not", "allOf", "anyOf", "oneOf"):
            out[key] = _schema(doc, value, seen)
        else:
            out[key] = value
    if node.get("nullable") is True:
        return {"anyOf": [out, {"type": "null"}]}
    return out


def github_rest(description: dict[str, Any], version: str) -> dict[str, Any]:
    operations = []
    for method, template in OPERATIONS:
        operation = description["paths"][template][method.lower()]
        parameters = []
        for raw in operation.get("parameters", []):
            parameter = _resolve(description, raw["$ref"]) if "$ref" in raw else raw
            if parameter["in"] not in ("path", "query"):
                continue
            parameters.append(
                {
                    "name": parameter["name"],
                    "in": parameter["in"],
                    "required": bool(parameter.get("required")),
                    "schema": _schema(description, parameter.get("schema", {})),
                    **({"multi_segment": True} if parameter.get("x-multi-segment") else {}),
                }
            )
        body = operation.get("requestBody")
        if body is not None and "$ref" in body:
            body = _resolve(description, body["$ref"])
        entry: dict[str, Any] = {
            "method": method,
            "path": template,
            "operationId": operation["operationId"],
            "parameters": parameters,
        }
        if body is not None:
            schema = body["content"]["application/json"]["schema"]
            entry["body"] = {
                "required": bool(body.get("required")),
                "schema": _schema(description, schema),
            }
        operations.append(entry)
    return {
        "source": (
            "npm @octokit/openapi"
            f" {version}, generated/api.github.com.json (github/rest-api-description)"
        ),
        "openapi": description["openapi"],
        "info_version": description["info"]["version"],
        "operations": operations,
    }


def webhook_examples(index: list[dict[str, Any]], version: str) -> dict[str, Any]:
    events: dict[str, list[Any]] = {}
    for entry in index:
        wanted = EVENTS.get(entry["name"], set())
        if entry["name"] not in EVENTS:
            continue
        events[entry["name"]] = [
            example
            for example in entry["examples"]
            if wanted is None or example.get("action") in wanted
        ]
    return {
        "source": f"npm @octokit/webhooks-examples {version}, api.github.com/index.json",
        "events": events,
    }


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    outputs: dict[str, Any] = {}
    for tarball in map(Path, argv):
        package = _member(tarball, "package.json")
        if package["name"] == "@octokit/openapi":
            description = _member(tarball, "generated/api.github.com.json")
            outputs["github-rest.json"] = github_rest(description, package["version"])
        elif package["name"] == "@octokit/webhooks-examples":
            index = _member(tarball, "api.github.com/index.json")
            outputs["webhook-examples.json"] = webhook_examples(index, package["version"])
        else:
            raise SystemExit(f"{tarball}: {package['name']} is neither package")
    for name, data in outputs.items():
        (HERE / name).write_text(json.dumps(data, indent=1, sort_keys=True) + "\n", "utf-8")
        print(f"wrote {HERE / name}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))

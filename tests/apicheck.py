"""Requests checked against published API descriptions, for the fake servers.

`GITHUB` is GitHub's REST API description trimmed to the operations the gateway uses
(tests/data/apis/github-rest.json, written by tests/data/apis/regenerate.py from the npm
package @octokit/openapi); `ZENODO` is the legacy deposit API as zenodo-rdm serves it
(tests/data/apis/zenodo-deposit.json, kept by hand: zenodo-rdm publishes no machine
description of it; its `source` names the code each entry was read from).

`problems(method, path, query, body, content_type)` lists what makes a request unlike the
description: a method and path that match no operation, a path parameter of the wrong type, a
query parameter the operation does not have (or a value its schema refuses, or a required one
missing), a body where none is described, a JSON body that is not JSON or that its schema
(jsonschema) refuses, a required body missing. An empty list: the request is as described.
The fakes answer a request with problems 400 and keep them, and their fixtures fail the test.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import Any
from urllib.parse import unquote

from jsonschema import Draft4Validator

__all__ = ["ApiDescription", "Operation", "github", "zenodo"]

DATA = Path(__file__).resolve().parent / "data" / "apis"


@dataclass(frozen=True)
class Operation:
    method: str
    path: str  # the template, "/repos/{owner}/{repo}/pulls/{pull_number}"
    name: str  # operationId, or the hand-kept description's name for it
    parameters: tuple[dict[str, Any], ...]
    body: dict[str, Any] | None  # {"required", "schema"} (JSON) or {"required", "media"}

    def segments(self) -> list[str]:
        return self.path.strip("/").split("/") if self.path.strip("/") else []


def _coerce(value: str, schema: dict[str, Any]) -> object:
    """A query or path string as the type its schema names (so the schema can judge it)."""
    kinds = schema.get("type")
    kinds = kinds if isinstance(kinds, list) else [kinds]
    if "integer" in kinds and value.lstrip("-").isdigit():
        return int(value)
    if "boolean" in kinds and value in ("true", "false"):
        return value == "true"
    return value


def _refusals(schema: dict[str, Any], value: object) -> list[str]:
    validator = Draft4Validator(schema)
    return [
        f"{'/'.join(map(str, error.absolute_path)) or '(top)'}: {error.message[:300]}"
        for error in sorted(validator.iter_errors(value), key=lambda e: list(e.absolute_path))
    ][:5]


class ApiDescription:
    def __init__(self, data: dict[str, Any]) -> None:
        self.source: str = data["source"]
        self.operations = [
            Operation(
                op["method"],
                op["path"],
                op.get("operationId") or op.get("name") or op["path"],
                tuple(op.get("parameters", ())),
                op.get("body"),
            )
            for op in data["operations"]
        ]

    def match(self, method: str, raw_path: str) -> tuple[Operation, dict[str, str]] | None:
        """The operation `method raw_path` (still percent-encoded) is, with its path
        parameters; the template with the most literal segments wins, as routers do."""
        parts = raw_path.strip("/").split("/") if raw_path.strip("/") else []
        best: tuple[int, Operation, dict[str, str]] | None = None
        for operation in self.operations:
            if operation.method != method:
                continue
            values = self._bind(operation, parts)
            if values is None:
                continue
            literal = sum(1 for s in operation.segments() if not s.startswith("{"))
            if best is None or literal > best[0]:
                best = (literal, operation, values)
        return None if best is None else (best[1], best[2])

    def _bind(self, operation: Operation, parts: list[str]) -> dict[str, str] | None:
        template = operation.segments()
        multi = {p["name"] for p in operation.parameters if p.get("multi_segment")}
        values: dict[str, str] = {}
        for index, segment in enumerate(template):
            if segment.startswith("{") and segment.endswith("}"):
                name = segment[1:-1]
                if name in multi and index == len(template) - 1:
                    if index >= len(parts):
                        return None
                    values[name] = unquote("/".join(parts[index:]))
                    return values
                if index >= len(parts) or not parts[index]:
                    return None
                values[name] = unquote(parts[index])
            elif index >= len(parts) or parts[index] != segment:
                return None
        if len(parts) != len(template):
            return None
        for parameter in operation.parameters:
            if parameter["in"] == "path" and parameter["name"] in values:
                value = _coerce(values[parameter["name"]], parameter.get("schema", {}))
                if _refusals(parameter.get("schema", {}), value):
                    return None  # "comments" is no {issue_number}: try another template
        return values

    def problems(
        self,
        method: str,
        raw_path: str,
        query: list[tuple[str, str]],
        body: bytes,
        content_type: str = "",
    ) -> list[str]:
        found = self.match(method, raw_path)
        if found is None:
            return [f"{method} {raw_path}: no such operation in {self.source}"]
        operation, _ = found
        where = f"{method} {operation.path} ({operation.name})"
        out: list[str] = []
        known = {p["name"]: p for p in operation.parameters if p["in"] == "query"}
        for name, value in query:
            parameter = known.get(name)
            if parameter is None:
                out.append(f"{where}: unknown query parameter {name!r}")
                continue
            schema = parameter.get("schema", {})
            for refusal in _refusals(schema, _coerce(value, schema)):
                out.append(f"{where}: query parameter {name}={value!r}: {refusal}")
        sent = {name for name, _ in query}
        for name, parameter in known.items():
            if parameter.get("required") and name not in sent:
                out.append(f"{where}: required query parameter {name!r} missing")
        out += self._body_problems(where, operation, body, content_type)
        return out

    def _body_problems(
        self, where: str, operation: Operation, body: bytes, content_type: str
    ) -> list[str]:
        described = operation.body
        if described is None:
            if body.strip() and body.strip() not in (b"{}", b"null"):
                return [f"{where}: sends a body, and the operation takes none"]
            return []
        if not body:
            return [f"{where}: the required body is missing"] if described.get("required") else []
        media = described.get("media", "application/json")
        if media != "application/json":
            if content_type and content_type.split(";")[0].strip() != media:
                return [f"{where}: body sent as {content_type}, described as {media}"]
            return []
        try:
            data = json.loads(body)
        except ValueError:
            return [f"{where}: the body is not JSON"]
        if content_type and "json" not in content_type:
            return [f"{where}: a JSON body sent as {content_type}"]
        return [f"{where}: body {refusal}" for refusal in _refusals(described["schema"], data)]


@cache
def github() -> ApiDescription:
    return ApiDescription(json.loads((DATA / "github-rest.json").read_text("utf-8")))


@cache
def zenodo() -> ApiDescription:
    return ApiDescription(json.loads((DATA / "zenodo-deposit.json").read_text("utf-8")))

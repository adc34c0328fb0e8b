"""JSON Schema validation (draft 2020-12) whose errors come back as findings with file and line.

The schemas are the bot's own, shipped inside the package as `bot.schemas` (pyproject's
package-dir maps it to the registry's `schemas/` folder), never the copy inside a pull request.
A `date-time` that is a date-time without an offset is reported as `timestamp-naive`, every
other error as `schema`, naming the field and the line it is on.

Cost is bounded by the schemas and the validator together (docs/spec.md §4.2):
- Every array has a `maxItems` (tests/unit/rules/evidence/test_schema_caps.py walks the schemas). A
  list longer than its cap gets that one error; its items are not checked one by one, so a
  125,000-item list costs one length check, not 125,000 findings built and sorted.
- `contains` (and an `allOf` of them, as adapter.yaml's `outputs` has) is skipped past the
  cap too: a required value missing from an over-long list adds nothing to its length error.
- No schema uses `uniqueItems`: jsonschema compares a list pairwise when its items do not sort
  (mixed types), which held `verify` for over an hour on an 870 KB adapter.yaml. Lists whose
  values must differ say `distinctItems: true` instead, checked here with one hash per item
  (`distinct_key`: JSON equality, so 1 and 1.0 are the same value and true and 1 are not).

Speed: every document and line is first checked by jsonschema-rs, a compiled draft 2020-12
validator, with the same two format checks. A value it accepts is valid for `jsonschema` too
(it is never more lenient here), so only what it refuses is validated again by `jsonschema`,
imported then (~50 ms), which words the findings. The per-line schemas (`_FAST`: a frozen
case, a trial, a certificate; one call per JSONL line) are checked natively: their regexes
are ASCII classes, where jsonschema-rs anchors `$` at the very end (Python's also allows a
final newline), and they use no keyword of ours (`_fast_validator` refuses to compile one
that does). The other schemas (documents: a few per command) get `pattern` (`re.search`, as
jsonschema) and `distinctItems` (`distinct_key`) as Python keywords: jsonschema-rs's `\\s`
differs from Python's (`patternProperties`, matched by jsonschema-rs's own engine, is refused
there). tests/unit/rules/evidence/test_schema_fast.py (lines) and test_schema_documents.py
(the documents of the demo and the adversarial corpus, and mutations of them) compare the two.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable, Hashable, Iterator, Mapping
from functools import cache
from importlib.resources import files
from typing import TYPE_CHECKING
from urllib.parse import unquote, urljoin

import jsonschema_rs

from bot.vocab.document import FieldPath
from bot.vocab.findings import Code, Finding
from bot.vocab.timestamps import is_naive_timestamp, parse_date, parse_timestamp
from bot.vocab.values import JSONObject, JSONValue, json_key

if TYPE_CHECKING:
    # jsonschema (~50 ms to import) is imported when a document is refused: only then are its
    # findings worded (module docstring).
    from jsonschema import Draft202012Validator
    from jsonschema.exceptions import ValidationError
    from jsonschema.protocols import Validator
    from referencing import Registry

__all__ = ["SCHEMA_NAMES", "distinct_key", "placeholder_message", "schema_files", "validate"]

_SCHEMAS_PACKAGE = "bot.schemas"
_BASE = "https://ai-safety-claims.github.io/registry/schemas/"
SCHEMA_NAMES = (
    "shared-rules",
    "market",
    "attempt",
    "freeze",
    "freeze-case",
    "trial",
    "scores",
    "certificate",
    "judgments",
    "submitters",
    "challenge-run",
    "challenge-case",
    "challenge-result",
    "adapter",
    "verify-report",
    "resolve-report",
    "resolution-record",
    "site-markets",
    "site-market",
)
# A file with thousands of bad lines reports the first ones; the count says how many more.
_MAX_ERRORS_PER_DOCUMENT = 20
_MAX_MESSAGE = 300


def _is_timestamp(value: object) -> bool:
    return not isinstance(value, str) or parse_timestamp(value) is not None


def _is_date(value: object) -> bool:
    return not isinstance(value, str) or parse_date(value) is not None


def distinct_key(value: object) -> Hashable:
    """A hashable stand-in for a JSON value: two values get equal keys exactly when JSON Schema
    calls them equal (numbers by value, so 1 == 1.0; booleans apart from numbers; objects by
    their members whatever the order): `bot.vocab.values.json_key`, the bot's one JSON
    equality. Cost: linear in the value's size."""
    return json_key(value)


def _distinct_items(
    validator: Validator, distinct: object, instance: object, schema: Mapping[str, object]
) -> Iterator[ValidationError]:
    """`distinctItems: true`: no value twice in the list; reports the first repeat."""
    if distinct is not True or not isinstance(instance, list):
        return
    seen: dict[Hashable, int] = {}
    for index, item in enumerate(instance):
        key = distinct_key(item)
        if key in seen:
            from jsonschema.exceptions import ValidationError

            yield ValidationError(f"{_short(item)} is repeated (items {seen[key]} and {index})")
            return
        seen[key] = index


# A keyword's check, as jsonschema calls it: (validator, the keyword's value, the instance,
# the schema object holding the keyword).
_Keyword = Callable[
    ["Validator", object, object, Mapping[str, object]], Iterator["ValidationError"]
]


def _within_max_items(keyword: _Keyword) -> _Keyword:
    """`keyword` (one that looks at each item) only for lists within the schema's `maxItems`:
    past the cap the `maxItems` error says what is wrong, at the cost of a length check."""

    def check(
        validator: Validator, value: object, instance: object, schema: Mapping[str, object]
    ) -> Iterator[ValidationError]:
        cap = schema.get("maxItems")
        if isinstance(instance, list) and isinstance(cap, int) and len(instance) > cap:
            return
        yield from keyword(validator, value, instance, schema)

    return check


@cache
def _jsonschema_class() -> type[Draft202012Validator]:
    """jsonschema's draft 2020-12 validator with our keywords, imported on first use."""
    from jsonschema import Draft202012Validator
    from jsonschema.validators import extend

    base = Draft202012Validator.VALIDATORS
    # jsonschema's `extend` is untyped; the class it returns is a Draft202012Validator subclass.
    extended: type[Draft202012Validator] = extend(  # type: ignore[no-untyped-call]
        Draft202012Validator,
        {
            "distinctItems": _within_max_items(_distinct_items),
            **{
                name: _within_max_items(base[name])
                for name in ("items", "prefixItems", "contains", "unevaluatedItems", "allOf")
            },
        },
    )
    return extended


def schema_files() -> dict[str, bytes]:
    """The schema files as a registry holds them: `schemas/NAME.schema.json` -> bytes."""
    return {
        f"schemas/{f.name}": f.read_bytes()
        for f in sorted(files(_SCHEMAS_PACKAGE).iterdir(), key=lambda f: f.name)
        if f.name.endswith(".schema.json")
    }


@cache
def _contents() -> dict[str, JSONValue]:
    """Every schema file's contents, by its `$id`: read once per process."""
    schemas = [f for f in files(_SCHEMAS_PACKAGE).iterdir() if f.name.endswith(".schema.json")]
    by_id: dict[str, JSONValue] = {}
    for file in sorted(schemas, key=lambda file: file.name):
        contents = _object(json.loads(file.read_text(encoding="utf-8")), file.name)
        by_id[str(contents["$id"])] = contents
    return by_id


@cache
def _registry() -> Registry:
    """Every schema file as a `referencing` registry, for jsonschema's validators."""
    from referencing import Registry, Resource

    resources = [(url, Resource.from_contents(contents)) for url, contents in _contents().items()]
    registry: Registry = Registry().with_resources(resources)
    return registry


def _lookup(resource_url: str, fragment: str) -> JSONValue:
    """The node `fragment` (a JSON pointer, as our `$ref`s all are) names in schema file
    `resource_url`; what `referencing` resolves them to (a test compares the two)."""
    node = _contents()[resource_url]
    if fragment and not fragment.startswith("/"):  # pragma: no cover - no anchors in schemas/
        raise KeyError(f"{resource_url}#{fragment}: only JSON pointers are resolved")
    for token in fragment.split("/")[1:]:
        key = unquote(token).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict):
            node = node[key]
        elif isinstance(node, list):
            node = node[int(key)]
        else:  # pragma: no cover - our pointers name objects
            raise KeyError(f"{resource_url}#{fragment}")
    return node


@cache
def _inlined(name: str) -> JSONObject:
    """Schema `name` with every `$ref` inlined: what both validators are built from (resolving
    `$ref`s per record cost ~70% of validating a trial)."""
    if name not in SCHEMA_NAMES:
        raise KeyError(name)
    url = f"{_BASE}{name}.schema.json"
    return _object(_inline(_contents()[url], url, _lookup, depth=0), url)


@cache
def _validator(name: str) -> Draft202012Validator:
    """jsonschema's validator for schema `name`, built the first time a document is refused
    (it words the findings).

    No `check_schema` here: the schemas are the package's own, so checking them against the
    draft 2020-12 meta-schema is a test (tests/unit/rules/evidence/test_schema.py), not ~0.2 s of
    every run."""
    from jsonschema import FormatChecker

    inlined = _inlined(name)
    formats = FormatChecker(formats=())
    formats.checks("date-time")(_is_timestamp)
    formats.checks("date")(_is_date)
    return _jsonschema_class()(inlined, registry=_registry(), format_checker=formats)


def _validators() -> dict[str, Draft202012Validator]:
    """Every named schema's validator (tests and benches; `validate` builds only its own)."""
    return {name: _validator(name) for name in SCHEMA_NAMES}


# The schemas validated once per JSONL line: jsonschema-rs alone, no Python callback.
_FAST = ("freeze-case", "trial", "certificate")
_OWN_KEYWORDS = frozenset({"distinctItems"})


def _keywords(node: object) -> Iterator[str]:
    if isinstance(node, dict):
        for key, value in node.items():
            yield key
            yield from _keywords(value)
    elif isinstance(node, list):
        for item in node:
            yield from _keywords(item)


class _PythonPattern:
    """`pattern` as jsonschema checks it (`re.search`), for jsonschema-rs's document schemas:
    its regexes differ from Python's (`\\s` leaves out U+001C-U+001F and U+0085, so
    `[^\\s]` and `\\S` accept them where Python refuses; `$` does not match before a final
    newline)."""

    def __init__(self, parent: object, value: object, path: object) -> None:
        if not isinstance(value, str):  # pragma: no cover - the meta-schema test
            raise TypeError(f"pattern {value!r} is not a string")
        self._search = re.compile(value).search

    def validate(self, instance: object) -> None:
        if isinstance(instance, str) and self._search(instance) is None:
            raise ValueError("does not match")


class _DistinctItems:
    """`distinctItems: true` (`_distinct_items`, the same `distinct_key`) for jsonschema-rs."""

    def __init__(self, parent: object, value: object, path: object) -> None:
        self._on = value is True

    def validate(self, instance: object) -> None:
        if not self._on or not isinstance(instance, list):
            return
        seen: set[Hashable] = set()
        for item in instance:
            key = distinct_key(item)
            if key in seen:
                raise ValueError("a repeated item")
            seen.add(key)


@cache
def _fast_validator(name: str) -> Callable[[object], bool]:
    """The jsonschema-rs validator for schema `name` (inlined, with our formats).

    The per-line schemas (`_FAST`) are checked natively: their patterns are ASCII classes
    with `$`, where jsonschema-rs is only stricter. The others (documents: a few per command,
    where ~50 ms of importing jsonschema was most of the cost) get `pattern` and our
    `distinctItems` as jsonschema checks them, in Python."""
    schema = _inlined(name)
    if not isinstance(schema, dict):  # pragma: no cover - our schemas are objects
        raise TypeError(f"{name}: not an object schema")
    formats = {"date-time": _is_timestamp, "date": _is_date}
    if name in _FAST:
        if _OWN_KEYWORDS & set(_keywords(schema)):  # pragma: no cover - a schema change
            raise ValueError(f"{name}: a keyword of ours that jsonschema-rs cannot check")
        validator = jsonschema_rs.Draft202012Validator(
            schema, formats=formats, validate_formats=True
        )
    else:
        if "patternProperties" in set(_keywords(schema)):  # pragma: no cover - a schema change
            raise ValueError(f"{name}: patternProperties would be matched by Rust's regexes")
        validator = jsonschema_rs.Draft202012Validator(
            schema,
            formats=formats,
            validate_formats=True,
            keywords={"pattern": _PythonPattern, "distinctItems": _DistinctItems},
        )
    is_valid: Callable[[object], bool] = validator.is_valid
    return is_valid


def _fast_validators() -> dict[str, Callable[[object], bool]]:
    """Every named schema's jsonschema-rs validator (tests and benches)."""
    return {name: _fast_validator(name) for name in SCHEMA_NAMES}


def _inline(
    node: JSONValue, base: str, lookup: Callable[[str, str], JSONValue], depth: int
) -> JSONValue:
    """`node` with every `$ref` replaced by its target (our schemas are not recursive)."""
    if depth > 32:
        raise RecursionError(f"schema references nest too deep near {base}")
    if isinstance(node, list):
        return [_inline(item, base, lookup, depth) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str):
        target = urljoin(base, reference)
        resource_url, _, pointer = target.partition("#")
        resolved = lookup(resource_url, pointer)
        rest = {key: value for key, value in node.items() if key != "$ref"}
        inlined = _inline(resolved, resource_url, lookup, depth + 1)
        if not rest:
            return inlined
        if not isinstance(inlined, dict):  # pragma: no cover - our $refs name objects
            raise TypeError(f"{target}: a $ref beside other keywords must name an object")
        return {**inlined, **_object(_inline(rest, base, lookup, depth), base)}
    return {key: _inline(value, base, lookup, depth) for key, value in node.items()}


def _object(node: JSONValue, where: str) -> JSONObject:
    if not isinstance(node, dict):  # pragma: no cover - our schemas are objects
        raise TypeError(f"{where}: a schema object, got {type(node).__name__}")
    return node


def _field(path: FieldPath) -> str:
    text = ""
    for part in path:
        text += f"[{part}]" if isinstance(part, int) else (f".{part}" if text else str(part))
    return text or "(top level)"


def _is_naive(error: ValidationError) -> bool:
    if not isinstance(error.instance, str) or not is_naive_timestamp(error.instance):
        return False
    if error.validator == "format":
        return error.validator_value == "date-time"
    return any(_is_naive(sub) for sub in error.context or ())


def _short(value: object) -> str:
    text = json.dumps(value, ensure_ascii=False, default=str)
    return text if len(text) <= 60 else f"{text[:57]}..."


def _is_one_of_fields(error: ValidationError) -> bool:
    """An `anyOf` of single `required` fields: "at least one of these fields"."""
    context = error.context or []
    return bool(context) and all(
        sub.validator == "required"
        and isinstance(sub.validator_value, list)
        and len(sub.validator_value) == 1
        for sub in context
    )


def _required_value(error: ValidationError) -> tuple[object] | None:
    """The one value a list lacks, for a `contains` of a `const`; else None."""
    schema = error.validator_value
    if error.validator == "contains" and isinstance(schema, Mapping) and set(schema) == {"const"}:
        return (schema["const"],)
    return None


# A JSON type in words a filer writing YAML or JSON knows.
_TYPES = {
    "number": "a number",
    "integer": "a whole number",
    "boolean": "true or false",
    "string": "a string",
    "object": "an object (key: value pairs)",
    "array": "a list",
    "null": "null",
}
# What `claims init` writes where a value must be filled in
# (bot.rules.evidence.placeholders.PLACEHOLDER).
_PLACEHOLDER = "FILL-IN"


def _expected(error: ValidationError) -> str | None:
    """What the failed keyword asks for, in words; None for keywords without a short form."""
    value = error.validator_value
    if error.validator == "type":
        kinds = value if isinstance(value, list) else [value]
        return " or ".join(_TYPES.get(str(kind), str(kind)) for kind in kinds)
    if error.validator == "enum" and isinstance(value, list):
        return "one of " + ", ".join(_short(item) for item in value)
    if error.validator == "const":
        return _short(value)
    if error.validator == "format" and value == "date-time":
        return "a date-time in RFC 3339 with Z or +HH:MM, e.g. 2027-01-31T09:00:00Z"
    if error.validator == "format" and value == "date":
        return "a date, YYYY-MM-DD"
    if error.validator == "pattern":
        return f"text matching {value}"
    return None


def placeholder_message(value: str, expected: str | None = None) -> str:
    """A value `claims init` left to fill in (`FILL-IN: what to write`): what it asks for and,
    where the schema says, the form it must take. One wording for every field."""
    asked = value.removeprefix(_PLACEHOLDER).lstrip(": ").strip()
    what = asked or expected or "the real value"
    form = f" ({expected})" if expected and asked else ""
    return f"{value!r} is a placeholder `claims init` wrote; what to write: {what}{form}"


def _placeholder(error: ValidationError) -> str | None:
    value = error.instance
    if not isinstance(value, str) or not value.startswith(_PLACEHOLDER):
        return None
    return placeholder_message(value, _expected(error))


def _message(error: ValidationError) -> str:
    field = _field(tuple(error.absolute_path))
    placeholder = _placeholder(error)
    expected = _expected(error)
    if placeholder is not None:
        text = placeholder
    elif _is_naive(error):
        text = (
            f"got {_short(error.instance)}, a time without a UTC offset; write it in RFC 3339"
            " with Z or +HH:MM, e.g. 2027-01-31T09:00:00Z"
        )
    elif error.validator == "required" or error.validator == "additionalProperties":
        text = error.message
    elif error.validator == "anyOf" and _is_one_of_fields(error):
        names = ", ".join(repr(sub.validator_value[0]) for sub in error.context or ())  # type: ignore[index]
        text = f"needs at least one of {names}, got none"
    elif error.validator in ("oneOf", "anyOf"):
        text = f"{_short(error.instance)} matches none of the allowed forms"
    elif error.validator == "format":
        text = f"got {_short(error.instance)}, expected a {error.validator_value}"
    elif error.validator in ("type", "enum", "const") and expected is not None:
        text = f"got {_short(error.instance)}, expected {expected}"
    elif (required := _required_value(error)) is not None:
        # A list that must hold a value: name the value, and why (the schema's description).
        text = f"{_short(error.instance)} lacks {_short(required[0])}"
        why = error.schema.get("description") if isinstance(error.schema, Mapping) else None
        text += f": {why}" if isinstance(why, str) else ""
    elif error.validator == "maxItems" and isinstance(error.instance, list):
        text = f"{len(error.instance)} items, more than the {error.validator_value} allowed"
    else:
        text = error.message
    text = f"{field}: {text}"
    return text if len(text) <= _MAX_MESSAGE else f"{text[: _MAX_MESSAGE - 3]}..."


def _one_per_placeholder(errors: list[ValidationError]) -> list[ValidationError]:
    """A placeholder fails every keyword of its field (a pattern and a length, say): one error
    for it, the one whose form can be said in words."""
    best: dict[tuple[object, ...], ValidationError] = {}
    for error in errors:
        if _placeholder(error) is None:
            continue
        where = tuple(error.absolute_path)
        if where not in best or (_expected(best[where]) is None and _expected(error) is not None):
            best[where] = error
    return [
        error
        for error in errors
        if _placeholder(error) is None or best.get(tuple(error.absolute_path)) is error
    ]


def validate(
    name: str,
    data: object,
    file: str,
    lines: Mapping[FieldPath, int] | None = None,
    line: int | None = None,
) -> list[Finding]:
    """Validate `data` against schema `name`. Return one finding per error (capped).

    `lines` maps field paths to lines (a YAML document); `line` is the line of a JSONL record.
    """
    try:
        if _fast_validator(name)(data):
            return []
    except (ValueError, TypeError, OverflowError):  # a value it cannot take: jsonschema
        pass
    validator = _validator(name)
    errors = _one_per_placeholder(
        sorted(validator.iter_errors(data), key=lambda e: [str(p) for p in e.absolute_path])
    )
    findings = []
    for error in errors[:_MAX_ERRORS_PER_DOCUMENT]:
        where = tuple(error.absolute_path)
        at = line
        if lines is not None:
            at = next(
                (lines[where[:n]] for n in range(len(where), -1, -1) if where[:n] in lines), None
            )
        code = Code.TIMESTAMP_NAIVE if _is_naive(error) else Code.SCHEMA
        findings.append(Finding(code, _message(error), file, at))
    if len(errors) > _MAX_ERRORS_PER_DOCUMENT:
        more = len(errors) - _MAX_ERRORS_PER_DOCUMENT
        findings.append(Finding(Code.SCHEMA, f"... and {more} more schema errors", file, line))
    return findings

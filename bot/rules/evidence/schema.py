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

Speed: the per-line schemas (`_FAST`: a frozen case, a trial, a certificate; one call per
JSONL line) are first checked by jsonschema-rs, a compiled draft 2020-12 validator, with the
same two format checks. A line it accepts is valid for `jsonschema` too (it is never more
lenient here: its regexes anchor `$` at the very end, where Python's also allow a final
newline, and it checks formats `jsonschema` is not asked to), so only the lines it refuses are
validated again by `jsonschema`, which words the findings. Those schemas use no keyword of
ours (`distinctItems`); `_fast_validator` refuses to compile one that does.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Hashable, Iterator, Mapping
from functools import cache
from importlib.resources import files
from urllib.parse import urljoin

import jsonschema_rs
from jsonschema import Draft202012Validator, FormatChecker
from jsonschema.exceptions import ValidationError
from jsonschema.protocols import Validator
from jsonschema.validators import extend
from referencing import Registry, Resource

from bot.vocab.document import FieldPath
from bot.vocab.findings import Code, Finding
from bot.vocab.timestamps import is_naive_timestamp, parse_date, parse_timestamp
from bot.vocab.values import JSONObject, JSONValue, json_key

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

_FORMATS = FormatChecker(formats=())


@_FORMATS.checks("date-time")
def _is_timestamp(value: object) -> bool:
    return not isinstance(value, str) or parse_timestamp(value) is not None


@_FORMATS.checks("date")
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
            yield ValidationError(f"{_short(item)} is repeated (items {seen[key]} and {index})")
            return
        seen[key] = index


# A keyword's check, as jsonschema calls it: (validator, the keyword's value, the instance,
# the schema object holding the keyword).
_Keyword = Callable[[Validator, object, object, Mapping[str, object]], Iterator[ValidationError]]


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


_BASE_KEYWORDS = Draft202012Validator.VALIDATORS
# jsonschema's `extend` is untyped; the class it returns is a Draft202012Validator subclass.
_Validator: type[Draft202012Validator] = extend(  # type: ignore[no-untyped-call]
    Draft202012Validator,
    {
        "distinctItems": _within_max_items(_distinct_items),
        **{
            name: _within_max_items(_BASE_KEYWORDS[name])
            for name in ("items", "prefixItems", "contains", "unevaluatedItems", "allOf")
        },
    },
)


def schema_files() -> dict[str, bytes]:
    """The schema files as a registry holds them: `schemas/NAME.schema.json` -> bytes."""
    return {
        f"schemas/{f.name}": f.read_bytes()
        for f in sorted(files(_SCHEMAS_PACKAGE).iterdir(), key=lambda f: f.name)
        if f.name.endswith(".schema.json")
    }


@cache
def _registry() -> Registry:
    """Every schema file, by its `$id`: read once per process."""
    resources = []
    schemas = [f for f in files(_SCHEMAS_PACKAGE).iterdir() if f.name.endswith(".schema.json")]
    for file in sorted(schemas, key=lambda file: file.name):
        contents = json.loads(file.read_text(encoding="utf-8"))
        resources.append((contents["$id"], Resource.from_contents(contents)))
    registry: Registry = Registry().with_resources(resources)
    return registry


@cache
def _validator(name: str) -> Draft202012Validator:
    """The validator for schema `name`, built the first time a command needs it.

    No `check_schema` here: the schemas are the package's own, so checking them against the
    draft 2020-12 meta-schema is a test (tests/unit/rules/evidence/test_schema.py), not ~0.2 s of
    every run."""
    if name not in SCHEMA_NAMES:
        raise KeyError(name)
    registry = _registry()
    url = f"{_BASE}{name}.schema.json"
    # Inlined once here: resolving `$ref`s per record cost ~70% of validating a trial.
    inlined = _object(_inline(registry.contents(url), url, registry, depth=0), url)
    return _Validator(inlined, registry=registry, format_checker=_FORMATS)


def _validators() -> dict[str, Draft202012Validator]:
    """Every named schema's validator (tests and benches; `validate` builds only its own)."""
    return {name: _validator(name) for name in SCHEMA_NAMES}


# The schemas validated once per JSONL line, first by jsonschema-rs (module docstring).
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


@cache
def _fast_validator(name: str) -> Callable[[object], bool] | None:
    """The jsonschema-rs validator for a `_FAST` schema (inlined, with our formats); None for
    the others."""
    if name not in _FAST:
        return None
    schema = _validator(name).schema
    if not isinstance(schema, dict):  # pragma: no cover - our schemas are objects
        raise TypeError(f"{name}: not an object schema")
    if _OWN_KEYWORDS & set(_keywords(schema)):  # pragma: no cover - a schema change
        raise ValueError(f"{name}: a keyword of ours that jsonschema-rs cannot check")
    validator = jsonschema_rs.Draft202012Validator(
        schema,
        formats={"date-time": _is_timestamp, "date": _is_date},
        validate_formats=True,
    )
    is_valid: Callable[[object], bool] = validator.is_valid
    return is_valid


def _fast_validators() -> dict[str, Callable[[object], bool]]:
    """The `_FAST` schemas' jsonschema-rs validators (tests and benches)."""
    return {name: fast for name in _FAST if (fast := _fast_validator(name)) is not None}


def _inline(node: JSONValue, base: str, registry: Registry, depth: int) -> JSONValue:
    """`node` with every `$ref` replaced by its target (our schemas are not recursive)."""
    if depth > 32:
        raise RecursionError(f"schema references nest too deep near {base}")
    if isinstance(node, list):
        return [_inline(item, base, registry, depth) for item in node]
    if not isinstance(node, dict):
        return node
    reference = node.get("$ref")
    if isinstance(reference, str):
        target = urljoin(base, reference)
        resource_url, _, pointer = target.partition("#")
        resolved: JSONValue = registry.resolver(resource_url).lookup(f"#{pointer}").contents
        rest = {key: value for key, value in node.items() if key != "$ref"}
        inlined = _inline(resolved, resource_url, registry, depth + 1)
        if not rest:
            return inlined
        if not isinstance(inlined, dict):  # pragma: no cover - our $refs name objects
            raise TypeError(f"{target}: a $ref beside other keywords must name an object")
        return {**inlined, **_object(_inline(rest, base, registry, depth), base)}
    return {key: _inline(value, base, registry, depth) for key, value in node.items()}


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
    fast = _fast_validator(name)
    if fast is not None:
        try:
            if fast(data):
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

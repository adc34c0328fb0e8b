"""GitHub Actions expressions (`${{ }}`), parsed and evaluated as the runner does.

A small tokenizer and recursive-descent parser for the documented grammar (literals, context
names, `.name` and `[index]` dereference, `! < <= > >= == != && ||`, parentheses, function
calls) and an evaluator with GitHub's rules: loose equality that coerces mismatched types to
numbers, case-insensitive string comparison and property names, `&&`/`||` returning an
operand, and the functions the registry's workflows use. Anything else (the `*` object
filter, an unknown function or context) raises ExpressionError: the runner refuses what it
does not model rather than guess.

docs.github.com/actions/reference/workflows-and-actions/expressions
"""

from __future__ import annotations

import json
import math
import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

__all__ = [
    "ExpressionError",
    "evaluate",
    "interpolate",
    "is_status_check",
    "to_string",
    "truthy",
]


class ExpressionError(Exception):
    """An expression the runner cannot parse or evaluate (said loudly, never guessed)."""


_TOKEN = re.compile(
    r"""
    (?P<space>\s+)
  | (?P<number>0x[0-9a-fA-F]+|[0-9]+(?:\.[0-9]*)?(?:[eE][+-]?[0-9]+)?|\.[0-9]+(?:[eE][+-]?[0-9]+)?)
  | (?P<string>'(?:[^']|'')*')
  | (?P<op>==|!=|<=|>=|&&|\|\||[!<>()\[\].,*])
  | (?P<name>[A-Za-z_][A-Za-z0-9_-]*)
    """,
    re.VERBOSE,
)


@dataclass(frozen=True)
class _Tok:
    kind: str  # number, string, op, name, end
    text: str


def _tokens(text: str) -> list[_Tok]:
    found: list[_Tok] = []
    at = 0
    while at < len(text):
        match = _TOKEN.match(text, at)
        if match is None:
            raise ExpressionError(f"unexpected {text[at : at + 10]!r} in expression {text!r}")
        kind = match.lastgroup or ""
        if kind != "space":
            found.append(_Tok(kind, match.group()))
        at = match.end()
    found.append(_Tok("end", ""))
    return found


# A parsed expression is a tuple tree: ("lit", value) ("ctx", name) ("prop", obj, key-node)
# ("not", x) ("bin", op, a, b) ("call", name, [args]).
Node = tuple[Any, ...]


class _Parser:
    def __init__(self, text: str) -> None:
        self.text = text
        self.toks = _tokens(text)
        self.at = 0

    def peek(self) -> _Tok:
        return self.toks[self.at]

    def take(self, text: str | None = None) -> _Tok:
        tok = self.toks[self.at]
        if text is not None and tok.text != text:
            raise ExpressionError(f"expected {text!r}, found {tok.text!r} in {self.text!r}")
        self.at += 1
        return tok

    def parse(self) -> Node:
        node = self.or_()
        if self.peek().kind != "end":
            raise ExpressionError(f"unexpected {self.peek().text!r} in {self.text!r}")
        return node

    def _binary(self, ops: tuple[str, ...], operand: Callable[[], Node]) -> Node:
        node = operand()
        while self.peek().kind == "op" and self.peek().text in ops:
            op = self.take().text
            node = ("bin", op, node, operand())
        return node

    def or_(self) -> Node:
        return self._binary(("||",), self.and_)

    def and_(self) -> Node:
        return self._binary(("&&",), self.equality)

    def equality(self) -> Node:
        return self._binary(("==", "!="), self.compare)

    def compare(self) -> Node:
        return self._binary(("<", "<=", ">", ">="), self.unary)

    def unary(self) -> Node:
        if self.peek().text == "!" and self.peek().kind == "op":
            self.take()
            return ("not", self.unary())
        return self.postfix()

    def postfix(self) -> Node:
        node = self.primary()
        while self.peek().kind == "op" and self.peek().text in (".", "["):
            if self.take().text == ".":
                if self.peek().text == "*":
                    raise ExpressionError(f"the object filter * is not modelled: {self.text!r}")
                name = self.take()
                if name.kind != "name":
                    raise ExpressionError(f"expected a property name after '.' in {self.text!r}")
                node = ("prop", node, ("lit", name.text))
            else:
                if self.peek().text == "*":
                    raise ExpressionError(f"the object filter * is not modelled: {self.text!r}")
                index = self.or_()
                self.take("]")
                node = ("prop", node, index)
        return node

    def primary(self) -> Node:
        tok = self.take()
        if tok.kind == "number":
            value = int(tok.text, 16) if tok.text.lower().startswith("0x") else float(tok.text)
            return ("lit", value)
        if tok.kind == "string":
            return ("lit", tok.text[1:-1].replace("''", "'"))
        if tok.kind == "op" and tok.text == "(":
            node = self.or_()
            self.take(")")
            return node
        if tok.kind == "name":
            lowered = tok.text.lower()
            if lowered in ("true", "false"):
                return ("lit", lowered == "true")
            if lowered == "null":
                return ("lit", None)
            if self.peek().text == "(":
                self.take("(")
                args: list[Node] = []
                if self.peek().text != ")":
                    args.append(self.or_())
                    while self.peek().text == ",":
                        self.take(",")
                        args.append(self.or_())
                self.take(")")
                return ("call", lowered, args)
            return ("ctx", lowered)
        raise ExpressionError(f"unexpected {tok.text!r} in {self.text!r}")


def parse(text: str) -> Node:
    return _Parser(text).parse()


# -- values --------------------------------------------------------------------------------

_NUMBER_TEXT = re.compile(
    r"\s*[+-]?(?:0x[0-9a-fA-F]+|(?:[0-9]+(?:\.[0-9]*)?|\.[0-9]+)(?:[eE][+-]?[0-9]+)?)\s*"
)


def _to_number(value: Any) -> float:
    if value is None:
        return 0.0
    if isinstance(value, bool):
        return 1.0 if value else 0.0
    if isinstance(value, (int, float)):
        return float(value)
    if isinstance(value, str):
        if value.strip() == "":
            return 0.0
        if _NUMBER_TEXT.fullmatch(value):
            text = value.strip()
            sign = -1.0 if text.startswith("-") else 1.0
            bare = text.lstrip("+-")
            return sign * (int(bare, 16) if bare.lower().startswith("0x") else float(bare))
        return math.nan
    return math.nan


def truthy(value: Any) -> bool:
    if value is None or value is False or value == "":
        return False
    if isinstance(value, (int, float)) and not isinstance(value, bool):
        return not (value == 0 or math.isnan(value))
    return True


def to_string(value: Any) -> str:
    """A value as `${{ }}` puts it into a string; objects and arrays are refused (GitHub
    writes 'Object'/'Array', never what a step wants: use toJSON)."""
    if value is None:
        return ""
    if value is True:
        return "true"
    if value is False:
        return "false"
    if isinstance(value, (int, float)):
        if isinstance(value, float) and math.isnan(value):
            return "NaN"
        if float(value).is_integer():
            return str(int(value))
        return repr(float(value))
    if isinstance(value, str):
        return value
    raise ExpressionError(f"an object or array put into a string: {json.dumps(value)[:200]}")


def _same_kind(a: Any, b: Any) -> bool:
    def kind(v: Any) -> str:
        if v is None:
            return "null"
        if isinstance(v, bool):
            return "bool"
        if isinstance(v, (int, float)):
            return "number"
        if isinstance(v, str):
            return "string"
        return "object"

    return kind(a) == kind(b)


def _equal(a: Any, b: Any) -> bool:
    if _same_kind(a, b):
        if isinstance(a, str):
            return bool(a.casefold() == str(b).casefold())
        if isinstance(a, (dict, list)):
            return a is b
        if isinstance(a, float) or isinstance(b, float):
            return float(a) == float(b)
        return bool(a == b)
    x, y = _to_number(a), _to_number(b)
    return x == y


def _order(op: str, a: Any, b: Any) -> bool:
    if isinstance(a, str) and isinstance(b, str):
        x: Any = a.casefold()
        y: Any = b.casefold()
    else:
        x, y = _to_number(a), _to_number(b)
        if math.isnan(x) or math.isnan(y):
            return False
    return bool({"<": x < y, "<=": x <= y, ">": x > y, ">=": x >= y}[op])


def _property(obj: Any, key: Any) -> Any:
    if isinstance(obj, dict):
        if not isinstance(key, str):
            return None
        if key in obj:
            return obj[key]
        folded = key.casefold()
        for name, value in obj.items():
            if isinstance(name, str) and name.casefold() == folded:
                return value
        return None
    if isinstance(obj, list):
        number = _to_number(key)
        if math.isnan(number) or not number.is_integer() or not 0 <= number < len(obj):
            return None
        return obj[int(number)]
    return None


def _format(template: Any, *args: Any) -> str:
    text = to_string(template)
    out: list[str] = []
    at = 0
    while at < len(text):
        char = text[at]
        if text.startswith("{{", at) or text.startswith("}}", at):
            out.append(char)
            at += 2
        elif char == "{":
            end = text.find("}", at)
            index = text[at + 1 : end] if end > 0 else ""
            if not index.isdigit() or int(index) >= len(args):
                raise ExpressionError(f"format: bad placeholder in {text!r}")
            out.append(to_string(args[int(index)]))
            at = end + 1
        elif char == "}":
            raise ExpressionError(f"format: unmatched '}}' in {text!r}")
        else:
            out.append(char)
            at += 1
    return "".join(out)


def _contains(search: Any, item: Any) -> bool:
    if isinstance(search, list):
        return any(_equal(element, item) for element in search)
    return to_string(item).casefold() in to_string(search).casefold()


def _from_json(text: Any) -> Any:
    try:
        return json.loads(to_string(text))
    except ValueError as error:
        raise ExpressionError(f"fromJSON: not JSON: {to_string(text)[:200]!r}") from error


_FUNCTIONS: dict[str, Callable[..., Any]] = {
    "contains": _contains,
    "startswith": lambda a, b: to_string(a).casefold().startswith(to_string(b).casefold()),
    "endswith": lambda a, b: to_string(a).casefold().endswith(to_string(b).casefold()),
    "format": _format,
    "join": lambda a, sep=",": (
        to_string(sep).join(to_string(x) for x in a) if isinstance(a, list) else to_string(a)
    ),
    "tojson": lambda a: json.dumps(a, indent=2),
    "fromjson": _from_json,
}
STATUS_FUNCTIONS = ("success", "always", "failure", "cancelled")


def is_status_check(text: str) -> bool:
    """Whether an `if:` calls a status function (else GitHub wraps it in success() && ...)."""

    def calls(node: Node) -> bool:
        if node[0] == "call":
            return node[1] in STATUS_FUNCTIONS or any(calls(a) for a in node[2])
        return any(calls(part) for part in node[1:] if isinstance(part, tuple))

    return calls(parse(_strip(text)))


def _strip(text: str) -> str:
    """An `if:` may be written with or without `${{ }}` around it."""
    stripped = text.strip()
    if stripped.startswith("${{") and stripped.endswith("}}"):
        return stripped[3:-2]
    return stripped


def evaluate(
    text: str,
    contexts: Mapping[str, Any],
    status: Mapping[str, Callable[[], bool]] | None = None,
) -> Any:
    """The value of expression `text` (without `${{ }}`, or an `if:` with them) given the
    `contexts` available where it is written; `status` holds the status functions allowed
    there (only in `if:`)."""
    node = parse(_strip(text))
    return _eval(node, contexts, status or {}, text)


def _eval(
    node: Node, contexts: Mapping[str, Any], status: Mapping[str, Callable[[], bool]], text: str
) -> Any:
    kind = node[0]
    if kind == "lit":
        return node[1]
    if kind == "ctx":
        if node[1] not in contexts:
            raise ExpressionError(
                f"context {node[1]!r} is not available here (available: "
                f"{', '.join(sorted(contexts))}): {text!r}"
            )
        return contexts[node[1]]
    if kind == "prop":
        obj = _eval(node[1], contexts, status, text)
        key = _eval(node[2], contexts, status, text)
        return _property(obj, key)
    if kind == "not":
        return not truthy(_eval(node[1], contexts, status, text))
    if kind == "bin":
        op, left = node[1], _eval(node[2], contexts, status, text)
        if op == "&&":
            return left if not truthy(left) else _eval(node[3], contexts, status, text)
        if op == "||":
            return left if truthy(left) else _eval(node[3], contexts, status, text)
        right = _eval(node[3], contexts, status, text)
        if op == "==":
            return _equal(left, right)
        if op == "!=":
            return not _equal(left, right)
        return _order(op, left, right)
    if kind == "call":
        name, args = node[1], node[2]
        if name in STATUS_FUNCTIONS:
            if name not in status:
                raise ExpressionError(f"{name}() is only allowed in `if:`: {text!r}")
            if args:
                raise ExpressionError(f"{name}() takes no arguments: {text!r}")
            return status[name]()
        if name not in _FUNCTIONS:
            raise ExpressionError(f"function {name}() is not modelled by the runner: {text!r}")
        values = [_eval(arg, contexts, status, text) for arg in args]
        try:
            return _FUNCTIONS[name](*values)
        except TypeError as error:
            raise ExpressionError(f"{name}(): wrong arguments in {text!r}: {error}") from error
    raise ExpressionError(f"cannot evaluate {text!r}")


def _expression_end(text: str, start: int) -> int:
    """The index of the `}}` closing the expression starting at `start`, skipping strings."""
    at = start
    while at < len(text):
        if text[at] == "'":
            end = at + 1
            while True:
                end = text.find("'", end)
                if end < 0:
                    raise ExpressionError(f"unterminated string in {text!r}")
                if text.startswith("''", end):
                    end += 2
                    continue
                break
            at = end + 1
        elif text.startswith("}}", at):
            return at
        else:
            at += 1
    raise ExpressionError(f"no closing }}}} in {text!r}")


def interpolate(value: Any, contexts: Mapping[str, Any]) -> Any:
    """A workflow value with its `${{ }}` replaced: a string that is one whole expression keeps
    the expression's type (a matrix from fromJSON); mappings and lists are walked."""
    if isinstance(value, dict):
        return {k: interpolate(v, contexts) for k, v in value.items()}
    if isinstance(value, list):
        return [interpolate(v, contexts) for v in value]
    if not isinstance(value, str) or "${{" not in value:
        return value
    pieces: list[Any] = []
    at = 0
    while True:
        start = value.find("${{", at)
        if start < 0:
            pieces.append(value[at:])
            break
        pieces.append(value[at:start])
        end = _expression_end(value, start + 3)
        pieces.append((evaluate(value[start + 3 : end], contexts),))
        at = end + 2
    parts = [p for p in pieces if p != ""]
    if len(parts) == 1 and isinstance(parts[0], tuple):
        return parts[0][0]
    return "".join(p if isinstance(p, str) else to_string(p[0]) for p in parts)

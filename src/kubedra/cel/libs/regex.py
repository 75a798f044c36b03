"""Kubernetes' CEL regex library (``find``, ``findAll``) and Go-compatible RE2 compilation.

Go's regexp and RE2 share one syntax; the difference users see is the error text, so RE2's
messages are translated into Go's ``error parsing regexp: <code>: `<expr>``` form.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import re2

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR
from kubedra.cel.registry import NOT_CONSTANT, Overload, Registry
from kubedra.cel.types import INT, STRING, list_of

_OPTIONS = re2.Options()
_OPTIONS.log_errors = False

# RE2 error prefix -> Go regexp/syntax ErrorCode text
_GO_CODES = {
    "missing )": "missing closing )",
    "unexpected )": "unexpected )",
    "missing ]": "missing closing ]",
    "bad repetition operator": "invalid nested repetition operator",
    "invalid repetition size": "invalid repeat count",
    "trailing \\": "trailing backslash at end of expression",
    "invalid character class range": "invalid character class range",
    "invalid character class": "invalid character class",
    "invalid escape sequence": "invalid escape sequence",
    "invalid named capture group": "invalid named capture",
    "no argument for repetition operator": "missing argument to repetition operator",
    "invalid perl operator": "invalid or unsupported Perl syntax",
    "invalid UTF-8": "invalid UTF-8",
    "pattern too large - compile failed": "expression too large",
}


def _go_error(pattern: str, err: Exception) -> str:
    raw = err.args[0] if err.args else str(err)
    text = raw.decode("utf-8", "replace") if isinstance(raw, bytes) else str(raw)
    code, sep, expr = text.partition(": ")
    if code == "trailing \\":
        return "error parsing regexp: trailing backslash at end of expression: ``"
    go_code = _GO_CODES.get(code, code)
    if go_code in ("missing closing )", "unexpected )"):
        expr = pattern
    return f"error parsing regexp: {go_code}: `{expr if sep else pattern}`"


@functools.lru_cache(maxsize=4096)
def compile_regex(pattern: str) -> Any:
    """Compile like Go's ``regexp.Compile``; raises ValueError with Go's error text."""
    try:
        return re2.compile(pattern, _OPTIONS)
    except re2.error as err:
        raise ValueError(_go_error(pattern, err)) from None


def find_string(regex: Any, text: str) -> str:
    match = regex.search(text)
    return "" if match is None else str(match.group(0))


def find_all_string(regex: Any, text: str, n: int = -1) -> list[str]:
    """Go's ``FindAllString``: no empty match right after the previous match."""
    if n < 0:
        n = len(text) + 1
    out: list[str] = []
    pos = 0
    prev_end = -1
    end = len(text)
    while len(out) < n and pos <= end:
        match = regex.search(text, pos)
        if match is None:
            break
        start, stop = match.span()
        accept = True
        if stop == pos:
            if start == prev_end:
                accept = False
            pos += 1
        else:
            pos = stop
        prev_end = stop
        if accept:
            out.append(text[start:stop])
    return out


def _runtime_regex(pattern: str) -> Any:
    try:
        return compile_regex(pattern)
    except ValueError as err:
        raise CelEvaluationError(f"Illegal regex: {err}") from None


def find(text: str, pattern: str) -> str:
    return find_string(_runtime_regex(pattern), text)


def find_all(text: str, pattern: str, n: int = -1) -> list[str]:
    return find_all_string(_runtime_regex(pattern), text, n)


def _precompiled(index: int, impl: Callable[..., Any]) -> Callable[[tuple[Any, ...]], Any]:
    """The regex argument is a literal: compile it once, as cel-go's OptimizeRegex does."""

    def prepare(consts: tuple[Any, ...]) -> Callable[..., Any] | None:
        pattern = consts[index]
        if pattern is NOT_CONSTANT:
            return None
        try:
            regex = compile_regex(pattern)
        except ValueError as err:
            raise CelEvaluationError(str(err)) from None
        return lambda text, _pattern, *rest: impl(regex, text, *rest)

    return prepare


def _cost(args: Any, _result: Any) -> int:
    str_cost = int(-(-(1 + len(args[0])) * STRING_TRAVERSAL_COST_FACTOR // 1))
    regex_cost = int(-(-len(args[1]) * REGEX_STRING_LENGTH_COST_FACTOR // 1))
    return str_cost * regex_cost


def register(registry: Registry) -> None:
    add = registry.add
    add(
        "find",
        Overload(
            "string_find_string",
            (STRING, STRING),
            STRING,
            find,
            member=True,
            cost=_cost,
            prepare=_precompiled(1, find_string),
        ),
    )
    add(
        "findAll",
        Overload(
            "string_find_all_string",
            (STRING, STRING),
            list_of(STRING),
            find_all,
            member=True,
            cost=_cost,
            prepare=_precompiled(1, find_all_string),
        ),
    )
    add(
        "findAll",
        Overload(
            "string_find_all_string_int",
            (STRING, STRING, INT),
            list_of(STRING),
            find_all,
            member=True,
            cost=_cost,
            prepare=_precompiled(1, find_all_string),
        ),
    )

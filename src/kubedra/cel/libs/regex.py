"""Kubernetes' CEL regex library: ``find`` and ``findAll`` (Go's FindString/FindAllString)."""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import REGEX_STRING_LENGTH_COST_FACTOR, STRING_TRAVERSAL_COST_FACTOR
from kubedra.cel.regex import Regex, compile_regex
from kubedra.cel.registry import NOT_CONSTANT, Overload, Registry
from kubedra.cel.types import INT, STRING, list_of


def find_string(regex: Regex, text: str) -> str:
    match = regex.search(text)
    return "" if match is None else str(match.group(0))


def find_all_string(regex: Regex, text: str, n: int = -1) -> list[str]:
    """Go's ``FindAllString``: every match when ``n`` is negative."""
    return regex.find_all(text, len(text) + 1 if n < 0 else n)


def _runtime_regex(pattern: str) -> Regex:
    try:
        return compile_regex(pattern)
    except CelEvaluationError as err:
        raise CelEvaluationError(f"Illegal regex: {err}") from None


def find(text: str, pattern: str) -> str:
    return find_string(_runtime_regex(pattern), text)


def find_all(text: str, pattern: str, n: int = -1) -> list[str]:
    return find_all_string(_runtime_regex(pattern), text, n)


def _precompiled(impl: Callable[..., Any]) -> Callable[[tuple[Any, ...]], Any]:
    """A literal regex is compiled once when the program is built, as cel-go's
    OptimizeRegex does; an invalid one fails the program instantiation."""

    def prepare(consts: tuple[Any, ...]) -> Callable[..., Any] | None:
        pattern = consts[1]
        if pattern is NOT_CONSTANT or not isinstance(pattern, str):
            return None  # not a literal string: compiled (and type-checked) at run time
        regex = compile_regex(pattern)
        return lambda text, _pattern, *rest: impl(regex, text, *rest)

    return prepare


def _cost(args: Any, _result: Any) -> int:
    str_cost = math.ceil((1 + len(args[0])) * STRING_TRAVERSAL_COST_FACTOR)
    regex_cost = math.ceil(len(args[1]) * REGEX_STRING_LENGTH_COST_FACTOR)
    return str_cost * regex_cost


def register(registry: Registry) -> None:
    add = registry.add
    s = STRING
    add(
        "find",
        Overload(
            "string_find_string",
            (s, s),
            s,
            find,
            member=True,
            cost=_cost,
            prepare=_precompiled(find_string),
        ),
    )
    add(
        "findAll",
        Overload(
            "string_find_all_string",
            (s, s),
            list_of(s),
            find_all,
            member=True,
            cost=_cost,
            prepare=_precompiled(find_all_string),
        ),
    )
    add(
        "findAll",
        Overload(
            "string_find_all_string_int",
            (s, s, INT),
            list_of(s),
            find_all,
            member=True,
            cost=_cost,
            prepare=_precompiled(find_all_string),
        ),
    )

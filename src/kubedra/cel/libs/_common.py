"""Helpers shared by the library modules: cel-go's cost factors and size measures."""

from __future__ import annotations

import math
from collections.abc import Sequence
from typing import Any

from kubedra.cel.values import Duration, Timestamp, UInt

STRING_TRAVERSAL_COST_FACTOR = 0.1
REGEX_STRING_LENGTH_COST_FACTOR = 0.25

# Element types that cel-go's lists and sort functions accept (traits.Comparer).
COMPARABLE = (int, UInt, float, bool, str, bytes, Duration, Timestamp)


def actual_size(value: Any) -> int:
    """cel-go's actualSize: the size of strings (code points), bytes, lists and maps; else 1."""
    if isinstance(value, (str, bytes, list, dict)):
        return len(value)
    return 1


def string_cost(value: Any, factor: float = STRING_TRAVERSAL_COST_FACTOR) -> int:
    return math.ceil(actual_size(value) * factor)


def traversal_cost(value: Any, seen: dict[int, int] | None = None) -> int:
    """Kubernetes' traversalCost: a pass over every element (strings by their bytes).

    ``seen`` holds the cost of containers already priced (by identity: CEL values are
    immutable), so a list shared many times is walked once, not once per reference."""
    if isinstance(value, str):
        return int(len(value.encode()) * STRING_TRAVERSAL_COST_FACTOR)
    if isinstance(value, bytes):
        return int(len(value) * STRING_TRAVERSAL_COST_FACTOR)
    if isinstance(value, list | dict):
        if seen is None:
            seen = {}
        known = seen.get(id(value))
        if known is None:
            if isinstance(value, list):
                known = sum(traversal_cost(v, seen) for v in value)
            else:
                known = sum(
                    traversal_cost(k, seen) + traversal_cost(v, seen) for k, v in value.items()
                )
            seen[id(value)] = known
        return known
    return 1


def first_arg_traversal(args: Sequence[Any], _result: Any) -> int:
    return traversal_cost(args[0]) if args else 0


def first_arg_string_cost(args: Sequence[Any], _result: Any) -> int:
    return string_cost(args[0]) if args else 1


def nominal(_args: Sequence[Any], _result: Any) -> int:
    return 1

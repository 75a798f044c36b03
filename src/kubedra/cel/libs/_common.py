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


def traversal_cost(value: Any) -> int:
    """Kubernetes' traversalCost: a pass over every element (strings by their bytes)."""
    if isinstance(value, str):
        return int(len(value.encode()) * STRING_TRAVERSAL_COST_FACTOR)
    if isinstance(value, bytes):
        return int(len(value) * STRING_TRAVERSAL_COST_FACTOR)
    if isinstance(value, list):
        return sum(traversal_cost(v) for v in value)
    if isinstance(value, dict):
        return sum(traversal_cost(k) + traversal_cost(v) for k, v in value.items())
    return 1


def first_arg_traversal(args: Sequence[Any], _result: Any) -> int:
    return traversal_cost(args[0]) if args else 0


def first_arg_string_cost(args: Sequence[Any], _result: Any) -> int:
    return string_cost(args[0]) if args else 1


def nominal(_args: Sequence[Any], _result: Any) -> int:
    return 1

"""Kubernetes' CEL lists library: isSorted, sum, min, max, indexOf, lastIndexOf.

The DRA ``includes`` function lives with the selector environment (kubedra.cel.selector).
"""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import first_arg_traversal
from kubedra.cel.libs._compare import add as cel_add
from kubedra.cel.libs._compare import compare
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DURATION,
    INT,
    STRING,
    TIMESTAMP,
    UINT,
    CelType,
    list_of,
    type_param,
)
from kubedra.cel.values import Duration, UInt, cel_equal

COMPARABLE_TYPES: tuple[tuple[str, CelType], ...] = (
    ("int", INT),
    ("uint", UINT),
    ("double", DOUBLE),
    ("bool", BOOL),
    ("duration", DURATION),
    ("timestamp", TIMESTAMP),
    ("string", STRING),
    ("bytes", BYTES),
)
SUMMABLE_TYPES: tuple[tuple[str, CelType, Any], ...] = (
    ("int", INT, 0),
    ("uint", UINT, UInt(0)),
    ("double", DOUBLE, 0.0),
    ("duration", DURATION, Duration(0)),
)


def _ordered(a: Any, b: Any) -> int | None:
    try:
        return compare(a, b)
    except CelEvaluationError:
        return None


def is_sorted(items: list[Any]) -> bool:
    return all(_ordered(prev, nxt) != 1 for prev, nxt in itertools.pairwise(items))


def _sum(zero: Any) -> Callable[[list[Any]], Any]:
    def total(items: list[Any]) -> Any:
        acc = zero
        for item in items:
            acc = cel_add(acc, item)
        return acc

    return total


def _extreme(name: str, prefer: int) -> Callable[[list[Any]], Any]:
    def pick(items: list[Any]) -> Any:
        if not items:
            raise CelEvaluationError(f"{name} called on empty list")
        result = items[0]
        for item in items[1:]:
            if _ordered(result, item) == prefer:
                result = item
        return result

    return pick


def index_of(items: list[Any], item: Any) -> int:
    for i, value in enumerate(items):
        if cel_equal(value, item):
            return i
    return -1


def last_index_of(items: list[Any], item: Any) -> int:
    for i in range(len(items) - 1, -1, -1):
        if cel_equal(items[i], item):
            return i
    return -1


def register(registry: Registry) -> None:
    add = registry.add
    for name, t in COMPARABLE_TYPES:
        lt = list_of(t)
        add(
            "isSorted",
            Overload(
                f"list_{name}_is_sorted_bool",
                (lt,),
                BOOL,
                is_sorted,
                member=True,
                cost=first_arg_traversal,
            ),
        )
        add(
            "max",
            Overload(
                f"list_{name}_max_{name}",
                (lt,),
                t,
                _extreme("max", -1),
                member=True,
                cost=first_arg_traversal,
            ),
        )
        add(
            "min",
            Overload(
                f"list_{name}_min_{name}",
                (lt,),
                t,
                _extreme("min", 1),
                member=True,
                cost=first_arg_traversal,
            ),
        )
    for name, t, zero in SUMMABLE_TYPES:
        add(
            "sum",
            Overload(
                f"list_{name}_sum_{name}",
                (list_of(t),),
                t,
                _sum(zero),
                member=True,
                cost=first_arg_traversal,
            ),
        )
    a = type_param("A")
    add(
        "indexOf",
        Overload(
            "list_a_index_of_int",
            (list_of(a), a),
            INT,
            index_of,
            member=True,
            cost=first_arg_traversal,
        ),
    )
    add(
        "lastIndexOf",
        Overload(
            "list_a_last_index_of_int",
            (list_of(a), a),
            INT,
            last_index_of,
            member=True,
            cost=first_arg_traversal,
        ),
    )

"""cel-go's ext sets library: sets.contains, sets.equivalent, sets.intersects."""

from __future__ import annotations

from typing import Any

from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import BOOL, list_of, type_param
from kubedra.cel.values import cel_equal


def _has(items: list[Any], value: Any) -> bool:
    return any(cel_equal(item, value) for item in items)


def contains(items: list[Any], sub: list[Any]) -> bool:
    return all(_has(items, value) for value in sub)


def equivalent(a: list[Any], b: list[Any]) -> bool:
    return contains(a, b) and contains(b, a)


def intersects(a: list[Any], b: list[Any]) -> bool:
    return any(_has(b, value) for value in a)


def _cost(factor: int) -> Any:
    """cel-go's sets tracker: one call plus the product of the list sizes times a factor."""
    return lambda args, _result: 1 + len(args[0]) * len(args[1]) * factor


def register(registry: Registry) -> None:
    lt = list_of(type_param("T"))
    add = registry.add
    add(
        "sets.contains",
        Overload("list_sets_contains_list", (lt, lt), BOOL, contains, cost=_cost(1)),
    )
    add(
        "sets.equivalent",
        Overload("list_sets_equivalent_list", (lt, lt), BOOL, equivalent, cost=_cost(2)),
    )
    add(
        "sets.intersects",
        Overload("list_sets_intersects_list", (lt, lt), BOOL, intersects, cost=_cost(1)),
    )

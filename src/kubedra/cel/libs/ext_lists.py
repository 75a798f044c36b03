"""cel-go's ext lists library (version 3, with its cost trackers) plus the optional
library's ``first``/``last``.

``sortBy`` is a macro: the parser rewrites ``l.sortBy(x, key)`` into
``l.@sortByAssociatedKeys(l.map(x, key))``, which is registered here.
"""

from __future__ import annotations

import functools
from typing import Any

from kubedra.cel.errors import CelEvaluationError
from kubedra.cel.libs._common import COMPARABLE, STRING_TRAVERSAL_COST_FACTOR
from kubedra.cel.libs._compare import compare
from kubedra.cel.libs.lists import COMPARABLE_TYPES
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.types import DYN, INT, list_of, optional_of, type_param
from kubedra.cel.values import Optional, cel_equal


def slice_list(items: list[Any], start: int, end: int) -> list[Any]:
    if start < 0 or end < 0:
        raise CelEvaluationError(f"cannot slice({start}, {end}), negative indexes not supported")
    if start > end:
        raise CelEvaluationError(
            f"cannot slice({start}, {end}), start index must be less than or equal to end index"
        )
    if len(items) < end:
        raise CelEvaluationError(f"cannot slice({start}, {end}), list is length {len(items)}")
    return items[start:end]


def flatten(items: list[Any], depth: int = 1) -> list[Any]:
    if depth < 0:
        raise CelEvaluationError("level must be non-negative")
    out: list[Any] = []
    for item in items:
        if isinstance(item, list) and depth > 0:
            out.extend(flatten(item, depth - 1))
        else:
            out.append(item)
    return out


def sort_by_associated_keys(items: list[Any], keys: list[Any]) -> list[Any]:
    if len(items) != len(keys):
        raise CelEvaluationError(
            "@sortByAssociatedKeys() expected a list of the same size as the associated keys "
            f"list, but got {len(items)} and {len(keys)} elements respectively"
        )
    if not items:
        return items
    first_type = type(keys[0])
    if not isinstance(keys[0], COMPARABLE):
        raise CelEvaluationError("list elements must be comparable")
    if any(type(k) is not first_type for k in keys):
        raise CelEvaluationError("list elements must have the same type")

    def order(i: int, j: int) -> int:
        try:
            return compare(keys[i], keys[j])
        except CelEvaluationError:
            return 0

    indices = sorted(range(len(items)), key=functools.cmp_to_key(order))
    return [items[i] for i in indices]


def sort_list(items: list[Any]) -> list[Any]:
    return sort_by_associated_keys(items, items)


def lists_range(n: int) -> list[int]:
    return list(range(n))


def reverse(items: list[Any]) -> list[Any]:
    return items[::-1]


def distinct(items: list[Any]) -> list[Any]:
    unique: list[Any] = []
    for item in items:
        if not any(cel_equal(item, seen) for seen in unique):
            unique.append(item)
    return unique


def first(items: list[Any]) -> Optional:
    return Optional(True, items[0]) if items else Optional(False)


def last(items: list[Any]) -> Optional:
    return Optional(True, items[-1]) if items else Optional(False)


# cel-go's lists library (version 3) cost trackers: a call costs 1, allocating a list 10.
_CALL_COST = 1
_LIST_CREATE_BASE_COST = 10


def _allocating(factor: float, size: int) -> int:
    return int(size * factor) + _CALL_COST + _LIST_CREATE_BASE_COST


def _output_size(_args: Any, result: Any) -> int:
    return _allocating(1, len(result) if isinstance(result, list) else 1)


def _range_cost(args: Any, _result: Any) -> int:
    """The output size of lists.range(n) is known from n: charged before the list exists."""
    return _allocating(1, max(args[0], 0))


def _reverse_cost(args: Any, _result: Any) -> int:
    return _allocating(1, len(args[0]))


def _flatten_cost(args: Any, _result: Any) -> int:
    depth = args[1] if len(args) == 2 else 1
    return _allocating(depth, len(args[0]))


def flatten_work(args: Any, _budget: int) -> int:
    """The list items ``flatten`` will visit (and mostly copy).

    Nested lists may be one list shared many times (``cel.bind``, or a ``map`` returning
    the same variable): ten levels of ten references hold 10**10 items while upstream
    charges depth x outer size. Counted per distinct list and depth, so counting is cheap.
    """
    depth = args[1] if len(args) == 2 else 1
    items = args[0]
    if not isinstance(items, list) or type(depth) is not int or depth < 0:
        return 0  # the call fails at once
    counted: dict[tuple[int, int], int] = {}

    def visits(current: list[Any], level: int) -> int:
        key = (id(current), level)
        known = counted.get(key)
        if known is None:
            known = len(current)
            if level > 0:
                known += sum(visits(item, level - 1) for item in current if type(item) is list)
            counted[key] = known
        return known

    return visits(items, depth)


def _self_compare(items: list[Any]) -> int:
    factor = 2.0
    if items and isinstance(items[0], (str, bytes)):
        factor += STRING_TRAVERSAL_COST_FACTOR
    return _allocating(factor, len(items) * len(items))


def _sort_cost(args: Any, _result: Any) -> int:
    return _self_compare(args[0])


def _sort_by_cost(args: Any, _result: Any) -> int:
    return _self_compare(args[1])


def register(registry: Registry) -> None:
    t = type_param("T")
    lt = list_of(t)
    add = registry.add
    add(
        "slice",
        Overload(
            "list_slice",
            (lt, INT, INT),
            lt,
            slice_list,
            member=True,
            cost=_output_size,
            cost_from_result=True,
        ),
    )
    add(
        "flatten",
        Overload(
            "list_flatten",
            (list_of(lt),),
            lt,
            flatten,
            member=True,
            cost=_flatten_cost,
            work=flatten_work,
        ),
    )
    add(
        "flatten",
        Overload(
            "list_flatten_int",
            (list_of(DYN), INT),
            list_of(DYN),
            flatten,
            member=True,
            cost=_flatten_cost,
            work=flatten_work,
        ),
    )
    for name, ct in COMPARABLE_TYPES:
        add(
            "sort",
            Overload(
                f"list_{name}_sort",
                (list_of(ct),),
                list_of(ct),
                sort_list,
                member=True,
                cost=_sort_cost,
            ),
        )
        add(
            "@sortByAssociatedKeys",
            Overload(
                f"list_{name}_sortByAssociatedKeys",
                (lt, list_of(ct)),
                lt,
                sort_by_associated_keys,
                member=True,
                cost=_sort_by_cost,
            ),
        )
    add(
        "lists.range",
        Overload(
            "lists_range",
            (INT,),
            list_of(INT),
            lists_range,
            cost=_range_cost,
        ),
    )
    add(
        "reverse",
        Overload("list_reverse", (lt,), lt, reverse, member=True, cost=_reverse_cost),
    )
    add(
        "distinct",
        Overload("list_distinct", (lt,), lt, distinct, member=True, cost=_sort_cost),
    )
    add("first", Overload("list_first", (lt,), optional_of(t), first, member=True))
    add("last", Overload("list_last", (lt,), optional_of(t), last, member=True))

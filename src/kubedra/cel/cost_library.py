"""Per-function cost estimates, in the order cel-go consults them.

1. the ext libraries' overload estimators (lists version 3, sets), by overload id;
2. DRA's ``includes`` (``k8s.io/dynamic-resource-allocation/cel``);
3. Kubernetes' library estimator (``k8s.io/apiserver/pkg/cel/library/cost.go``), by
   function name;
4. cel-go's own rules for standard functions (``checker/cost.go``), by overload id.

Anything else costs 1. A rule returns the call's own cost (the arguments are added by the
caller) and, where upstream gives one, the size of the result. Sizes are ``(min, max)``
pairs; arithmetic saturates at 2**64-1 and cost factors round up through doubles, as in Go.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from kubedra.cel.cost import Node

UNBOUNDED = (1 << 64) - 1
Size = tuple[int, int]
STRING_TRAVERSAL = 0.1
REGEX_LENGTH = 0.25
LIST_CREATE = 10
MAX_ATTRIBUTE_VALUES = 48  # resource.k8s.io ResourceSliceMaxAttributeValuesPerDevice
MAX_FORMAT_SIZE = 64
MAX_NAME_FORMAT_REGEX_SIZE = 128
_TWO_TO_64 = float(1 << 64)


# Kubernetes' library functions whose call costs a flat 1 (k8s.io/apiserver/pkg/cel/library).
_IP_CONSTANT_COST = frozenset(
    [
        "masked",
        "prefixLength",
        "family",
        "isUnspecified",
        "isLoopback",
        "isLinkLocalMulticast",
        "isLinkLocalUnicast",
        "isGlobalUnicast",
    ]
)
_CONSTANT_COST = frozenset(
    [
        "format.named",
        "sign",
        "asInteger",
        "isInteger",
        "asApproximateFloat",
        "isGreaterThan",
        "isLessThan",
        "compareTo",
        "add",
        "sub",
        "major",
        "minor",
        "patch",
        "getScheme",
        "getHostname",
        "getHost",
        "getPort",
        "getEscapedPath",
        "getQuery",
    ]
)


@dataclass(slots=True)
class Entry:
    """Sizes of a container's keys (or indices) and values, as cel-go's entrySizeEstimate."""

    container: str  # "list" or "map"
    key: Size
    value: Size


def entry_union(a: Entry | None, b: Entry | None) -> Entry | None:
    if a is None or b is None:
        return None
    return Entry(a.container, union(a.key, b.key), union(a.value, b.value))


@dataclass(slots=True)
class CallEstimate:
    cost: Size
    size: Size | None = None
    entry: Entry | None = None


def add_sat(a: int, b: int) -> int:
    return min(a + b, UNBOUNDED)


def mul_sat(a: int, b: int) -> int:
    return min(a * b, UNBOUNDED)


def factor(x: int, f: float) -> int:
    """cel-go's multiplyByCostFactor: ceil(x * f) in doubles, saturating."""
    xf = float(x)
    if xf > 0 and f > 0 and xf > float(UNBOUNDED) / f:
        return UNBOUNDED
    product = math.ceil(xf * f)
    return UNBOUNDED if product >= _TWO_TO_64 else int(product)


def by_factor(size: Size, f: float) -> Size:
    return factor(size[0], f), factor(size[1], f)


def add(a: Size, b: Size) -> Size:
    return add_sat(a[0], b[0]), add_sat(a[1], b[1])


def mul(a: Size, b: Size) -> Size:
    return mul_sat(a[0], b[0]), mul_sat(a[1], b[1])


def union(a: Size, b: Size) -> Size:
    return min(a[0], b[0]), max(a[1], b[1])


def _sz(node: Node | None) -> Size:
    return node.size_or_unknown() if node is not None else (0, UNBOUNDED)


def _int_literal(node: Node, default: int) -> int:
    """ext lists' nodeAsIntValue: a literal int (negative as 0), else the default."""
    value = node.const
    if node.is_const and type(value) is int:
        return max(value, 0)
    return default


def _allocating_list(cost_factor: float, size: Size) -> CallEstimate:
    cost = add(by_factor(size, cost_factor), (1 + LIST_CREATE, 1 + LIST_CREATE))
    return CallEstimate(cost, size)


def _element_kind(node: Node) -> str | None:
    t = node.type
    if t is None or t.kind != "list" or not t.params:
        return None
    return t.params[0].name


def _ext_overload(oid: str, target: Node | None, args: list[Node]) -> CallEstimate | None:
    if oid == "list_slice" and target is not None and len(args) == 2:
        start = _int_literal(args[0], 0)
        end = _int_literal(args[1], _sz(target)[1])
        n = (end - start) % (1 << 64)
        return _allocating_list(1, (n, n))
    if oid == "lists_range" and target is None and len(args) == 1:
        n = _int_literal(args[0], UNBOUNDED)
        return _allocating_list(1, (n, n))
    if oid == "list_reverse" and target is not None and not args:
        return _allocating_list(1, _sz(target))
    if oid in ("list_flatten", "list_flatten_int") and target is not None and len(args) <= 1:
        depth = _int_literal(args[0], UNBOUNDED) if args else 1
        return _allocating_list(float(depth), _sz(target))
    if oid == "list_distinct" and target is not None and not args:
        size = _sz(target)
        return _allocating_list(2.0, mul(size, size))
    if oid.startswith("list_") and oid.endswith("_sort") and target is not None and not args:
        return _sort(oid[len("list_") : -len("_sort")], _sz(target))
    if oid.endswith("_sortByAssociatedKeys") and target is not None and len(args) == 1:
        return _sort(oid[len("list_") : -len("_sortByAssociatedKeys")], _sz(args[0]))
    if oid.startswith("list_sets_") and len(args) == 2:
        cost_factor = 2.0 if oid == "list_sets_equivalent_list" else 1.0
        product = mul(_sz(args[0]), _sz(args[1]))
        return CallEstimate(add(by_factor(product, cost_factor), (1, 1)))
    return None


def _sort(element: str, size: Size) -> CallEstimate:
    cost_factor = 2.0 + (STRING_TRAVERSAL if element in ("string", "bytes") else 0.0)
    return _allocating_list(cost_factor, mul(size, size))


def _kubernetes(name: str, oid: str, target: Node | None, args: list[Node]) -> CallEstimate | None:
    """k8s.io/apiserver/pkg/cel/library CostEstimator.EstimateCallCost."""
    if name in ("isSorted", "sum", "max", "min", "indexOf", "lastIndexOf", "includes"):
        if target is None:
            return None
        element = _element_kind(target)
        if element is not None:
            per: Size = (1, 1)
            if element in ("string", "bytes"):
                per = add(per, by_factor(_list_items_size(target), STRING_TRAVERSAL))
            return CallEstimate(mul(_sz(target), per))
        if name == "includes":
            return CallEstimate(_sz(target))
        return CallEstimate(by_factor(_sz(target), STRING_TRAVERSAL))
    if name == "url" and len(args) == 1:
        size = _sz(args[0])
        return CallEstimate(by_factor(size, STRING_TRAVERSAL), size)
    if name in ("lowerAscii", "upperAscii", "substring", "trim") and target is not None:
        size = _sz(target)
        return CallEstimate(by_factor(size, STRING_TRAVERSAL), size)
    if name == "replace" and target is not None and len(args) >= 2:
        return _replace(_sz(target), _sz(args[0]), _sz(args[1]))
    if name == "split" and target is not None:
        size = _sz(target)
        limit = size[1]
        if len(args) > 1 and args[1].is_const and type(args[1].const) is int:
            limit = int(args[1].const) % (1 << 64)
        return CallEstimate(by_factor(size, 2 * STRING_TRAVERSAL), (0, limit))
    if name == "join" and target is not None:
        count = _sz(target)
        joined: Size = (0, 0)
        if _element_kind(target) is not None:
            joined = mul(count, _list_items_size(target))
        if args:
            separators = (max(count[0] - 1, 0), max(count[1] - 1, 0))
            joined = add(joined, mul(_sz(args[0]), separators))
        return CallEstimate(by_factor(joined, STRING_TRAVERSAL), joined)
    if name in ("find", "findAll") and target is not None and args:
        size = _sz(target)
        text = by_factor(add(size, (1, 1)), STRING_TRAVERSAL)
        regex = by_factor(_sz(args[0]), REGEX_LENGTH)
        return CallEstimate(mul(text, regex), (0, size[1]))
    if name in ("cidr", "isIP", "isCIDR") and args:
        return CallEstimate(by_factor(_sz(args[0]), STRING_TRAVERSAL))
    if name == "ip":
        if oid == "cidr_ip":
            return CallEstimate((1, 1))
        if args:
            return CallEstimate(by_factor(_sz(args[0]), STRING_TRAVERSAL))
        return None
    if name == "ip.isCanonical" and args:
        return CallEstimate(by_factor(_sz(args[0]), 2 * STRING_TRAVERSAL))
    if name in _IP_CONSTANT_COST:
        return CallEstimate((1, 1))
    if name in ("containsIP", "containsCIDR") and args:
        ip: Size = (4, 16)
        cost = by_factor(add(ip, ip), STRING_TRAVERSAL)
        if name == "containsCIDR":
            cost = add(add(cost, by_factor(ip, STRING_TRAVERSAL)), (1, 1))
        if oid in ("cidr_contains_ip_string", "cidr_contains_cidr_string"):
            cost = add(cost, by_factor(_sz(args[0]), STRING_TRAVERSAL))
        return CallEstimate(cost)
    if name in ("quantity", "isQuantity", "semver", "isSemver") and args:
        return CallEstimate(by_factor(_sz(args[0]), STRING_TRAVERSAL))
    if name == "validate" and args:
        scan = by_factor(_sz(args[0]), STRING_TRAVERSAL)
        return CallEstimate(by_factor(scan, MAX_NAME_FORMAT_REGEX_SIZE * REGEX_LENGTH))
    if name in _CONSTANT_COST:
        return CallEstimate((1, 1))
    if name == "_==_" and len(args) == 2:
        return _kubernetes_equality(args[0], args[1])
    return None


def _list_items_size(target: Node) -> Size:
    """Size of a list's items, found by path (``@items``) as Kubernetes' listElementNode."""
    return target.items_size if target.items_size is not None else (0, UNBOUNDED)


def _kubernetes_equality(lhs: Node, rhs: Node) -> CallEstimate | None:
    lt, rt = lhs.type, rhs.type
    if lt is None or rt is None or lt != rt:
        return None
    if lt.name in ("net.IP", "net.CIDR", "kubernetes.Quantity", "kubernetes.Semver"):
        return CallEstimate((1, 1))
    if lt.name == "kubernetes.NamedFormat":
        return CallEstimate(by_factor((1, MAX_FORMAT_SIZE), STRING_TRAVERSAL))
    if lt.name == "kubernetes.URL":
        size = rhs.size if rhs.size is not None else (1, 1)
        return CallEstimate(by_factor((1, size[1]), STRING_TRAVERSAL))
    return None


def _replace(size: Size, old: Size, new: Size) -> CallEstimate:
    count_max = retained_max = 0
    if old[0] == 0:
        count_max = size[1] + 1 if size[1] < UNBOUNDED else size[1]
        retained_max = size[1]
    elif new[1] <= old[0]:
        retained_max = size[1]
    else:
        count_max = min(math.ceil(float(size[1]) / float(old[0])), UNBOUNDED)
    count_min = retained_min = 0
    if old[1] == 0:
        count_min = size[0] + 1 if size[0] < UNBOUNDED else size[0]
        retained_min = size[0]
    elif old[1] <= new[0]:
        retained_min = size[0]
    else:
        count_min = min(math.ceil(float(size[0]) / float(old[1])), UNBOUNDED)
    result = add(mul((count_min, count_max), new), (retained_min, retained_max))
    return CallEstimate(by_factor(size, 2 * STRING_TRAVERSAL), result)


def _standard(oid: str, target: Node | None, args: list[Node]) -> CallEstimate | None:
    """cel-go's checker rules for standard-library overloads."""
    if oid == "string_format" and target is not None:
        return CallEstimate(by_factor(_sz(target), STRING_TRAVERSAL))
    if oid == "string_to_bytes" and len(args) == 1:
        size = _sz(args[0])
        return CallEstimate(by_factor(size, STRING_TRAVERSAL), (size[0], mul_sat(size[1], 4)))
    if oid == "bytes_to_string" and len(args) == 1:
        size = _sz(args[0])
        return CallEstimate(by_factor(size, STRING_TRAVERSAL), (size[0] // 4, size[1]))
    if oid == "strings_quote" and len(args) == 1:
        size = _sz(args[0])
        quoted = (add_sat(size[0], 2), add_sat(mul_sat(size[1], 2), 2))
        return CallEstimate(by_factor(size, STRING_TRAVERSAL), quoted)
    if oid in ("starts_with_string", "ends_with_string") and len(args) == 1:
        return CallEstimate(by_factor(_sz(args[0]), STRING_TRAVERSAL))
    if oid == "in_list" and len(args) == 2:
        return CallEstimate(_sz(args[1]))
    if oid == "matches_string" and target is not None and len(args) == 1:
        text = by_factor(add(_sz(target), (1, 1)), STRING_TRAVERSAL)
        regex = by_factor(_sz(args[0]), REGEX_LENGTH)
        return CallEstimate(mul(text, regex))
    if oid == "contains_string" and target is not None and len(args) == 1:
        return CallEstimate(
            mul(by_factor(_sz(target), STRING_TRAVERSAL), by_factor(_sz(args[0]), STRING_TRAVERSAL))
        )
    if oid in ("add_string", "add_bytes", "add_list") and len(args) == 2:
        size = add(_sz(args[0]), _sz(args[1]))
        entry = entry_union(args[0].entry, args[1].entry)
        if oid == "add_list":
            return CallEstimate((1, 1), size, entry)
        return CallEstimate(by_factor(size, STRING_TRAVERSAL), size, entry)
    if oid in _SIZED_COMPARISONS and len(args) == 2:
        smallest = min(_sz(args[0])[1], _sz(args[1])[1])
        return CallEstimate(by_factor((1 if smallest > 0 else 0, smallest), STRING_TRAVERSAL))
    return None


_SIZED_COMPARISONS = frozenset(
    f"{op}_{kind}"
    for op in ("less", "greater", "less_equals", "greater_equals")
    for kind in ("string", "bytes")
) | {"equals", "not_equals"}


RECEIVER_PRICED = frozenset(["starts_with_string", "ends_with_string"])
"""Overloads cel-go estimates by their argument but charges by their receiver at run time:
``s.startsWith("")`` is estimated at 0 whatever ``s``; a sure bound prices the receiver."""


def call_estimate(
    name: str, oid: str, target: Node | None, args: list[Node], *, bound: bool = False
) -> CallEstimate | None:
    """The estimate of one overload of a call, or None for the default cost of 1.
    ``bound``: the figure that bounds the actual cost where upstream's does not."""
    if bound and oid in RECEIVER_PRICED and target is not None:
        return CallEstimate(by_factor(_sz(target), STRING_TRAVERSAL))
    if oid.startswith("list_") or oid == "lists_range":
        found = _ext_overload(oid, target, args)
        if found is not None:
            return found
    if name == "includes" and oid == "dra_includes_dyn_dyn" and target is not None:
        return CallEstimate((0, MAX_ATTRIBUTE_VALUES))
    if name in KUBERNETES_FUNCTIONS:
        found = _kubernetes(name, oid, target, args)
        if found is not None:
            return found
    if oid in _STANDARD_OVERLOADS:
        return _standard(oid, target, args)
    return None


# The names and overload ids the rules above know (a quick test on the hot compile path).
# KUBERNETES_FUNCTIONS is also the compiler's test for "Kubernetes' CallCost prices this call".
KUBERNETES_FUNCTIONS = (
    frozenset(
        [
            "isSorted",
            "sum",
            "max",
            "min",
            "indexOf",
            "lastIndexOf",
            "includes",
            "url",
            "lowerAscii",
            "upperAscii",
            "substring",
            "trim",
            "replace",
            "split",
            "join",
            "find",
            "findAll",
            "cidr",
            "isIP",
            "isCIDR",
            "ip",
            "ip.isCanonical",
            "containsIP",
            "containsCIDR",
            "quantity",
            "isQuantity",
            "semver",
            "isSemver",
            "validate",
            "_==_",
        ]
    )
    | _IP_CONSTANT_COST
    | _CONSTANT_COST
)
_STANDARD_OVERLOADS = _SIZED_COMPARISONS | {
    "string_format",
    "string_to_bytes",
    "bytes_to_string",
    "strings_quote",
    "starts_with_string",
    "ends_with_string",
    "in_list",
    "matches_string",
    "contains_string",
    "add_string",
    "add_bytes",
    "add_list",
}

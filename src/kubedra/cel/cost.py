"""Static worst-case cost estimate of a checked expression, in CEL cost units.

It follows cel-go's estimator (``checker/cost.go``) with Kubernetes' library estimator
(``k8s.io/apiserver/pkg/cel/library/cost.go``) and the ext libraries' own estimators
(``kubedra.cel.cost_library``): identifiers and selections on maps and objects cost 1, calls 1
or their library estimate, list literals 10, map literals 30, ``has()`` nothing beyond its
operand; logical operators and ternaries take their costlier branch; macros are costed as
their cel-go expansion (accumulator initialiser, loop condition and step per element,
result). Sizes come from literals, from the library estimators' result sizes, from
``size_hints`` (the DRA environment declares its limits, by field path) and are 1 for
scalar types; anything else is unknown and saturates at 2**64-1 as in cel-go.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from kubedra.cel import ast
from kubedra.cel.checker import Checked
from kubedra.cel.cost_library import (
    RECEIVER_PRICED,
    UNBOUNDED,
    CallEstimate,
    Entry,
    Size,
    add_sat,
    call_estimate,
    entry_union,
    mul_sat,
    union,
)
from kubedra.cel.registry import Registry
from kubedra.cel.types import CelType

SizeHints = Callable[[tuple[str, ...]], int | None]
_SCALARS = (
    "bool",
    "int",
    "uint",
    "double",
    "google.protobuf.Duration",
    "google.protobuf.Timestamp",
)


@dataclass(slots=True)
class Node:
    """What the estimator knows about one sub-expression."""

    cost: Size
    size: Size | None = None
    path: tuple[str, ...] | None = None
    entry: Entry | None = None
    type: CelType | None = None
    const: object = None
    is_const: bool = False
    # Size of a list's items by the path ``@items`` (Kubernetes' listElementNode).
    items_size: Size | None = None

    def size_or_unknown(self) -> Size:
        return self.size if self.size is not None else (0, UNBOUNDED)


@dataclass(slots=True)
class _Local:
    path: tuple[str, ...] | None
    size: Size | None
    entry: Entry | None


def _add(*costs: Size) -> Size:
    """Saturating sum (for non-negative terms, saturating once at the end is the same)."""
    lo = sum([c[0] for c in costs])
    hi = sum([c[1] for c in costs])
    return (lo if lo < UNBOUNDED else UNBOUNDED), (hi if hi < UNBOUNDED else UNBOUNDED)


def _is_scalar(t: CelType | None) -> bool:
    if t is None:
        return False
    if t.kind == "prim" and t.name in _SCALARS:
        return True
    if t.name == "optional_type" and t.params:
        return _is_scalar(t.params[0])
    return False


class _Estimator:
    def __init__(
        self, checked: Checked, registry: Registry, hints: SizeHints | None, bound: bool = False
    ) -> None:
        self.checked = checked
        self.registry = registry
        self.hints = hints
        # Price calls as they are charged at run time where upstream's estimate is lower.
        self.bound = bound
        self.scopes: list[dict[str, _Local]] = []
        # Set when a call's runtime cost depends on its values but no estimate rule covers
        # it: the figure is then not a safe bound for skipping runtime accounting.
        self.guessed = False

    # sizes --------------------------------------------------------------------------

    def type_of(self, node: ast.Node) -> CelType | None:
        return self.checked.types.get(id(node))

    def finish(self, node: ast.Node, est: Node, local: _Local | None = None) -> Node:
        """Fill in the size as cel-go's computeSize: computed, then by path, then by type,
        then the local variable's."""
        t = est.type = self.checked.types.get(id(node))
        hints = self.hints
        path = est.path
        if est.size is None:
            if path is not None and hints is not None:
                hinted = hints(path)
                if hinted is not None:
                    est.size = (0, hinted)
            if est.size is None and _is_scalar(t):
                est.size = (1, 1)
            if est.size is None and local is not None:
                est.size = local.size
        if path is not None and hints is not None and t is not None and t.kind == "list":
            hinted = hints((*path, "@items"))
            if hinted is not None:
                est.items_size = (0, hinted)
        return est

    def lookup(self, name: str) -> _Local | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    # nodes --------------------------------------------------------------------------

    def visit(self, node: ast.Node) -> Node:
        if isinstance(node, ast.Const):
            return self.finish(node, self.const(node.value))
        if isinstance(node, ast.Ident):
            if id(node) in self.checked.constants:
                return self.finish(node, Node((1, 1)))
            local = self.lookup(node.name)
            if local is not None:
                return self.finish(node, Node((1, 1), path=local.path, entry=local.entry), local)
            return self.finish(node, Node((1, 1), path=(node.name,)))
        if isinstance(node, ast.Select):
            return self.select(node)
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.CreateList):
            return self.create_list(node)
        if isinstance(node, ast.CreateMap):
            return self.create_map(node)
        if isinstance(node, ast.Macro):
            return self.macro(node)
        raise TypeError(f"cannot estimate {node!r}")

    @staticmethod
    def const(value: object) -> Node:
        if isinstance(value, str):
            size: Size | None = (len(value), len(value))
        elif isinstance(value, bytes):
            size = (len(value), len(value))
        elif isinstance(value, bool | int | float) or value is None:
            size = (1, 1)
        else:
            size = (1, 1) if type(value).__name__ in ("UInt", "Duration", "Timestamp") else None
        return Node((0, 0), size=size, const=value, is_const=True)

    def select(self, node: ast.Select) -> Node:
        if id(node) in self.checked.constants:
            return self.finish(node, Node((1, 1)))
        qualified = self.checked.qualified.get(id(node))
        if qualified is not None:  # a variable with a dotted name
            return self.finish(node, Node((1, 1), path=(qualified,)))
        operand = self.visit(node.operand)
        if node.test_only:  # has(): Kubernetes charges nothing for the presence test
            return self.finish(node, Node(operand.cost))
        if node.optional:  # a.?b is the call _?._(a, "b"): 1 plus its arguments
            return self.finish(node, Node(_add(operand.cost, (1, 1))))
        cost = operand.cost
        t = operand.type
        if t is not None and t.kind in ("map", "object", "param"):
            cost = _add(cost, (1, 1))
        path = (*operand.path, node.field) if operand.path is not None else None
        return self.finish(node, Node(cost, path=path))

    def create_list(self, node: ast.CreateList) -> Node:
        parts = [self.visit(e) for e in node.elements]
        item: Size = (0, 0) if not parts else (UNBOUNDED, 0)
        for p in parts:
            item = union(item, p.size_or_unknown())
        n = len(parts)
        est = Node(
            _add(*(p.cost for p in parts), (10, 10)),
            size=(n, n),
            entry=Entry("list", (1, 1), item),
        )
        return self.finish(node, est)

    def create_map(self, node: ast.CreateMap) -> Node:
        keys = [self.visit(e.key) for e in node.entries]
        values = [self.visit(e.value) for e in node.entries]
        empty = not node.entries
        key: Size = (0, 0) if empty else (UNBOUNDED, 0)
        value: Size = (0, 0) if empty else (UNBOUNDED, 0)
        for k, v in zip(keys, values, strict=True):
            key = union(key, k.size_or_unknown())
            value = union(value, v.size_or_unknown())
        n = len(node.entries)
        costs = [p.cost for p in keys] + [p.cost for p in values]
        est = Node(_add(*costs, (30, 30)), size=(n, n), entry=Entry("map", key, value))
        return self.finish(node, est)

    # calls --------------------------------------------------------------------------

    def call(self, node: ast.Call) -> Node:
        name = node.function
        namespaced = id(node) in self.checked.namespaced
        target_node = None if namespaced else node.target
        if name == "dyn" and target_node is None and len(node.args) == 1:
            arg = self.visit(node.args[0])
            est = Node(_add(arg.cost, (1, 1)), size=arg.size, entry=arg.entry)
            return self.finish(node, est)
        target = self.visit(target_node) if target_node is not None else None
        args = [self.visit(a) for a in node.args]
        if namespaced:
            name = f"{_namespace(node.target)}.{name}"
        arg_sum = _add(*(a.cost for a in args))
        if name in ("_&&_", "_||_"):
            left, right = args
            return self.finish(node, Node((left.cost[0], add_sat(left.cost[1], right.cost[1]))))
        if name == "_?_:_":
            cond, then, other = args
            cost = _add(
                cond.cost, (min(then.cost[0], other.cost[0]), max(then.cost[1], other.cost[1]))
            )
            size = union(then.size_or_unknown(), other.size_or_unknown())
            return self.finish(
                node, Node(cost, size=size, entry=entry_union(then.entry, other.entry))
            )
        overloads = self.checked.overloads.get(id(node), [])
        if not overloads:
            return self.finish(node, Node((0, 0)))
        fn_lo, fn_hi = UNBOUNDED, 0
        result_size: Size | None = None
        path: tuple[str, ...] | None = None
        entry: Entry | None = None
        for overload in overloads:
            estimate: CallEstimate | None = call_estimate(
                name, overload.id, target, args, bound=self.bound
            )
            if overload.work is not None:
                # Upstream's figure leaves this work out (and for flatten, takes the
                # target's size for the result's), so it bounds nothing at run time.
                self.guessed = True
            if estimate is None:
                estimate = CallEstimate((1, 1))
                if not isinstance(overload.cost, int) and self.value_dependent(overload, args):
                    self.guessed = True
            lo, hi = _add(estimate.cost, arg_sum)
            fn_lo, fn_hi = min(fn_lo, lo), max(fn_hi, hi)
            if estimate.size is not None:
                result_size = (
                    estimate.size if result_size is None else union(result_size, estimate.size)
                )
            if estimate.entry is not None:
                entry = estimate.entry
            if overload.id in ("index_list", "index_map") and args:
                container = args[0]
                if container.entry is not None:
                    result_size = container.entry.value
                if container.path is not None:
                    step = "@items" if overload.id == "index_list" else "@values"
                    path = (*container.path, step)
        cost = (fn_lo, fn_hi)
        if target is not None:
            cost = _add(target.cost, cost)
        return self.finish(node, Node(cost, size=result_size, path=path, entry=entry))

    @staticmethod
    def value_dependent(overload: object, args: list[Node]) -> bool:
        """A runtime cost that depends on values is only worrying when they can be large."""
        result = getattr(overload, "result", None)
        large = result is not None and (
            result.kind in ("list", "map") or result.name in ("string", "bytes")
        )
        return large or any(a.size_or_unknown()[1] >= UNBOUNDED for a in args)

    # macros -------------------------------------------------------------------------

    def macro(self, node: ast.Macro) -> Node:
        if node.kind == "bind":
            init = self.visit(node.args[0])
            self.scopes.append({node.variables[0]: _Local(init.path, init.size, init.entry)})
            try:
                body = self.visit(node.args[1])
            finally:
                self.scopes.pop()
            # cel-go binds through a comprehension over an empty list literal (cost 10).
            cost = _add((10, 10), init.cost, body.cost)
            return self.finish(node, Node(cost, size=body.size, entry=body.entry))
        assert node.target is not None
        target = self.visit(node.target)
        if node.kind in ("optMap", "optFlatMap"):
            return self.opt_macro(node, target)
        return self.comprehension(node, target)

    def opt_macro(self, node: ast.Macro, target: Node) -> Node:
        """``t.optMap(v, e)`` is ``t.hasValue() ? optional.of(bind(v, t.value(), e)) :
        optional.none()`` (optFlatMap without ``optional.of``)."""
        self.scopes.append({node.variables[0]: _Local(None, None, None)})
        try:
            body = self.visit(node.args[0])
        finally:
            self.scopes.pop()
        has_value = _add(target.cost, (1, 1))
        bound = _add((10, 10), target.cost, (1, 1), body.cost)
        if node.kind == "optMap":
            bound = _add(bound, (1, 1))
        none = (1, 1)
        cost = _add(has_value, (min(bound[0], none[0]), max(bound[1], none[1])))
        return self.finish(node, Node(cost))

    def iteration_locals(self, node: ast.Macro, target: Node) -> dict[str, _Local]:
        entry = target.entry
        container = entry.container if entry is not None else None
        if container is None:
            t = target.type
            container = "map" if t is not None and t.kind == "map" else "list"
        base = target.path
        if len(node.variables) == 2:
            key_step = "@indices" if container == "list" else "@keys"
            value_step = "@items" if container == "list" else "@values"
            return {
                node.variables[0]: _Local(
                    (*base, key_step) if base is not None else None,
                    entry.key if entry is not None else None,
                    None,
                ),
                node.variables[1]: _Local(
                    (*base, value_step) if base is not None else None,
                    entry.value if entry is not None else None,
                    None,
                ),
            }
        step = "@items" if container == "list" else "@keys"
        size = None
        if entry is not None:
            size = entry.value if container == "list" else entry.key
        return {node.variables[0]: _Local((*base, step) if base is not None else None, size, None)}

    def comprehension(self, node: ast.Macro, target: Node) -> Node:
        self.scopes.append(self.iteration_locals(node, target))
        try:
            args = [self.visit(a) for a in node.args]
        finally:
            self.scopes.pop()
        kind = node.kind
        accu = (1, 1)
        entry: Entry | None = None
        size: Size | None
        if kind in ("all", "exists"):
            init = (0, 0)
            condition = (2, 2) if kind == "all" else (3, 3)  # @not_strictly_false(accu | !accu)
            predicate = args[-1].cost
            step = (accu[0], add_sat(accu[1], predicate[1]))  # accu && p, accu || p
            result = accu
            size = (1, 1)
        elif kind == "exists_one":
            init = (0, 0)
            condition = (0, 0)
            step = _add(args[-1].cost, (1, 2))  # p ? accu + 1 : accu
            result = (2, 2)  # accu == 1
            size = (1, 1)
        else:
            if kind in ("transformMap", "transformMapEntry"):
                init = (30, 30)
                # cel.@mapInsert(accu, k, t) or cel.@mapInsert(accu, t)
                extra = (3, 3) if kind == "transformMap" else (2, 2)
                transform = args[-1]
                append = _add(transform.cost, extra)
            else:
                init = (10, 10)
                transform = args[-1]
                # accu + [t] (filter: accu + [x])
                item = transform.cost if kind != "filter" else (1, 1)
                append = _add(item, (12, 12))
                element = transform if kind != "filter" else None
                element_size = (
                    element.size_or_unknown()
                    if element is not None
                    else self.iteration_size(node, target)
                )
                entry = Entry("list", (1, 1), union((0, 0), element_size))
            condition = (0, 0)
            if kind == "filter":
                step = _add(args[0].cost, (min(append[0], 1), max(append[1], 1)))
            elif len(args) == 2:  # a filter before the transform
                step = _add(args[0].cost, (min(append[0], 1), max(append[1], 1)))
                if kind in ("transformMap", "transformMapEntry"):
                    entry = None
            else:
                step = append
            result = accu
            size = target.size_or_unknown()
        count = target.size_or_unknown()
        per_element = _add(step, condition)
        loop = (mul_sat(count[0], per_element[0]), mul_sat(count[1], per_element[1]))
        cost = _add(target.cost, init, result, loop)
        return self.finish(node, Node(cost, size=size, entry=entry))

    def iteration_size(self, node: ast.Macro, target: Node) -> Size:
        local = self.iteration_locals(node, target)[node.variables[0]]
        if local.size is not None:
            return local.size
        if local.path is not None and self.hints is not None:
            hinted = self.hints(local.path)
            if hinted is not None:
                return (0, hinted)
        return (0, UNBOUNDED)


def _namespace(node: ast.Node | None) -> str:
    parts: list[str] = []
    while isinstance(node, ast.Select):
        parts.append(node.field)
        node = node.operand
    assert isinstance(node, ast.Ident)
    parts.append(node.name)
    return ".".join(reversed(parts))


@dataclass(frozen=True, slots=True)
class Estimate:
    """The static cost of an expression: upstream's (min, max), what validation compares with
    the limit, and ``bound``, a figure no evaluation's actual cost exceeds (None when there is
    none: unknown sizes, calls whose work or value-dependent cost no rule covers)."""

    min: int
    max: int
    bound: int | None


def estimate_cost(checked: Checked, registry: Registry, hints: SizeHints | None) -> Estimate:
    """Upstream's estimate and, from a second pass where upstream's rules price a call lower
    than its runtime charge (:data:`RECEIVER_PRICED`), the bound."""
    estimator = _Estimator(checked, registry, hints)
    result = estimator.visit(checked.root)
    low, high = result.cost
    if estimator.guessed or high >= UNBOUNDED:
        return Estimate(low, high, None)
    receiver_priced = any(
        overload.id in RECEIVER_PRICED
        for overloads in checked.overloads.values()
        for overload in overloads
    )
    if not receiver_priced:
        return Estimate(low, high, high)
    bound = _Estimator(checked, registry, hints, bound=True).visit(checked.root).cost[1]
    return Estimate(low, high, None if bound >= UNBOUNDED else bound)

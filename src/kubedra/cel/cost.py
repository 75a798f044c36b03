"""Static worst-case cost estimate of a checked expression, in CEL cost units.

It mirrors the runtime accounting in ``compiler`` (and so cel-go's tracker): identifiers and
selections cost 1, calls 1 or their declared estimate, list literals 10, map literals 30;
logical operators and ternaries take their costlier branch; comprehensions multiply the
per-iteration cost by the largest possible range. Sizes of values reachable from variables
come from ``size_hints`` (the DRA environment declares its limits), literal sizes are exact,
and anything else unbounded saturates at 2**64-1 as cel-go's estimator does.
"""

from __future__ import annotations

from collections.abc import Callable

from kubedra.cel import ast
from kubedra.cel.checker import Checked
from kubedra.cel.registry import Overload, Registry
from kubedra.cel.stdlib import size_of

UNBOUNDED = (1 << 64) - 1
SizeHints = Callable[[tuple[str, ...]], int | None]


def _sat(n: int) -> int:
    return n if n < UNBOUNDED else UNBOUNDED


def _ceil_tenth(n: int) -> int:
    return _sat((n + 9) // 10)


class _Estimate:
    __slots__ = ("max_cost", "min_cost", "path", "size")

    def __init__(
        self, min_cost: int, max_cost: int, size: int, path: tuple[str, ...] | None = None
    ) -> None:
        self.min_cost = min_cost
        self.max_cost = _sat(max_cost)
        self.size = _sat(size)
        self.path = path


_SIZED = ("string", "bytes", "list", "map")


class _Estimator:
    def __init__(self, checked: Checked, registry: Registry, hints: SizeHints | None) -> None:
        self.checked = checked
        self.registry = registry
        self.hints = hints
        self.scopes: list[dict[str, _Estimate]] = []
        # Set when a call's runtime cost depends on its values but it declares no estimate:
        # the figure is then not a safe bound for skipping runtime accounting.
        self.guessed = False

    def default_size(self, node: ast.Node) -> int:
        t = self.checked.type(node)
        return UNBOUNDED if t.name in _SIZED or t.kind in ("list", "map", "dyn") else 1

    def path_size(self, node: ast.Node, path: tuple[str, ...] | None) -> int:
        if path is not None and self.hints is not None:
            hinted = self.hints(path)
            if hinted is not None:
                return hinted
        return self.default_size(node)

    def visit(self, node: ast.Node) -> _Estimate:
        if isinstance(node, ast.Const):
            return _Estimate(0, 0, size_of(node.value))
        if isinstance(node, ast.Ident):
            if id(node) in self.checked.constants:
                return _Estimate(0, 0, 1)
            for scope in reversed(self.scopes):
                if node.name in scope:
                    bound = scope[node.name]
                    return _Estimate(1, 1, bound.size, bound.path)
            root: tuple[str, ...] = (node.name,)
            return _Estimate(1, 1, self.path_size(node, root), root)
        if isinstance(node, ast.Select):
            if id(node) in self.checked.constants:
                return _Estimate(0, 0, 1)
            qualified = self.checked.qualified.get(id(node))
            if qualified is not None:  # a variable with a dotted name
                return _Estimate(1, 1, self.path_size(node, (qualified,)), (qualified,))
            operand = self.visit(node.operand)
            path = (*operand.path, node.field) if operand.path is not None else None
            if node.test_only:
                return _Estimate(operand.min_cost, operand.max_cost, 1)
            return _Estimate(
                operand.min_cost + 1, operand.max_cost + 1, self.path_size(node, path), path
            )
        if isinstance(node, ast.Call):
            return self.call(node)
        if isinstance(node, ast.CreateList):
            parts = [self.visit(e) for e in node.elements]
            extra = 0 if all(isinstance(e, ast.Const) for e in node.elements) else 10
            return _Estimate(
                extra + sum(p.min_cost for p in parts),
                extra + sum(p.max_cost for p in parts),
                len(parts),
            )
        if isinstance(node, ast.CreateMap):
            parts = [self.visit(e.key) for e in node.entries] + [
                self.visit(e.value) for e in node.entries
            ]
            extra = (
                0
                if all(
                    isinstance(e.key, ast.Const) and isinstance(e.value, ast.Const)
                    for e in node.entries
                )
                else 30
            )
            return _Estimate(
                extra + sum(p.min_cost for p in parts),
                extra + sum(p.max_cost for p in parts),
                len(node.entries),
            )
        if isinstance(node, ast.Macro):
            return self.macro(node)
        raise TypeError(f"cannot estimate {node!r}")

    def call(self, node: ast.Call) -> _Estimate:
        name = node.function
        if id(node) in self.checked.namespaced:
            operands = list(node.args)
        else:
            operands = ([node.target] if node.target is not None else []) + list(node.args)
        parts = [self.visit(a) for a in operands]
        if name in ("_&&_", "_||_"):
            left, right = parts
            return _Estimate(left.min_cost, left.max_cost + right.max_cost, 1)
        if name == "_?_:_":
            cond, then, other = parts
            return _Estimate(
                cond.min_cost + min(then.min_cost, other.min_cost),
                cond.max_cost + max(then.max_cost, other.max_cost),
                max(then.size, other.size),
            )
        arg_min = sum(p.min_cost for p in parts)
        arg_max = sum(p.max_cost for p in parts)
        if name in ("_[_]", "_[?_]"):
            container = parts[0]
            path = (*container.path, "*") if container.path is not None else None
            return _Estimate(arg_min + 1, arg_max + 1, self.path_size(node, path), path)
        overloads = self.checked.overloads.get(id(node), [])
        call_min, call_max = self.call_cost(name, overloads, parts)
        size = self.result_size(name, node, parts)
        return _Estimate(arg_min + call_min, arg_max + call_max, size)

    def call_cost(
        self, name: str, overloads: list[Overload], parts: list[_Estimate]
    ) -> tuple[int, int]:
        sizes = [p.size for p in parts]
        if name in ("_==_", "_!=_", "_<_", "_<=_", "_>_", "_>=_"):
            return 0, _ceil_tenth(min(sizes))
        if name == "@in":
            ids = {o.id for o in overloads}
            return (0, sizes[1]) if "in_list" in ids else (1, 1)
        if name in ("startsWith", "endsWith"):
            return 0, _ceil_tenth(sizes[0])
        if name == "contains" and any(o.id == "contains_string" for o in overloads):
            return 0, _ceil_tenth(sizes[0]) * _ceil_tenth(sizes[1])
        if name == "matches":
            return 0, _sat(_ceil_tenth(1 + sizes[0]) * ((sizes[1] + 3) // 4))
        if name == "_+_" and any(o.id in ("add_string", "add_bytes") for o in overloads):
            return 0, _ceil_tenth(sizes[0] + sizes[1])
        best_min, best_max = None, 0
        for overload in overloads:
            if overload.estimate is not None:
                lo, hi = overload.estimate([(0, s) for s in sizes])
            elif isinstance(overload.cost, int):
                lo = hi = overload.cost
            else:
                lo, hi = 1, 1
                # A value-dependent cost is only worrying when the values can be large.
                large_result = overload.result.kind in ("list", "map") or overload.result.name in (
                    "string",
                    "bytes",
                )
                if large_result or any(size >= UNBOUNDED for size in sizes):
                    self.guessed = True
            best_min = lo if best_min is None else min(best_min, lo)
            best_max = max(best_max, hi)
        return (best_min or 0), best_max

    def result_size(self, name: str, node: ast.Node, parts: list[_Estimate]) -> int:
        if name == "_+_" and len(parts) == 2:
            return parts[0].size + parts[1].size
        return self.default_size(node)

    def macro(self, node: ast.Macro) -> _Estimate:
        if node.kind == "bind":
            init = self.visit(node.args[0])
            self.scopes.append({node.variables[0]: init})
            try:
                body = self.visit(node.args[1])
            finally:
                self.scopes.pop()
            return _Estimate(
                init.min_cost + body.min_cost, init.max_cost + body.max_cost, body.size
            )
        assert node.target is not None
        target = self.visit(node.target)
        if node.kind in ("optMap", "optFlatMap"):
            self.scopes.append({node.variables[0]: _Estimate(0, 0, UNBOUNDED)})
            try:
                body = self.visit(node.args[0])
            finally:
                self.scopes.pop()
            return _Estimate(target.min_cost, target.max_cost + body.max_cost, body.size)
        elem_path = (*target.path, "@items") if target.path is not None else None
        elem_size = UNBOUNDED
        if elem_path is not None and self.hints is not None:
            hinted = self.hints(elem_path)
            if hinted is not None:
                elem_size = hinted
        scope = {node.variables[0]: _Estimate(0, 0, elem_size, elem_path)}
        if len(node.variables) == 2:
            value_path = (*target.path, "@values") if target.path is not None else None
            value_size = UNBOUNDED
            if value_path is not None and self.hints is not None:
                value_size = self.hints(value_path) or UNBOUNDED
            scope[node.variables[1]] = _Estimate(0, 0, value_size, value_path)
        self.scopes.append(scope)
        try:
            args = [self.visit(a) for a in node.args]
        finally:
            self.scopes.pop()
        per_iteration = sum(a.max_cost for a in args) + {
            "all": 3,
            "exists": 4,
            "exists_one": 2,
            "filter": 13,
            "transformMap": 4,
            "transformMapEntry": 3,
        }.get(node.kind, 12)
        total = target.max_cost + _sat(target.size * per_iteration) + 2
        return _Estimate(target.min_cost + 1, total, target.size)


def estimate_cost(
    checked: Checked, registry: Registry, hints: SizeHints | None
) -> tuple[int, int, bool]:
    """(min, max) cost of evaluating the expression once, and whether max is a sure bound
    (False when a library call with value-dependent cost declares no estimate)."""
    estimator = _Estimator(checked, registry, hints)
    result = estimator.visit(checked.root)
    return result.min_cost, result.max_cost, not estimator.guessed

"""Compiles a checked CEL AST into nested Python closures.

Every closure has the signature ``fn(d, s)``: ``d`` is the variable source (the DRA device or
a dict of bindings), ``s`` a small scratch list whose slot 0 accumulates runtime cost and
whose other slots hold comprehension variables. Runtime errors are Python exceptions
(``CelEvaluationError``); ``&&``, ``||`` and the comprehension macros catch them where CEL
absorbs errors.

Cost follows cel-go's tracker (identifiers and field selections 1, calls 1 or their declared
cost, list literals 10, map literals 30, constants and logical operators 0). Costs that are
the same on every evaluation are summed at compile time (``Code.cost``); only branches,
loops and size-dependent calls add to ``s[0]`` while running, and a program compiled with
``track=False`` skips even that (used when the whole expression is provably cheap).
Constant sub-expressions are evaluated once here: type conversions of literals as cel-go
does (their errors are compile errors: "program instantiation failed"), and other pure
calls on literals as an optimisation whose cost is still charged.
"""

from __future__ import annotations

from collections.abc import Callable, Collection
from typing import Any

from kubedra.cel import ast
from kubedra.cel.checker import Checked
from kubedra.cel.cost_library import KUBERNETES_FUNCTIONS
from kubedra.cel.errors import CelCostLimitError, CelEvaluationError
from kubedra.cel.registry import NOT_CONSTANT, Overload
from kubedra.cel.stdlib import (
    equality_cost,
    in_container,
    in_list,
    in_map,
    index_value,
    optional_index,
    size_of,
)
from kubedra.cel.types import BYTES, DOUBLE, STRING, CelType
from kubedra.cel.values import (
    OPTIONAL_NONE,
    Duration,
    Optional,
    Timestamp,
    TypeValue,
    UInt,
    cel_equal,
    map_get,
    map_put,
    registered_class,
    value_type,
)

Fn = Callable[[Any, list[Any]], Any]
_ORDERING = {"_<_": "<", "_<=_": "<=", "_>_": ">", "_>=_": ">="}
COST_LIMIT_MESSAGE = "operation cancelled: actual cost limit exceeded"
_ABSENT = object()


class _Lazy:
    """The not yet evaluated initializer of a ``cel.bind`` variable (cel-go binds lazily)."""

    __slots__ = ("cost", "fn")

    def __init__(self, fn: Fn, cost: int) -> None:
        self.fn = fn
        self.cost = cost


class InstantiationError(Exception):
    """A constant sub-expression failed while the program was built (cel-go's plan time)."""


class Code:
    """A compiled node: its closure, the cost always incurred when it runs, its constant."""

    __slots__ = ("const", "cost", "fn")

    def __init__(self, fn: Fn, cost: int, const: Any = NOT_CONSTANT) -> None:
        self.fn = fn
        self.cost = cost
        self.const = const

    @property
    def is_const(self) -> bool:
        return self.const is not NOT_CONSTANT


def constant(value: Any, cost: int = 0) -> Code:
    def fn(d: Any, s: list[Any]) -> Any:
        return value

    return Code(fn, cost, value)


_PRIMITIVE_CLASSES: dict[str, type] = {
    "int": int,
    "uint": UInt,
    "double": float,
    "bool": bool,
    "string": str,
    "bytes": bytes,
    "google.protobuf.Duration": Duration,
    "google.protobuf.Timestamp": Timestamp,
}


def accepts(t: CelType, value: Any) -> bool:
    """Whether a runtime value fits a declared parameter type (for dynamic dispatch)."""
    kind = t.kind
    if kind in ("dyn", "param", "error", "free"):
        return True
    if kind == "prim":
        return type(value) is _PRIMITIVE_CLASSES[t.name]
    if kind == "null":
        return value is None
    if kind == "list":
        return isinstance(value, list)
    if kind == "map":
        return isinstance(value, dict)
    if kind == "type":
        return isinstance(value, TypeValue)
    if t.name == "optional_type":
        return isinstance(value, Optional)
    return value_type(value).name == t.name


def _exact_class(t: CelType) -> type | None:
    """The one Python class whose instances have this CEL type, when there is one."""
    if t.kind == "prim":
        return _PRIMITIVE_CLASSES[t.name]
    if t.kind == "opaque" and t.name != "optional_type":
        return registered_class(t.name)
    return None


_GO_TYPE_NAMES = {
    bool: "types.Bool",
    int: "types.Int",
    UInt: "types.Uint",
    float: "types.Double",
    str: "types.String",
    bytes: "types.Bytes",
    type(None): "types.Null",
}


def iteration_items(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return list(value)
    name = _GO_TYPE_NAMES.get(type(value), f"*types.{type(value).__name__}")
    raise CelEvaluationError(f"got '{name}', expected iterable type")


def iteration_pairs(value: Any) -> list[tuple[Any, Any]]:
    if isinstance(value, list):
        return list(enumerate(value))
    if isinstance(value, dict):
        return list(value.items())
    name = _GO_TYPE_NAMES.get(type(value), f"*types.{type(value).__name__}")
    raise CelEvaluationError(f"got '{name}', expected iterable type")


def no_such_overload(name: str, args: tuple[Any, ...]) -> CelEvaluationError:
    if not name or not name[0].isalpha():
        return CelEvaluationError("no such overload")
    shown = ", ".join(value_type(a).name for a in args)
    return CelEvaluationError(f"no such overload: {name}({shown})")


def _no_such_key(key: Any) -> CelEvaluationError:
    return CelEvaluationError(f"no such key: {key}")


def select_field(value: Any, name: str) -> Any:
    if isinstance(value, dict):
        try:
            return value[name]
        except KeyError:
            raise _no_such_key(name) from None
    if isinstance(value, Optional):
        return optional_select(value, name)  # selection continues an optional chain
    raise CelEvaluationError(f"type '{value_type(value).name}' does not support field selection")


def has_field(value: Any, name: str) -> bool:
    if isinstance(value, dict):
        return name in value or hasattr(value, "__missing__")
    if isinstance(value, Optional):
        return value.has_value and has_field(value.value, name)
    raise CelEvaluationError(f"invalid type for field selection: {value_type(value).name}")


def optional_select(value: Any, name: str) -> Optional:
    if isinstance(value, Optional):
        if not value.has_value:
            return OPTIONAL_NONE
        value = value.value
    if isinstance(value, dict):
        if name in value:
            return Optional(True, value[name])
        missing = getattr(value, "__missing__", None)
        return Optional(True, missing(name)) if missing is not None else OPTIONAL_NONE
    raise CelEvaluationError(f"type '{value_type(value).name}' does not support field selection")


def _relative(operand: ast.Node) -> int:
    """cel-go charges 1 for starting an attribute on a computed value (a literal, a call
    result), on top of each field or index step; an identifier start is the 1 of the
    identifier itself."""
    if isinstance(operand, ast.Ident | ast.Select):
        return 0
    if isinstance(operand, ast.Call) and operand.function in ("_[_]", "_[?_]"):
        return 0
    return 1


def _literal(node: ast.Node, checked: Checked) -> bool:
    """A literal, a type conversion of literals (cel-go folds those) or a list or map
    literal of such: what cel-go's planner makes a constant, at no cost."""
    if isinstance(node, ast.Const):
        return True
    if isinstance(node, ast.CreateList):
        return not any(node.optional) and all(_literal(e, checked) for e in node.elements)
    if isinstance(node, ast.CreateMap):
        return all(
            not e.optional and _literal(e.key, checked) and _literal(e.value, checked)
            for e in node.entries
        )
    if isinstance(node, ast.Call) and node.target is None:
        overloads = checked.overloads.get(id(node), [])
        return (
            bool(overloads)
            and all(o.fold for o in overloads)
            and all(_literal(a, checked) for a in node.args)
        )
    return False


def _is_map_like(t: CelType) -> bool:
    return t.kind in ("map", "object")


def _numeric_dyn_comparison(op: str, f0: Fn, c: Any, slow: Fn, cost: int) -> Code:
    """A dyn operand against an int or uint constant: ints and uints compare exactly, a
    double operand compares against the constant converted to double (as cel-go does)."""
    fc = float(c)
    compare: Callable[[Any, Any], bool] = {
        "<": lambda a, b: a < b,
        "<=": lambda a, b: a <= b,
        ">": lambda a, b: a > b,
        ">=": lambda a, b: a >= b,
    }[op]

    def ordered(d: Any, s: list[Any]) -> Any:
        v = f0(d, s)
        t = type(v)
        if t is int or t is UInt:
            return compare(v, c)
        if t is float:
            return compare(v, fc)
        return slow(d, s)

    return Code(ordered, cost)


class Compiler:
    def __init__(
        self,
        checked: Checked,
        variables: Collection[str],
        *,
        track: bool,
        limit: int,
    ) -> None:
        self.checked = checked
        self.variables = variables
        self.track = track
        self.limit = limit
        self.scopes: list[dict[str, int]] = []
        self.slot_count = 0
        self.lazy_slots: set[int] = set()
        # The scratch slot summing work that upstream's cost leaves out (0: none yet).
        self.work_slot = 0

    # entry ----------------------------------------------------------------------------

    def compile(self, node: ast.Node) -> Code:
        if isinstance(node, ast.Const):
            return constant(node.value)
        if isinstance(node, ast.Ident):
            return self.ident(node)
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
        raise TypeError(f"cannot compile {node!r}")

    def type_of(self, node: ast.Node) -> CelType:
        return self.checked.type(node)

    def new_slot(self) -> int:
        self.slot_count += 1
        return self.slot_count

    def local_slot(self, name: str) -> int | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    # identifiers and selection --------------------------------------------------------

    def ident(self, node: ast.Ident) -> Code:
        const = self.checked.constants.get(id(node), NOT_CONSTANT)
        if const is not NOT_CONSTANT:
            return constant(const)
        slot = self.local_slot(node.name)
        if slot is not None:
            if slot in self.lazy_slots:
                return Code(self.lazy_read(slot), 1)
            return Code(lambda d, s: s[slot], 1)
        name = node.name
        if name not in self.variables:
            # Only reachable unchecked (cel-spec's disable_check): an evaluation error.
            message = f"undeclared reference to '{name}' (in container '')"

            def unbound(d: Any, s: list[Any]) -> Any:
                raise CelEvaluationError(message)

            return Code(unbound, 1)
        return Code(lambda d, s: d[name], 1)

    def _path(self, node: ast.Node) -> tuple[str, list[str]] | None:
        """A chain of constant string keys on statically map-typed values from a global."""
        keys: list[str] = []
        current = node
        while True:
            qualified = self.checked.qualified.get(id(current))
            if qualified is not None:
                keys.reverse()
                return (qualified, keys) if keys else None
            if isinstance(current, ast.Select):
                if current.test_only or current.optional:
                    return None
                if not _is_map_like(self.type_of(current.operand)):
                    return None
                keys.append(current.field)
                current = current.operand
            elif (
                isinstance(current, ast.Call)
                and current.function == "_[_]"
                and isinstance(current.args[1], ast.Const)
                and type(current.args[1].value) is str
                and current.target is None
                and _is_map_like(self.type_of(current.args[0]))
            ):
                keys.append(current.args[1].value)
                current = current.args[0]
            elif isinstance(current, ast.Ident):
                if (
                    current.name not in self.variables
                    or self.local_slot(current.name) is not None
                    or id(current) in self.checked.constants
                ):
                    return None
                keys.reverse()
                return current.name, keys
            else:
                return None

    def path(self, name: str, keys: list[str]) -> Code:
        cost = 1 + len(keys)
        if len(keys) == 1:
            (k1,) = keys

            def path1(d: Any, s: list[Any]) -> Any:
                try:
                    return d[name][k1]
                except KeyError:
                    raise _no_such_key(k1) from None

            return Code(path1, cost)
        if len(keys) == 2:
            k1, k2 = keys

            def path2(d: Any, s: list[Any]) -> Any:
                try:
                    return d[name][k1][k2]
                except KeyError as e:
                    raise _no_such_key(e.args[0]) from None

            return Code(path2, cost)
        if len(keys) == 3:
            k1, k2, k3 = keys

            def path3(d: Any, s: list[Any]) -> Any:
                try:
                    return d[name][k1][k2][k3]
                except KeyError as e:
                    raise _no_such_key(e.args[0]) from None

            return Code(path3, cost)
        frozen = tuple(keys)

        def path_n(d: Any, s: list[Any]) -> Any:
            value = d[name]
            for key in frozen:
                try:
                    value = value[key]
                except KeyError:
                    raise _no_such_key(key) from None
            return value

        return Code(path_n, cost)

    def select(self, node: ast.Select) -> Code:
        qualified = self.checked.qualified.get(id(node))
        if qualified is not None:
            return Code(lambda d, s: d[qualified], 1)
        const = self.checked.constants.get(id(node), NOT_CONSTANT)
        if const is not NOT_CONSTANT:
            return constant(const)
        if not node.test_only and not node.optional:
            found = self._path(node)
            if found is not None:
                return self.path(*found)
        operand = self.compile(node.operand)
        op = operand.fn
        name = node.field
        base = operand.cost + _relative(node.operand)
        if node.test_only:
            return Code(lambda d, s: has_field(op(d, s), name), base)
        if node.optional:
            if not self.track:
                return Code(lambda d, s: optional_select(op(d, s), name), base)

            def opt_select(d: Any, s: list[Any]) -> Any:
                # cel-go charges the optional step only when it finds a value.
                result = optional_select(op(d, s), name)
                if result.has_value:
                    s[0] += 1
                return result

            return Code(opt_select, base)
        return Code(lambda d, s: select_field(op(d, s), name), base + 1)

    # calls ----------------------------------------------------------------------------

    def call(self, node: ast.Call) -> Code:
        name = node.function
        if id(node) in self.checked.namespaced:
            target = None
            name = f"{self._namespace(node.target)}.{name}"
        else:
            target = node.target
        if name in ("_&&_", "_||_"):
            return self.logical(node, name)
        if name == "_?_:_":
            return self.conditional(node)
        if target is not None and name in ("orValue", "or") and len(node.args) == 1:
            return self.optional_or(target, node.args[0], name)
        operands = ([target] if target is not None else []) + list(node.args)
        args = [self.compile(a) for a in operands]
        overloads = self.checked.overloads[id(node)]
        if name in ("_==_", "_!=_"):
            return self.equality(node, args, name == "_!=_")
        if name == "@in":
            return self.membership(node, args)
        if name == "_[_]":
            return self.index(node, args)
        if name == "_[?_]":
            found = self.simple_call(optional_index, args, _relative(node.args[0]))
            if not self.track or found.is_const:
                return found
            o_fn = found.fn

            def opt_index(d: Any, s: list[Any]) -> Any:
                result = o_fn(d, s)
                if result.has_value:
                    s[0] += 1
                return result

            return Code(opt_index, found.cost)
        if name == "!_":
            return self.logical_not(args[0])
        return self.function(name, overloads, args, [self.type_of(a) for a in operands])

    @staticmethod
    def _namespace(node: ast.Node | None) -> str:
        parts: list[str] = []
        while isinstance(node, ast.Select):
            parts.append(node.field)
            node = node.operand
        assert isinstance(node, ast.Ident)
        parts.append(node.name)
        return ".".join(reversed(parts))

    def simple_call(self, impl: Callable[..., Any], args: list[Code], cost: int) -> Code:
        total = cost + sum(a.cost for a in args)
        if all(a.is_const for a in args):
            try:
                return constant(impl(*(a.const for a in args)), total)
            except Exception:  # left to fail (or not) at evaluation time
                pass
        return Code(self._apply(impl, args), total)

    @staticmethod
    def _apply(impl: Callable[..., Any], args: list[Code]) -> Fn:
        """A closure calling ``impl`` on the arguments' values, with constants baked in."""
        n = len(args)
        if n == 0:
            return lambda d, s: impl()
        if n == 1:
            f0 = args[0].fn
            return lambda d, s: impl(f0(d, s))
        if n == 2:
            a0, a1 = args
            if a1.is_const:
                f0, c1 = a0.fn, a1.const
                return lambda d, s: impl(f0(d, s), c1)
            if a0.is_const:
                c0, f1 = a0.const, a1.fn
                return lambda d, s: impl(c0, f1(d, s))
            f0, f1 = a0.fn, a1.fn
            return lambda d, s: impl(f0(d, s), f1(d, s))
        if n == 3:
            f0, f1, f2 = (a.fn for a in args)
            return lambda d, s: impl(f0(d, s), f1(d, s), f2(d, s))
        fns = [a.fn for a in args]
        return lambda d, s: impl(*[f(d, s) for f in fns])

    def function(
        self, name: str, overloads: list[Overload], args: list[Code], arg_types: list[CelType]
    ) -> Code:
        consts = tuple(a.const for a in args)
        all_const = all(a.is_const for a in args)
        arg_cost = sum(a.cost for a in args)
        if len(overloads) == 1 and self.checked.dialect.checked:
            overload = overloads[0]
            impl = overload.impl
            if overload.prepare is not None:
                try:
                    prepared = overload.prepare(consts)
                except CelEvaluationError as e:
                    raise InstantiationError(str(e)) from None
                if prepared is not None:
                    impl = prepared
            if all_const and overload.fold and self.checked.dialect.fold_constants:
                try:
                    return constant(impl(*consts), 0)
                except CelEvaluationError as e:
                    raise InstantiationError(str(e)) from None
                except Exception:  # a value the declaration admits but impl cannot take
                    pass
            inline = self._inline_comparison(name, overload, args, arg_types)
            if inline is not None:
                return inline
            return self._bound_call(name, overload, impl, args, arg_types, all_const, arg_cost)
        dispatch = self._dispatch_call(name, overloads, args, arg_cost)
        if name in _ORDERING and not self.track:
            return self._dyn_comparison(_ORDERING[name], args, dispatch)
        return dispatch

    @staticmethod
    def _dyn_comparison(op: str, args: list[Code], dispatch: Code) -> Code:
        """Ordering with a dyn operand and a literal: compare directly when the runtime
        value is a number (cross-type numeric ordering is exact in Python and CEL) or a
        string against a string; otherwise dispatch on the runtime types."""
        left, right = args
        if not right.is_const or left.is_const:
            return dispatch
        c = right.const
        numbers = (int, UInt, float)
        if type(c) in numbers:
            accepted: tuple[type, ...] = numbers
        elif type(c) is str:
            accepted = (str,)
        else:
            return dispatch
        f0, slow = left.fn, dispatch.fn
        if type(c) is not str:
            # Mixed int/double ordering goes through doubles (cel-go's lossy semantics);
            # with a double constant every number is compared as a double.
            if type(c) is float:
                numbers_as_float = True
            else:
                return _numeric_dyn_comparison(op, f0, c, slow, dispatch.cost)
        else:
            numbers_as_float = False
        compare = {
            "<": lambda a, b: a < b,
            "<=": lambda a, b: a <= b,
            ">": lambda a, b: a > b,
            ">=": lambda a, b: a >= b,
        }[op]
        if op == ">=" and not numbers_as_float:

            def ge(d: Any, s: list[Any]) -> Any:
                v = f0(d, s)
                if type(v) in accepted:
                    return v >= c
                return slow(d, s)

            return Code(ge, dispatch.cost)

        def ordered(d: Any, s: list[Any]) -> Any:
            v = f0(d, s)
            if type(v) in accepted:
                return compare(float(v), c) if numbers_as_float else compare(v, c)
            return slow(d, s)

        return Code(ordered, dispatch.cost)

    def _inline_comparison(
        self, name: str, overload: Overload, args: list[Code], arg_types: list[CelType]
    ) -> Code | None:
        """Ordering of statically typed numbers, bools, timestamps and durations: a Python
        operator in the closure itself (cost 1, no size dependence)."""
        op = _ORDERING.get(name)
        if op is None or any(t.kind != "prim" or t in (STRING, BYTES) for t in arg_types):
            return None
        if DOUBLE in arg_types and arg_types[0] != arg_types[1]:
            return None  # int/uint against double: the overload compares as doubles
        if any(a.is_const for a in args) and all(a.is_const for a in args):
            return None
        left, right = args
        cost = left.cost + right.cost + 1
        f0, f1 = left.fn, right.fn
        if right.is_const:
            c = right.const
            fns: dict[str, Fn] = {
                "<": lambda d, s: f0(d, s) < c,
                "<=": lambda d, s: f0(d, s) <= c,
                ">": lambda d, s: f0(d, s) > c,
                ">=": lambda d, s: f0(d, s) >= c,
            }
            return Code(fns[op], cost)
        if left.is_const:
            c = left.const
            fns = {
                "<": lambda d, s: c < f1(d, s),
                "<=": lambda d, s: c <= f1(d, s),
                ">": lambda d, s: c > f1(d, s),
                ">=": lambda d, s: c >= f1(d, s),
            }
            return Code(fns[op], cost)
        fns = {
            "<": lambda d, s: f0(d, s) < f1(d, s),
            "<=": lambda d, s: f0(d, s) <= f1(d, s),
            ">": lambda d, s: f0(d, s) > f1(d, s),
            ">=": lambda d, s: f0(d, s) >= f1(d, s),
        }
        return Code(fns[op], cost)

    def _bound_call(
        self,
        name: str,
        overload: Overload,
        impl: Callable[..., Any],
        args: list[Code],
        arg_types: list[CelType],
        all_const: bool,
        arg_cost: int,
    ) -> Code:
        cost = overload.cost
        checked = self._checked_impl(name, overload, impl, arg_types)
        if (
            all_const
            and overload.result.kind not in ("list", "map")
            and not self._over_limit(overload, tuple(a.const for a in args))
        ):
            consts = tuple(a.const for a in args)
            try:
                value = checked(*consts)  # guarded: a dyn constant may have any type
                call_cost = cost if isinstance(cost, int) else cost(consts, value)
                return constant(value, arg_cost + call_cost)
            except Exception:  # left to fail (or not) at evaluation time
                pass
        fn = self._apply(checked, args)
        fns = [a.fn for a in args]
        if isinstance(cost, int):
            meter = self._work_meter(overload.work) if self.track else None
            if meter is not None:
                return Code(self._metered(checked, fns, meter), arg_cost + cost)
            return Code(fn, arg_cost + cost)
        if not self.track:
            return Code(fn, arg_cost)
        cost_fn = cost
        if overload.precharged:
            return Code(self._precharged(checked, cost_fn, fns, overload.work), arg_cost)

        def costed(d: Any, s: list[Any]) -> Any:
            try:
                values = [f(d, s) for f in fns]
            except CelCostLimitError:
                raise
            except CelEvaluationError:
                s[0] += 1  # cel-go still charges a call whose argument failed
                raise
            try:
                result = checked(*values)
            except CelEvaluationError:
                # cel-go's tracker prices the call with the error as result (size 1).
                try:
                    s[0] += cost_fn(values, None)
                except Exception:
                    s[0] += 1
                raise
            s[0] += cost_fn(values, result)
            return result

        return Code(costed, arg_cost)

    def _over_limit(self, overload: Overload, consts: tuple[Any, ...]) -> bool:
        """Whether a call on these constants costs (or works) more than the limit: it is
        then left to fail at evaluation instead of being built at compile time."""
        try:
            if overload.work is not None and overload.work(consts, self.limit) > self.limit:
                return True
            if not overload.precharged:
                return False
            return overload.cost(consts, None) > self.limit  # type: ignore[operator]
        except Exception:  # a wrongly typed constant: the call fails at evaluation
            return False

    @staticmethod
    def _metered(checked: Callable[..., Any], fns: list[Fn], meter: Callable[..., None]) -> Fn:
        """A call of fixed cost whose work is metered (``Overload.work``) before it runs."""

        def metered(d: Any, s: list[Any]) -> Any:
            values = [f(d, s) for f in fns]
            meter(values, s)
            return checked(*values)

        return metered

    def _work_meter(self, work: Callable[[Any, int], int] | None) -> Callable[..., None] | None:
        """A check that adds a call's uncharged work (``Overload.work``) to the evaluation's
        work slot and stops, before the call runs, once that passes the cost limit: time
        stays bounded by the limit although upstream's cost does not count this work."""
        if work is None:
            return None
        if self.work_slot == 0:
            self.work_slot = self.new_slot()
        slot = self.work_slot
        limit = self.limit

        def meter(values: Any, s: list[Any]) -> None:
            try:
                done = work(values, limit - s[slot])
            except Exception:  # wrongly typed arguments: the guarded call reports it
                return
            s[slot] += done
            if s[slot] > limit:
                raise CelCostLimitError(COST_LIMIT_MESSAGE)

        return meter

    def _precharged(
        self,
        checked: Callable[..., Any],
        cost_fn: Callable[..., int],
        fns: list[Fn],
        work: Callable[[Any, int], int] | None = None,
    ) -> Fn:
        """Charge the call's cost, known from its arguments, and check the limit before the
        call builds its (possibly huge) result, as cel-go's limit stops it in time."""
        limit = self.limit
        meter = self._work_meter(work)

        def precharged(d: Any, s: list[Any]) -> Any:
            try:
                values = [f(d, s) for f in fns]
            except CelCostLimitError:
                raise
            except CelEvaluationError:
                s[0] += 1
                raise
            try:
                s[0] += cost_fn(values, None)
            except Exception:  # wrongly typed arguments: the guarded call reports it
                s[0] += 1
            if s[0] > limit:
                raise CelCostLimitError(COST_LIMIT_MESSAGE)
            if meter is not None:
                meter(values, s)
            return checked(*values)

        return precharged

    @staticmethod
    def _checked_impl(
        name: str, overload: Overload, impl: Callable[..., Any], arg_types: list[CelType]
    ) -> Callable[..., Any]:
        """Guard the arguments that are ``dyn`` statically: their runtime type may not be
        the declared one. Statically typed arguments need no check. A single overload's
        guard fails with plain "no such overload", as cel-go's type-guarded bindings do."""
        params = overload.params
        needs = [
            p.kind not in ("dyn", "param", "free", "null")
            and t.kind in ("dyn", "free", "error", "null")
            for p, t in zip(params, arg_types, strict=True)
        ]
        if not any(needs):
            return impl
        detailed = overload.detailed_type_error

        def mismatch(values: tuple[Any, ...]) -> CelEvaluationError:
            if detailed:
                return no_such_overload(name, values)
            return CelEvaluationError("no such overload")

        classes = [_exact_class(p) if need else None for p, need in zip(params, needs, strict=True)]
        if len(params) == 2 and all(
            c is not None for c, n in zip(classes, needs, strict=True) if n
        ):
            k0, k1 = classes

            def class_guarded2(v0: Any, v1: Any) -> Any:
                if (k0 is not None and type(v0) is not k0) or (
                    k1 is not None and type(v1) is not k1
                ):
                    raise mismatch((v0, v1))
                return impl(v0, v1)

            return class_guarded2
        if len(params) == 1 and classes[0] is not None:
            k = classes[0]

            def class_guarded1(v0: Any) -> Any:
                if type(v0) is not k:
                    raise mismatch((v0,))
                return impl(v0)

            return class_guarded1
        if len(params) == 1:
            p0 = params[0]

            def guarded1(v0: Any) -> Any:
                if not accepts(p0, v0):
                    raise mismatch((v0,))
                return impl(v0)

            return guarded1
        if len(params) == 2:
            p0, p1 = params
            n0, n1 = needs

            def guarded2(v0: Any, v1: Any) -> Any:
                if (n0 and not accepts(p0, v0)) or (n1 and not accepts(p1, v1)):
                    raise mismatch((v0, v1))
                return impl(v0, v1)

            return guarded2

        def guarded(*values: Any) -> Any:
            for p, v in zip(params, values, strict=True):
                if not accepts(p, v):
                    raise mismatch(values)
            return impl(*values)

        return guarded

    def _dispatch_call(
        self, name: str, overloads: list[Overload], args: list[Code], arg_cost: int
    ) -> Code:
        """Several overloads match statically (dyn arguments): pick by runtime types,
        remembering the choice per combination of Python classes."""
        candidates = list(overloads)
        fns = [a.fn for a in args]
        track = self.track
        limit = self.limit
        # A call dispatched at run time has no overload id in cel-go: its overload cost
        # trackers do not apply (cost 1); Kubernetes' CallCost, keyed by name, still does.
        by_name = name in KUBERNETES_FUNCTIONS
        chosen: dict[tuple[type, ...], Overload | None] = {}
        meters = {o.id: self._work_meter(o.work) for o in candidates if track and o.work}

        def dispatch(d: Any, s: list[Any]) -> Any:
            if not track:
                return dispatch_values(tuple([f(d, s) for f in fns]), s)
            try:
                values = tuple([f(d, s) for f in fns])
                return dispatch_values(values, s)
            except CelCostLimitError:
                raise
            except CelEvaluationError:
                s[0] += 1  # cel-go still charges a call whose argument or overload failed
                raise

        def dispatch_values(values: tuple[Any, ...], s: list[Any]) -> Any:
            key = tuple([type(v) for v in values])
            try:
                overload = chosen[key]
            except KeyError:
                overload = next(
                    (
                        o
                        for o in candidates
                        if all(accepts(p, v) for p, v in zip(o.params, values, strict=True))
                    ),
                    None,
                )
                chosen[key] = overload
            if overload is None:
                raise no_such_overload(name, values)
            if track and overload.precharged:
                # Upstream charges 1 here (no overload id) unless Kubernetes prices the
                # function by name, but the size-based price guards the time either way: a
                # call that would cost past the limit is not started. A failing call is
                # charged 1 by the caller.
                price = overload.cost(values, None)  # type: ignore[operator]
                if s[0] + price > limit:
                    raise CelCostLimitError(COST_LIMIT_MESSAGE)
                meter = meters.get(overload.id)
                if meter is not None:
                    meter(values, s)
                result = overload.impl(*values)
                s[0] += price if by_name else 1
                return result
            if meters:
                meter = meters.get(overload.id)
                if meter is not None:
                    meter(values, s)
            result = overload.impl(*values)
            if track:
                cost = overload.cost
                if isinstance(cost, int):
                    s[0] += cost
                elif by_name:
                    s[0] += cost(values, result)
                else:
                    s[0] += 1
            return result

        return Code(dispatch, arg_cost)

    # operators with special semantics ---------------------------------------------------

    def _terms(self, node: ast.Node, name: str) -> list[ast.Node]:
        if isinstance(node, ast.Call) and node.function == name and node.target is None:
            return self._terms(node.args[0], name) + self._terms(node.args[1], name)
        return [node]

    def logical(self, node: ast.Call, name: str) -> Code:
        terms = [self.compile(t) for t in self._terms(node, name)]
        decisive = name == "_||_"  # the value that short-circuits: true for ||, false for &&
        first = terms[0]
        rest = [(t.fn, t.cost) for t in terms[1:]]
        first_fn = first.fn
        track = self.track

        def logic(d: Any, s: list[Any]) -> Any:
            error: BaseException | None = None
            try:
                value = first_fn(d, s)
                if value is decisive:
                    return decisive
                if value is not (not decisive):
                    error = CelEvaluationError("no such overload")
            except CelCostLimitError:
                raise
            except Exception as e:
                error = e
            for fn, cost in rest:
                if track:
                    s[0] += cost
                try:
                    value = fn(d, s)
                except CelCostLimitError:
                    raise
                except Exception as e:
                    if error is None:
                        error = e
                    continue
                if value is decisive:
                    return decisive
                if value is not (not decisive) and error is None:
                    error = CelEvaluationError("no such overload")
            if error is not None:
                raise error
            return not decisive

        if len(terms) == 2 and not track:
            a_fn, b_fn = first_fn, terms[1].fn
            if decisive:

                def fast_or(d: Any, s: list[Any]) -> Any:
                    try:
                        a = a_fn(d, s)
                    except CelCostLimitError:
                        raise
                    except Exception:
                        return logic(d, s)
                    if a is True:
                        return True
                    b = b_fn(d, s) if a is False else None
                    if b is True or b is False:
                        return b
                    return logic(d, s)

                return Code(fast_or, first.cost)

            def fast_and(d: Any, s: list[Any]) -> Any:
                try:
                    a = a_fn(d, s)
                except CelCostLimitError:
                    raise
                except Exception:
                    return logic(d, s)
                if a is False:
                    return False
                b = b_fn(d, s) if a is True else None
                if b is True or b is False:
                    return b
                return logic(d, s)

            return Code(fast_and, first.cost)
        return Code(logic, first.cost)

    def logical_not(self, arg: Code) -> Code:
        fn = arg.fn
        if arg.is_const and isinstance(arg.const, bool):
            return constant(not arg.const, arg.cost + 1)

        def negate(d: Any, s: list[Any]) -> Any:
            value = fn(d, s)
            if value is True:
                return False
            if value is False:
                return True
            raise CelEvaluationError("no such overload")

        return Code(negate, arg.cost + 1)

    def conditional(self, node: ast.Call) -> Code:
        cond, then, otherwise = (self.compile(a) for a in node.args)
        c_fn, t_fn, o_fn = cond.fn, then.fn, otherwise.fn
        t_cost, o_cost = then.cost, otherwise.cost
        if self.track:

            def ternary(d: Any, s: list[Any]) -> Any:
                c = c_fn(d, s)
                if c is True:
                    s[0] += t_cost
                    return t_fn(d, s)
                if c is False:
                    s[0] += o_cost
                    return o_fn(d, s)
                raise CelEvaluationError("no such overload")

        else:

            def ternary(d: Any, s: list[Any]) -> Any:
                c = c_fn(d, s)
                if c is True:
                    return t_fn(d, s)
                if c is False:
                    return o_fn(d, s)
                raise CelEvaluationError("no such overload")

        return Code(ternary, cond.cost)

    def optional_or(self, target: ast.Node, alternative: ast.Node, name: str) -> Code:
        opt = self.compile(target)
        alt = self.compile(alternative)
        o_fn, a_fn, a_cost = opt.fn, alt.fn, alt.cost
        track = self.track
        unwrap = name == "orValue"

        def or_else(d: Any, s: list[Any]) -> Any:
            value = o_fn(d, s)
            if not isinstance(value, Optional):
                raise no_such_overload(name, (value,))
            if value.has_value:
                return value.value if unwrap else value
            if track:
                s[0] += a_cost
            other = a_fn(d, s)
            if not unwrap and not isinstance(other, Optional):
                raise no_such_overload(name, (value, other))
            return other

        return Code(or_else, opt.cost)

    def equality(self, node: ast.Call, args: list[Code], negate: bool) -> Code:
        left, right = args
        lt, rt = self.type_of(node.args[0]), self.type_of(node.args[1])
        sized = {STRING, BYTES}
        scalar = (
            lt == rt
            and lt.kind == "prim"
            and lt not in sized
            and lt.name not in ("google.protobuf.Duration", "google.protobuf.Timestamp")
        )
        if scalar:
            impl: Callable[[Any, Any], bool] = (
                (lambda a, b: a != b) if negate else (lambda a, b: a == b)
            )
        else:
            impl = (lambda a, b: not cel_equal(a, b)) if negate else cel_equal
        total = left.cost + right.cost
        if left.is_const and right.is_const:
            try:
                value = impl(left.const, right.const)
            except CelEvaluationError:
                value = NOT_CONSTANT  # a library type refusing the other: fails when evaluated
            if value is not NOT_CONSTANT:
                cost = total + equality_cost((left.const, right.const), value)
                return constant(value, cost)
        l_fn, r_fn = left.fn, right.fn
        if not self.track and (right.is_const or left.is_const):
            return Code(self._equal_constant(left, right, negate), total + 1)
        if lt.kind in ("prim", "null") and lt not in sized and rt not in sized:
            return Code(self._apply(impl, args), total + 1)
        if right.is_const and size_of(right.const) <= 1:
            # min(size(left), size(right)) is at most 1: 0 against an empty literal, else 1
            # (unless the left side is empty, a difference not worth tracking).
            return Code(self._apply(impl, args), total + size_of(right.const))
        if not self.track:
            return Code(self._apply(impl, args), total)

        def eq(d: Any, s: list[Any]) -> Any:
            try:
                a = l_fn(d, s)
                b = r_fn(d, s)
            except CelCostLimitError:
                raise
            except CelEvaluationError:
                s[0] += 1  # an error operand has size 1 in cel-go's cost
                raise
            s[0] += equality_cost((a, b), None)
            return impl(a, b)

        return Code(eq, total)

    @staticmethod
    def _equal_constant(left: Code, right: Code, negate: bool) -> Fn:
        """``x == literal``: a plain Python comparison when the runtime type matches."""
        # cel-go asks the left operand's Equal, and library types refuse other types while
        # built-in ones compare unequal: the operands keep their order.
        const_left = not right.is_const
        if right.is_const:
            fn, c = left.fn, right.const
        else:
            fn, c = right.fn, left.const

        def slow(v: Any) -> bool:
            return cel_equal(c, v) if const_left else cel_equal(v, c)

        kind = type(c)
        if kind not in (str, int, bool, float, bytes, UInt):
            if negate:
                return lambda d, s: not slow(fn(d, s))
            return lambda d, s: slow(fn(d, s))
        if negate:

            def not_equal(d: Any, s: list[Any]) -> Any:
                v = fn(d, s)
                if type(v) is kind:
                    return v != c
                return not slow(v)

            return not_equal

        def equal(d: Any, s: list[Any]) -> Any:
            v = fn(d, s)
            if type(v) is kind:
                return v == c
            return slow(v)

        return equal

    def membership(self, node: ast.Call, args: list[Code]) -> Code:
        element, container = args
        ct = self.type_of(node.args[1])
        total = element.cost + container.cost
        if ct.kind == "map":
            return self.simple_call(in_map, args, 1)
        if ct.kind == "list":
            impl: Callable[[Any, Any], bool] = in_list
            if container.is_const and all(type(x) in (str, int, bool) for x in container.const):
                members = container.const
                lookup = set(members)
                kinds = {type(x) for x in members}
                if len(kinds) == 1:
                    kind = next(iter(kinds))
                    e_fn = element.fn

                    def in_set(d: Any, s: list[Any]) -> Any:
                        value = e_fn(d, s)
                        if type(value) is kind:
                            return value in lookup
                        return in_list(value, members)

                    # cel-go turns this into a set lookup, which costs nothing.
                    return Code(in_set, total)
        else:
            impl = in_container
        e_fn, c_fn = element.fn, container.fn
        if not self.track:
            return Code(lambda d, s: impl(e_fn(d, s), c_fn(d, s)), total)
        # cel-go prices in_list by the list's size; on a dyn container the overload is
        # chosen at run time, without an overload id, and costs 1.
        sized = ct.kind == "list"

        def contains(d: Any, s: list[Any]) -> Any:
            value = e_fn(d, s)
            coll = c_fn(d, s)
            s[0] += len(coll) if sized and isinstance(coll, list) else 1
            return impl(value, coll)

        return Code(contains, total)

    def index(self, node: ast.Call, args: list[Code]) -> Code:
        found = self._path(node)
        if found is not None:
            return self.path(*found)
        return self.simple_call(index_value, args, 1 + _relative(node.args[0]))

    # literals -------------------------------------------------------------------------

    def create_list(self, node: ast.CreateList) -> Code:
        elements = [self.compile(e) for e in node.elements]
        flags = list(node.optional)
        if all(e.is_const for e in elements) and not any(flags):
            # cel-go turns only a literal of literals into a constant; a list of folded calls
            # is still built, for 10.
            built = 0 if _literal(node, self.checked) else 10
            return constant([e.const for e in elements], built + sum(e.cost for e in elements))
        cost = 10 + sum(e.cost for e in elements)
        fns = [e.fn for e in elements]
        if not any(flags):
            return Code(lambda d, s: [f(d, s) for f in fns], cost)
        pairs = list(zip(fns, flags, strict=True))

        def build(d: Any, s: list[Any]) -> Any:
            out = []
            for f, optional in pairs:
                value = f(d, s)
                if optional:
                    if not isinstance(value, Optional):
                        raise CelEvaluationError("no such overload")
                    if value.has_value:
                        out.append(value.value)
                else:
                    out.append(value)
            return out

        return Code(build, cost)

    def create_map(self, node: ast.CreateMap) -> Code:
        entries = [(self.compile(e.key), self.compile(e.value), e.optional) for e in node.entries]
        cost = sum(k.cost + v.cost for k, v, _ in entries)
        triples = [(k.fn, v.fn, opt) for k, v, opt in entries]
        # Plain CEL refuses a repeated key; Kubernetes' folded literals keep the last one.
        strict = not self.checked.dialect.fold_constants

        def build(d: Any, s: list[Any]) -> Any:
            out: dict[Any, Any] = {}
            seen: set[tuple[bool, Any]] = set()
            for k_fn, v_fn, optional in triples:
                key = k_fn(d, s)
                if type(key) not in (str, int, UInt, bool):
                    raise CelEvaluationError(f"unsupported key type: {value_type(key).name}")
                if strict:
                    marker = (type(key) is bool, key)
                    if marker in seen:
                        raise CelEvaluationError(f"Failed with repeated key: {key}")
                    seen.add(marker)
                value = v_fn(d, s)
                if optional:
                    if not isinstance(value, Optional):
                        raise CelEvaluationError("no such overload")
                    if not value.has_value:
                        continue
                    value = value.value
                out = map_put(out, key, value)
            return out

        if all(k.is_const and v.is_const for k, v, _ in entries) and not any(
            opt for _, _, opt in entries
        ):
            try:
                built = 0 if _literal(node, self.checked) else 30
                return constant(build(None, [0]), cost + built)
            except CelEvaluationError:
                pass
        return Code(build, cost + 30)

    # macros ---------------------------------------------------------------------------

    def lazy_read(self, slot: int) -> Fn:
        """Read a ``cel.bind`` variable, evaluating its initializer on first use only."""
        track = self.track

        def read(d: Any, s: list[Any]) -> Any:
            value = s[slot]
            if type(value) is _Lazy:
                if track:
                    s[0] += value.cost
                value = s[slot] = value.fn(d, s)
            return value

        return read

    def macro(self, node: ast.Macro) -> Code:
        if node.kind == "bind":
            init = self.compile(node.args[0])
            slot = self.new_slot()
            self.lazy_slots.add(slot)
            self.scopes.append({node.variables[0]: slot})
            try:
                body = self.compile(node.args[1])
            finally:
                self.scopes.pop()
            lazy = _Lazy(init.fn, init.cost)
            b_fn = body.fn

            def bind(d: Any, s: list[Any]) -> Any:
                s[slot] = lazy
                return b_fn(d, s)

            return Code(bind, body.cost)
        assert node.target is not None
        target = self.compile(node.target)
        slots = [self.new_slot() for _ in node.variables]
        self.scopes.append(dict(zip(node.variables, slots, strict=True)))
        try:
            args = [self.compile(a) for a in node.args]
        finally:
            self.scopes.pop()
        builder = getattr(self, f"macro_{node.kind}")
        fn: Fn = builder(target.fn, slots, args)
        return Code(fn, target.cost)

    def _bind_vars(self, slots: list[int]) -> Callable[[Any], list[Any]]:
        return iteration_items if len(slots) == 1 else iteration_pairs

    def _limit_check(self) -> Callable[[list[Any]], None]:
        limit = self.limit

        def check(s: list[Any]) -> None:
            if s[0] > limit:
                raise CelCostLimitError(COST_LIMIT_MESSAGE)

        return check

    def _quantifier(
        self, range_fn: Fn, slots: list[int], args: list[Code], decisive: bool, cond_cost: int
    ) -> Fn:
        """all (decisive False) and exists (decisive True), with error absorption."""
        pred = args[0]
        p_fn, step_cost = pred.fn, pred.cost + 1
        items_of = self._bind_vars(slots)
        two = len(slots) == 2
        s1 = slots[0]
        s2 = slots[1] if two else 0
        track = self.track
        check = self._limit_check()

        def quantify(d: Any, s: list[Any]) -> Any:
            items = items_of(range_fn(d, s))
            error: BaseException | None = None
            for item in items:
                if two:
                    s[s1], s[s2] = item
                else:
                    s[s1] = item
                if track:
                    s[0] += cond_cost + step_cost
                    check(s)
                try:
                    value = p_fn(d, s)
                except CelCostLimitError:
                    raise
                except Exception as e:
                    if error is None:
                        error = e
                    continue
                if value is decisive:
                    if track:
                        s[0] += 1
                    return decisive
                if value is not (not decisive) and error is None:
                    error = CelEvaluationError("no such overload")
            if track:
                s[0] += 1
            if error is not None:
                raise error
            return not decisive

        return quantify

    def macro_all(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._quantifier(range_fn, slots, args, False, 2)

    def macro_exists(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._quantifier(range_fn, slots, args, True, 3)

    def macro_exists_one(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        p_fn, p_cost = args[0].fn, args[0].cost
        items_of = self._bind_vars(slots)
        two = len(slots) == 2
        s1 = slots[0]
        s2 = slots[1] if two else 0
        track = self.track
        check = self._limit_check()

        def exists_one(d: Any, s: list[Any]) -> Any:
            count = 0
            error: CelEvaluationError | None = None
            for item in items_of(range_fn(d, s)):
                if two:
                    s[s1], s[s2] = item
                else:
                    s[s1] = item
                try:
                    value = p_fn(d, s)
                    if value is not True and value is not False:
                        raise CelEvaluationError("no such overload")
                except CelCostLimitError:
                    raise
                except CelEvaluationError as e:
                    if not track:
                        raise
                    # cel-go keeps the error in its accumulator and goes on looping.
                    error = error or e
                    s[0] += p_cost
                    check(s)
                    continue
                if value:
                    count += 1
                if track:
                    s[0] += p_cost + (2 if value else 0)
                    check(s)
            if track:
                s[0] += 2
            if error is not None:
                raise error
            return count == 1

        return exists_one

    def _collect(self, range_fn: Fn, slots: list[int], args: list[Code], kind: str) -> Fn:
        """map, filter, transformList, transformMap and transformMapEntry."""
        has_filter = len(args) == 2 or kind == "filter"
        f_fn = args[0].fn if has_filter else None
        f_cost = args[0].cost if has_filter else 0
        t_fn = args[-1].fn if kind != "filter" else None
        t_cost = args[-1].cost if kind != "filter" else 1
        items_of = self._bind_vars(slots)
        two = len(slots) == 2
        s1 = slots[0]
        s2 = slots[1] if two else 0
        track = self.track
        check = self._limit_check()
        step_cost = {"transformMap": 3, "transformMapEntry": 2}.get(kind, 12) + t_cost
        if kind in ("map", "transformList") and args[-1].is_const:
            # cel-go appends a constant one-element list: no list is built per step
            step_cost -= 10
        to_map = kind in ("transformMap", "transformMapEntry")

        def step(d: Any, s: list[Any], out_list: list[Any], out_map: dict[Any, Any]) -> Any:
            """One element; returns the (possibly replaced) map being built."""
            if f_fn is not None:
                try:
                    keep = f_fn(d, s)
                    if keep is not True and keep is not False:
                        raise CelEvaluationError("no such overload")
                except CelCostLimitError:
                    raise
                except CelEvaluationError:
                    if track:
                        s[0] += f_cost
                    raise
                if keep is False:
                    if track:
                        s[0] += f_cost
                        check(s)
                    return out_map
            if track:
                s[0] += f_cost + step_cost
                check(s)
            if kind == "filter":
                out_list.append(s[s1])
            elif kind == "transformMap":
                out_map = map_put(out_map, s[s1], t_fn(d, s))  # type: ignore[misc]
            elif kind == "transformMapEntry":
                entry = t_fn(d, s)  # type: ignore[misc]
                if not isinstance(entry, dict):
                    raise CelEvaluationError("no such overload")
                for key, value in entry.items():
                    if map_get(out_map, key, _ABSENT) is not _ABSENT:
                        raise CelEvaluationError(f"insert failed: key {key} already exists")
                    out_map = map_put(out_map, key, value)
            else:
                out_list.append(t_fn(d, s))  # type: ignore[misc]
            return out_map

        def collect(d: Any, s: list[Any]) -> Any:
            out_list: list[Any] = []
            out_map: dict[Any, Any] = {}
            error: CelEvaluationError | None = None
            for item in items_of(range_fn(d, s)):
                if two:
                    s[s1], s[s2] = item
                else:
                    s[s1] = item
                if not track:
                    out_map = step(d, s, out_list, out_map)
                    continue
                try:
                    out_map = step(d, s, out_list, out_map)
                except CelCostLimitError:
                    raise
                except CelEvaluationError as e:
                    # cel-go's accumulator holds the error and the loop goes on (its
                    # condition is true), every element still charged.
                    if error is None:
                        error = e
            if track:
                s[0] += 1
            if error is not None:
                raise error
            return out_map if to_map else out_list

        return collect

    def macro_map(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._collect(range_fn, slots, args, "map")

    def macro_filter(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._collect(range_fn, slots, args, "filter")

    def macro_transformList(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._collect(range_fn, slots, args, "transformList")

    def macro_transformMap(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._collect(range_fn, slots, args, "transformMap")

    def macro_transformMapEntry(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._collect(range_fn, slots, args, "transformMapEntry")

    def _opt_macro(self, range_fn: Fn, slots: list[int], args: list[Code], flat: bool) -> Fn:
        body_fn, body_cost = args[0].fn, args[0].cost
        slot = slots[0]
        track = self.track

        def opt_map(d: Any, s: list[Any]) -> Any:
            opt = range_fn(d, s)
            if not isinstance(opt, Optional):
                raise CelEvaluationError("no such overload")
            if not opt.has_value:
                return OPTIONAL_NONE
            s[slot] = opt.value
            if track:
                s[0] += body_cost
            result = body_fn(d, s)
            if flat:
                if not isinstance(result, Optional):
                    raise CelEvaluationError("no such overload")
                return result
            return Optional(True, result)

        return opt_map

    def macro_optMap(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._opt_macro(range_fn, slots, args, False)

    def macro_optFlatMap(self, range_fn: Fn, slots: list[int], args: list[Code]) -> Fn:
        return self._opt_macro(range_fn, slots, args, True)

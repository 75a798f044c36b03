"""Type checker: resolves identifiers and overloads and assigns a static type to every node.

Errors are collected (not raised one by one) so that a compile error lists every problem
in source order, like cel-go. The literal validators Kubernetes enables (homogeneous
aggregate literals, and the per-function ``validate`` hooks for regex, duration, timestamp
and format literals) run here too.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubedra.cel import ast
from kubedra.cel.registry import NOT_CONSTANT, Overload, Registry
from kubedra.cel.types import (
    BOOL,
    BYTES,
    DOUBLE,
    DYN,
    ERROR,
    FREE,
    INT,
    NULL,
    STRING,
    UINT,
    CelType,
    Substitution,
    agrees,
    finalize,
    is_assignable,
    list_of,
    map_of,
    most_specific,
    optional_of,
    type_of,
)
from kubedra.cel.values import TypeValue, UInt, library_type


@dataclass(slots=True)
class CheckError:
    offset: int
    message: str


@dataclass(frozen=True, slots=True)
class Dialect:
    """Checks that differ between Kubernetes' environment and plain CEL.

    Kubernetes validates homogeneous aggregate literals and duration, timestamp, regex and
    format literals, and folds constant conversions when the program is built (an invalid
    one fails compilation). cel-spec's conformance suite runs plain CEL, where all of these
    are left to evaluation; ``checked=False`` is its ``disable_check``: type errors and
    unknown names become evaluation errors.
    """

    homogeneous_literals: bool = True
    literal_validators: bool = True
    fold_constants: bool = True
    checked: bool = True


KUBERNETES = Dialect()
PLAIN_CEL = Dialect(homogeneous_literals=False, literal_validators=False, fold_constants=False)


@dataclass(slots=True)
class Checked:
    """The checker's annotations, keyed by ``id(node)``."""

    root: ast.Node
    types: dict[int, CelType] = field(default_factory=dict)
    overloads: dict[int, list[Overload]] = field(default_factory=dict)
    # Identifiers and qualified names that denote constants (type names).
    constants: dict[int, Any] = field(default_factory=dict)
    # Member-style calls whose target is really a namespace (``optional.of``, ``lists.range``).
    namespaced: set[int] = field(default_factory=set)
    # Selections that name a declared variable with a dotted name (``a.b.c``).
    qualified: dict[int, str] = field(default_factory=dict)
    errors: list[CheckError] = field(default_factory=list)
    dialect: Dialect = KUBERNETES

    def type(self, node: ast.Node) -> CelType:
        return self.types[id(node)]


TYPE_NAMES: dict[str, CelType] = {
    "int": INT,
    "uint": UINT,
    "double": DOUBLE,
    "bool": BOOL,
    "string": STRING,
    "bytes": BYTES,
    "null_type": NULL,
    "dyn": DYN,
    "list": CelType("list", "list"),
    "map": CelType("map", "map"),
    "type": type_of(),
    "google.protobuf.Duration": CelType("prim", "google.protobuf.Duration"),
    "google.protobuf.Timestamp": CelType("prim", "google.protobuf.Timestamp"),
    "optional_type": CelType("opaque", "optional_type"),
}


def _type_named(name: str) -> CelType | None:
    return TYPE_NAMES.get(name) or library_type(name)


def _literal_type(value: Any) -> CelType:
    if isinstance(value, bool):
        return BOOL
    if isinstance(value, UInt):
        return UINT
    if isinstance(value, int):
        return INT
    if isinstance(value, float):
        return DOUBLE
    if isinstance(value, str):
        return STRING
    if isinstance(value, bytes):
        return BYTES
    return NULL


def _qualified_name(node: ast.Node) -> str | None:
    if isinstance(node, ast.Ident):
        return node.name
    if isinstance(node, ast.Select) and not node.test_only and not node.optional:
        prefix = _qualified_name(node.operand)
        return f"{prefix}.{node.field}" if prefix is not None else None
    return None


def _optional_inner(t: CelType) -> CelType | None:
    if t.kind == "opaque" and t.name == "optional_type" and t.params:
        return t.params[0]
    return None


class Checker:
    def __init__(
        self,
        registry: Registry,
        variables: Mapping[str, CelType],
        dialect: Dialect = KUBERNETES,
    ) -> None:
        self.registry = registry
        self.variables = variables
        self.dialect = dialect
        self.scopes: list[dict[str, CelType]] = []
        self.out: Checked | None = None
        # > 0 inside a call to ``format``: cel-go exempts its list and map literals from the
        # homogeneous aggregate literal validator (``"%s %d".format(["a", 1])`` compiles).
        self.heterogeneous_ok = 0

    def check(self, root: ast.Node) -> Checked:
        self.out = Checked(root, dialect=self.dialect)
        self.visit(root)
        self.out.errors.sort(key=lambda e: e.offset)
        return self.out

    # helpers --------------------------------------------------------------------------

    def error(self, offset: int, message: str) -> None:
        assert self.out is not None
        if self.dialect.checked:
            self.out.errors.append(CheckError(offset, message))

    def set(self, node: ast.Node, t: CelType) -> CelType:
        assert self.out is not None
        if t.kind == "error" and not self.dialect.checked:
            t = DYN  # unchecked: whatever failed to type is decided at run time
        self.out.types[id(node)] = t
        return t

    def lookup_local(self, name: str) -> CelType | None:
        for scope in reversed(self.scopes):
            if name in scope:
                return scope[name]
        return None

    def is_declared_name(self, name: str) -> bool:
        return self.lookup_local(name) is not None or name in self.variables

    def const_value(self, node: ast.Node) -> Any:
        """A literal's value; a list literal gives a list with NOT_CONSTANT for elements that
        are not literals (what cel-go's format validator inspects)."""
        if isinstance(node, ast.Const):
            return node.value
        if isinstance(node, ast.CreateList) and not any(node.optional):
            return [self.const_value(e) for e in node.elements]
        return NOT_CONSTANT

    def mismatch(self, offset: int, expected: CelType, found: CelType) -> bool:
        """Report a heterogeneous literal element; False when the literal may mix types."""
        if self.heterogeneous_ok or not self.dialect.homogeneous_literals:
            return False
        self.error(offset, f"expected type '{expected}' but found '{found}'")
        return True

    # visitors -------------------------------------------------------------------------

    def visit(self, node: ast.Node) -> CelType:
        if isinstance(node, ast.Const):
            return self.set(node, _literal_type(node.value))
        if isinstance(node, ast.Ident):
            return self.set(node, self.visit_ident(node))
        if isinstance(node, ast.Select):
            return self.set(node, self.visit_select(node))
        if isinstance(node, ast.Call):
            return self.set(node, self.visit_call(node))
        if isinstance(node, ast.CreateList):
            return self.set(node, self.visit_list(node))
        if isinstance(node, ast.CreateMap):
            return self.set(node, self.visit_map(node))
        if isinstance(node, ast.Macro):
            return self.set(node, self.visit_macro(node))
        raise TypeError(f"unknown node {node!r}")

    def visit_ident(self, node: ast.Ident) -> CelType:
        local = self.lookup_local(node.name)
        if local is not None:
            return local
        declared = self.variables.get(node.name)
        if declared is not None:
            return declared
        type_name = _type_named(node.name)
        if type_name is not None and (self.dialect.checked or node.name != "dyn"):
            assert self.out is not None
            self.out.constants[id(node)] = TypeValue(type_name.name)
            return type_of(type_name)
        self.error(node.offset, f"undeclared reference to '{node.name}' (in container '')")
        return ERROR

    def visit_select(self, node: ast.Select) -> CelType:
        qualified = _qualified_name(node)
        if (
            qualified is not None
            and qualified in self.variables
            and not self.lookup_local(qualified.split(".", 1)[0])
        ):
            assert self.out is not None
            self.out.qualified[id(node)] = qualified
            return self.variables[qualified]
        named = _type_named(qualified) if qualified is not None else None
        if qualified is not None and named is not None:
            root = qualified.split(".", 1)[0]
            if not self.is_declared_name(root):
                assert self.out is not None
                self.out.constants[id(node)] = TypeValue(named.name)
                return type_of(named)
        operand = self.visit(node.operand)
        inner = _optional_inner(operand)
        wrap = inner is not None or node.optional
        base = inner if inner is not None else operand
        field_type = self.field_type(node, base)
        if node.test_only:
            return BOOL
        return optional_of(field_type) if wrap else field_type

    def field_type(self, node: ast.Select, base: CelType) -> CelType:
        if base.is_dyn:
            return DYN
        if base.kind == "map":
            return base.params[1] if base.params else DYN
        if base.kind == "object" and base.fields is not None:
            found = base.fields.get(node.field)
            if found is None:
                self.error(node.offset, f"undefined field '{node.field}'")
                return ERROR
            return found
        self.error(node.offset, f"type '{base}' does not support field selection")
        return ERROR

    def visit_call(self, node: ast.Call) -> CelType:
        assert self.out is not None
        name = node.function
        target = node.target
        if target is not None:
            qualified = _qualified_name(target)
            if qualified is not None:
                full = f"{qualified}.{name}"
                root = qualified.split(".", 1)[0]
                if self.registry.overloads(full) and not self.is_declared_name(root):
                    self.out.namespaced.add(id(node))
                    return self.resolve(node, full, None, node.args)
            return self.resolve(node, name, target, node.args)
        return self.resolve(node, name, None, node.args)

    def resolve(
        self, node: ast.Call, name: str, target: ast.Node | None, args: list[ast.Node]
    ) -> CelType:
        assert self.out is not None
        if not self.dialect.checked:
            # Unchecked: whatever overload fits the arity is chosen by runtime types.
            arity = len(args) + (target is not None)
            self.out.overloads[id(node)] = [
                o
                for o in self.registry.overloads(name)
                if o.member == (target is not None) and len(o.params) == arity
            ]
        exempt = name == "format"
        self.heterogeneous_ok += exempt
        arg_types = []
        if target is not None:
            arg_types.append(self.visit(target))
        arg_types.extend(self.visit(a) for a in args)
        self.heterogeneous_ok -= exempt
        candidates = self.registry.overloads(name)
        if not candidates:
            self.error(node.offset, f"undeclared reference to '{name}' (in container '')")
            return ERROR
        if any(t.kind == "error" for t in arg_types):
            return ERROR
        member = target is not None
        matched: list[Overload] = []
        result: CelType | None = None
        for overload in candidates:
            if overload.member != member or len(overload.params) != len(arg_types):
                continue
            sub = Substitution()
            if all(
                is_assignable(sub, a, p) for a, p in zip(arg_types, overload.params, strict=True)
            ):
                matched.append(overload)
                overload_result = finalize(sub.resolve(overload.result))
                if result is None:
                    result = overload_result
                elif result != overload_result:
                    result = DYN
        if not matched or result is None:
            if member:
                shown = f"{arg_types[0]}.({', '.join(str(t) for t in arg_types[1:])})"
            else:
                shown = f"({', '.join(str(t) for t in arg_types)})"
            self.error(node.offset, f"found no matching overload for '{name}' applied to '{shown}'")
            return ERROR
        self.out.overloads[id(node)] = matched
        consts = tuple(
            self.const_value(a) for a in ([target] if target is not None else []) + list(args)
        )
        for overload in matched if self.dialect.literal_validators else ():
            if overload.validate is not None:
                message = overload.validate(consts)
                if message is not None:
                    # cel-go's validators point at the literal they reject: the last argument.
                    self.error(args[-1].offset if args else node.offset, message)
                    break
        return result

    def visit_list(self, node: ast.CreateList) -> CelType:
        elem_type: CelType | None = None
        homogeneous = True
        for elem, optional in zip(node.elements, node.optional, strict=True):
            t = self.visit(elem)
            if optional:
                inner = _optional_inner(t)
                if inner is None and not t.is_dyn:
                    self.error(elem.offset, f"expected type 'optional_type' but found '{t}'")
                    inner = ERROR
                t = inner if inner is not None else DYN
            if elem_type is None:
                elem_type = t
            elif not agrees(t, elem_type) and t.kind != "error" and elem_type.kind != "error":
                # cel-go's validator reports the first offending element of a literal only.
                if homogeneous:
                    self.mismatch(elem.offset, elem_type, t)
                homogeneous = False
            else:
                elem_type = most_specific(elem_type, t)
        if elem_type is None:
            return list_of(FREE)
        return list_of(elem_type if homogeneous else DYN)

    def visit_map(self, node: ast.CreateMap) -> CelType:
        key_type: CelType | None = None
        value_type: CelType | None = None
        reported = False
        for entry in node.entries:
            kt = self.visit(entry.key)
            vt = self.visit(entry.value)
            if entry.optional:
                inner = _optional_inner(vt)
                if inner is None and not vt.is_dyn:
                    self.error(
                        entry.value.offset, f"expected type 'optional_type' but found '{vt}'"
                    )
                vt = inner if inner is not None else DYN
            if key_type is None:
                key_type = kt
            elif not agrees(kt, key_type) and kt.kind != "error" and key_type.kind != "error":
                if reported or not self.mismatch(entry.key.offset, key_type, kt):
                    key_type = DYN
                reported = True
            else:
                key_type = most_specific(key_type, kt)
            if value_type is None:
                value_type = vt
            elif not agrees(vt, value_type) and vt.kind != "error" and value_type.kind != "error":
                if reported or not self.mismatch(entry.value.offset, value_type, vt):
                    value_type = DYN
                reported = True
            else:
                value_type = most_specific(value_type, vt)
        if key_type is None or value_type is None:
            return map_of(FREE, FREE)
        return map_of(key_type, value_type)

    def range_vars(self, node: ast.Macro, range_type: CelType) -> tuple[CelType, CelType]:
        """Types of (first, second) iteration variables over a range of this type."""
        if range_type.is_dyn:
            return DYN, DYN
        if range_type.kind == "list":
            elem = range_type.params[0] if range_type.params else DYN
            return (elem, DYN) if len(node.variables) == 1 else (INT, elem)
        if range_type.kind == "map":
            key, value = range_type.params if range_type.params else (DYN, DYN)
            return key, value
        self.error(
            node.offset,
            f"expression of type '{range_type}' cannot be range of a comprehension "
            "(must be list, map, or dynamic)",
        )
        return ERROR, ERROR

    def expect_bool(self, node: ast.Macro, t: CelType, op: str) -> None:
        if not is_assignable(Substitution(), t, BOOL):
            self.error(
                node.offset, f"found no matching overload for '{op}' applied to '(bool, {t})'"
            )

    def visit_macro(self, node: ast.Macro) -> CelType:
        kind = node.kind
        if kind == "bind":
            init_type = self.visit(node.args[0])
            self.scopes.append({node.variables[0]: init_type})
            try:
                return self.visit(node.args[1])
            finally:
                self.scopes.pop()
        assert node.target is not None
        range_type = self.visit(node.target)
        if kind in ("optMap", "optFlatMap"):
            inner = _optional_inner(range_type)
            if inner is None and not range_type.is_dyn:
                self.error(
                    node.offset,
                    f"found no matching overload for '{kind}' applied to '{range_type}'",
                )
                return ERROR
            self.scopes.append({node.variables[0]: inner if inner is not None else DYN})
            try:
                body = self.visit(node.args[0])
            finally:
                self.scopes.pop()
            if kind == "optMap":
                return optional_of(body)
            body_inner = _optional_inner(body)
            if body_inner is None and not body.is_dyn:
                self.error(node.offset, f"expected type 'optional_type' but found '{body}'")
                return ERROR
            return optional_of(body_inner if body_inner is not None else DYN)
        first, second = self.range_vars(node, range_type)
        scope = {node.variables[0]: first}
        if len(node.variables) == 2:
            scope[node.variables[1]] = second
        self.scopes.append(scope)
        try:
            arg_types = [self.visit(a) for a in node.args]
        finally:
            self.scopes.pop()
        if kind in ("all", "exists"):
            self.expect_bool(node, arg_types[0], "_&&_" if kind == "all" else "_||_")
            return BOOL
        if kind == "exists_one":
            self.expect_bool(node, arg_types[0], "_?_:_")
            return BOOL
        if kind == "filter":
            self.expect_bool(node, arg_types[0], "_?_:_")
            return list_of(first)
        if len(arg_types) == 2:
            self.expect_bool(node, arg_types[0], "_?_:_")
        produced = arg_types[-1]
        if kind in ("map", "transformList"):
            return list_of(produced)
        if kind == "transformMap":
            return map_of(first, produced)
        # transformMapEntry: the transform must itself produce a map.
        if produced.kind == "map" and produced.params:
            return map_of(produced.params[0], produced.params[1])
        if produced.is_dyn:
            return map_of(DYN, DYN)
        self.error(node.offset, f"expected type 'map' but found '{produced}'")
        return ERROR

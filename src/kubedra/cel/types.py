"""Static CEL types as the type checker sees them, and their assignability rules.

The rules follow cel-go's checker: ``dyn`` is compatible with everything, type parameters
bind to the first type they meet and widen to the most general one, and lists, maps and
opaque types compare their parameters recursively.
"""

from __future__ import annotations

from collections.abc import Mapping


class CelType:
    """One CEL type: a kind, a name and type parameters (``list(int)``, ``map(K, V)``...)."""

    __slots__ = ("_hash", "fields", "kind", "name", "params")

    kind: str
    name: str
    params: tuple[CelType, ...]
    fields: Mapping[str, CelType] | None

    def __init__(
        self,
        kind: str,
        name: str,
        params: tuple[CelType, ...] = (),
        fields: Mapping[str, CelType] | None = None,
    ) -> None:
        self.kind = kind
        self.name = name
        self.params = params
        self.fields = fields
        self._hash = hash((kind, name, params))

    def __eq__(self, other: object) -> bool:
        return (
            isinstance(other, CelType)
            and self.kind == other.kind
            and self.name == other.name
            and self.params == other.params
        )

    def __hash__(self) -> int:
        return self._hash

    def __repr__(self) -> str:
        return f"CelType({self})"

    def __str__(self) -> str:
        if self.kind == "free":
            return "dyn"
        if self.kind == "type":
            return f"type({self.params[0]})" if self.params else "type"
        if self.params:
            return f"{self.name}({', '.join(str(p) for p in self.params)})"
        return self.name

    @property
    def is_dyn(self) -> bool:
        return self.kind in ("dyn", "error", "free")


def _prim(name: str) -> CelType:
    return CelType("prim", name)


INT = _prim("int")
UINT = _prim("uint")
DOUBLE = _prim("double")
BOOL = _prim("bool")
STRING = _prim("string")
BYTES = _prim("bytes")
NULL = CelType("null", "null_type")
DURATION = _prim("google.protobuf.Duration")
TIMESTAMP = _prim("google.protobuf.Timestamp")
DYN = CelType("dyn", "dyn")
# An element type not yet known (of ``[]``, ``{}``, ``optional.none()``): shown as dyn, but
# unlike a declared dyn it agrees with any type when literals are checked for homogeneity.
FREE = CelType("free", "dyn")
ERROR = CelType("error", "*error*")


def list_of(elem: CelType) -> CelType:
    return CelType("list", "list", (elem,))


def map_of(key: CelType, value: CelType) -> CelType:
    return CelType("map", "map", (key, value))


def type_of(t: CelType | None = None) -> CelType:
    """The type of a type value, e.g. ``type(int)``; bare ``type`` without a parameter."""
    return CelType("type", "type", (t,) if t is not None else ())


def optional_of(t: CelType) -> CelType:
    return CelType("opaque", "optional_type", (t,))


def opaque(name: str, *params: CelType) -> CelType:
    """An abstract type implemented by library code (``kubernetes.Quantity``, ``net.IP``...)."""
    return CelType("opaque", name, params)


def object_type(name: str, fields: Mapping[str, CelType]) -> CelType:
    """A declared object type with fixed, typed fields (the ``device`` variable)."""
    return CelType("object", name, (), dict(fields))


def type_param(name: str) -> CelType:
    return CelType("param", name)


LIST_DYN = list_of(DYN)
MAP_DYN = map_of(DYN, DYN)
TYPE = type_of()


class Substitution:
    """Bindings of type parameters established while matching one overload."""

    __slots__ = ("bindings",)

    def __init__(self) -> None:
        self.bindings: dict[CelType, CelType] = {}

    def copy(self) -> Substitution:
        s = Substitution()
        s.bindings = dict(self.bindings)
        return s

    def resolve(self, t: CelType) -> CelType:
        """Replace bound type parameters; unbound ones become dyn when ``finalize``."""
        if t.kind == "param":
            bound = self.bindings.get(t)
            return self.resolve(bound) if bound is not None and bound != t else t
        if t.params:
            return CelType(t.kind, t.name, tuple(self.resolve(p) for p in t.params), t.fields)
        return t


def finalize(t: CelType) -> CelType:
    """Unbound type parameters in a result type stay open (``FREE``, shown as dyn)."""
    if t.kind == "param":
        return FREE
    if t.params:
        return CelType(t.kind, t.name, tuple(finalize(p) for p in t.params), t.fields)
    return t


def _occurs(sub: Substitution, param: CelType, t: CelType) -> bool:
    t = sub.resolve(t)
    if t == param:
        return True
    return any(_occurs(sub, param, p) for p in t.params)


def agrees(t1: CelType, t2: CelType) -> bool:
    """Whether two literal element types are the same, open types agreeing with anything."""
    if t1.kind == "free" or t2.kind == "free":
        return True
    if t1.kind != t2.kind or t1.name != t2.name or len(t1.params) != len(t2.params):
        return False
    return all(agrees(a, b) for a, b in zip(t1.params, t2.params, strict=True))


def _less_specific(t1: CelType, t2: CelType) -> bool:
    """Whether t1 is as general as or more general than t2 (dyn beats everything)."""
    if t1.kind in ("dyn", "param", "error", "free"):
        return True
    if t1.kind != t2.kind or t1.name != t2.name or len(t1.params) != len(t2.params):
        return False
    return all(_less_specific(a, b) for a, b in zip(t1.params, t2.params, strict=True))


def most_general(t1: CelType, t2: CelType) -> CelType:
    return t1 if _less_specific(t1, t2) else t2


def most_specific(t1: CelType, t2: CelType) -> CelType:
    """Of two agreeing literal element types, the one with fewer open parts."""
    if t1.kind == "free":
        return t2
    if t2.kind == "free" or t1.kind != t2.kind or len(t1.params) != len(t2.params):
        return t1
    params = tuple(most_specific(a, b) for a, b in zip(t1.params, t2.params, strict=True))
    return CelType(t1.kind, t1.name, params, t1.fields)


def _bind(sub: Substitution, value: CelType, param: CelType) -> tuple[bool, bool]:
    """Try to bind ``param`` to ``value``; returns (valid, param_already_bound)."""
    if value == param:
        return True, True
    bound = sub.bindings.get(param)
    if bound is not None:
        if value == bound:
            return True, True
        if is_assignable(sub, value, bound):
            widened = most_general(value, bound)
            if not _occurs(sub, param, widened):
                sub.bindings[param] = widened
            return True, True
        return False, True
    if not _occurs(sub, param, value):
        sub.bindings[param] = value
        return True, False
    return False, False


def is_assignable(sub: Substitution, t1: CelType, t2: CelType) -> bool:
    """Whether a value of type t1 may be passed where t2 is expected (binding parameters)."""
    if t2.kind == "param":
        valid, had = _bind(sub, t1, t2)
        if valid:
            return True
        if had:
            return False
    if t1.kind == "param":
        return _bind(sub, t2, t1)[0]
    if t1.is_dyn or t2.is_dyn:
        return True
    if t1.kind == "null" or t2.kind == "null":
        other = t2 if t1.kind == "null" else t1
        return other.kind in ("null", "object") or other in (DURATION, TIMESTAMP)
    if t1.kind == "type":
        return t2.kind == "type"
    if t1.kind != t2.kind or t1.name != t2.name:
        return False
    if len(t1.params) != len(t2.params):
        return False
    return all(is_assignable(sub, a, b) for a, b in zip(t1.params, t2.params, strict=True))

"""Structural type check of a wire dict before any rule runs.

The apiserver decodes JSON into Go structs before validating, so a string where an int64 is
expected never reaches validation: decoding fails. We mirror that: the object is first checked
against a small schema of the known fields, each mismatch becomes one field error at its exact
path, and the rule validators only run on objects that passed. Unknown fields are ignored (the
object model keeps them); ``null`` means "not set", as it does for Go's decoder.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from enum import Enum

from kubedra.api.validation.errors import FieldError, child, index, invalid, key, type_invalid
from kubedra.api.validation.quantities import quantity_error


class Scalar(Enum):
    """Leaf types of the wire schema."""

    STRING = "string"
    INT64 = "int64"
    INT32 = "int32"
    BOOL = "boolean"
    QUANTITY = "quantity"
    ANY = "any"


@dataclass(frozen=True)
class ListOf:
    item: Spec


@dataclass(frozen=True)
class MapOf:
    value: Spec


Spec = Scalar | ListOf | MapOf | Mapping[str, "Spec"]

_INT_RANGES = {
    Scalar.INT64: (-(2**63), 2**63 - 1),
    Scalar.INT32: (-(2**31), 2**31 - 1),
}


def json_type_name(value: object) -> str:
    """The JSON type of a decoded value, used as the bad value of a type error."""
    if isinstance(value, bool):
        return "boolean"
    if isinstance(value, int):
        return "integer"
    if isinstance(value, float):
        return "number"
    if isinstance(value, str):
        return "string"
    if isinstance(value, list | tuple):
        return "array"
    if isinstance(value, dict):
        return "object"
    return type(value).__name__


def check_types(value: object, spec: Spec, path: str) -> list[FieldError]:
    """All type mismatches of ``value`` against ``spec``; empty when it decodes cleanly.

    A compiled predicate answers the common case (no mismatch) quickly; only a failing object
    is walked again to collect the errors with their paths.
    """
    if _predicate(spec)(value):
        return []
    errs: list[FieldError] = []
    _check(value, spec, path, errs)
    return errs


Predicate = Callable[[object], bool]
_PREDICATES: dict[int, Predicate] = {}


def _predicate(spec: Spec) -> Predicate:
    """A fast "decodes cleanly" test for ``spec``, built once per schema node."""
    found = _PREDICATES.get(id(spec))
    if found is None:
        found = _build_predicate(spec)
        _PREDICATES[id(spec)] = found
    return found


def _build_predicate(spec: Spec) -> Predicate:
    if isinstance(spec, Scalar):
        return _SCALAR_PREDICATES[spec]
    if isinstance(spec, ListOf):
        item = _predicate(spec.item)
        return lambda v: v is None or (isinstance(v, list) and all(item(x) for x in v))
    if isinstance(spec, MapOf):
        value = _predicate(spec.value)
        return lambda v: (
            v is None
            or (isinstance(v, dict) and all(isinstance(k, str) and value(x) for k, x in v.items()))
        )
    fields = {name: _predicate(field_spec) for name, field_spec in spec.items()}

    def struct(v: object) -> bool:
        if v is None:
            return True
        if not isinstance(v, dict):
            return False
        for name, item in v.items():
            check = fields.get(name)
            if check is not None and not check(item):
                return False
        return True

    return struct


def _int_predicate(low: int, high: int) -> Predicate:
    return lambda v: (
        v is None or (isinstance(v, int) and not isinstance(v, bool) and low <= v <= high)
    )


def _quantity_ok(v: object) -> bool:
    if v is None:
        return True
    if isinstance(v, bool) or not isinstance(v, str | int | float):
        return False
    return quantity_error(v) is None


_SCALAR_PREDICATES: dict[Scalar, Predicate] = {
    Scalar.STRING: lambda v: v is None or isinstance(v, str),
    Scalar.BOOL: lambda v: v is None or isinstance(v, bool),
    Scalar.INT64: _int_predicate(-(2**63), 2**63 - 1),
    Scalar.INT32: _int_predicate(-(2**31), 2**31 - 1),
    Scalar.QUANTITY: _quantity_ok,
    Scalar.ANY: lambda v: True,
}


def _check(value: object, spec: Spec, path: str, errs: list[FieldError]) -> None:
    if value is None:
        return
    if isinstance(spec, Scalar):
        _check_scalar(value, spec, path, errs)
    elif isinstance(spec, ListOf):
        if not isinstance(value, list):
            errs.append(type_invalid(path, json_type_name(value), "must be of type array"))
            return
        for i, item in enumerate(value):
            _check(item, spec.item, index(path, i), errs)
    elif isinstance(spec, MapOf):
        if not isinstance(value, dict):
            errs.append(type_invalid(path, json_type_name(value), "must be of type object"))
            return
        for map_key, item in value.items():
            if not isinstance(map_key, str):
                errs.append(type_invalid(path, json_type_name(map_key), "keys must be strings"))
                continue
            _check(item, spec.value, key(path, map_key), errs)
    else:
        if not isinstance(value, dict):
            errs.append(type_invalid(path, json_type_name(value), "must be of type object"))
            return
        for name, field_spec in spec.items():
            if name in value:
                _check(value[name], field_spec, child(path, name), errs)


def _check_scalar(value: object, spec: Scalar, path: str, errs: list[FieldError]) -> None:
    if spec is Scalar.ANY:
        return
    if spec is Scalar.STRING:
        if not isinstance(value, str):
            errs.append(type_invalid(path, json_type_name(value), "must be of type string"))
    elif spec is Scalar.BOOL:
        if not isinstance(value, bool):
            errs.append(type_invalid(path, json_type_name(value), "must be of type boolean"))
    elif spec is Scalar.QUANTITY:
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            errs.append(type_invalid(path, json_type_name(value), "must be of type string"))
        else:
            problem = quantity_error(value)
            if problem is not None:
                errs.append(invalid(path, str(value), problem))
    else:
        low, high = _INT_RANGES[spec]
        if isinstance(value, bool) or not isinstance(value, int):
            errs.append(type_invalid(path, json_type_name(value), f"must be of type {spec.value}"))
        elif not low <= value <= high:
            errs.append(type_invalid(path, value, f"must be of type {spec.value}"))

"""Type checks of the allocator's inputs: a wrong-typed field is a clear error, not a crash.

The allocator reads v1 wire dicts as the API server would hand them over. Objects that did not
come through validation (conformance case files, hand-written tests) can carry a list where an
object belongs or a number where a string does; each is reported with the object, the field
path and what was expected. Only the fields the allocator reads are checked; others pass.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubedra.gofmt import quote


class InputError(ValueError):
    """An input object has a field of the wrong type."""


class _Map:
    """A map from strings to values of one schema."""

    __slots__ = ("item",)

    def __init__(self, item: Any) -> None:
        self.item = item


class _Quantity:
    """A quantity: a string or a number, parsed (and checked) where it is used."""


class _Anything:
    """Any JSON value (opaque configuration)."""


QUANTITY = _Quantity()
ANYTHING = _Anything()
Schema = Any

_NAMES = {str: "a string", int: "an integer", bool: "a boolean"}

_SELECTOR_REQUIREMENT = {"key": str, "operator": str, "values": [str]}
NODE_SELECTOR = {
    "nodeSelectorTerms": [
        {"matchExpressions": [_SELECTOR_REQUIREMENT], "matchFields": [_SELECTOR_REQUIREMENT]}
    ]
}
_METADATA = {"name": str, "namespace": str, "uid": str, "labels": _Map(str)}
_TOLERATION = {
    "key": str,
    "operator": str,
    "value": str,
    "effect": str,
    "tolerationSeconds": int,
}
_TAINT = {"key": str, "value": str, "effect": str, "timeAdded": str}
_SELECTORS = [{"cel": {"expression": str}}]
_COUNTERS = _Map({"value": QUANTITY})
_ATTRIBUTE = {
    "string": str,
    "int": int,
    "bool": bool,
    "version": str,
    "strings": [str],
    "ints": [int],
    "bools": [bool],
    "versions": [str],
}
DEVICE = {
    "name": str,
    "attributes": _Map(_ATTRIBUTE),
    "capacity": _Map(
        {
            "value": QUANTITY,
            "requestPolicy": {
                "default": QUANTITY,
                "validValues": [QUANTITY],
                "validRange": {"min": QUANTITY, "max": QUANTITY, "step": QUANTITY},
            },
        }
    ),
    "consumesCounters": [{"counterSet": str, "counters": _COUNTERS}],
    "taints": [_TAINT],
    "bindingConditions": [str],
    "bindingFailureConditions": [str],
    "bindsToNode": bool,
    "allowMultipleAllocations": bool,
    "nodeName": str,
    "allNodes": bool,
    "nodeSelector": NODE_SELECTOR,
}
RESOURCE_SLICE = {
    "metadata": _METADATA,
    "spec": {
        "driver": str,
        "pool": {"name": str, "generation": int, "resourceSliceCount": int},
        "nodeName": str,
        "allNodes": bool,
        "nodeSelector": NODE_SELECTOR,
        "perDeviceNodeSelection": bool,
        "sharedCounters": [{"name": str, "counters": _COUNTERS}],
        "devices": [DEVICE],
    },
}
DEVICE_CLASS = {
    "metadata": _METADATA,
    "spec": {"selectors": _SELECTORS, "config": [{"opaque": ANYTHING}]},
}
_REQUEST_BODY = {
    "deviceClassName": str,
    "selectors": _SELECTORS,
    "allocationMode": str,
    "count": int,
    "adminAccess": bool,
    "tolerations": [_TOLERATION],
    "capacity": {"requests": _Map(QUANTITY)},
}
_RESULT = {
    "request": str,
    "driver": str,
    "pool": str,
    "device": str,
    "adminAccess": bool,
    "shareID": str,
    "consumedCapacity": _Map(QUANTITY),
    "tolerations": [_TOLERATION],
}
RESOURCE_CLAIM = {
    "metadata": _METADATA,
    "spec": {
        "devices": {
            "requests": [
                {
                    "name": str,
                    "exactly": _REQUEST_BODY,
                    "firstAvailable": [{"name": str, **_REQUEST_BODY}],
                }
            ],
            "constraints": [{"requests": [str], "matchAttribute": str, "distinctAttribute": str}],
            "config": [{"requests": [str], "opaque": ANYTHING}],
        }
    },
    "status": {"allocation": {"devices": {"results": [_RESULT]}}},
}
NODE = {"metadata": _METADATA}
DEVICE_TAINT_RULE = {
    "metadata": _METADATA,
    "spec": {"deviceSelector": {"driver": str, "pool": str, "device": str}, "taint": _TAINT},
}


def _type_name(value: Any) -> str:
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, int):
        return "an integer"
    if isinstance(value, float):
        return "a number"
    if isinstance(value, str):
        return "a string"
    if isinstance(value, list):
        return "a list"
    if isinstance(value, Mapping):
        return "an object"
    return type(value).__name__


def problem(value: Any, schema: Schema, path: str = "") -> str | None:
    """The first type problem of ``value`` against ``schema`` as "path: reason", or None.

    ``None`` (JSON null) is accepted for fields, which the allocator treats as unset, but
    not as a list entry.
    """
    found = _problem(value, schema)
    if found is None:
        return None
    segments, reason = found
    where = "".join(reversed(segments))
    if not path and where.startswith("."):
        where = where[1:]
    return f"{path}{where}: {reason}"


def _problem(value: Any, schema: Schema) -> tuple[list[str], str] | None:
    """``problem`` without the path: the path's segments (innermost first) and the reason.

    The path is only spelled out when something is wrong: building it for every field and
    map key of every slice was most of the time spent checking well-typed input.
    """
    if value is None or schema is ANYTHING:
        return None
    if schema is QUANTITY:
        if isinstance(value, str) or (
            isinstance(value, (int, float)) and not isinstance(value, bool)
        ):
            return None
        return [], f"must be a quantity (string), got {_type_name(value)}"
    if isinstance(schema, type):
        ok = isinstance(value, schema) and not (schema is int and isinstance(value, bool))
        if schema is int and isinstance(value, float) and value.is_integer():
            ok = True
        if ok:
            return None
        return [], f"must be {_NAMES[schema]}, got {_type_name(value)}"
    if isinstance(schema, list):
        if not isinstance(value, list):
            return [], f"must be a list, got {_type_name(value)}"
        item_schema = schema[0]
        for i, item in enumerate(value):
            if item is None and item_schema is not ANYTHING:
                return [f"[{i}]"], "must not be null"
            found = _problem(item, item_schema)
            if found:
                found[0].append(f"[{i}]")
                return found
        return None
    # (type() first: wire objects are plain dicts, and the Mapping ABC check is slow.)
    if type(value) is not dict and not isinstance(value, Mapping):
        return [], f"must be an object, got {_type_name(value)}"
    if isinstance(schema, _Map):
        for key, item in value.items():
            if not isinstance(key, str):
                return [], f"keys must be strings, got {_type_name(key)}"
            found = _problem(item, schema.item)
            if found:
                found[0].append(f"[{quote(key)}]")
                return found
        return None
    for key, sub in schema.items():
        if key in value:
            found = _problem(value[key], sub)
            if found:
                found[0].append(f".{key}")
                return found
    return None


def describe(kind: str, obj: Any) -> str:
    """``Kind namespace/name`` (or ``Kind name``) for messages, whatever ``obj`` holds."""
    meta = obj.get("metadata") if isinstance(obj, Mapping) else None
    if isinstance(meta, Mapping):
        name = meta.get("name")
        namespace = meta.get("namespace")
        if isinstance(name, str) and name:
            if isinstance(namespace, str) and namespace:
                return f"{kind} {namespace}/{name}"
            return f"{kind} {name}"
    return kind


def check(kind: str, obj: Any, schema: Schema, where: str = "") -> None:
    """Raise InputError when ``obj`` (a ``kind``) has a wrong-typed field."""
    label = where or describe(kind, obj)
    if not isinstance(obj, Mapping):
        raise InputError(f"{label}: must be an object, got {_type_name(obj)}")
    found = problem(obj, schema)
    if found:
        raise InputError(f"{label}: {found}")


def check_all(kind: str, objs: Any, schema: Schema, where: str) -> list[Any]:
    """Check a list of objects (``where`` names the list) and return it as a list."""
    if objs is None:
        return []
    if not isinstance(objs, (list, tuple)):
        objs = list(objs)
    for i, obj in enumerate(objs):
        check(kind, obj, schema, "" if isinstance(obj, Mapping) else f"{where}[{i}]")
    return list(objs)


# What an unchecked wrong-typed field makes Python raise somewhere in the allocator.
PYTHON_ERRORS = (AttributeError, TypeError, KeyError, IndexError, ValueError)


def first_problem(groups: list[tuple[str, Any, Schema, str]]) -> InputError | None:
    """The InputError for the first wrong-typed object of ``(kind, objects, schema, where)``
    groups, or None when every object is well-typed."""
    for kind, objs, schema, where in groups:
        try:
            check_all(kind, objs, schema, where)
        except InputError as err:
            return err
    return None

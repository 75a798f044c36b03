"""The ``device`` variable of DRA selectors, prepared once per device for many evaluations.

Upstream builds maps of attributes and capacities (grouped by domain, names without a domain
taking the driver as domain) for every evaluation; here that happens once, in
``CelDevice.from_v1``, and compiled selectors read the prepared value directly. Looking up an
unknown domain yields an empty map, as upstream's map wrapper does.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from kubedra.api.quantity import Quantity
from kubedra.api.semver import Semver


class DomainMap(dict[str, dict[str, Any]]):
    """Attributes or capacities by domain; an unknown domain reads as an empty map."""

    __slots__ = ()

    def __missing__(self, key: str) -> dict[str, Any]:
        return _EMPTY

    def put(self, name: str, driver: str, value: Any) -> None:
        """File ``value`` under the domain of the qualified ``name`` (the driver's when
        the name has no domain)."""
        domain, sep, ident = name.partition("/")
        if not sep:
            domain, ident = driver, name
        values = self.get(domain)
        if values is None:
            values = self[domain] = {}
        values[ident] = value


_EMPTY: dict[str, Any] = {}
_NO_DOMAINS = DomainMap()
"""The attributes and capacity of a driver-only view (never read, never written)."""

_SCALARS = ("int", "bool", "string", "version")
_LISTS = {"ints": "int", "bools": "bool", "strings": "string", "versions": "version"}


def _version(raw: Any) -> Semver:
    try:
        return Semver.parse(str(raw))
    except ValueError as e:
        raise ValueError(f"parse semantic version: {e}") from None


_CONVERT: dict[str, Callable[[Any], Any]] = {
    "int": int,
    "bool": bool,
    "string": str,
    "version": _version,
}
"""How a value of each attribute kind becomes its CEL value."""

# field -> (convert one element, is a list)
_FIELDS: dict[str, tuple[Callable[[Any], Any], bool]] = {
    **{kind: (_CONVERT[kind], False) for kind in _SCALARS},
    **{k: (_CONVERT[v], True) for k, v in _LISTS.items()},
}


def _attribute_value(attr: dict[str, Any]) -> Any:
    if len(attr) == 1:
        # The usual case, one value field: no need to probe the others in precedence order.
        ((field, raw),) = attr.items()
        found = _FIELDS.get(field)
        if found is not None and raw is not None:
            convert, is_list = found
            return [convert(v) for v in raw] if is_list else convert(raw)
    for key, kind in _LISTS.items():
        if attr.get(key) is not None:
            convert = _CONVERT[kind]
            return [convert(v) for v in attr[key]]
    for kind in _SCALARS:
        if attr.get(kind) is not None:
            return _CONVERT[kind](attr[kind])
    raise ValueError("unsupported attribute value")


def _capacity_value(cap: Any) -> Quantity:
    raw = (cap or {}).get("value")
    return raw if isinstance(raw, Quantity) else Quantity.parse(str(raw))


_PLAIN = {"string": str, "int": int, "bool": bool}
"""Attribute fields whose value, of this Python type, converts to CEL as it is."""


def conversion_error(device: Mapping[str, Any]) -> str | None:
    """The error ``CelDevice.from_v1`` reports for the device (its first attribute, then
    capacity, that cannot be converted), without building the CEL maps."""
    for name, attr in (device.get("attributes") or {}).items():
        if type(attr) is dict and len(attr) == 1:
            ((field, raw),) = attr.items()
            if type(raw) is _PLAIN.get(field):
                continue  # the usual case, a plain scalar: nothing that can fail
            if field == "version" and type(raw) is str:
                try:
                    _version(raw)
                except ValueError as e:
                    return f"attribute {name}: {e}"
                continue
        try:
            _attribute_value(attr or {})
        except (ValueError, TypeError) as e:
            return f"attribute {name}: {e}"
    for name, cap in (device.get("capacity") or {}).items():
        try:
            _capacity_value(cap)
        except ValueError as e:
            return f"capacity {name}: {e}"
    return None


DRIVER_FIELDS = frozenset({"driver", "allowMultipleAllocations"})
"""The device fields a view from ``CelDevice.driver_only`` presents."""


class CelDevice:
    """One device as CEL selectors see it.

    ``variables`` binds ``device`` to its CEL map; ``error`` is set when the device cannot be
    presented to CEL at all (an unparsable version attribute), which upstream reports when
    a selector is evaluated against it. ``complete`` is False for a view that presents only
    ``DRIVER_FIELDS`` (empty attributes and capacity).
    """

    __slots__ = ("complete", "driver", "error", "name", "variables")

    def __init__(
        self,
        name: str,
        driver: str,
        value: dict[str, Any],
        error: str | None,
        complete: bool = True,
    ) -> None:
        self.name = name
        self.driver = driver
        self.variables = {"device": value}
        self.error = error
        self.complete = complete

    @classmethod
    def driver_only(
        cls, device: Mapping[str, Any], driver: str, *, consumable_capacity: bool = True
    ) -> CelDevice:
        """A view for selectors that read only ``DRIVER_FIELDS``: the same ``error`` as
        ``from_v1`` (upstream reports it whatever a selector reads), without converting
        every attribute and capacity into the maps such selectors never look at."""
        value = {
            "driver": driver,
            "allowMultipleAllocations": bool(device.get("allowMultipleAllocations"))
            and consumable_capacity,
            "attributes": _NO_DOMAINS,
            "capacity": _NO_DOMAINS,
        }
        error = conversion_error(device)
        return cls(str(device.get("name", "")), driver, value, error, complete=False)

    @classmethod
    def from_v1(
        cls,
        device: Mapping[str, Any],
        driver: str,
        *,
        list_type_attributes: bool = True,
        consumable_capacity: bool = True,
    ) -> CelDevice:
        """Prepare a ``resource.k8s.io/v1`` Device JSON dict of the given driver.

        The feature flags say which device fields the allocator presents: without
        DRAListTypeAttributes list-valued attributes are left out, without
        DRAConsumableCapacity ``allowMultipleAllocations`` reads as false. The conformance
        cases evaluate selectors with both on, like the kube-scheduler's stored-expression
        environment does.
        """
        attributes = DomainMap()
        capacity = DomainMap()
        error: str | None = None
        # Runs once for every device a pod looks at (thousands per simulation).
        for name, attr in (device.get("attributes") or {}).items():
            if not list_type_attributes and any(attr.get(k) is not None for k in _LISTS):
                continue
            try:
                value = _attribute_value(attr or {})
            except (ValueError, TypeError) as e:
                error = error or f"attribute {name}: {e}"
                continue
            attributes.put(name, driver, value)
        for name, cap in (device.get("capacity") or {}).items():
            try:
                quantity = _capacity_value(cap)
            except ValueError as e:
                error = error or f"capacity {name}: {e}"
                continue
            capacity.put(name, driver, quantity)
        multi = bool(device.get("allowMultipleAllocations")) and consumable_capacity
        value = {
            "driver": driver,
            "allowMultipleAllocations": multi,
            "attributes": attributes,
            "capacity": capacity,
        }
        return cls(str(device.get("name", "")), driver, value, error)

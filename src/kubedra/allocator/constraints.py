"""Claim constraints: matchAttribute and distinctAttribute, tracked while the search runs.

Both are checked when a device is about to be added and undone on backtracking. Two upstream
behaviours are kept on purpose: distinctAttribute remembers one value per request (the most
recent, forgotten entirely when that device is taken back), also with list-type attributes,
and with list-type attributes matchAttribute narrows to the intersection of the
values seen so far and does not widen it again on backtracking.

A request may define derived attributes (KEP-6080): a constraint naming one of them compares
the value its CEL expression computes for the device instead of a published attribute
(upstream's ``lookupAttribute``); the value is cached on the device per expression.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubedra.allocator.inventory import DeviceInfo
from kubedra.cel.device import CelDevice
from kubedra.cel.errors import CelCompileError, CelError


class DerivedAttributeError(Exception):
    """A derived attribute could not be compiled or evaluated: upstream aborts allocation."""


def lookup_attribute(
    device: DeviceInfo, name: str, derived: Mapping[str, str] | None
) -> Mapping[str, Any] | None:
    """The attribute ``name`` of ``device`` for a request: the request's derived attribute of
    that name if it has one, else the published attribute (None when missing)."""
    if derived is None or name not in derived:
        return device.attrs.get(name)
    expression = derived[name]
    cache = device.derived_cache
    if cache is None:
        cache = device.derived_cache = {}
    found = cache.get(expression)
    if found is None:
        # An error aborts the allocation, so only values are cached (keyed by expression,
        # as upstream's derivedAttributesCache is).
        found = cache[expression] = _evaluate(device, name, expression)
    return found


def _evaluate(device: DeviceInfo, name: str, expression: str) -> Mapping[str, Any]:
    # Imported here: only claims with derived attributes pay for the module.
    from kubedra.cel.derived import compile_derived_attribute

    try:
        compiled = compile_derived_attribute(expression)
    except CelCompileError as error:
        raise DerivedAttributeError(f"compile derived attribute {name} failed: {error}") from None
    cel = device.cel
    if cel is None or not cel.complete:
        cel = device.cel = CelDevice.from_v1(dict(device.raw), device.driver)
    try:
        return compiled.attribute(cel)
    except CelError as error:
        raise DerivedAttributeError(
            f"evaluate derived attribute {name} on device {device.key} failed: {error}"
        ) from None


_SCALARS = ("string", "int", "bool", "version")
_LISTS = {"strings": "string", "ints": "int", "bools": "bool", "versions": "version"}

# (type, value) for scalars; (type, frozenset) for set semantics.
Scalar = tuple[str, Any]
ValueSet = tuple[str, frozenset[Any]]


def scalar_value(attr: Mapping[str, Any]) -> Scalar | None:
    for kind in _SCALARS:
        value = attr.get(kind)
        if value is not None:
            return kind, value
    return None


def set_value(attr: Mapping[str, Any]) -> ValueSet | None:
    for kind in _SCALARS:
        value = attr.get(kind)
        if value is not None:
            return kind, frozenset((value,))
    for kind, base in _LISTS.items():
        values = attr.get(kind)
        if values:
            return base, frozenset(values)
    return None


class Constraint:
    """Base: which requests a constraint applies to and the attribute it looks at."""

    __slots__ = ("attribute", "list_mode", "requests")

    def __init__(self, requests: list[str], attribute: str, list_mode: bool) -> None:
        self.requests = frozenset(requests)
        self.attribute = attribute
        self.list_mode = list_mode

    def applies(self, request: str, subrequest: str) -> bool:
        if not self.requests:
            return True
        if request in self.requests:
            return True
        return bool(subrequest) and f"{request}/{subrequest}" in self.requests

    def add(
        self,
        request: str,
        subrequest: str,
        device: DeviceInfo,
        derived: Mapping[str, str] | None = None,
    ) -> bool:
        """Whether ``device`` may join; ``derived`` are the request's derived attributes
        (name -> expression). Raises DerivedAttributeError like upstream's lookup."""
        raise NotImplementedError

    def remove(self, request: str, subrequest: str) -> None:
        raise NotImplementedError

    def describe(self) -> str:
        raise NotImplementedError


class MatchAttribute(Constraint):
    __slots__ = ("count", "current")

    def __init__(self, requests: list[str], attribute: str, list_mode: bool) -> None:
        super().__init__(requests, attribute, list_mode)
        self.count = 0
        self.current: Any = None

    def describe(self) -> str:
        return f"matchAttribute {self.attribute}"

    def add(
        self,
        request: str,
        subrequest: str,
        device: DeviceInfo,
        derived: Mapping[str, str] | None = None,
    ) -> bool:
        if not self.applies(request, subrequest):
            return True
        attr = lookup_attribute(device, self.attribute, derived)
        if attr is None:
            return False
        if self.list_mode:
            values = set_value(attr)
            if values is None:
                return False
            if self.count == 0:
                self.current = values
                self.count = 1
                return True
            kind, current = self.current
            if values[0] != kind:
                return False
            common = current & values[1]
            if not common:
                return False
            self.current = (kind, common)
            self.count += 1
            return True
        if self.count == 0:
            self.current = scalar_value(attr)
            self.count = 1
            return True
        value = scalar_value(attr)
        if value is None or self.current is None or value != self.current:
            return False
        self.count += 1
        return True

    def remove(self, request: str, subrequest: str) -> None:
        if self.applies(request, subrequest):
            self.count -= 1


class DistinctAttribute(Constraint):
    """One remembered attribute per request (the latest; backtracking forgets the request's
    entry altogether), and a new device must differ from each remembered one. With list-type
    attributes "differ" means disjoint value sets."""

    __slots__ = ("count", "seen")

    def __init__(self, requests: list[str], attribute: str, list_mode: bool) -> None:
        super().__init__(requests, attribute, list_mode)
        self.count = 0
        self.seen: dict[str, Mapping[str, Any]] = {}

    def describe(self) -> str:
        return f"distinctAttribute {self.attribute}"

    def add(
        self,
        request: str,
        subrequest: str,
        device: DeviceInfo,
        derived: Mapping[str, str] | None = None,
    ) -> bool:
        if not self.applies(request, subrequest):
            return True
        attr = lookup_attribute(device, self.attribute, derived)
        if attr is None:
            return False
        if self.count and not self._distinct(attr):
            return False
        self.seen[request] = attr
        self.count += 1
        return True

    def _distinct(self, attr: Mapping[str, Any]) -> bool:
        if self.list_mode:
            values = set_value(attr)
            if values is None:
                return False
            for existing in self.seen.values():
                other = set_value(existing)
                if other is not None and other[0] == values[0] and other[1] & values[1]:
                    return False
            return True
        value = scalar_value(attr)
        if value is None:
            return not self.seen
        return all(scalar_value(existing) != value for existing in self.seen.values())

    def remove(self, request: str, subrequest: str) -> None:
        if not self.applies(request, subrequest):
            return
        self.seen.pop(request, None)
        self.count -= 1

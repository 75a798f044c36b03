"""What a simulation result means, as data for the ``kubedra simulate`` summary.

For each claim request it lists the devices of the request's class with whether the class
and request selectors accept them, the attributes and capacities those selectors read (the
values that made a device match or not), and which device was allocated.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field
from typing import Any

from kubedra.cel import compile_selector
from kubedra.cel.device import CelDevice
from kubedra.cel.errors import CelCompileError, CelError
from kubedra.cluster.store import Store

_FIELD_REF = re.compile(
    r"device\.(attributes|capacity)\[\s*[\"']([^\"']+)[\"']\s*\]"
    r"(?:\.([A-Za-z_][A-Za-z0-9_]*)|\[\s*[\"']([^\"']+)[\"']\s*\])"
)


@dataclass(frozen=True)
class DeviceRow:
    """One device a request could have used."""

    device: str
    """``driver/pool/device``"""
    node: str
    values: dict[str, str]
    """attribute or capacity name -> value, for the names the selectors read"""
    matches: bool
    reason: str
    """why it does not match ("" when it does)"""
    allocated: bool


@dataclass
class RequestReport:
    claim: str
    request: str
    device_class: str
    selectors: list[str]
    devices: list[DeviceRow] = field(default_factory=list)
    problem: str = ""
    """Why no device can match at all (the class does not exist); ``devices`` is then empty."""


def referenced_fields(expressions: list[str]) -> list[tuple[str, str, str]]:
    """(kind, domain, name) of every ``device.attributes[...]``/``capacity[...]`` read."""
    seen: list[tuple[str, str, str]] = []
    for expression in expressions:
        for match in _FIELD_REF.finditer(expression):
            ref = (match.group(1), match.group(2), match.group(3) or match.group(4) or "")
            if ref not in seen:
                seen.append(ref)
    return seen


def _lookup(device: dict[str, Any], driver: str, kind: str, domain: str, name: str) -> str:
    table = device.get(kind) or {}
    value = table.get(f"{domain}/{name}")
    if value is None and domain == driver:
        value = table.get(name)
    if value is None:
        return "-"
    if kind == "capacity":
        return str(value.get("value", "-"))
    for key in ("string", "int", "bool", "version"):
        if key in value:
            return str(value[key]).lower() if key == "bool" else str(value[key])
    return str(value)


def _evaluate(expressions: list[str], cel: CelDevice, owner: list[str]) -> str:
    for expression, who in zip(expressions, owner, strict=True):
        try:
            if not compile_selector(expression).matches(cel):
                return f"{who} selector false"
        except (CelCompileError, CelError) as error:
            return f"{who} selector error: {error}"
    return ""


def request_reports(store: Store, max_devices: int = 20) -> list[RequestReport]:
    """One report per request of every claim that pods use, when the class is small enough."""
    slices = store.list("ResourceSlice")
    total = sum(len((s.get("spec") or {}).get("devices") or []) for s in slices)
    if total > max_devices * 10:
        return []
    reports: list[RequestReport] = []
    for claim in store.list("ResourceClaim"):
        meta = claim["metadata"]
        claim_key = f"{meta['namespace']}/{meta['name']}"
        allocation = (claim.get("status") or {}).get("allocation") or {}
        allocated = {
            (r.get("request"), r.get("driver"), r.get("pool"), r.get("device"))
            for r in (allocation.get("devices") or {}).get("results") or []
        }
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
            exactly = request.get("exactly")
            if exactly is None:
                continue
            class_name = exactly.get("deviceClassName", "")
            device_class = store.get("DeviceClass", class_name)
            if device_class is None:
                # No class, no candidates: the allocator fails the request before any device
                # is looked at, so listing every device as a match would mislead.
                problem = f"device class {class_name} does not exist"
                reports.append(
                    RequestReport(claim_key, request["name"], class_name, [], [], problem)
                )
                continue
            class_exprs = [
                (s.get("cel") or {}).get("expression", "")
                for s in (device_class.get("spec") or {}).get("selectors") or []
            ]
            request_exprs = [
                (s.get("cel") or {}).get("expression", "") for s in exactly.get("selectors") or []
            ]
            exprs = class_exprs + request_exprs
            owners = ["class"] * len(class_exprs) + ["request"] * len(request_exprs)
            report = RequestReport(claim_key, request["name"], class_name, request_exprs)
            refs = referenced_fields(exprs)
            rows: list[DeviceRow] = []
            for s in slices:
                spec = s.get("spec") or {}
                driver = spec.get("driver", "")
                pool = (spec.get("pool") or {}).get("name", "")
                node = spec.get("nodeName") or ("(all nodes)" if spec.get("allNodes") else "-")
                for device in spec.get("devices") or []:
                    cel = CelDevice.from_v1(dict(device), driver)
                    reason = _evaluate(exprs, cel, owners)
                    if reason == "class selector false":
                        continue
                    values = {
                        name: _lookup(device, driver, kind, domain, name)
                        for kind, domain, name in refs
                    }
                    key = (request["name"], driver, pool, device.get("name"))
                    rows.append(
                        DeviceRow(
                            f"{driver}/{pool}/{device.get('name')}",
                            node,
                            values,
                            not reason,
                            reason,
                            key in allocated,
                        )
                    )
                    if len(rows) > max_devices:
                        break
            if 0 < len(rows) <= max_devices:
                report.devices = rows
                reports.append(report)
    return reports


class MatchedValues:
    """For an allocated device: the values of the attributes and capacities its selectors read."""

    def __init__(self, store: Store) -> None:
        self.store = store
        self._devices: dict[tuple[str, str, str], dict[str, Any]] | None = None

    def _index(self) -> dict[tuple[str, str, str], dict[str, Any]]:
        if self._devices is None:
            self._devices = {}
            for s in self.store.list("ResourceSlice"):
                spec = s.get("spec") or {}
                driver = spec.get("driver", "")
                pool = (spec.get("pool") or {}).get("name", "")
                for device in spec.get("devices") or []:
                    self._devices[(driver, pool, device.get("name", ""))] = device
        return self._devices

    def describe(self, claim: dict[str, Any], result: dict[str, Any]) -> str:
        """``memory=24Gi model=A100`` (empty when no selector reads the device's fields)."""
        request_name = str(result.get("request", ""))
        parent, _, sub = request_name.partition("/")
        exprs: list[str] = []
        class_name = ""
        for request in ((claim.get("spec") or {}).get("devices") or {}).get("requests") or []:
            if request.get("name") != parent:
                continue
            body = request.get("exactly")
            if sub:
                body = next(
                    (s for s in request.get("firstAvailable") or [] if s.get("name") == sub), None
                )
            if body:
                class_name = body.get("deviceClassName", "")
                exprs = [
                    (s.get("cel") or {}).get("expression", "") for s in body.get("selectors") or []
                ]
        device_class = self.store.get("DeviceClass", class_name) if class_name else None
        class_exprs = [
            (s.get("cel") or {}).get("expression", "")
            for s in ((device_class or {}).get("spec") or {}).get("selectors") or []
        ]
        driver = str(result.get("driver", ""))
        device = self._index().get(
            (driver, str(result.get("pool", "")), str(result.get("device", "")))
        )
        if device is None:
            return ""
        refs = referenced_fields(exprs) or referenced_fields(class_exprs)
        return " ".join(
            f"{name}={_lookup(device, driver, kind, domain, name)}" for kind, domain, name in refs
        )

"""What a simulated cluster's devices hold: used and free devices, capacity and counters,
and the free capacity that no waiting pod shape can use (fragmentation)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from typing import Any

from kubedra.allocator.capacity import static_consumption
from kubedra.allocator.claims import RequestData
from kubedra.allocator.engine import Allocator
from kubedra.allocator.inventory import DeviceInfo
from kubedra.allocator.selectors import SelectorChain
from kubedra.api.defaults import apply_defaults
from kubedra.api.quantity import Quantity
from kubedra.cluster.simulation import Simulation

NANO = 10**9
"""The allocator's numbers are in units of 10^-9 (kubedra.allocator.quantities)."""


@dataclass
class DeviceUse:
    """One device: where it is, which classes select it, what of it is taken."""

    node: str
    driver: str
    pool: str
    name: str
    classes: list[str]
    used: bool
    capacity: dict[str, int]
    capacity_used: dict[str, int]
    usable: bool = True
    """Whether some waiting request could use what is free of it (see ``stranded``)."""

    @property
    def free(self) -> dict[str, int]:
        return {n: v - self.capacity_used.get(n, 0) for n, v in self.capacity.items()}


@dataclass
class CounterUse:
    driver: str
    pool: str
    counter_set: str
    counter: str
    total: int
    used: int


@dataclass
class Usage:
    devices: list[DeviceUse] = field(default_factory=list)
    counters: list[CounterUse] = field(default_factory=list)
    shapes: int = 0
    """How many requests decided ``DeviceUse.usable`` (0: fragmentation is undefined)."""

    def stranded(self) -> dict[str, int]:
        """Free capacity, per name, of devices no waiting request can use."""
        out: dict[str, int] = {}
        for d in self.devices:
            if not d.usable:
                for n, v in d.free.items():
                    out[n] = out.get(n, 0) + v
        return out

    def free(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for d in self.devices:
            for n, v in d.free.items():
                out[n] = out.get(n, 0) + v
        return out

    def fragmentation(self) -> dict[str, float]:
        """Stranded share of the free capacity, per capacity name (0 when none is free)."""
        free = self.free()
        stranded = self.stranded()
        return {n: (stranded.get(n, 0) / v if v else 0.0) for n, v in free.items()}


def waiting_requests(sim: Simulation, allocator: Allocator) -> list[RequestData]:
    """The (sub)requests of the unallocated claims of Pending pods."""
    claims: list[Mapping[str, Any]] = []
    for claim in sim.store.list("ResourceClaim"):
        if not (claim.get("status") or {}).get("allocation"):
            claims.append(claim)
    return requests_of(allocator, claims)


def pod_requests(
    allocator: Allocator, pod_objects: Iterable[Mapping[str, Any]], sim: Simulation
) -> list[RequestData]:
    """The requests a pod of a pod file would make: its templates' claims (from the file or
    the cluster) and the named claims it shares."""
    objs = list(pod_objects)
    local = {
        (str(o.get("kind")), str((o.get("metadata") or {}).get("name"))): o
        for o in objs
        if o.get("kind") != "Pod"
    }
    claims: list[Mapping[str, Any]] = []
    for pod in (o for o in objs if o.get("kind") == "Pod"):
        namespace = (pod.get("metadata") or {}).get("namespace") or sim.store.namespace
        for entry in (pod.get("spec") or {}).get("resourceClaims") or []:
            template_name = entry.get("resourceClaimTemplateName")
            if template_name:
                found = local.get(("ResourceClaimTemplate", str(template_name))) or sim.store.get(
                    "ResourceClaimTemplate", str(template_name), namespace
                )
                if found is not None:
                    spec = (found.get("spec") or {}).get("spec") or {}
                    meta = {"name": f"{template_name}-shape", "namespace": namespace}
                    claims.append({"metadata": meta, "spec": spec})
            elif entry.get("resourceClaimName"):
                name = str(entry["resourceClaimName"])
                found = local.get(("ResourceClaim", name)) or sim.store.get(
                    "ResourceClaim", name, namespace
                )
                if found is not None:
                    claims.append({k: v for k, v in found.items() if k != "status"})
    return requests_of(allocator, [apply_defaults(dict(c)) for c in claims])


def requests_of(allocator: Allocator, claims: Iterable[Mapping[str, Any]]) -> list[RequestData]:
    out: list[RequestData] = []
    for prepared in allocator.prepare(list(claims)):
        for slot in prepared.slots:
            out += [o for o in slot.options if o.error is None and o.chain is not None]
    return out


def _can_use(allocator: Allocator, data: RequestData, device: DeviceInfo, shared: Any) -> bool:
    """Class and selectors match and what is free of the device covers the request."""
    assert data.chain is not None
    if data.chain.evaluate(device) is not True:
        return False
    if not device.capacity:
        return True
    consumption = static_consumption(
        device, data.capacity, allocator.features.fractional_capacity_range
    )
    if consumption is None:
        return False
    for name, amount, _ in consumption:
        if amount + (shared.get(name, 0) if shared else 0) > device.capacity[name].number:
            return False
    return True


def usage(sim: Simulation, requests: list[RequestData] | None = None) -> Usage:
    """The cluster's device usage; ``requests`` (default: the waiting ones) decide which free
    devices count as usable."""
    allocator = sim.scheduler.dra.ensure_allocator()  # type: ignore[attr-defined]
    if requests is None:
        requests = waiting_requests(sim, allocator)
    state = allocator.state
    inventory = allocator.inventory
    chains = {
        name: SelectorChain([s for s in cls.selectors if s], [], allocator.features)
        for name, cls in inventory.classes.items()
    }
    result = Usage(shapes=len(requests))
    for s in inventory.slices:
        available: dict[tuple[str, str], int] = {}
        for set_name, values in s.shared_counters:
            for cname, amount in values.items():
                available[(set_name, cname)] = amount
        for device in s.devices:
            key = device.key
            shared = state.shared.get(key)
            used = key in state.in_use or shared is not None
            capacity = {n: c.number for n, c in device.capacity.items()}
            if key in state.in_use and not device.allow_multiple:
                taken = dict(capacity)
            else:
                taken = {n: v for n, v in (shared or {}).items()}
            classes = [n for n, chain in chains.items() if chain.evaluate(device) is True]
            exclusive_taken = key in state.in_use and not device.allow_multiple
            usable = not exclusive_taken and any(
                _can_use(allocator, r, device, shared) for r in requests
            )
            result.devices.append(
                DeviceUse(
                    s.node_name or "-",
                    s.driver,
                    s.pool,
                    device.name,
                    classes,
                    used,
                    capacity,
                    taken,
                    usable,
                )
            )
        if available:
            used_counters = dict.fromkeys(available, 0)
            for pool_slice in inventory.slices_by_pool.get((s.driver, s.pool), []):
                for d in pool_slice.devices:
                    if d.key in state.in_use or d.key in state.shared:
                        for k, amount in d.counter_use:
                            if k in used_counters:
                                used_counters[k] += amount
            for (set_name, cname), total in available.items():
                result.counters.append(
                    CounterUse(
                        s.driver, s.pool, set_name, cname, total, used_counters[(set_name, cname)]
                    )
                )
    return result


def quantity(value: int) -> str:
    """An allocator number (10^-9 units) as a Kubernetes quantity string."""
    if value % NANO == 0:
        units = value // NANO
        for suffix, size in (("Ti", 1024**4), ("Gi", 1024**3), ("Mi", 1024**2), ("Ki", 1024)):
            if units and units % size == 0:
                return f"{units // size}{suffix}"
        return str(units)
    return str(Quantity.parse(f"{value}n"))

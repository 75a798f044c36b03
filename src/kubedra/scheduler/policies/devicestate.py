"""A node's devices as placement policies see them: how much of each is free, and which
requests could use it, now or once a pod's allocation is added.

The allocator answers "can these claims be allocated here"; policies ask more: how much of a
device is left (a share, 0..1), and whether some other request could still use it. Both are
answered from the allocator's inventory and allocated state without changing them (a policy
looks at hypothetical states: the node after this pod).

Rules, following the allocator (``kubedra.allocator.search``):

* a device is *free* as a share: 1 or 0 for a device allocated whole; for a device handed out
  in shares (``allowMultipleAllocations`` with DRAConsumableCapacity), the smallest free
  fraction over its capacities. A device whose counters (partitionable devices) are used up
  by others is not free;
* a request *could ever* use a device when the class and request selectors select it, its
  taints are tolerated and its capacity request is one the device's request policy allows
  (``static_fit``); it *can* use it now when, in addition, the device is not allocated whole,
  its counters are available and (for shares) what the request consumes still fits.
"""

from __future__ import annotations

import json
from collections import ChainMap
from collections.abc import Container, Iterable, Mapping
from typing import Any

from kubedra.allocator.capacity import Consumption, static_consumption
from kubedra.allocator.claims import RequestData
from kubedra.allocator.features import Features
from kubedra.allocator.inventory import DeviceInfo, NodeView
from kubedra.allocator.quantities import Number, exact, parse
from kubedra.allocator.search import taint_blocks
from kubedra.allocator.selectors import SelectorChain
from kubedra.allocator.state import AllocatedState

Token = tuple[Any, ...]
"""A device's allocated state in a hashable form (see ``NodeDevices.token``)."""


def shares(device: DeviceInfo, features: Features) -> bool:
    """Whether ``device`` is handed out in shares (consumable capacity)."""
    return device.allow_multiple and features.consumable_capacity


def static_fit(data: RequestData, device: DeviceInfo, features: Features) -> Consumption | None:
    """What ``data`` consumes of ``device`` if it could ever use it (``()`` for a device taken
    whole), None when it never can (selectors, taints, capacity request policy)."""
    if data.error is not None or not isinstance(data.chain, SelectorChain):
        return None
    if not features.binding_conditions and device.binding_conditions:
        return None
    if data.chain.evaluate(device) is not True:
        return None
    if features.device_taints and device.taints and taint_blocks(device, data.tolerations):
        return None
    if not features.consumable_capacity:
        return ()
    consumption = static_consumption(device, data.capacity)
    if consumption is None:
        return None
    if not device.allow_multiple:
        if any(amount > device.capacity[name].number for name, amount, _ in consumption):
            return None
        return ()
    return consumption


class StaticFits:
    """``static_fit`` remembered per device content and request: devices published alike
    (everything but the name; selectors see only the driver, attributes and capacity, taint
    rules add taints) answer alike, and a cluster has few kinds of device. One per allocator
    inventory (a rebuilt inventory may publish other devices under the same keys)."""

    def __init__(self, features: Features) -> None:
        self.features = features
        self._content: dict[str, int] = {}
        self._contents: dict[tuple[str, str, str], int] = {}
        self._fits: dict[tuple[int, Any], Consumption | None] = {}

    def content(self, device: DeviceInfo) -> int:
        """The number of the device's published content (equal for devices alike)."""
        found = self._content.get(device.key)
        if found is None:
            published = json.dumps(
                {k: v for k, v in device.raw.items() if k != "name"}, sort_keys=True, default=str
            )
            key = (device.driver, published, repr(device.taints))
            found = self._contents.setdefault(key, len(self._contents))
            self._content[device.key] = found
        return found

    def fit(self, data: RequestData, device: DeviceInfo) -> Consumption | None:
        """``static_fit(data, device)``, remembered."""
        key = (self.content(device), request_signature(data))
        if key in self._fits:
            return self._fits[key]
        found = self._fits[key] = static_fit(data, device, self.features)
        return found


def request_signature(data: RequestData) -> Any:
    """What ``static_fit`` reads of a request, hashable."""
    chain = data.chain.chain_id if isinstance(data.chain, SelectorChain) else None
    tolerations = tuple(tuple(sorted(t.items())) for t in data.tolerations)
    return (data.error is None, chain, data.capacity_id, tolerations)


class AmountParser:
    """Parsed ``consumedCapacity`` quantities of allocation results, per policy run (the
    same few strings repeat in every result)."""

    def __init__(self) -> None:
        self._cache: dict[str, Number] = {}

    def __call__(self, raw: Any, where: str) -> Number:
        text = str(raw)
        found = self._cache.get(text)
        if found is None:
            found = exact(parse(text, where))
            self._cache[text] = found
        return found


class NodeDevices:
    """The devices of one node's pools with their allocated state, optionally once allocation
    ``results`` (v1 ``DeviceRequestAllocationResult`` dicts) are added."""

    __slots__ = ("_counters", "devices", "features", "in_use", "shared", "state", "taken")

    def __init__(
        self,
        view: NodeView,
        state: AllocatedState,
        features: Features,
        results: Iterable[Mapping[str, Any]] = (),
        amounts: AmountParser | None = None,
    ) -> None:
        self.features = features
        self.state = state
        devices: list[DeviceInfo] = []
        for pool in view.pools:
            if pool.incomplete or pool.invalid:
                continue
            for device in pool.devices:
                if device.slice.per_device and view.device_node_ok.get(id(device)) is not True:
                    continue
                devices.append(device)
        self.devices = devices
        self.in_use: Container[str] = state.in_use
        self.shared: Mapping[str, Mapping[str, Number]] = state.shared
        self.taken: set[str] = set()
        """Keys of the devices ``results`` allocate."""
        new_in_use, new_shared = self._apply(results, amounts or AmountParser())
        self._counters = _Counters(view, state, features, devices, new_in_use, new_shared)

    @classmethod
    def with_results(
        cls, base: NodeDevices, results: Iterable[Mapping[str, Any]], amounts: AmountParser
    ) -> NodeDevices:
        """``base`` once ``results`` are added, keeping its counters (for nodes whose devices
        consume none)."""
        other = base._copy()
        other._apply(results, amounts)
        return other

    def taking(self, device: DeviceInfo, consumption: Consumption) -> NodeDevices:
        """This state once ``device`` is taken (whole, or a share consuming ``consumption``);
        the counters it withdraws from other devices are not followed."""
        other = self._copy()
        other.taken.add(device.key)
        if shares(device, self.features):
            totals = dict(self.shared.get(device.key) or {})
            for name, amount, _ in consumption:
                totals[name] = totals.get(name, 0) + amount
            other.shared = ChainMap({device.key: totals}, self.shared)  # type: ignore[arg-type]
        else:
            other.in_use = _Union(self.in_use, {device.key})
        return other

    def _copy(self) -> NodeDevices:
        other = object.__new__(NodeDevices)
        other.features = self.features
        other.state = self.state
        other.devices = self.devices
        other.in_use = self.in_use
        other.shared = self.shared
        other.taken = set(self.taken)
        other._counters = self._counters
        return other

    def _apply(
        self, results: Iterable[Mapping[str, Any]], amounts: AmountParser
    ) -> tuple[set[str], dict[str, dict[str, Number]]]:
        """Add ``results`` as overlays (the cluster's allocated state is far larger than one
        node's: it is never copied); returns the devices taken whole and the new shares."""
        new_in_use: set[str] = set()
        new_shared: dict[str, dict[str, Number]] = {}
        for result in results:
            if result.get("adminAccess"):
                continue
            key = f"{result.get('driver') or ''}/{result.get('pool') or ''}/{result.get('device')}"
            self.taken.add(key)
            if self.features.consumable_capacity and result.get("shareID"):
                totals = new_shared.get(key)
                if totals is None:
                    totals = new_shared[key] = dict(self.shared.get(key) or {})
                for name, value in (result.get("consumedCapacity") or {}).items():
                    amount = amounts(value, f"consumedCapacity[{name}] of device {key}")
                    totals[name] = totals.get(name, 0) + amount
            else:
                new_in_use.add(key)
        if new_in_use:
            self.in_use = _Union(self.in_use, new_in_use)
        if new_shared:
            self.shared = ChainMap(new_shared, self.shared)  # type: ignore[arg-type]
        return new_in_use, new_shared

    @property
    def counters(self) -> bool:
        """Whether some device consumes counters (then taking one affects others)."""
        return self._counters.any

    def counters_ok(self, device: DeviceInfo) -> bool:
        """Whether the counters ``device`` consumes are still available."""
        return self._counters.ok(device)

    def free(self, device: DeviceInfo) -> float:
        """The share of ``device`` that is free, 0..1 (module docstring)."""
        key = device.key
        if key in self.in_use:
            return 0.0
        if shares(device, self.features):
            shared = self.shared.get(key)
            if shared is None:
                return 1.0 if self.counters_ok(device) else 0.0
            return min(
                (
                    float(cap.number - shared.get(name, 0)) / float(cap.number)
                    for name, cap in device.capacity.items()
                    if cap.number > 0
                ),
                default=1.0,
            )
        if key in self.shared:
            return 0.0
        return 1.0 if self.counters_ok(device) else 0.0

    def usable(self, device: DeviceInfo, consumption: Consumption) -> bool:
        """Whether a request that could ever use ``device`` (consuming ``consumption``, from
        ``static_fit``) can use it in this state."""
        key = device.key
        if key in self.in_use:
            return False
        if shares(device, self.features):
            shared = self.shared.get(key)
            if shared is None:
                return self.counters_ok(device) and all(
                    amount <= device.capacity[name].number for name, amount, _ in consumption
                )
            return all(
                shared.get(name, 0) + amount <= device.capacity[name].number
                for name, amount, _ in consumption
            )
        if key in self.shared:
            return False
        return self.counters_ok(device)

    def token(self, device: DeviceInfo) -> Token:
        """The device's allocated state, hashable: equal tokens of devices with equal static
        facts mean equal ``free`` and ``usable`` answers."""
        key = device.key
        if key in self.in_use:
            return ("used",)
        if shares(device, self.features):
            shared = self.shared.get(key)
            if shared is None:
                return ("shared", self.counters_ok(device), ())
            return ("shared", True, tuple(shared.get(name, 0) for name in device.capacity))
        if key in self.shared:
            return ("used",)
        return ("whole", self.counters_ok(device))


class _Union:
    """Membership in either of two sets, without copying the larger one."""

    __slots__ = ("base", "extra")

    def __init__(self, base: Container[str], extra: set[str]) -> None:
        self.base = base
        self.extra = extra

    def __contains__(self, key: object) -> bool:
        return key in self.extra or key in self.base


class _Counters:
    """Counter availability per pool (partitionable devices), with the counters of newly
    taken devices subtracted."""

    __slots__ = ("_available", "_partitionable", "_pools", "any")

    def __init__(
        self,
        view: NodeView,
        state: AllocatedState,
        features: Features,
        devices: list[DeviceInfo],
        new_in_use: set[str],
        new_shared: Mapping[str, Any],
    ) -> None:
        self._partitionable = features.partitionable_devices
        self._pools = view.pool_by_key
        self._available: dict[tuple[str, str], tuple[dict[tuple[str, str], Number], bool]] = {}
        self.any = any(d.counter_use for d in devices)
        if not self.any:
            return
        for pool in view.pools:
            if not pool.counter_sets:
                continue
            available, negative = state.available_counters(pool)
            adjusted = dict(available)
            for device in pool.devices:
                key = device.key
                newly = key in new_in_use or (key in new_shared and key not in state.shared)
                if device.counter_use and newly:
                    for k, amount in device.counter_use:
                        if k in adjusted:
                            adjusted[k] -= amount
            self._available[pool.key] = (
                adjusted,
                negative or any(v < 0 for v in adjusted.values()),
            )

    def ok(self, device: DeviceInfo) -> bool:
        if not device.counter_use:
            return True
        if not self._partitionable:
            return False
        found = self._available.get((device.driver, device.pool))
        if found is None:
            return (device.driver, device.pool) not in self._pools
        available, negative = found
        if negative:
            return False
        totals: dict[tuple[str, str], Number] = {}
        for k, amount in device.counter_use:
            totals[k] = totals.get(k, 0) + amount
        return all(available.get(k) is None or available[k] >= total for k, total in totals.items())

"""Device scoring policies: the order in which the search tries a request's candidates.

Upstream tries candidate devices in pool order and takes the first that fits ("first-fit",
kubernetes/enhancements#4970 is still open), so a claim for 4 GiB can take an 80 GiB GPU and
strand the pod that needed it. A policy only reorders the candidates of each request; the
search then runs every upstream check (selectors, in-use, counters, taints, constraints,
capacity, all-or-nothing per call) unchanged, so it finds a solution exactly when first-fit
does and only the choice among valid allocations differs.

Ordering (computed once per request and Allocate call, against the allocated state at the
start of the call; ties keep first-fit's pool order):

1. **unused capacity**: the sum, over the device's capacities, of what is left after this
   request: the whole capacity for an exclusively allocated device, capacity minus what is
   already shared out minus what the request consumes for a multi-allocatable one (plain
   base units, so byte-sized capacities such as memory dominate counts such as cores);
2. **unused counters**: for a partitionable device, the sum of the counters left in the
   counter sets it draws from once it is taken.

Requests under a ``distinctAttribute`` constraint keep first-fit's order (see ``_distinct``).
One upstream rule stays order-dependent: a CEL selector that fails at run time on a device
aborts the call when the search meets that device, so a policy may meet (or miss) such an
error where first-fit does not.

``best-fit`` tries the smallest of both first (packs small claims onto small or already
partly used devices), ``spread`` the largest first. Any other ranking is a ``DeviceKey``: a
function from a ``DeviceCandidate`` (the device, the request, its share free before and left
after) to a sortable key; placement policies (``kubedra.scheduler.policies``) pass theirs.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Literal

from kubedra.allocator.constraints import DistinctAttribute
from kubedra.allocator.inventory import DeviceInfo, PoolView
from kubedra.allocator.quantities import Number

if TYPE_CHECKING:
    from kubedra.allocator.claims import RequestData
    from kubedra.allocator.search import Search

DevicePolicy = Literal["first-fit", "best-fit", "spread"]
DEVICE_POLICIES: tuple[str, ...] = ("first-fit", "best-fit", "spread")

Orderer = Callable[["Search", "RequestData"], list[Any]]
"""Given the search and a request, the pools (or single-device stand-ins) to try in order."""


class DevicePool:
    """A stand-in pool holding one device, so the search's pool loop tries devices of
    different pools in any order without changes."""

    __slots__ = ("devices", "driver", "incomplete", "invalid", "key", "name")

    def __init__(self, pool: PoolView, device: DeviceInfo) -> None:
        self.driver = pool.driver
        self.name = pool.name
        self.key = pool.key
        self.incomplete = False
        self.invalid = False
        self.devices = [device]


def unused(search: Search, data: RequestData, device: DeviceInfo) -> tuple[Number, Number]:
    """(unused capacity, unused counters) if ``data`` takes ``device`` (module docstring)."""
    state = search.state
    capacity: Number = 0
    if device.capacity:
        shared = state.shared.get(device.key) if device.allow_multiple else None
        consumed: dict[str, Number] = {}
        if device.allow_multiple and search.features.consumable_capacity:
            for name, amount, _ in search.consumption(data, device) or ():
                consumed[name] = amount
        for name, cap in device.capacity.items():
            left = cap.number - consumed.get(name, 0)
            if shared is not None:
                left -= shared.get(name, 0)
            capacity += left
    counters: Number = 0
    if device.counter_use:
        pool = search.view.pool_by_key.get((device.driver, device.pool))
        if pool is not None:
            available, _ = state.available_counters(pool)
            sets = {k[0] for k, _ in device.counter_use}
            counters = sum(v for k, v in available.items() if k[0] in sets)
            counters -= sum(amount for _, amount in device.counter_use)
    return capacity, counters


def _shares(search: Search, device: DeviceInfo) -> bool:
    """Whether ``device`` is handed out in shares (consumable capacity) in this search."""
    return device.allow_multiple and search.features.consumable_capacity


def free_share(search: Search, device: DeviceInfo) -> float:
    """The share of ``device`` still free at the start of the call, 0..1: 1 or 0 for a device
    allocated whole; for one handed out in shares, the smallest free fraction over its
    capacities (the dimension that runs out first)."""
    key = device.key
    state = search.state
    if key in state.in_use:
        return 0.0
    if not _shares(search, device):
        return 0.0 if key in state.shared else 1.0
    shared = state.shared.get(key)
    if shared is None:
        return 1.0
    return min(
        (
            float(cap.number - shared.get(name, 0)) / float(cap.number)
            for name, cap in device.capacity.items()
            if cap.number > 0
        ),
        default=1.0,
    )


def left_share(search: Search, data: RequestData, device: DeviceInfo) -> float:
    """The share of ``device`` left free once ``data`` takes it (0 for a whole device)."""
    if not _shares(search, device):
        return 0.0
    consumption = search.consumption(data, device)
    if consumption is None:
        return 0.0
    shared = search.state.shared.get(device.key) or {}
    fractions = [
        float(device.capacity[name].number - shared.get(name, 0) - amount)
        / float(device.capacity[name].number)
        for name, amount, _ in consumption
        if device.capacity[name].number > 0
    ]
    return max(0.0, min(fractions, default=1.0))


class DeviceCandidate:
    """One device a request could take, as a device ranking sees it (see ``DeviceKey``).

    ``free`` and ``left`` are shares of the device (0..1) before and after the request takes
    it; ``unused`` is best-fit's (unused capacity, unused counters) in base units; ``search``
    is the Allocate call (its ``state``, ``view`` of the node's pools and ``node``)."""

    __slots__ = ("_free", "_left", "device", "request", "search")

    def __init__(self, search: Search, request: RequestData, device: DeviceInfo) -> None:
        self.search = search
        self.request = request
        self.device = device
        self._free: float | None = None
        self._left: float | None = None

    @property
    def node(self) -> str:
        return self.search.node.name

    @property
    def free(self) -> float:
        if self._free is None:
            self._free = free_share(self.search, self.device)
        return self._free

    @property
    def left(self) -> float:
        if self._left is None:
            self._left = left_share(self.search, self.request, self.device)
        return self._left

    @property
    def unused(self) -> tuple[Number, Number]:
        return unused(self.search, self.request, self.device)


DeviceKey = Callable[[DeviceCandidate], Any]
"""A device ranking: a sortable key per candidate device; the search tries the lowest first
(ties keep first-fit's pool order)."""


def smallest_left(candidate: DeviceCandidate) -> Any:
    """best-fit: the least unused capacity, then counters, once the request takes it."""
    return candidate.unused


def largest_left(candidate: DeviceCandidate) -> Any:
    """spread: the most unused capacity, then counters, once the request takes it."""
    capacity, counters = candidate.unused
    return (-capacity, -counters)


class Ordering:
    """One Allocate call's candidate order for a device ranking (a fresh one per call: the
    order depends on the allocated state at the call's start).

    A ranking whose keys depend on a request only through its capacity request may keep
    orders across calls: it has an ``orders(search, data)`` method returning a dict to keep
    them in, by ``RequestData.capacity_id`` (None: rank afresh), which the ranking empties or
    replaces when anything else its keys depend on changes."""

    def __init__(self, key: DeviceKey) -> None:
        self.key = key
        self._cache: dict[int, list[Any]] = {}
        self._orders: Callable[[Search, RequestData], dict[Any, list[Any]] | None] | None = getattr(
            key, "orders", None
        )

    def __call__(self, search: Search, data: RequestData) -> list[Any]:
        found = self._cache.get(id(data))
        if found is not None:
            return found
        if _distinct(search, data):
            self._cache[id(data)] = search.view.pools
            return search.view.pools
        kept = self._orders(search, data) if self._orders is not None else None
        if kept is not None:
            found = kept.get(data.capacity_id)
            if found is None:
                found = kept[data.capacity_id] = self._rank(search, data)
        else:
            found = self._rank(search, data)
        self._cache[id(data)] = found
        return found

    def _rank(self, search: Search, data: RequestData) -> list[Any]:
        key = self.key
        skipped: list[Any] = []
        ranked: list[tuple[Any, int, DevicePool]] = []
        for pool in search.view.pools:
            if pool.incomplete or pool.invalid:
                skipped.append(pool)
                continue
            for device in pool.devices:
                rank = key(DeviceCandidate(search, data, device))
                ranked.append((rank, len(ranked), DevicePool(pool, device)))
        ranked.sort(key=lambda r: (r[0], r[1]))
        return skipped + [r[2] for r in ranked]


def _distinct(search: Search, data: RequestData) -> bool:
    """Whether a distinctAttribute constraint applies to ``data``: upstream remembers only the
    latest device of each request there, so which sets pass depends on the order devices are
    added; such requests keep first-fit's order so that every allocation stays one upstream
    makes (and the feasibility the same)."""
    base, sub = (data.name, "") if data.parent is None else (data.parent, data.name)
    return any(
        isinstance(c, DistinctAttribute) and c.applies(base, sub)
        for c in search.constraints[data.claim_index]
    )


DEVICE_KEYS: dict[str, DeviceKey | None] = {
    "first-fit": None,
    "best-fit": smallest_left,
    "spread": largest_left,
}
"""The allocator's named device rankings (None: upstream's pool order)."""


def orderer(policy: str | DeviceKey) -> Orderer | None:
    """A fresh candidate order of ``policy`` (a name or a device ranking) for one call
    (None: upstream's pool order)."""
    if callable(policy):
        return Ordering(policy)
    if policy not in DEVICE_KEYS:
        raise ValueError(
            f"unknown device policy {policy!r}: use one of {', '.join(DEVICE_POLICIES)}"
        )
    key = DEVICE_KEYS[policy]
    return None if key is None else Ordering(key)


def check_policy(policy: str | DeviceKey) -> None:
    """Raise ValueError for an unknown policy name."""
    orderer(policy)


NODE_SCORES: tuple[str, ...] = ("most-allocated", "least-allocated")
MAX_NODE_SCORE = 100


def device_utilization(
    view_pools: list[PoolView],
    in_use: Any,
    shared: Any,
    allocations: list[dict[str, Any]] | None,
) -> tuple[int, int]:
    """(devices in use once ``allocations`` are added, devices) among a node's pools."""
    total = 0
    used = 0
    taken: set[str] = set()
    for allocation in allocations or ():
        for result in (allocation.get("devices") or {}).get("results") or []:
            taken.add(f"{result.get('driver')}/{result.get('pool')}/{result.get('device')}")
    for pool in view_pools:
        for device in pool.devices:
            total += 1
            key = device.key
            if key in in_use or key in shared or key in taken:
                used += 1
    return used, total


def node_score(mode: str, used: int, total: int) -> int:
    """MostAllocated / LeastAllocated over devices, 0..100 (0 for a node without devices)."""
    if not total:
        return 0
    if mode == "most-allocated":
        return used * MAX_NODE_SCORE // total
    return (total - used) * MAX_NODE_SCORE // total

"""The allocated state: which devices, capacity and counters are already taken.

Built from allocated claims as the kube-scheduler builds it, then kept up to date by adding
each new allocation instead of rebuilding. Every change bumps a per-pool version so that
callers can tell whether a node's devices changed since they last looked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubedra.allocator.features import Features
from kubedra.allocator.inventory import DeviceInfo, PoolView
from kubedra.allocator.quantities import Number, exact, parse


class AllocatedState:
    """Devices in use, capacity consumed on shared devices, and per-pool versions.

    Upstream's scheduler records three things (``schedulerapi.AllocatedState``): dedicated
    devices (``in_use``), the persisted shares of multi-allocatable devices (one entry per
    result with a ``shareID``, ``shares`` counts them per device) and the capacity those
    shares consume (``shared``). A share may consume nothing (a device without capacities
    reports no ``consumedCapacity``) and still makes the device allocated.
    """

    def __init__(self, features: Features) -> None:
        self.features = features
        self.in_use: set[str] = set()
        self.shared: dict[str, dict[str, Number]] = {}
        self.shares: dict[str, int] = {}
        self.pool_version: dict[tuple[str, str], int] = {}
        self.clock = 0
        self.changes: list[tuple[str, str]] = []
        self._available: dict[tuple[str, str], _Available] = {}
        # Devices changed per pool since its available counters were worked out: the next
        # look updates them for these devices only (see available_counters).
        self._touched: dict[tuple[str, str], set[str]] = {}

    def add_claims(self, claims: Iterable[Mapping[str, Any]]) -> None:
        """Add the allocation of every claim that has one (``status.allocation``)."""
        for claim in claims:
            allocation = (claim.get("status") or {}).get("allocation")
            if allocation:
                self.add_results(((allocation.get("devices") or {}).get("results")) or [])

    def add_results(self, results: Iterable[Mapping[str, Any]]) -> None:
        """Add device results of one allocation (v1 ``DeviceRequestAllocationResult`` dicts)."""
        for result in results:
            if result.get("adminAccess"):
                continue
            driver, pool, key = _device_key(result)
            if self.features.consumable_capacity and result.get("shareID"):
                self.shares[key] = self.shares.get(key, 0) + 1
                consumed = result.get("consumedCapacity")
                if consumed:
                    totals = self.shared.setdefault(key, {})
                    for name, value in consumed.items():
                        amount = exact(parse(value, f"consumedCapacity[{name}] of device {key}"))
                        totals[name] = totals.get(name, 0) + amount
            else:
                self.in_use.add(key)
            self.touch((driver, pool), key)

    def remove_results(self, results: Iterable[Mapping[str, Any]]) -> None:
        """Undo ``add_results`` for an allocation that is given back (claim deallocated)."""
        for result in results:
            if result.get("adminAccess"):
                continue
            driver, pool, key = _device_key(result)
            if self.features.consumable_capacity and result.get("shareID"):
                left = self.shares.get(key, 0) - 1
                if left > 0:
                    self.shares[key] = left
                else:
                    self.shares.pop(key, None)
                consumed = result.get("consumedCapacity")
                totals = self.shared.get(key)
                if consumed and totals is not None:
                    for name, value in consumed.items():
                        amount = exact(parse(value, f"consumedCapacity[{name}] of device {key}"))
                        totals[name] = totals.get(name, 0) - amount
                    if not any(totals.values()):
                        del self.shared[key]
            else:
                self.in_use.discard(key)
            self.touch((driver, pool), key)

    def has_share(self, key: str) -> bool:
        """Whether a persisted share of a multi-allocatable device is live (upstream's
        ``AggregatedCapacity`` or ``AllocatedSharedDeviceIDs`` names the device)."""
        return key in self.shares or key in self.shared

    def allocated(self, key: str) -> bool:
        """Upstream's ``IsDeviceAllocated``: dedicated, or with a live persisted share."""
        return key in self.in_use or key in self.shares or key in self.shared

    def touch(self, pool: tuple[str, str], device: str = "") -> None:
        """Count a change of ``pool`` (of ``device``, its ``driver/pool/device`` key; none
        given: the pool's available counters are worked out afresh)."""
        self.clock += 1
        self.pool_version[pool] = self.clock
        self.changes.append(pool)
        if pool in self._available:
            if device:
                self._touched.setdefault(pool, set()).add(device)
            else:
                del self._available[pool]
                self._touched.pop(pool, None)

    def available_counters(self, pool: PoolView) -> tuple[dict[tuple[str, str], Number], bool]:
        """Counters of the pool minus what allocated devices consume, keyed by (set, counter),
        and whether any of them is below zero (then no device of the pool can get counters)."""
        version = self.pool_version.get(pool.key, 0)
        cached = self._available.get(pool.key)
        if cached is not None:
            if cached.version == version:
                return cached.available, cached.negative
            if cached.pool is pool:
                return self._update_available(cached, version)
        available = {
            (set_name, cname): amount
            for set_name, counters in pool.counter_sets.items()
            for cname, amount in counters.items()
        }
        # IsDeviceAllocated (``allocated``) inlined: this loop runs for every pool change.
        in_use, shares, shared = self.in_use, self.shares, self.shared
        counting: dict[str, list[DeviceInfo]] = {}
        counted: set[str] = set()
        for s in pool.counter_slices:
            for d in s.devices:
                key = d.key
                if d.counter_use:
                    counting.setdefault(key, []).append(d)
                    if key in in_use or key in shares or key in shared:
                        counted.add(key)
                        for k, amount in d.counter_use:
                            if k in available:
                                available[k] -= amount
        negative = any(v < 0 for v in available.values())
        self._available[pool.key] = _Available(
            version, available, negative, pool, counting, counted
        )
        self._touched.pop(pool.key, None)
        return available, negative

    def _update_available(
        self, cached: _Available, version: int
    ) -> tuple[dict[tuple[str, str], Number], bool]:
        """The pool's available counters after the changes of the devices touched since
        they were worked out: only a device that became allocated, or stopped being so,
        moves them (a new dict: callers may still hold the old one)."""
        pool_key = cached.pool.key
        available = dict(cached.available)
        counted = cached.counted
        in_use, shares, shared = self.in_use, self.shares, self.shared
        for key in self._touched.pop(pool_key, ()):
            devices = cached.counting.get(key)
            if devices is None:
                continue
            now = key in in_use or key in shares or key in shared
            if now == (key in counted):
                continue
            if now:
                counted.add(key)
            else:
                counted.discard(key)
            sign = -1 if now else 1
            for d in devices:
                for k, amount in d.counter_use:
                    if k in available:
                        available[k] += sign * amount
        negative = any(v < 0 for v in available.values())
        self._available[pool_key] = _Available(
            version, available, negative, cached.pool, cached.counting, counted
        )
        return available, negative


class _Available:
    """A pool's available counters as of one pool version, with what updating them needs:
    the devices that consume counters (by key) and which of them are counted as allocated."""

    __slots__ = ("available", "counted", "counting", "negative", "pool", "version")

    def __init__(
        self,
        version: int,
        available: dict[tuple[str, str], Number],
        negative: bool,
        pool: PoolView,
        counting: dict[str, list[DeviceInfo]],
        counted: set[str],
    ) -> None:
        self.version = version
        self.available = available
        self.negative = negative
        self.pool = pool
        self.counting = counting
        self.counted = counted


def _device_key(result: Mapping[str, Any]) -> tuple[str, str, str]:
    """Driver, pool and the ``driver/pool/device`` key of one allocation result."""
    driver = str(result.get("driver") or "")
    pool = str(result.get("pool") or "")
    return driver, pool, f"{driver}/{pool}/{result.get('device') or ''}"

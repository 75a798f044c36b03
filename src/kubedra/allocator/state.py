"""The allocated state: which devices, capacity and counters are already taken.

Built from allocated claims as the kube-scheduler builds it, then kept up to date by adding
each new allocation instead of rebuilding. Every change bumps a per-pool version so that
callers can tell whether a node's devices changed since they last looked.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

from kubedra.allocator.features import Features
from kubedra.allocator.inventory import PoolView
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
        self._available: dict[tuple[str, str], tuple[int, dict[tuple[str, str], Number], bool]] = {}

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
            self.touch((driver, pool))

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
            self.touch((driver, pool))

    def has_share(self, key: str) -> bool:
        """Whether a persisted share of a multi-allocatable device is live (upstream's
        ``AggregatedCapacity`` or ``AllocatedSharedDeviceIDs`` names the device)."""
        return key in self.shares or key in self.shared

    def allocated(self, key: str) -> bool:
        """Upstream's ``IsDeviceAllocated``: dedicated, or with a live persisted share."""
        return key in self.in_use or key in self.shares or key in self.shared

    def touch(self, pool: tuple[str, str]) -> None:
        self.clock += 1
        self.pool_version[pool] = self.clock
        self.changes.append(pool)

    def available_counters(self, pool: PoolView) -> tuple[dict[tuple[str, str], Number], bool]:
        """Counters of the pool minus what allocated devices consume, keyed by (set, counter),
        and whether any of them is below zero (then no device of the pool can get counters)."""
        version = self.pool_version.get(pool.key, 0)
        cached = self._available.get(pool.key)
        if cached is not None and cached[0] == version:
            return cached[1], cached[2]
        available = {
            (set_name, cname): amount
            for set_name, counters in pool.counter_sets.items()
            for cname, amount in counters.items()
        }
        # IsDeviceAllocated (``allocated``) inlined: this loop runs for every pool change.
        in_use, shares, shared = self.in_use, self.shares, self.shared
        for s in pool.counter_slices:
            for d in s.devices:
                key = d.key
                if d.counter_use and (key in in_use or key in shares or key in shared):
                    for k, amount in d.counter_use:
                        if k in available:
                            available[k] -= amount
        negative = any(v < 0 for v in available.values())
        self._available[pool.key] = (version, available, negative)
        return available, negative


def _device_key(result: Mapping[str, Any]) -> tuple[str, str, str]:
    """Driver, pool and the ``driver/pool/device`` key of one allocation result."""
    driver = str(result.get("driver") or "")
    pool = str(result.get("pool") or "")
    return driver, pool, f"{driver}/{pool}/{result.get('device') or ''}"

"""Device compatibility groups (KEP-5963, gate DRADeviceCompatibilityGroups, alpha in 1.37).

Devices that draw from the same counter set may only be allocated together when the
``compatibilityGroups`` they declare for that counter set intersect; a device that declares
none goes only with others that declare none. Already allocated devices of the pool count,
their groups read from the slices as they are now (upstream's
``compatibilityGroupsBaselineForPool``).

With the gate off, upstream's allocators still skip a device that declares groups, and any
device drawing from a counter set on which an allocated device declares groups: they cannot
check those allocations, and skipping keeps the feature safe to turn on later.

Source: ``structured/internal/experimental/compatibility_groups.go`` and
``allocator_experimental.go`` of kubernetes/kubernetes at 4426859839dfc.
"""

from __future__ import annotations

from collections.abc import Callable

from kubedra.allocator.inventory import NO_GROUPS, DeviceInfo, PoolView

Groups = tuple[bool, frozenset[str]] | None
"""The running state of one counter set: None before any device is placed on it, else
(every device so far declared no groups, the intersection of the groups declared)."""


def admits(state: Groups, groups: frozenset[str]) -> bool:
    """Whether a device declaring ``groups`` may join the devices folded into ``state``."""
    if state is None:
        return True
    all_empty, common = state
    if not groups:
        return all_empty
    if all_empty:
        return False
    return bool(common & groups)


def fold(state: Groups, groups: frozenset[str]) -> Groups:
    """``state`` with one more device declaring ``groups`` (which ``admits`` accepted)."""
    if state is None:
        return (not groups, groups)
    all_empty, common = state
    if all_empty or not groups:
        return state
    return (False, common & groups)


def groups_of(device: DeviceInfo) -> tuple[tuple[str, frozenset[str]], ...]:
    """Per counter set the device consumes, the groups it declares there (empty: none)."""
    if device.declares_groups:
        return device.compat_groups
    return tuple((set_name, NO_GROUPS) for set_name, _ in device.consumes)


def baseline(pool: PoolView, allocated: Callable[[str], bool]) -> dict[str, Groups]:
    """Per counter set, the groups of the pool's devices that are already allocated."""
    out: dict[str, Groups] = {}
    for s in pool.counter_slices:
        for d in s.devices:
            if d.consumes and allocated(d.key):
                for set_name, groups in groups_of(d):
                    out[set_name] = fold(out.get(set_name), groups)
    return out


def grouped_counter_sets(pool: PoolView, allocated: Callable[[str], bool]) -> frozenset[str]:
    """The counter sets on which an allocated device of the pool declares groups."""
    return frozenset(
        set_name
        for s in pool.counter_slices
        for d in s.devices
        if d.declares_groups and allocated(d.key)
        for set_name, groups in d.compat_groups
        if groups
    )


def unverifiable(device: DeviceInfo, grouped: frozenset[str]) -> bool:
    """With the gate off: the device declares groups, or draws from a counter set where an
    allocated device does, so the allocator skips it."""
    return device.declares_groups or any(s in grouped for s, _ in device.consumes)

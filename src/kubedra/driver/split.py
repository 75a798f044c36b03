"""Splitting a pool into ResourceSlices that the apiserver accepts.

Limits of ``resource.k8s.io/v1``: a slice holds at most 128 devices, or 64 when any of its
devices has taints or consumes counters; at most 8 counter sets; and a slice holds either
devices or shared counters, never both. Devices keep their order (the allocator tries slices
and devices first-fit, so order is priority); counter sets come first, in their own slices.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

MAX_DEVICES = 128
MAX_DEVICES_WITH_TAINTS_OR_COUNTERS = 64
MAX_COUNTER_SETS = 8


@dataclass
class SliceContent:
    """What goes into one ResourceSlice besides the pool and node fields."""

    devices: list[dict[str, Any]] = field(default_factory=list)
    shared_counters: list[dict[str, Any]] = field(default_factory=list)
    per_device_node_selection: bool | None = None


def _restricted(device: dict[str, Any]) -> bool:
    return bool(device.get("taints")) or bool(device.get("consumesCounters"))


def device_limit(devices: list[dict[str, Any]]) -> int:
    """How many devices a slice holding ``devices`` may have."""
    restricted = any(_restricted(d) for d in devices)
    return MAX_DEVICES_WITH_TAINTS_OR_COUNTERS if restricted else MAX_DEVICES


def split_pool(
    devices: list[dict[str, Any]],
    shared_counters: list[dict[str, Any]] | None = None,
    per_device_node_selection: bool | None = None,
) -> list[SliceContent]:
    """The slices for one pool; an empty pool still gets one empty slice ("driver is up")."""
    slices: list[SliceContent] = []
    counters = list(shared_counters or [])
    for start in range(0, len(counters), MAX_COUNTER_SETS):
        slices.append(SliceContent(shared_counters=counters[start : start + MAX_COUNTER_SETS]))
    current: list[dict[str, Any]] = []
    restricted = False
    for device in devices:
        next_restricted = restricted or _restricted(device)
        limit = MAX_DEVICES_WITH_TAINTS_OR_COUNTERS if next_restricted else MAX_DEVICES
        if len(current) + 1 > limit:
            slices.append(SliceContent(current, [], per_device_node_selection))
            current, next_restricted = [], _restricted(device)
        current.append(device)
        restricted = next_restricted
    if current or not slices:
        slices.append(SliceContent(current, [], per_device_node_selection))
    return slices

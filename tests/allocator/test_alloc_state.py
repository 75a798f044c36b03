"""The allocated state's available counters follow every commit and release: updated for the
devices that changed, they equal the counters of a state built afresh from the same claims."""

from __future__ import annotations

from typing import Any

from alloc_builders import claim, device, device_class, node, request, slice_

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features
from kubedra.allocator.nodeselect import NodeInfo
from kubedra.allocator.quantities import exact, parse


def _slices() -> list[dict[str, Any]]:
    counters = slice_(
        "counters",
        [],
        count=2,
        sharedCounters=[{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}],
    )
    parts = slice_(
        "parts",
        [
            device(
                f"part-{i}",
                consumesCounters=[{"counterSet": "gpu-0", "counters": {"mem": {"value": "3"}}}],
            )
            for i in range(3)
        ],
        count=2,
    )
    return [counters, parts]


def _available(allocator: Allocator) -> dict[tuple[str, str], Any]:
    """The available counters of node-1's counter pool, as the search sees them."""
    view = allocator.inventory.node_view(NodeInfo.from_v1(node()))
    (pool,) = [p for p in view.pools if p.counter_sets]
    available, _ = allocator.state.available_counters(pool)
    return dict(available)


def _mem(units: int) -> dict[tuple[str, str], Any]:
    return {("gpu-0", "mem"): exact(parse(str(units), "test"))}


def test_available_counters_follow_commits_and_releases() -> None:
    features = Features()
    allocator = Allocator(features, [device_class()], _slices())
    assert _available(allocator) == _mem(8)
    held: list[Any] = []
    for name in ("a", "b"):
        outcome = allocator.allocate(node(), [claim(name, request("r"))])
        assert outcome.allocations is not None
        allocator.commit(outcome.allocations)
        held.append(outcome.allocations[0])
    # Two partitions of 3 taken: 2 left, so a third partition no longer fits.
    assert _available(allocator) == _mem(2)
    assert allocator.allocate(node(), [claim("c", request("r"))]).unschedulable
    allocator.release([held[0]])
    assert _available(allocator) == _mem(5)
    fresh = Allocator(features, [device_class()], _slices())
    fresh.commit([held[1]])
    assert _available(allocator) == _available(fresh)
    outcome = allocator.allocate(node(), [claim("c", request("r"))])
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["results"][0]["device"] == "part-0"

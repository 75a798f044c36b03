"""Upstream allocator fixes merged after the conformance pin (k8s.io/dynamic-resource-allocation
3d036712930c, 2026-07-01), each followed here.

Sources: the pull requests named in each test, and the experimental allocator
(``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/experimental/
allocator_experimental.go``) of kubernetes/kubernetes at 4426859839dfc, which carries #140435,
#140437 and #140769 (#140798 is read from its pull request).
"""

from __future__ import annotations

from typing import Any

from alloc_builders import allocate, allocated, claim, device, picked, request, result, slice_


def _counter_slice(driver: str, pool: str, limit: str = "1") -> dict[str, Any]:
    return slice_(
        f"{driver}-{pool}-counters",
        [],
        driver=driver,
        pool=pool,
        count=2,
        sharedCounters=[{"name": "mem", "counters": {"memory": {"value": limit}}}],
    )


def _consumer(name: str, amount: str = "1", **fields: Any) -> dict[str, Any]:
    use = [{"counterSet": "mem", "counters": {"memory": {"value": amount}}}]
    return device(name, consumesCounters=use, **fields)


def test_counter_caches_are_keyed_by_driver_and_pool() -> None:
    """kubernetes/kubernetes#140435 (issue #140434): two drivers publishing a pool of the same
    name keep separate counters. kubedra keys them by (driver, pool) already; before the fix
    upstream let driver A's allocated partition use up driver B's counter."""
    a, b = "a.example.com", "b.example.com"
    slices = [
        _counter_slice(a, "pool-1"),
        slice_("a-devices", [_consumer("part-0")], driver=a, pool="pool-1", count=2),
        _counter_slice(b, "pool-1"),
        slice_("b-devices", [_consumer("part-0")], driver=b, pool="pool-1", count=2),
    ]
    classes = [{"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "metadata": {"name": b}}]
    taken = allocated(claim("a-user", request("r", a)), result("r", "part-0", "pool-1", a))
    outcome = allocate(
        slices, [claim("c", request("r", b))], classes=classes, allocated_claims=[taken]
    )
    assert picked(outcome) == ["r=part-0"]
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["results"][0]["driver"] == b


def _shared_pool() -> list[dict[str, Any]]:
    # gpu-0 is multi-allocatable without capacities, so its shares consume nothing and the
    # scheduler records them by share ID alone; gpu-1 needs the same counter.
    return [
        _counter_slice("gpu.example.com", "node-1"),
        slice_(
            "devices",
            [_consumer("gpu-0", allowMultipleAllocations=True), _consumer("gpu-1")],
            count=2,
        ),
    ]


_SHARE = "9a1c5f0e-2b8d-4c36-9f7e-3d2a1b0c4e5f"


def test_a_persisted_share_without_consumed_capacity_holds_the_counters() -> None:
    """kubernetes/kubernetes#140437: a persisted share recorded only by its share ID makes the
    device allocated (``IsDeviceAllocated`` sees ``AllocatedSharedDeviceIDs``), so its counters
    are taken and another device of the counter set does not fit."""
    taken = allocated(claim("user", request("r")), result("r", "gpu-0", shareID=_SHARE))
    only_gpu_1 = 'device.attributes["gpu.example.com"].?name.orValue("") == "gpu-1"'
    c = claim("c", request("r", selectors=[{"cel": {"expression": only_gpu_1}}]))
    slices = _shared_pool()
    slices[1]["spec"]["devices"][1]["attributes"] = {"name": {"string": "gpu-1"}}
    assert allocate(slices, [c], allocated_claims=[taken]).unschedulable


def test_a_further_share_of_a_persisted_share_does_not_take_the_counters_again() -> None:
    """kubernetes/kubernetes#140437: ``deviceCapacityInUse`` recognizes the persisted share, so
    the counter check is skipped for another share of gpu-0 (before the fix: a false
    "Insufficient counters")."""
    taken = allocated(claim("user", request("r")), result("r", "gpu-0", shareID=_SHARE))
    outcome = allocate(_shared_pool(), [claim("c", request("r"))], allocated_claims=[taken])
    assert picked(outcome) == ["r=gpu-0"]


def test_no_dedicated_allocation_over_a_live_persisted_share() -> None:
    """kubernetes/kubernetes#140798 (issue #140797): the slice no longer allows multiple
    allocations of gpu-0, but a share of it is still live; gpu-0 must not be handed out
    whole, so the claim gets gpu-1. Before the fix ``deviceInUse`` did not see the share."""
    slices = [slice_("s", [device("gpu-0"), device("gpu-1")])]
    taken = allocated(claim("user", request("r")), result("r", "gpu-0", shareID=_SHARE))
    outcome = allocate(slices, [claim("c", request("r"))], allocated_claims=[taken])
    assert picked(outcome) == ["r=gpu-1"]


def test_no_dedicated_allocation_over_a_live_share_that_consumed_capacity() -> None:
    """kubernetes/kubernetes#140798 with a share that consumed part of a capacity: the whole
    device would still fit the capacity check on its own terms, so only the share blocks it."""
    gpu = device("gpu-0", capacity={"memory": "8Gi"})
    slices = [slice_("s", [gpu])]
    share = result("r", "gpu-0", shareID=_SHARE, consumedCapacity={"memory": "0"})
    taken = allocated(claim("user", request("r")), share)
    assert allocate(slices, [claim("c", request("r"))], allocated_claims=[taken]).unschedulable


def test_admin_access_may_still_use_a_device_with_a_live_share() -> None:
    """kubernetes/kubernetes#140798 extends only the non-admin guard: admin access is not
    exclusive and still gets the device."""
    slices = [slice_("s", [device("gpu-0")])]
    taken = allocated(claim("user", request("r")), result("r", "gpu-0", shareID=_SHARE))
    c = claim("c", request("r", adminAccess=True))
    outcome = allocate(slices, [c], allocated_claims=[taken])
    assert picked(outcome) == ["r=gpu-0"]


def test_all_fails_when_a_matching_device_has_run_out_of_capacity() -> None:
    """kubernetes/kubernetes#140769: mode All gathers every matching device whose own capacity
    fits the request; a multi-allocatable device whose capacity other shares used up stays in
    the list and makes the request fail. Before the fix it was left out and All succeeded
    with gpu-1 alone."""
    gpus = [
        device("gpu-0", allowMultipleAllocations=True, capacity={"slots": "1"}),
        device("gpu-1", allowMultipleAllocations=True, capacity={"slots": "1"}),
    ]
    share = result("r", "gpu-0", shareID=_SHARE, consumedCapacity={"slots": "1"})
    taken = allocated(claim("user", request("r")), share)
    c = claim("c", request("r", allocationMode="All", capacity={"requests": {"slots": "1"}}))
    assert allocate([slice_("s", gpus)], [c], allocated_claims=[taken]).unschedulable


def test_all_still_leaves_out_a_device_too_small_for_the_request() -> None:
    """kubernetes/kubernetes#140769 keeps the static check: a device whose capacity can never
    hold the request is not part of "all" (it does not match the request)."""
    gpus = [
        device("gpu-0", allowMultipleAllocations=True, capacity={"slots": "1"}),
        device("gpu-1", allowMultipleAllocations=True, capacity={"slots": "4"}),
    ]
    c = claim("c", request("r", allocationMode="All", capacity={"requests": {"slots": "2"}}))
    assert picked(allocate([slice_("s", gpus)], [c])) == ["r=gpu-1"]


def test_admin_access_to_a_partition_in_use_still_needs_its_counters() -> None:
    """kubernetes/kubernetes#140729 (open): admin access is not exempt from the counter check,
    so admin access to an allocated partitionable device fails with insufficient counters
    unless the counter set can hold the device twice. Known upstream behaviour that kubedra
    keeps until upstream changes it (docs/reference/allocator.md)."""
    devices = slice_("devices", [_consumer("gpu-0")], count=2)
    slices = [_counter_slice("gpu.example.com", "node-1", limit="1"), devices]
    taken = allocated(claim("user", request("r")), result("r", "gpu-0"))
    admin = claim("c", request("r", adminAccess=True))
    assert allocate(slices, [admin], allocated_claims=[taken]).unschedulable
    roomy = [_counter_slice("gpu.example.com", "node-1", limit="2"), devices]
    assert picked(allocate(roomy, [admin], allocated_claims=[taken])) == ["r=gpu-0"]

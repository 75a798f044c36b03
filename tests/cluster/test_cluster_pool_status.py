"""The ResourcePoolStatusRequest controller's answer (KEP-5677, 1.37).

Sources: kubernetes/kubernetes pkg/controller/resourcepoolstatusrequest/controller.go
(``calculatePoolStatus``: newest generation only, incomplete pools make it wait, counts,
sorting, limit, the Complete condition) and views.go at 46b63193b6c6 (``partitionSummary``
per (attribute, type) with the request's default attribute as a pool-wide fallback,
``shareableSummary``, the prefixed validation errors).
"""

from __future__ import annotations

from typing import Any

import pytest

from kubedra.cluster.poolstatus import PoolIncomplete, pool_statuses, request_status
from kubedra.scheduler import new_simulation

DRIVER = "gpu.example.com"


def _slice(name: str, pool: str, devices: list[dict[str, Any]], **spec: Any) -> dict[str, Any]:
    body: dict[str, Any] = {
        "driver": DRIVER,
        "nodeName": pool,
        "pool": {"name": pool, "generation": 1, "resourceSliceCount": 1},
        **spec,
    }
    if devices:
        body["devices"] = devices
    return {"kind": "ResourceSlice", "metadata": {"name": name}, "spec": body}


def _partition(name: str, profile: str, memory: str) -> dict[str, Any]:
    return {
        "name": name,
        "attributes": {"profile": {"string": profile}},
        "consumesCounters": [{"counterSet": "gpu-0", "counters": {"memory": {"value": memory}}}],
    }


def _mig_gpu(**spec: Any) -> list[dict[str, Any]]:
    """A GPU with 40Gi that can be one full device or two halves (a MIG-style pool)."""
    counters = [{"name": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}]
    devices = [
        _partition("full", "Full", "40Gi"),
        _partition("half-0", "Half", "20Gi"),
        _partition("half-1", "Half", "20Gi"),
    ]
    return [
        _slice("counters", "node-1", [], sharedCounters=counters),
        _slice("devices", "node-1", devices, **spec),
    ]


def _fix_counts(slices: list[dict[str, Any]]) -> list[dict[str, Any]]:
    for s in slices:
        s["spec"]["pool"]["resourceSliceCount"] = len(slices)
    return slices


def _claim(*devices: str, **extra: Any) -> dict[str, Any]:
    results = [{"driver": DRIVER, "pool": "node-1", "device": d, **extra} for d in devices]
    return {"status": {"allocation": {"devices": {"results": results}}}}


def test_partition_summary_counts_what_still_fits_the_counters() -> None:
    slices = _fix_counts(_mig_gpu(partitionTypeAttribute=f"{DRIVER}/profile"))
    count, [pool] = pool_statuses({"driver": DRIVER}, slices, [_claim("half-0")])
    assert count == 1
    assert pool["allocatedDevices"] == 1 and pool["availableDevices"] == 2
    # With half-0 in use, 20Gi is left: one more half fits, the full device does not.
    assert pool["partitionSummary"] == [
        {"attribute": f"{DRIVER}/profile", "type": "Full", "total": 1, "allocatable": 0},
        {"attribute": f"{DRIVER}/profile", "type": "Half", "total": 2, "allocatable": 1},
    ]
    assert "validationError" not in pool


def test_the_requests_default_attribute_applies_when_no_slice_declares_one() -> None:
    slices = _fix_counts(_mig_gpu())
    _, [plain] = pool_statuses({"driver": DRIVER}, slices, [])
    assert "partitionSummary" not in plain
    spec = {"driver": DRIVER, "defaultPartitionTypeAttribute": f"{DRIVER}/profile"}
    _, [pool] = pool_statuses(spec, slices, [])
    assert [(e["type"], e["allocatable"]) for e in pool["partitionSummary"]] == [
        ("Full", 1),
        ("Half", 2),
    ]


def test_a_partition_without_the_attribute_is_a_validation_error() -> None:
    slices = _fix_counts(_mig_gpu(partitionTypeAttribute=f"{DRIVER}/profile"))
    del slices[1]["spec"]["devices"][1]["attributes"]
    _, [pool] = pool_statuses({"driver": DRIVER}, slices, [])
    assert pool["validationError"] == (
        f'PartitionTypeMissing: device "half-0" in pool {DRIVER}/node-1 does not carry '
        f'partition type attribute "{DRIVER}/profile"'
    )
    assert "partitionSummary" not in pool and pool["totalDevices"] == 3


def test_shareable_summary_sums_capacity_and_what_shares_consume() -> None:
    shared = [
        {"name": "nic-0", "allowMultipleAllocations": True, "capacity": {"bw": {"value": "10G"}}},
        {"name": "nic-1", "allowMultipleAllocations": True, "capacity": {"bw": {"value": "10G"}}},
    ]
    share = {"shareID": "9a1c5f0e-2b8d-4c36-9f7e-3d2a1b0c4e5f", "consumedCapacity": {"bw": "4G"}}
    _, [pool] = pool_statuses(
        {"driver": DRIVER}, [_slice("s", "node-1", shared)], [_claim("nic-0", **share)]
    )
    assert pool["shareableSummary"] == {
        "fullyAvailableDevices": 1,
        "partiallyAvailableDevices": 1,
        "capacity": [{"name": "bw", "total": "20G", "consumed": "4G", "available": "16G"}],
    }


def test_taints_make_devices_unavailable_and_admin_access_is_not_allocation() -> None:
    devices = [
        {"name": "gpu-0", "taints": [{"key": "k", "effect": "NoExecute"}]},
        {"name": "gpu-1"},
    ]
    rule = {"spec": {"deviceSelector": {"device": "gpu-1"}, "taint": {"effect": "None"}}}
    _, [pool] = pool_statuses(
        {"driver": DRIVER},
        [_slice("s", "node-1", devices)],
        [_claim("gpu-1", adminAccess=True)],
        [rule],
    )
    assert (pool["unavailableDevices"], pool["allocatedDevices"], pool["availableDevices"]) == (
        1,
        0,
        1,
    )


def test_pools_are_sorted_limited_and_counted() -> None:
    slices = [_slice(f"s{i}", f"node-{i}", [{"name": "d"}]) for i in (3, 1, 2)]
    count, pools = pool_statuses({"driver": DRIVER, "limit": 2}, slices, [])
    assert count == 3
    assert [p["poolName"] for p in pools] == ["node-1", "node-2"]


def test_an_incomplete_pool_makes_the_controller_wait() -> None:
    incomplete = _slice("s", "node-1", [{"name": "d"}])
    incomplete["spec"]["pool"]["resourceSliceCount"] = 2
    with pytest.raises(PoolIncomplete, match=r"PoolIncomplete: pool gpu\.example\.com/node-1 is"):
        request_status({"spec": {"driver": DRIVER}}, [incomplete], [], [], "now")


def test_the_simulated_controller_answers_once_the_pool_is_complete() -> None:
    def slice_object(name: str, device: str) -> dict[str, Any]:
        s = _slice(name, "node-1", [{"name": device}])
        s["apiVersion"] = "resource.k8s.io/v1"
        s["spec"]["pool"]["resourceSliceCount"] = 2
        return s

    request = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "ResourcePoolStatusRequest",
        "metadata": {"name": "q"},
        "spec": {"driver": DRIVER},
    }
    sim = new_simulation()
    assert sim.load([slice_object("a", "d0"), request]) == []
    sim.run()
    assert sim.store.get("ResourcePoolStatusRequest", "q").get("status") is None  # type: ignore[union-attr]
    assert sim.load([slice_object("b", "d1")]) == []
    sim.run()
    status = sim.store.get("ResourcePoolStatusRequest", "q")["status"]  # type: ignore[index]
    assert status["pools"][0]["totalDevices"] == 2
    assert status["conditions"][0]["message"] == "Calculated status for 1 pools"

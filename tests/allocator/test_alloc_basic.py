"""Core semantics: counts, All, in-use devices, several requests and claims, errors."""

from __future__ import annotations

from alloc_builders import (
    allocate,
    allocated,
    claim,
    device,
    device_class,
    node,
    picked,
    request,
    result,
    slice_,
)

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features

GPUS = [slice_("s", [device(f"gpu-{i}") for i in range(4)])]


def test_exact_count_takes_devices_in_slice_order() -> None:
    outcome = allocate(GPUS, [claim("c", request("r", count=2))])
    assert picked(outcome) == ["r=gpu-0", "r=gpu-1"]


def test_count_defaults_to_one() -> None:
    assert picked(allocate(GPUS, [claim("c", request("r"))])) == ["r=gpu-0"]


def test_too_many_devices_is_unschedulable() -> None:
    outcome = allocate(GPUS, [claim("c", request("r", count=5))])
    assert outcome.unschedulable and outcome.error is None


def test_all_mode_takes_every_matching_device() -> None:
    outcome = allocate(GPUS, [claim("c", request("r", allocationMode="All"))])
    assert picked(outcome) == [f"r=gpu-{i}" for i in range(4)]


def test_all_mode_fails_when_one_device_is_in_use() -> None:
    busy = allocated(claim("old", request("r")), result("r", "gpu-2"))
    outcome = allocate(
        GPUS, [claim("c", request("r", allocationMode="All"))], allocated_claims=[busy]
    )
    assert outcome.unschedulable


def test_devices_in_use_are_skipped() -> None:
    busy = allocated(claim("old", request("r")), result("r", "gpu-0"))
    outcome = allocate(GPUS, [claim("c", request("r"))], allocated_claims=[busy])
    assert picked(outcome) == ["r=gpu-1"]


def test_admin_access_results_do_not_make_devices_busy() -> None:
    busy = allocated(claim("old", request("r")), result("r", "gpu-0", adminAccess=True))
    outcome = allocate(GPUS, [claim("c", request("r"))], allocated_claims=[busy])
    assert picked(outcome) == ["r=gpu-0"]


def test_claims_are_allocated_together_and_do_not_share_devices() -> None:
    outcome = allocate(GPUS, [claim("a", request("r", count=3)), claim("b", request("r"))])
    assert picked(outcome, 0) == ["r=gpu-0", "r=gpu-1", "r=gpu-2"]
    assert picked(outcome, 1) == ["r=gpu-3"]
    outcome = allocate(GPUS, [claim("a", request("r", count=3)), claim("b", request("r", count=2))])
    assert outcome.unschedulable


def test_missing_class_is_a_fatal_error_naming_the_claim() -> None:
    outcome = allocate(GPUS, [claim("c", request("r", cls="nope"), namespace="team")])
    assert outcome.error is not None and not outcome.node_local
    assert outcome.error.startswith("claim team/c, request r: could not retrieve device class nope")


def test_more_than_32_devices_per_claim_is_an_error() -> None:
    outcome = allocate(GPUS, [claim("c", request("r", count=33))])
    assert (
        outcome.error
        == "claim default/c: number of requested devices 33 exceeds the claim limit of 32"
    )


def test_admin_access_with_gate_off_is_an_error_even_when_false() -> None:
    outcome = allocate(
        GPUS,
        [claim("c", request("r", adminAccess=False))],
        features=Features(admin_access=False),
    )
    assert outcome.error is not None and "admin access is requested" in outcome.error


def test_admin_access_ignores_busy_devices_but_not_its_own_claim() -> None:
    busy = allocated(claim("old", request("r")), result("r", "gpu-0"))
    outcome = allocate(
        GPUS, [claim("c", request("r", count=2, adminAccess=True))], allocated_claims=[busy]
    )
    assert picked(outcome) == ["r=gpu-0", "r=gpu-1"]
    assert outcome.allocations is not None
    assert all(r["adminAccess"] is True for r in outcome.allocations[0]["devices"]["results"])


def test_node_local_devices_get_a_node_name_selector() -> None:
    outcome = allocate(GPUS, [claim("c", request("r"))])
    assert outcome.allocations is not None
    assert outcome.allocations[0]["nodeSelector"] == {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}
        ]
    }


def test_config_from_class_comes_before_config_from_claim() -> None:
    opaque_class = {"opaque": {"driver": "gpu.example.com", "parameters": {"from": "class"}}}
    opaque_claim = {"opaque": {"driver": "gpu.example.com", "parameters": {"from": "claim"}}}
    outcome = allocate(
        GPUS,
        [claim("c", request("a"), request("b"), config=[{"requests": ["b"], **opaque_claim}])],
        classes=[device_class(config=[opaque_class])],
    )
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["config"] == [
        {"source": "FromClass", **opaque_class},
        {"source": "FromClaim", "requests": ["b"], **opaque_claim},
    ]


def test_commit_and_release_update_the_allocated_state() -> None:
    allocator = Allocator(Features(), [device_class()], GPUS, [])
    first = allocator.allocate(node(), [claim("a", request("r", count=4))])
    assert first.allocations is not None
    allocator.commit(first.allocations)
    assert allocator.allocate(node(), [claim("b", request("r"))]).unschedulable
    allocator.release(first.allocations)
    assert picked(allocator.allocate(node(), [claim("b", request("r"))])) == ["r=gpu-0"]


def test_a_claim_without_requests_gets_an_empty_devices_object() -> None:
    # Kubernetes omits empty fields of an AllocationResult: no "results": [].
    outcome = allocate([slice_("s", [device("gpu-0")])], [claim("c")])
    assert outcome.allocations == [{"devices": {}}]

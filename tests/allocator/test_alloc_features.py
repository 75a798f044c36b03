"""Gated features: subrequests, counters, taints, consumable capacity, binding conditions."""

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


def _first_available(*subs: tuple[str, int]) -> dict[str, object]:
    return {
        "name": "pick",
        "firstAvailable": [
            {"name": name, "deviceClassName": "gpu.example.com", "count": count}
            for name, count in subs
        ],
    }


def test_first_available_falls_back_to_the_next_subrequest() -> None:
    slices = [slice_("s", [device("gpu-0"), device("gpu-1")])]
    outcome = allocate(slices, [claim("c", _first_available(("four", 4), ("one", 1)))])
    assert picked(outcome) == ["pick/one=gpu-0"]


def test_first_available_with_gate_off_is_an_error() -> None:
    slices = [slice_("s", [device("gpu-0")])]
    outcome = allocate(
        slices,
        [claim("c", _first_available(("one", 1)))],
        features=Features(prioritized_list=False),
    )
    assert outcome.error is not None and "DRAPrioritizedList feature is disabled" in outcome.error


def _partitioned() -> list[dict[str, object]]:
    counters = slice_(
        "counters",
        [],
        node_name=None,
        count=2,
        sharedCounters=[{"name": "gpu-0", "counters": {"memory": {"value": "40Gi"}}}],
    )
    parts = slice_(
        "parts",
        [
            device(
                f"part-{i}",
                consumesCounters=[
                    {"counterSet": "gpu-0", "counters": {"memory": {"value": "20Gi"}}}
                ],
            )
            for i in range(3)
        ],
        count=2,
    )
    return [counters, parts]


def test_shared_counters_limit_partitions() -> None:
    outcome = allocate(_partitioned(), [claim("c", request("r", count=2))])
    assert picked(outcome) == ["r=part-0", "r=part-1"]
    assert allocate(_partitioned(), [claim("c", request("r", count=3))]).unschedulable


def test_allocated_partitions_consume_counters() -> None:
    busy = allocated(claim("old", request("r")), result("r", "part-2"))
    outcome = allocate(_partitioned(), [claim("c", request("r", count=2))], allocated_claims=[busy])
    assert outcome.unschedulable


def test_counter_devices_need_partitionable_gate() -> None:
    outcome = allocate(
        _partitioned(),
        [claim("c", request("r"))],
        features=Features(partitionable_devices=False),
    )
    assert outcome.unschedulable


def _tainted() -> list[dict[str, object]]:
    return [
        slice_(
            "s",
            [
                device("gpu-0", taints=[{"key": "broken", "effect": "NoSchedule"}]),
                device("gpu-1", taints=[{"key": "info", "effect": "None"}]),
            ],
        )
    ]


def test_untolerated_taint_blocks_but_effect_none_does_not() -> None:
    assert picked(allocate(_tainted(), [claim("c", request("r"))])) == ["r=gpu-1"]


def test_toleration_allows_tainted_device_and_is_copied_to_the_result() -> None:
    toleration = {"key": "broken", "operator": "Exists", "effect": "NoSchedule"}
    outcome = allocate(_tainted(), [claim("c", request("r", tolerations=[toleration]))])
    assert picked(outcome) == ["r=gpu-0"]
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["results"][0]["tolerations"] == [toleration]


def test_taints_are_ignored_with_gate_off() -> None:
    outcome = allocate(
        _tainted(), [claim("c", request("r"))], features=Features(device_taints=False)
    )
    assert picked(outcome) == ["r=gpu-0"]


def _shareable(policy: dict[str, object] | None = None) -> list[dict[str, object]]:
    memory: dict[str, object] = {"value": "40Gi"}
    if policy:
        memory["requestPolicy"] = policy
    return [
        slice_("s", [device("gpu-0", allowMultipleAllocations=True, capacity={"memory": memory})])
    ]


def test_shared_device_serves_several_requests_with_share_ids() -> None:
    wants = {"requests": {"memory": "15Gi"}}
    outcome = allocate(
        _shareable(),
        [claim("a", request("r", capacity=wants)), claim("b", request("r", capacity=wants))],
    )
    assert outcome.allocations is not None
    results = [a["devices"]["results"][0] for a in outcome.allocations]
    assert [r["consumedCapacity"] for r in results] == [{"memory": "15Gi"}] * 2
    assert results[0]["shareID"] != results[1]["shareID"]
    three = [claim(n, request("r", capacity=wants)) for n in "abc"]
    assert allocate(_shareable(), three).unschedulable


def test_request_is_rounded_up_to_the_policy_step() -> None:
    policy = {"default": "1Gi", "validRange": {"min": "1Gi", "step": "4Gi"}}
    outcome = allocate(
        _shareable(policy), [claim("a", request("r", capacity={"requests": {"memory": "6Gi"}}))]
    )
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["results"][0]["consumedCapacity"] == {"memory": "9Gi"}


def test_existing_shares_consume_capacity() -> None:
    old = allocated(
        claim("old", request("r")),
        result("r", "gpu-0", shareID="x", consumedCapacity={"memory": "30Gi"}),
    )
    wants = {"requests": {"memory": "15Gi"}}
    outcome = allocate(
        _shareable(), [claim("a", request("r", capacity=wants))], allocated_claims=[old]
    )
    assert outcome.unschedulable


def test_capacity_requests_with_gate_off_are_an_error() -> None:
    outcome = allocate(
        _shareable(),
        [claim("a", request("r", capacity={"requests": {"memory": "1Gi"}}))],
        features=Features(consumable_capacity=False),
    )
    assert (
        outcome.error is not None and "DRAConsumableCapacity feature is disabled" in outcome.error
    )


def _with_binding() -> list[dict[str, object]]:
    return [
        slice_("a", [device("gpu-b", bindingConditions=["ready"], bindsToNode=True)], pool="a"),
        slice_("b", [device("gpu-p")], pool="b"),
    ]


def test_pools_with_binding_conditions_come_last_and_carry_conditions() -> None:
    outcome = allocate(_with_binding(), [claim("c", request("r", count=2))])
    assert picked(outcome) == ["r=gpu-p", "r=gpu-b"]
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["results"][1]["bindingConditions"] == ["ready"]


def test_binding_conditions_gate_off_makes_such_devices_unusable() -> None:
    outcome = allocate(
        _with_binding(),
        [claim("c", request("r", count=2))],
        features=Features(binding_conditions=False),
    )
    assert outcome.unschedulable


def test_device_taint_rules_taint_the_devices_they_select() -> None:
    rule = {
        "apiVersion": "resource.k8s.io/v1alpha3",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "maintenance"},
        "spec": {
            "deviceSelector": {"driver": "gpu.example.com", "device": "gpu-0"},
            "taint": {"key": "maintenance", "effect": "NoSchedule"},
        },
    }
    slices = [slice_("s", [device("gpu-0"), device("gpu-1")])]
    allocator = Allocator(Features(), [device_class()], slices, [], [rule])
    assert picked(allocator.allocate(node(), [claim("c", request("r"))])) == ["r=gpu-1"]


def test_share_ids_are_drawn_for_the_solution_only() -> None:
    # r1 first takes a share of gpu-0 (model a); r2 then fits neither gpu-0 (5Gi left) nor
    # gpu-1 (another model), so the search backtracks and puts both shares on gpu-1.
    memory = {"memory": {"value": "20Gi"}}
    big = {"memory": {"value": "40Gi"}}
    slices = [
        slice_(
            "s",
            [
                device("gpu-0", allowMultipleAllocations=True, capacity=memory, attrs={"m": "a"}),
                device("gpu-1", allowMultipleAllocations=True, capacity=big, attrs={"m": "b"}),
            ],
        )
    ]
    wants = {"requests": {"memory": "15Gi"}}
    drawn: list[str] = []

    def share_ids() -> str:
        drawn.append(f"share-{len(drawn)}")
        return drawn[-1]

    allocator = Allocator(Features(), [device_class()], slices, share_ids=share_ids)
    together = claim(
        "a",
        request("r1", capacity=wants),
        request("r2", capacity=wants),
        constraints=[{"matchAttribute": "gpu.example.com/m"}],
    )
    outcome = allocator.allocate(node(), [together])
    assert picked(outcome) == ["r1=gpu-1", "r2=gpu-1"]
    assert outcome.allocations is not None
    results = outcome.allocations[0]["devices"]["results"]
    assert [r["shareID"] for r in results] == ["share-0", "share-1"]
    assert drawn == ["share-0", "share-1"]

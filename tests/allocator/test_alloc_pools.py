"""Node access, pool generations, incomplete and invalid pools, search order."""

from __future__ import annotations

from alloc_builders import allocate, claim, device, node, picked, request, slice_

from kubedra.allocator.features import Features


def _zone_selector(zone: str) -> dict[str, object]:
    return {
        "nodeSelectorTerms": [
            {
                "matchExpressions": [
                    {"key": "zone", "operator": "In", "values": [zone]},
                ]
            }
        ]
    }


def test_slices_of_other_nodes_are_invisible() -> None:
    slices = [slice_("other", [device("gpu-0")], pool="node-2", node_name="node-2")]
    assert allocate(slices, [claim("c", request("r"))]).unschedulable


def test_node_selector_slice_is_used_and_copied_into_the_result() -> None:
    slices = [
        slice_(
            "net", [device("gpu-0")], pool="net", node_name=None, nodeSelector=_zone_selector("a")
        )
    ]
    outcome = allocate(slices, [claim("c", request("r"))], target=node("node-1", zone="a"))
    assert outcome.allocations is not None
    assert outcome.allocations[0]["nodeSelector"] == _zone_selector("a")
    assert allocate(slices, [claim("c", request("r"))], target=node("n", zone="b")).unschedulable


def test_all_nodes_slice_needs_no_node_selector() -> None:
    slices = [slice_("net", [device("gpu-0")], pool="net", node_name=None, allNodes=True)]
    outcome = allocate(slices, [claim("c", request("r"))])
    assert outcome.allocations is not None
    assert "nodeSelector" not in outcome.allocations[0]


def test_per_device_node_selection_checks_each_device() -> None:
    slices = [
        slice_(
            "net",
            [device("gpu-0", nodeName="node-2"), device("gpu-1", nodeName="node-1")],
            pool="net",
            node_name=None,
            perDeviceNodeSelection=True,
        )
    ]
    assert picked(allocate(slices, [claim("c", request("r"))])) == ["r=gpu-1"]
    disabled = Features(partitionable_devices=False)
    assert allocate(slices, [claim("c", request("r"))], features=disabled).unschedulable


def test_newer_generation_replaces_older_slices() -> None:
    slices = [
        slice_("old", [device("gpu-old")], generation=1),
        slice_("new", [device("gpu-new")], generation=2),
    ]
    assert picked(allocate(slices, [claim("c", request("r"))])) == ["r=gpu-new"]


def test_incomplete_pool_is_skipped_but_fails_mode_all() -> None:
    slices = [
        slice_("a", [device("gpu-0")], pool="half", count=2),
        slice_("b", [device("gpu-1")], pool="full"),
    ]
    assert picked(allocate(slices, [claim("c", request("r"))])) == ["r=gpu-1"]
    outcome = allocate(slices, [claim("c", request("r", allocationMode="All"))])
    assert outcome.error is not None and not outcome.node_local
    assert "resource pool gpu.example.com/half is currently being updated" in outcome.error


def test_invalid_pool_only_rules_out_the_node_when_nothing_fits() -> None:
    slices = [
        slice_("a", [device("gpu-0"), device("gpu-0")], pool="dup"),
        slice_("b", [device("gpu-1")], pool="ok"),
    ]
    assert picked(allocate(slices, [claim("c", request("r"))])) == ["r=gpu-1"]
    outcome = allocate(slices, [claim("c", request("r", count=2))])
    assert outcome.error == "invalid resource pools were encountered"
    assert outcome.node_local


def test_pools_are_searched_by_driver_then_name_and_slices_by_name() -> None:
    slices = [
        slice_("z", [device("gpu-z")], pool="b-pool"),
        slice_("y", [device("gpu-y")], pool="a-pool", count=2),
        slice_("x", [device("gpu-x")], pool="a-pool", count=2),
    ]
    outcome = allocate(slices, [claim("c", request("r", allocationMode="All"))])
    assert picked(outcome) == ["r=gpu-x", "r=gpu-y", "r=gpu-z"]


def test_conservative_implementation_keeps_slice_order() -> None:
    slices = [
        slice_("y", [device("gpu-y")], count=2),
        slice_("x", [device("gpu-x")], count=2),
    ]
    legacy = Features(
        consumable_capacity=False, binding_conditions=False, list_type_attributes=False
    )
    outcome = allocate(slices, [claim("c", request("r"))], features=legacy)
    assert picked(outcome) == ["r=gpu-y"]
    assert picked(allocate(slices, [claim("c", request("r"))])) == ["r=gpu-x"]


def _counter_pool_of(node_name: str, slice_count: int) -> list[dict[str, object]]:
    """A partitionable pool of ``node_name``: a counter slice and a slice with two
    partitions, only one of which fits the counters."""
    counters = slice_(
        f"{node_name}-counters",
        [],
        pool=node_name,
        node_name=node_name,
        count=slice_count,
        sharedCounters=[{"name": "set", "counters": {"mem": {"value": "1"}}}],
    )
    parts = slice_(
        f"{node_name}-parts",
        [
            device(
                f"part-{i}",
                consumesCounters=[{"counterSet": "set", "counters": {"mem": {"value": "1"}}}],
            )
            for i in range(2)
        ],
        pool=node_name,
        node_name=node_name,
        count=slice_count,
    )
    return [counters, parts]


def test_counter_slices_of_other_nodes_only_matter_to_the_conservative_implementation() -> None:
    # node-2's pool is incomplete. The newer implementations never see it from node-1; the
    # conservative one takes every slice with shared counters and meets the incomplete pool.
    slices = [slice_("mine", [device("gpu-0")]), *_counter_pool_of("node-2", slice_count=3)]
    wants_all = [claim("c", request("r", allocationMode="All"))]
    assert picked(allocate(slices, wants_all)) == ["r=gpu-0"]
    legacy = Features(
        consumable_capacity=False, binding_conditions=False, list_type_attributes=False
    )
    outcome = allocate(slices, wants_all, features=legacy)
    assert outcome.error is not None
    assert "resource pool gpu.example.com/node-2 is currently being updated" in outcome.error


def test_counter_slice_found_when_the_pool_is_incomplete_without_it() -> None:
    # The counter slice targets no node of its own (allNodes would make it relevant), so it
    # is found through the pool's slice count and its counters still apply.
    counters, parts = _counter_pool_of("node-1", slice_count=2)
    counters["spec"].pop("nodeName")
    counters["spec"]["nodeSelector"] = {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-9"]}]}
        ]
    }
    outcome = allocate([counters, parts], [claim("c", request("r"))])
    assert picked(outcome) == ["r=part-0"]
    assert allocate([counters, parts], [claim("c", request("r", count=2))]).unschedulable


def test_binds_to_node_pins_the_result_except_in_the_conservative_implementation() -> None:
    slices = [
        slice_(
            "net",
            [device("gpu-0", bindsToNode=True)],
            pool="net",
            node_name=None,
            nodeSelector=_zone_selector("a"),
        )
    ]
    claims = [claim("c", request("r"))]
    target = node("node-1", zone="a")
    pinned = allocate(slices, claims, target=target)
    assert pinned.allocations is not None
    assert pinned.allocations[0]["nodeSelector"] == {
        "nodeSelectorTerms": [
            {"matchFields": [{"key": "metadata.name", "operator": "In", "values": ["node-1"]}]}
        ]
    }
    legacy = Features(
        consumable_capacity=False, binding_conditions=False, list_type_attributes=False
    )
    shared = allocate(slices, claims, target=target, features=legacy)
    assert shared.allocations is not None
    assert shared.allocations[0]["nodeSelector"] == _zone_selector("a")

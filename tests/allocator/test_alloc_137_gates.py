"""The allocator under each 1.37 gate: DRAOptionalNodeOperations (KEP-5945),
DRADeviceCompatibilityGroups (KEP-5963), DRADerivedAttributes (KEP-6080) and
DRAFractionalCapacityRange.

Source: ``staging/src/k8s.io/dynamic-resource-allocation/structured/internal/experimental/
allocator_experimental.go`` and ``compatibility_groups.go`` of kubernetes/kubernetes at
4426859839dfc (the implementation that carries the 1.37 alpha gates), its ``incubating``
sibling at the same commit (which ignores ``skipNodeOperations`` and refuses derived attributes),
and ``consumable_capacity.go`` (``useMilli``, ``roundUpRange``) at 0c8a1b073dc3.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

import pytest
from alloc_builders import allocate, allocated, claim, device, node, picked, request, result, slice_

from kubedra.allocator.features import Features

# A 1.37 scheduler whose alpha gates are named per test; list-type attributes off, so that
# without an alpha gate upstream's "incubating" implementation runs.
BASE = Features(list_type_attributes=False)
SKIP_ON = replace(BASE, optional_node_operations=True)
GROUPS_ON = replace(BASE, compatibility_groups=True)
DERIVED_ON = replace(BASE, derived_attributes=True)


def _declaring(name: str = "node-1") -> dict[str, Any]:
    out = node(name)
    out["status"] = {"declaredFeatures": ["DRAOptionalNodeOperations"]}
    return out


def _skipping_slice() -> list[dict[str, Any]]:
    return [slice_("s", [device("gpu-0")], skipNodeOperations=["*"])]


# ----- DRAOptionalNodeOperations (KEP-5945) -----------------------------------------------


def test_skip_node_operations_are_copied_into_the_result() -> None:
    """With the gate on and a node that declares the feature, the device is allocated and the
    result carries a copy of the slice's list (``SkipNodeOperations: internal.slice...``)."""
    outcome = allocate(
        _skipping_slice(), [claim("c", request("r"))], features=SKIP_ON, target=_declaring()
    )
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["results"][0]["skipNodeOperations"] == ["*"]


def test_a_node_that_does_not_declare_the_feature_gets_no_such_device() -> None:
    """``allocateDevice``: "Device requires DRAOptionalNodeOperations but node lacks it"."""
    slices = [*_skipping_slice(), slice_("t", [device("gpu-1")], pool="other")]
    outcome = allocate(slices, [claim("c", request("r"))], features=SKIP_ON)
    assert picked(outcome) == ["r=gpu-1"]


def test_with_the_gate_off_the_newest_implementation_refuses_such_devices() -> None:
    """Another alpha gate picks the experimental implementation, which refuses the device
    when DRAOptionalNodeOperations is off, even on a declaring node."""
    features = replace(BASE, derived_attributes=True)
    outcome = allocate(
        _skipping_slice(), [claim("c", request("r"))], features=features, target=_declaring()
    )
    assert outcome.unschedulable


def test_without_alpha_gates_the_field_is_ignored() -> None:
    """The incubating implementation (no alpha gate on) neither refuses the device nor copies
    the list into the result."""
    outcome = allocate(_skipping_slice(), [claim("c", request("r"))], features=BASE)
    assert outcome.allocations is not None
    assert "skipNodeOperations" not in outcome.allocations[0]["devices"]["results"][0]


# ----- DRADeviceCompatibilityGroups (KEP-5963) --------------------------------------------


def _partition(name: str, groups: list[str] | None) -> dict[str, Any]:
    use: dict[str, Any] = {"counterSet": "gpu-0", "counters": {"mem": {"value": "1"}}}
    if groups is not None:
        use["compatibilityGroups"] = groups
    return device(name, consumesCounters=[use])


def _gpu(*partitions: dict[str, Any]) -> list[dict[str, Any]]:
    counters = [{"name": "gpu-0", "counters": {"mem": {"value": "8"}}}]
    return [
        slice_("counters", [], count=2, sharedCounters=counters),
        slice_("partitions", list(partitions), count=2),
    ]


def test_devices_with_disjoint_groups_are_not_allocated_together() -> None:
    """``compatibilityGroupIntersection.admits``: mig and mps partitions of one GPU share no
    group, so two requests get two mig partitions, skipping the mps one in between."""
    slices = _gpu(
        _partition("mig-0", ["mig"]),
        _partition("mps-0", ["mps"]),
        _partition("mig-1", ["mig", "x"]),
    )
    c = claim("c", request("a"), request("b"))
    assert picked(allocate(slices, [c], features=GROUPS_ON)) == ["a=mig-0", "b=mig-1"]


def test_a_device_without_groups_only_joins_devices_without_groups() -> None:
    """KEP nil semantics: a device declaring no groups is co-allocatable only with devices
    that declare none."""
    slices = _gpu(
        _partition("plain-0", None), _partition("mig-0", ["mig"]), _partition("plain-1", None)
    )
    c = claim("c", request("a"), request("b"))
    assert picked(allocate(slices, [c], features=GROUPS_ON)) == ["a=plain-0", "b=plain-1"]


def test_allocated_devices_count_as_members() -> None:
    """``compatibilityGroupsBaselineForPool``: an allocated mig partition rules out the mps one
    for later claims."""
    slices = _gpu(_partition("mig-0", ["mig"]), _partition("mps-0", ["mps"]))
    taken = allocated(claim("user", request("r")), result("r", "mig-0"))
    assert allocate(
        slices, [claim("c", request("r"))], allocated_claims=[taken], features=GROUPS_ON
    ).unschedulable


def test_with_the_gate_off_grouped_devices_are_skipped() -> None:
    """``skipForDisabledCompatibilityGroups`` (every implementation): a device that declares
    groups is never allocated while the gate is off; a plain one still is."""
    slices = _gpu(_partition("mig-0", ["mig"]), _partition("plain-0", None))
    assert picked(allocate(slices, [claim("c", request("r"))], features=BASE)) == ["r=plain-0"]


def test_with_the_gate_off_a_counter_set_with_a_grouped_allocation_is_skipped() -> None:
    """...and any device of a counter set on which an allocated device declares groups."""
    slices = _gpu(_partition("mig-0", ["mig"]), _partition("plain-0", None))
    taken = allocated(claim("user", request("r")), result("r", "mig-0"))
    assert allocate(
        slices, [claim("c", request("r"))], allocated_claims=[taken], features=BASE
    ).unschedulable


# ----- DRADerivedAttributes (KEP-6080) ----------------------------------------------------


def _numa_devices() -> list[dict[str, Any]]:
    # The GPUs publish "topology" strings, the NICs a plain numa number.
    return [
        slice_(
            "s",
            [
                device("gpu-0", attrs={"kind": "gpu", "topology": "numa-0"}),
                device("gpu-1", attrs={"kind": "gpu", "topology": "numa-1"}),
                device("nic-1", attrs={"kind": "nic", "numa": 1}),
            ],
        )
    ]


def _kind(kind: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": f'device.attributes["gpu.example.com"].kind == "{kind}"'}}]


def _numa_claim() -> dict[str, Any]:
    gpu_numa = 'int(device.attributes["gpu.example.com"].topology.split("-")[1])'
    gpu = request(
        "gpu",
        selectors=_kind("gpu"),
        derivedAttributes=[{"name": "derived/numa", "expression": gpu_numa}],
    )
    nic = request(
        "nic",
        selectors=_kind("nic"),
        derivedAttributes=[
            {"name": "derived/numa", "expression": 'device.attributes["gpu.example.com"].numa'}
        ],
    )
    return claim("c", gpu, nic, constraints=[{"matchAttribute": "derived/numa"}])


def test_constraints_compare_derived_attributes() -> None:
    """``lookupAttribute``: each request's derived attribute is evaluated on its devices and
    compared like a published one, so the GPU on NUMA node 1 goes with the NIC."""
    assert picked(allocate(_numa_devices(), [_numa_claim()], features=DERIVED_ON)) == [
        "gpu=gpu-1",
        "nic=nic-1",
    ]


def test_derived_attributes_with_the_gate_off_are_an_error() -> None:
    """``validateDeviceRequest``: refused rather than silently ignored."""
    outcome = allocate(_numa_devices(), [_numa_claim()], features=BASE)
    assert outcome.error == (
        "claim default/c, request gpu: cannot handle request with derived attributes, "
        "the feature is disabled"
    )


def test_a_failing_derived_attribute_aborts_the_allocation() -> None:
    """A CEL runtime error aborts allocation ("evaluate derived attribute %s on device %s
    failed: %w") instead of skipping the device."""
    broken = request(
        "r",
        derivedAttributes=[
            {"name": "derived/x", "expression": 'device.attributes["gpu.example.com"].missing'}
        ],
    )
    c = claim("c", broken, constraints=[{"matchAttribute": "derived/x"}])
    outcome = allocate(_numa_devices(), [c], features=DERIVED_ON)
    assert outcome.error is not None
    assert outcome.error.startswith(
        "evaluate derived attribute derived/x on device gpu.example.com/node-1/gpu-0 failed: "
        "no such key: missing"
    )


def test_an_unsupported_derived_value_is_an_error() -> None:
    broken = request("r", derivedAttributes=[{"name": "derived/x", "expression": "1.5"}])
    c = claim("c", broken, constraints=[{"matchAttribute": "derived/x"}])
    outcome = allocate(_numa_devices(), [c], features=DERIVED_ON)
    assert outcome.error == (
        "evaluate derived attribute derived/x on device gpu.example.com/node-1/gpu-0 failed: "
        "unsupported CEL return type: float64"
    )


# ----- DRAFractionalCapacityRange ---------------------------------------------------------


def _fractional_device() -> dict[str, Any]:
    policy = {"default": "100m", "validRange": {"min": "100m", "max": "2", "step": "100m"}}
    return device(
        "gpu-0",
        allowMultipleAllocations=True,
        capacity={"compute": {"value": "2", "requestPolicy": policy}},
    )


@pytest.mark.parametrize(
    ("gate", "consumed"),
    [
        # Milli-units: 250m rounds up to the next 100m step.
        (True, "300m"),
        # Whole units: Value() rounds every quantity up to 1, step 1, so 250m consumes 1.
        (False, "1"),
    ],
)
def test_a_fractional_step_rounds_in_milli_units_only_with_the_gate(
    gate: bool, consumed: str
) -> None:
    features = replace(BASE, fractional_capacity_range=gate)
    c = claim("c", request("r", capacity={"requests": {"compute": "250m"}}))
    outcome = allocate([slice_("s", [_fractional_device()])], [c], features=features)
    assert outcome.allocations is not None
    assert outcome.allocations[0]["devices"]["results"][0]["consumedCapacity"] == {
        "compute": consumed
    }

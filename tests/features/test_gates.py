"""The DRA feature-gate table per release and ``--feature-gates`` parsing, as kube-scheduler."""

from __future__ import annotations

import pytest

from kubedra.allocator.features import Features
from kubedra.features import (
    SUPPORTED,
    FeatureGateError,
    FeatureGates,
    ReleaseError,
    Stage,
    default_gates,
    parse_feature_gates,
    parse_version,
    spec_at,
)

# (gate, release) -> (stage, default), from the feature-gate pages of kubernetes/website
# (content/en/docs/reference/command-line-tools-reference/feature-gates/<Gate>.md).
DOCUMENTED = {
    ("DRAConsumableCapacity", "1.35"): (Stage.ALPHA, False),
    ("DRAConsumableCapacity", "1.36"): (Stage.BETA, True),
    ("DRADeviceTaints", "1.35"): (Stage.ALPHA, False),
    ("DRADeviceTaints", "1.36"): (Stage.BETA, True),
    ("DRADeviceTaints", "1.37"): (Stage.GA, True),
    ("DRADeviceTaintRules", "1.35"): (Stage.ALPHA, False),
    ("DRADeviceTaintRules", "1.36"): (Stage.BETA, False),
    ("DRADeviceTaintRules", "1.37"): (Stage.GA, True),
    ("DRAExtendedResource", "1.34"): (Stage.ALPHA, False),
    ("DRAExtendedResource", "1.36"): (Stage.BETA, True),
    ("DRAPartitionableDevices", "1.35"): (Stage.ALPHA, False),
    ("DRAPartitionableDevices", "1.36"): (Stage.BETA, True),
    ("DRAListTypeAttributes", "1.36"): (Stage.ALPHA, False),
    ("DRAAdminAccess", "1.34"): (Stage.BETA, True),
    ("DRAAdminAccess", "1.36"): (Stage.GA, True),
    ("DRAPrioritizedList", "1.34"): (Stage.BETA, True),
    ("DRAPrioritizedList", "1.36"): (Stage.GA, True),
    ("DRAResourceClaimDeviceStatus", "1.34"): (Stage.BETA, True),
    ("DRASchedulerFilterTimeout", "1.34"): (Stage.BETA, True),
    ("DRADeviceBindingConditions", "1.35"): (Stage.ALPHA, False),
    ("DRADeviceBindingConditions", "1.36"): (Stage.BETA, True),
    ("DynamicResourceAllocation", "1.34"): (Stage.GA, True),
}


@pytest.mark.parametrize(("gate", "release"), sorted(DOCUMENTED))
def test_table_matches_the_documentation(gate: str, release: str) -> None:
    spec = spec_at(gate, release)
    assert spec is not None
    assert (spec.stage, spec.default) == DOCUMENTED[(gate, release)]


def test_gates_appear_in_their_first_release_only() -> None:
    assert spec_at("DRAListTypeAttributes", "1.35") is None
    assert spec_at("DRADeviceTaintRules", "1.34") is None
    assert "DRADerivedAttributes" not in default_gates("1.36")
    assert "DRADerivedAttributes" in default_gates("1.37")
    for release in SUPPORTED:
        assert default_gates(release)["DynamicResourceAllocation"] is True


def test_parse_version() -> None:
    assert parse_version("1.36") == "1.36"
    assert parse_version("v1.35.2") == "1.35"
    assert parse_version("1.37.0-rc.1") == "1.37"
    with pytest.raises(ReleaseError, match=r"kubedra models 1\.34 to 1\.37"):
        parse_version("1.33")
    with pytest.raises(ReleaseError, match=r"expected MAJOR\.MINOR"):
        parse_version("latest")


def test_flag_parsing_messages_are_component_base_ones() -> None:
    assert parse_feature_gates("A=true, B=false,,C=1") == {"A": True, "B": False, "C": True}
    with pytest.raises(FeatureGateError, match=r"^missing bool value for A$"):
        parse_feature_gates("A")
    with pytest.raises(FeatureGateError) as excinfo:
        parse_feature_gates("A=yes")
    assert str(excinfo.value) == (
        'invalid value of A=yes, err: strconv.ParseBool: parsing "yes": invalid syntax'
    )


def test_unknown_and_locked_gates_are_refused() -> None:
    with pytest.raises(FeatureGateError, match=r"^unrecognized feature gate: DRAFoo$"):
        FeatureGates.for_release("1.36", "DRAFoo=true")
    # A gate of a later release is unknown to the earlier one's binaries.
    with pytest.raises(FeatureGateError, match="unrecognized feature gate: DRAListTypeAttributes"):
        FeatureGates.for_release("1.35", {"DRAListTypeAttributes": True})
    with pytest.raises(FeatureGateError) as excinfo:
        FeatureGates.for_release("1.36", "DRAAdminAccess=false")
    assert str(excinfo.value) == (
        "cannot set feature gate DRAAdminAccess to false, feature is locked to true"
    )
    # Not locked in 1.35 (beta): it can be turned off there.
    assert not FeatureGates.for_release("1.35", "DRAAdminAccess=false").enabled("DRAAdminAccess")


def test_overrides_all_alpha_and_ga_warning() -> None:
    gates = FeatureGates.for_release("1.36", "AllAlpha=true,DRAListTypeAttributes=false")
    assert gates.enabled("DRANodeAllocatableResources")  # alpha in 1.36, switched on
    assert not gates.enabled("DRAListTypeAttributes")  # named gates win over AllAlpha
    assert not gates.enabled("DRADeviceTaintRules")  # beta, AllAlpha leaves it alone
    on = FeatureGates.for_release("1.37", "DRADeviceTaints=false")
    assert on.warnings == (
        "Setting GA feature gate DRADeviceTaints=false. It will be removed in a future release.",
    )


def test_allocator_features_follow_the_release() -> None:
    old = FeatureGates.for_release("1.34").allocator_features()
    assert old == Features(
        admin_access=True,
        prioritized_list=True,
        partitionable_devices=False,
        device_taints=False,
        binding_conditions=False,
        consumable_capacity=False,
        list_type_attributes=False,
    )
    assert old.conservative
    new = FeatureGates.for_release("1.36").allocator_features()
    assert new.consumable_capacity and new.partitionable_devices and new.device_taints
    assert not new.list_type_attributes
    custom = FeatureGates.for_release("1.36", "DRAListTypeAttributes=true")
    assert custom.allocator_features().list_type_attributes

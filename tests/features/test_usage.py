"""Which DRA features objects use, and the lines validate/simulate/explain print about them."""

from __future__ import annotations

from typing import Any

from kubedra.features import FeatureGates, describe_feature_usage, feature_warnings, gates_used


def _claim(name: str, request: dict[str, Any], namespace: str = "ml") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": namespace},
        "spec": {"devices": {"requests": [{"name": "gpu", **request}]}},
    }


SHARED = _claim(
    "train",
    {"exactly": {"deviceClassName": "gpu", "capacity": {"requests": {"memory": "10Gi"}}}},
)
PRIORITIZED = _claim(
    "either",
    {"firstAvailable": [{"name": "big", "deviceClassName": "gpu", "tolerations": [{}]}]},
)
SLICE = {
    "apiVersion": "resource.k8s.io/v1",
    "kind": "ResourceSlice",
    "metadata": {"name": "node-1-gpu"},
    "spec": {
        "driver": "gpu.example.com",
        "sharedCounters": [{"name": "gpu-0", "counters": {}}],
        "devices": [
            {"name": "a", "attributes": {"models": {"strings": ["x", "y"]}}},
            {"name": "b", "bindingConditions": ["ready"], "bindsToNode": True},
        ],
    },
}


def test_gates_used_per_object() -> None:
    assert gates_used(SHARED) == ["DynamicResourceAllocation", "DRAConsumableCapacity"]
    assert gates_used(PRIORITIZED) == [
        "DynamicResourceAllocation",
        "DRAPrioritizedList",
        "DRADeviceTaints",
    ]
    assert gates_used(SLICE) == [
        "DynamicResourceAllocation",
        "DRAPartitionableDevices",
        "DRAListTypeAttributes",
        "DRADeviceBindingConditions",
    ]
    deployment = {
        "apiVersion": "apps/v1",
        "kind": "Deployment",
        "metadata": {"name": "web"},
        "spec": {"template": {"spec": {"resourceClaims": [{"name": "gpu"}]}}},
    }
    assert gates_used(deployment) == ["DynamicResourceAllocation"]
    assert gates_used({"apiVersion": "v1", "kind": "Pod", "spec": {"containers": []}}) == []


def test_describe_names_maturity_in_the_release() -> None:
    assert describe_feature_usage([SHARED], "1.36") == [
        "claim ml/train uses DRAConsumableCapacity: beta, on by default in 1.36"
    ]
    assert describe_feature_usage([SHARED], "1.35") == [
        "claim ml/train uses DRAConsumableCapacity: alpha, off by default in 1.35"
    ]
    gates = FeatureGates.for_release("1.35", "DRAConsumableCapacity=true")
    assert describe_feature_usage([SHARED], "1.35", gates) == [
        "claim ml/train uses DRAConsumableCapacity: alpha, off by default in 1.35, "
        "turned on by --feature-gates"
    ]
    lines = describe_feature_usage([PRIORITIZED, SHARED, PRIORITIZED], "1.37")
    assert lines == [
        "claim ml/either uses DRAPrioritizedList: GA, on by default in 1.37 (locked)",
        "claim ml/either uses DRADeviceTaints: GA, on by default in 1.37",
        "claim ml/train uses DRAConsumableCapacity: beta, on by default in 1.37",
    ]


def test_many_subjects_are_summarised() -> None:
    claims = [{**SHARED, "metadata": {"name": f"c{i}", "namespace": "ml"}} for i in range(5)]
    assert describe_feature_usage(claims, "1.36") == [
        "claim ml/c0, claim ml/c1, claim ml/c2 and 2 more use DRAConsumableCapacity: "
        "beta, on by default in 1.36"
    ]


def test_warnings_for_off_missing_and_alpha_features() -> None:
    assert feature_warnings([SHARED], "1.36") == []
    assert feature_warnings([SHARED], "1.35") == [
        "claim ml/train relies on DRAConsumableCapacity, which is off in 1.35 (alpha): the "
        "apiserver drops its fields and the scheduler ignores them; enable it with "
        "--feature-gates=DRAConsumableCapacity=true"
    ]
    assert feature_warnings([SLICE], "1.35")[1] == (
        "slice node-1-gpu relies on DRAListTypeAttributes, which Kubernetes 1.35 does not have "
        "(it first appears in 1.36): the apiserver drops its fields and the scheduler ignores "
        "them"
    )
    gates = FeatureGates.for_release("1.36", "DRAListTypeAttributes=true")
    assert feature_warnings([SLICE], "1.36", gates) == [
        "slice node-1-gpu relies on DRAListTypeAttributes, an alpha feature in 1.36: off in "
        "most clusters, and it may change or go away"
    ]


def test_extended_resources_backed_by_dra() -> None:
    device_class = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": "gpu.example.com"},
        "spec": {"extendedResourceName": "example.com/gpu"},
    }

    def pod(resource: str) -> dict[str, Any]:
        container = {"name": "c", "resources": {"limits": {resource: "1"}}}
        return {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": "p", "namespace": "ml"},
            "spec": {"containers": [container]},
        }

    lines = describe_feature_usage([device_class, pod("example.com/gpu")], "1.36")
    assert lines == [
        "device class gpu.example.com, pod ml/p use DRAExtendedResource: beta, on by default in "
        "1.36"
    ]
    implicit = pod("deviceclass.resource.kubernetes.io/gpu.example.com")
    assert gates_used(implicit) == ["DynamicResourceAllocation", "DRAExtendedResource"]
    assert gates_used(pod("nvidia.com/gpu")) == []
    assert feature_warnings([implicit], "1.35") == [
        "pod ml/p relies on DRAExtendedResource, which is off in 1.35 (alpha): the apiserver "
        "drops its fields and the scheduler ignores them; enable it with "
        "--feature-gates=DRAExtendedResource=true"
    ]


def test_pod_group_claims_rely_on_dra_workload_resource_claims() -> None:
    """``+featureGate=DRAWorkloadResourceClaims`` on PodGroupSpec.resourceClaims (k8s.io/api
    scheduling/v1beta1); beta and off by default in 1.37 (the scheduler gate table)."""
    group = {
        "apiVersion": "scheduling.k8s.io/v1beta1",
        "kind": "PodGroup",
        "metadata": {"name": "g", "namespace": "ml"},
        "spec": {"resourceClaims": [{"name": "gpu", "resourceClaimName": "shared"}]},
    }
    assert gates_used(group) == ["DRAWorkloadResourceClaims"]
    assert gates_used({**group, "spec": {}}) == []
    [warning] = feature_warnings([group], "1.37", FeatureGates.for_release("1.37"))
    assert warning.startswith("podgroup ml/g relies on DRAWorkloadResourceClaims, which is off")

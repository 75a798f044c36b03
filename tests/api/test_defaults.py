"""Apiserver defaulting of v1 objects."""

from __future__ import annotations

import copy
from datetime import UTC, datetime
from typing import Any

from kubedra.api.defaults import apply_defaults

NOW = datetime(2026, 11, 30, 5, 6, 7, 890000, tzinfo=UTC)


def _claim(devices: dict[str, Any], status: dict[str, Any] | None = None) -> dict[str, Any]:
    claim: dict[str, Any] = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "c"},
        "spec": {"devices": devices},
    }
    if status is not None:
        claim["status"] = status
    return claim


def test_exact_request_gets_mode_and_count() -> None:
    claim = _claim({"requests": [{"name": "a", "exactly": {"deviceClassName": "x"}}]})
    before = copy.deepcopy(claim)
    defaulted = apply_defaults(claim)
    assert defaulted["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": "x",
        "allocationMode": "ExactCount",
        "count": 1,
    }
    assert claim == before


def test_all_mode_gets_no_count_and_explicit_count_is_kept() -> None:
    claim = _claim(
        {
            "requests": [
                {"name": "a", "exactly": {"deviceClassName": "x", "allocationMode": "All"}},
                {"name": "b", "exactly": {"deviceClassName": "x", "count": 4}},
            ]
        }
    )
    requests = apply_defaults(claim)["spec"]["devices"]["requests"]
    assert requests[0]["exactly"] == {"deviceClassName": "x", "allocationMode": "All"}
    assert requests[1]["exactly"]["count"] == 4


def test_subrequests_and_tolerations_everywhere() -> None:
    toleration = {"key": "k", "effect": "NoSchedule"}
    claim = _claim(
        {
            "requests": [
                {"name": "a", "exactly": {"deviceClassName": "x", "tolerations": [toleration]}},
                {"name": "b", "firstAvailable": [{"name": "s", "tolerations": [toleration]}]},
            ]
        },
        status={
            "allocation": {"devices": {"results": [{"request": "a", "tolerations": [toleration]}]}}
        },
    )
    defaulted = apply_defaults(claim)
    requests = defaulted["spec"]["devices"]["requests"]
    assert requests[0]["exactly"]["tolerations"][0]["operator"] == "Equal"
    assert requests[1]["firstAvailable"][0] == {
        "name": "s",
        "tolerations": [toleration | {"operator": "Equal"}],
        "allocationMode": "ExactCount",
        "count": 1,
    }
    result = defaulted["status"]["allocation"]["devices"]["results"][0]
    assert result["tolerations"][0]["operator"] == "Equal"
    assert "operator" not in toleration


def test_template_requests_are_defaulted() -> None:
    template = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "spec": {"spec": {"devices": {"requests": [{"name": "a", "exactly": {}}]}}},
    }
    exactly = apply_defaults(template)["spec"]["spec"]["devices"]["requests"][0]["exactly"]
    assert exactly == {"allocationMode": "ExactCount", "count": 1}


def test_slice_taints_get_the_time_in_whole_seconds_and_untainted_devices_are_shared() -> None:
    plain = {"name": "a"}
    tainted = {"name": "b", "taints": [{"key": "k", "effect": "NoSchedule"}]}
    stamped = {
        "name": "c",
        "taints": [{"key": "k", "effect": "None", "timeAdded": "2020-01-01T00:00:00Z"}],
    }
    slice_ = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "spec": {"devices": [plain, tainted, stamped]},
    }
    devices = apply_defaults(slice_, now=NOW)["spec"]["devices"]
    assert devices[0] is plain and devices[2] is stamped
    assert devices[1]["taints"][0]["timeAdded"] == "2026-11-30T05:06:07Z"
    assert "timeAdded" not in tainted["taints"][0]


def test_device_taint_rule_taint_gets_the_time() -> None:
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "spec": {"taint": {"key": "k", "effect": "NoExecute"}},
    }
    assert apply_defaults(rule, now=NOW)["spec"]["taint"]["timeAdded"] == "2026-11-30T05:06:07Z"


def test_pod_defaults_and_requests_from_limits() -> None:
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "spec": {
            "containers": [
                {
                    "name": "c",
                    "resources": {
                        "limits": {"cpu": "2", "memory": "1Gi"},
                        "requests": {"cpu": "1"},
                    },
                }
            ],
            "initContainers": [{"name": "i", "resources": {"limits": {"cpu": "1"}}}],
        },
    }
    spec = apply_defaults(pod)["spec"]
    assert spec["schedulerName"] == "default-scheduler"
    assert spec["restartPolicy"] == "Always"
    assert spec["dnsPolicy"] == "ClusterFirst"
    assert spec["terminationGracePeriodSeconds"] == 30
    assert spec["containers"][0]["resources"]["requests"] == {"cpu": "1", "memory": "1Gi"}
    assert spec["initContainers"][0]["resources"]["requests"] == {"cpu": "1"}


def test_pod_defaulting_leaves_the_input_unchanged() -> None:
    """Only the dicts on the way to a default are copied: the caller's pod keeps its form."""
    container = {"name": "c", "resources": {"limits": {"cpu": "2"}}}
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": [container]}}
    before = copy.deepcopy(pod)
    defaulted = apply_defaults(pod)
    assert defaulted["spec"]["containers"][0]["resources"]["requests"] == {"cpu": "2"}
    assert pod == before


def test_pod_keeps_its_scheduler_name() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"schedulerName": "mine", "containers": []}}
    assert apply_defaults(pod)["spec"]["schedulerName"] == "mine"


def test_node_allocatable_defaults_to_capacity() -> None:
    node = {"apiVersion": "v1", "kind": "Node", "status": {"capacity": {"cpu": "4"}}}
    assert apply_defaults(node)["status"]["allocatable"] == {"cpu": "4"}
    node["status"]["allocatable"] = {"cpu": "3"}
    assert apply_defaults(node)["status"]["allocatable"] == {"cpu": "3"}


def test_namespace_gets_its_name_label() -> None:
    namespace = {"apiVersion": "v1", "kind": "Namespace", "metadata": {"name": "team-a"}}
    labels = apply_defaults(namespace)["metadata"]["labels"]
    assert labels == {"kubernetes.io/metadata.name": "team-a"}


def test_priority_class_preemption_policy() -> None:
    priority_class = {"apiVersion": "scheduling.k8s.io/v1", "kind": "PriorityClass", "value": 5}
    assert apply_defaults(priority_class)["preemptionPolicy"] == "PreemptLowerPriority"


def test_unknown_kinds_are_copied_unchanged() -> None:
    obj = {"apiVersion": "x/v1", "kind": "Y", "a": 1}
    assert apply_defaults(obj) == obj and apply_defaults(obj) is not obj


def test_odd_type_meta_is_tolerated() -> None:
    for obj in ({"kind": []}, {"apiVersion": {}, "kind": "Pod"}, {}):
        assert apply_defaults(obj) == obj

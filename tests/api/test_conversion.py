"""v1beta1 and v1beta2 objects become v1 objects as the apiserver converts them."""

from __future__ import annotations

from typing import Any

import pytest

from kubedra.api.conversion import to_v1


def test_v1_objects_are_unchanged() -> None:
    obj = {"apiVersion": "resource.k8s.io/v1", "kind": "DeviceClass", "spec": {}}
    assert to_v1(obj) == obj


def test_v1beta2_only_changes_the_api_version() -> None:
    obj = {"apiVersion": "resource.k8s.io/v1beta2", "kind": "ResourceClaim", "spec": {"x": 1}}
    assert to_v1(obj) == obj | {"apiVersion": "resource.k8s.io/v1"}


def test_v1beta1_basic_device_is_flattened() -> None:
    obj = {
        "apiVersion": "resource.k8s.io/v1beta1",
        "kind": "ResourceSlice",
        "spec": {
            "driver": "d",
            "nodeName": "",
            "allNodes": False,
            "nodeSelector": {"nodeSelectorTerms": []},
            "devices": [
                {
                    "name": "gpu-0",
                    "basic": {
                        "attributes": {"model": {"string": "x"}},
                        "capacity": {"memory": {"value": "8Gi"}},
                        "taints": [{"key": "k", "effect": "NoSchedule"}],
                        "consumesCounters": [{"counterSet": "c", "counters": {}}],
                    },
                }
            ],
        },
    }
    converted = to_v1(obj)
    assert converted["apiVersion"] == "resource.k8s.io/v1"
    assert converted["spec"] == {
        "driver": "d",
        "nodeSelector": {"nodeSelectorTerms": []},
        "devices": [
            {
                "name": "gpu-0",
                "attributes": {"model": {"string": "x"}},
                "capacity": {"memory": {"value": "8Gi"}},
                "taints": [{"key": "k", "effect": "NoSchedule"}],
                "consumesCounters": [{"counterSet": "c", "counters": {}}],
            }
        ],
    }
    assert obj["spec"]["devices"][0]["basic"]  # the input is not modified


def _claim(request: dict[str, Any], kind: str = "ResourceClaim") -> dict[str, Any]:
    spec = {"devices": {"requests": [request]}}
    if kind == "ResourceClaimTemplate":
        spec = {"spec": spec}
    return {"apiVersion": "resource.k8s.io/v1beta1", "kind": kind, "spec": spec}


def _requests(obj: dict[str, Any]) -> list[Any]:
    spec = obj["spec"]["spec"] if obj["kind"] == "ResourceClaimTemplate" else obj["spec"]
    return list(spec["devices"]["requests"])


@pytest.mark.parametrize("kind", ["ResourceClaim", "ResourceClaimTemplate"])
def test_v1beta1_request_fields_move_into_exactly(kind: str) -> None:
    request = {
        "name": "gpu",
        "deviceClassName": "gpu.example.com",
        "selectors": [{"cel": {"expression": "true"}}],
        "allocationMode": "ExactCount",
        "count": 2,
        "adminAccess": True,
        "tolerations": [{"key": "k", "operator": "Exists"}],
        "capacity": {"requests": {"memory": "1Gi"}},
    }
    [converted] = _requests(to_v1(_claim(request, kind)))
    assert converted == {
        "name": "gpu",
        "exactly": {key: value for key, value in request.items() if key != "name"},
    }


def test_v1beta1_first_available_is_kept_without_exactly() -> None:
    request = {
        "name": "gpu",
        "firstAvailable": [{"name": "big", "deviceClassName": "a"}],
        "count": 0,
        "deviceClassName": "",
    }
    [converted] = _requests(to_v1(_claim(request)))
    assert converted == {"name": "gpu", "firstAvailable": [{"name": "big", "deviceClassName": "a"}]}


def test_v1beta1_any_single_request_field_creates_exactly() -> None:
    [converted] = _requests(to_v1(_claim({"name": "gpu", "count": 3})))
    assert converted == {"name": "gpu", "exactly": {"count": 3}}


@pytest.mark.parametrize(
    "spec", [None, "text", {"devices": "x"}, {"devices": {"requests": [1, None, "x"]}}]
)
def test_unexpected_shapes_are_left_for_type_checking(spec: Any) -> None:
    obj = {"apiVersion": "resource.k8s.io/v1beta1", "kind": "ResourceClaim", "spec": spec}
    assert to_v1(obj) == obj | {"apiVersion": "resource.k8s.io/v1"}


def test_other_groups_are_not_touched() -> None:
    pod = {"apiVersion": "v1", "kind": "Pod", "spec": {"containers": []}}
    assert to_v1(pod) is pod

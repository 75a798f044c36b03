"""Small object builders for the cluster tests."""

from __future__ import annotations

from typing import Any

DRIVER = "gpu.example.com"


def node(name: str, pods: int = 110, **spec: Any) -> dict[str, Any]:
    obj: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": {"cpu": "8", "memory": "32Gi", "pods": str(pods)}},
    }
    if spec:
        obj["spec"] = spec
    return obj


def device_class(name: str = DRIVER) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def gpu_slice(
    node_name: str, *devices: str, taints: list[dict[str, Any]] | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": d, **({"taints": taints} if taints else {})} for d in devices],
        },
    }


def claim_spec(tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": DRIVER}
    if tolerations:
        exactly["tolerations"] = tolerations
    return {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}


def claim(name: str, tolerations: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name},
        "spec": claim_spec(tolerations),
    }


def template(name: str, labels: dict[str, str] | None = None) -> dict[str, Any]:
    meta: dict[str, Any] = {"labels": labels} if labels else {}
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name},
        "spec": {"metadata": meta, "spec": claim_spec()},
    }


def pod(
    name: str, *, claim: str | None = None, template: str | None = None, entry: str = "gpu"
) -> dict[str, Any]:
    spec: dict[str, Any] = {"containers": [{"name": "main", "image": "busybox"}]}
    if claim:
        spec["resourceClaims"] = [{"name": entry, "resourceClaimName": claim}]
    if template:
        spec["resourceClaims"] = [{"name": entry, "resourceClaimTemplateName": template}]
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def taint_rule(name: str, device: str, effect: str = "NoExecute") -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": name},
        "spec": {
            "deviceSelector": {"driver": DRIVER, "device": device},
            "taint": {"key": "example.com/unhealthy", "value": "true", "effect": effect},
        },
    }

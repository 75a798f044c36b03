"""Small GPU clusters for the placement policy tests (v1 wire dicts).

Every GPU is a device handed out in shares (``allowMultipleAllocations``) with one capacity,
``milli`` = 1000: a claim for a share asks for ``milli``, a claim for whole GPUs asks for
none and so consumes all of it. Devices carry their model and index as attributes, so that a
claim can pin a GPU (``index``) or a model.
"""

from __future__ import annotations

from typing import Any

from kubedra.planning.cluster import simulate
from kubedra.scheduler.policies import Policy, TaskShape, Workload

DRIVER = "gpu.example.com"
CLASS = "gpu"


def device_class() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def gpu_node(name: str, gpus: int, model: str = "A100", cpu: str = "32") -> list[dict[str, Any]]:
    """A Node and the ResourceSlice of its ``gpus`` GPUs."""
    allocatable = {"cpu": cpu, "memory": "256Gi", "pods": "110"}
    node = {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }
    devices = [
        {
            "name": f"gpu-{i}",
            "allowMultipleAllocations": True,
            "attributes": {"model": {"string": model}, "index": {"int": i}},
            "capacity": {"milli": {"value": "1000"}},
        }
        for i in range(gpus)
    ]
    return [
        node,
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "ResourceSlice",
            "metadata": {"name": f"{name}-gpus"},
            "spec": {
                "driver": DRIVER,
                "nodeName": name,
                "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
                "devices": devices,
            },
        },
    ]


def claim_spec(
    milli: int | None = None, count: int = 1, selector: str | None = None
) -> dict[str, Any]:
    """A claim spec for ``count`` whole GPUs, or for a share of ``milli`` of one GPU."""
    exactly: dict[str, Any] = {"deviceClassName": CLASS, "count": count}
    if milli is not None:
        exactly["capacity"] = {"requests": {"milli": str(milli)}}
    if selector is not None:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    return {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}


def on_index(index: int) -> str:
    return f'device.attributes["{DRIVER}"].index == {index}'


def on_model(model: str) -> str:
    return f'device.attributes["{DRIVER}"].model == "{model}"'


def gpu_pod(
    name: str,
    spec: dict[str, Any] | None = None,
    cpu: str = "1",
    node: str | None = None,
) -> list[dict[str, Any]]:
    """A pod (pinned to ``node`` when given) with a claim template of ``spec`` (or no claim)."""
    container: dict[str, Any] = {
        "name": "main",
        "image": "busybox",
        "resources": {"requests": {"cpu": cpu}},
    }
    pod_spec: dict[str, Any] = {"containers": [container]}
    if node is not None:
        pod_spec["nodeSelector"] = {"kubernetes.io/hostname": node}
    objects: list[dict[str, Any]] = []
    if spec is not None:
        objects.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"spec": spec},
            }
        )
        pod_spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": name}]
        container["resources"]["claims"] = [{"name": "gpu"}]
    objects.append(
        {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": name, "namespace": "default"},
            "spec": pod_spec,
        }
    )
    return objects


def shapes(*weighted: tuple[dict[str, Any], float]) -> Workload:
    """A workload of shapes without cpu or memory, one per claim spec, with these weights."""
    return Workload([(TaskShape.of(0, 0, [spec]), weight) for spec, weight in weighted])


def run(
    objects: list[dict[str, Any]],
    policy: str | Policy | None = None,
    workload: Workload | None = None,
    **flags: Any,
) -> Any:
    return simulate(objects, policy=policy, workload=workload, **flags)


def placement(sim: Any, pod: str) -> tuple[str | None, list[str]]:
    """The node of ``pod`` and the GPUs its claim got."""
    found = sim.store.get("Pod", pod, "default")
    node = found["spec"].get("nodeName")
    devices: list[str] = []
    for claim in sim.store.list("ResourceClaim", "default"):
        owners = claim["metadata"].get("ownerReferences") or []
        if any(o.get("name") == pod for o in owners):
            allocation = (claim.get("status") or {}).get("allocation") or {}
            devices += [r["device"] for r in allocation.get("devices", {}).get("results", [])]
    return node, sorted(devices)


def scores(sim: Any, pod: str) -> dict[str, dict[str, float]]:
    return dict(sim.scheduler.last_decision[f"default/{pod}"].scores)

"""Small object builders for the scheduler tests (v1 wire dicts)."""

from __future__ import annotations

from typing import Any

from kubedra.allocator.features import Features
from kubedra.cluster.clock import SimClock
from kubedra.cluster.store import Store
from kubedra.scheduler import Decision, Scheduler, SchedulerConfig

DRIVER = "gpu.example.com"


def node(
    name: str,
    labels: dict[str, str] | None = None,
    cpu: str = "8",
    memory: str = "32Gi",
    pods: str = "110",
    taints: list[dict[str, Any]] | None = None,
    unschedulable: bool = False,
    extra: dict[str, str] | None = None,
) -> dict[str, Any]:
    spec: dict[str, Any] = {}
    if taints:
        spec["taints"] = taints
    if unschedulable:
        spec["unschedulable"] = True
    allocatable = {"cpu": cpu, "memory": memory, "pods": pods, **(extra or {})}
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name, **(labels or {})}},
        "spec": spec,
        "status": {"capacity": allocatable, "allocatable": allocatable},
    }


def pod(
    name: str,
    cpu: str | None = None,
    memory: str | None = None,
    claims: list[str] | None = None,
    templates: dict[str, str] | None = None,
    **spec: Any,
) -> dict[str, Any]:
    requests: dict[str, str] = {}
    if cpu:
        requests["cpu"] = cpu
    if memory:
        requests["memory"] = memory
    container: dict[str, Any] = {"name": "c", "image": "busybox"}
    extra_requests = spec.pop("requests", None)
    if extra_requests:
        requests.update(extra_requests)
    if requests:
        container["resources"] = {"requests": requests}
    body: dict[str, Any] = {"containers": [container], **spec}
    refs = [{"name": c, "resourceClaimName": c} for c in claims or []]
    refs += [{"name": k, "resourceClaimTemplateName": v} for k, v in (templates or {}).items()]
    if refs:
        body["resourceClaims"] = refs
        container["resources"] = {
            **container.get("resources", {}),
            "claims": [{"name": r["name"]} for r in refs],
        }
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": body,
    }


def device_class(name: str = "gpu", **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": name},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}], **spec},
    }


def slice_(
    node_name: str, devices: list[dict[str, Any]], name: str | None = None
) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": name or f"{node_name}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def gpu(name: str, memory: str = "16Gi", **extra: Any) -> dict[str, Any]:
    return {
        "name": name,
        "attributes": {"model": {"string": "X"}},
        "capacity": {"memory": {"value": memory}},
        **extra,
    }


def claim(
    name: str, selector: str | None = None, count: int = 1, cls: str = "gpu", **request: Any
) -> dict[str, Any]:
    exactly: dict[str, Any] = {"deviceClassName": cls, "count": count}
    if selector:
        exactly["selectors"] = [{"cel": {"expression": selector}}]
    exactly.update(request)
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}},
    }


def cluster(*objects: dict[str, Any], **config: Any) -> tuple[Store, Scheduler]:
    clock = SimClock()
    store = Store(clock)
    for obj in objects:
        store.create(obj)
    scheduler = Scheduler(store, clock, SchedulerConfig(features=Features(), **config))
    return store, scheduler


def run(scheduler: Scheduler, limit: int = 1000) -> list[Decision]:
    """Schedule until there is nothing left to do."""
    out = []
    while limit and scheduler.has_work():
        decision = scheduler.schedule_one()
        if decision is None:
            break
        out.append(decision)
        limit -= 1
    return out

"""Small clusters and trace entries for the replay tests (v1 wire dicts)."""

from __future__ import annotations

from typing import Any

from cluster_builders import DRIVER, device_class, gpu_slice, template
from cluster_builders import node as cluster_node

from kubedra.replay import Replay, ReplayState, parse_trace
from kubedra.scheduler import new_simulation


def gpu_class() -> dict[str, Any]:
    return device_class(DRIVER)


def one_gpu_template(name: str = "one-gpu") -> dict[str, Any]:
    return template(name)


def node(name: str, cpu: str = "8") -> dict[str, Any]:
    """A node with ``cpu`` CPUs (the cluster tests' node, its capacity changed)."""
    obj = cluster_node(name)
    obj["status"]["capacity"]["cpu"] = cpu
    return obj


def gpu_nodes(*names: str) -> list[dict[str, Any]]:
    """One GPU (gpu-0) on each named node, the class and the one-GPU template."""
    out = [gpu_class(), one_gpu_template()]
    for name in names:
        out += [node(name), gpu_slice(name, "gpu-0")]
    return out


def priority_class(name: str, value: int) -> dict[str, Any]:
    return {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": name},
        "value": value,
    }


def pod(
    name: str,
    *,
    template: str | None = "one-gpu",
    cpu: str | None = None,
    priority_class_name: str | None = None,
    group: str | None = None,
) -> dict[str, Any]:
    container: dict[str, Any] = {"name": "main", "image": "busybox"}
    spec: dict[str, Any] = {"containers": [container]}
    if template:
        container["resources"] = {"claims": [{"name": "gpu"}]}
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template}]
    if cpu:
        container.setdefault("resources", {})["requests"] = {"cpu": cpu}
    if priority_class_name:
        spec["priorityClassName"] = priority_class_name
    if group:
        spec["schedulingGroup"] = {"podGroupName": group}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": {"name": name}, "spec": spec}


def job(name: str, template_pod: dict[str, Any], **spec: Any) -> dict[str, Any]:
    return {
        "apiVersion": "batch/v1",
        "kind": "Job",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            **spec,
            "template": {"spec": template_pod["spec"] | {"restartPolicy": "Never"}},
        },
    }


def replay(
    cluster: list[dict[str, Any]], entries: list[dict[str, Any]], **options: Any
) -> ReplayState:
    sim = new_simulation()
    assert sim.load(cluster) == []
    return Replay(sim, parse_trace(entries, "trace.yaml"), **options).run()


def record(state: ReplayState, name: str) -> dict[str, Any]:
    """The record of the pod ``name``, or of the one pod whose name starts ``name-`` (a
    Job's pods get generated names)."""
    [found] = [
        r.to_dict() for r in state.records if r.name == name or r.name.startswith(f"{name}-")
    ]
    return found

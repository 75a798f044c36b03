"""The Pods of a trace and the entries that create them."""

from __future__ import annotations

from typing import Any

from kubedra.traces.gpu_cluster import cpu_quantity, memory_quantity
from kubedra.traces.shapes import REQUEST_NAME

POD_IMAGE = "registry.k8s.io/pause:3.10"
"""Nothing runs in a replay; the image only makes the Pod valid (a container needs one)."""

CONTAINER_NAME = "main"


def pod_manifest(
    name: str,
    namespace: str,
    *,
    cpu_milli: int,
    memory_mib: int,
    template: str | None,
    labels: dict[str, str] | None = None,
    priority_class: str | None = None,
) -> dict[str, Any]:
    """A Pod with one container requesting ``cpu_milli`` and ``memory_mib`` (zero: no
    request) and, with ``template``, one claim generated from that ResourceClaimTemplate."""
    requests: dict[str, str] = {}
    if cpu_milli:
        requests["cpu"] = cpu_quantity(cpu_milli)
    if memory_mib:
        requests["memory"] = memory_quantity(memory_mib)
    resources: dict[str, Any] = {}
    if requests:
        resources["requests"] = requests
    if template is not None:
        resources["claims"] = [{"name": REQUEST_NAME}]
    container: dict[str, Any] = {"name": CONTAINER_NAME, "image": POD_IMAGE}
    if resources:
        container["resources"] = resources
    spec: dict[str, Any] = {}
    if priority_class is not None:
        spec["priorityClassName"] = priority_class
    spec["containers"] = [container]
    if template is not None:
        spec["resourceClaims"] = [{"name": REQUEST_NAME, "resourceClaimTemplateName": template}]
    metadata: dict[str, Any] = {"name": name, "namespace": namespace}
    if labels:
        metadata["labels"] = labels
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


def arrival(at: int, duration: int | None, objects: list[dict[str, Any]]) -> dict[str, Any]:
    """One trace entry: ``objects`` created at ``at`` seconds, each Pod running ``duration``
    seconds once bound (None: until the end of the replay)."""
    entry: dict[str, Any] = {"at": at}
    if duration is not None:
        entry["duration"] = duration
    entry["objects"] = objects
    return entry

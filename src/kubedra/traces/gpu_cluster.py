"""The cluster a trace runs on: GPU nodes, one ResourceSlice per node, one DeviceClass.

``trace import`` and ``trace generate`` build the same kind of cluster, so that replays of
production and of synthetic traces differ only in their numbers.

Every GPU is one device that may be shared (``allowMultipleAllocations``). Its capacity
``gpu_milli`` (1000, no request policy) is the share tasks ask for: a request without
``capacity.requests`` consumes a capacity's full value when it has no ``requestPolicy``
(KEP-5075, resource.k8s.io/v1 ``CapacityRequirements``), so a whole-GPU request takes all
1000 thousandths and nothing else fits beside it, while a share request names its part. The
GPU's ``memory``, where known, is a capacity too, with ``requestPolicy.default: 0``: the traces
do not say how much GPU memory a task uses, so requests consume none of it unless they ask.
"""

from __future__ import annotations

import json
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any

SHARE_CAPACITY = "gpu_milli"
"""The consumable capacity in thousandths of a GPU (the Alibaba trace's ``gpu_milli``)."""

WHOLE_GPU = 1000
"""``gpu_milli`` of one whole GPU."""

MODEL_ATTRIBUTE = "model"

DEFAULT_PODS_PER_NODE = 110
"""The kubelet's default ``--max-pods``."""

MAX_GPUS_PER_NODE = 128
"""One ResourceSlice holds at most 128 devices (``ResourceSliceMaxDevices``)."""


@dataclass(frozen=True)
class GpuNode:
    """One node and its GPUs, in the units of the traces."""

    name: str
    cpu_milli: int
    memory_mib: int
    gpus: int
    model: str
    gpu_memory: str | None = None
    """Each GPU's memory as a quantity (``16Gi``), None where the model does not say."""
    pods: int = DEFAULT_PODS_PER_NODE


def cpu_quantity(milli: int) -> str:
    """Millicores as written in the traces (``cpu_milli``), so the mapping reads one to one."""
    return f"{milli}m"


def memory_quantity(mib: int) -> str:
    return f"{mib}Mi"


def device_class(driver: str) -> dict[str, Any]:
    """The one DeviceClass: every device of ``driver`` (named after the driver)."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": driver},
        "spec": {"selectors": [{"cel": {"expression": f"device.driver == {json.dumps(driver)}"}}]},
    }


def node_object(node: GpuNode) -> dict[str, Any]:
    """A Node with the trace's cpu and memory as capacity and allocatable (the scheduler fits
    pods against allocatable; nothing is reserved for the system in the traces)."""
    resources = {
        "cpu": cpu_quantity(node.cpu_milli),
        "memory": memory_quantity(node.memory_mib),
        "pods": str(node.pods),
    }
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": node.name, "labels": {"kubernetes.io/hostname": node.name}},
        "status": {"capacity": resources, "allocatable": dict(resources)},
    }


def slice_name(node_name: str, driver: str) -> str:
    return f"{node_name}-{driver}"


def slice_object(node: GpuNode, driver: str) -> dict[str, Any]:
    """The node's GPUs as one ResourceSlice in a pool named after the node."""
    capacity: dict[str, Any] = {SHARE_CAPACITY: {"value": str(WHOLE_GPU)}}
    if node.gpu_memory is not None:
        capacity["memory"] = {"value": node.gpu_memory, "requestPolicy": {"default": "0"}}
    devices = [
        {
            "name": f"gpu-{index}",
            "allowMultipleAllocations": True,
            "attributes": {MODEL_ATTRIBUTE: {"string": node.model}},
            "capacity": capacity,
        }
        for index in range(node.gpus)
    ]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": slice_name(node.name, driver)},
        "spec": {
            "driver": driver,
            "nodeName": node.name,
            "pool": {"name": node.name, "generation": 1, "resourceSliceCount": 1},
            "devices": devices,
        },
    }


def cluster_objects(nodes: Iterable[GpuNode], driver: str) -> list[dict[str, Any]]:
    """The DeviceClass, then each node followed by its ResourceSlice (none without GPUs)."""
    objects = [device_class(driver)]
    for node in nodes:
        objects.append(node_object(node))
        if node.gpus:
            objects.append(slice_object(node, driver))
    return objects

"""The GPU cluster the scheduler benchmarks start from (bench_gang, bench_preemption,
bench_replay).

One DeviceClass ``gpu`` selecting the driver's devices, and per node a Node and one
ResourceSlice publishing the same devices; the benchmarks add their own claims and pods.
"""

from __future__ import annotations

import copy
import sys
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from kubedra.cluster.clock import SimClock  # noqa: E402
from kubedra.cluster.store import Store  # noqa: E402

DRIVER = "gpu.example.com"
ALLOCATABLE = {"cpu": "64", "memory": "256Gi", "pods": "110"}


def gpu_cluster_objects(
    nodes: int, devices: list[dict[str, Any]], digits: int
) -> list[dict[str, Any]]:
    """The DeviceClass, and ``nodes`` nodes named ``node-`` and ``digits`` zero-padded digits,
    each with a ResourceSlice publishing its own copy of ``devices``."""
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": "gpu"},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        }
    ]
    for i in range(nodes):
        objects += node_objects(f"node-{i:0{digits}d}", ALLOCATABLE, copy.deepcopy(devices))
    return objects


def node_objects(
    name: str, allocatable: dict[str, str], devices: list[dict[str, Any]]
) -> list[dict[str, Any]]:
    """A Node with ``allocatable`` and the ResourceSlice (its own pool) publishing ``devices``."""
    return [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
            "status": {"capacity": allocatable, "allocatable": allocatable},
        },
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


def gpu_cluster(nodes: int, devices: list[dict[str, Any]], digits: int) -> tuple[SimClock, Store]:
    """A store holding :func:`gpu_cluster_objects`."""
    clock = SimClock()
    store = Store(clock)
    for obj in gpu_cluster_objects(nodes, devices, digits):
        store.create(obj)
    return clock, store

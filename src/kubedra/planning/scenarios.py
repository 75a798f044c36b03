"""Generated clusters for comparing device policies (benchmarks and tests).

Each node publishes GPUs of mixed memory sizes in one pool, largest first (the slice order
first-fit follows); pods ask through a claim template for one GPU with at least some memory.
"""

from __future__ import annotations

from typing import Any

DRIVER = "gpu.example.com"
CLASS = "gpu.example.com"
GIB = 1024**3


def device_class() -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceClass",
        "metadata": {"name": CLASS},
        "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
    }


def node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name, "labels": {"kubernetes.io/hostname": name}},
        "status": {"allocatable": {"cpu": "64", "memory": "256Gi", "pods": "110"}},
    }


def gpu_slice(node_name: str, sizes_gib: list[int]) -> dict[str, Any]:
    """One pool per node with a GPU per size, in the given order."""
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{node_name}-gpus"},
        "spec": {
            "driver": DRIVER,
            "nodeName": node_name,
            "pool": {"name": node_name, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{i}",
                    "attributes": {"model": {"string": f"g{size}"}},
                    "capacity": {"memory": {"value": f"{size}Gi"}},
                }
                for i, size in enumerate(sizes_gib)
            ],
        },
    }


def template(name: str, memory_gib: int) -> dict[str, Any]:
    """A claim template for one GPU with at least ``memory_gib`` GiB."""
    expression = f'device.capacity["{DRIVER}"].memory.compareTo(quantity("{memory_gib}Gi")) >= 0'
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "spec": {
                "devices": {
                    "requests": [
                        {
                            "name": "gpu",
                            "exactly": {
                                "deviceClassName": CLASS,
                                "selectors": [{"cel": {"expression": expression}}],
                            },
                        }
                    ]
                }
            }
        },
    }


def pod(name: str, template_name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "resourceClaims": [{"name": "gpu", "resourceClaimTemplateName": template_name}],
            "containers": [
                {"name": "main", "image": "busybox", "resources": {"claims": [{"name": "gpu"}]}}
            ],
        },
    }


def mixed_sizes(
    nodes: int, sizes_gib: tuple[int, ...] = (80, 40, 24, 8), queue: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """``nodes`` nodes with one GPU per size; a pod per entry of ``queue`` (GiB asked).

    The default queue repeats small and large asks so that every GPU could be used: for each
    node one pod per size, small asks first in each round (4, 20, 36, 72 GiB for 8/24/40/80).
    """
    if not queue:
        asks = sorted(max(1, s - s // 10) for s in sizes_gib)
        queue = tuple(a for _ in range(nodes) for a in asks)
    objects: list[dict[str, Any]] = [device_class()]
    for i in range(nodes):
        name = f"node-{i}"
        objects += [node(name), gpu_slice(name, list(sizes_gib))]
    for ask in sorted(set(queue)):
        objects.append(template(f"gpu-{ask}gi", ask))
    for i, ask in enumerate(queue):
        objects.append(pod(f"pod-{i:04d}-{ask}gi", f"gpu-{ask}gi"))
    return objects

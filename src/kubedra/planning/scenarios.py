"""Generated clusters for comparing device policies (benchmarks and tests).

Each node publishes GPUs of mixed memory sizes in one pool, largest first (the slice order
first-fit follows); pods ask through a claim template for one GPU with at least some memory.
"""

from __future__ import annotations

import random
from typing import Any

DRIVER = "gpu.example.com"
CLASS = "gpu.example.com"
GIB = 1024**3
SIZES = (80, 40, 24, 8)
"""GPU sizes in GiB, in slice order (largest first, as first-fit meets them)."""


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


def queue_of(
    kind: str, nodes: int, sizes_gib: tuple[int, ...] = SIZES, seed: int = 1
) -> tuple[int, ...]:
    """A queue of asks (GiB), one per GPU: 90% of each size (7/8, 22, 36, 72 for 8/24/40/80).

    ``rounds``: small to large, again and again (a mixed queue); ``waves``: all small asks
    first, then the next size; ``random``: sizes drawn with a fixed seed.
    """
    asks = sorted(max(1, s - s // 10) for s in sizes_gib)
    if kind == "rounds":
        return tuple(a for _ in range(nodes) for a in asks)
    if kind == "waves":
        return tuple(a for a in asks for _ in range(nodes))
    if kind == "random":
        rng = random.Random(seed)
        return tuple(rng.choice(asks) for _ in range(nodes * len(asks)))
    raise ValueError(f"unknown queue {kind!r}: use rounds, waves or random")


def mixed_sizes(
    nodes: int, sizes_gib: tuple[int, ...] = SIZES, queue: tuple[int, ...] = ()
) -> list[dict[str, Any]]:
    """``nodes`` nodes with one GPU per size; a pod per entry of ``queue`` (GiB asked;
    default: the ``rounds`` queue)."""
    if not queue:
        queue = queue_of("rounds", nodes, sizes_gib)
    objects: list[dict[str, Any]] = [device_class()]
    for i in range(nodes):
        name = f"node-{i}"
        objects += [node(name), gpu_slice(name, list(sizes_gib))]
    for ask in sorted(set(queue)):
        objects.append(template(f"gpu-{ask}gi", ask))
    for i, ask in enumerate(queue):
        objects.append(pod(f"pod-{i:04d}-{ask}gi", f"gpu-{ask}gi"))
    return objects


def main(argv: list[str] | None = None) -> None:
    """Write a generated scenario as YAML (the examples of docs/guides/plan.md use it)."""
    import argparse

    import yaml

    parser = argparse.ArgumentParser(prog="python -m kubedra.planning.scenarios")
    sub = parser.add_subparsers(dest="what", required=True)
    cluster = sub.add_parser("cluster", help="nodes with mixed GPU sizes and a queue of pods")
    cluster.add_argument("--nodes", type=int, default=4)
    cluster.add_argument("--queue", default="rounds", choices=["rounds", "waves", "random"])
    job = sub.add_parser("pod", help="a pod and its claim template for one GPU")
    job.add_argument("--gib", type=int, default=20, help="the least GPU memory it needs")
    job.add_argument("--name", default="job")
    template_node = sub.add_parser("node", help="a node template with its ResourceSlice")
    template_node.add_argument("--sizes", default="40,40", help="GPU sizes in GiB")
    template_node.add_argument("--name", default="gpu-node")
    args = parser.parse_args(argv)
    if args.what == "cluster":
        objects = mixed_sizes(args.nodes, queue=queue_of(args.queue, args.nodes))
    elif args.what == "pod":
        name = f"{args.name}-{args.gib}gi"
        objects = [template(name, args.gib), pod(args.name, name)]
    else:
        sizes = [int(s) for s in args.sizes.split(",")]
        objects = [node(args.name), gpu_slice(args.name, sizes)]
    print(yaml.safe_dump_all(objects, sort_keys=False), end="")


if __name__ == "__main__":
    main()

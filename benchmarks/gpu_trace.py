"""A GPU cluster and task arrivals shaped like the Alibaba GPU trace (bench_policies).

With ``../shared/traces/alibaba-gpu-v2023`` (or ``--trace DIR``) the nodes are sampled from
its node list (every k-th row, so the model mix stays) and the tasks come from its task list
in creation order; without it, a stand-in with the trace's most common node types and task
shapes (published figures) is used. Each GPU is one device handed out in shares: capacity
``milli`` = 1000, ``allowMultipleAllocations``; a task with ``num_gpu`` whole GPUs asks for
that many devices without a capacity request (so it consumes all of each), a GPU-sharing task
(``gpu_milli < 1000``) for ``milli`` of one device; ``gpu_spec`` becomes a CEL selector on the
model. This is the benchmark's own small mapping, not the trace import of ``kubedra trace``.
"""

from __future__ import annotations

import csv
import random
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from gpu_cluster import DRIVER, node_objects
from kubedra.scheduler.policies import TaskShape, Workload

REPO = Path(__file__).resolve().parent.parent
TRACE_DIR = REPO.parent / "shared" / "traces" / "alibaba-gpu-v2023"
CLASS = "gpu"

STAND_IN_NODES = (  # (model, gpus, cpu millicores, memory MiB, how many in 1,213)
    ("G2", 8, 96000, 393216, 549),
    ("T4", 2, 104000, 524288, 387),
    ("P100", 2, 16000, 122880, 107),
    ("G3", 8, 128000, 786432, 39),
    ("V100M16", 4, 32000, 131072, 28),
    ("V100M32", 8, 96000, 786432, 21),
)
STAND_IN_TASKS = (  # (cpu millicores, memory MiB, num_gpu, gpu_milli, how many in 8,152)
    (3152, 12288, 1, 810, 1047),
    (11300, 40960, 1, 1000, 874),
    (11400, 40960, 1, 1000, 599),
    (3152, 12288, 1, 1000, 470),
    (11908, 40960, 1, 470, 388),
    (12500, 49152, 0, 0, 366),
    (8000, 24576, 1, 470, 360),
    (12000, 24576, 1, 1000, 326),
    (32000, 131072, 0, 0, 290),
    (18708, 81920, 1, 1000, 255),
    (11908, 40960, 1, 650, 237),
    (4000, 16384, 1, 320, 232),
    (24000, 98304, 2, 1000, 200),
    (48000, 196608, 8, 1000, 120),
)


@dataclass(frozen=True)
class Task:
    cpu: int
    memory_mib: int
    gpus: int
    milli: int
    spec: str

    @property
    def gpu_demand(self) -> float:
        """Requested device-equivalents."""
        return self.milli / 1000 if self.gpus == 1 and self.milli < 1000 else float(self.gpus)

    def claim_spec(self) -> dict[str, Any] | None:
        if self.gpus == 0:
            return None
        exactly: dict[str, Any] = {"deviceClassName": CLASS, "count": self.gpus}
        if self.gpus == 1 and self.milli < 1000:
            exactly["capacity"] = {"requests": {"milli": str(self.milli)}}
        if self.spec:
            models = ", ".join(f'"{m}"' for m in self.spec.split("|"))
            exactly["selectors"] = [
                {"cel": {"expression": f'device.attributes["{DRIVER}"].model in [{models}]'}}
            ]
        return {"devices": {"requests": [{"name": "gpu", "exactly": exactly}]}}

    def shape(self) -> TaskShape:
        spec = self.claim_spec()
        return TaskShape.of(self.cpu, self.memory_mib * 2**20, [spec] if spec else [])


def _rows(path: Path) -> list[dict[str, str]]:
    with path.open(newline="") as f:
        return list(csv.DictReader(f))


def node_rows(nodes: int, trace: Path | None) -> list[tuple[str, int, int, int]]:
    """(model, gpus, cpu millicores, memory MiB) of ``nodes`` nodes."""
    if trace is not None:
        rows = [
            (r["model"], int(r["gpu"]), int(r["cpu_milli"]), int(r["memory_mib"]))
            for r in _rows(trace / "openb_node_list_gpu_node.csv")
        ]
    else:
        rows = [(m, g, c, mem) for m, g, c, mem, n in STAND_IN_NODES for _ in range(n)]
    step = max(1, len(rows) // nodes)
    return rows[::step][:nodes]


def tasks(trace: Path | None, seed: int = 1) -> Iterator[Task]:
    """Tasks in trace order, then drawn from it at random (seeded) once it runs out."""
    if trace is not None:
        listed = [
            Task(
                int(r["cpu_milli"]),
                int(r["memory_mib"]),
                int(r["num_gpu"]),
                int(r["gpu_milli"]),
                r["gpu_spec"],
            )
            for r in _rows(trace / "openb_pod_list_default.csv")
        ]
    else:
        listed = [
            Task(cpu, memory, gpus, milli, "")
            for cpu, memory, gpus, milli, count in STAND_IN_TASKS
            for _ in range(count)
        ]
        random.Random(seed).shuffle(listed)
    yield from listed
    rng = random.Random(seed)
    while True:
        yield rng.choice(listed)


def workload(trace: Path | None) -> Workload:
    """The task shapes of the whole trace (the paper's typical pods: 95% coverage)."""
    listed = []
    for task in tasks(trace):
        listed.append(task.shape())
        if len(listed) >= (8152 if trace is not None else sum(t[-1] for t in STAND_IN_TASKS)):
            break
    return Workload.of(listed, coverage=0.95)


def cluster(nodes: int, trace: Path | None) -> tuple[list[dict[str, Any]], int]:
    """The DeviceClass, Nodes and ResourceSlices, and the number of GPUs."""
    objects: list[dict[str, Any]] = [
        {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": CLASS},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        }
    ]
    gpus = 0
    for i, (model, count, cpu, memory) in enumerate(node_rows(nodes, trace)):
        name = f"node-{i:04d}"
        allocatable = {"cpu": f"{cpu}m", "memory": f"{memory}Mi", "pods": "110"}
        devices = [
            {
                "name": f"gpu-{g}",
                "allowMultipleAllocations": True,
                "attributes": {"model": {"string": model}},
                "capacity": {"milli": {"value": "1000"}},
            }
            for g in range(count)
        ]
        objects += node_objects(name, allocatable, devices)
        gpus += count
    return objects, gpus


def pod_objects(name: str, task: Task) -> list[dict[str, Any]]:
    """The task's pod (and its claim template)."""
    container: dict[str, Any] = {
        "name": "main",
        "image": "task",
        "resources": {"requests": {"cpu": f"{task.cpu}m", "memory": f"{task.memory_mib}Mi"}},
    }
    spec: dict[str, Any] = {"containers": [container]}
    objects: list[dict[str, Any]] = []
    claim = task.claim_spec()
    if claim is not None:
        objects.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": name, "namespace": "default"},
                "spec": {"spec": claim},
            }
        )
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": name}]
        container["resources"]["claims"] = [{"name": "gpu"}]
    pod = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }
    return [*objects, pod]

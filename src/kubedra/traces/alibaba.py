"""``trace import alibaba-gpu-v2023``: the Alibaba GPU cluster trace as a cluster and a trace.

The files are those of alibaba/clusterdata ``cluster-trace-gpu-v2023`` (the USENIX ATC '23
paper "Beware of Fragmentation"): a node list (``sn, cpu_milli, memory_mib, gpu, model``) and
a task list (``name, cpu_milli, memory_mib, num_gpu, gpu_milli, gpu_spec, qos, pod_phase,
creation_time, deletion_time, scheduled_time``, times in seconds). Every choice of the mapping
is documented in docs/guides/traces.md; the short form:

* a node is a Node (cpu and memory allocatable, ``pods``) and a ResourceSlice with one
  shareable device per GPU (attribute ``model``; capacities ``gpu_milli`` and, where the model
  says it, ``memory``); one DeviceClass for all;
* a task is a Pod arriving at ``creation_time`` that runs ``deletion_time - scheduled_time``
  once bound; a task production never scheduled (no ``scheduled_time``, phase Pending) runs
  ``deletion_time - creation_time``, its whole life there, or is left out with
  ``pending="skip"``; without ``deletion_time`` it runs until the end;
* ``num_gpu`` whole GPUs, or a ``gpu_milli`` share of one, through a ResourceClaimTemplate
  per request shape; ``gpu_spec`` a CEL selector on the model; ``num_gpu == 0``: no claim;
* ``qos`` is a label, and a priority only with ``qos_priority`` (the paper has none).
"""

from __future__ import annotations

import enum
from collections import Counter
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.api.gcpause import paused_gc
from kubedra.api.limits import MAX_DURATION_SECONDS, MAX_DURATION_TEXT
from kubedra.api.naming import is_dns1123_subdomain, is_label_value
from kubedra.traces.csv_rows import CsvRow, read_rows
from kubedra.traces.errors import TraceInputError
from kubedra.traces.gpu_cluster import (
    DEFAULT_PODS_PER_NODE,
    MAX_GPUS_PER_NODE,
    WHOLE_GPU,
    GpuNode,
    cluster_objects,
    slice_name,
)
from kubedra.traces.pods import arrival, pod_manifest
from kubedra.traces.shapes import GpuShape, claim_template
from kubedra.traces.trace_dir import Trace

FORMAT = "alibaba-gpu-v2023"

DRIVER = "gpu.alibaba.example.com"
"""The driver of every GPU, the name of the one DeviceClass, and the attribute domain."""

LABEL_PREFIX = "alibaba.example.com/"

NODE_COLUMNS = ("sn", "cpu_milli", "memory_mib", "gpu", "model")
TASK_COLUMNS = (
    "name",
    "cpu_milli",
    "memory_mib",
    "num_gpu",
    "gpu_milli",
    "gpu_spec",
    "qos",
    "pod_phase",
    "creation_time",
    "deletion_time",
    "scheduled_time",
)

GPU_MEMORY: dict[str, str | None] = {
    "P100": "16Gi",
    "T4": "16Gi",
    "V100M16": "16Gi",
    "V100M32": "32Gi",
    "A10": "24Gi",
    "G1": None,
    "G2": None,
    "G3": None,
}
"""The GPU models of the trace and each one's memory; G1-G3 are undisclosed: their devices
have no ``memory`` capacity (a claim asking for GPU memory never gets one)."""

QOS_PRIORITY: dict[str, int] = {"Guaranteed": 3000, "LS": 2000, "Burstable": 1000, "BE": 0}
"""PriorityClass values with ``qos_priority``: latency-sensitive over burstable over best
effort, and Kubernetes' Guaranteed class above all."""


class PendingTasks(enum.StrEnum):
    """What becomes of tasks production never scheduled (no ``scheduled_time``)."""

    INCLUDE = "include"
    SKIP = "skip"


@dataclass(frozen=True)
class AlibabaOptions:
    pending: PendingTasks = PendingTasks.INCLUDE
    qos_priority: bool = False
    pods_per_node: int = DEFAULT_PODS_PER_NODE
    limit: int | None = None
    """Only the first ``limit`` tasks in creation order."""
    namespace: str = "default"


@dataclass(frozen=True)
class Task:
    """One task row, checked, in the trace's units."""

    name: str
    line: int
    cpu_milli: int
    memory_mib: int
    shape: GpuShape | None
    qos: str
    phase: str
    creation: int
    scheduled: int | None
    deletion: int | None


def import_alibaba(
    nodes_csv: Path, tasks_csv: Path, options: AlibabaOptions | None = None
) -> Trace:
    """The cluster and trace of the two CSV files; raises :class:`TraceInputError` naming the
    file, the line and the column of the first bad field."""
    with paused_gc():  # many small dicts and no cycles
        return _import(nodes_csv, tasks_csv, options or AlibabaOptions())


def _import(nodes_csv: Path, tasks_csv: Path, options: AlibabaOptions) -> Trace:
    node_rows = read_rows(nodes_csv, NODE_COLUMNS, "sn")
    nodes = [_node(row, options) for row in node_rows]
    _check_unique([(row.text("sn"), row.line) for row in node_rows], nodes_csv, "sn")
    tasks = [_task(row, options) for row in read_rows(tasks_csv, TASK_COLUMNS, "name")]
    _check_unique([(task.name, task.line) for task in tasks], tasks_csv, "name")
    tasks.sort(key=lambda task: task.creation)  # stable: rows arriving together keep order
    if options.limit is not None:
        tasks = tasks[: options.limit]
    kept = [task for task in tasks if _kept(task, options)]
    shapes = sorted({task.shape for task in kept if task.shape is not None})
    cluster = cluster_objects(nodes, DRIVER)
    if options.qos_priority:
        cluster.extend(_priority_classes(kept))
    cluster.extend(claim_template(shape, DRIVER, options.namespace) for shape in shapes)
    entries = [_entry(task, options) for task in kept]
    return Trace(
        cluster=cluster,
        entries=entries,
        header=_header(nodes_csv, tasks_csv, len(nodes), len(kept), options),
        summary=_summary(nodes, tasks, kept, shapes),
    )


# ----- nodes ------------------------------------------------------------------------------


def _node(row: CsvRow, options: AlibabaOptions) -> GpuNode:
    name = row.text("sn")
    _check_name(row, "sn", name)
    if len(slice_name(name, DRIVER)) > 253:
        raise row.error(
            "sn",
            f"too long: its ResourceSlice {slice_name(name, DRIVER)!r} would exceed 253 characters",
        )
    gpus = row.whole("gpu")
    if gpus > MAX_GPUS_PER_NODE:
        raise row.error(
            "gpu", f"{gpus} GPUs: one ResourceSlice holds at most {MAX_GPUS_PER_NODE} devices"
        )
    model = row.text("model")
    if gpus and model not in GPU_MEMORY:
        raise row.error("model", f"unknown GPU model {model!r} (known: {', '.join(GPU_MEMORY)})")
    return GpuNode(
        name=name,
        cpu_milli=row.whole("cpu_milli"),
        memory_mib=row.whole("memory_mib"),
        gpus=gpus,
        model=model,
        gpu_memory=GPU_MEMORY.get(model) if gpus else None,
        pods=options.pods_per_node,
    )


# ----- tasks ------------------------------------------------------------------------------


def _task(row: CsvRow, options: AlibabaOptions) -> Task:
    name = row.text("name")
    _check_name(row, "name", name)
    qos = row.text("qos")
    phase = row.text("pod_phase")
    for column, value in (("qos", qos), ("pod_phase", phase)):
        problems = is_label_value(value)
        if problems:
            raise row.error(column, f"{value!r} cannot be a label value: {problems[0]}")
    if options.qos_priority and qos not in QOS_PRIORITY:
        raise row.error(
            "qos", f"unknown QoS {qos!r} for priorities (known: {', '.join(QOS_PRIORITY)})"
        )
    creation = row.whole("creation_time")
    scheduled = row.whole_or_none("scheduled_time")
    deletion = row.whole_or_none("deletion_time")
    for column, seconds in (
        ("creation_time", creation),
        ("scheduled_time", scheduled),
        ("deletion_time", deletion),
    ):
        _check_time(row, column, seconds)
    if scheduled is not None and scheduled < creation:
        raise row.error("scheduled_time", f"{scheduled} is before creation_time {creation}")
    start = scheduled if scheduled is not None else creation
    if deletion is not None and deletion < start:
        which = "scheduled_time" if scheduled is not None else "creation_time"
        raise row.error("deletion_time", f"{deletion} is before {which} {start}")
    return Task(
        name=name,
        line=row.line,
        cpu_milli=row.whole("cpu_milli"),
        memory_mib=row.whole("memory_mib"),
        shape=_shape(row),
        qos=qos,
        phase=phase,
        creation=creation,
        scheduled=scheduled,
        deletion=deletion,
    )


def _check_time(row: CsvRow, column: str, seconds: int | None) -> None:
    """Seconds from the trace's start, at most what a trace's ``at`` and ``duration`` may say
    (Go's time.Duration, as kubedra replay checks), so that replay takes what import writes."""
    if seconds is not None and seconds > MAX_DURATION_SECONDS:
        raise row.error(
            column,
            f"{seconds} seconds is longer than a trace may last (at most {MAX_DURATION_TEXT}, "
            "Go's time.Duration)",
        )


def _shape(row: CsvRow) -> GpuShape | None:
    gpus = row.whole("num_gpu")
    milli = row.whole("gpu_milli")
    if gpus == 0:
        if milli:
            raise row.error("gpu_milli", f"{milli} without GPUs (num_gpu is 0)")
        return None  # gpu_spec means nothing without GPUs
    if gpus == 1 and not 1 <= milli <= WHOLE_GPU:
        raise row.error("gpu_milli", f"{milli}: a share of one GPU is 1 to {WHOLE_GPU}")
    if gpus > 1 and milli != WHOLE_GPU:
        raise row.error(
            "gpu_milli",
            f"{milli} with num_gpu {gpus}: only a single GPU is shared (expected {WHOLE_GPU})",
        )
    models = []
    for model in row.text("gpu_spec").split("|"):
        model = model.strip()
        if not model:
            continue
        if model not in GPU_MEMORY:
            raise row.error(
                "gpu_spec", f"unknown GPU model {model!r} (known: {', '.join(GPU_MEMORY)})"
            )
        models.append(model)
    return GpuShape(gpus=gpus, milli=milli, models=tuple(sorted(set(models))))


def _kept(task: Task, options: AlibabaOptions) -> bool:
    return task.scheduled is not None or options.pending is PendingTasks.INCLUDE


def _duration(task: Task) -> int | None:
    """Seconds the pod runs once bound: its run time in production, or, never scheduled
    there, its whole life there; None (until the end) without a deletion time."""
    if task.deletion is None:
        return None
    start = task.scheduled if task.scheduled is not None else task.creation
    return task.deletion - start


def _entry(task: Task, options: AlibabaOptions) -> dict[str, Any]:
    labels = {}
    if task.qos:
        labels[LABEL_PREFIX + "qos"] = task.qos
    if task.phase:
        labels[LABEL_PREFIX + "phase"] = task.phase
    pod = pod_manifest(
        task.name,
        options.namespace,
        cpu_milli=task.cpu_milli,
        memory_mib=task.memory_mib,
        template=task.shape.template_name if task.shape is not None else None,
        labels=labels,
        priority_class=_priority_class_name(task.qos) if options.qos_priority else None,
    )
    return arrival(task.creation, _duration(task), [pod])


# ----- priorities -------------------------------------------------------------------------


def _priority_class_name(qos: str) -> str:
    return f"alibaba-qos-{qos.lower()}"


def _priority_classes(tasks: list[Task]) -> list[dict[str, Any]]:
    used = {task.qos for task in tasks}
    return [
        {
            "apiVersion": "scheduling.k8s.io/v1",
            "kind": "PriorityClass",
            "metadata": {"name": _priority_class_name(qos)},
            "value": value,
            "description": f"Alibaba trace tasks of QoS {qos}.",
        }
        for qos, value in QOS_PRIORITY.items()
        if qos in used
    ]


# ----- checks and reports -----------------------------------------------------------------


def _check_name(row: CsvRow, column: str, name: str) -> None:
    problems = is_dns1123_subdomain(name)
    if problems:
        raise row.error(column, f"{name!r} cannot be an object name: {problems[0]}")


def _check_unique(names: list[tuple[str, int]], path: Path, column: str) -> None:
    seen: dict[str, int] = {}
    for name, line in names:
        if name in seen:
            raise TraceInputError(
                f"{path}: line {line}, column {column}: {name!r} repeats line {seen[name]}"
            )
        seen[name] = line


def _header(
    nodes_csv: Path, tasks_csv: Path, nodes: int, tasks: int, options: AlibabaOptions
) -> list[str]:
    return [
        f"kubedra trace import {FORMAT}: {nodes} nodes, {tasks} tasks",
        f"from {nodes_csv.name} and {tasks_csv.name}",
        "(alibaba/clusterdata cluster-trace-gpu-v2023, CC BY 4.0: cite Weng et al.,",
        '"Beware of Fragmentation", USENIX ATC \'23)',
        f"options: pending={options.pending.value}, qos-priority="
        f"{str(options.qos_priority).lower()}, pods-per-node={options.pods_per_node}"
        + (f", limit={options.limit}" if options.limit is not None else ""),
        "replay: kubedra replay cluster.yaml --trace trace.yaml",
    ]


def _summary(
    nodes: list[GpuNode], tasks: list[Task], kept: list[Task], shapes: list[GpuShape]
) -> dict[str, Any]:
    models = Counter[str]()
    for node in nodes:
        if node.gpus:
            models[node.model] += node.gpus
    shared = sum(1 for task in kept if task.shape is not None and task.shape.shared)
    whole = sum(1 for task in kept if task.shape is not None and not task.shape.shared)
    return {
        "nodes": len(nodes),
        "gpus": sum(models.values()),
        "gpusByModel": dict(sorted(models.items())),
        "tasks": len(tasks),
        "entries": len(kept),
        "pendingSkipped": len(tasks) - len(kept),
        "cpuOnly": len(kept) - shared - whole,
        "wholeGpu": whole,
        "sharedGpu": shared,
        "gpusRequested": round(sum(t.shape.gpu_count() for t in kept if t.shape), 3),
        "runsUntilEnd": sum(1 for task in kept if task.deletion is None),
        "templates": [shape.template_name for shape in shapes],
        "lastArrivalSeconds": kept[-1].creation if kept else None,
    }

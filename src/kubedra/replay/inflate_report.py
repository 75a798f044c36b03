"""What an inflate run (kubedra.replay.inflate) found: the summary, the ``-o json|yaml``
document and the text report.

Devices are device-equivalents: a device allocated in part counts by its allocated share
(0.46 of a GPU's ``gpu_milli`` counts 0.46 allocated and 0.54 unallocated), so that the
figures are the paper's GPU-milli allocation. ``arrivedDemand`` is the demand of every task
that arrived (placed or not) over the devices. Figures "at" a demand are those after the last
task whose arrival kept the arrived demand at or below it.
"""

from __future__ import annotations

import csv
import math
from pathlib import Path
from typing import Any

from kubedra.replay.devices import NANO
from kubedra.replay.inflate import CHECKPOINT_STEP, InflateState
from kubedra.replay.report import devices


def checkpoints(until_demand: float) -> list[float]:
    """Every 10% of the capacity up to ``until_demand``, and ``until_demand`` itself."""
    steps = math.floor(until_demand / CHECKPOINT_STEP + 1e-9)
    out = [round((i + 1) * CHECKPOINT_STEP, 6) for i in range(steps)]
    if not out or not math.isclose(out[-1], until_demand):
        out.append(until_demand)
    return out


def figures(state: InflateState, index: int) -> dict[str, Any]:
    """The figures of sample ``index`` (0: before the first task)."""
    series = state.series
    total = state.total_devices
    allocated = series.allocated[index]
    return {
        "tasks": index,
        "arrivedDemand": _share(series.arrived[index], total),
        "placed": series.placed[index],
        "failed": series.failed[index],
        "allocatedDevices": devices(allocated),
        "unallocatedDevices": devices(total * NANO - allocated),
        "devicesInUse": series.in_use[index],
        "strandedDevices": series.stranded_devices[index],
        "strandedCapacity": {
            name: _round(column[index])
            for name, column in sorted(series.stranded_capacity.items())
            if column[index]
        },
    }


def at_demand(state: InflateState, demand: float) -> dict[str, Any]:
    """The figures after the last task that kept the arrived demand at or below ``demand``
    (a share of the devices)."""
    index = state.series.last_at(round(demand * state.total_devices * NANO))
    return {"demand": demand, **figures(state, index)}


def summary(state: InflateState) -> dict[str, Any]:
    options = state.options
    total = state.total_devices
    last = figures(state, len(state.series) - 1)
    failure = state.first_failure
    tasks = state.tasks
    return {
        "mode": "inflate",
        "untilDemand": options.until_demand,
        "seed": options.seed,
        "shuffle": options.shuffle,
        "nodes": state.nodes,
        "totalDevices": total,
        "traceTasks": state.trace_tasks,
        "tasks": len(tasks),
        "sampledTasks": sum(1 for t in tasks if t.sampled),
        "pods": sum(len(t.pods) for t in tasks),
        "placed": last["placed"],
        "failed": last["failed"],
        "failedTasks": sum(1 for t in tasks if t.failed),
        "arrivedDemand": last["arrivedDemand"],
        "arrivedDevices": devices(state.series.arrived[-1]),
        "allocatedDevices": last["allocatedDevices"],
        "unallocatedDevices": last["unallocatedDevices"],
        "allocatedShare": _share(state.series.allocated[-1], total),
        "unallocatedShare": _share(total * NANO - state.series.allocated[-1], total),
        "devicesInUse": last["devicesInUse"],
        "devicesUntouched": total - last["devicesInUse"],
        "capacity": {
            name: {
                "total": _round(value / NANO),
                "allocated": _round(state.allocated_capacity.get(name, 0) / NANO),
            }
            for name, value in sorted(state.capacity.items())
        },
        "strandedDevices": last["strandedDevices"],
        "strandedCapacity": last["strandedCapacity"],
        "firstFailure": None
        if failure is None
        else {
            "task": failure.task,
            "entry": failure.entry,
            "pod": failure.pod,
            "arrivedDemand": _share(failure.arrived, total),
            "message": failure.message,
        },
        "atDemand": [at_demand(state, d) for d in checkpoints(options.until_demand)],
    }


def document(state: InflateState) -> dict[str, Any]:
    """The whole result, as ``-o json|yaml`` prints it."""
    return {
        "trace": state.source,
        "summary": summary(state),
        "tasks": [
            {
                "task": t.number,
                "entry": t.entry,
                "sampled": t.sampled,
                "demand": devices(t.demand),
                "pods": t.pods,
                "failed": t.failed,
            }
            for t in state.tasks
        ],
        "series": document_series(state),
        "problems": [{"entry": p.entry, "message": p.message} for p in state.problems],
    }


def document_series(state: InflateState) -> dict[str, Any]:
    """The samples, one before the first task and one after each."""
    series = state.series
    total = state.total_devices
    return {
        "arrivedDemand": [_share(v, total) for v in series.arrived],
        "allocatedDevices": [devices(v) for v in series.allocated],
        "unallocatedDevices": [devices(total * NANO - v) for v in series.allocated],
        "devicesInUse": list(series.in_use),
        "strandedDevices": list(series.stranded_devices),
        "strandedCapacity": {
            k: [_round(v) for v in col] for k, col in sorted(series.stranded_capacity.items())
        },
        "placed": list(series.placed),
        "failed": list(series.failed),
    }


def curves(state: InflateState) -> dict[str, Any]:
    """What a comparison plots of the run: unallocated devices against arrived demand."""
    series = state.series
    total = state.total_devices
    return {
        "mode": "inflate",
        "totalDevices": total,
        "arrivedDemand": [v / (total * NANO) for v in series.arrived],
        "unallocatedDevices": [(total * NANO - v) / NANO for v in series.allocated],
        "strandedDevices": list(series.stranded_devices),
    }


def text(state: InflateState) -> list[str]:
    """The report for people: what arrived, the first failure, the figures as demand grew."""
    s = summary(state)
    options = state.options
    order = "in a random order (seed)" if options.shuffle else "in trace order"
    trace_part = min(s["tasks"], s["traceTasks"])
    lines = [
        f"Inflated {state.source} on {s['nodes']} node(s) with {s['totalDevices']} device(s) "
        f"its pods can use, until the arrived demand would pass "
        f"{100 * options.until_demand:g}% of them: "
        f"{s['tasks']} task(s) arrived ({trace_part} of the trace {order}, "
        f"{s['sampledTasks']} drawn from it with seed {options.seed}), "
        f"{s['placed']} pod(s) placed, {s['failed']} failed",
    ]
    failure = s["firstFailure"]
    if failure is None:
        lines.append("No pod failed.")
    else:
        lines.append(
            f"First failure: task {failure['task']} (entry {failure['entry']}, pod "
            f"{failure['pod']}) at arrived demand {_percent(failure['arrivedDemand'])}: "
            f"{failure['message']}"
        )
    rows = [
        [
            "DEMAND",
            "ARRIVED",
            "TASKS",
            "PLACED",
            "FAILED",
            "ALLOCATED",
            "UNALLOCATED",
            "IN USE",
            "STRANDED",
            "STRANDED CAPACITY",
        ]
    ]
    for point in s["atDemand"]:
        capacity_text = ", ".join(f"{k}={_amount(v)}" for k, v in point["strandedCapacity"].items())
        rows.append(
            [
                f"{100 * point['demand']:g}%",
                _percent(point["arrivedDemand"]),
                str(point["tasks"]),
                str(point["placed"]),
                str(point["failed"]),
                f"{point['allocatedDevices']:.2f}",
                f"{point['unallocatedDevices']:.2f}",
                str(point["devicesInUse"]),
                str(point["strandedDevices"]),
                capacity_text or "-",
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines.append("")
    lines += [
        "  ".join([*(c.rjust(w) for c, w in zip(row[:-1], widths, strict=False)), row[-1]])
        for row in rows
    ]
    capacity = ", ".join(
        f"{name} {_amount(c['allocated'])} of {_amount(c['total'])}"
        for name, c in s["capacity"].items()
        if c["allocated"]
    )
    lines += [
        "",
        f"At the end: {s['allocatedDevices']:.2f} of {s['totalDevices']} devices allocated "
        f"({_percent(s['allocatedShare'])}), {s['unallocatedDevices']:.2f} unallocated "
        f"({_percent(s['unallocatedShare'])}); {s['devicesInUse']} in use, "
        f"{s['devicesUntouched']} untouched; arrived demand {s['arrivedDevices']:.2f} "
        f"device-equivalents ({_percent(s['arrivedDemand'])})",
    ]
    if capacity:
        lines.append(f"Capacity allocated: {capacity}")
    if state.problems:
        lines += ["", f"Problems ({len(state.problems)}):"]
        lines += [f"  {p}" for p in state.problems[:50]]
    return lines


def write_csv(state: InflateState, path: Path) -> None:
    """The series as CSV: one row per sample (before the first task, then after each)."""
    doc_series = document_series(state)
    columns: list[tuple[str, list[Any]]] = [
        ("tasks", list(range(len(state.series)))),
        ("arrived_demand", doc_series["arrivedDemand"]),
        ("allocated_devices", doc_series["allocatedDevices"]),
        ("unallocated_devices", doc_series["unallocatedDevices"]),
        ("devices_in_use", doc_series["devicesInUse"]),
        ("stranded_devices", doc_series["strandedDevices"]),
        ("placed_pods", doc_series["placed"]),
        ("failed_pods", doc_series["failed"]),
    ]
    columns += [(f"stranded_capacity:{k}", v) for k, v in doc_series["strandedCapacity"].items()]
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow([name for name, _ in columns])
        for i in range(len(state.series)):
            writer.writerow([_cell(values[i]) for _, values in columns])


def _cell(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)


def _share(nano: int, total: int) -> float:
    return round(nano / (total * NANO), 6) if total else 0.0


def _round(value: float) -> float:
    return round(value, 6)


def _percent(share: float) -> str:
    return f"{100 * share:.2f}%"


def _amount(value: float) -> str:
    """``5625520`` (never ``5.62552e+06``), ``0.2``."""
    return str(int(value)) if float(value).is_integer() else f"{value:.6f}".rstrip("0")

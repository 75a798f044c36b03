"""What a replay found: the summary, the document of ``-o json|yaml`` and the text report.

Times are seconds from the start of the replay (null where a pod never got bound or never
ended). Wait percentiles are nearest-rank percentiles over the pods that got bound (a pod
never bound has no wait; ``neverPlaced`` counts them). Device-hours integrate, per DeviceClass,
pool and GPU model, the devices holding an allocation and the devices there, over the whole
replay (kubedra.replay.devices).
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from typing import Any

from kubedra.replay.devices import NANO, DeviceMeter
from kubedra.replay.driver import ReplayState
from kubedra.replay.records import PodRecord

PERCENTILES = (50, 90, 99)
TEXT_PODS = 200
"""Pods listed by the text report (``-o json`` lists all)."""
TEXT_GROUPS = 20
"""Device-hour groups (classes, models, pools) listed one by one; more are only counted."""


def percentile(values: list[float], p: float) -> float:
    """Nearest rank: the smallest value with at least ``p`` percent of the values at or
    below it (``values`` sorted, not empty)."""
    rank = max(math.ceil(p / 100 * len(values)), 1)
    return values[rank - 1]


def wait_stats(records: Iterable[PodRecord]) -> dict[str, float | int | None]:
    waits = sorted(w for r in records if (w := r.wait_seconds) is not None)
    out: dict[str, float | int | None] = {"pods": len(waits)}
    for p in PERCENTILES:
        out[f"p{p}"] = percentile(waits, p) if waits else None
    out["max"] = waits[-1] if waits else None
    out["mean"] = sum(waits) / len(waits) if waits else None
    return out


def summary(state: ReplayState) -> dict[str, Any]:
    records = state.records
    placed = [r for r in records if r.first_bound is not None]
    finished = [r.finished for r in records if r.finished is not None]
    by_class: dict[str, list[PodRecord]] = {}
    by_priority: dict[int, list[PodRecord]] = {}
    for record in records:
        for device_class in record.classes:
            by_class.setdefault(device_class, []).append(record)
        by_priority.setdefault(record.priority, []).append(record)
    out: dict[str, Any] = {
        "pods": len(records),
        "placed": len(placed),
        "neverPlaced": len(records) - len(placed),
        "finished": len(finished),
        "running": sum(1 for r in records if r.running),
        "pending": sum(1 for r in records if r.pending),
        "gone": sum(1 for r in records if r.gone is not None),
        "preemptions": sum(r.preemptions for r in records),
        "evictions": sum(r.evictions for r in records),
        "restarts": sum(r.restarts for r in records),
        "waitSeconds": wait_stats(records),
        "waitSecondsByDeviceClass": {k: wait_stats(v) for k, v in sorted(by_class.items())},
        "waitSecondsByPriority": {str(k): wait_stats(v) for k, v in sorted(by_priority.items())},
        "makespanSeconds": max(finished) if finished else None,
        "endSeconds": state.end,
        "nodes": state.nodes,
    }
    out.update(shares(state.meter))
    out.update(_devices(state.meter, state))
    return out


def shares(meter: DeviceMeter | None) -> dict[str, Any]:
    """The devices at the end, a device allocated in part counted by its allocated share
    (0.46 of a GPU's ``gpu_milli`` counts 0.46): ``totalDevices``, ``allocatedDevices``,
    ``unallocatedDevices``, ``devicesInUse`` (holding any allocation)."""
    if meter is None:
        return {
            "totalDevices": 0,
            "allocatedDevices": 0.0,
            "unallocatedDevices": 0.0,
            "devicesInUse": 0,
        }
    total = meter.counted_devices
    return {
        "totalDevices": total,
        "allocatedDevices": devices(meter.allocated_share),
        "unallocatedDevices": devices(total * NANO - meter.allocated_share),
        "devicesInUse": meter.counted_in_use,
    }


def devices(nano: int) -> float:
    """Device-equivalents from 10^-9 of a device, to 6 decimals (shares of milli-units and
    finer stay exact)."""
    return round(nano / NANO, 6)


def _devices(meter: DeviceMeter | None, state: ReplayState) -> dict[str, Any]:
    hours: dict[str, dict[str, Any]] = {"byDeviceClass": {}, "byPool": {}, "byModel": {}}
    scopes = {"class": "byDeviceClass", "pool": "byPool", "model": "byModel"}
    capacity: dict[str, dict[str, Any]] = {}
    if meter is not None:
        for (scope, name), integral in sorted(meter.groups.items()):
            hours[scopes[scope]][name] = _hours(
                integral.allocated_seconds, integral.total_seconds, 1
            )
        for (device_class, name), integral in sorted(meter.capacity_groups.items()):
            capacity.setdefault(device_class, {})[name] = _hours(
                integral.allocated_seconds, integral.total_seconds, NANO
            )
    series = state.series
    last = len(series) - 1
    stranded: dict[str, Any] = {"devices": 0, "capacity": {}}
    if last >= 0:
        stranded = {
            "devices": series.stranded_devices[last],
            "capacity": {k: v[last] for k, v in sorted(series.stranded_capacity.items())},
        }
    return {
        "deviceHours": hours,
        "capacityHours": capacity,
        "strandedAtEnd": stranded,
        "strandedDeviceHours": _area(series.time, series.stranded_devices, state.end) / 3600,
    }


def _hours(allocated: float, total: float, unit: int) -> dict[str, float | None]:
    return {
        "allocated": allocated / unit / 3600,
        "available": total / unit / 3600,
        "utilization": allocated / total if total else None,
    }


def _area(times: Iterable[float], values: Iterable[int], end: float) -> float:
    """The integral of a step function sampled at ``times`` up to ``end``."""
    points = list(zip(times, values, strict=True))
    total = 0.0
    for (t, v), (t_next, _) in zip(points, [*points[1:], (end, 0)], strict=True):
        total += v * max(t_next - t, 0.0)
    return total


def entries(state: ReplayState) -> list[dict[str, Any]]:
    """Per trace entry: its pods and what happened to them."""
    per: dict[int, list[PodRecord]] = {}
    for record in state.records:
        if record.entry is not None:
            per.setdefault(record.entry, []).append(record)
    out = []
    for entry in sorted(state.entries, key=lambda e: e.index):
        pods = per.get(entry.index, [])
        item: dict[str, Any] = {"entry": entry.index, "at": entry.at}
        if entry.action is not None:
            item["action"] = entry.action
        item.update(
            {
                "pods": len(pods),
                "placed": sum(1 for r in pods if r.first_bound is not None),
                "finished": sum(1 for r in pods if r.finished is not None),
                "preemptions": sum(r.preemptions for r in pods),
                "evictions": sum(r.evictions for r in pods),
                "restarts": sum(r.restarts for r in pods),
            }
        )
        out.append(item)
    return out


def document(state: ReplayState) -> dict[str, Any]:
    """The whole result, as ``-o json|yaml`` prints it."""
    return {
        "trace": state.source,
        "summary": summary(state),
        "entries": entries(state),
        "pods": [r.to_dict() for r in state.records],
        "series": state.series.to_dict(),
        "problems": [
            {"time": p.time, "entry": p.entry, "message": p.message} for p in state.problems
        ],
    }


def curves(state: ReplayState) -> dict[str, Any]:
    """What a comparison plots of the replay: the queue over time and the waits."""
    series = state.series
    return {
        "mode": "time",
        "end": state.end,
        "time": list(series.time),
        "pending": list(series.pending),
        "running": list(series.running),
        "waits": sorted(w for r in state.records if (w := r.wait_seconds) is not None),
    }


def human(seconds: float | None) -> str:
    """``90`` -> ``1m30s``, ``3600`` -> ``1h``, ``None`` -> ``-``."""
    if seconds is None:
        return "-"
    if seconds < 60:
        return f"{seconds:g}s"
    whole = round(seconds)
    parts = []
    for unit, size in (("d", 86400), ("h", 3600), ("m", 60), ("s", 1)):
        if whole >= size:
            parts.append(f"{whole // size}{unit}")
            whole %= size
    return "".join(parts)


def _wait_line(label: str, stats: dict[str, Any]) -> str:
    cells = "  ".join(f"{k} {human(stats[k])}" for k in ("p50", "p90", "p99", "max"))
    return f"{label}: {cells}  ({stats['pods']} placed)"


def text(state: ReplayState) -> list[str]:
    """The report for people: summary, waits, devices, problems, then the pods."""
    s = summary(state)
    lines = [
        f"Replayed {state.source} on {s['nodes']} node(s) until t={human(state.end)} "
        f"({_seconds(state.end)} s): {s['pods']} pod(s) arrived, {s['placed']} placed, "
        f"{s['neverPlaced']} never placed, {s['finished']} finished",
        f"At the end: {s['running']} running, {s['pending']} pending, {s['gone']} gone; "
        f"{s['preemptions']} preemption(s), {s['evictions']} eviction(s), "
        f"{s['restarts']} restart(s)",
        f"Makespan: {human(s['makespanSeconds'])}"
        + (f" ({_seconds(s['makespanSeconds'])} s)" if s["makespanSeconds"] is not None else ""),
        "",
        _wait_line("Wait", s["waitSeconds"]),
    ]
    for device_class, stats in s["waitSecondsByDeviceClass"].items():
        lines.append("  " + _wait_line(f"class {device_class}", stats))
    if len(s["waitSecondsByPriority"]) > 1:
        for priority, stats in s["waitSecondsByPriority"].items():
            lines.append("  " + _wait_line(f"priority {priority}", stats))
    lines += ["", "Device-hours (allocated / available):"]
    labels = {"byDeviceClass": "class", "byModel": "model", "byPool": "pool"}
    for scope in ("byDeviceClass", "byModel", "byPool"):
        groups = s["deviceHours"][scope]
        if len(groups) > TEXT_GROUPS:
            lines.append(f"  {len(groups)} {labels[scope]}s (each in -o json)")
            continue
        for name, h in groups.items():
            use = f" ({h['utilization']:.0%})" if h["utilization"] is not None else ""
            lines.append(
                f"  {labels[scope]} {name}: {h['allocated']:.2f} / {h['available']:.2f}{use}"
            )
    stranded = s["strandedAtEnd"]
    capacity = ", ".join(f"{k}={_amount(v)}" for k, v in stranded["capacity"].items() if v)
    lines.append(
        f"Stranded at the end: {stranded['devices']} device(s)"
        + (f", capacity {capacity}" if capacity else "")
        + f"; over the replay {s['strandedDeviceHours']:.2f} stranded device-hours"
    )
    if state.problems:
        lines += ["", f"Problems ({len(state.problems)}):"]
        lines += [f"  {_printable(str(p))}" for p in state.problems[:50]]
    rows = [["POD", "ARRIVAL", "BOUND", "NODE", "END", "WAIT", "PREEMPTED", "EVICTED", "RESTARTS"]]
    for record in state.records[:TEXT_PODS]:
        end = human(record.finished) if record.gone is None else f"gone {human(record.gone)}"
        rows.append(
            [
                record.key,
                human(record.arrival),
                human(record.bound),
                record.node or "-",
                end,
                human(record.wait_seconds),
                str(record.preemptions),
                str(record.evictions),
                str(record.restarts),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    lines.append("")
    lines += [
        "  ".join(c.ljust(w) for c, w in zip(row, widths, strict=True)).rstrip() for row in rows
    ]
    if len(state.records) > TEXT_PODS:
        lines.append(f"... and {len(state.records) - TEXT_PODS} more pods (-o json lists all)")
    return lines


def _amount(value: float) -> str:
    return f"{value:g}"


def _seconds(value: float) -> str:
    """Seconds as a plain number: ``12902960``, ``1.5`` (never ``1.29e+07``)."""
    return str(int(value)) if float(value).is_integer() else f"{value:.3f}".rstrip("0")


def _printable(text: str) -> str:
    """``text`` on one line with control characters escaped: a name an action gave (a node
    ``"a\\nforged line"`` or a terminal escape) cannot forge lines or colours in the report."""
    if text.isprintable():
        return text
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in text)

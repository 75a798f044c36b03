"""The time series of a replay: one sample per moment something changed (or per ``step``).

Columns hold plain numbers in compact arrays, so that a long replay keeps its series small:
pending and running pods, devices allocated per DeviceClass, capacity allocated per capacity
name (in the capacity's base unit: bytes for memory, the count for counts), free devices,
and stranded devices and capacity (kubedra.replay.devices).
"""

from __future__ import annotations

import csv
from array import array
from pathlib import Path
from typing import Any

from kubedra.replay.devices import NANO, Sample, metered


class Series:
    """Samples in time order; a column that appears later reads 0 before."""

    def __init__(self) -> None:
        self.time: array[float] = array("d")
        self.pending: array[int] = array("q")
        self.running: array[int] = array("q")
        self.free_devices: array[int] = array("q")
        self.stranded_devices: array[int] = array("q")
        self.allocated: dict[str, array[int]] = {}
        self.capacity: dict[str, array[float]] = {}
        self.stranded_capacity: dict[str, array[float]] = {}

    def __len__(self) -> int:
        return len(self.time)

    def add(self, time: float, pending: int, running: int, sample: Sample) -> None:
        """One sample; a sample at the time of the last one replaces it."""
        if self.time and self.time[-1] == time:
            self._drop_last()
        n = len(self.time)
        self.time.append(time)
        self.pending.append(pending)
        self.running.append(running)
        self.free_devices.append(sample.free_devices)
        self.stranded_devices.append(sample.stranded_devices)
        _put(self.allocated, sample.allocated, n, "q", 1)
        _put(self.capacity, sample.capacity, n, "d", NANO)
        _put(self.stranded_capacity, sample.stranded_capacity, n, "d", NANO)

    def _drop_last(self) -> None:
        for column in (self.time, self.pending, self.running, self.free_devices):
            column.pop()
        self.stranded_devices.pop()
        for columns in (self.allocated, self.capacity, self.stranded_capacity):
            for values in columns.values():
                values.pop()

    def to_dict(self) -> dict[str, Any]:
        return {
            "time": list(self.time),
            "pending": list(self.pending),
            "running": list(self.running),
            "freeDevices": list(self.free_devices),
            "strandedDevices": list(self.stranded_devices),
            "allocatedDevices": {k: list(v) for k, v in sorted(self.allocated.items())},
            "allocatedCapacity": {k: list(v) for k, v in sorted(self.capacity.items())},
            "strandedCapacity": {k: list(v) for k, v in sorted(self.stranded_capacity.items())},
        }

    def columns(self) -> list[tuple[str, Any]]:
        """(CSV header, values) per column, in a fixed order."""
        out: list[tuple[str, Any]] = [
            ("time_seconds", self.time),
            ("pending_pods", self.pending),
            ("running_pods", self.running),
            ("free_devices", self.free_devices),
            ("stranded_devices", self.stranded_devices),
        ]
        out += [(f"allocated_devices:{k}", v) for k, v in sorted(self.allocated.items())]
        out += [(f"allocated_capacity:{k}", v) for k, v in sorted(self.capacity.items())]
        out += [(f"stranded_capacity:{k}", v) for k, v in sorted(self.stranded_capacity.items())]
        return out

    def write_csv(self, path: Path) -> None:
        columns = self.columns()
        with path.open("w", newline="") as handle:
            writer = csv.writer(handle)
            writer.writerow([name for name, _ in columns])
            for i in range(len(self.time)):
                writer.writerow([_cell(values[i]) for _, values in columns])


def _put(columns: dict[str, Any], values: dict[str, int], n: int, typecode: str, unit: int) -> None:
    for name in values:
        if name not in columns:
            columns[name] = array(typecode, [0] * n)
    for name, column in columns.items():
        value = values.get(name, 0)
        column.append(metered(value) / unit if typecode == "d" else value)


def _cell(value: float | int) -> str:
    if isinstance(value, float) and value.is_integer():
        return str(int(value))
    return str(value)

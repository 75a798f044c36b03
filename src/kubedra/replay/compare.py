"""Tables of several replays: a comparison (a column per configuration), a sweep (a row per
cell) and the table file (CSV or JSON) of ``--table``.

The cells' summaries are those of kubedra.replay.report (a replay over time) and
kubedra.replay.inflate_report (``--inflate``); a table shows the figures their mode has.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.replay.report import human


@dataclass(frozen=True)
class Column:
    """One cell as a table shows it: its label, summary (None when it failed) and error."""

    label: str
    summary: dict[str, Any] | None
    error: str | None = None


Getter = Callable[[dict[str, Any]], str]


def _get(summary: dict[str, Any], path: str) -> Any:
    value: Any = summary
    for key in path.split("."):
        if not isinstance(value, dict):
            return None
        value = value.get(key)
    return value


def _seconds(path: str) -> Getter:
    return lambda s: human(_get(s, path))


def _number(path: str, digits: int | None = None) -> Getter:
    def get(s: dict[str, Any]) -> str:
        value = _get(s, path)
        if value is None:
            return "-"
        if digits is not None:
            return f"{value:.{digits}f}"
        return f"{value:g}" if isinstance(value, float) else str(value)

    return get


def _percent(path: str) -> Getter:
    def get(s: dict[str, Any]) -> str:
        value = _get(s, path)
        return "-" if value is None else f"{100 * value:.2f}%"

    return get


def _stranded_at_end(s: dict[str, Any]) -> str:
    stranded = s.get("strandedAtEnd") or {}
    parts = [str(stranded.get("devices", 0))]
    parts += [f"{k}={v:g}" for k, v in (stranded.get("capacity") or {}).items() if v]
    return ", ".join(parts)


def _stranded_inflate(s: dict[str, Any]) -> str:
    parts = [str(s.get("strandedDevices", 0))]
    parts += [f"{k}={v:g}" for k, v in (s.get("strandedCapacity") or {}).items() if v]
    return ", ".join(parts)


def _utilization(s: dict[str, Any]) -> str:
    classes = (s.get("deviceHours") or {}).get("byDeviceClass") or {}
    cells = [
        f"{h['utilization']:.1%}" if h.get("utilization") is not None else "-"
        for h in classes.values()
    ]
    return ", ".join(cells) or "-"


def _at(demand: float, key: str) -> Getter:
    def get(s: dict[str, Any]) -> str:
        for point in s.get("atDemand") or []:
            if abs(point["demand"] - demand) < 1e-9:
                return f"{point[key]:.2f}"
        return "-"

    return get


def _first_failure(s: dict[str, Any]) -> str:
    failure = s.get("firstFailure")
    if not failure:
        return "none"
    return f"task {failure['task']} at {100 * failure['arrivedDemand']:.2f}%"


TIME_ROWS: list[tuple[str, Getter]] = [
    ("pods", _number("pods")),
    ("placed", _number("placed")),
    ("never placed", _number("neverPlaced")),
    ("wait p50", _seconds("waitSeconds.p50")),
    ("wait p90", _seconds("waitSeconds.p90")),
    ("wait p99", _seconds("waitSeconds.p99")),
    ("wait max", _seconds("waitSeconds.max")),
    ("makespan", _seconds("makespanSeconds")),
    ("preemptions", _number("preemptions")),
    ("evictions", _number("evictions")),
    ("restarts", _number("restarts")),
    ("device-hours used (per class)", _utilization),
    ("unallocated devices at the end", _number("unallocatedDevices", 2)),
    ("stranded at the end", _stranded_at_end),
    ("stranded device-hours", _number("strandedDeviceHours", 2)),
]
"""The rows of a comparison of replays over time."""


def inflate_rows(until_demand: float) -> list[tuple[str, Getter]]:
    """The rows of a comparison of inflate runs (up to ``until_demand``)."""
    rows: list[tuple[str, Getter]] = [
        ("devices", _number("totalDevices")),
        ("tasks arrived", _number("tasks")),
        ("tasks drawn again", _number("sampledTasks")),
        ("pods placed", _number("placed")),
        ("pods failed", _number("failed")),
        ("first failure", _first_failure),
        ("arrived demand", _percent("arrivedDemand")),
    ]
    if until_demand > 1.0:
        rows.append(("unallocated at 100%", _at(1.0, "unallocatedDevices")))
    rows += [
        (f"unallocated at {100 * until_demand:g}%", _number("unallocatedDevices", 2)),
        ("allocated at the end", _number("allocatedDevices", 2)),
        ("unallocated share", _percent("unallocatedShare")),
        ("devices in use", _number("devicesInUse")),
        ("stranded at the end", _stranded_inflate),
    ]
    return rows


def rows_for(columns: Sequence[Column]) -> list[tuple[str, Getter]]:
    """The rows that suit the columns' mode (inflate or over time)."""
    summaries = [c.summary for c in columns if c.summary is not None]
    if summaries and summaries[0].get("mode") == "inflate":
        return inflate_rows(max(s.get("untilDemand", 1.0) for s in summaries))
    return TIME_ROWS


def comparison(columns: Sequence[Column]) -> list[str]:
    """A column per configuration, a row per figure; failed cells say so, and their errors
    follow the table."""
    rows = rows_for(columns)
    table = [["", *(c.label for c in columns)]]
    for label, get in rows:
        table.append(
            [label, *(get(c.summary) if c.summary is not None else "failed" for c in columns)]
        )
    lines = _aligned(table, first_left=True)
    errors = [c for c in columns if c.error is not None]
    if errors:
        lines += ["", "Failed:"] + [f"  {c.label}: {c.error}" for c in errors]
    return lines


def sweep_rows(columns: Sequence[tuple[str, str, str, Column]]) -> list[str]:
    """A row per cell (run, config, seed) with the figures of its mode."""
    summaries = [c.summary for *_, c in columns if c.summary is not None]
    inflate = bool(summaries) and summaries[0].get("mode") == "inflate"
    if inflate:
        until = max(s.get("untilDemand", 1.0) for s in summaries)
        picked = [
            ("ARRIVED", _percent("arrivedDemand")),
            ("ALLOCATED", _number("allocatedDevices", 2)),
            ("UNALLOCATED", _number("unallocatedDevices", 2)),
        ]
        if until > 1.0:
            picked.append(("UNALLOCATED@100%", _at(1.0, "unallocatedDevices")))
        picked += [("FAILED PODS", _number("failed")), ("FIRST FAILURE", _first_failure)]
    else:
        picked = [
            ("PLACED", _number("placed")),
            ("NEVER", _number("neverPlaced")),
            ("WAIT P50", _seconds("waitSeconds.p50")),
            ("P90", _seconds("waitSeconds.p90")),
            ("P99", _seconds("waitSeconds.p99")),
            ("PREEMPTIONS", _number("preemptions")),
            ("STRANDED DEV-H", _number("strandedDeviceHours", 2)),
        ]
    table = [["RUN", "CONFIG", "SEED", *(h for h, _ in picked)]]
    for run, config, seed, column in columns:
        if column.summary is None:
            table.append([run, config, seed, "failed", *([""] * (len(picked) - 1))])
        else:
            table.append([run, config, seed, *(get(column.summary) for _, get in picked)])
    lines = _aligned(table, first_left=True, left=3)
    errors = [(r, c, s, col) for r, c, s, col in columns if col.error is not None]
    if errors:
        lines += ["", "Failed:"]
        lines += [f"  {col.label}: {col.error}" for *_, col in errors]
    return lines


def _aligned(table: list[list[str]], first_left: bool, left: int = 1) -> list[str]:
    widths = [max(len(row[i]) for row in table) for i in range(len(table[0]))]
    out = []
    for row in table:
        cells = [
            c.ljust(w) if i < left or (i == 0 and first_left) else c.rjust(w)
            for i, (c, w) in enumerate(zip(row, widths, strict=True))
        ]
        out.append("  ".join(cells).rstrip())
    return out


def flatten(value: Any, prefix: str = "") -> dict[str, Any]:
    """A summary as flat columns: nested keys joined with dots, the ``atDemand`` points as
    ``atDemand[1].unallocatedDevices`` (by their demand); other lists as JSON text."""
    out: dict[str, Any] = {}
    if isinstance(value, dict):
        for key, item in value.items():
            out.update(flatten(item, f"{prefix}.{key}" if prefix else str(key)))
    elif (
        isinstance(value, list)
        and value
        and all(isinstance(v, dict) and "demand" in v for v in value)
    ):
        for point in value:
            rest = {k: v for k, v in point.items() if k != "demand"}
            out.update(flatten(rest, f"{prefix}[{point['demand']:g}]"))
    elif isinstance(value, list):
        out[prefix] = json.dumps(value)
    else:
        out[prefix] = value
    return out


def write_table(records: Sequence[dict[str, Any]], path: Path) -> None:
    """One row per cell: ``.json`` as the records themselves, otherwise CSV with the run,
    config, seed and error, then the flattened summary."""
    if path.suffix == ".json":
        path.write_text(json.dumps(list(records), indent=2) + "\n")
        return
    rows = []
    columns: dict[str, None] = dict.fromkeys(["run", "config", "seed", "error"])
    for record in records:
        row = {k: record.get(k) for k in ("run", "config", "seed", "error")}
        row.update(flatten(record.get("summary") or {}))
        columns.update(dict.fromkeys(row))
        rows.append(row)
    with path.open("w", newline="") as handle:
        writer = csv.writer(handle)
        writer.writerow(list(columns))
        for row in rows:
            writer.writerow(["" if row.get(c) is None else row[c] for c in columns])

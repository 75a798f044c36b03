"""Overlaid charts of several replays (a comparison, the cells of a sweep), and the chart of
one inflate run (matplotlib, imported only here).

Inflate runs (the paper's experiment) give ``unallocated``: the unallocated devices, in
percent of the devices, against the arrived demand, in percent of the devices (the paper's
Fig. 9a), with the ideal (every arrived task placed) dotted, and ``unallocated-tail``, the
same from 75% of arrived demand on. Replays over time give ``wait-cdf`` (the CDF of the
waits) and ``queue`` (pending pods over time). Each chart is a PNG (1280 x 720) and an SVG;
a line per cell, one colour per configuration (its seeds share it).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from kubedra.replay.plot import DPI, HEIGHT_INCHES, WIDTH_INCHES, PlotError, check_available

TAIL_FROM = 0.75
"""Where ``unallocated-tail`` starts (the paper's figure shows 75% to 120%)."""


@dataclass(frozen=True)
class Line:
    """One cell's curves (``inflate_report.curves`` or ``report.curves``) under a label;
    lines of the same ``group`` share a colour and a legend entry."""

    label: str
    curves: dict[str, Any]
    group: str | None = None


def file_stem(name: str) -> str:
    """A run's name as part of a file name."""
    return re.sub(r"[^A-Za-z0-9_.-]+", "-", name).strip("-.") or "run"


def plot_lines(lines: Sequence[Line], directory: Path, prefix: str = "") -> list[Path]:
    """Draw the charts the lines' modes have into ``directory`` (created if missing);
    returns the files written."""
    check_available()
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    try:
        directory.mkdir(parents=False, exist_ok=True)
    except OSError as error:
        raise PlotError(f"--plot {directory}: {error.strerror or error}") from None
    plt.rcParams.update({"font.size": 13, "lines.linewidth": 2, "svg.fonttype": "none"})
    written: list[Path] = []
    inflate = [line for line in lines if line.curves.get("mode") == "inflate"]
    timed = [line for line in lines if line.curves.get("mode") == "time"]
    if inflate:
        written += _unallocated(plt, inflate, directory, f"{prefix}unallocated", 0.0)
        written += _unallocated(plt, inflate, directory, f"{prefix}unallocated-tail", TAIL_FROM)
    if timed:
        written += _wait_cdf(plt, timed, directory, f"{prefix}wait-cdf")
        written += _queue(plt, timed, directory, f"{prefix}queue")
    return written


def _colours(lines: Sequence[Line]) -> dict[str, Any]:
    from matplotlib import colormaps

    tab10 = colormaps["tab10"]
    palette = [tab10(i) for i in range(10)]
    groups: dict[str, Any] = {}
    for line in lines:
        key = line.group or line.label
        if key not in groups:
            groups[key] = palette[len(groups) % len(palette)]
    return groups


def _draw(plt: Any, lines: Sequence[Line], draw_one: Any) -> tuple[Any, Any]:
    fig, ax = plt.subplots(figsize=(WIDTH_INCHES, HEIGHT_INCHES))
    colours = _colours(lines)
    labelled: set[str] = set()
    for line in lines:
        key = line.group or line.label
        label = key if key not in labelled else None
        labelled.add(key)
        draw_one(ax, line, colours[key], label)
    return fig, ax


def _save(plt: Any, fig: Any, directory: Path, name: str) -> list[Path]:
    fig.tight_layout()
    written = []
    for suffix in ("png", "svg"):
        path = directory / f"{name}.{suffix}"
        try:
            fig.savefig(path, format=suffix, dpi=DPI)
        except OSError as error:
            raise PlotError(f"--plot {path}: {error.strerror or error}") from None
        written.append(path)
    plt.close(fig)
    return written


def _unallocated(
    plt: Any, lines: Sequence[Line], directory: Path, name: str, start: float
) -> list[Path]:
    def draw_one(ax: Any, line: Line, colour: Any, label: str | None) -> None:
        curves = line.curves
        total = curves["totalDevices"] or 1
        points = [
            (100 * x, 100 * u / total)
            for x, u in zip(curves["arrivedDemand"], curves["unallocatedDevices"], strict=True)
            if x >= start
        ]
        if points:
            xs, ys = zip(*points, strict=True)
            ax.plot(xs, ys, color=colour, label=label)

    fig, ax = _draw(plt, lines, draw_one)
    end = max((max(line.curves["arrivedDemand"], default=0.0) for line in lines), default=1.0)
    ideal_x = [100 * start, 100.0, max(100.0, 100 * end)]
    ax.plot(ideal_x, [max(100 - x, 0.0) for x in ideal_x], ":", color="grey", label="ideal")
    ax.set_xlim(100 * start, max(100 * end, 100 * start + 1))
    if start > 0:
        shown = [
            100 * u / (line.curves["totalDevices"] or 1)
            for line in lines
            for x, u in zip(
                line.curves["arrivedDemand"], line.curves["unallocatedDevices"], strict=True
            )
            if x >= start
        ]
        ax.set_ylim(0, max(shown, default=25.0) * 1.05 or 1.0)
    else:
        ax.set_ylim(0, 100)
    totals = sorted({line.curves["totalDevices"] for line in lines})
    of = f" of {totals[0]}" if len(totals) == 1 else ""
    ax.set_title(f"Unallocated devices{of} as the arrived demand grows")
    ax.set_xlabel("arrived demand (% of the devices)")
    ax.set_ylabel("unallocated devices (%)")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    return _save(plt, fig, directory, name)


def _time_unit(lines: Sequence[Line]) -> tuple[str, float]:
    from kubedra.replay.plot import time_unit

    return time_unit(max((line.curves.get("end") or 0.0 for line in lines), default=0.0))


def _wait_cdf(plt: Any, lines: Sequence[Line], directory: Path, name: str) -> list[Path]:
    from kubedra.replay.plot import time_unit

    longest = max((max(line.curves["waits"], default=0.0) for line in lines), default=0.0)
    unit, scale = time_unit(longest)
    if longest < 120:
        unit, scale = "s", 1.0

    def draw_one(ax: Any, line: Line, colour: Any, label: str | None) -> None:
        waits = line.curves["waits"]
        if waits:
            xs = [w / scale for w in waits]
            ys = [(i + 1) / len(waits) for i in range(len(waits))]
            ax.step([0.0, *xs], [0.0, *ys], where="post", color=colour, label=label)

    fig, ax = _draw(plt, lines, draw_one)
    ax.set_title("Wait before binding, CDF over the placed pods")
    ax.set_xlabel(f"wait ({unit})")
    ax.set_ylabel("fraction of placed pods")
    ax.set_ylim(0, 1.02)
    ax.legend(loc="lower right")
    ax.grid(alpha=0.3)
    return _save(plt, fig, directory, name)


def _queue(plt: Any, lines: Sequence[Line], directory: Path, name: str) -> list[Path]:
    unit, scale = _time_unit(lines)

    def draw_one(ax: Any, line: Line, colour: Any, label: str | None) -> None:
        times = [t / scale for t in line.curves["time"]]
        ax.step(times, line.curves["pending"], where="post", color=colour, label=label)

    fig, ax = _draw(plt, lines, draw_one)
    ax.set_title("Pending pods over time")
    ax.set_xlabel(f"time since the start ({unit})")
    ax.set_ylabel("pending pods")
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    return _save(plt, fig, directory, name)

"""Charts of a replay (matplotlib, imported only here): devices allocated over time per
DeviceClass, the queue (pending and running pods) over time, and the CDF of the waits.

Each chart is written as PNG (1280 x 720 pixels) and SVG; axes say their units. Time is shown
in minutes, hours or days, whichever suits the length of the replay.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path
from typing import Any

from kubedra.replay.driver import ReplayState

INSTALL_HINT = "pip install 'kubedra[plot]'"
WIDTH_INCHES, HEIGHT_INCHES, DPI = 12.8, 7.2, 100


class PlotError(Exception):
    """Charts cannot be drawn (matplotlib missing, a directory that cannot be written)."""


def check_available() -> None:
    """Raise PlotError naming the install command when matplotlib is missing."""
    if importlib.util.find_spec("matplotlib") is None:
        raise PlotError(f"--plot needs matplotlib, which is not installed: {INSTALL_HINT}")


def time_unit(end: float) -> tuple[str, float]:
    """The unit to show a replay of ``end`` seconds in: (label, seconds per unit)."""
    if end <= 2 * 3600:
        return "min", 60.0
    if end <= 3 * 86400:
        return "h", 3600.0
    return "d", 86400.0


def plot(state: ReplayState, directory: Path) -> list[Path]:
    """Draw the charts into ``directory`` (created if missing); returns the files written."""
    check_available()
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt
    from matplotlib.ticker import MaxNLocator

    try:
        directory.mkdir(exist_ok=True)
    except OSError as error:
        raise PlotError(f"--plot {directory}: {error.strerror or error}") from None
    unit, scale = time_unit(state.end)
    series = state.series
    times = [t / scale for t in series.time]
    written: list[Path] = []

    def save(fig: Any, name: str) -> None:
        fig.tight_layout()
        for suffix in ("png", "svg"):
            path = directory / f"{name}.{suffix}"
            try:
                fig.savefig(path, format=suffix, dpi=DPI)
            except OSError as error:
                raise PlotError(f"--plot {path}: {error.strerror or error}") from None
            written.append(path)
        plt.close(fig)

    plt.rcParams.update({"font.size": 13, "lines.linewidth": 2, "svg.fonttype": "none"})

    fig, ax = plt.subplots(figsize=(WIDTH_INCHES, HEIGHT_INCHES))
    for device_class, values in sorted(series.allocated.items()):
        ax.step(times, list(values), where="post", label=device_class)
    ax.set_title("Devices allocated over time, per DeviceClass")
    ax.set_xlabel(f"time since the start ({unit})")
    ax.set_ylabel("devices allocated")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    if series.allocated:
        ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    save(fig, "devices")

    fig, ax = plt.subplots(figsize=(WIDTH_INCHES, HEIGHT_INCHES))
    ax.step(times, list(series.pending), where="post", label="pending pods")
    ax.step(times, list(series.running), where="post", label="running pods")
    ax.set_title("Queue over time")
    ax.set_xlabel(f"time since the start ({unit})")
    ax.set_ylabel("pods")
    ax.yaxis.set_major_locator(MaxNLocator(integer=True))
    ax.legend(loc="upper right")
    ax.grid(alpha=0.3)
    save(fig, "queue")

    waits = sorted(w for r in state.records if (w := r.wait_seconds) is not None)
    wait_unit, wait_scale = time_unit(waits[-1] if waits else 0.0)
    if waits and waits[-1] < 120:
        wait_unit, wait_scale = "s", 1.0
    fig, ax = plt.subplots(figsize=(WIDTH_INCHES, HEIGHT_INCHES))
    if waits:
        xs = [w / wait_scale for w in waits]
        ys = [(i + 1) / len(waits) for i in range(len(waits))]
        ax.step([0.0, *xs], [0.0, *ys], where="post")
    ax.set_title(f"Wait before binding, CDF over the {len(waits)} placed pod(s)")
    ax.set_xlabel(f"wait ({wait_unit})")
    ax.set_ylabel("fraction of placed pods")
    ax.set_ylim(0, 1.02)
    ax.grid(alpha=0.3)
    save(fig, "wait-cdf")
    return written

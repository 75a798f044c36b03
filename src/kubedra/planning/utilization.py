"""``kubedra plan utilization``: per node, pool and device class, what the devices hold.

For each group: devices used and free, consumable capacity used and free (per capacity
name, summed over the group's devices), counters used for partitionable devices (per pool),
and fragmentation: the share of the free capacity (or, for devices without capacity, of the
free devices) that no waiting request can use (kubedra.planning.usage).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from kubedra.planning.usage import DeviceUse, Usage, quantity


@dataclass
class Group:
    scope: str  # "node" | "pool" | "class"
    name: str
    devices: int = 0
    used: int = 0
    stranded_devices: int = 0
    capacity: dict[str, int] = field(default_factory=dict)
    capacity_used: dict[str, int] = field(default_factory=dict)
    stranded: dict[str, int] = field(default_factory=dict)
    counters: list[dict[str, Any]] = field(default_factory=list)
    pool_status: dict[str, Any] | None = None
    """For a pool: what a ResourcePoolStatusRequest reports for it (KEP-5677), without the
    identifying fields: device counts, ``partitionSummary``, ``shareableSummary``,
    ``validationError`` (kubedra.cluster.poolstatus)."""

    @property
    def free(self) -> int:
        return self.devices - self.used

    def add(self, d: DeviceUse) -> None:
        self.devices += 1
        self.used += d.used
        for n, v in d.capacity.items():
            self.capacity[n] = self.capacity.get(n, 0) + v
            self.capacity_used[n] = self.capacity_used.get(n, 0) + d.capacity_used.get(n, 0)
        if not d.usable:
            self.stranded_devices += not d.used
            for n, v in d.free.items():
                self.stranded[n] = self.stranded.get(n, 0) + v

    shapes: int = 0

    def fragmentation(self) -> float | None:
        """Stranded share of the free capacity (all names together) or of free devices;
        None when no pod shape (waiting or given) was there to judge by."""
        if not self.shapes:
            return None
        free = sum(self.capacity[n] - self.capacity_used[n] for n in self.capacity)
        if free:
            return sum(self.stranded.values()) / free
        return self.stranded_devices / self.free if self.free else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {
            "scope": self.scope,
            "name": self.name,
            "devices": self.devices,
            "used": self.used,
            "free": self.free,
            "capacity": {
                n: {
                    "used": quantity(self.capacity_used[n]),
                    "free": quantity(self.capacity[n] - self.capacity_used[n]),
                    "stranded": quantity(self.stranded.get(n, 0)),
                }
                for n in sorted(self.capacity)
            },
            "counters": self.counters,
            "fragmentation": None if (f := self.fragmentation()) is None else round(f, 4),
            **({"poolStatus": self.pool_status} if self.pool_status is not None else {}),
        }


def groups(use: Usage) -> list[Group]:
    """Node groups, then pools, then device classes, each sorted by name."""
    found: dict[tuple[str, str], Group] = {}

    def group(scope: str, name: str) -> Group:
        g = found.get((scope, name))
        if g is None:
            g = found[(scope, name)] = Group(scope, name, shapes=use.shapes)
        return g

    for d in use.devices:
        group("node", d.node).add(d)
        group("pool", f"{d.driver}/{d.pool}").add(d)
        for cls in d.classes:
            group("class", cls).add(d)
    for c in use.counters:
        group("pool", f"{c.driver}/{c.pool}").counters.append(
            {
                "counterSet": c.counter_set,
                "counter": c.counter,
                "used": quantity(c.used),
                "total": quantity(c.total),
            }
        )
    order = {"node": 0, "pool": 1, "class": 2}
    return sorted(found.values(), key=lambda g: (order[g.scope], g.name))


_IDENTITY = ("driver", "poolName")


def attach_pool_status(rows: list[Group], statuses: list[dict[str, Any]]) -> None:
    """Give each pool group the status a ResourcePoolStatusRequest reports for it."""
    by_pool = {f"{s['driver']}/{s['poolName']}": s for s in statuses}
    for group in rows:
        status = by_pool.get(group.name) if group.scope == "pool" else None
        if status is not None:
            group.pool_status = {k: v for k, v in status.items() if k not in _IDENTITY}


def partitions_text(status: dict[str, Any] | None) -> str:
    """``Full 0/1, Half 1/2`` (allocatable/total per partition type), or ``-``."""
    entries = (status or {}).get("partitionSummary") or []
    return ", ".join(f"{e['type']} {e['allocatable']}/{e['total']}" for e in entries) or "-"


def table(rows: list[Group]) -> str:
    """A plain text table, one line per group."""
    header = [
        "SCOPE",
        "NAME",
        "DEVICES",
        "USED",
        "FREE",
        "CAPACITY USED/FREE",
        "COUNTERS",
        "PARTITIONS ALLOCATABLE/TOTAL",
        "FRAG",
    ]
    lines = [header]
    for g in rows:
        caps = ", ".join(
            f"{n} {quantity(g.capacity_used[n])}/{quantity(g.capacity[n] - g.capacity_used[n])}"
            for n in sorted(g.capacity)
        )
        counters = ", ".join(
            f"{c['counterSet']}.{c['counter']} {c['used']}/{c['total']}" for c in g.counters
        )
        lines.append(
            [
                g.scope,
                g.name,
                str(g.devices),
                str(g.used),
                str(g.free),
                caps or "-",
                counters or "-",
                partitions_text(g.pool_status),
                "-" if (f := g.fragmentation()) is None else f"{f:.2f}",
            ]
        )
    widths = [max(len(row[i]) for row in lines) for i in range(len(header))]
    return "\n".join(
        "  ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)).rstrip()
        for row in lines
    )


def plot(rows: list[Group], path: Path) -> int:
    """Stacked used/free device bars per device class and per node; PNG or SVG by suffix.

    Each bar has the SVG id ``bar-<scope>-<name>-<used|free>``; returns the number of bars."""
    import matplotlib

    matplotlib.use("Agg")
    from matplotlib import pyplot as plt

    suffix = path.suffix.lower()
    if suffix not in (".png", ".svg"):
        raise ValueError(f"--plot {path}: the file name must end in .png or .svg")
    panels = [("class", "Devices per device class"), ("node", "Devices per node")]
    fig, axes = plt.subplots(1, len(panels), figsize=(12, 4.5), squeeze=False)
    bars = 0
    for ax, (scope, title) in zip(axes[0], panels, strict=True):
        selected = [g for g in rows if g.scope == scope]
        names = [g.name for g in selected]
        used = [g.used for g in selected]
        free = [g.free for g in selected]
        for container, kind in (
            (ax.bar(names, used, color="#d62728", label="used"), "used"),
            (ax.bar(names, free, bottom=used, color="#2ca02c", label="free"), "free"),
        ):
            for patch, name in zip(container.patches, names, strict=True):
                patch.set_gid(f"bar-{scope}-{name}-{kind}")
                bars += 1
        ax.set_title(title)
        ax.set_ylabel("devices")
        ax.tick_params(axis="x", labelrotation=45)
        ax.legend()
    fig.tight_layout()
    fig.savefig(path, format=suffix[1:])
    plt.close(fig)
    return bars

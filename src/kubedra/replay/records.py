"""What a replay remembers of each pod of the trace, from its arrival to its end.

A record follows one pod of the trace through its runs: when a pod that may restart (a Job's,
or one of an entry with ``restart: true``) is preempted or evicted, its replacement continues
the same record, so that waits, preemptions and restarts add up per pod of the trace.
"""

from __future__ import annotations

from typing import Any


class PodRecord:
    """One pod of the trace (times in seconds from the start; None: did not happen)."""

    __slots__ = (
        "arrival",
        "bound",
        "classes",
        "devices",
        "duration",
        "entry",
        "evictions",
        "finished",
        "first_bound",
        "gone",
        "group",
        "job",
        "key",
        "name",
        "namespace",
        "node",
        "pending_since",
        "preemptions",
        "priority",
        "restartable",
        "restarts",
        "run",
        "shape",
        "uid",
        "wait",
    )

    def __init__(
        self,
        namespace: str,
        name: str,
        arrival: float,
        *,
        entry: int | None = None,
        duration: float | None = None,
        restartable: bool = False,
        priority: int = 0,
        job: tuple[str, str] | None = None,
        group: tuple[str, str] | None = None,
    ) -> None:
        self.namespace = namespace
        self.name = name
        self.key = f"{namespace}/{name}"
        """The live pod's key (a replacement may have another name)."""
        self.uid = ""
        self.arrival = arrival
        self.entry = entry
        self.duration = duration
        self.restartable = restartable
        self.priority = priority
        self.job = job
        self.group = group
        self.classes: tuple[str, ...] = ()
        self.shape: tuple[str, ...] = ()
        """The specs (JSON) of the claims it waits for, for the stranded figure."""
        self.bound: float | None = None
        self.first_bound: float | None = None
        self.node: str | None = None
        self.devices: tuple[str, ...] = ()
        self.finished: float | None = None
        self.gone: float | None = None
        self.pending_since: float | None = arrival
        self.wait = 0.0
        self.preemptions = 0
        self.evictions = 0
        self.restarts = 0
        self.run = 0
        """Counts the pod's runs, so that a finish planned for an earlier run is ignored."""

    @property
    def running(self) -> bool:
        return self.pending_since is None and self.finished is None and self.gone is None

    @property
    def pending(self) -> bool:
        return self.pending_since is not None and self.gone is None

    @property
    def wait_seconds(self) -> float | None:
        """Time from arrival (or from a disruption) to binding, summed over its runs; None
        when it never got bound."""
        return self.wait if self.first_bound is not None else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "namespace": self.namespace,
            "name": self.name,
            "pod": self.key.partition("/")[2],
            "entry": self.entry,
            "arrival": self.arrival,
            "bound": self.bound,
            "node": self.node,
            "devices": list(self.devices),
            "finished": self.finished,
            "gone": self.gone,
            "waitSeconds": self.wait_seconds,
            "preemptions": self.preemptions,
            "evictions": self.evictions,
            "restarts": self.restarts,
            "priority": self.priority,
            "deviceClasses": list(self.classes),
        }

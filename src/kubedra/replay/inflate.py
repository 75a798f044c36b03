"""The paper's experiment: tasks arrive one after another and never end, until the demand that
arrived reaches a share of the cluster's devices (``kubedra replay --inflate``).

Weng et al., "Beware of Fragmentation" (USENIX ATC '23), judge placement policies this way,
with the authors' simulator (hkust-adsl/kubernetes-scheduler-simulator, its workload tuning
and ``SchedulePods``):

- the tasks of the trace arrive one at a time and are scheduled at once; no time passes and
  no task ends, so the cluster only fills up. Here they arrive in trace order (the order of
  ``at``, ties in file order); ``shuffle`` draws a random order with the seed first, as the
  authors' runs do (``shufflePod``);
- a task whose pod finds no place fails: the pod is deleted at once and never retried, and
  its demand still counts as arrived;
- when the trace runs out, tasks are drawn from it at random, with replacement (the seed's
  generator), named ``<name>-tuned-<k>`` as the authors' simulator names them;
- the run stops before the first task whose demand would carry the arrived demand past
  ``until_demand`` times the cluster's capacity (``--until-demand 1.3``: 130%).

Capacity and demand are counted in device-equivalents over DRA objects (not GPUs and
milli-GPUs of nodes): the devices some request of the trace's pods could ever use make up
the capacity; a request takes ``count`` devices, each whole or as a share (the largest
fraction of a capacity it consumes: ``gpu_milli: 460`` of 1000 is 0.46); a device counts as
allocated by the same share (kubedra.replay.devices). After every task the meter samples the
allocated and unallocated devices, the devices in use, and the stranded devices and capacity
(free, but no request of any pod shape of the trace could use it).
"""

from __future__ import annotations

import copy
import random
from array import array
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from kubedra.api.workloads import is_workload
from kubedra.cluster.events import Event
from kubedra.cluster.simulation import Simulation
from kubedra.replay.devices import NANO, DeviceMeter
from kubedra.replay.driver import Problem
from kubedra.replay.shapes import chained, claim_specs, entry_pods, spec_key
from kubedra.replay.trace import Entry, Trace, renamed
from kubedra.scheduler.policies.workload import ObjectIndex

MAX_TASKS = 10_000_000
"""The most tasks one run lets arrive (a trace whose tasks ask for almost nothing)."""
MAX_UNTIL_DEMAND = 100.0
"""The most --until-demand takes: 100 times the cluster's devices (the paper stops at 1.3);
beyond, a run would only add failed tasks (and inf or 1e300 cannot be counted at all)."""
CHECKPOINT_STEP = 0.1
"""Report the figures at every 10% of arrived demand (and at 100% and the end)."""

InflateProgress = Callable[[float, int, int], None]
"""Called after each task with (arrived demand as a share, tasks arrived, pods failed)."""


class InflateError(ValueError):
    """The experiment cannot run on this cluster and trace (no devices its pods could use,
    no task asking for any, a trace of actions only)."""


def until_demand_problem(value: float) -> str | None:
    """What is wrong with an --until-demand value, or None: above 0, at most
    MAX_UNTIL_DEMAND (a number, so not NaN or infinite)."""
    if not 0 < value <= MAX_UNTIL_DEMAND:  # NaN fails both comparisons
        return f"--until-demand {value:g}: must be above 0 and at most {MAX_UNTIL_DEMAND:g}"
    return None


@dataclass(frozen=True)
class InflateOptions:
    until_demand: float = 1.3
    """Stop when the arrived demand would pass this share of the capacity."""
    seed: int = 0
    """Seeds the order (``shuffle``) and the tasks drawn once the trace runs out."""
    shuffle: bool = False


@dataclass
class TaskRecord:
    """One task that arrived: one copy of a trace entry's objects."""

    number: int
    """Arrival order, from 1."""
    entry: int
    sampled: bool
    demand: int
    """Device-equivalents asked for, in 10^-9 of a device."""
    pods: list[str] = field(default_factory=list)
    """Keys (namespace/name) of the pods it created."""
    failed: list[str] = field(default_factory=list)
    """Keys of its pods that found no place (deleted)."""


@dataclass(frozen=True)
class Failure:
    """The first pod that found no place."""

    task: int
    entry: int
    pod: str
    arrived: int
    """Arrived demand with its task, in 10^-9 of a device."""
    message: str


class InflateSeries:
    """One sample before the first task and one after each task."""

    def __init__(self) -> None:
        self.arrived: array[int] = array("q")
        self.allocated: array[int] = array("q")
        self.in_use: array[int] = array("q")
        self.stranded_devices: array[int] = array("q")
        self.placed: array[int] = array("q")
        self.failed: array[int] = array("q")
        self.stranded_capacity: dict[str, array[float]] = {}
        """Per capacity name, in its base unit (bytes for memory; allocator units overflow)."""

    def __len__(self) -> int:
        return len(self.arrived)

    def add(
        self,
        arrived: int,
        allocated: int,
        in_use: int,
        stranded: int,
        stranded_capacity: dict[str, int],
        placed: int,
        failed: int,
    ) -> None:
        n = len(self.arrived)
        self.arrived.append(arrived)
        self.allocated.append(allocated)
        self.in_use.append(in_use)
        self.stranded_devices.append(stranded)
        self.placed.append(placed)
        self.failed.append(failed)
        for name in stranded_capacity:
            if name not in self.stranded_capacity:
                self.stranded_capacity[name] = array("d", [0.0] * n)
        for name, column in self.stranded_capacity.items():
            column.append(stranded_capacity.get(name, 0) / NANO)

    def last_at(self, arrived: int) -> int:
        """The index of the last sample whose arrived demand is at most ``arrived``."""
        lo, hi = 0, len(self.arrived) - 1
        while lo < hi:  # arrived demand never decreases: bisect
            mid = (lo + hi + 1) // 2
            if self.arrived[mid] <= arrived:
                lo = mid
            else:
                hi = mid - 1
        return lo


@dataclass
class InflateState:
    """Everything an inflate run produced, for kubedra.replay.inflate_report."""

    source: str
    options: InflateOptions
    nodes: int
    total_devices: int
    capacity: dict[str, int]
    """Per capacity name, what the counted devices have (allocator units)."""
    allocated_capacity: dict[str, int]
    tasks: list[TaskRecord]
    series: InflateSeries
    first_failure: Failure | None
    problems: list[Problem]
    trace_tasks: int
    """Tasks the trace holds (entries times their ``count``)."""


class Inflation:
    """Runs the experiment on ``sim`` (cluster loaded, not yet run); :meth:`run` does it."""

    def __init__(
        self,
        sim: Simulation,
        trace: Trace,
        options: InflateOptions | None = None,
        on_progress: InflateProgress | None = None,
    ) -> None:
        self.sim = sim
        self.source = trace.source
        self.options = options or InflateOptions()
        problem = until_demand_problem(self.options.until_demand)
        if problem is not None:
            raise InflateError(problem)
        actions = [e for e in trace.entries if e.action is not None]
        if actions:
            raise InflateError(
                f"{trace.source}: entry {actions[0].index} is an action "
                f"({actions[0].description}): --inflate replays arrivals only"
            )
        self.entries: list[Entry] = list(trace.entries)
        if not self.entries:
            raise InflateError(f"{trace.source}: no arrivals to inflate")
        self.on_progress = on_progress
        dra = getattr(sim.scheduler, "dra", None)
        if dra is None:
            raise InflateError("--inflate needs the default scheduler (DynamicResources)")
        self.meter = DeviceMeter(dra)
        self.problems: list[Problem] = []
        self._demands: dict[int, int] = {}
        self._shapes: dict[int, tuple[tuple[str, ...], ...]] = {}
        self._created: list[str] = []
        self._consumed: set[str] = set()
        """Capacity names the trace's requests consume: stranded capacity is only these."""

    # --- the run ------------------------------------------------------------------------------

    def run(self) -> InflateState:
        sim = self.sim
        sim.settle()  # the cluster's own pods first: they hold devices but did not arrive
        meter = self.meter
        meter.update(0.0)
        shapes = self._all_shapes()
        meter.count_shares(shapes)
        total = meter.counted_devices
        self._consumed = set().union(*(meter.consumed(shape) for shape in shapes))
        if total == 0:
            raise InflateError(
                f"{self.source}: no device of the cluster can serve a request of the trace's pods"
            )
        if not any(self._demand(e) for e in self.entries):
            raise InflateError(f"{self.source}: no task of the trace asks for devices")
        limit = round(self.options.until_demand * total * NANO)
        rng = random.Random(self.options.seed)
        order = [(entry, c) for entry in self.entries for c in range(entry.copies)]
        if self.options.shuffle:
            rng.shuffle(order)
        series = InflateSeries()
        tasks: list[TaskRecord] = []
        first: Failure | None = None
        arrived = placed = failed = 0
        self._sample(series, shapes, arrived, placed, failed)
        sim.store.subscribe(self._on_event)
        try:
            for number in range(1, MAX_TASKS + 1):
                sampled = number > len(order)
                entry, c = order[number - 1] if not sampled else rng.choice(order)
                demand = self._demand(entry)
                if arrived + demand > limit:
                    break
                arrived += demand
                objects = _instance(entry, c)
                if sampled:
                    objects = renamed(tuple(objects), f"-tuned-{number - len(order) - 1}")
                task = TaskRecord(number, entry.index, sampled, demand)
                self._arrive(task, objects)
                placed += len(task.pods) - len(task.failed)
                failed += len(task.failed)
                if task.failed and first is None:
                    first = Failure(
                        number, entry.index, task.failed[0], arrived, self._message(task.failed[0])
                    )
                self._forget(task)
                tasks.append(task)
                self._sample(series, shapes, arrived, placed, failed)
                if self.on_progress is not None:
                    self.on_progress(arrived / (total * NANO), number, failed)
            else:
                self.problems.append(
                    Problem(0.0, None, f"stopped after {MAX_TASKS} tasks below the demand")
                )
        finally:
            sim.store.unsubscribe(self._on_event)
        meter.update(0.0)
        capacity, taken = meter.capacity_totals()
        return InflateState(
            self.source,
            self.options,
            sim.store.count("Node"),
            total,
            capacity,
            taken,
            tasks,
            series,
            first,
            self.problems,
            len(order),
        )

    def _arrive(self, task: TaskRecord, objects: list[dict[str, Any]]) -> None:
        """Create the task's objects, schedule, and delete the pods that found no place."""
        sim = self.sim
        store = sim.store
        nodes = store.list("Node") if any(is_workload(o) for o in objects) else []
        created = [o for o in objects if o.get("kind") != "Pod" and not is_workload(o)]
        created += entry_pods(objects, nodes)
        self._created = []
        for problem in sim.load(created):
            self.problems.append(Problem(0.0, task.entry, f"{problem.object}: {problem.message}"))
        task.pods = self._created
        self._created = []
        sim.settle()
        for key in task.pods:
            namespace, _, name = key.partition("/")
            pod = store.get("Pod", name, namespace)
            if pod is None or not (pod.get("spec") or {}).get("nodeName"):
                task.failed.append(key)
        if task.failed:
            for key in task.failed:
                namespace, _, name = key.partition("/")
                store.delete("Pod", name, namespace)
            sim.settle()

    def _on_event(self, event: Event) -> None:
        if event.kind == "Pod" and event.type == "ADDED":
            meta = event.obj["metadata"]
            self._created.append(f"{meta['namespace']}/{meta['name']}")

    def _message(self, key: str) -> str:
        decision = getattr(self.sim.scheduler, "last_decision", {}).get(key)
        message = getattr(decision, "message", None)
        return str(message) if message else "not scheduled"

    def _forget(self, task: TaskRecord) -> None:
        """Drop the scheduler's records of the task's attempts (a run holds thousands)."""
        scheduler: Any = self.sim.scheduler
        decisions = getattr(scheduler, "decisions", None)
        if isinstance(decisions, list):
            decisions.clear()
        last = getattr(scheduler, "last_decision", None)
        if isinstance(last, dict):
            for key in task.pods:
                last.pop(key, None)

    def _sample(
        self,
        series: InflateSeries,
        shapes: list[tuple[str, ...]],
        arrived: int,
        placed: int,
        failed: int,
    ) -> None:
        meter = self.meter
        meter.update(0.0)
        sample = meter.sample(shapes)
        series.add(
            arrived,
            meter.allocated_share,
            meter.counted_in_use,
            sample.stranded_devices,
            {k: v for k, v in sample.stranded_capacity.items() if k in self._consumed},
            placed,
            failed,
        )

    # --- what tasks ask for -------------------------------------------------------------------

    def _demand(self, entry: Entry) -> int:
        """The device-equivalents one copy of ``entry`` asks for (10^-9 of a device); the
        same for every copy."""
        found = self._demands.get(entry.index)
        if found is None:
            meter = self.meter
            found = self._demands[entry.index] = sum(
                meter.demand(shape) for shape in self._shapes_of(entry) if shape
            )
        return found

    def _shapes_of(self, entry: Entry) -> tuple[tuple[str, ...], ...]:
        """The shapes (claim specs as JSON) of the pods one copy of ``entry`` creates."""
        found = self._shapes.get(entry.index)
        if found is None:
            store = self.sim.store
            lookup = chained(ObjectIndex(entry.objects).get, store.get)
            nodes = store.list("Node") if any(is_workload(o) for o in entry.objects) else []
            found = self._shapes[entry.index] = tuple(
                tuple(spec_key(spec) for spec in claim_specs(pod, lookup))
                for pod in entry_pods(entry.objects, nodes)
            )
        return found

    def _all_shapes(self) -> list[tuple[str, ...]]:
        """The distinct device-asking pod shapes of the trace, in order of first arrival."""
        shapes: dict[tuple[str, ...], None] = {}
        for entry in self.entries:
            for shape in self._shapes_of(entry):
                if shape:
                    shapes.setdefault(shape)
        return list(shapes)


def _instance(entry: Entry, copy_index: int) -> list[dict[str, Any]]:
    """The objects of one copy of ``entry``, named as ``Entry.instances`` names them."""
    if entry.count is None:
        return [copy.deepcopy(o) for o in entry.objects]
    return renamed(entry.objects, f"-{copy_index}")

"""The replay loop: a trace applied over time to a simulated cluster.

The clock jumps from one moment to the next at which something is due: an entry of the trace,
a pod's end, a taint eviction, a scheduler retry (error backoff, the 5-minute flush of
unschedulable pods, a binding timeout). At each moment the due events are applied (pods that
end first, then timeline actions, then arrivals, in trace order), the control plane of
kubedra.cluster runs to its fixed point (Simulation.settle: the ResourceClaim controller, the
scheduler, taint eviction, the kubelets), the workload controllers replace what was
disrupted, and the metrics are sampled. Idle time costs nothing.

Modelled beyond the control plane, as documented in docs/guides/replay.md:

- a pod runs ``duration`` from its binding (``spec.nodeName`` set, after PreBind), then its
  phase becomes ``Succeeded``; the ResourceClaim controller then releases its claims as
  upstream's does (deleting generated ones) and the scheduler retries the pods that wait;
- the pods of a gang (a PodGroup) start when all of them are bound and end together;
- a pod owned by a Job (or a ReplicaSet, ReplicationController or StatefulSet), or of an
  entry with ``restart: true``, that is preempted, evicted or deleted before it ends is
  replaced, as its controller does (a Job's or ReplicaSet's replacement gets a new generated
  name, another pod its own name again), and runs its whole duration again;
  a Job with ``completions`` beyond ``parallelism`` gets new pods as earlier ones succeed;
- a finished pod leaves the store once its times are recorded (``keep_finished`` keeps it).
"""

from __future__ import annotations

import heapq
import json
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from kubedra.api.workloads import expand_pods, is_workload
from kubedra.cluster.clock import START
from kubedra.cluster.events import Event
from kubedra.cluster.nodetemplate import TemplateError
from kubedra.cluster.podclaims import pod_claim_names
from kubedra.cluster.podcopy import copy_of
from kubedra.cluster.simulation import Simulation
from kubedra.cluster.store import StoreError
from kubedra.cluster.timeline import TimelineError
from kubedra.replay.devices import DeviceMeter, Sample
from kubedra.replay.records import PodRecord
from kubedra.replay.series import Series
from kubedra.replay.trace import Entry, Trace

_FINISH, _ACTION, _ARRIVAL = 0, 1, 2
"""What happens first at one moment: pods end, then timeline actions, then arrivals."""

REPLACING_KINDS = frozenset({"Job", "ReplicaSet", "ReplicationController", "StatefulSet"})
"""Owners whose controllers create a pod again when it goes before it ended."""

MAX_SETTLE_ROUNDS = 1_000
MAX_STEP_SAMPLES = 1_000_000
"""The most samples ``step`` may take (some 50 MB of series): ``--step 1s`` over years of
simulated time would fill the memory before it ends."""


class SampleLimitError(ValueError):
    """``step`` would take more than :data:`MAX_STEP_SAMPLES` samples."""


"""Settle, replace, clean up: rounds per moment before giving up (a controller loop)."""

Progress = Callable[[float, int, int], None]
"""Called after each moment with (simulated seconds, pods ended or gone, pods arrived)."""


@dataclass(frozen=True)
class Problem:
    """Something of the trace the cluster refused while replaying (the replay goes on)."""

    time: float
    entry: int | None
    message: str

    def __str__(self) -> str:
        where = f"entry {self.entry}" if self.entry is not None else "replay"
        return f"t={self.time:g}s {where}: {self.message}"


@dataclass
class _Job:
    entry: Entry | None
    namespace: str
    name: str
    completions: int | None
    parallelism: int
    indexed: bool
    template: dict[str, Any] | None = None
    """The first pod the Job made: later ones are copies of it."""
    active: set[str] = field(default_factory=set)
    succeeded: int = 0
    created: int = 0

    @property
    def complete(self) -> bool:
        if self.completions is None:
            return self.succeeded > 0
        return self.succeeded >= self.completions


@dataclass
class _Group:
    members: set[str] = field(default_factory=set)
    bound: set[str] = field(default_factory=set)
    started: bool = False


@dataclass(frozen=True)
class EntryInfo:
    """What the report needs of a trace entry (its objects are let go once created)."""

    index: int
    at: float
    action: str | None
    """The action's description; None for an arrival."""


@dataclass
class ReplayState:
    """Everything a replay produced, for kubedra.replay.report."""

    source: str
    records: list[PodRecord]
    series: Series
    meter: DeviceMeter | None
    problems: list[Problem]
    end: float
    entries: list[EntryInfo]
    nodes: int


class Replay:
    """Replays ``trace`` on ``sim`` (objects loaded, not yet run); :meth:`run` does it."""

    def __init__(
        self,
        sim: Simulation,
        trace: Trace,
        *,
        until: float | None = None,
        step: float | None = None,
        keep_finished: bool = False,
        on_progress: Progress | None = None,
    ) -> None:
        self.sim = sim
        self.source = trace.source
        # The heap holds the entries until they happen; nothing else keeps their objects.
        self.entries = [
            EntryInfo(e.index, e.at, e.description if e.action is not None else None)
            for e in trace.entries
        ]
        self.span = trace.span
        self.until = until
        self.step = step
        self.keep_finished = keep_finished
        self.on_progress = on_progress
        scheduler: Any = sim.scheduler
        if hasattr(scheduler, "use_queue_timing"):
            scheduler.use_queue_timing()
        dra = getattr(scheduler, "dra", None)
        self.meter = DeviceMeter(dra) if dra is not None else None
        self.records: dict[str, PodRecord] = {}
        self.all_records: list[PodRecord] = []
        self.series = Series()
        self.problems: list[Problem] = []
        self.pending = 0
        self.running = 0
        self.done = 0
        self._pending_shapes: Counter[tuple[str, ...]] = Counter()
        self._events: list[tuple[float, int, int, Any]] = []
        self._seq = 0
        self._now = 0.0
        self._context: tuple[Entry | None, _Job | None] | None = None
        self._replacing: PodRecord | None = None
        self._replacements: list[tuple[PodRecord, dict[str, Any]]] = []
        self._cleanup: list[PodRecord] = []
        self._jobs: dict[tuple[str, str], _Job] = {}
        self._groups: dict[tuple[str, str], _Group] = {}
        self._shape_cache: dict[tuple[str, str, str], str | None] = {}
        self._next_grid = 0.0
        self._retry_errors = True
        for entry in trace.entries:
            self._push(entry.at, _ARRIVAL if entry.action is None else _ACTION, entry)

    # --- the loop -----------------------------------------------------------------------------

    def run(self) -> ReplayState:
        sim = self.sim
        sim.store.subscribe(self._on_event)
        if self.meter is not None:
            self.meter.count_shares()  # every device: the allocated share at the end
        try:
            for pod in sim.store.list("Pod"):  # the cluster's own pods: there from the start
                self._on_event(Event("ADDED", "Pod", pod))
            while True:
                now = self._now
                version = sim.store.resource_version
                self._apply_due(now)
                self._settle(now)
                # A moment that changed nothing: the pods in error backoff would fail again in
                # the same way until something changes, so their retries are no moments of
                # their own (a pod whose claim can never be allocated would else keep the
                # clock running forever); they are retried at the next moment that is.
                self._retry_errors = sim.store.resource_version != version
                if self.step is None:
                    self._sample(now)
                if self.on_progress is not None:
                    self.on_progress(now, self.done, len(self.all_records))
                due = self._next_moment(now)
                if self.until is not None and (due is None or due > self.until):
                    due = self.until if self.until > now else None
                    if due is not None:
                        self._advance(due)
                        self._settle(due)
                        self._sample(due)
                    break
                if due is None:
                    break
                self._advance(due)
            end = self._now
            if self.step is not None:
                self._sample(end)
            if self.meter is not None:
                self.meter.finish(end)
        finally:
            sim.store.unsubscribe(self._on_event)
        nodes = sim.store.count("Node")
        return ReplayState(
            self.source,
            self.all_records,
            self.series,
            self.meter,
            self.problems,
            self._now,
            self.entries,
            nodes,
        )

    def _advance(self, due: float) -> None:
        """Move the clock to ``due``; with a step, the samples in between (nothing changes
        between two moments, so they all show the state of the last one)."""
        if self.step is not None and self._next_grid < due:
            samples = len(self.series) + (due - self._next_grid) / self.step
            if samples > MAX_STEP_SAMPLES:
                raise SampleLimitError(
                    f"--step {self.step:g}s: the replay reaches t={due:.0f}s, more than "
                    f"{MAX_STEP_SAMPLES:,} samples; a longer --step or an earlier --until"
                )
            sample = self._measure()
            while self._next_grid < due:
                self.series.add(self._next_grid, self.pending, self.running, sample)
                self._next_grid += self.step
        self._now = due
        self.sim.clock.advance_to(START + timedelta(seconds=due))

    def _next_moment(self, now: float) -> float | None:
        candidates: list[float] = []
        if self._events:
            first = self._events[0][0]
            if first <= now:
                # Due at this very moment: settling bound a pod whose duration is 0 (a task
                # created and deleted in the same second); it ends now, before time moves on.
                return now
            candidates.append(first)
        scheduler: Any = self.sim.scheduler
        wakeups = [self.sim.taint_controller.next_wakeup(), scheduler.next_wakeup()]
        if hasattr(scheduler, "next_queue_wakeup"):
            wakeups.append(scheduler.next_queue_wakeup(self._retry_errors))
        for moment in wakeups:
            if moment is not None:
                candidates.append((moment - START).total_seconds())
        later = [t for t in candidates if t > now]
        return min(later, default=None)

    def _push(self, time: float, order: int, payload: Any) -> None:
        self._seq += 1
        heapq.heappush(self._events, (time, order, self._seq, payload))

    def _apply_due(self, now: float) -> None:
        while self._events and self._events[0][0] <= now:
            _, order, _, payload = heapq.heappop(self._events)
            if order == _FINISH:
                record, run = payload
                if record.run == run and record.running:
                    self._finish(record, now)
            elif order == _ACTION:
                self._act(payload, now)
            else:
                self._arrive(payload, now)

    def _settle(self, now: float) -> None:
        """The control plane to its fixed point, then what the workload controllers do
        (replacements, more Job pods) and the finished pods leaving, until all is quiet."""
        sim = self.sim
        for _ in range(MAX_SETTLE_ROUNDS):
            sim.settle()
            if not (self._replacements or self._cleanup):
                break
            replacements, self._replacements = self._replacements, []
            for record, last in replacements:
                self._replace(record, last, now)
            cleanup, self._cleanup = self._cleanup, []
            for record in cleanup:
                namespace, _, name = record.key.partition("/")
                sim.store.delete("Pod", name, namespace)
        else:
            self.problems.append(Problem(now, None, "the workload controllers did not settle"))
        decisions = getattr(sim.scheduler, "decisions", None)
        if isinstance(decisions, list):
            decisions.clear()  # a replay keeps its own records, not every scheduling attempt

    # --- metrics ------------------------------------------------------------------------------

    def _measure(self) -> Sample:
        if self.meter is None:
            return Sample()
        self.meter.update(self._now)
        return self.meter.sample([s for s, n in self._pending_shapes.items() if n > 0 and s])

    def _sample(self, now: float) -> None:
        self.series.add(now, self.pending, self.running, self._measure())

    # --- trace entries ------------------------------------------------------------------------

    def _act(self, entry: Entry, now: float) -> None:
        assert entry.action is not None
        self._context = (entry, None)
        try:
            entry.action(self.sim)
        except (StoreError, TimelineError, TemplateError) as error:
            self.problems.append(Problem(now, entry.index, f"{entry.description}: {error}"))
        finally:
            self._context = None

    def _arrive(self, entry: Entry, now: float) -> None:
        for objects in entry.instances():
            self._create(entry, objects, now)

    def _create(self, entry: Entry | None, objects: list[dict[str, Any]], now: float) -> None:
        store = self.sim.store
        created: list[dict[str, Any]] = []
        jobs: list[tuple[dict[str, Any], _Job]] = []
        for obj in objects:
            if not is_workload(obj):
                created.append(obj)
                continue
            pods = expand_pods(obj, nodes=store.list("Node"))
            job = self._job(entry, obj) if obj.get("kind") == "Job" else None
            if job is not None and pods:
                job.template = pods[0]
            for pod in pods:
                if job is not None:
                    jobs.append((pod, job))
                else:
                    created.append(pod)
        self._load(entry, created, None)
        for pod, job in jobs:
            job.created += 1
            self._load(entry, [pod], job)

    def _load(self, entry: Entry | None, objects: list[dict[str, Any]], job: _Job | None) -> None:
        if not objects:
            return
        self._context = (entry, job)
        try:
            problems = self.sim.load(objects)
        finally:
            self._context = None
        for problem in problems:
            index = entry.index if entry is not None else None
            self.problems.append(Problem(self._now, index, f"{problem.object}: {problem.message}"))

    def _job(self, entry: Entry | None, obj: dict[str, Any]) -> _Job:
        meta = obj.get("metadata") or {}
        spec = obj.get("spec") or {}
        namespace = str(meta.get("namespace") or self.sim.store.namespace)
        name = str(meta.get("name") or "")
        parallelism = _whole(spec.get("parallelism"), 1)
        completions = spec.get("completions")
        job = _Job(
            entry,
            namespace,
            name,
            _whole(completions, 1) if completions is not None else None,
            parallelism,
            spec.get("completionMode") == "Indexed",
        )
        self._jobs[(namespace, name)] = job
        return job

    # --- pods ---------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if event.kind != "Pod":
            return
        pod = event.obj
        meta = pod["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        if event.type == "ADDED":
            self._added(key, pod)
        elif event.type == "MODIFIED":
            record = self.records.get(key)
            old_node = ((event.old or {}).get("spec") or {}).get("nodeName")
            node = (pod.get("spec") or {}).get("nodeName")
            if record is not None and node and not old_node and record.pending_since is not None:
                self._bound(record, pod)
        else:
            record = self.records.get(key)
            if record is not None and record.uid == meta.get("uid"):
                self._deleted(record, pod)

    def _added(self, key: str, pod: dict[str, Any]) -> None:
        now = self._now
        replacing = self._replacing
        if replacing is not None and replacing.key == key:
            record = replacing
        else:
            entry, job = self._context if self._context is not None else (None, None)
            meta = pod["metadata"]
            owner = _owner_kind(pod)
            record = PodRecord(
                meta["namespace"],
                meta["name"],
                now,
                entry=entry.index if entry is not None else None,
                duration=entry.duration if entry is not None else None,
                restartable=(entry is not None and entry.restart) or owner in REPLACING_KINDS,
                priority=self._priority(pod),
                job=(job.namespace, job.name) if job is not None else _job_of(pod),
                group=_group_of(pod),
            )
            self.all_records.append(record)
            if job is not None:
                job.active.add(key)
        record.uid = pod["metadata"]["uid"]
        record.pending_since = now
        self.records[key] = record
        record.shape = self._shape(pod)
        record.classes = record.classes or self._classes(record.shape)
        self.pending += 1
        self._pending_shapes[record.shape] += 1
        if record.group is not None:
            self._groups.setdefault(record.group, _Group()).members.add(key)
        if (pod.get("spec") or {}).get("nodeName"):
            self._bound(record, pod)

    def _bound(self, record: PodRecord, pod: dict[str, Any]) -> None:
        now = self._now
        assert record.pending_since is not None
        record.wait += now - record.pending_since
        record.pending_since = None
        record.bound = now
        if record.first_bound is None:
            record.first_bound = now
        record.node = (pod.get("spec") or {}).get("nodeName")
        record.devices = self._devices(pod)
        self.pending -= 1
        self._pending_shapes[record.shape] -= 1
        self.running += 1
        group = self._groups.get(record.group) if record.group is not None else None
        if group is None:
            if record.duration is not None:
                self._push(now + record.duration, _FINISH, (record, record.run))
            return
        group.bound.add(record.key)
        if group.started:
            if record.duration is not None:
                self._push(now + record.duration, _FINISH, (record, record.run))
        elif group.members <= group.bound:
            group.started = True
            members = [self.records[k] for k in group.members if k in self.records]
            durations = [r.duration for r in members if r.duration is not None]
            if durations:
                end = now + max(durations)
                for member in members:
                    self._push(end, _FINISH, (member, member.run))

    def _finish(self, record: PodRecord, now: float) -> None:
        store = self.sim.store
        namespace, _, name = record.key.partition("/")
        pod = store.get("Pod", name, namespace)
        if pod is None or pod["metadata"].get("uid") != record.uid:
            return
        store.update(pod | {"status": _succeeded(pod, self.sim.clock.timestamp())})
        record.finished = now
        self.running -= 1
        self.done += 1
        self._leave(record)
        job = self._jobs.get(record.job) if record.job is not None else None
        if job is not None:
            job.active.discard(record.key)
            job.succeeded += 1
            self._more_job_pods(job, now)
        if not self.keep_finished:
            self._cleanup.append(record)

    def _deleted(self, record: PodRecord, pod: dict[str, Any]) -> None:
        """A pod of the trace went: it ended (cleanup), or it was disrupted."""
        now = self._now
        del self.records[record.key]
        last_decisions = getattr(self.sim.scheduler, "last_decision", None)
        if isinstance(last_decisions, dict):
            last_decisions.pop(record.key, None)
        if record.finished is not None:
            return
        was_bound = record.pending_since is None
        if was_bound:
            self.running -= 1
            if _disruption_reason(pod) == "PreemptionByScheduler":
                record.preemptions += 1
            else:
                record.evictions += 1
        else:
            self.pending -= 1
            self._pending_shapes[record.shape] -= 1
        self._leave(record)
        job = self._jobs.get(record.job) if record.job is not None else None
        if job is not None:
            job.active.discard(record.key)
        if record.restartable and (job is None or not job.complete):
            self._replacements.append((record, pod))
            return
        record.gone = now
        record.pending_since = None
        self.done += 1

    def _leave(self, record: PodRecord) -> None:
        if record.group is None:
            return
        group = self._groups.get(record.group)
        if group is not None:
            group.members.discard(record.key)
            group.bound.discard(record.key)
            if not group.members:
                del self._groups[record.group]

    def _replace(self, record: PodRecord, last: dict[str, Any], now: float) -> None:
        """What the pod's controller does: a new pod, unbound, to run its whole duration."""
        namespace = record.namespace
        name = record.key.partition("/")[2]
        job = self._jobs.get(record.job) if record.job is not None else None
        owner = _owner(last)
        if job is not None:
            name = self._job_pod_name(job, last)
        elif owner is not None and owner[0] in ("ReplicaSet", "ReplicationController"):
            name = f"{owner[1]}-{self.sim.store.random_suffix()}"  # as their controllers name
        record.key = f"{namespace}/{name}"
        record.run += 1
        record.restarts += 1
        record.bound = record.node = None
        record.devices = ()
        if job is not None:
            job.active.add(record.key)
        self._replacing = record
        try:
            problems = self.sim.load([copy_of(last, name)])
        finally:
            self._replacing = None
        for problem in problems:
            record.gone = now
            record.pending_since = None
            self.done += 1
            self.problems.append(Problem(now, record.entry, f"{problem.object}: {problem.message}"))

    def _more_job_pods(self, job: _Job, now: float) -> None:
        """The Job controller: more pods while completions are missing (up to parallelism)."""
        if job.completions is None or job.complete or job.template is None:
            return
        missing = job.completions - job.succeeded - len(job.active)
        room = job.parallelism - len(job.active)
        for _ in range(max(min(missing, room), 0)):
            fresh = copy_of(job.template, "")
            if job.indexed:
                _set_index(fresh, job.name, job.created)
            fresh["metadata"]["name"] = self._job_pod_name(job, fresh)
            job.created += 1
            self._load(job.entry, [fresh], job)

    def _job_pod_name(self, job: _Job, pod: dict[str, Any]) -> str:
        suffix = self.sim.store.random_suffix()
        if job.indexed:
            annotations = (pod.get("metadata") or {}).get("annotations") or {}
            index = annotations.get("batch.kubernetes.io/job-completion-index", "0")
            return f"{job.name}-{index}-{suffix}"
        return f"{job.name}-{suffix}"

    # --- what a pod is ------------------------------------------------------------------------

    def _priority(self, pod: dict[str, Any]) -> int:
        priority = getattr(self.sim.scheduler, "priority", None)
        if callable(priority):
            return int(priority(pod))
        return int((pod.get("spec") or {}).get("priority") or 0)

    def _claim_spec(self, namespace: str, entry: dict[str, Any]) -> str | None:
        """The spec (JSON) of the claim a pod entry stands for, when it still needs devices."""
        store = self.sim.store
        template = entry.get("resourceClaimTemplateName")
        if template:
            key = (namespace, "template", str(template))
            if key not in self._shape_cache:
                found = store.get("ResourceClaimTemplate", str(template), namespace)
                spec = ((found or {}).get("spec") or {}).get("spec")
                self._shape_cache[key] = None if spec is None else json.dumps(spec, sort_keys=True)
            return self._shape_cache[key]
        name = entry.get("resourceClaimName")
        claim = store.get("ResourceClaim", str(name), namespace) if name else None
        if claim is None or (claim.get("status") or {}).get("allocation"):
            return None
        return json.dumps(claim.get("spec") or {}, sort_keys=True)

    def _shape(self, pod: dict[str, Any]) -> tuple[str, ...]:
        namespace = pod["metadata"]["namespace"]
        specs = [
            self._claim_spec(namespace, entry)
            for entry in (pod.get("spec") or {}).get("resourceClaims") or []
        ]
        return tuple(s for s in specs if s is not None)

    @staticmethod
    def _classes(shape: tuple[str, ...]) -> tuple[str, ...]:
        """The DeviceClasses the pod's claims ask for, in order."""
        found: list[str] = []
        for spec in shape:
            for request in (json.loads(spec).get("devices") or {}).get("requests") or []:
                names = [(request.get("exactly") or {}).get("deviceClassName")]
                names += [sub.get("deviceClassName") for sub in request.get("firstAvailable") or []]
                for name in names:
                    if name and name not in found:
                        found.append(str(name))
        return tuple(found)

    def _devices(self, pod: dict[str, Any]) -> tuple[str, ...]:
        """The devices allocated to the pod's claims, as ``driver/pool/device``."""
        store = self.sim.store
        namespace = pod["metadata"]["namespace"]
        out: list[str] = []
        for name, _ in pod_claim_names(pod):
            claim = store.get("ResourceClaim", name, namespace)
            allocation = ((claim or {}).get("status") or {}).get("allocation") or {}
            for result in (allocation.get("devices") or {}).get("results") or []:
                out.append(f"{result.get('driver')}/{result.get('pool')}/{result.get('device')}")
        return tuple(out)


def _whole(value: Any, default: int) -> int:
    if isinstance(value, int) and not isinstance(value, bool) and value >= 0:
        return value
    return default


def _set_index(pod: dict[str, Any], job: str, index: int) -> None:
    """An Indexed Job's pod for completion index ``index``."""
    key = "batch.kubernetes.io/job-completion-index"
    meta = pod["metadata"]
    meta["annotations"] = {**(meta.get("annotations") or {}), key: str(index)}
    meta["labels"] = {**(meta.get("labels") or {}), key: str(index)}
    pod["spec"]["hostname"] = f"{job}-{index}"


def _owner(pod: dict[str, Any]) -> tuple[str, str] | None:
    """(kind, name) of the pod's controller."""
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller"):
            return str(ref.get("kind")), str(ref.get("name"))
    return None


def _owner_kind(pod: dict[str, Any]) -> str | None:
    owner = _owner(pod)
    return owner[0] if owner is not None else None


def _job_of(pod: dict[str, Any]) -> tuple[str, str] | None:
    for ref in pod["metadata"].get("ownerReferences") or []:
        if ref.get("controller") and ref.get("kind") == "Job":
            return pod["metadata"]["namespace"], str(ref.get("name"))
    return None


def _group_of(pod: dict[str, Any]) -> tuple[str, str] | None:
    group = (pod.get("spec") or {}).get("schedulingGroup") or {}
    name = group.get("podGroupName") if isinstance(group, dict) else None
    return (pod["metadata"]["namespace"], str(name)) if name else None


def _disruption_reason(pod: dict[str, Any]) -> str | None:
    for condition in (pod.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "DisruptionTarget":
            return str(condition.get("reason") or "")
    return None


def _succeeded(pod: dict[str, Any], now: str) -> dict[str, Any]:
    """What the kubelet reports when every container exited 0."""
    status = dict(pod.get("status") or {})
    status["phase"] = "Succeeded"
    conditions = []
    for condition in status.get("conditions") or []:
        if condition.get("type") in ("Ready", "ContainersReady"):
            condition = {
                **condition,
                "status": "False",
                "reason": "PodCompleted",
                "lastTransitionTime": now,
            }
        conditions.append(condition)
    status["conditions"] = conditions
    statuses = []
    for container in status.get("containerStatuses") or []:
        started = ((container.get("state") or {}).get("running") or {}).get("startedAt") or now
        statuses.append(
            {
                **container,
                "ready": False,
                "started": False,
                "state": {
                    "terminated": {
                        "exitCode": 0,
                        "reason": "Completed",
                        "startedAt": started,
                        "finishedAt": now,
                    }
                },
            }
        )
    status["containerStatuses"] = statuses
    return status

"""The scheduler: one scheduling cycle per ``schedule_one`` call, as ``schedule_one.go``.

Cycle: PreEnqueue (at queueing time) -> PreFilter -> Filter over the nodes, starting at the
rotating ``nextStartNodeIndex`` and stopping once ``numFeasibleNodesToFind`` nodes passed ->
PostFilter when none did -> Score + NormalizeScore with the default weights -> pick ->
Reserve -> PreBind (DynamicResources writes the claims) -> Bind (``spec.nodeName``).

Ties: upstream picks at random among the nodes with the top score. kubedra picks the first of
them in the order the nodes were filtered (node-tree order from the rotating start index) and
lists them all in ``Decision.tied``; with ``seed`` set it picks among them with a seeded
random generator instead, reproducibly.
"""

from __future__ import annotations

import heapq
import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from itertools import compress
from operator import attrgetter
from typing import Any, Literal

from kubedra.allocator.explain import Recorder
from kubedra.allocator.features import Features
from kubedra.cluster.clock import START, SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.kinds import CREATION_ORDER
from kubedra.cluster.store import Store, StoreError
from kubedra.scheduler import plugins as P
from kubedra.scheduler.defaultpreemption import DefaultPreemption
from kubedra.scheduler.dynamicresources import (
    BindError,
    CycleState,
    DynamicResources,
    claim_key,
    pod_claim_names,
)
from kubedra.scheduler.evaluations import Evaluation, ShapeTable, Window
from kubedra.scheduler.extendedpreemption import DEFAULT_VICTIM_SETS
from kubedra.scheduler.gang import DEFAULT_STEP_LIMIT, GangScheduling
from kubedra.scheduler.messages import NO_NODES, fit_error
from kubedra.scheduler.nodeinfo import NodeList, NodeState, PodEntry
from kubedra.scheduler.policies import (
    REGISTRY,
    NodeScorer,
    NodeView,
    NodeViews,
    PodView,
    Policy,
    PolicyContext,
    Workload,
)
from kubedra.scheduler.queue import QueuedPod, SchedulingQueue
from kubedra.scheduler.resources import CPU, MEMORY, QuantityCache, Resources, pod_requests
from kubedra.scheduler.status import (
    MAX_NODE_SCORE,
    Status,
)

MIN_FEASIBLE_NODES_TO_FIND = 100
MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND = 5
SCHEDULER_NAME = "default-scheduler"
MIN_SHAPE_TABLES = 64
"""Pod shapes whose cached evaluations are kept at least (the least recently used go first)."""
SHAPE_TABLE_ENTRIES = 1 << 19
"""Cached evaluations kept over all shapes, as a bound on how many shapes keep theirs beyond
MIN_SHAPE_TABLES: a production trace has a few hundred pod shapes (cpu, memory and claim
combinations), and a shape whose table was dropped evaluates every node again."""
KEEP_SCORES = 3
"""How many of the best-scored nodes a Decision keeps the per-plugin scores of (upstream's
numberOfHighestScoredNodesToReport), plus the chosen one."""

Result = Literal["Scheduled", "Unschedulable", "Error", "WaitingForBinding"]


@dataclass
class SchedulerConfig:
    """How the scheduler runs; the defaults are the kube-scheduler's default profile."""

    features: Features = field(default_factory=Features)
    policy: Literal["default", "first-fit"] = "default"
    percentage_of_nodes_to_score: int | None = None
    seed: int | None = None
    gang: Literal["upstream", "backtrack"] = "upstream"
    """How a PodGroup's gang is placed: upstream's greedy order, or kubedra's search."""
    gang_steps: int = DEFAULT_STEP_LIMIT
    preemption: Literal["upstream", "extended"] = "upstream"
    """DefaultPreemption as upstream, or kubedra's allocator-driven victim search (opt-in)."""
    preemption_sets: int = DEFAULT_VICTIM_SETS
    """Victim sets ``preemption: extended`` tries per candidate node."""
    placement: str | Policy | None = None
    """An opt-in placement policy (kubedra.scheduler.policies): a registered name or a
    Policy; None keeps the default profile."""
    workload: Workload | None = None
    """The task shapes the placement policy plans for (FGD); None: the pods in the store
    when the policy first needs them."""
    device_policy: str | None = None
    """Only the device choice of this registered policy (first-fit, best-fit, spread, ...),
    replacing the placement policy's; opt-in."""
    node_score: str | None = None
    """Only the node score of this registered policy (most-allocated, least-allocated, ...),
    replacing the placement policy's; opt-in."""
    queue_timing: bool = False
    """The queue's timed behaviour (error backoff, the 5-minute flush of unschedulable pods;
    kubedra.scheduler.queue), for runs where time passes (replay). Snapshots run to a fixed
    point without moving the clock for the queue."""


UNHINTED_KINDS = frozenset({"PodGroup", "Workload", "PodDisruptionBudget", "PriorityClass"})
"""Kinds whose changes no queueing hint of the default profile reports (with deletions of
claims and slices): only the queue's periodic flush retries pods after them."""


NO_SCORES = (0, 0, 0, 0, 0, 0)
"""The default plugins' raw scores where a placement policy's replace them."""
POLICY_SCORE_DIGITS = 6
"""Decimals a placement policy's score keeps in ``Decision.scores``."""


@dataclass
class Decision:
    """The outcome of one scheduling attempt of one pod."""

    pod: str
    node: str | None
    result: Result
    message: str | None = None
    filter_reasons: dict[str, tuple[str, str]] = field(default_factory=dict)
    """Node -> (plugin, reason) for every rejected node; for a placed pod only the counts
    are kept (``rejections``), so that a long simulation does not hold every node's reason."""
    rejections: dict[str, int] = field(default_factory=dict)
    """Reason -> how many of the evaluated nodes it rejected."""
    scores: dict[str, dict[str, float]] = field(default_factory=dict)
    tied: list[str] = field(default_factory=list)
    allocations: dict[str, dict[str, Any]] = field(default_factory=dict)
    evaluated_nodes: int = 0
    feasible_nodes: int = 0
    pre_filter: tuple[str, str] | None = None
    nominated: str | None = None
    """The node DefaultPreemption freed for the pod (its ``status.nominatedNodeName``)."""
    time: datetime | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "node": self.node,
            "result": self.result,
            "message": self.message,
            "filterReasons": {n: list(r) for n, r in self.filter_reasons.items()},
            "rejections": self.rejections,
            "scores": self.scores,
            "tied": self.tied,
            "allocations": self.allocations,
            "evaluatedNodes": self.evaluated_nodes,
            "feasibleNodes": self.feasible_nodes,
            "nominatedNode": self.nominated,
        }


@dataclass
class PodCycle:
    """What a cycle computes once per pod (upstream's CycleState plus the PreFilter data)."""

    pod: dict[str, Any]
    key: str
    spec: Mapping[str, Any]
    requests: Resources
    non_zero: Resources
    tolerations: list[Mapping[str, Any]]
    prefer_tolerations: list[Mapping[str, Any]]
    preferred: list[Mapping[str, Any]]
    dra: CycleState
    dra_backed: frozenset[str]
    priority: int
    shape: str | None = None
    """Identifies everything Filter and Score look at of this pod, for cached evaluations
    (None: not cacheable, e.g. claims that are already allocated)."""
    view: PodView | None = None
    """The pod as the placement policy sees it (built when first scored)."""
    window: Window | None = None
    """Set by _window: the nodes it processed in the shape table, the feasible ones among
    them (Score reads the table's columns by slices)."""


@dataclass(frozen=True)
class _Failure:
    """What a failed attempt found, to answer the same attempt again while nothing changed."""

    message: str
    rejectors: frozenset[str]
    rejections: dict[str, int]
    filter_reasons: dict[str, tuple[str, str]]
    evaluated_nodes: int
    reason: str
    """The PodScheduled reason (Unschedulable, or PreemptionSettling while a nomination waits)."""


STATIC_PLUGINS = frozenset({P.NODE_UNSCHEDULABLE, P.NODE_NAME, P.TAINT_TOLERATION, P.NODE_AFFINITY})


@dataclass
class WaitingPod:
    """A pod whose claims were written in PreBind and that waits for binding conditions."""

    key: str
    node: str
    cycle: PodCycle
    claims: list[str]
    decision: Decision


def pod_key(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


def node_scheduling_changed(old: Mapping[str, Any] | None, new: Mapping[str, Any]) -> bool:
    """upstream's nodeSchedulingPropertiesChange: whether a Node update changed what the
    scheduler reads (unschedulable, allocatable, labels, taints, annotations, declared
    features (UpdateNodeDeclaredFeature: the allocator reads DRAOptionalNodeOperations there),
    or conditions other than their heartbeat times; capacity too, which stands in for a
    missing allocatable here); kubelets' periodic status reports change none."""
    if old is None:
        return True

    def properties(node: Mapping[str, Any]) -> tuple[Any, ...]:
        meta = node.get("metadata") or {}
        spec = node.get("spec") or {}
        status = node.get("status") or {}
        conditions = [
            {k: v for k, v in c.items() if k != "lastHeartbeatTime"}
            for c in status.get("conditions") or []
            if isinstance(c, Mapping)
        ]
        return (
            bool(spec.get("unschedulable")),
            status.get("allocatable"),
            status.get("capacity"),  # kubedra's nodes may give capacity only
            meta.get("labels"),
            spec.get("taints"),
            meta.get("annotations"),
            status.get("declaredFeatures"),
            conditions,
        )

    return properties(old) != properties(new)


def is_terminal(pod: Mapping[str, Any]) -> bool:
    return (pod.get("status") or {}).get("phase") in ("Succeeded", "Failed")


class Scheduler:
    """The kube-scheduler's default profile over a Store (see the module docstring)."""

    def __init__(
        self, store: Store, clock: SimClock, config: SchedulerConfig | None = None
    ) -> None:
        self.store = store
        self.clock = clock
        self.config = config or SchedulerConfig()
        self.features = self.config.features
        self.q = QuantityCache()
        self.nodes = NodeList()
        self.queue = SchedulingQueue(timed=self.config.queue_timing)
        self.unhinted_changes = 0
        self.dra = DynamicResources(store, clock, self.features)
        self.dra.check_classes = self.config.policy != "first-fit"
        placement = REGISTRY.resolve(
            self.config.placement, self.config.device_policy, self.config.node_score
        )
        self.placement_context = PolicyContext(
            store, self.nodes, self.dra, self.config.seed, self.config.workload
        )
        active = placement.start(self.placement_context) if placement is not None else None
        self.placement = placement
        self._scorer: NodeScorer | None = active.scorer if active is not None else None
        if active is not None and active.device_key is not None:
            self.dra.device_policy = active.device_key
        self.decisions: list[Decision] = []
        self.last_decision: dict[str, Decision] = {}
        self.next_start_node_index = 0
        self.priority_classes: dict[str, dict[str, Any]] = {}
        self.waiting: dict[str, WaitingPod] = {}
        self._assumed: dict[str, str] = {}
        self._rng = random.Random(self.config.seed) if self.config.seed is not None else None
        self._static: dict[str, tuple[int, dict[str, Status | None]]] = {}
        self._waiting_claims: dict[str, str] = {}
        self._pod_node: dict[str, str] = {}
        self._claim_users: dict[str, set[str]] = {}
        self._pod_claim_keys: dict[str, set[str]] = {}
        self._tables: dict[str, ShapeTable] = {}
        self._failures: dict[tuple[Any, ...], _Failure] = {}
        self._failures_world: tuple[int, ...] = ()
        # Existing objects, dependencies first (pods after the nodes they are bound to).
        self._syncing = True
        for kind in CREATION_ORDER:
            for obj in store.list(kind):
                self._on_event(Event("ADDED", kind, obj, None))
        self._syncing = False
        store.subscribe(self._on_event)
        self.preemption = DefaultPreemption(self)
        self.gangs = GangScheduling(self)

    # --- time -----------------------------------------------------------------------------------

    def _now(self) -> float:
        return (self.clock.now() - START).total_seconds()

    # --- events ---------------------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        kind = event.kind
        obj = event.obj
        if kind in UNHINTED_KINDS or (
            event.type == "DELETED" and kind in ("ResourceClaim", "ResourceSlice")
        ):
            self.unhinted_changes += 1
            self.queue.unhinted_change(self.unhinted_changes, self._now())
        if kind == "Pod":
            self._on_pod(event)
            return
        if kind == "Node":
            if event.type == "DELETED":
                self.nodes.remove(obj["metadata"]["name"])
            else:
                node = self.nodes.upsert(obj, self.q)
                if event.type == "ADDED" and not self._syncing:
                    for other in self.store.list("Pod"):
                        if (other.get("spec") or {}).get("nodeName") == node.name:
                            self._account(other)
                if event.type == "MODIFIED" and not node_scheduling_changed(event.old, obj):
                    return  # a kubelet heartbeat: nothing a pending pod could gain from
                self._move(
                    {
                        P.NODE_UNSCHEDULABLE,
                        P.NODE_NAME,
                        P.TAINT_TOLERATION,
                        P.NODE_AFFINITY,
                        P.NODE_RESOURCES_FIT,
                        P.DYNAMIC_RESOURCES,
                    }
                )
            return
        if kind == "PriorityClass":
            name = obj["metadata"]["name"]
            if event.type == "DELETED":
                self.priority_classes.pop(name, None)
            else:
                self.priority_classes[name] = obj
            return
        if kind in ("ResourceClaim", "ResourceSlice", "DeviceClass", "DeviceTaintRule"):
            self.dra.on_event(event.type, kind, obj)
            if kind == "ResourceClaim":
                self._on_claim(event)
            elif event.type != "DELETED" or kind == "DeviceTaintRule":
                self._move({P.DYNAMIC_RESOURCES})
                if kind == "DeviceClass":
                    self._move({P.NODE_RESOURCES_FIT})

    def _on_claim(self, event: Event) -> None:
        key = claim_key(event.obj)
        if event.type == "DELETED":
            return
        old_alloc = ((event.old or {}).get("status") or {}).get("allocation")
        new_alloc = (event.obj.get("status") or {}).get("allocation")
        users = self._claim_users.get(key, set())
        if event.type == "ADDED":
            for pk in list(users):
                pod = self._pod(pk)
                if pod is not None and self.queue.where(pk) == "gated":
                    self.queue.requeue_gated(pk, self.dra.pre_enqueue(pod), self._now())
        if old_alloc is not None and new_alloc is None:
            self._move({P.DYNAMIC_RESOURCES})
            return
        if event.old is not None and (event.old.get("status") == event.obj.get("status")):
            return

        if users:
            self.queue.move({P.DYNAMIC_RESOURCES}, self._now(), keys=list(users))

    def _move(self, plugins: set[str], wants: Any = None) -> None:
        self.queue.move(plugins, self._now(), wants)

    def _index_claims(self, key: str, pod: Mapping[str, Any] | None) -> None:
        """Which claims a queued pod refers to (for claim events), kept per pod."""
        new: set[str] = set()
        if pod is not None:
            namespace = (pod.get("metadata") or {}).get("namespace")
            new = {f"{namespace}/{name}" for _, name, _, _ in pod_claim_names(pod) if name}
        old = self._pod_claim_keys.pop(key, set())
        for ck in old - new:
            users = self._claim_users.get(ck)
            if users is not None:
                users.discard(key)
                if not users:
                    del self._claim_users[ck]
        for ck in new:
            self._claim_users.setdefault(ck, set()).add(key)
        if new:
            self._pod_claim_keys[key] = new

    def _pod(self, key: str) -> dict[str, Any] | None:
        namespace, _, name = key.partition("/")
        return self.store.get("Pod", name, namespace)

    def _on_pod(self, event: Event) -> None:
        pod = event.obj
        key = pod_key(pod)
        node_name = (pod.get("spec") or {}).get("nodeName")
        gone = event.type == "DELETED" or is_terminal(pod)
        old = event.old or {}
        old_node = (old.get("spec") or {}).get("nodeName")
        if gone:
            self._index_claims(key, None)
            self.queue.remove(key)
            self._forget(key)
            if node_name or old_node:
                self._move({P.NODE_RESOURCES_FIT})
            waiting = self.waiting.pop(key, None)
            if waiting is not None:
                self._drop_waiting_claims(waiting)
            return
        if node_name:
            self._index_claims(key, None)
            self.queue.remove(key)
            self._assumed.pop(key, None)
            if self._pod_node.get(key) != node_name:
                self._forget(key)
                self._account(pod)
            return
        if (pod.get("spec") or {}).get("schedulerName", SCHEDULER_NAME) != SCHEDULER_NAME:
            return
        if (pod.get("metadata") or {}).get("deletionTimestamp"):
            self._index_claims(key, None)
            self.queue.remove(key)
            return
        if key in self.waiting:
            return
        self._index_claims(key, pod)
        where = self.queue.where(key)
        if where is None:
            self.queue.add(key, self.priority(pod), self.dra.pre_enqueue(pod))
        elif where == "gated":
            self.queue.requeue_gated(key, self.dra.pre_enqueue(pod), self._now())
        elif where == "unschedulable" and (old.get("status") or {}).get(
            "resourceClaimStatuses"
        ) != (pod.get("status") or {}).get("resourceClaimStatuses"):
            self.queue.move({P.DYNAMIC_RESOURCES}, self._now(), keys=[key])

    def _account(self, pod: Mapping[str, Any]) -> None:
        node = self.nodes.by_name.get((pod.get("spec") or {}).get("nodeName") or "")
        if node is None or is_terminal(pod):
            return
        key = pod_key(pod)
        node.add_pod(self._entry(pod))
        self._pod_node[key] = node.name
        if self._scorer is not None:
            self._scorer.pod_added(key, pod, node.name)

    def _entry(self, pod: Mapping[str, Any]) -> PodEntry:
        return PodEntry(
            pod_key(pod),
            pod_requests(pod, self.q),
            pod_requests(pod, self.q, non_zero=True),
            self.priority(pod),
        )

    def _forget(self, key: str) -> None:
        name = self._pod_node.pop(key, None)
        node = self.nodes.by_name.get(name or "")
        if node is not None:
            node.remove_pod(key)
        if name is not None and self._scorer is not None:
            self._scorer.pod_removed(key, name)

    def priority(self, pod: Mapping[str, Any]) -> int:
        """spec.priority, else the value of spec.priorityClassName, else the globalDefault."""
        spec = pod.get("spec") or {}
        if spec.get("priority") is not None:
            return int(spec["priority"])
        name = spec.get("priorityClassName")
        if name and name in self.priority_classes:
            return int(self.priority_classes[name].get("value") or 0)
        for cls in self.priority_classes.values():
            if cls.get("globalDefault"):
                return int(cls.get("value") or 0)
        return 0

    # --- the loop's interface -------------------------------------------------------------------

    def has_work(self) -> bool:
        # Claim nominations past their time go first: expiring requeues their preemptors.
        self.preemption.expire_nominations()
        return self._waiting_due() is not None or self.queue.has_work(self._now())

    def use_queue_timing(self) -> None:
        """Follow the queue's timed behaviour from now on (``SchedulerConfig.queue_timing``)."""
        self.config.queue_timing = True
        self.queue.timed = True

    def next_queue_wakeup(self, errors: bool = True) -> datetime | None:
        """With queue timing: when the queue has timed work (an error backoff ending, a flush
        retry of unschedulable pods that may change something); without ``errors``, error
        backoffs ending do not count."""
        due = self.queue.next_wakeup(errors)
        return None if due is None else START + timedelta(seconds=due)

    def next_wakeup(self) -> datetime | None:
        """The earliest binding timeout of a pod waiting in PreBind, or claim nomination
        expiry (KEP-5690)."""
        times = []
        expiry = self.preemption.nominations.next_expiry()
        if expiry is not None:
            times.append(expiry)
        for waiting in self.waiting.values():
            for ck in waiting.claims:
                ns, _, name = ck.partition("/")
                claim = self.store.get("ResourceClaim", name, ns)
                if claim is not None:
                    deadline = self.dra.binding_deadline(claim)
                    if deadline is not None:
                        times.append(deadline)
        future = [t for t in times if t >= self.clock.now()]
        return min(future) if future else None

    def schedule_one(self) -> Decision | None:
        """Run one cycle (or finish one waiting binding); None when there is nothing to do."""
        waiting = self._waiting_due()
        if waiting is not None:
            return self._finish_waiting(*waiting)
        while True:
            entry = self.queue.pop(self._now(), self.unhinted_changes)
            if entry is None:
                return None
            pod = self._pod(entry.key)
            if (
                pod is None
                or (pod.get("spec") or {}).get("nodeName")
                or is_terminal(pod)
                or (pod.get("metadata") or {}).get("deletionTimestamp")
            ):
                self.queue.remove(entry.key)
                continue
            decision = self.gangs.cycle(pod) or self._cycle_with_nominations(pod, entry)
            self.decisions.append(decision)
            self.last_decision[decision.pod] = decision
            return decision

    # --- one cycle ------------------------------------------------------------------------------

    def prepare(self, pod: dict[str, Any]) -> tuple[PodCycle, Status | None]:
        """PreFilter: everything about the pod that does not depend on the node."""
        spec = pod.get("spec") or {}
        requests = pod_requests(pod, self.q)
        tolerations = list(spec.get("tolerations") or [])
        dra_state, status = self.dra.pre_filter(pod, requests)
        mapping = self.dra.class_mapping() if dra_state.extended is not None else {}
        cycle = PodCycle(
            pod=pod,
            key=pod_key(pod),
            spec=spec,
            requests=requests,
            non_zero=pod_requests(pod, self.q, non_zero=True),
            tolerations=tolerations,
            prefer_tolerations=[
                t for t in tolerations if (t.get("effect") or "") in ("", "PreferNoSchedule")
            ],
            preferred=P.preferred_terms(spec),
            dra=dra_state,
            dra_backed=frozenset(mapping),
            priority=self.priority(pod),
        )
        if status is None and not dra_state.allocated and dra_state.extended is None:
            cycle.shape = repr(
                (
                    self._static_shape(cycle),
                    sorted(requests.items()),
                    sorted(cycle.non_zero.items()),
                    cycle.prefer_tolerations,
                    cycle.preferred,
                    dra_state.shape,
                    bool(dra_state.claims),
                )
            )
        return cycle, status

    @staticmethod
    def _static_shape(cycle: PodCycle) -> str:
        spec = cycle.spec
        return repr(
            (
                spec.get("nodeName"),
                cycle.tolerations,
                spec.get("nodeSelector"),
                P.required_affinity(spec),
            )
        )

    def _static_filters(self, cycle: PodCycle) -> dict[str, Status | None]:
        """NodeUnschedulable, NodeName, TaintToleration and NodeAffinity per node, cached per
        pod shape until a node changes."""
        spec = cycle.spec
        shape = self._static_shape(cycle)
        generation = self.nodes.generation
        cached = self._static.get(shape)
        if cached is not None and cached[0] == generation:
            return cached[1]
        wanted = str(spec.get("nodeName") or "")
        out: dict[str, Status | None] = {}
        for node in self.nodes.ordered():
            out[node.name] = (
                P.node_unschedulable(cycle.tolerations, node)
                or P.node_name(wanted, node)
                or P.taint_toleration(cycle.tolerations, node)
                or P.node_affinity(spec, node)
            )
        if len(self._static) > 64:
            self._static.clear()
        self._static[shape] = (generation, out)
        return out

    def run_filters(
        self,
        cycle: PodCycle,
        node: NodeState,
        static: Mapping[str, Status | None],
        recorder: Recorder | None = None,
    ) -> Status | None:
        status = static.get(node.name)
        if status is not None:
            return status
        if not (self.config.policy == "first-fit" and not node.allocatable):
            status = P.node_resources_fit(cycle.requests, node, cycle.dra_backed)
            if status is not None:
                return status
        return self.dra.filter(cycle.dra, cycle.pod, node, recorder)

    def num_feasible_nodes_to_find(self, num_all: int) -> int:
        if self.config.policy == "first-fit":
            return 1
        if num_all < MIN_FEASIBLE_NODES_TO_FIND:
            return num_all
        percentage = self.config.percentage_of_nodes_to_score or 0
        if percentage == 0 and self._scorer is not None and self._scorer.replaces_defaults:
            return num_all  # a placement policy ranks every feasible node, as in the paper
        if percentage == 0:
            percentage = max(50 - num_all // 125, MIN_FEASIBLE_NODES_PERCENTAGE_TO_FIND)
        found = num_all * percentage // 100
        return max(found, MIN_FEASIBLE_NODES_TO_FIND)

    def _cycle_with_nominations(self, pod: dict[str, Any], entry: QueuedPod) -> Decision:
        """One cycle in which the pod's own claim nomination and those of lower-priority
        preemptors do not hold devices against it (KEP-5690)."""
        nominations = self.preemption.nominations
        if not len(nominations):
            return self._cycle(pod, entry)
        nominations.suspend_for(entry.key, self.priority(pod))
        try:
            return self._cycle(pod, entry)
        finally:
            nominations.resume()

    def _cycle(self, pod: dict[str, Any], entry: QueuedPod) -> Decision:
        key = entry.key
        decision = Decision(pod=key, node=None, result="Unschedulable", time=self.clock.now())
        cycle, status = self.prepare(pod)
        first_fit = self.config.policy == "first-fit"
        nodes = self.nodes.in_creation_order() if first_fit else self.nodes.ordered()
        num_all = len(nodes)
        if status is not None and not status.rejected:
            return self._error(
                cycle, decision, f'running PreFilter plugin "{status.plugin}": {status.message}'
            )
        if num_all == 0:
            return self._unschedulable(
                cycle, decision, NO_NODES, {status.plugin} if status else set()
            )
        repeat = self._repeat_key(cycle, first_fit) if status is None else None
        if repeat is not None:
            known = self._failures.get(repeat)
            if known is not None:
                return self._repeat(cycle, decision, known)
        statuses: dict[str, Status] = {}
        # The feasible nodes, unless _window found them (``cycle.window``, whose rejected
        # nodes become ``statuses`` entries only when no node is feasible: a cycle that finds
        # nodes only counts the rejections).
        feasible: list[NodeState] = []
        evals: list[Evaluation] = []
        if status is not None:
            decision.pre_filter = (status.plugin, status.message)
            for node in nodes:
                statuses[node.name] = status
        else:
            static = self._static_filters(cycle)
            start = 0 if first_fit else self.next_start_node_index % num_all
            want = self.num_feasible_nodes_to_find(num_all)
            processed = 0
            table = self._table(cycle, nodes)
            nominated = self.nodes.by_name.get(
                str((pod.get("status") or {}).get("nominatedNodeName") or "")
            )
            if nominated is not None and not first_fit:
                # evaluateNominatedNode: the node preemption freed is tried first.
                result = self.run_filters(cycle, nominated, static)
                if result is None:
                    feasible.append(nominated)
                    evals.append(self._evaluate(cycle, nominated, None))
                    table = None
                    want = 0
            if want == 0:
                pass
            elif table is not None and first_fit:
                found = self._first_fit(cycle, table, nodes, static, feasible, evals, statuses)
                if isinstance(found, Status):
                    return self._error(cycle, decision, found.message)
            elif table is not None:
                outcome = self._window(cycle, table, nodes, static, start, want)
                if isinstance(outcome, Status):
                    return self._error(cycle, decision, outcome.message)
                processed = outcome
            else:
                for i in range(num_all):
                    node = nodes[(start + i) % num_all]
                    processed += 1
                    result = self.run_filters(cycle, node, static)
                    if result is not None and not result.rejected:
                        message = f'running "{result.plugin}" filter plugin: {result.message}'
                        if first_fit:
                            message = result.message
                        return self._error(cycle, decision, message)
                    if result is None:
                        feasible.append(node)
                        evals.append(self._evaluate(cycle, node, None))
                        if len(feasible) >= want:
                            break
                    else:
                        statuses[node.name] = result
            if not first_fit:
                self.next_start_node_index = (start + processed) % num_all
        window = cycle.window
        found = len(feasible) if window is None else window.feasible
        if window is not None and not found:
            window_evals = window.table.evals
            for start_at, end, rejected in window.rejected_parts():
                statuses.update(
                    zip(
                        map(_name, compress(nodes[start_at:end], rejected)),
                        map(_status, compress(window_evals[start_at:end], rejected)),
                        strict=True,
                    )
                )
            window = None  # its rejections are in ``statuses`` now
        decision.evaluated_nodes = (
            found + len(statuses) + (window.rejected() if window is not None else 0)
        )
        decision.feasible_nodes = found
        # Counted per reasons tuple first: a cycle may reject thousands of nodes, and joining
        # each one's message was a good part of a cycle.
        rejections = decision.rejections
        messages: dict[tuple[str, ...], str] = {}
        for reasons, count in _count_reasons(statuses, window).items():
            message = messages[reasons] = ", ".join(reasons)
            rejections[message] = rejections.get(message, 0) + count
        if not found:
            decision.filter_reasons = {
                n: (st.plugin, messages[st.reasons]) for n, st in statuses.items()
            }
            post, nominee, reason = self._post_filter(cycle, statuses, nodes)
            if nominee is not None:
                decision.nominated = nominee
                self._nominate(cycle, nominee)
            message = fit_error(
                num_all,
                statuses,
                pre_filter_message=status.message if status is not None else "",
                post_filter_message=post,
            )
            rejectors = {s.plugin for s in statuses.values()}
            if repeat is not None and nominee is None and self._world() == self._failures_world:
                self._failures[repeat] = _Failure(
                    message,
                    frozenset(rejectors),
                    decision.rejections,
                    decision.filter_reasons,
                    decision.evaluated_nodes,
                    reason,
                )
            return self._unschedulable(cycle, decision, message, rejectors, reason)
        chosen, ev = self._select(cycle, feasible, evals, decision)
        if ev.allocations is not None:
            cycle.dra.node_allocations[chosen.name] = ev.allocations
        return self._reserve_and_bind(cycle, chosen, decision)

    # --- repeated failures ----------------------------------------------------------------------

    def _repeat_key(self, cycle: PodCycle, first_fit: bool) -> tuple[Any, ...] | None:
        """The key under which a failed attempt of this pod is remembered, or None when the
        outcome may depend on more than the pod's shape, priority and preemption policy and
        the cluster state (nodes and the pods on them, devices in use, the unhinted kinds)."""
        if (
            cycle.shape is None
            or first_fit
            or (cycle.pod.get("status") or {}).get("nominatedNodeName")
            or len(self.preemption.nominations)
            or self.preemption.extended
            or self.preemption.dra_enabled
        ):
            return None
        world = self._world()
        if world != self._failures_world:
            self._failures_world = world
            self._failures.clear()
        return (cycle.shape, cycle.priority, cycle.spec.get("preemptionPolicy"))

    def _world(self) -> tuple[int, ...]:
        """Changes a scheduling outcome may depend on, counted: nodes and the pods on them,
        the order of the nodes, the devices in use, the allocator, the unhinted kinds."""
        allocator = self.dra.allocator
        return (
            len(self.nodes.log),
            self.nodes.order_version,
            len(allocator.state.changes) if allocator is not None else 0,
            self.dra.epoch,
            self.unhinted_changes,
        )

    def _repeat(self, cycle: PodCycle, decision: Decision, known: _Failure) -> Decision:
        """A failed attempt of a pod like one that failed since nothing changed: the same
        filter results, PostFilter outcome and message, without evaluating every node again
        (the rotating start index stays where a failed attempt leaves it)."""
        decision.rejections = dict(known.rejections)
        decision.filter_reasons = known.filter_reasons
        decision.evaluated_nodes = known.evaluated_nodes
        return self._unschedulable(
            cycle, decision, known.message, set(known.rejectors), known.reason
        )

    # --- cached evaluations ---------------------------------------------------------------------

    def _table(self, cycle: PodCycle, nodes: list[NodeState]) -> ShapeTable | None:
        if cycle.shape is None:
            return None
        # Least recently used tables go first: a workload's popular shapes keep theirs while
        # rare ones come and go (dropping them all at once re-filtered every node).
        table = self._tables.pop(cycle.shape, None)
        allocator = self.dra.allocator
        pool_log = allocator.state.changes if allocator is not None else []
        if (
            table is None
            or table.order_version != self.nodes.order_version
            or table.epoch != self.dra.epoch
        ):
            kept = max(MIN_SHAPE_TABLES, SHAPE_TABLE_ENTRIES // max(len(nodes), 1))
            while len(self._tables) >= kept:
                del self._tables[next(iter(self._tables))]
            table = ShapeTable(
                [n.name for n in nodes],
                self.nodes.order_version,
                len(self.nodes.log),
                len(pool_log),
                self.dra.epoch,
            )
        else:
            table.replay(self.nodes.log, pool_log)
        self._tables[cycle.shape] = table
        return table

    def _first_fit(
        self,
        cycle: PodCycle,
        table: ShapeTable,
        nodes: list[NodeState],
        static: Mapping[str, Status | None],
        feasible: list[NodeState],
        evals: list[Evaluation],
        statuses: dict[str, Status],
    ) -> int | Status:
        """The first node in order that passes, found with list searches over the cached
        evaluations (only unknown nodes before it are filtered); the error of a node aborts."""
        num_all = len(nodes)
        known, ok, entries = table.known, table.ok, table.evals
        position = 0
        while True:
            try:
                unknown = known.index(False, position)
            except ValueError:
                unknown = num_all
            try:
                hit = ok.index(True, position, unknown)
            except ValueError:
                hit = -1
            if hit >= 0:
                ev = entries[hit]
                assert ev is not None
                feasible.append(nodes[hit])
                evals.append(ev)
                return hit + 1
            if unknown == num_all:
                break
            node = nodes[unknown]
            result = self.run_filters(cycle, node, static)
            if result is not None and not result.rejected:
                return result
            table.store(unknown, self._evaluate(cycle, node, result))
            position = unknown
        for node, ev in zip(nodes, entries, strict=True):
            if ev is not None and ev.status is not None:
                statuses[node.name] = ev.status
        return num_all

    def _window(
        self,
        cycle: PodCycle,
        table: ShapeTable,
        nodes: list[NodeState],
        static: Mapping[str, Status | None],
        start: int,
        want: int,
    ) -> int | Status:
        """findNodesThatPassFilters over cached evaluations, for a cycle that has no
        feasible node yet: returns how many nodes were processed (or the error Status that
        aborts the cycle); ``cycle.window`` says which nodes, and which of them pass."""
        num_all = len(nodes)
        known, ok = table.known, table.ok
        window = cycle.window = Window(table, nodes)
        processed = 0
        position = start
        while processed < num_all and window.feasible < want:
            end = min(position + want - window.feasible, num_all, position + num_all - processed)
            # Most of the window is known: list.index finds the unknown nodes, in order.
            index = position
            while True:
                try:
                    index = known.index(False, index, end)
                except ValueError:
                    break
                node = nodes[index]
                result = self.run_filters(cycle, node, static)
                if result is not None and not result.rejected:
                    return Status(
                        result.code,
                        (f'running "{result.plugin}" filter plugin: {result.message}',),
                        result.plugin,
                    )
                table.store(index, self._evaluate(cycle, node, result))
                index += 1
            window.add(position, end, ok[position:end])
            processed += end - position
            position = end % num_all
        return processed

    def _evaluate(self, cycle: PodCycle, node: NodeState, status: Status | None) -> Evaluation:
        """Filter result and raw scores of one node, with the pools they depend on."""
        allocator = self.dra.allocator
        pools: tuple[tuple[str, str], ...] = ()
        if cycle.dra.to_allocate and allocator is not None:
            pools = allocator.inventory.node_view(node.info).pool_keys
        if status is not None:
            return Evaluation(status, (), None, pools)
        raws = self._raw_scores(cycle, node)
        allocations = cycle.dra.node_allocations.get(node.name)
        scorer = self._scorer
        policy = 0.0
        if scorer is not None and scorer.replaces_defaults and scorer.cacheable:
            policy = self._policy_score(scorer, cycle, node, allocations)
        return Evaluation(None, raws, allocations, pools, policy)

    def _raw_scores(self, cycle: PodCycle, node: NodeState) -> tuple[int, ...]:
        """Score of each plugin before NormalizeScore, in SCORE_ORDER (all 0 when a placement
        policy's score replaces them)."""
        if self._scorer is not None and self._scorer.replaces_defaults:
            return NO_SCORES
        req_cpu = cycle.requests.get(CPU, 0)
        req_memory = cycle.requests.get(MEMORY, 0)
        return (
            P.taint_toleration_score(cycle.prefer_tolerations, node),
            P.node_affinity_score(cycle.preferred, node) if cycle.preferred else 0,
            P.least_allocated_score(
                cycle.non_zero.get(CPU, 0), cycle.non_zero.get(MEMORY, 0), node
            ),
            P.balanced_allocation_score(req_cpu, req_memory, node) if req_cpu or req_memory else 0,
            self.dra.score(cycle.dra, node.name) if cycle.dra.prioritized else 0,
            self._device_score(cycle, node),
        )

    def _device_score(self, cycle: PodCycle, node: NodeState) -> int:
        """An opt-in node score added beside the default plugins (e.g. DRADeviceUtilization),
        0..100; 0 when there is none."""
        scorer = self._scorer
        if scorer is None or scorer.replaces_defaults:
            return 0
        allocations = cycle.dra.node_allocations.get(node.name)
        return int(self._policy_score(scorer, cycle, node, allocations))

    def _policy_score(
        self,
        scorer: NodeScorer,
        cycle: PodCycle,
        node: NodeState,
        allocations: list[dict[str, Any]] | None,
    ) -> float:
        """The placement policy's score of ``node`` for the cycle's pod."""
        pod = self._pod_view(cycle)
        view = NodeView(self.placement_context, pod, node, allocations)
        return float(scorer.score(pod, view))

    @staticmethod
    def _pod_view(cycle: PodCycle) -> PodView:
        """The cycle's pod as placement policies see it (made once per cycle)."""
        if cycle.view is None:
            to_allocate = [cycle.dra.claims[i] for i in cycle.dra.to_allocate]
            cycle.view = PodView(
                cycle.pod, cycle.key, cycle.requests, to_allocate, cycle.dra.prepared
            )
        return cycle.view

    # --- scoring --------------------------------------------------------------------------------

    def score_nodes(
        self, cycle: PodCycle, evals: list[Evaluation], nodes: list[NodeState] | None = None
    ) -> dict[str, Sequence[float]]:
        """Weighted, normalized scores per plugin, one entry per feasible node (``nodes``, in
        the order of ``evals``; needed by a placement policy whose scores are not cached).
        A placement policy that replaces the default scores is the only column."""
        scorer = self._scorer
        if scorer is not None and scorer.replaces_defaults:
            if scorer.cacheable or nodes is None:
                return {scorer.plugin: list(map(_policy, evals))}
            # A score that is not cached runs for every feasible node of every cycle.
            views = NodeViews(
                self.placement_context,
                self._pod_view(cycle),
                nodes,
                list(map(_allocations, evals)),
            )
            return {scorer.plugin: scorer.score_all(views.pod, views)}
        columns = list(zip(*(ev.raws for ev in evals), strict=True))
        taint, affinity, least, balanced, dra, devices = (list(c) for c in columns)
        per_plugin: dict[str, Sequence[float]] = {
            P.TAINT_TOLERATION: P.default_normalize(taint, reverse=True),
            P.NODE_AFFINITY: P.default_normalize(affinity, reverse=False),
            P.NODE_RESOURCES_FIT: least,
            P.BALANCED_ALLOCATION: balanced,
        }
        if not cycle.dra.empty:
            per_plugin[P.DYNAMIC_RESOURCES] = P.default_normalize(dra, reverse=False)
        if scorer is not None:
            per_plugin[scorer.plugin] = devices
        for name, values in per_plugin.items():
            weight = P.SCORE_WEIGHTS.get(name, 1)
            if scorer is not None and name == scorer.plugin:
                weight = scorer.weight
            if weight != 1:
                per_plugin[name] = [v * weight for v in values]
        return per_plugin

    def _select(
        self,
        cycle: PodCycle,
        feasible: list[NodeState],
        evals: list[Evaluation],
        decision: Decision,
    ) -> tuple[NodeState, Evaluation]:
        """Score the feasible nodes (``feasible`` and ``evals``, or ``cycle.window``'s) and
        pick one: the node and its evaluation."""
        window = cycle.window
        if window is not None and window.feasible == 1:
            node, evaluation = window.pick(0)
            return node, evaluation
        if window is None and len(feasible) == 1:
            return feasible[0], evals[0]
        simple = not cycle.preferred and not cycle.dra.prioritized and self._scorer is None
        if window is not None and (not simple or window.table.tainted):
            # Every plugin scores (or a TaintToleration score is to be looked for): the
            # feasible nodes themselves are needed, as lists.
            feasible = window.column(window.nodes)
            evals = window.column(window.table.evals)
            window = cycle.window = None
        if simple and (window is not None or not any(ev.raws[0] for ev in evals)):
            return self._select_simple(cycle, feasible, evals, decision)
        per_plugin = self.score_nodes(cycle, evals, feasible)
        columns = list(per_plugin.values())
        if len(columns) == 1:  # a placement policy's score alone (every feasible node)
            totals = list(columns[0])
        else:
            totals = [sum(row) for row in zip(*columns, strict=True)]
        best = max(totals)
        if totals.count(best) == 1:
            tied_at = [totals.index(best)]
        else:
            tied_at = [i for i, t in enumerate(totals) if t == best]
        scorer = self._scorer
        if len(tied_at) > 1 and scorer is not None and scorer.ties == "name":
            # The placement policy's own rule (the paper's simulator): the first node by name.
            chosen_index = min(tied_at, key=lambda i: feasible[i].name)
        else:
            chosen_index = tied_at[0] if self._rng is None else self._rng.choice(tied_at)
        if len(tied_at) > 1:
            decision.tied = [feasible[i].name for i in tied_at]
        if len(tied_at) >= KEEP_SCORES:
            ranked = tied_at[:KEEP_SCORES]  # what nlargest picks: the first of equal totals
        else:
            ranked = heapq.nlargest(KEEP_SCORES, range(len(totals)), key=totals.__getitem__)
        if chosen_index not in ranked:
            ranked.append(chosen_index)
        decision.scores = {
            feasible[i].name: {name: _reported(values[i]) for name, values in per_plugin.items()}
            for i in ranked
        }
        return feasible[chosen_index], evals[chosen_index]

    def _select_simple(
        self,
        cycle: PodCycle,
        feasible: list[NodeState],
        evals: list[Evaluation],
        decision: Decision,
    ) -> tuple[NodeState, Evaluation]:
        """_select when only NodeResourcesFit and BalancedAllocation differ between nodes
        (no PreferNoSchedule taint, no preferred affinity, no prioritized list): the others
        normalize to constants, so the totals are those two raw scores plus a constant.

        Hundreds of feasible nodes are common: when the cycle's window in its shape table
        has them (``cycle.window``), totals and names are sliced from the table's columns."""
        window = cycle.window
        if window is not None:
            totals = window.column(window.table.simple)
        else:
            totals = [ev.raws[2] + ev.raws[3] for ev in evals]
        best = max(totals)
        count = totals.count(best)
        if count == 1:
            chosen_index = totals.index(best)
        else:
            tied: Sequence[int]
            if count == len(totals):
                tied = range(count)
                decision.tied = (
                    window.column(window.table.names)
                    if window is not None
                    else list(map(_name, feasible))
                )
            else:
                # Hundreds of ties among hundreds of nodes are common: the tied positions
                # and names are picked with C-level iteration, from the table's names when
                # the cycle has a window in it.
                mask = list(map(best.__eq__, totals))
                tied = list(compress(range(len(totals)), mask))
                if window is not None:
                    decision.tied = list(compress(window.column(window.table.names), mask))
                else:
                    decision.tied = list(map(_name, compress(feasible, mask)))
            chosen_index = tied[0] if self._rng is None else self._rng.choice(tied)
        if count >= KEEP_SCORES:
            # nlargest keeps the first of equal totals, so with this many ties it picks the
            # first tied nodes; hundreds of ties are common (a row of empty nodes).
            ranked = list(tied[:KEEP_SCORES])
        else:
            ranked = heapq.nlargest(KEEP_SCORES, range(len(totals)), key=totals.__getitem__)
        if chosen_index not in ranked:
            ranked.append(chosen_index)
        if window is not None:
            # The few nodes this needs, found by their table positions.
            picked = {i: window.pick(i) for i in ranked}
        else:
            picked = {i: (feasible[i], evals[i]) for i in ranked}
        taint = MAX_NODE_SCORE * P.SCORE_WEIGHTS[P.TAINT_TOLERATION]
        for i in ranked:
            node, ev = picked[i]
            raws = ev.raws
            scores: dict[str, float] = {
                P.TAINT_TOLERATION: taint,
                P.NODE_AFFINITY: 0,
                P.NODE_RESOURCES_FIT: raws[2],
                P.BALANCED_ALLOCATION: raws[3],
            }
            if not cycle.dra.empty:
                scores[P.DYNAMIC_RESOURCES] = 0
            decision.scores[node.name] = scores
        return picked[chosen_index]

    # --- PostFilter -----------------------------------------------------------------------------

    def _post_filter(
        self, cycle: PodCycle, statuses: Mapping[str, Status], nodes: list[NodeState]
    ) -> tuple[str, str | None, str]:
        """DynamicResources, then DefaultPreemption: the message, the nominated node and the
        PodScheduled reason."""
        dra = self.dra.post_filter(cycle.dra, cycle.pod)
        outcome = self.preemption.preempt(cycle, statuses, nodes)
        if outcome.node is not None:
            return "", outcome.node, outcome.reason
        return f"{dra}, {outcome.message}", None, outcome.reason

    # --- outcomes -------------------------------------------------------------------------------

    def _conditions(
        self, pod: Mapping[str, Any], reason: str | None, message: str | None
    ) -> list[dict[str, Any]] | None:
        """The pod's conditions with PodScheduled set (None when it already says so)."""
        current = (pod.get("status") or {}).get("conditions") or []
        old = next((c for c in current if c.get("type") == "PodScheduled"), None)
        value = "True" if reason is None else "False"
        cond: dict[str, Any] = {"type": "PodScheduled", "status": value}
        if reason is not None:
            cond["reason"] = reason
            cond["message"] = message
        if old is not None and all(old.get(k) == v for k, v in cond.items()):
            return None
        cond["lastProbeTime"] = None
        cond["lastTransitionTime"] = (
            old["lastTransitionTime"]
            if old is not None and old.get("status") == value and old.get("lastTransitionTime")
            else self.clock.timestamp()
        )
        return [c for c in current if c.get("type") != "PodScheduled"] + [cond]

    def _set_condition(
        self, pod: dict[str, Any], reason: str | None, message: str | None
    ) -> dict[str, Any]:
        current = self.store.get("Pod", pod["metadata"]["name"], pod["metadata"].get("namespace"))
        base = current if current is not None else pod
        conditions = self._conditions(base, reason, message)
        if conditions is None:
            return base
        return self.store.update(
            {**base, "status": {**(base.get("status") or {}), "conditions": conditions}}
        )

    def _nominate(self, cycle: PodCycle, node_name: str) -> None:
        current = self._pod(cycle.key)
        if current is None:
            return
        status = {**(current.get("status") or {}), "nominatedNodeName": node_name}
        cycle.pod = self.store.update({**current, "status": status})

    def _unschedulable(
        self,
        cycle: PodCycle,
        decision: Decision,
        message: str,
        rejectors: set[str],
        reason: str = "Unschedulable",
    ) -> Decision:
        decision.result = "Unschedulable"
        decision.message = message
        self._set_condition(cycle.pod, reason, message)
        self.queue.unschedulable(cycle.key, rejectors, self._now())
        return decision

    def _error(self, cycle: PodCycle, decision: Decision, message: str) -> Decision:
        decision.result = "Error"
        decision.message = message
        self._set_condition(cycle.pod, "SchedulerError", message)
        self.queue.unschedulable(cycle.key, set(), self._now())
        return decision

    def _reserve_and_bind(self, cycle: PodCycle, node: NodeState, decision: Decision) -> Decision:
        decision.node = node.name
        self._assumed[cycle.key] = node.name
        # PreFilter computed the pod's requests and priority already (the spec is unchanged).
        node.add_pod(PodEntry(cycle.key, cycle.requests, cycle.non_zero, cycle.priority))
        self._pod_node[cycle.key] = node.name
        if self._scorer is not None:
            self._scorer.pod_added(cycle.key, cycle.pod, node.name)
        decision.allocations = self.dra.reserve(cycle.dra, node.name)
        try:
            claims, pod = self.dra.pre_bind(cycle.dra, cycle.pod, node.name)
        except (BindError, StoreError) as err:
            self._unreserve(cycle, node.name)
            return self._error(cycle, decision, f'running PreBind plugin "DynamicResources": {err}')
        cycle.pod = pod
        self.queue.done(cycle.key)
        if self.features.binding_conditions and self.dra.has_binding_conditions(claims):
            keys = [claim_key(c) for c in claims]
            self.waiting[cycle.key] = WaitingPod(cycle.key, node.name, cycle, keys, decision)
            for ck in keys:
                self._waiting_claims[ck] = cycle.key
            decision.result = "WaitingForBinding"
            return decision
        return self._bind(cycle, node.name, decision)

    def _bind(self, cycle: PodCycle, node_name: str, decision: Decision) -> Decision:
        current = self._pod(cycle.key)
        if current is None:
            self._unreserve(cycle, node_name)
            return self._error(cycle, decision, "pod was deleted")
        # The binding subresource: spec.nodeName and PodScheduled=True in one write.
        spec = {**(current.get("spec") or {}), "nodeName": node_name}
        status = dict(current.get("status") or {})
        conditions = self._conditions(current, None, None)
        if conditions is not None:
            status["conditions"] = conditions
        self.store.update({**current, "spec": spec, "status": status})
        decision.result = "Scheduled"
        decision.node = node_name
        decision.message = None
        return decision

    def _unreserve(self, cycle: PodCycle, node_name: str) -> None:
        self.dra.unreserve(cycle.dra, node_name)
        self._assumed.pop(cycle.key, None)
        self._forget(cycle.key)
        uid = cycle.pod["metadata"].get("uid")
        for claim in cycle.dra.claims:
            current = self.store.get(
                "ResourceClaim", claim["metadata"]["name"], claim["metadata"].get("namespace")
            )
            if current is None:
                continue
            status = current.get("status") or {}
            reserved = [r for r in status.get("reservedFor") or [] if r.get("uid") != uid]
            if reserved != list(status.get("reservedFor") or []):
                new_status = dict(status)
                if reserved:
                    new_status["reservedFor"] = reserved
                else:
                    new_status.pop("reservedFor", None)
                self.store.update({**current, "status": new_status})

    # --- waiting for binding conditions ---------------------------------------------------------

    def _waiting_due(self) -> tuple[WaitingPod, bool, str | None] | None:
        """A waiting pod whose claims became ready, failed or timed out."""
        if not self.waiting:
            return None
        now = self.clock.now()
        for waiting in self.waiting.values():
            ready = True
            for ck in waiting.claims:
                ns, _, name = ck.partition("/")
                claim = self.store.get("ResourceClaim", name, ns)
                if claim is None:
                    return waiting, False, f"claim {ck} got deleted"
                ok, problem = self.dra.claim_ready_for_binding(claim)
                if problem is not None:
                    return waiting, False, problem
                if not ok:
                    ready = False
                    deadline = self.dra.binding_deadline(claim)
                    if deadline is not None and deadline <= now:
                        return waiting, False, f"claim {name} binding timeout"
            if ready:
                return waiting, True, None
        return None

    def _finish_waiting(self, waiting: WaitingPod, ready: bool, problem: str | None) -> Decision:
        del self.waiting[waiting.key]
        self._drop_waiting_claims(waiting)
        decision = Decision(
            pod=waiting.key, node=waiting.node, result="Scheduled", time=self.clock.now()
        )
        decision.allocations = waiting.decision.allocations
        decision.scores = waiting.decision.scores
        decision.tied = waiting.decision.tied
        if ready:
            self._bind(waiting.cycle, waiting.node, decision)
        else:
            pod = self._pod(waiting.key)
            if pod is not None:
                self.queue.add_failed(waiting.key, self.priority(pod))
                waiting.cycle.pod = pod
            message = f'running PreBind plugin "DynamicResources": {problem}'
            self._error(waiting.cycle, decision, message)
            self._unreserve(waiting.cycle, waiting.node)
            decision.node = None
        self.decisions.append(decision)
        self.last_decision[decision.pod] = decision
        return decision

    def _drop_waiting_claims(self, waiting: WaitingPod) -> None:
        for ck in waiting.claims:
            if self._waiting_claims.get(ck) == waiting.key:
                del self._waiting_claims[ck]


_name = attrgetter("name")


def _count_reasons(
    statuses: Mapping[str, Status], window: Window | None
) -> dict[tuple[str, ...], int]:
    """Rejected nodes per reasons tuple, in the order the nodes were evaluated: ``statuses``
    first, then the rejected nodes of the window."""
    counts: dict[tuple[str, ...], int] = (
        dict(Counter(map(_reasons, statuses.values()))) if statuses else {}
    )
    if window is not None:
        table = window.table
        for start, end, passing in window.parts:
            if passing is not None:
                table.count_rejections(start, end, counts)
    return counts


_status = attrgetter("status")
_reasons = attrgetter("reasons")
_policy = attrgetter("policy")
_allocations = attrgetter("allocations")


def _reported(score: float) -> float:
    """A score as a decision reports it: integers as they are, a policy's float rounded."""
    if isinstance(score, int) or score == int(score):
        return int(score)
    return round(score, POLICY_SCORE_DIGITS)

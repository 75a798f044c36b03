"""DefaultPreemption's PostFilter: evict lower-priority pods so that the pod fits.

As upstream's ``preemption.Evaluator``: only nodes that a filter rejected as resolvable
(``Unschedulable``, e.g. ``Insufficient cpu``) are candidates; on each, all lower-priority pods
are removed, the pod must then pass NodeResourcesFit and DynamicResources, and victims are
reprieved in order of importance (priority, then the earlier bound) while it still fits. Among
the candidates the node with the lowest highest victim priority, then the lowest sum of victim
priorities, then the fewest victims wins (the first in node order on a tie; PodDisruptionBudgets
are not modelled). The victims are deleted and the pod's ``status.nominatedNodeName`` is set.
DynamicResources is checked against the allocated state as it is: devices held by victims are
not counted as free.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from kubedra.scheduler import plugins as P
from kubedra.scheduler.messages import NO_VICTIMS, PREEMPTION_NOT_HELPFUL, fit_error
from kubedra.scheduler.nodeinfo import NodeState, PodEntry
from kubedra.scheduler.status import UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status

if TYPE_CHECKING:
    from collections.abc import Mapping

    from kubedra.scheduler.scheduler import PodCycle, Scheduler

MIN_CANDIDATE_NODES_PERCENTAGE = 10
MIN_CANDIDATE_NODES_ABSOLUTE = 100


@dataclass
class Outcome:
    """The PostFilter message (empty when preemption succeeded) and the nominated node."""

    message: str
    node: str | None = None
    victims: tuple[str, ...] = ()
    reason: str = "Unschedulable"
    """The PodScheduled reason when no node was nominated (``PreemptionSettling`` while a
    claim nomination waits for its released claims, KEP-5690)."""


def _fits(scheduler: Scheduler, cycle: PodCycle, node: NodeState) -> Status | None:
    status = P.node_resources_fit(cycle.requests, node, cycle.dra_backed)
    if status is not None:
        return status
    return scheduler.dra.filter(cycle.dra, cycle.pod, node)


def select_victims(
    scheduler: Scheduler, cycle: PodCycle, node: NodeState
) -> list[PodEntry] | Status:
    """SelectVictimsOnNode: the fewest lower-priority pods to remove, or why none helps."""
    lower = [p for p in node.pods.values() if p.priority < cycle.priority]
    if not lower:
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,))
    for victim in lower:
        node.remove_pod(victim.key)
    victims: list[PodEntry] = []
    try:
        status = _fits(scheduler, cycle, node)
        if status is not None:
            return status
        order = {p.key: i for i, p in enumerate(lower)}
        for candidate in sorted(lower, key=lambda p: (-p.priority, order[p.key])):
            node.add_pod(candidate)
            if _fits(scheduler, cycle, node) is not None:
                node.remove_pod(candidate.key)
                victims.append(candidate)
        return victims
    finally:
        for victim in victims:
            node.add_pod(victim)
        for victim in lower:
            if victim.key not in node.pods:
                node.add_pod(victim)


def preempt(
    scheduler: Scheduler,
    cycle: PodCycle,
    statuses: Mapping[str, Status],
    nodes: list[NodeState],
) -> Outcome:
    if cycle.spec.get("preemptionPolicy") == "Never":
        return Outcome("preemption: not eligible due to preemptionPolicy=Never.")
    potential = [
        n for n in nodes if (s := statuses.get(n.name)) is not None and s.code == UNSCHEDULABLE
    ]
    want = max(len(nodes) * MIN_CANDIDATE_NODES_PERCENTAGE // 100, MIN_CANDIDATE_NODES_ABSOLUTE)
    results: dict[str, Status] = {}
    candidates: list[tuple[NodeState, list[PodEntry]]] = []
    for node in potential:
        outcome = select_victims(scheduler, cycle, node)
        if isinstance(outcome, Status):
            results[node.name] = outcome
            continue
        candidates.append((node, outcome))
        if len(candidates) >= want:
            break
    if not candidates:
        absent = len(nodes) - len(results)
        body = fit_error(len(nodes), results, absent=absent, absent_reason=PREEMPTION_NOT_HELPFUL)
        return Outcome(f"preemption: {body}")
    node, victims = min(
        candidates,
        key=lambda c: (
            max((v.priority for v in c[1]), default=-(2**31)),
            sum(v.priority for v in c[1]),
            len(c[1]),
        ),
    )
    store = scheduler.store
    for victim in victims:
        namespace, _, name = victim.key.partition("/")
        store.delete("Pod", name, namespace)
    return Outcome("", node.name, tuple(v.key for v in victims))

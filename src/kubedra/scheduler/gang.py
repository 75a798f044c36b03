"""Gang placement: a group of pods admitted all together (``minCount`` of them) or not at all.

Upstream (KEP-4671 gang scheduling) places a gang's pods one by one, each on the node the
default profile scores best, and admits the gang only when ``minCount`` pods found a place; a
pod that fails makes the whole gang wait, even on an idle cluster where another choice for an
earlier pod would have left room (kubernetes/kubernetes#138765). ``mode="greedy"`` is that
order. ``mode="backtrack"`` (kubedra, beyond upstream) searches: when pod k finds no node, the
nodes chosen for earlier pods are revisited (each pod's feasible nodes in score order, the
allocator's devices for that node), so the gang is admitted whenever such an assignment exists,
bounded by ``step_limit`` node choices with a message that says the bound was hit.

Planning works on the scheduler's live node and device state, assuming each placement (the
pod's requests on the node, its devices as allocated) and undoing it afterwards; ``admit``
then reserves and binds the planned pods through the scheduler's normal Reserve/PreBind/Bind.
The planner itself takes the pods and ``minCount``; :class:`GangScheduling` reads them from
the PodGroup (``scheduling.k8s.io/v1alpha2`` in 1.36, ``v1beta1`` in 1.37: the same
``spec.schedulingPolicy.gang.minCount``) and its pods' ``spec.schedulingGroup.podGroupName``.

After each gang attempt the PodGroup's status gets upstream's condition
(kubernetes/kubernetes#137611, KEP-5832): ``PodGroupScheduled`` in 1.36, renamed
``PodGroupInitiallyScheduled`` in 1.37 (k8s.io/api ``scheduling/v1beta1``): ``False`` with
reason ``Unschedulable`` and the gang's message while the group cannot be placed, ``True``
once it was, and never back to ``False`` after that.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Literal

from kubedra.scheduler.dynamicresources import _results
from kubedra.scheduler.messages import fit_error
from kubedra.scheduler.status import Status

if TYPE_CHECKING:
    from kubedra.scheduler.nodeinfo import NodeState
    from kubedra.scheduler.scheduler import Decision, PodCycle, Scheduler

DEFAULT_STEP_LIMIT = 10_000
Mode = Literal["greedy", "backtrack"]

SCHEDULED_CONDITION = {
    "scheduling.k8s.io/v1alpha2": "PodGroupScheduled",
    "scheduling.k8s.io/v1beta1": "PodGroupInitiallyScheduled",
}
"""The PodGroup condition the scheduler sets, by the version the group is stored in."""
REASON_UNSCHEDULABLE = "Unschedulable"
REASON_SCHEDULED = "Scheduled"
"""Upstream's reason for ``True`` is not in k8s.io/api's constants; this one is kubedra's."""


class StepLimit(Exception):
    """The backtracking search used its step budget."""


@dataclass
class Placement:
    pod: str
    node: str
    allocations: list[dict[str, Any]]


@dataclass
class GangResult:
    """The planned placements (None when the gang is not admitted) and why."""

    placements: list[Placement] | None
    message: str
    steps: int = 0
    limit_hit: bool = False
    unplaced: list[str] = field(default_factory=list)

    @property
    def admitted(self) -> bool:
        return self.placements is not None


@dataclass
class _Option:
    node: NodeState
    allocations: list[dict[str, Any]]
    claim_uids: list[str] = field(default_factory=list)
    """The claims the allocations are for, in order (a shared claim is assumed allocated for
    the gang's later pods)."""


class GangPlanner:
    """Plans (and admits) one gang over a Scheduler's state."""

    def __init__(self, scheduler: Scheduler, step_limit: int = DEFAULT_STEP_LIMIT) -> None:
        self.scheduler = scheduler
        self.step_limit = step_limit
        self._assumed: list[tuple[str, NodeState, list[dict[str, Any]], list[str]]] = []
        self._steps = 0
        self._last_failure: tuple[str, str] | None = None

    # --- what one pod can do now ----------------------------------------------------------------

    def _options(self, pod: dict[str, Any]) -> tuple[list[_Option], str]:
        """Feasible nodes in the default profile's order (best score first, then node order),
        or the FitError message when there are none."""
        s = self.scheduler
        cycle, status = s.prepare(pod)
        nodes = s.nodes.ordered()
        if status is not None:
            return [], fit_error(len(nodes), {}, pre_filter_message=status.message)
        static = s._static_filters(cycle)
        feasible: list[NodeState] = []
        statuses: dict[str, Status] = {}
        for node in nodes:
            result = s.run_filters(cycle, node, static)
            if result is None:
                feasible.append(node)
            else:
                statuses[node.name] = result
        if not feasible:
            return [], fit_error(len(nodes), statuses)
        totals = self._totals(cycle, feasible)
        order = sorted(range(len(feasible)), key=lambda i: (-totals[i], i))
        uids = [str(cycle.dra.claims[i]["metadata"].get("uid")) for i in cycle.dra.to_allocate]
        options = [
            _Option(feasible[i], list(cycle.dra.node_allocations.get(feasible[i].name) or []), uids)
            for i in order
        ]
        return options, ""

    def _totals(self, cycle: PodCycle, feasible: list[NodeState]) -> list[float]:
        s = self.scheduler
        evals = [s._evaluate(cycle, node, None) for node in feasible]
        per_plugin = s.score_nodes(cycle, evals, feasible)
        return [sum(col[i] for col in per_plugin.values()) for i in range(len(feasible))]

    # --- assuming -------------------------------------------------------------------------------

    def _assume(self, pod: Mapping[str, Any], option: _Option) -> None:
        s = self.scheduler
        entry = s._entry(pod)
        option.node.add_pod(entry)
        results = [r for a in option.allocations for r in _results(a)]
        if results:
            s.dra.ensure_allocator().state.add_results(results)
        uids = [u for u in option.claim_uids if u not in s.dra.assumed]
        for uid, allocation in zip(option.claim_uids, option.allocations, strict=False):
            if uid in uids:
                s.dra.assumed[uid] = allocation
        self._assumed.append((entry.key, option.node, results, uids))

    def _undo(self) -> None:
        key, node, results, uids = self._assumed.pop()
        node.remove_pod(key)
        for uid in uids:
            self.scheduler.dra.assumed.pop(uid, None)
        if results:
            self.scheduler.dra.ensure_allocator().state.remove_results(results)

    def _undo_all(self) -> None:
        while self._assumed:
            self._undo()

    # --- planning -------------------------------------------------------------------------------

    def plan(
        self, name: str, pods: list[dict[str, Any]], min_count: int, mode: Mode = "greedy"
    ) -> GangResult:
        """Where the gang's pods would go; nothing is written."""
        min_count = min(max(min_count, 1), len(pods))
        self._steps = 0
        self._last_failure = None
        try:
            if mode == "greedy":
                placements = self._greedy(pods, min_count)
            else:
                try:
                    placements = self._search(pods, 0, min_count, [])
                except StepLimit:
                    return GangResult(
                        None,
                        f"gang {name}: search stopped after {self.step_limit} steps without "
                        f"placing {min_count} of {len(pods)} pods (the --gang-steps bound)",
                        self._steps,
                        limit_hit=True,
                    )
        finally:
            self._undo_all()
        if placements is None:
            pod_key, why = self._last_failure or ("", "")
            return GangResult(
                None,
                f"gang {name}: fewer than minCount {min_count} of {len(pods)} pods can be "
                f"placed; pod {pod_key}: {why}",
                self._steps,
                unplaced=[pod_key] if pod_key else [],
            )
        return GangResult(
            placements,
            f"gang {name}: {len(placements)} of {len(pods)} pods placed (minCount {min_count})",
            self._steps,
        )

    def _greedy(self, pods: list[dict[str, Any]], min_count: int) -> list[Placement] | None:
        placements: list[Placement] = []
        for pod in pods:
            options, why = self._options(pod)
            self._steps += 1
            if not options:
                self._last_failure = (_key(pod), why)
                continue
            self._assume(pod, options[0])
            placements.append(Placement(_key(pod), options[0].node.name, options[0].allocations))
        return placements if len(placements) >= min_count else None

    def _search(
        self, pods: list[dict[str, Any]], i: int, min_count: int, placed: list[Placement]
    ) -> list[Placement] | None:
        if len(placed) >= min_count and i == len(pods):
            return list(placed)
        if len(placed) + (len(pods) - i) < min_count:
            return None
        pod = pods[i]
        options, why = self._options(pod)
        if not options:
            self._last_failure = (_key(pod), why)
        for option in options:
            self._steps += 1
            if self._steps > self.step_limit:
                raise StepLimit
            self._assume(pod, option)
            placed.append(Placement(_key(pod), option.node.name, option.allocations))
            found = self._search(pods, i + 1, min_count, placed)
            if found is not None:
                return found
            placed.pop()
            self._undo()
        # Leave this pod out if minCount still allows it.
        if len(placed) + (len(pods) - i - 1) >= min_count:
            return self._search(pods, i + 1, min_count, placed)
        return None

    # --- admitting ------------------------------------------------------------------------------

    def admit(self, result: GangResult, record: bool = True) -> list[Decision]:
        """Reserve, PreBind and Bind every planned pod on its planned node (``record``: add
        the decisions to the scheduler's list)."""
        from kubedra.scheduler.scheduler import Decision

        s = self.scheduler
        decisions: list[Decision] = []
        for placement in result.placements or []:
            pod = s._pod(placement.pod)
            if pod is None:
                continue
            cycle, _ = s.prepare(pod)
            node = s.nodes.by_name[placement.node]
            decision = Decision(pod=placement.pod, node=None, result="Unschedulable")
            status = s.run_filters(cycle, node, s._static_filters(cycle))
            if status is not None:  # the cluster changed since planning
                decision.message = f"planned node {node.name} no longer fits: {status.message}"
                decisions.append(decision)
                continue
            decisions.append(s._reserve_and_bind(cycle, node, decision))
            if record:
                s.decisions.append(decision)
                s.last_decision[decision.pod] = decision
        return decisions


def _key(pod: Mapping[str, Any]) -> str:
    meta = pod.get("metadata") or {}
    return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"


class GangScheduling:
    """The scheduler's gang path: a pod whose ``spec.schedulingGroup.podGroupName`` names a
    PodGroup with a gang policy is scheduled together with the group's other pending pods
    (KEP-4671's workload scheduling cycle): all of them are placed, or none is."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler

    @staticmethod
    def group_name(pod: Mapping[str, Any]) -> str | None:
        group = (pod.get("spec") or {}).get("schedulingGroup") or {}
        name = group.get("podGroupName") if isinstance(group, dict) else None
        return str(name) if name else None

    def cycle(self, pod: dict[str, Any]) -> Decision | None:
        """One gang attempt triggered by ``pod``; None for pods outside a gang."""
        from kubedra.scheduler.scheduler import Decision

        name = self.group_name(pod)
        if name is None:
            return None
        s = self.scheduler
        namespace = str((pod.get("metadata") or {}).get("namespace") or "")
        key = _key(pod)
        group = s.store.get("PodGroup", name, namespace)
        decision = Decision(pod=key, node=None, result="Unschedulable", time=s.clock.now())
        if group is None:
            return self._reject([pod], f'podgroup.scheduling.k8s.io "{name}" not found', key)
        gang = (((group.get("spec") or {}).get("schedulingPolicy") or {}).get("gang")) or None
        if gang is None:
            return None  # the basic policy: pods are scheduled one by one
        min_count = int(gang.get("minCount") or 1)
        members = [
            p
            for p in s.store.list("Pod", namespace)
            if self.group_name(p) == name
            and not (p.get("spec") or {}).get("nodeName")
            and not (p.get("metadata") or {}).get("deletionTimestamp")
            and (p.get("status") or {}).get("phase") not in ("Succeeded", "Failed")
        ]
        bound = sum(
            1
            for p in s.store.list("Pod", namespace)
            if self.group_name(p) == name and (p.get("spec") or {}).get("nodeName")
        )
        need = max(min_count - bound, 0)
        if len(members) < need:
            return self._reject(
                members,
                f"pod group {namespace}/{name}: {len(members) + bound} of minCount {min_count} "
                "pods exist; waiting for the rest",
                key,
            )
        mode: Mode = "backtrack" if s.config.gang == "backtrack" else "greedy"
        planner = GangPlanner(s, s.config.gang_steps)
        result = planner.plan(f"{namespace}/{name}", members, need, mode)
        if not result.admitted:
            self._set_group_condition(group, False, result.message)
            return self._reject(members, result.message, key)
        decisions = planner.admit(result, record=False)
        if any(d.result == "Scheduled" for d in decisions):
            self._set_group_condition(group, True, "")
        others = [d for d in decisions if d.pod != key]
        s.decisions.extend(others)
        for d in others:
            s.last_decision[d.pod] = d
        mine = next((d for d in decisions if d.pod == key), None)
        if mine is not None:
            return mine
        decision.message = result.message
        return self._reject([pod], result.message, key)

    def _set_group_condition(self, group: dict[str, Any], scheduled: bool, message: str) -> None:
        """The PodGroup's (Initially)Scheduled condition; once True it stays True."""
        s = self.scheduler
        meta = group.get("metadata") or {}
        current = s.store.get("PodGroup", str(meta.get("name")), meta.get("namespace")) or group
        kind = SCHEDULED_CONDITION.get(str(current.get("apiVersion")))
        if kind is None:
            return
        status = dict(current.get("status") or {})
        conditions = list(status.get("conditions") or [])
        old = next((c for c in conditions if c.get("type") == kind), None)
        if old is not None and old.get("status") == "True":
            return
        value = "True" if scheduled else "False"
        reason = REASON_SCHEDULED if scheduled else REASON_UNSCHEDULABLE
        if old is not None and (old.get("status"), old.get("reason"), old.get("message")) == (
            value,
            reason,
            message,
        ):
            return
        condition: dict[str, Any] = {"type": kind, "status": value, "reason": reason}
        condition["message"] = message
        changed = old is None or old.get("status") != value
        condition["lastTransitionTime"] = (
            s.clock.timestamp() if changed or old is None else old.get("lastTransitionTime")
        )
        status["conditions"] = [c for c in conditions if c.get("type") != kind] + [condition]
        s.store.update({**current, "status": status})

    def _reject(self, pods: list[dict[str, Any]], message: str, trigger: str) -> Decision:
        from kubedra.scheduler import plugins as P
        from kubedra.scheduler.scheduler import Decision

        s = self.scheduler
        queue = s.queue
        now = s._now()
        rejectors = {P.DYNAMIC_RESOURCES, P.NODE_RESOURCES_FIT, "GangScheduling"}
        mine = Decision(pod=trigger, node=None, result="Unschedulable", time=s.clock.now())
        mine.message = message
        for pod in sorted(pods, key=lambda p: _key(p) == trigger):
            key = _key(pod)
            s._set_condition(pod, "Unschedulable", message)
            if key == trigger:
                queue.unschedulable(key, rejectors, now)
                continue
            saved = (queue._in_flight_events, queue._in_flight)
            queue.unschedulable(key, rejectors, now)
            queue._in_flight_events, queue._in_flight = saved
            other = Decision(pod=key, node=None, result="Unschedulable", time=s.clock.now())
            other.message = message
            s.decisions.append(other)
            s.last_decision[key] = other
        if not any(_key(p) == trigger for p in pods):
            queue.unschedulable(trigger, rejectors, now)
        return mine

"""DefaultPreemption's PostFilter as upstream (``pkg/scheduler/framework/preemption`` and
``plugins/defaultpreemption``), with DRA-aware victim simulation behind ``DRAPreemption``.

Eligibility (``PodEligibleToPreemptOthers``): ``preemptionPolicy: Never`` never preempts; a pod
whose nominated node still has victims being torn down (for DRA: victims' claims not yet
deallocated) does not preempt again. Candidates (``DryRunPreemption``): the nodes a filter
rejected as ``Unschedulable`` (resolvable), from the first node on, until
``max(10 % of the nodes, 100)`` candidates were found once one violates no PodDisruptionBudget.
Victims (``SelectVictimsOnNode``): every lower-priority pod is removed; if the pod then fits,
the removed pods are reprieved one by one, PDB-violating ones first, each group from the most
important (higher priority, then the earlier start), keeping those without which the pod still
fits. Ordering (``pickOneNodeForPreemption``): fewest PDB violations, lowest highest victim
priority, smallest sum of (priority + 2^31), fewest victims, latest start of the highest-priority
victims, then node order. The victims get the ``DisruptionTarget`` condition
(``PreemptionByScheduler``) and are deleted; lower-priority pods nominated to that node lose
the nomination; the pod's ``status.nominatedNodeName`` is set.

DRA (KEP-5690, kubernetes/enhancements#6113, gate ``DRAPreemption``, alpha, off by default).
Off: DynamicResources' rejection is ``UnschedulableAndUnresolvable``, so no pod is preempted for
devices (today's upstream). On: that rejection becomes resolvable, and removing a victim
(DynamicResources' ``RemovePod``) releases its claims in the simulation when every consumer in
``reservedFor`` is a victim (a shared claim stays while one consumer survives), all the claim's
devices come from ResourceSlices of this node (``spec.nodeName``: node-local only, so
network-attached and multi-node devices are never freed) and it is not reserved for a
PodGroup; ``AddPod`` (a reprieve) takes them back. Pods of a PodGroup get no devices freed
(the KEP leaves them to workload-aware preemption). The chosen candidate becomes a claim
nomination (:mod:`kubedra.scheduler.nominations`): the devices the preemptor was simulated to
get are held for it against pods of its priority or lower, for at most five minutes, and while
a released claim is still allocated the preemptor does not preempt again and its PodScheduled
reason is ``PreemptionSettling``.

``SchedulerConfig.preemption == "extended"`` (kubedra, opt-in) replaces the victim selection
for pods outside PodGroups by ``kubedra.scheduler.extendedpreemption``'s allocator-driven
search; nominations, acting and the upstream rules for eligibility stay as above.

PodDisruptionBudgets (``policy/v1``) come from the store (``pdb_source`` can replace them);
``status.disruptionsAllowed`` is used when set, else computed from the matching pods as the
disruption controller does (healthy = Running).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING, Any

from kubedra.cluster.clock import parse_time
from kubedra.cluster.events import Event
from kubedra.scheduler import plugins as P
from kubedra.scheduler.dynamicresources import ERR_CANNOT_ALLOCATE, _results, pod_claim_names
from kubedra.scheduler.extendedpreemption import (
    DEFAULT_VICTIM_SETS,
    ExtendedSearch,
    Report,
    holds_remote,
    remote_pools,
)
from kubedra.scheduler.messages import NO_VICTIMS, PREEMPTION_NOT_HELPFUL, fit_error
from kubedra.scheduler.nodeinfo import NodeState, PodEntry
from kubedra.scheduler.nominations import (
    NOMINATION_TTL,
    SETTLING_REASON,
    ClaimNominations,
    Nomination,
)
from kubedra.scheduler.preemption import Outcome
from kubedra.scheduler.status import UNSCHEDULABLE, UNSCHEDULABLE_AND_UNRESOLVABLE, Status

if TYPE_CHECKING:
    from kubedra.scheduler.scheduler import PodCycle, Scheduler

DEFAULT_PREEMPTION = "DefaultPreemption"
MIN_CANDIDATE_NODES_PERCENTAGE = 10
MIN_CANDIDATE_NODES_ABSOLUTE = 100
MAX_INT32 = 2**31 - 1
NOT_ELIGIBLE_NEVER = "not eligible due to preemptionPolicy=Never."
NOT_ELIGIBLE_TERMINATING = "not eligible due to a terminating pod on the nominated node."
SETTLING = "waiting for the claims of preempted pods to be deallocated"
"""kubedra's wording of the KEP-5690 deferral (the KEP names the reason, not the message)."""
DISRUPTION_TARGET = "DisruptionTarget"
PREEMPTION_BY_SCHEDULER = "PreemptionByScheduler"
DRA_PREEMPTION_OFF = (
    "DRAPreemption is off: pods holding devices are not preempted for DynamicResources "
    "(enable with --feature-gates DRAPreemption=true)"
)

PdbSource = Callable[[], list[dict[str, Any]]]


@dataclass
class Victim:
    """A pod on the candidate node, with what upstream's ordering reads of it."""

    entry: PodEntry
    pod: dict[str, Any]
    start: datetime
    claims: list[dict[str, Any]] = field(default_factory=list)

    @property
    def key(self) -> str:
        return self.entry.key

    @property
    def priority(self) -> int:
        return self.entry.priority


@dataclass
class Candidate:
    node: NodeState
    victims: list[Victim]
    pdb_violations: int


def pdb_allowed(pdb: Mapping[str, Any], pods: Sequence[Mapping[str, Any]]) -> int:
    """``status.disruptionsAllowed`` if set, else what the disruption controller computes from
    the matching pods (healthy = Running; percentages of the matching pods, rounded up)."""
    status = pdb.get("status") or {}
    if status.get("disruptionsAllowed") is not None:
        return int(status["disruptionsAllowed"])
    spec = pdb.get("spec") or {}
    matching = [p for p in pods if pdb_matches(pdb, p)]
    healthy = sum(1 for p in matching if (p.get("status") or {}).get("phase") == "Running")
    expected = len(matching)

    def scaled(value: Any) -> int:
        if isinstance(value, str) and value.endswith("%"):
            return -(-int(value[:-1]) * expected // 100)
        return int(value)

    if spec.get("minAvailable") is not None:
        desired = scaled(spec["minAvailable"])
    elif spec.get("maxUnavailable") is not None:
        desired = expected - scaled(spec["maxUnavailable"])
    else:
        desired = expected
    return max(healthy - desired, 0)


def label_selector_matches(selector: Mapping[str, Any], labels: Mapping[str, str]) -> bool:
    """A metav1.LabelSelector (matchLabels and matchExpressions) against a pod's labels."""
    for key, value in (selector.get("matchLabels") or {}).items():
        if labels.get(key) != value:
            return False
    for expr in selector.get("matchExpressions") or []:
        key = expr.get("key")
        op = expr.get("operator")
        values = expr.get("values") or []
        if op == "In" and labels.get(key) not in values:
            return False
        if op == "NotIn" and key in labels and labels[key] in values:
            return False
        if op == "Exists" and key not in labels:
            return False
        if op == "DoesNotExist" and key in labels:
            return False
    return True


def pdb_matches(pdb: Mapping[str, Any], pod: Mapping[str, Any]) -> bool:
    """Same namespace and a non-empty selector matching the pod's labels (upstream skips
    PDBs with an empty selector here)."""
    pmeta = pod.get("metadata") or {}
    if (pdb.get("metadata") or {}).get("namespace") != pmeta.get("namespace"):
        return False
    selector = (pdb.get("spec") or {}).get("selector")
    if not selector or not (selector.get("matchLabels") or selector.get("matchExpressions")):
        return False
    return label_selector_matches(selector, pmeta.get("labels") or {})


def split_pdb_violations(
    victims: list[Victim], pdbs: list[dict[str, Any]], all_pods: Sequence[Mapping[str, Any]]
) -> tuple[list[Victim], list[Victim]]:
    """filterPodsWithPDBViolation: (violating, non-violating), each in the given order."""
    allowed = [pdb_allowed(pdb, all_pods) for pdb in pdbs]
    violating: list[Victim] = []
    fine: list[Victim] = []
    for victim in victims:
        name = (victim.pod.get("metadata") or {}).get("name")
        violates = False
        for i, pdb in enumerate(pdbs):
            if not pdb_matches(pdb, victim.pod):
                continue
            if name in ((pdb.get("status") or {}).get("disruptedPods") or {}):
                continue
            allowed[i] -= 1
            if allowed[i] < 0:
                violates = True
        (violating if violates else fine).append(victim)
    return violating, fine


def _resolvable(status: Status | None, devices: bool) -> bool:
    """Whether preemption may help a node that ``status`` rejected; with ``devices``
    (KEP-5690's gate on, or extended preemption) "cannot allocate all claims" may be resolved
    by preempting pods whose claims hold node-local devices."""
    if status is None:
        return False
    if status.code == UNSCHEDULABLE:
        return True
    return (
        devices
        and status.code == UNSCHEDULABLE_AND_UNRESOLVABLE
        and status.plugin == P.DYNAMIC_RESOURCES
        and ERR_CANNOT_ALLOCATE in status.reasons
    )


class DefaultPreemption:
    """The PostFilter plugin, with the claim nominations it keeps between cycles."""

    def __init__(self, scheduler: Scheduler) -> None:
        self.scheduler = scheduler
        self.nominations = ClaimNominations(scheduler.dra)
        self.pdb_source: PdbSource = self._store_pdbs
        self._held_by_node: dict[str, tuple[list[dict[str, Any]], set[str]]] = {}
        self.reports: dict[str, Report] = {}
        """The latest ``--preemption extended`` decision per preemptor, for explain."""
        scheduler.store.subscribe(self._on_event)

    @property
    def extended(self) -> bool:
        config = getattr(self.scheduler, "config", None)
        return getattr(config, "preemption", "upstream") == "extended"

    @property
    def dra_enabled(self) -> bool:
        return bool(getattr(self.scheduler.features, "dra_preemption", False))

    def _store_pdbs(self) -> list[dict[str, Any]]:
        from kubedra.cluster.kinds import KINDS

        if "PodDisruptionBudget" not in KINDS:
            return []
        return list(self.scheduler.store.list("PodDisruptionBudget"))

    # --- claim nominations --------------------------------------------------------------------

    def _on_event(self, event: Event) -> None:
        if event.kind == "Pod":
            key = self._key(event.obj)
            if event.type == "DELETED":
                self.nominations.drop(key)
                self.reports.pop(key, None)
            elif self.nominations.get(key) is not None and (
                (event.obj.get("spec") or {}).get("nodeName")
                or not (event.obj.get("status") or {}).get("nominatedNodeName")
            ):
                # Bound, or its nomination was taken away: the claim nomination goes with it.
                self.nominations.drop(key)
            return
        if event.kind != "ResourceClaim" or not len(self.nominations):
            return
        gone = event.type == "DELETED" or not (event.obj.get("status") or {}).get("allocation")
        if gone:
            self.nominations.claim_deallocated(str((event.obj.get("metadata") or {}).get("uid")))

    @staticmethod
    def _key(pod: Mapping[str, Any]) -> str:
        meta = pod.get("metadata") or {}
        return f"{meta.get('namespace') or ''}/{meta.get('name') or ''}"

    def expire_nominations(self) -> None:
        """Drop nominations past their five minutes and requeue their preemptors."""
        if not len(self.nominations):
            return
        scheduler = self.scheduler
        for nomination in self.nominations.expire(scheduler.clock.now()):
            scheduler.queue.move({P.DYNAMIC_RESOURCES}, scheduler._now(), keys=[nomination.pod])

    # --- PostFilter -----------------------------------------------------------------------------

    def preempt(
        self, cycle: PodCycle, statuses: Mapping[str, Status], nodes: list[NodeState]
    ) -> Outcome:
        self._held_by_node.clear()
        if cycle.spec.get("preemptionPolicy") == "Never":
            return Outcome(f"preemption: {NOT_ELIGIBLE_NEVER}")
        nomination = self.nominations.get(cycle.key)
        if nomination is not None and nomination.settling:
            waiting = ", ".join(nomination.pending_names())
            return Outcome(
                f"preemption: {SETTLING} on node {nomination.node}: {waiting}.",
                reason=SETTLING_REASON,
            )
        if self._terminating_on_nominated(cycle, statuses):
            return Outcome(f"preemption: {NOT_ELIGIBLE_TERMINATING}")
        wide = self.dra_enabled or self.extended
        potential = [n for n in nodes if _resolvable(statuses.get(n.name), wide)]
        num_candidates = min(
            max(len(nodes) * MIN_CANDIDATE_NODES_PERCENTAGE // 100, MIN_CANDIDATE_NODES_ABSOLUTE),
            len(nodes),
        )
        store_pods = self.scheduler.store.list("Pod")
        pdbs = self.pdb_source()
        local = self._node_local_pools() if self.dra_enabled else {}
        if self.extended and self._frees_devices(cycle):
            return self._preempt_extended(cycle, potential, nodes, pdbs, store_pods, num_candidates)
        results: dict[str, Status] = {}
        violating: list[Candidate] = []
        fine: list[Candidate] = []
        for node in potential:
            outcome = self.select_victims(cycle, node, pdbs, store_pods, local)
            if isinstance(outcome, Status):
                results[node.name] = outcome
                continue
            (violating if outcome.pdb_violations else fine).append(outcome)
            if fine and len(fine) + len(violating) >= num_candidates:
                break
        candidates = fine + violating
        if not candidates:
            absent = len(nodes) - len(results)
            body = fit_error(
                len(nodes), results, absent=absent, absent_reason=PREEMPTION_NOT_HELPFUL
            )
            return Outcome(f"preemption: {body}")
        best = self.pick(candidates)
        self._prepare(cycle, best)
        return Outcome("", best.node.name, tuple(v.key for v in best.victims))

    def _preempt_extended(
        self,
        cycle: PodCycle,
        potential: list[NodeState],
        nodes: list[NodeState],
        pdbs: list[dict[str, Any]],
        store_pods: Sequence[Mapping[str, Any]],
        num_candidates: int,
    ) -> Outcome:
        """``--preemption extended`` (kubedra.scheduler.extendedpreemption); candidate nodes
        are searched until ``num_candidates`` were found, as upstream's dry run."""
        self.reports.pop(cycle.key, None)
        remote = remote_pools(self.scheduler.store.list("ResourceSlice"))
        lower: dict[str, list[Victim]] = {}
        for node in nodes:
            lower[node.name] = [
                v
                for e in list(node.pods.values())
                if e.priority < cycle.priority and (v := self._victim(e)) is not None
            ]
        far = [v for vs in lower.values() for v in vs if holds_remote(v, remote)]
        limit = int(getattr(self.scheduler.config, "preemption_sets", DEFAULT_VICTIM_SETS))
        results: dict[str, Status] = {}
        found: list[tuple[tuple[int, int, int], Candidate, ExtendedSearch]] = []
        for node in potential:
            own = lower.get(node.name, [])
            keys = {v.key for v in own}
            pool = own + [v for v in far if v.key not in keys]
            pool.sort(key=lambda v: (v.priority, -v.start.timestamp(), v.key))
            search = ExtendedSearch(self, cycle, node, pool, pdbs, store_pods, limit)
            outcome = search.run()
            if isinstance(outcome, Status):
                results[node.name] = outcome
                continue
            held = [r for a in cycle.dra.node_allocations.get(node.name) or [] for r in _results(a)]
            self._held_by_node[node.name] = (held, set(search.freed))
            found.append((search.cost(outcome.victims), outcome, search))
            if len(found) >= num_candidates:
                break
        if not found:
            absent = len(nodes) - len(results)
            body = fit_error(
                len(nodes), results, absent=absent, absent_reason=PREEMPTION_NOT_HELPFUL
            )
            return Outcome(f"preemption: {body}")
        _, best, search = min(found, key=lambda f: f[0])
        if search.report is not None:
            self.reports[cycle.key] = search.report
        self._prepare(cycle, best)
        return Outcome("", best.node.name, tuple(v.key for v in best.victims))

    def _terminating_on_nominated(self, cycle: PodCycle, statuses: Mapping[str, Status]) -> bool:
        name = str((cycle.pod.get("status") or {}).get("nominatedNodeName") or "")
        if not name:
            return False
        status = statuses.get(name)
        if status is not None and status.code == UNSCHEDULABLE_AND_UNRESOLVABLE:
            return False
        node = self.scheduler.nodes.by_name.get(name)
        if node is None:
            return False
        for entry in node.pods.values():
            if entry.priority >= cycle.priority:
                continue
            pod = self.scheduler._pod(entry.key)
            if pod is not None and (pod.get("metadata") or {}).get("deletionTimestamp"):
                return True
        return False

    # --- victims on one node --------------------------------------------------------------------

    def _node_local_pools(self) -> dict[tuple[str, str], str]:
        """(driver, pool) -> node name for pools published by node-local slices."""
        out: dict[tuple[str, str], str] = {}
        for slice_ in self.scheduler.store.list("ResourceSlice"):
            spec = slice_.get("spec") or {}
            node_name = spec.get("nodeName")
            pool = (spec.get("pool") or {}).get("name")
            if node_name and pool:
                out[(str(spec.get("driver")), str(pool))] = str(node_name)
        return out

    def _victim(self, entry: PodEntry) -> Victim | None:
        pod = self.scheduler._pod(entry.key)
        if pod is None:
            return None
        status = pod.get("status") or {}
        start = parse_time(str(status.get("startTime") or "")) or self.scheduler.clock.now()
        victim = Victim(entry, pod, start)
        namespace = (pod.get("metadata") or {}).get("namespace")
        uid = (pod.get("metadata") or {}).get("uid")
        for _, name, _, _ in pod_claim_names(pod):
            if not name:
                continue
            claim = self.scheduler.store.get("ResourceClaim", name, namespace)
            if claim is None:
                continue
            cstatus = claim.get("status") or {}
            if cstatus.get("allocation") and any(
                r.get("uid") == uid for r in cstatus.get("reservedFor") or []
            ):
                victim.claims.append(claim)
        return victim

    def _freeable(self, claim: Mapping[str, Any], node: str, local: Mapping[Any, str]) -> bool:
        """Node-local devices only, and not reserved for a PodGroup (KEP-5690)."""
        status = claim.get("status") or {}
        if any((r.get("resource") or "pods") != "pods" for r in status.get("reservedFor") or []):
            return False
        results = _results(status.get("allocation"))
        return bool(results) and all(
            local.get((str(r.get("driver")), str(r.get("pool")))) == node for r in results
        )

    def select_victims(
        self,
        cycle: PodCycle,
        node: NodeState,
        pdbs: list[dict[str, Any]],
        all_pods: Sequence[Mapping[str, Any]],
        local: Mapping[tuple[str, str], str],
    ) -> Candidate | Status:
        """SelectVictimsOnNode (see the module docstring)."""
        lower = [
            v
            for e in list(node.pods.values())
            if e.priority < cycle.priority and (v := self._victim(e)) is not None
        ]
        if not lower:
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,), DEFAULT_PREEMPTION)
        lower.sort(key=lambda v: (-v.priority, v.start))
        sim = _NodeSimulation(self, cycle, node, local if self._frees_devices(cycle) else {})
        try:
            for victim in lower:
                sim.remove(victim)
            status = sim.fits()
            if status is not None:
                return status
            violating, fine = split_pdb_violations(lower, pdbs, all_pods)
            victims: list[Victim] = []
            violations = 0
            for group, counts in ((violating, True), (fine, False)):
                for victim in group:
                    sim.add(victim)
                    if sim.fits() is not None:
                        sim.remove(victim)
                        victims.append(victim)
                        violations += counts
            victims.sort(key=lambda v: (-v.priority, v.start))
            candidate = Candidate(node, victims, violations)
            if self.dra_enabled and sim.freed and cycle.dra.node_allocations.get(node.name):
                candidate_results = [
                    r for a in cycle.dra.node_allocations[node.name] for r in _results(a)
                ]
                sim.held = candidate_results
            self._held_by_node[node.name] = (sim.held, sim.freed_uids())
            return candidate
        finally:
            sim.restore()

    def _frees_devices(self, cycle: PodCycle) -> bool:
        if not (self.dra_enabled or self.extended):
            return False
        spec = cycle.spec
        return not (spec.get("workloadRef") or spec.get("schedulingGroup"))

    # --- choosing and acting --------------------------------------------------------------------

    @staticmethod
    def pick(candidates: list[Candidate]) -> Candidate:
        """pickOneNodeForPreemption: the first candidate by upstream's criteria."""
        for candidate in candidates:
            if not candidate.victims:
                return candidate

        def latest_start(c: Candidate) -> float:
            top = c.victims[0].priority
            earliest = min(v.start for v in c.victims if v.priority == top)
            return -earliest.timestamp()

        return min(
            candidates,
            key=lambda c: (
                c.pdb_violations,
                c.victims[0].priority,
                sum(v.priority + MAX_INT32 + 1 for v in c.victims),
                len(c.victims),
                latest_start(c),
            ),
        )

    def _prepare(self, cycle: PodCycle, best: Candidate) -> None:
        """prepareCandidate: DisruptionTarget, delete the victims, clear lower nominations."""
        store = self.scheduler.store
        held, freed = self._held_by_node.get(best.node.name, ([], set()))
        self._held_by_node.clear()
        scheduler_name = str(cycle.spec.get("schedulerName") or "default-scheduler")
        message = f"{scheduler_name}: preempting to accommodate a higher priority pod"
        for victim in best.victims:
            meta = victim.pod["metadata"]
            current = store.get("Pod", meta["name"], meta.get("namespace"))
            if current is None:
                continue
            status = dict(current.get("status") or {})
            conditions = [
                c for c in status.get("conditions") or [] if c.get("type") != DISRUPTION_TARGET
            ]
            conditions.append(
                {
                    "type": DISRUPTION_TARGET,
                    "status": "True",
                    "reason": PREEMPTION_BY_SCHEDULER,
                    "message": message,
                    "lastProbeTime": None,
                    "lastTransitionTime": self.scheduler.clock.timestamp(),
                }
            )
            status["conditions"] = conditions
            store.update({**current, "status": status})
            store.delete("Pod", meta["name"], meta.get("namespace"))
        for pod in list(store.list("Pod")):
            pstatus = pod.get("status") or {}
            if (
                pstatus.get("nominatedNodeName") == best.node.name
                and not (pod.get("spec") or {}).get("nodeName")
                and self._key(pod) != cycle.key
                and self.scheduler.priority(pod) < cycle.priority
            ):
                new_status = {k: v for k, v in pstatus.items() if k != "nominatedNodeName"}
                store.update({**pod, "status": new_status})
        if held:
            claims = {
                str((c.get("metadata") or {}).get("uid")): c for c in store.list("ResourceClaim")
            }
            released = {
                uid: f"{claims[uid]['metadata'].get('namespace')}/{claims[uid]['metadata']['name']}"
                for uid in freed
                if uid in claims
            }
            still = {uid for uid in released if (claims[uid].get("status") or {}).get("allocation")}
            self.nominations.record(
                Nomination(
                    cycle.key,
                    best.node.name,
                    cycle.priority,
                    held,
                    released,
                    self.scheduler.clock.now() + NOMINATION_TTL,
                    still,
                )
            )


class _NodeSimulation:
    """RemovePod/AddPod over one node: NodeResourcesFit's pod list and, with DRAPreemption,
    DynamicResources' allocated devices."""

    def __init__(
        self,
        plugin: DefaultPreemption,
        cycle: PodCycle,
        node: NodeState,
        local: Mapping[tuple[str, str], str],
    ) -> None:
        self.plugin = plugin
        self.cycle = cycle
        self.node = node
        self.local = local
        self.removed: dict[str, Victim] = {}
        self.freed: dict[str, list[dict[str, Any]]] = {}
        self.held: list[dict[str, Any]] = []
        self.state = plugin.scheduler.dra.ensure_allocator().state if local else None

    def fits(self) -> Status | None:
        scheduler = self.plugin.scheduler
        status = P.node_resources_fit(self.cycle.requests, self.node, self.cycle.dra_backed)
        if status is not None:
            return status
        return scheduler.dra.filter(self.cycle.dra, self.cycle.pod, self.node)

    def _consumers_removed(self, claim: Mapping[str, Any]) -> bool:
        removed_uids = {(v.pod.get("metadata") or {}).get("uid") for v in self.removed.values()}
        reserved = (claim.get("status") or {}).get("reservedFor") or []
        return all(r.get("uid") in removed_uids for r in reserved)

    def remove(self, victim: Victim) -> None:
        self.node.remove_pod(victim.key)
        self.removed[victim.key] = victim
        if self.state is None:
            return
        for v in self.removed.values():
            for claim in v.claims:
                uid = str(claim["metadata"].get("uid"))
                if uid in self.freed or not self.plugin._freeable(
                    claim, self.node.name, self.local
                ):
                    continue
                if self._consumers_removed(claim):
                    results = _results((claim.get("status") or {}).get("allocation"))
                    self.state.remove_results(results)
                    self.freed[uid] = results

    def add(self, victim: Victim) -> None:
        self.node.add_pod(victim.entry)
        del self.removed[victim.key]
        if self.state is None:
            return
        for claim in victim.claims:
            uid = str(claim["metadata"].get("uid"))
            results = self.freed.pop(uid, None)
            if results is not None:
                self.state.add_results(results)

    def freed_uids(self) -> set[str]:
        return set(self.freed)

    def restore(self) -> None:
        for key, victim in list(self.removed.items()):
            self.node.add_pod(victim.entry)
            del self.removed[key]
        if self.state is not None:
            for results in self.freed.values():
                self.state.add_results(results)


def explain_note(scheduler: Scheduler, cycle: PodCycle, rejected: Mapping[str, str]) -> str | None:
    """For ``kubedra explain``: why pods holding devices were not preempted (gate off), naming
    the lower-priority pods with claims on the nodes DynamicResources rejected."""
    if getattr(scheduler.features, "dra_preemption", False) or scheduler.preemption.extended:
        return None
    holders: list[str] = []
    for node_name, reason in rejected.items():
        if ERR_CANNOT_ALLOCATE not in reason:
            continue
        node = scheduler.nodes.by_name.get(node_name)
        if node is None:
            continue
        for entry in node.pods.values():
            if entry.priority >= cycle.priority:
                continue
            pod = scheduler._pod(entry.key)
            if pod is not None and any(name for _, name, _, _ in pod_claim_names(pod)):
                holders.append(f"{entry.key} on {node_name}")
    if not holders:
        return None
    return (
        f"{DRA_PREEMPTION_OFF}; lower-priority pods holding devices there: "
        f"{', '.join(sorted(holders))}."
    )

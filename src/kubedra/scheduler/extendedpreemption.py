"""``--preemption extended``: kubedra's DRA preemption beyond upstream (opt-in).

Upstream (KEP-5690) frees only node-local devices of the candidate node's own pods, and its
reprieve loop keeps the most important victims one by one, which cannot see that two
partitions of one GPU must both go for a whole-GPU claim. Here the victims are chosen by what
the allocator says: for a candidate node, the pool is the lower-priority pods on the node plus
the lower-priority pods anywhere whose claims hold devices that are not node-local
(network-attached slices with ``nodeSelector``/``allNodes``/``perDeviceNodeSelection``). Victim
sets are tried in increasing cost (fewest victims, then fewest PodDisruptionBudget
violations, then the smallest sum of priority + 2^31, then the pool order); each try removes
the set's pods from the node and its freed claims (every consumer a victim, not reserved for a
PodGroup) from the allocator's allocated state, and re-runs the Filter (NodeResourcesFit and
DynamicResources, i.e. the allocator over the simulated freed state). The first set that fits
is the node's candidate; across nodes the cheapest candidate by the same cost wins. The search
tries at most ``SchedulerConfig.preemption_sets`` sets per node and says so when it stops.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from kubedra.scheduler.dynamicresources import _results
from kubedra.scheduler.messages import NO_VICTIMS
from kubedra.scheduler.status import UNSCHEDULABLE_AND_UNRESOLVABLE, Status

if TYPE_CHECKING:
    from kubedra.scheduler.defaultpreemption import Candidate, DefaultPreemption, Victim
    from kubedra.scheduler.nodeinfo import NodeState
    from kubedra.scheduler.scheduler import PodCycle

EXTENDED_PREEMPTION = "ExtendedPreemption"
DEFAULT_VICTIM_SETS = 2000
"""Victim sets tried per candidate node before the search gives up."""
MAX_TRIED_REPORTED = 10
BOUND_HIT = "extended preemption tried {limit} victim sets on node {node} without a fit"
NO_SET_FITS = "the pod does not fit even with every lower-priority pod in reach removed"


def device_name(result: Mapping[str, Any]) -> str:
    return f"{result.get('driver')}/{result.get('pool')}/{result.get('device')}"


@dataclass
class Tried:
    """A cheaper victim set and why the Filter still rejected it."""

    victims: tuple[str, ...]
    reason: str


@dataclass
class Report:
    """What ``kubedra explain`` shows for an extended preemption."""

    node: str
    victims: list[str]
    frees: dict[str, list[str]]
    tried: list[Tried] = field(default_factory=list)
    tried_count: int = 0

    def lines(self) -> list[str]:
        out = [f"extended preemption on {self.node}: victims {', '.join(self.victims)}"]
        for key in self.victims:
            devices = self.frees.get(key) or []
            frees = ", ".join(devices) if devices else "no devices (node resources only)"
            out.append(f"  {key} frees {frees}")
        if self.tried_count:
            out.append(f"  {self.tried_count} cheaper victim sets did not fit:")
            for tried in self.tried:
                out.append(f"    [{', '.join(tried.victims)}]: {tried.reason}")
            if self.tried_count > len(self.tried):
                out.append(f"    ... and {self.tried_count - len(self.tried)} more")
        else:
            out.append("  no cheaper victim set exists")
        return out

    def as_dict(self) -> dict[str, Any]:
        return {
            "node": self.node,
            "victims": self.victims,
            "frees": self.frees,
            "tried": [{"victims": list(t.victims), "reason": t.reason} for t in self.tried],
            "triedCount": self.tried_count,
        }


def _freeable(claim: Mapping[str, Any]) -> bool:
    status = claim.get("status") or {}
    if any((r.get("resource") or "pods") != "pods" for r in status.get("reservedFor") or []):
        return False
    return bool(_results(status.get("allocation")))


class ExtendedSearch:
    """The victim-set search for one candidate node."""

    def __init__(
        self,
        plugin: DefaultPreemption,
        cycle: PodCycle,
        node: NodeState,
        pool: list[Victim],
        pdbs: list[dict[str, Any]],
        all_pods: Sequence[Mapping[str, Any]],
        limit: int,
    ) -> None:
        self.plugin = plugin
        self.cycle = cycle
        self.node = node
        self.pool = pool
        self.pdbs = pdbs
        self.all_pods = all_pods
        self.limit = limit
        self.state = plugin.scheduler.dra.ensure_allocator().state
        self.tried: list[Tried] = []
        self.tried_count = 0
        self.freed: dict[str, list[dict[str, Any]]] = {}
        self.report: Report | None = None

    def _freed_claims(self, victims: Sequence[Victim]) -> dict[str, list[dict[str, Any]]]:
        uids = {(v.pod.get("metadata") or {}).get("uid") for v in victims}
        out: dict[str, list[dict[str, Any]]] = {}
        for victim in victims:
            for claim in victim.claims:
                uid = str(claim["metadata"].get("uid"))
                if uid in out or not _freeable(claim):
                    continue
                reserved = (claim.get("status") or {}).get("reservedFor") or []
                if all(r.get("uid") in uids for r in reserved):
                    out[uid] = _results((claim.get("status") or {}).get("allocation"))
        return out

    def fits(self, victims: Sequence[Victim]) -> Status | None:
        """The Filter with these victims gone (their pods and their freed claims)."""
        from kubedra.scheduler import plugins as P

        removed = [v for v in victims if self.node.remove_pod(v.key) is not None]
        freed = self._freed_claims(victims)
        for results in freed.values():
            self.state.remove_results(results)
        try:
            status = P.node_resources_fit(
                self.cycle.requests, self.node, self.cycle.dra_backed
            ) or self.plugin.scheduler.dra.filter(self.cycle.dra, self.cycle.pod, self.node)
            if status is None:
                self.freed = freed
            return status
        finally:
            for results in freed.values():
                self.state.add_results(results)
            for victim in removed:
                self.node.add_pod(victim.entry)

    def cost(self, victims: Sequence[Victim]) -> tuple[int, int, int]:
        from kubedra.scheduler.defaultpreemption import MAX_INT32, split_pdb_violations

        violating, _ = split_pdb_violations(list(victims), self.pdbs, self.all_pods)
        return (
            len(victims),
            len(violating),
            sum(v.priority + MAX_INT32 + 1 for v in victims),
        )

    def run(self) -> Candidate | Status:
        from kubedra.scheduler.defaultpreemption import Candidate, split_pdb_violations

        if not self.pool:
            return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_VICTIMS,), EXTENDED_PREEMPTION)
        everything = self.fits(self.pool)
        if everything is not None:
            return Status(everything.code, everything.reasons, everything.plugin)
        for size in range(1, len(self.pool) + 1):
            if self.tried_count + math.comb(len(self.pool), size) > self.limit:
                message = BOUND_HIT.format(limit=self.limit, node=self.node.name)
                return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (message,), EXTENDED_PREEMPTION)
            sets = sorted(
                itertools.combinations(self.pool, size),
                key=lambda s: self.cost(s),
            )
            for victims in sets:
                status = self.fits(victims)
                if status is None:
                    violating, _ = split_pdb_violations(list(victims), self.pdbs, self.all_pods)
                    ordered = sorted(victims, key=lambda v: (-v.priority, v.start))
                    self.report = self._report(ordered)
                    return Candidate(self.node, ordered, len(violating))
                self.tried_count += 1
                if len(self.tried) < MAX_TRIED_REPORTED:
                    reason = "; ".join(status.reasons) or status.message
                    self.tried.append(Tried(tuple(v.key for v in victims), reason))
        return Status(UNSCHEDULABLE_AND_UNRESOLVABLE, (NO_SET_FITS,), EXTENDED_PREEMPTION)

    def _report(self, victims: list[Victim]) -> Report:
        frees: dict[str, list[str]] = {}
        for victim in victims:
            devices: list[str] = []
            for claim in victim.claims:
                results = self.freed.get(str(claim["metadata"].get("uid")))
                devices += [device_name(r) for r in results or []]
            frees[victim.key] = devices
        return Report(self.node.name, [v.key for v in victims], frees, self.tried, self.tried_count)


def remote_pools(slices: Sequence[Mapping[str, Any]]) -> set[tuple[str, str]]:
    """(driver, pool) of the pools published by slices without ``nodeName`` (network-attached
    or multi-node devices); a slice that only publishes ``sharedCounters`` does not count."""
    out: set[tuple[str, str]] = set()
    for slice_ in slices:
        spec = slice_.get("spec") or {}
        pool = (spec.get("pool") or {}).get("name")
        if pool and spec.get("devices") and not spec.get("nodeName"):
            out.add((str(spec.get("driver")), str(pool)))
    return out


def holds_remote(victim: Victim, remote: set[tuple[str, str]]) -> bool:
    for claim in victim.claims:
        for r in _results((claim.get("status") or {}).get("allocation")):
            if (str(r.get("driver")), str(r.get("pool"))) in remote:
                return True
    return False

"""The per-node count behind ``plan capacity``'s fast path.

Copies of one pod whose claims all come from templates, on a cluster whose slices are all
node-local and whose pods none of the copies can preempt, are independent across nodes: what
a copy gets on a node depends only on that node's devices and resources. So the number of
copies that fit is, per node, how many times the scheduler's node filters
(NodeUnschedulable, NodeName, TaintToleration, NodeAffinity, NodeResourcesFit) and the
allocator (the same one, same policy, same state) accept one more, summed over the nodes;
the scheduler's choice of node only changes the order. The allocations are committed while
counting (so what is left can be read) and released after.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from types import SimpleNamespace
from typing import Any

from kubedra.allocator.claims import PreparedClaim
from kubedra.scheduler import plugins as P
from kubedra.scheduler.dynamicresources import ERR_CANNOT_ALLOCATE
from kubedra.scheduler.messages import fit_error
from kubedra.scheduler.status import Status, error, unschedulable


@dataclass
class FastCount:
    per_node: list[tuple[str, int]] = field(default_factory=list)
    message: str | None = None
    """Why no node takes one more (upstream's FitError text), None when ``limit`` was hit."""
    committed: list[dict[str, Any]] = field(default_factory=list)


def applicable(sim: Any, pod: dict[str, Any]) -> bool:
    """Whether the fast path gives the simulation's answer for copies of ``pod``."""
    entries = (pod.get("spec") or {}).get("resourceClaims") or []
    if any(not e.get("resourceClaimTemplateName") for e in entries):
        return False
    scheduler = sim.scheduler
    if not hasattr(scheduler, "prepare") or not hasattr(scheduler, "dra"):
        return False
    allocator = scheduler.dra.ensure_allocator()
    if not all(s.node_name and not s.per_device_set for s in allocator.inventory.slices):
        return False
    # A copy could preempt a pod of lower priority, which per-node counting does not model.
    mine = scheduler.priority(pod)
    return all(scheduler.priority(p) >= mine for p in sim.store.list("Pod"))


def _with(node: Any, extra: int, request: dict[str, int]) -> Any:
    """The node as NodeResourcesFit sees it with ``extra`` more copies on it."""
    requested = dict(node.requested)
    for name, amount in request.items():
        requested[name] = requested.get(name, 0) + amount * extra
    return SimpleNamespace(
        pods=range(len(node.pods) + extra),
        allowed_pods=node.allowed_pods,
        allocatable=node.allocatable,
        requested=requested,
    )


def count(
    sim: Any, probe_pod: dict[str, Any], claims: list[dict[str, Any]], limit: int | None
) -> FastCount:
    """Copies of ``probe_pod`` (claims: one copy's, unallocated) that fit, node by node."""
    scheduler = sim.scheduler
    allocator = scheduler.dra.ensure_allocator()
    cycle, _ = scheduler.prepare(probe_pod)
    static = scheduler._static_filters(cycle)
    prepared: list[PreparedClaim] = allocator.prepare(claims)
    first_fit = scheduler.config.policy == "first-fit"
    nodes = scheduler.nodes.in_creation_order() if first_fit else scheduler.nodes.ordered()
    result = FastCount()
    statuses: dict[str, Status] = {}
    total = 0
    request = dict(cycle.requests)
    for node in nodes:
        if limit is not None and total >= limit:
            break
        status = static.get(node.name)
        fits = 0
        while status is None and (limit is None or total + fits < limit):
            if not (first_fit and not node.allocatable):
                status = P.node_resources_fit(
                    cycle.requests, _with(node, fits, request), cycle.dra_backed
                )
                if status is not None:
                    break
            if prepared:
                outcome = allocator.allocate(node.info, prepared)
                if not outcome.ok:
                    status = _dra_status(outcome)
                    break
                assert outcome.allocations is not None
                allocator.commit(outcome.allocations)
                result.committed += outcome.allocations
            fits += 1
        if fits:
            result.per_node.append((node.name, fits))
            total += fits
        if status is not None:
            statuses[node.name] = status
    if limit is None or total < limit:
        result.message = fit_error(len(nodes), statuses)
    return result


def _dra_status(outcome: Any) -> Status:
    if outcome.error is not None:
        return error(P.DYNAMIC_RESOURCES, outcome.error)
    return unschedulable(P.DYNAMIC_RESOURCES, ERR_CANNOT_ALLOCATE)


def release(sim: Any, fast: FastCount) -> None:
    """Give back what ``count`` committed."""
    sim.scheduler.dra.ensure_allocator().release(fast.committed)
    fast.committed = []

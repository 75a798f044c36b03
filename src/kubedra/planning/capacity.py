"""How many more copies of a pod fit: ``kubedra plan capacity``.

The cluster is simulated to its fixed point once; then copies of the pod are created one
after another in the same simulation (the scheduler and allocator keep their incremental
state: each copy costs one scheduling cycle, never a new simulation) until one stays
Pending or ``count`` copies are placed. When the copies are independent across nodes
(template claims, node-local slices: kubedra.planning.fastfit), only the first copy is
simulated and the others are counted node by node against the same state. What ran out
is then read from the state: per request of the pod, the free devices that could serve it,
per device class and pool, with their free capacity.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from kubedra.cluster.podcopy import copy_of
from kubedra.cluster.simulation import Simulation
from kubedra.planning import fastfit
from kubedra.planning.cluster import PlanInputError
from kubedra.planning.usage import requests_of, usage


@dataclass
class RequestLeft:
    """What is left for one request of the pod once the copies are placed."""

    claim: str
    request: str
    device_class: str
    needs: int
    free_devices: int
    free_by_pool: dict[str, int]
    free_capacity: dict[str, int]

    @property
    def exhausted(self) -> bool:
        return self.free_devices < self.needs


@dataclass
class CapacityResult:
    pod: str
    placed: list[tuple[str, str]] = field(default_factory=list)
    """(copy, node) in the order they were placed."""
    pending_message: str | None = None
    """PodScheduled message of the first copy that did not fit (None: ``count`` reached)."""
    left: list[RequestLeft] = field(default_factory=list)
    seconds: float = 0.0
    fast: bool = False
    """Whether the copies after the first were counted per node (kubedra.planning.fastfit)."""

    @property
    def per_node(self) -> dict[str, int]:
        out: dict[str, int] = {}
        for _, node in self.placed:
            out[node] = out.get(node, 0) + 1
        return out

    def runs_out(self) -> list[str]:
        """What stops the next copy, most specific first."""
        out = [
            f"device class {r.device_class} (claim {r.claim}, request {r.request}): "
            f"{r.free_devices} free matching device(s), {r.needs} needed"
            for r in self.left
            if r.exhausted
        ]
        if not out and self.pending_message:
            out.append(self.pending_message)
        return out

    def to_dict(self) -> dict[str, Any]:
        return {
            "pod": self.pod,
            "fit": len(self.placed),
            "perNode": self.per_node,
            "placed": [{"copy": c, "node": n} for c, n in self.placed],
            "pendingMessage": self.pending_message,
            "runsOut": self.runs_out(),
            "left": [
                {
                    "claim": r.claim,
                    "request": r.request,
                    "deviceClass": r.device_class,
                    "needs": r.needs,
                    "freeDevices": r.free_devices,
                    "freeByPool": r.free_by_pool,
                    "freeCapacity": r.free_capacity,
                }
                for r in self.left
            ],
            "seconds": round(self.seconds, 3),
            "countedPerNode": self.fast,
        }


def split_pod(objects: list[dict[str, Any]]) -> tuple[dict[str, Any], list[dict[str, Any]]]:
    """The one Pod of a pod file and the other objects it brings (claim templates, claims)."""
    pods = [o for o in objects if o.get("kind") == "Pod"]
    if len(pods) != 1:
        raise PlanInputError(f"the pod file must hold exactly one Pod, found {len(pods)}")
    return pods[0], [o for o in objects if o.get("kind") != "Pod"]


def _pod_status(sim: Simulation, name: str, namespace: str) -> tuple[str | None, str | None]:
    pod = sim.store.get("Pod", name, namespace) or {}
    node = (pod.get("spec") or {}).get("nodeName")
    message = None
    for cond in (pod.get("status") or {}).get("conditions") or []:
        if cond.get("type") == "PodScheduled" and cond.get("status") != "True":
            message = cond.get("message")
    return node, message


def plan_capacity(
    sim: Simulation,
    pod_objects: list[dict[str, Any]],
    count: int | None = None,
    fast: bool = True,
) -> CapacityResult:
    """Place copies of the pod of ``pod_objects`` into ``sim`` (already run) one by one.

    With ``fast`` (and when kubedra.planning.fastfit applies), the first copy goes through
    the simulation and the rest are counted per node on the same scheduler and allocator
    state; copy names are then numbered in node order."""
    pod, extras = split_pod(pod_objects)
    start = time.perf_counter()
    for obj in extras:
        meta = obj.get("metadata") or {}
        if sim.store.get(str(obj.get("kind")), str(meta.get("name")), meta.get("namespace")):
            continue
        problems = sim.load([obj])
        if problems:
            raise PlanInputError(f"{problems[0].object}: {problems[0].message}")
    base = str((pod.get("metadata") or {}).get("name") or "pod")
    namespace = str((pod.get("metadata") or {}).get("namespace") or sim.store.namespace)
    result = CapacityResult(pod=f"{namespace}/{base}")
    taken = {p["metadata"]["name"] for p in sim.store.list("Pod", namespace)}
    index = 0
    last_claims: list[dict[str, Any]] = []
    while count is None or len(result.placed) < count:
        index += 1
        name = f"{base}-{index}"
        while name in taken:
            index += 1
            name = f"{base}-{index}"
        problems = sim.load([copy_of(pod, name)])
        if problems:
            raise PlanInputError(f"{problems[0].object}: {problems[0].message}")
        sim.settle()
        node, message = _pod_status(sim, name, namespace)
        last_claims = _claims_of(sim, name, namespace)
        if not node:
            result.pending_message = message or "Pending"
            sim.store.delete("Pod", name, namespace)
            sim.settle()
            break
        result.placed.append((name, node))
        if fast and len(result.placed) == 1 and fastfit.applicable(sim, pod):
            remaining = None if count is None else count - 1
            probe = copy_of(sim.store.get("Pod", name, namespace) or {}, name)
            bare = [{k: v for k, v in c.items() if k != "status"} for c in last_claims]
            counted = fastfit.count(sim, probe, bare, remaining)
            for node_name, fits in counted.per_node:
                for _ in range(fits):
                    index += 1
                    result.placed.append((f"{base}-{index}", node_name))
            result.pending_message = counted.message
            result.fast = True
            try:
                result.left = _left(sim, last_claims)
            finally:
                fastfit.release(sim, counted)
            result.seconds = time.perf_counter() - start
            return result
    result.left = _left(sim, last_claims)
    result.seconds = time.perf_counter() - start
    return result


def _claims_of(sim: Simulation, pod_name: str, namespace: str) -> list[dict[str, Any]]:
    pod = sim.store.get("Pod", pod_name, namespace) or {}
    names = {
        s.get("resourceClaimName")
        for s in (pod.get("status") or {}).get("resourceClaimStatuses") or []
    }
    names |= {
        c.get("resourceClaimName") for c in (pod.get("spec") or {}).get("resourceClaims") or []
    }
    out = []
    for name in sorted(n for n in names if n):
        claim = sim.store.get("ResourceClaim", name, namespace)
        if claim is not None:
            out.append(claim)
    return out


def _left(sim: Simulation, claims: list[dict[str, Any]]) -> list[RequestLeft]:
    """Free matching devices per request of the last copy's claims (shape of one pod)."""
    if not claims:
        return []
    allocator = sim.scheduler.dra.ensure_allocator()  # type: ignore[attr-defined]
    out: list[RequestLeft] = []
    for claim in claims:
        for data in _requests(allocator, claim):
            use = usage(sim, [data])
            free = [d for d in use.devices if d.usable]
            by_pool: dict[str, int] = {}
            capacity: dict[str, int] = {}
            for d in free:
                pool = f"{d.driver}/{d.pool}"
                by_pool[pool] = by_pool.get(pool, 0) + 1
                for n, v in d.free.items():
                    capacity[n] = capacity.get(n, 0) + v
            out.append(
                RequestLeft(
                    claim=str(claim["metadata"]["name"]),
                    request=data.result_name,
                    device_class=data.cls.name if data.cls is not None else "",
                    needs=data.count or 1,
                    free_devices=len(free),
                    free_by_pool=by_pool,
                    free_capacity=capacity,
                )
            )
    return out


def _requests(allocator: Any, claim: Mapping[str, Any]) -> list[Any]:
    return requests_of(allocator, [{k: v for k, v in claim.items() if k != "status"}])

"""A trivial first-fit scheduler for testing the cluster loop without kubedra.scheduler.

Per pod: every claim must exist; unallocated claims are allocated together on the first
schedulable node that fits (kubedra's allocator); then reservedFor, the delete-protection
finalizer and spec.nodeName are written, as the real scheduler's PreBind and Bind do.
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from typing import Any

from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features
from kubedra.cluster import DELETE_PROTECTION_FINALIZER, SimClock, Store
from kubedra.cluster.podclaims import pod_claim_names


@dataclass
class StandInDecision:
    pod: str
    node: str | None


class StandInScheduler:
    def __init__(self, store: Store, clock: SimClock, features: Features, *_: Any) -> None:
        self.store = store
        self.features = features
        self.decisions: list[StandInDecision] = []
        self._tried: dict[str, int] = {}

    def _pending(self) -> list[dict[str, Any]]:
        out = []
        for pod in self.store.list("Pod"):
            meta = pod["metadata"]
            key = f"{meta['namespace']}/{meta['name']}"
            if pod["spec"].get("nodeName") or "deletionTimestamp" in meta:
                continue
            if self._tried.get(key) == self.store.resource_version:
                continue
            out.append(pod)
        return out

    def has_work(self) -> bool:
        return bool(self._pending())

    def next_wakeup(self) -> datetime | None:
        return None

    def schedule_one(self) -> StandInDecision | None:
        pending = self._pending()
        if not pending:
            return None
        pod = pending[0]
        meta = pod["metadata"]
        key = f"{meta['namespace']}/{meta['name']}"
        claims = []
        for name, _ in pod_claim_names(pod):
            claim = self.store.get("ResourceClaim", name, meta["namespace"])
            if claim is None:
                self._tried[key] = self.store.resource_version
                return None
            claims.append(claim)
        if len(claims) < len(pod["spec"].get("resourceClaims") or []):
            self._tried[key] = self.store.resource_version
            return None
        decision = self._place(pod, claims)
        self.decisions.append(decision)
        if decision.node is None:
            self._tried[key] = self.store.resource_version
        return decision

    def _place(self, pod: dict[str, Any], claims: list[dict[str, Any]]) -> StandInDecision:
        key = f"{pod['metadata']['namespace']}/{pod['metadata']['name']}"
        allocated = [c for c in self.store.list("ResourceClaim") if _allocation(c)]
        todo = [c for c in claims if not _allocation(c)]
        if any(len((c.get("status") or {}).get("reservedFor") or []) >= 256 for c in claims):
            return StandInDecision(key, None)
        allocator = Allocator(
            self.features,
            self.store.list("DeviceClass"),
            self.store.list("ResourceSlice"),
            allocated,
            self.store.list("DeviceTaintRule"),
        )
        for node in self.store.list("Node"):
            if node.get("spec", {}).get("unschedulable"):
                continue
            results: list[dict[str, Any]] = []
            if todo:
                outcome = allocator.allocate(node, todo)
                if not outcome.ok:
                    continue
                results = outcome.allocations or []
            for claim, allocation in zip(todo, results, strict=True):
                self._write_claim(claim, pod, allocation)
            for claim in claims:
                if claim not in todo:
                    self._write_claim(claim, pod, None)
            self.store.update(pod | {"spec": pod["spec"] | {"nodeName": node["metadata"]["name"]}})
            return StandInDecision(key, node["metadata"]["name"])
        return StandInDecision(key, None)

    def _write_claim(
        self, claim: dict[str, Any], pod: dict[str, Any], allocation: dict[str, Any] | None
    ) -> None:
        claim = (
            self.store.get(
                "ResourceClaim", claim["metadata"]["name"], claim["metadata"]["namespace"]
            )
            or claim
        )
        meta = claim["metadata"]
        finalizers = list(meta.get("finalizers") or [])
        if DELETE_PROTECTION_FINALIZER not in finalizers:
            finalizers.append(DELETE_PROTECTION_FINALIZER)
            claim = self.store.update(claim | {"metadata": meta | {"finalizers": finalizers}})
        status = dict(claim.get("status") or {})
        if allocation is not None:
            status["allocation"] = allocation
        ref = {"resource": "pods", "name": pod["metadata"]["name"], "uid": pod["metadata"]["uid"]}
        status["reservedFor"] = [*(status.get("reservedFor") or []), ref]
        self.store.update(claim | {"status": status})


def _allocation(claim: dict[str, Any]) -> Any:
    return (claim.get("status") or {}).get("allocation")

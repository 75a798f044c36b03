"""A simulated kubelet: a pod bound to a node starts running once its claims are ready, and
stops when it is deleted.

Like the kubelet, it waits until every claim of the pod exists, is allocated and is reserved
for the pod (NodePrepareResources needs that); then the pod gets ``phase: Running``, the
usual conditions and one running status per container. A running pod that gets a
deletionTimestamp (a graceful deletion through the API) is stopped at once, as containers
that exit on SIGTERM: its containers terminate with exit code 0, the pod's phase becomes
Succeeded (the kubelet makes a deleted pod terminal), and the kubelet then deletes it with no
grace period. Nothing ever fails.

It logs the DRA node operations it would call (``node_operations``): NodePrepareResources per
claim and driver when a pod starts, NodeUnprepareResources when the last pod of the node
using the claim is gone. With DRAOptionalNodeOperations on (KEP-5945, alpha in 1.37) the
kubelet declares that node feature in ``status.declaredFeatures`` (so that the scheduler may
allocate devices that skip node operations there) and skips an operation for a driver when
every allocated device of that driver in the claim says so.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubedra.api import nodeops
from kubedra.cluster.clock import SimClock
from kubedra.cluster.events import Event
from kubedra.cluster.podclaims import (
    TERMINAL_PHASES,
    ClaimNotCreated,
    claim_name,
    is_reserved_for_pod,
)
from kubedra.cluster.store import Store
from kubedra.cluster.workqueue import WorkQueue

_READY_CONDITIONS = ("PodReadyToStartContainers", "Initialized", "Ready", "ContainersReady")

OPTIONAL_NODE_OPERATIONS = "DRAOptionalNodeOperations"
"""The node feature the kubelet declares with the gate on (KEP-5328 declared features)."""


@dataclass(frozen=True)
class NodeOperation:
    """One DRA gRPC call the kubelet made (``skipped``: would have made, but skipped)."""

    time: str
    operation: str
    node: str
    claim: str
    driver: str
    skipped: bool


class Kubelet:
    """Every node's kubelet at once."""

    def __init__(
        self, store: Store, clock: SimClock, *, optional_node_operations: bool = False
    ) -> None:
        self.store = store
        self.clock = clock
        self.optional_node_operations = optional_node_operations
        self.queue: WorkQueue[tuple[str, str]] = WorkQueue()
        self._waiting: dict[str, set[tuple[str, str]]] = {}
        self._undeclared: set[str] = set()
        # Claims prepared on a node: (node, namespace/name) -> the claim as prepared.
        self._prepared: dict[tuple[str, str], dict[str, Any]] = {}
        self.node_operations: list[NodeOperation] = []
        store.subscribe(self._on_event)

    def _on_event(self, event: Event) -> None:
        obj = event.obj
        meta = obj["metadata"]
        if event.type == "DELETED":
            if event.kind == "Pod":
                self._pod_gone(obj)
            return
        if event.kind == "Node" and self.optional_node_operations:
            declared = (obj.get("status") or {}).get("declaredFeatures") or []
            if OPTIONAL_NODE_OPERATIONS not in declared:
                self._undeclared.add(meta["name"])
        if event.kind == "Pod":
            if _wants_start(obj) or _wants_stop(obj):
                self.queue.add((meta["namespace"], meta["name"]))
        elif event.kind == "ResourceClaim":
            for key in self._waiting.pop(f"{meta['namespace']}/{meta['name']}", ()):
                self.queue.add(key)

    def sync(self) -> bool:
        """Declare node features, start every bound pod that can start, stop every deleted
        one; True on a change."""
        changed = self._declare_features()
        while self.queue:
            key = self.queue.pop()
            assert key is not None
            pod = self.store.get("Pod", key[1], key[0])
            if pod is None:
                continue
            if _wants_stop(pod):
                self._stop(pod)
                changed = True
            elif _wants_start(pod):
                claims = self._ready_claims(pod)
                if claims is None:
                    continue
                self._prepare(pod, claims)
                self.store.update(pod | {"status": self._running_status(pod)})
                changed = True
        return changed

    def _stop(self, pod: dict[str, Any]) -> None:
        """Stop the containers, report the pod terminal, then delete it for good."""
        meta = pod["metadata"]
        if (pod.get("status") or {}).get("phase") not in TERMINAL_PHASES:
            pod = self.store.update(pod | {"status": self._stopped_status(pod)})
        if self.store.get("Pod", meta["name"], meta["namespace"]) is pod:
            self.store.delete("Pod", meta["name"], meta["namespace"], grace_period_seconds=0)

    def _stopped_status(self, pod: dict[str, Any]) -> dict[str, Any]:
        now = self.clock.timestamp()
        status = dict(pod.get("status") or {})
        conditions = []
        for condition in status.get("conditions") or []:
            if (
                condition.get("type") in ("Ready", "ContainersReady")
                and condition.get("status") != "False"
            ):
                condition = {
                    **condition,
                    "status": "False",
                    "reason": "PodCompleted",
                    "lastTransitionTime": now,
                }
            conditions.append(condition)
        status["conditions"] = conditions
        status["phase"] = "Succeeded"
        statuses = []
        for container in status.get("containerStatuses") or []:
            started = ((container.get("state") or {}).get("running") or {}).get("startedAt")
            terminated = {"exitCode": 0, "reason": "Completed", "finishedAt": now}
            if started:
                terminated["startedAt"] = started
            statuses.append(
                {**container, "ready": False, "started": False, "state": {"terminated": terminated}}
            )
        status["containerStatuses"] = statuses
        return status

    def register(self, obj: dict[str, Any]) -> dict[str, Any]:
        """A Node as its kubelet registers it: with the features it declares (the others are
        returned unchanged). Nodes created otherwise get them on the next ``sync``."""
        if obj.get("kind") != "Node" or not self.optional_node_operations:
            return obj
        status = dict(obj.get("status") or {})
        declared = list(status.get("declaredFeatures") or [])
        if OPTIONAL_NODE_OPERATIONS in declared:
            return obj
        status["declaredFeatures"] = sorted([*declared, OPTIONAL_NODE_OPERATIONS])
        return obj | {"status": status}

    def _declare_features(self) -> bool:
        changed = False
        for name in sorted(self._undeclared):
            node = self.store.get("Node", name)
            if node is None:
                continue
            status = dict(node.get("status") or {})
            declared = list(status.get("declaredFeatures") or [])
            if OPTIONAL_NODE_OPERATIONS in declared:
                continue
            status["declaredFeatures"] = sorted([*declared, OPTIONAL_NODE_OPERATIONS])
            self.store.update(node | {"status": status})
            changed = True
        self._undeclared.clear()
        return changed

    def _claims_of(self, pod: dict[str, Any]) -> list[dict[str, Any]]:
        claims = []
        namespace = pod["metadata"]["namespace"]
        for entry in pod["spec"].get("resourceClaims") or []:
            try:
                ref = claim_name(pod, entry)
            except (ClaimNotCreated, ValueError):
                continue
            claim = self.store.get("ResourceClaim", ref.name, namespace) if ref.name else None
            if claim is not None:
                claims.append(claim)
        return claims

    def _log(self, operation: str, node: str, claim: dict[str, Any]) -> None:
        meta = claim["metadata"]
        skipped = set(nodeops.skipped_drivers(claim, operation, self.optional_node_operations))
        for driver in nodeops.claim_drivers(claim):
            self.node_operations.append(
                NodeOperation(
                    self.clock.timestamp(),
                    operation,
                    node,
                    f"{meta['namespace']}/{meta['name']}",
                    driver,
                    driver in skipped,
                )
            )

    def _prepare(self, pod: dict[str, Any], claims: list[dict[str, Any]]) -> None:
        node = pod["spec"]["nodeName"]
        for claim in claims:
            meta = claim["metadata"]
            key = (node, f"{meta['namespace']}/{meta['name']}")
            if key not in self._prepared:
                self._prepared[key] = claim
                self._log(nodeops.PREPARE, node, claim)

    def _pod_gone(self, pod: dict[str, Any]) -> None:
        """Unprepare the claims no other pod of the node uses any more."""
        node = (pod.get("spec") or {}).get("nodeName")
        if not node:
            return
        still_used = {
            f"{c['metadata']['namespace']}/{c['metadata']['name']}"
            for other in self.store.list("Pod")
            if other["spec"].get("nodeName") == node
            and other["metadata"]["uid"] != pod["metadata"]["uid"]
            for c in self._claims_of(other)
        }
        for key in [k for k in self._prepared if k[0] == node and k[1] not in still_used]:
            # The claim as it was prepared: its allocation may be gone by now.
            self._log(nodeops.UNPREPARE, node, self._prepared.pop(key))

    def _ready_claims(self, pod: dict[str, Any]) -> list[dict[str, Any]] | None:
        """The pod's claims when every one exists and is reserved for it (what it prepares),
        else None (the pod waits for the claim that is not)."""
        namespace = pod["metadata"]["namespace"]
        key = (namespace, pod["metadata"]["name"])
        claims = []
        for entry in pod["spec"].get("resourceClaims") or []:
            try:
                ref = claim_name(pod, entry)
            except (ClaimNotCreated, ValueError):
                return None
            if ref.name is None:
                continue
            claim = self.store.get("ResourceClaim", ref.name, namespace)
            if claim is None or not is_reserved_for_pod(pod, claim):
                self._waiting.setdefault(f"{namespace}/{ref.name}", set()).add(key)
                return None
            claims.append(claim)
        return claims

    def _running_status(self, pod: dict[str, Any]) -> dict[str, Any]:
        now = self.clock.timestamp()
        status = dict(pod.get("status") or {})
        conditions = [c for c in status.get("conditions") or [] if c.get("type") != "Ready"]
        present = {c.get("type") for c in conditions}
        for condition in _READY_CONDITIONS:
            if condition not in present:
                conditions.append({"type": condition, "status": "True", "lastTransitionTime": now})
        conditions.sort(key=_condition_rank)
        status["phase"] = "Running"
        status["conditions"] = conditions
        status["startTime"] = status.get("startTime") or now
        node = self.store.get("Node", pod["spec"]["nodeName"])
        host_ip = _internal_ip(node) if node is not None else None
        if host_ip:
            status["hostIP"] = host_ip
            status["hostIPs"] = [{"ip": host_ip}]
        status["containerStatuses"] = [
            {
                "name": container.get("name"),
                "image": container.get("image", ""),
                "imageID": "",
                "ready": True,
                "started": True,
                "restartCount": 0,
                "state": {"running": {"startedAt": now}},
            }
            for container in pod["spec"].get("containers") or []
        ]
        return status


_CONDITION_ORDER = {name: i for i, name in enumerate((*_READY_CONDITIONS, "PodScheduled"))}


def _condition_rank(condition: dict[str, Any]) -> int:
    """Where a condition goes in a running pod's status (unknown types last)."""
    return _CONDITION_ORDER.get(str(condition.get("type")), len(_CONDITION_ORDER))


def _wants_stop(pod: dict[str, Any]) -> bool:
    """Deleted while bound to a node: the kubelet stops it (the deletion waits for that)."""
    return "deletionTimestamp" in pod["metadata"] and bool((pod.get("spec") or {}).get("nodeName"))


def _wants_start(pod: dict[str, Any]) -> bool:
    return (
        bool((pod.get("spec") or {}).get("nodeName"))
        and (pod.get("status") or {}).get("phase", "Pending") == "Pending"
        and "deletionTimestamp" not in pod["metadata"]
    )


def _internal_ip(node: dict[str, Any]) -> str | None:
    for address in (node.get("status") or {}).get("addresses") or []:
        if address.get("type") == "InternalIP":
            return str(address.get("address"))
    return None

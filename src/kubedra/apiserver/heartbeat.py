"""What the simulated nodes' kubelets report while healthy: node conditions and node Leases.

The simulation has no kubelet process per node, so nodes loaded from manifests carry no
``Ready`` condition and ``kubectl get nodes`` would say ``Unknown``. The served cluster makes
each node report as a healthy kubelet does (k8s.io/kubernetes pkg/kubelet/nodestatus and
nodelease):

- the four conditions ``MemoryPressure``, ``DiskPressure``, ``PIDPressure`` (False) and
  ``Ready`` (True) with the kubelet's reasons and messages, their ``lastHeartbeatTime``
  renewed every ``nodeStatusReportFrequency`` (5 minutes), and the kubelet's version in
  ``nodeInfo`` when the node names none;
- a Lease per node in ``kube-node-lease`` (holder: the node, 40 s duration), renewed every
  10 s (a quarter of the duration), owned by the Node. Leases are served read-only.

A node whose ``Ready`` condition says ``False`` or ``Unknown`` (as written by the user) is not
healthy: it is left as it is and its Lease is not renewed. Beats happen when the served
cluster is asked (before each request), at the simulated clock's time; between the times
something is due and while no Node changes, a beat costs one comparison (a request must stay
cheap with thousands of nodes).
"""

from __future__ import annotations

import builtins
from datetime import datetime, timedelta
from typing import Any

from kubedra.cluster.clock import SimClock, format_time, parse_time
from kubedra.cluster.events import Event
from kubedra.cluster.store import Store

LEASE_NAMESPACE = "kube-node-lease"
LEASE_DURATION_SECONDS = 40
RENEW_INTERVAL_SECONDS = 10
"""The kubelet renews its lease every quarter of the lease duration."""
STATUS_REPORT_SECONDS = 300
"""``nodeStatusReportFrequency``: how often an unchanged node status is posted again."""

CONDITIONS = (
    ("MemoryPressure", "False", "KubeletHasSufficientMemory",
     "kubelet has sufficient memory available"),
    ("DiskPressure", "False", "KubeletHasNoDiskPressure", "kubelet has no disk pressure"),
    ("PIDPressure", "False", "KubeletHasSufficientPID", "kubelet has sufficient PID available"),
    ("Ready", "True", "KubeletReady", "kubelet is posting ready status"),
)  # fmt: skip
"""(type, status, reason, message) of a healthy kubelet's node conditions, in its order."""


NODE_INFO = {
    "machineID": "",
    "systemUUID": "",
    "bootID": "",
    "kernelVersion": "",
    "osImage": "kubedra simulated node",
    "containerRuntimeVersion": "kubedra://simulated",
    "kubeProxyVersion": "",
    "operatingSystem": "linux",
    "architecture": "amd64",
}
"""What a simulated node reports as its system (the kubelet's version is added)."""


def micro_time(moment: datetime) -> str:
    """A metav1.MicroTime (RFC 3339 with microseconds), as Lease times are written."""
    return moment.strftime("%Y-%m-%dT%H:%M:%S.%fZ")


def healthy(node: dict[str, Any]) -> bool:
    """No Ready condition yet, or a Ready one that is True."""
    for condition in (node.get("status") or {}).get("conditions") or []:
        if condition.get("type") == "Ready":
            return condition.get("status") == "True"
    return True


class NodeHeartbeats:
    """The kubelets of every simulated node: node status reports and Lease renewals."""

    def __init__(self, store: Store, clock: SimClock, kubelet_version: str) -> None:
        self.store = store
        self.clock = clock
        self.kubelet_version = kubelet_version
        self._leases: dict[str, dict[str, Any]] = {}
        self._serial = 0
        self._due: datetime | None = None
        """When the next report or renewal is due (None: look at every node)."""
        self._beating = False
        store.subscribe(self._on_change)

    def _on_change(self, event: Event) -> None:
        if event.kind == "Node" and not self._beating:
            self._due = None  # a node came, went or changed: look again

    def beat(self) -> builtins.list[Event]:
        """Report every healthy node's status when due and renew its Lease when due; returns
        the Lease changes (the node updates go through the store, as any write)."""
        now = self.clock.now()
        if self._due is not None and now < self._due:
            return []
        changes: list[Event] = []
        names = set()
        due: list[datetime] = []
        self._beating = True
        try:
            for node in self.store.list("Node"):
                name = node["metadata"]["name"]
                names.add(name)
                if not healthy(node):
                    continue
                reported = self._report(node, now)
                changes += self._renew(self.store.get("Node", name) or node, now)
                renewed = parse_time(self._leases[name]["spec"]["renewTime"]) or now
                due.append(renewed + timedelta(seconds=RENEW_INTERVAL_SECONDS))
                if reported is not None:
                    due.append(reported)
        finally:
            self._beating = False
        for name in sorted(set(self._leases) - names):  # the Node is gone: so is its Lease
            gone = self._leases.pop(name)
            changes.append(Event("DELETED", "Lease", gone, None))
        self._due = min(due) if due else now + timedelta(seconds=RENEW_INTERVAL_SECONDS)
        return changes

    def _report(self, node: dict[str, Any], now: datetime) -> datetime | None:
        """Post the node's status when due; returns when the next report is due."""
        status = dict(node.get("status") or {})
        conditions = list(status.get("conditions") or [])
        present = {c.get("type"): i for i, c in enumerate(conditions)}
        stamp = format_time(now)
        changed = False
        for type_, value, reason, message in CONDITIONS:
            index = present.get(type_)
            if index is None:
                conditions.append(
                    {
                        "type": type_,
                        "status": value,
                        "lastHeartbeatTime": stamp,
                        "lastTransitionTime": stamp,
                        "reason": reason,
                        "message": message,
                    }
                )
                changed = True
                continue
            last = parse_time(str(conditions[index].get("lastHeartbeatTime") or ""))
            if last is None or now - last >= timedelta(seconds=STATUS_REPORT_SECONDS):
                conditions[index] = {**conditions[index], "lastHeartbeatTime": stamp}
                changed = True
        info = dict(status.get("nodeInfo") or {})
        if not info.get("kubeletVersion"):
            # Every field of NodeSystemInfo is required (clients refuse a node lacking one).
            for key, value in NODE_INFO.items():
                info.setdefault(key, value)
            info["kubeletVersion"] = self.kubelet_version
            status["nodeInfo"] = info
            changed = True
        if changed:
            status["conditions"] = conditions
            self.store.update({**node, "status": status})
        beats = [parse_time(str(c.get("lastHeartbeatTime") or "")) for c in conditions]
        last = min((b for b in beats if b is not None), default=now)
        return last + timedelta(seconds=STATUS_REPORT_SECONDS)

    def _renew(self, node: dict[str, Any], now: datetime) -> builtins.list[Event]:
        """The node's Lease renewed when due (made when missing, made again for a Node that
        was deleted and created anew under the same name)."""
        meta = node["metadata"]
        name = meta["name"]
        lease = self._leases.get(name)
        changes: list[Event] = []
        if lease is not None and lease["metadata"]["ownerReferences"][0]["uid"] == meta["uid"]:
            renewed = parse_time(lease["spec"]["renewTime"])
            if renewed is not None and now - renewed < timedelta(seconds=RENEW_INTERVAL_SECONDS):
                return changes
            version = str(self.store.resource_version)
            updated = {
                **lease,
                "metadata": {**lease["metadata"], "resourceVersion": version},
                "spec": {**lease["spec"], "renewTime": micro_time(now)},
            }
            self._leases[name] = updated
            return [Event("MODIFIED", "Lease", updated, lease)]
        if lease is not None:
            changes.append(Event("DELETED", "Lease", lease, None))
        self._serial += 1
        created = {
            "apiVersion": "coordination.k8s.io/v1",
            "kind": "Lease",
            "metadata": {
                "name": name,
                "namespace": LEASE_NAMESPACE,
                "uid": f"lease-{self._serial}",
                "resourceVersion": str(self.store.resource_version),
                "creationTimestamp": format_time(now),
                "ownerReferences": [
                    {"apiVersion": "v1", "kind": "Node", "name": name, "uid": meta["uid"]}
                ],
            },
            "spec": {
                "holderIdentity": name,
                "leaseDurationSeconds": LEASE_DURATION_SECONDS,
                "renewTime": micro_time(now),
            },
        }
        self._leases[name] = created
        return [*changes, Event("ADDED", "Lease", created, None)]

    def list(self, namespace: str | None) -> builtins.list[dict[str, Any]]:
        if namespace not in (None, LEASE_NAMESPACE):
            return []
        return [self._leases[name] for name in sorted(self._leases)]

    def get(self, name: str, namespace: str | None) -> dict[str, Any] | None:
        return self._leases.get(name) if namespace in (None, LEASE_NAMESPACE) else None

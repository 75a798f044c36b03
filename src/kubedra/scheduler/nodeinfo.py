"""Per-node scheduling state, kept up to date from the store's change feed.

What upstream's scheduler cache and snapshot hold: each node's labels, taints and allocatable,
and what the pods bound (or assumed) there request. Nodes are listed as upstream's node tree
lists them: round-robin over zones, in the order nodes were added within a zone.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from kubedra.allocator.nodeselect import NodeInfo
from kubedra.scheduler.resources import (
    CPU,
    MEMORY,
    PODS,
    QuantityCache,
    Resources,
)

ZONE_LABEL = "topology.kubernetes.io/zone"
REGION_LABEL = "topology.kubernetes.io/region"


class PodEntry:
    """What a bound or assumed pod contributes to its node."""

    __slots__ = ("key", "non_zero_cpu", "non_zero_memory", "priority", "requests")

    def __init__(self, key: str, requests: Resources, non_zero: Resources, priority: int) -> None:
        self.key = key
        self.requests = requests
        self.non_zero_cpu = non_zero.get(CPU, 0)
        self.non_zero_memory = non_zero.get(MEMORY, 0)
        self.priority = priority


class NodeState:
    """One node: its object, parsed fields, and the sums of the requests placed on it."""

    __slots__ = (
        "allocatable",
        "allowed_pods",
        "info",
        "labels",
        "log",
        "name",
        "non_zero_cpu",
        "non_zero_memory",
        "obj",
        "pods",
        "requested",
        "taints",
        "unschedulable",
        "version",
        "zone",
    )

    def __init__(
        self, obj: Mapping[str, Any], q: QuantityCache, log: list[str] | None = None
    ) -> None:
        self.log: list[str] = log if log is not None else []
        """Shared change log: the node's name is appended whenever it changes."""
        self.pods: dict[str, PodEntry] = {}
        self.requested: Resources = {}
        self.non_zero_cpu = 0
        self.non_zero_memory = 0
        self.version = 0
        """Bumped on every change of the node or of the pods on it (for cached evaluations)."""
        self.set_object(obj, q)

    def set_object(self, obj: Mapping[str, Any], q: QuantityCache) -> None:
        self.version += 1
        self.obj = obj
        meta = obj.get("metadata") or {}
        self.log.append(str(meta.get("name") or ""))
        spec = obj.get("spec") or {}
        self.name = str(meta.get("name") or "")
        self.labels: dict[str, str] = dict(meta.get("labels") or {})
        # status.declaredFeatures (KEP-5328) decides where devices that skip node operations
        # may be allocated (KEP-5945).
        declared = (obj.get("status") or {}).get("declaredFeatures") or ()
        self.info = NodeInfo(self.name, self.labels, frozenset(str(f) for f in declared))
        self.taints: list[dict[str, Any]] = list(spec.get("taints") or [])
        self.unschedulable = bool(spec.get("unschedulable"))
        self.allocatable = q.resource_list((obj.get("status") or {}).get("allocatable"))
        self.allowed_pods = self.allocatable.get(PODS, 0)
        region = self.labels.get(REGION_LABEL, "")
        zone = self.labels.get(ZONE_LABEL, "")
        self.zone = f"{region}:\x00:{zone}" if region or zone else ""

    def add_pod(self, entry: PodEntry) -> None:
        if entry.key in self.pods:
            self.remove_pod(entry.key)
        self.pods[entry.key] = entry
        self.version += 1
        self.log.append(self.name)
        requested = self.requested
        for name, value in entry.requests.items():
            requested[name] = requested.get(name, 0) + value
        self.non_zero_cpu += entry.non_zero_cpu
        self.non_zero_memory += entry.non_zero_memory

    def remove_pod(self, key: str) -> PodEntry | None:
        entry = self.pods.pop(key, None)
        if entry is None:
            return None
        self.version += 1
        self.log.append(self.name)
        requested = self.requested
        for name, value in entry.requests.items():
            requested[name] = requested.get(name, 0) - value
        self.non_zero_cpu -= entry.non_zero_cpu
        self.non_zero_memory -= entry.non_zero_memory
        return entry


class NodeList:
    """Nodes by name, and the scheduling order (zones interleaved, as upstream's node tree)."""

    def __init__(self) -> None:
        self.by_name: dict[str, NodeState] = {}
        self._zones: dict[str, list[str]] = {}
        self._order: list[NodeState] | None = None
        self._created: list[str] = []
        self.log: list[str] = []
        """Names of changed nodes, in order (cached evaluations replay it)."""
        self.order_version = 0
        """Bumped whenever the node order changes (a node added, removed or moved zone)."""
        self.generation = 0
        """Bumped on every node change: caches of per-node filter results check it."""

    def upsert(self, obj: Mapping[str, Any], q: QuantityCache) -> NodeState:
        name = str((obj.get("metadata") or {}).get("name") or "")
        node = self.by_name.get(name)
        if node is None:
            node = NodeState(obj, q, self.log)
            self.by_name[name] = node
            self._zones.setdefault(node.zone, []).append(name)
            self._created.append(name)
            self._order = None
            self.order_version += 1
        else:
            old_zone = node.zone
            node.set_object(obj, q)
            if node.zone != old_zone:
                self._zones[old_zone].remove(name)
                self._zones.setdefault(node.zone, []).append(name)
                self._order = None
                self.order_version += 1
        self.generation += 1
        return node

    def remove(self, name: str) -> NodeState | None:
        node = self.by_name.pop(name, None)
        if node is not None:
            self._zones[node.zone].remove(name)
            self._created.remove(name)
            self._order = None
            self.order_version += 1
            self.generation += 1
        return node

    def in_creation_order(self) -> list[NodeState]:
        """All nodes in the order they were added (the first-fit policy's order)."""
        return [self.by_name[n] for n in self._created]

    def ordered(self) -> list[NodeState]:
        """All nodes in the node tree's order: one node from each zone in turn."""
        if self._order is None:
            zones = [names for names in self._zones.values() if names]
            order: list[NodeState] = []
            index = 0
            while zones:
                remaining = []
                for names in zones:
                    if index < len(names):
                        order.append(self.by_name[names[index]])
                        remaining.append(names)
                zones = [z for z in remaining if index + 1 < len(z)]
                index += 1
            self._order = order
        return self._order

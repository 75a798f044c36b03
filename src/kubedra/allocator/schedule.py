"""A deliberately simple scheduler around the allocator: first fit over nodes, pod by pod.

For each pod the nodes are tried in order; the first node where all of the pod's claims can be
allocated together wins, and that allocation counts for every later pod. A node-local error
rules out only that node; any other error ends the pod's attempt.

Failures are remembered per claim shape and node: when none of the pools a node can use has
changed since the same claims failed there, the outcome is the same, so the node is skipped
without running the search again (it still counts as tried).
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from kubedra.allocator.engine import Allocator
from kubedra.allocator.nodeselect import NodeInfo


@dataclass
class Placement:
    """Where one pod went (``node`` None when it fit nowhere) and how many nodes were tried."""

    pod: str
    node: str | None
    nodes_tried: int
    allocations: list[dict[str, Any]] | None = None
    error: str | None = None

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {"pod": self.pod, "node": self.node}
        if self.allocations is not None:
            out["allocations"] = self.allocations
        if self.error is not None:
            out["error"] = self.error
        return out


@dataclass
class _ShapeMemo:
    """Nodes where one claim shape failed, with the state clock at the time."""

    frontier: int = 0
    failed_at: dict[int, int] = field(default_factory=dict)
    seen_changes: int = 0


class FirstFitScheduler:
    """Places pods first-fit onto ``nodes`` using one incrementally updated allocator."""

    def __init__(
        self, allocator: Allocator, nodes: Sequence[Mapping[str, Any]], memo: bool = True
    ) -> None:
        self.allocator = allocator
        self.nodes = [NodeInfo.from_v1(n) for n in nodes]
        self.memo = memo
        self.allocate_calls = 0
        self._shapes: dict[str, _ShapeMemo] = {}
        self._pool_nodes: dict[tuple[str, str], list[int]] = {}
        self._node_pools: dict[int, tuple[tuple[str, str], ...]] = {}

    def schedule(self, name: str, claims: Sequence[Mapping[str, Any]]) -> Placement:
        prepared = self.allocator.prepare(claims)
        if not self.memo:
            return self._plain(name, prepared)
        shape_key = json.dumps([c.get("spec") for c in claims], sort_keys=True)
        shape = self._shapes.get(shape_key)
        if shape is None:
            shape = self._shapes[shape_key] = _ShapeMemo()
        state = self.allocator.state
        changes = state.changes
        start = shape.frontier
        if shape.seen_changes < len(changes):
            for pool in changes[shape.seen_changes :]:
                for i in self._pool_nodes.get(pool, ()):
                    if i < start:
                        start = i
            shape.seen_changes = len(changes)
        versions = state.pool_version
        failed_at = shape.failed_at
        n = len(self.nodes)
        i = start
        while i < n:
            when = failed_at.get(i)
            if when is not None:
                pools = self._node_pools[i]
                if all(versions.get(p, 0) <= when for p in pools):
                    i += 1
                    continue
            outcome = self.allocator.allocate(self.nodes[i], prepared)
            if outcome.ok or outcome.node_local or outcome.error is None:
                # (An error outcome may come from slices that cannot be read.)
                self._remember_pools(i)
            if outcome.ok:
                shape.frontier = i
                self.allocate_calls += i + 1
                assert outcome.allocations is not None
                self.allocator.commit(outcome.allocations)
                return Placement(name, self.nodes[i].name, i + 1, outcome.allocations)
            if outcome.error is not None and not outcome.node_local:
                shape.frontier = min(shape.frontier, i)
                self.allocate_calls += i + 1
                return Placement(name, None, i + 1, error=outcome.error)
            failed_at[i] = state.clock
            i += 1
        shape.frontier = n
        self.allocate_calls += n
        return Placement(name, None, n)

    def _remember_pools(self, index: int) -> None:
        if index in self._node_pools:
            return
        view = self.allocator.inventory.node_view(self.nodes[index])
        self._node_pools[index] = view.pool_keys
        for pool in view.pool_keys:
            self._pool_nodes.setdefault(pool, []).append(index)

    def _plain(self, name: str, prepared: Any) -> Placement:
        for i, node in enumerate(self.nodes):
            outcome = self.allocator.allocate(node, prepared)
            if outcome.ok:
                self.allocate_calls += i + 1
                assert outcome.allocations is not None
                self.allocator.commit(outcome.allocations)
                return Placement(name, node.name, i + 1, outcome.allocations)
            if outcome.error is not None and not outcome.node_local:
                self.allocate_calls += i + 1
                return Placement(name, None, i + 1, error=outcome.error)
        self.allocate_calls += len(self.nodes)
        return Placement(name, None, len(self.nodes))

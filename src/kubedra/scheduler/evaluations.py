"""Cached Filter results and raw scores, per pod shape and node position.

Pods of the same shape (same requests, tolerations, affinity, claim specs) get the same Filter
result and raw scores on a node until that node, the pods on it or the device pools it sees
change. A table keeps them in node order, so that a scheduling cycle can check a window of
nodes with list operations instead of one Python call per node; the node change log and the
allocator's pool change log say which entries to drop before a cycle.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from kubedra.scheduler.status import Status


@dataclass(slots=True)
class Evaluation:
    """One node's Filter result (None: it passes) and raw scores for one pod shape."""

    status: Status | None
    raws: tuple[int, ...]
    allocations: list[dict[str, Any]] | None
    pools: tuple[tuple[str, str], ...]
    policy: float = 0.0
    """The placement policy's score, when it replaces the default ones (else 0)."""


class ShapeTable:
    """Evaluations of one pod shape, by node position in the scheduling order."""

    def __init__(
        self, names: list[str], order_version: int, node_log: int, pool_log: int, epoch: int
    ) -> None:
        n = len(names)
        self.names = names
        self.position = {name: i for i, name in enumerate(names)}
        self.order_version = order_version
        self.epoch = epoch
        self.node_log = node_log
        self.pool_log = pool_log
        self.evals: list[Evaluation | None] = [None] * n
        self.known: list[bool] = [False] * n
        self.ok: list[bool] = [False] * n
        self.simple: list[int] = [0] * n
        """NodeResourcesFit plus NodeResourcesBalancedAllocation raw scores."""
        self.taint: list[int] = [0] * n
        self.tainted = 0
        """How many entries of ``taint`` are not 0 (stale ones of rejected nodes included):
        while none is, no feasible node has a TaintToleration score to look for."""
        self.pool_nodes: dict[tuple[str, str], set[int]] = {}

    def forget(self, index: int) -> None:
        self.evals[index] = None
        self.known[index] = False
        self.ok[index] = False

    def replay(self, node_log: list[str], pool_log: list[tuple[str, str]]) -> None:
        """Drop the entries of nodes (and pools) that changed since the last replay."""
        position = self.position
        for name in node_log[self.node_log :]:
            index = position.get(name)
            if index is not None:
                self.forget(index)
        self.node_log = len(node_log)
        pool_nodes = self.pool_nodes
        for pool in pool_log[self.pool_log :]:
            for index in pool_nodes.get(pool, ()):
                self.forget(index)
        self.pool_log = len(pool_log)

    def store(self, index: int, ev: Evaluation) -> None:
        self.evals[index] = ev
        self.known[index] = True
        self.ok[index] = ev.status is None
        if ev.raws:
            self.simple[index] = ev.raws[2] + ev.raws[3]
            taint = ev.raws[0]
            self.tainted += bool(taint) - bool(self.taint[index])
            self.taint[index] = taint
        for pool in ev.pools:
            self.pool_nodes.setdefault(pool, set()).add(index)

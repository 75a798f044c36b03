"""Cached Filter results and raw scores, per pod shape and node position.

Pods of the same shape (same requests, tolerations, affinity, claim specs) get the same Filter
result and raw scores on a node until that node, the pods on it or the device pools it sees
change. A table keeps them in node order, so that a scheduling cycle can check a window of
nodes with list operations instead of one Python call per node; the node change log and the
allocator's pool change log say which entries to drop before a cycle.
"""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass, field
from itertools import compress, islice
from itertools import count as count_from
from operator import not_
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
        self.reasons: list[tuple[str, ...]] = []
        """The distinct reasons tuples of the rejected entries, numbered in order of first
        appearance."""
        self.reason_ids: dict[tuple[str, ...], int] = {}
        self.reason_of: list[int] = [-1] * n
        """Per entry, the number of its rejection's reasons in ``reasons`` (-1: it passes,
        or not known): a cycle counts a window's rejections per reason with ``list.count``
        over small ints instead of hashing every rejected entry's reasons."""

    def replay(self, node_log: list[str], pool_log: list[tuple[str, str]]) -> None:
        """Drop the entries of nodes (and pools) that changed since the last replay."""
        # Assignments inline: every table replays every change once, millions in a long replay.
        evals, known, ok = self.evals, self.known, self.ok
        position = self.position
        for name in node_log[self.node_log :]:
            index = position.get(name)
            if index is not None:
                evals[index] = None
                known[index] = ok[index] = False
        self.node_log = len(node_log)
        pool_nodes = self.pool_nodes
        for pool in pool_log[self.pool_log :]:
            for index in pool_nodes.get(pool, ()):
                evals[index] = None
                known[index] = ok[index] = False
        self.pool_log = len(pool_log)

    def store(self, index: int, ev: Evaluation) -> None:
        """Keep ``ev`` as the entry at ``index`` (the only writer of the entries)."""
        self.evals[index] = ev
        self.known[index] = True
        status = ev.status
        if status is None:
            self.ok[index] = True
            self.reason_of[index] = -1
        else:
            self.ok[index] = False
            reasons = status.reasons
            number = self.reason_ids.get(reasons)
            if number is None:
                number = self.reason_ids[reasons] = len(self.reasons)
                self.reasons.append(reasons)
            self.reason_of[index] = number
        if ev.raws:
            self.simple[index] = ev.raws[2] + ev.raws[3]
            taint = ev.raws[0]
            self.tainted += bool(taint) - bool(self.taint[index])
            self.taint[index] = taint
        for pool in ev.pools:
            self.pool_nodes.setdefault(pool, set()).add(index)

    def count_rejections(self, start: int, end: int, into: dict[tuple[str, ...], int]) -> None:
        """Add the rejected entries of ``start:end`` (all known) to ``into`` per reasons
        tuple, the reasons in the order their first entries appear."""
        numbers = self.reason_of[start:end]
        reasons = self.reasons
        if len(reasons) > COUNT_BY_SCAN:
            # Many distinct reasons: one pass that hashes small ints.
            counted = Counter(numbers)
            counted.pop(-1, None)
            found = [(reasons[n], c) for n, c in counted.items()]
        else:
            # A few reasons (the usual case): a C-level scan per reason.
            firsts = []
            for number, why in enumerate(reasons):
                c = numbers.count(number)
                if c:
                    firsts.append((numbers.index(number), why, c))
            firsts.sort()
            found = [(why, c) for _, why, c in firsts]
        for why, c in found:
            into[why] = into.get(why, 0) + c


COUNT_BY_SCAN = 8
"""Up to this many distinct reasons in a table, windows are counted with one scan per
reason; above it with one hashing pass."""


WindowPart = tuple[int, int, list[bool] | None]
"""A range of a shape table's positions and which of them pass Filter (None: all of them)."""


@dataclass(slots=True)
class Window:
    """The nodes one cycle's filtering went through in a shape table: ranges of positions in
    the order they were processed, with which nodes pass.

    The feasible nodes are described, not listed: a cycle over hundreds of feasible nodes
    needs their score columns and a few of the nodes themselves, and copying every feasible
    node and evaluation into lists was a good part of such a cycle.
    """

    table: ShapeTable
    nodes: list[Any]
    """The nodes in the table's order (NodeState)."""
    parts: list[WindowPart] = field(default_factory=list)
    passing_counts: list[int] = field(default_factory=list)
    """How many nodes of each part pass."""
    feasible: int = 0
    """How many of the window's nodes pass."""

    def add(self, start: int, end: int, passing: list[bool]) -> None:
        """Record positions ``start:end`` with their pass flags (a slice of ``table.ok``)."""
        if False in passing:
            self.parts.append((start, end, passing))
            count = passing.count(True)
        else:
            self.parts.append((start, end, None))
            count = end - start
        self.passing_counts.append(count)
        self.feasible += count

    def column(self, values: list[Any]) -> list[Any]:
        """``values`` (a column of the table, by position) for the feasible nodes, in order."""
        out: list[Any] = []
        for start, end, passing in self.parts:
            if passing is None:
                out += values[start:end]
            else:
                out += compress(values[start:end], passing)
        return out

    def position(self, index: int) -> int:
        """The table position of the ``index``-th feasible node (0-based)."""
        for (start, _, passing), size in zip(self.parts, self.passing_counts, strict=True):
            if index < size:
                if passing is None:
                    return start + index
                return start + next(islice(compress(count_from(), passing), index, None))
            index -= size
        raise IndexError("feasible node index out of range")

    def pick(self, index: int) -> tuple[Any, Evaluation]:
        """The ``index``-th feasible node (0-based) and its evaluation."""
        position = self.position(index)
        evaluation = self.table.evals[position]
        assert evaluation is not None  # a window's nodes are all evaluated
        return self.nodes[position], evaluation

    def rejected_parts(self) -> Iterator[tuple[int, int, list[bool]]]:
        """The parts with rejected nodes: start, end and which nodes are rejected."""
        for start, end, passing in self.parts:
            if passing is not None:
                yield start, end, list(map(not_, passing))

    def rejected(self) -> int:
        """How many of the window's nodes were rejected."""
        return sum(end - start for start, end, _ in self.parts) - self.feasible

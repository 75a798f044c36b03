"""How fast the host runs Python right now, printed beside the benchmarks' figures.

The 2-core machines these benchmarks run on are virtual and shared: the same process can take
1.5 times longer from one minute to the next, and an idle load average does not say so. The
benchmarks therefore print a reference figure with their results: the CPU seconds of a fixed
piece of pure Python (dict, list and attribute work, as in a scheduling cycle), the median of a
few runs. Two tables are comparable when their reference figures are close; a table measured
at a reference of 0.60 s is not slower code than one measured at 0.40 s.
"""

from __future__ import annotations

import os
import statistics
import time


class _Node:
    __slots__ = ("free", "name")

    def __init__(self, name: str, free: int) -> None:
        self.name = name
        self.free = free


def _reference_work() -> int:
    """A fixed amount of interpreter work: look-ups, small objects, comparisons."""
    nodes = [_Node(f"node-{i}", i % 8) for i in range(2000)]
    table: dict[str, int] = {}
    best = 0
    for round_ in range(600):
        for node in nodes:
            score = table.get(node.name, 0) + node.free * round_
            table[node.name] = score % 1009
            if score > best:
                best = score
    return best


def reference_seconds(runs: int = 5) -> float:
    """The median CPU seconds of the reference work over ``runs`` runs."""
    times = []
    for _ in range(runs):
        start = time.process_time()
        _reference_work()
        times.append(time.process_time() - start)
    return statistics.median(times)


def describe_host(runs: int = 5) -> str:
    """One line for a benchmark's header: load average and the reference figure."""
    load = os.getloadavg()[0]
    return (
        f"host: load {load:.1f}, reference work {reference_seconds(runs):.3f} CPU s "
        f"(median of {runs}; lower is a faster host)"
    )

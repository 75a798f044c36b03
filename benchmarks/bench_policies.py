"""Device policies compared on mixed GPU sizes (issue 13).

Nodes with one GPU of each size (8/24/40/80 GiB, published largest first) and a queue of small
and large asks (8, 22, 36, 72 GiB, one ask per GPU): ``rounds`` (small to large, again and
again), ``random`` (fixed seed) and ``waves`` (all small asks first), with the default node
scores and with the opt-in DRADeviceUtilization least-allocated score. For each policy: pods
placed before the first Pending one (in queue order), pods placed, the GPU memory left free on
devices no Pending pod can use (stranded) and that share of all free memory (fragmentation),
and whether every allocation passes first-fit's rules again.

    PYTHONPATH=src python benchmarks/bench_policies.py [--nodes 50] [--json]

Exits 1 when best-fit does not place strictly more pods than first-fit on the rounds queue
with default scores, or when any allocation fails re-validation.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from typing import Any

from kubedra.allocator.policy import DEVICE_POLICIES
from kubedra.planning.cluster import simulate
from kubedra.planning.scenarios import GIB, mixed_sizes, queue_of
from kubedra.planning.usage import NANO, usage
from kubedra.planning.validate import revalidate


def measure(objects: list[dict[str, Any]], policy: str, node_score: str | None) -> dict[str, Any]:
    start = time.perf_counter()
    sim = simulate(objects, device_policy=policy, node_score=node_score)
    seconds = time.perf_counter() - start
    pods = sim.store.list("Pod")
    placed = [bool((p.get("spec") or {}).get("nodeName")) for p in pods]
    before = placed.index(False) if False in placed else len(placed)
    use = usage(sim)
    memory = "memory"
    return {
        "policy": policy,
        "node_score": node_score or "default",
        "pods": len(pods),
        "placed_before_first_pending": before,
        "placed": sum(placed),
        "free_gib": use.free().get(memory, 0) / NANO / GIB,
        "stranded_gib": use.stranded().get(memory, 0) / NANO / GIB,
        "fragmentation": use.fragmentation().get(memory, 0.0),
        "invalid_allocations": len(revalidate(sim.objects())),
        "seconds": round(seconds, 3),
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    rows = []
    for queue in ("rounds", "random", "waves"):
        objects = mixed_sizes(args.nodes, queue=queue_of(queue, args.nodes))
        for node_score in (None, "least-allocated"):
            for policy in DEVICE_POLICIES:
                rows.append({"queue": queue} | measure(objects, policy, node_score))
    if args.json:
        print(json.dumps(rows, indent=2))
    else:
        print(
            "| queue | node score | policy | pods | placed before first Pending | placed "
            "| free GiB | stranded GiB | fragmentation | invalid | s |"
        )
        print("|" + "---|" * 11)
        for r in rows:
            print(
                f"| {r['queue']} | {r['node_score']} | {r['policy']} | {r['pods']} "
                f"| {r['placed_before_first_pending']} | {r['placed']} | {r['free_gib']:.0f} "
                f"| {r['stranded_gib']:.0f} | {r['fragmentation']:.2f} "
                f"| {r['invalid_allocations']} | {r['seconds']} |"
            )
    base = {r["policy"]: r for r in rows if r["queue"] == "rounds" and r["node_score"] == "default"}
    ok = base["best-fit"]["placed"] > base["first-fit"]["placed"]
    return 0 if ok and not any(r["invalid_allocations"] for r in rows) else 1


if __name__ == "__main__":
    sys.exit(main())

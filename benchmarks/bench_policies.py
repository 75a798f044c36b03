"""Placement policies compared: device choice on mixed GPU sizes, and each policy's cost.

**devices** (issue 13): nodes with one GPU of each size (8/24/40/80 GiB, published largest
first) and a queue of small and large asks (8, 22, 36, 72 GiB, one ask per GPU): ``rounds``
(small to large, again and again), ``random`` (fixed seed) and ``waves`` (all small asks
first), with the default node scores and with the opt-in DRADeviceUtilization least-allocated
score. For each device policy: pods placed before the first Pending one (in queue order),
pods placed, the GPU memory left free on devices no Pending pod can use (stranded) and that
share of all free memory (fragmentation), and whether every allocation passes first-fit's
rules again.

**timing** (issue 19): every placement policy on a GPU cluster shaped like the Alibaba GPU
trace (``gpu_trace.py``: ``--cluster-nodes`` nodes sampled from ``../shared/traces`` or a
stand-in; FGD plans for the whole trace's task shapes). Tasks arrive one at a time in trace
order until the arrived GPU demand reaches ``--demand`` of the cluster's GPUs; each runs the
control plane to its fixed point, and a task that finds no place is deleted (as the paper's
experiment drops it). Printed per policy: tasks, placed, GPUs allocated (share), wall
seconds, milliseconds per task, and the policy's cost over the default profile's per task.

    PYTHONPATH=src python benchmarks/bench_policies.py [--section devices|timing|all]
        [--nodes 50] [--cluster-nodes 300] [--demand 0.9] [--policies fgd,best-fit]
        [--trace DIR] [--json]

Exits 1 when best-fit does not place strictly more pods than first-fit on the rounds queue
with default scores, or when any allocation fails re-validation.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path
from typing import Any

from gpu_trace import TRACE_DIR, cluster, pod_objects, tasks, workload
from kubedra.allocator.policy import DEVICE_POLICIES
from kubedra.cluster.simulation import Simulation
from kubedra.planning.cluster import scheduler_factory, simulate
from kubedra.planning.scenarios import GIB, mixed_sizes, queue_of
from kubedra.planning.usage import NANO, usage
from kubedra.planning.validate import revalidate
from kubedra.scheduler.policies import Workload


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


def devices_section(nodes: int) -> list[dict[str, Any]]:
    rows = []
    for queue in ("rounds", "random", "waves"):
        objects = mixed_sizes(nodes, queue=queue_of(queue, nodes))
        for node_score in (None, "least-allocated"):
            for policy in DEVICE_POLICIES:
                rows.append({"queue": queue} | measure(objects, policy, node_score))
    return rows


def print_devices(rows: list[dict[str, Any]]) -> None:
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


def time_policy(
    policy: str | None, nodes: int, trace: Path | None, demand: float, work: Workload
) -> dict[str, Any]:
    """Tasks arriving one at a time until ``demand`` of the GPUs is asked for (docstring)."""
    objects, gpus = cluster(nodes, trace)
    sim = Simulation(seed=1, scheduler_factory=scheduler_factory(policy=policy, workload=work))
    problems = sim.load(objects)
    if problems:
        raise SystemExit(f"cluster refused: {problems[0].message}")
    sim.run()
    arrived = allocated = 0.0
    placed = count = 0
    started = time.perf_counter()
    for index, task in enumerate(tasks(trace)):
        if arrived >= demand * gpus:
            break
        name = f"task-{index:05d}"
        for obj in pod_objects(name, task):
            sim.store.create(obj)
        sim.settle()
        count += 1
        arrived += task.gpu_demand
        if sim.store.get("Pod", name, "default")["spec"].get("nodeName"):
            placed += 1
            allocated += task.gpu_demand
        else:
            sim.store.delete("Pod", name, "default")
            if task.gpus:
                sim.store.delete("ResourceClaimTemplate", name, "default")
            sim.settle()
    seconds = time.perf_counter() - started
    return {
        "policy": policy or "default",
        "nodes": nodes,
        "gpus": gpus,
        "tasks": count,
        "placed": placed,
        "allocated": round(allocated / gpus, 4),
        "seconds": round(seconds, 2),
        "ms_per_task": round(1000 * seconds / max(count, 1), 2),
    }


def timing_section(
    policies: list[str], nodes: int, trace: Path | None, demand: float
) -> list[dict[str, Any]]:
    work = workload(trace)
    # Warm up first (compiled selectors, imports): the first run would pay for them alone.
    time_policy(None, min(nodes, 30), trace, demand, work)
    rows = [time_policy(None, nodes, trace, demand, work)]
    for policy in policies:
        rows.append(time_policy(policy, nodes, trace, demand, work))
    base = rows[0]["ms_per_task"]
    for row in rows:
        row["extra_ms_per_task"] = round(row["ms_per_task"] - base, 2)
    return rows


def print_timing(rows: list[dict[str, Any]], trace: Path | None) -> None:
    source = trace if trace is not None else "the stand-in (no trace found)"
    print(f"\nPolicies on {rows[0]['nodes']} nodes, {rows[0]['gpus']} GPUs, tasks from {source}")
    print(f"(load average {os.getloadavg()[0]:.1f} at the end: compare rows, not machines)")
    print("| policy | tasks | placed | GPUs allocated | s | ms/task | over default ms/task |")
    print("|" + "---|" * 7)
    for r in rows:
        print(
            f"| {r['policy']} | {r['tasks']} | {r['placed']} | {r['allocated']:.3f} "
            f"| {r['seconds']} | {r['ms_per_task']} | {r['extra_ms_per_task']} |"
        )


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--section", choices=("devices", "timing", "all"), default="all")
    parser.add_argument("--nodes", type=int, default=50, help="devices: nodes")
    parser.add_argument("--cluster-nodes", type=int, default=300, help="timing: nodes")
    parser.add_argument("--demand", type=float, default=0.9, help="timing: GPU demand / GPUs")
    parser.add_argument(
        "--policies",
        default="random,best-fit,dot-product,gpu-packing,gpu-clustering,fgd",
        help="timing: policies besides the default profile, comma-separated",
    )
    parser.add_argument("--trace", type=Path, default=None, help="timing: the trace directory")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args()
    trace = args.trace or (TRACE_DIR if TRACE_DIR.is_dir() else None)
    out: dict[str, Any] = {}
    ok = True
    if args.section in ("devices", "all"):
        rows = devices_section(args.nodes)
        out["devices"] = rows
        if not args.json:
            print_devices(rows)
        base = {
            r["policy"]: r for r in rows if r["queue"] == "rounds" and r["node_score"] == "default"
        }
        ok = base["best-fit"]["placed"] > base["first-fit"]["placed"] and not any(
            r["invalid_allocations"] for r in rows
        )
    if args.section in ("timing", "all"):
        policies = [p for p in args.policies.split(",") if p]
        timing = timing_section(policies, args.cluster_nodes, trace, args.demand)
        out["timing"] = timing
        if not args.json:
            print_timing(timing, trace)
    if args.json:
        print(json.dumps(out, indent=2))
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())

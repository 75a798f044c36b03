"""DefaultPreemption on a cluster full of low-priority DRA pods: seconds per decision.

Each node has ``--gpus`` GPUs; ``--fill`` of them are held by low-priority pods (one
single-GPU claim each, pinned by nodeSelector), placed by the scheduler first (untimed).
Then ``--preemptors`` high-priority pods, each wanting ``--want`` GPUs on one node, are
scheduled one cycle each
(timed): no node has room, so every cycle runs DefaultPreemption over up to
max(10 % of the nodes, 100) candidate nodes, simulating the release of the victims' claims
(``DRAPreemption``). With ``--gate off`` the same cycles end at once (not resolvable).
``--preemption extended`` runs kubedra's victim-set search instead.

    python benchmarks/bench_preemption.py                       # 500 nodes, 90 % full
    python benchmarks/bench_preemption.py --nodes 100,500,1000 --preemptors 5
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from gpu_cluster import gpu_cluster  # noqa: E402
from kubedra.allocator.features import Features  # noqa: E402
from kubedra.cluster.store import Store  # noqa: E402
from kubedra.scheduler import Scheduler, SchedulerConfig  # noqa: E402


def _claim(name: str, count: int) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "devices": {
                "requests": [{"name": "gpu", "exactly": {"deviceClassName": "gpu", "count": count}}]
            }
        },
    }


def _pod(name: str, claim: str, priority: int, node: str | None = None) -> dict[str, Any]:
    pod: dict[str, Any] = {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "priority": priority,
            "containers": [
                {
                    "name": "c",
                    "image": "x",
                    "resources": {"requests": {"cpu": "100m"}, "claims": [{"name": "gpu"}]},
                }
            ],
            "resourceClaims": [{"name": "gpu", "resourceClaimName": claim}],
        },
    }
    if node is not None:
        pod["spec"]["nodeSelector"] = {"kubernetes.io/hostname": node}
    return pod


def build(
    nodes: int, gpus: int, fill: int, gate: bool, mode: str = "upstream"
) -> tuple[Store, Scheduler, float]:
    clock, store = gpu_cluster(nodes, [{"name": f"gpu-{g}"} for g in range(gpus)], 5)
    config = SchedulerConfig(features=Features(dra_preemption=gate), preemption=mode)
    scheduler = Scheduler(store, clock, config)
    for i in range(nodes * fill):
        store.create(_claim(f"low-{i}", 1))
        store.create(_pod(f"low-{i}", f"low-{i}", i % 10, f"node-{i % nodes:05d}"))
    start = time.perf_counter()
    while scheduler.has_work():
        if scheduler.schedule_one() is None:
            break
    return store, scheduler, time.perf_counter() - start


def measure(
    nodes: int, gpus: int, fill: int, want: int, preemptors: int, gate: bool, mode: str
) -> None:
    store, scheduler, setup = build(nodes, gpus, fill, gate, mode)
    times = []
    preempted = 0
    for i in range(preemptors):
        store.create(_claim(f"high-{i}", want))
        store.create(_pod(f"high-{i}", f"high-{i}", 1000))
        start = time.perf_counter()
        decision = scheduler.schedule_one()
        times.append(time.perf_counter() - start)
        assert decision is not None and decision.pod == f"default/high-{i}"
        preempted += decision.nominated is not None
    mean = sum(times) / len(times)
    print(
        f"nodes={nodes} gpus/node={gpus} low pods={nodes * fill} (setup {setup:.1f}s) "
        f"gate={'on' if gate else 'off'} preemption={mode}: {mean:.3f} s/decision "
        f"(max {max(times):.3f}), {preempted}/{preemptors} nominated a node"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="500", help="comma-separated node counts")
    parser.add_argument("--gpus", type=int, default=10)
    parser.add_argument("--fill", type=int, default=9, help="GPUs per node held by low pods")
    parser.add_argument("--want", type=int, default=2, help="GPUs each preemptor needs")
    parser.add_argument("--preemptors", type=int, default=10)
    parser.add_argument("--gate", choices=("on", "off"), default="on")
    parser.add_argument("--preemption", choices=("upstream", "extended"), default="upstream")
    args = parser.parse_args()
    for count in (int(n) for n in args.nodes.split(",")):
        gate = args.gate == "on"
        measure(count, args.gpus, args.fill, args.want, args.preemptors, gate, args.preemption)


if __name__ == "__main__":
    main()

"""Gang planning (kubedra.scheduler.gang): a 64-pod gang over 16 nodes with matchAttribute.

Each node has 8 GPUs in two NUMA groups of 4; each pod's claim asks for 2 GPUs that share
the ``numa`` attribute (``matchAttribute``), so the gang fills the cluster exactly (4 pods per
node). Prints the seconds for the whole plan and per pod, for upstream's greedy order and for
the backtracking search, and how they grow with the gang size.

    python benchmarks/bench_gang.py
    python benchmarks/bench_gang.py --nodes 4,16,32
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from gpu_cluster import DRIVER, gpu_cluster  # noqa: E402
from kubedra.allocator.features import Features  # noqa: E402
from kubedra.scheduler import Scheduler, SchedulerConfig  # noqa: E402
from kubedra.scheduler.gang import GangPlanner, Mode  # noqa: E402


def build(nodes: int) -> tuple[Scheduler, list[dict[str, Any]]]:
    devices = [{"name": f"gpu-{g}", "attributes": {"numa": {"int": g // 4}}} for g in range(8)]
    clock, store = gpu_cluster(nodes, devices, 3)
    pods = []
    for p in range(nodes * 4):
        store.create(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaim",
                "metadata": {"name": f"w-{p}", "namespace": "default"},
                "spec": {
                    "devices": {
                        "requests": [
                            {"name": "gpus", "exactly": {"deviceClassName": "gpu", "count": 2}}
                        ],
                        "constraints": [{"matchAttribute": f"{DRIVER}/numa"}],
                    }
                },
            }
        )
        pods.append(
            store.create(
                {
                    "apiVersion": "v1",
                    "kind": "Pod",
                    "metadata": {"name": f"worker-{p}", "namespace": "default"},
                    "spec": {
                        "containers": [
                            {
                                "name": "c",
                                "image": "x",
                                "resources": {
                                    "requests": {"cpu": "1"},
                                    "claims": [{"name": "gpus"}],
                                },
                            }
                        ],
                        "resourceClaims": [{"name": "gpus", "resourceClaimName": f"w-{p}"}],
                    },
                }
            )
        )
    scheduler = Scheduler(store, clock, SchedulerConfig(features=Features()))
    return scheduler, pods


def measure(nodes: int, mode: Mode) -> None:
    scheduler, pods = build(nodes)
    planner = GangPlanner(scheduler)
    start = time.perf_counter()
    result = planner.plan("gang", pods, len(pods), mode)
    took = time.perf_counter() - start
    print(
        f"{mode:9} {len(pods):3} pods / {nodes:2} nodes: admitted={result.admitted} "
        f"steps={result.steps} {took:.2f} s ({took / len(pods) * 1000:.1f} ms/pod)"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--nodes", default="16", help="comma-separated node counts")
    args = parser.parse_args()
    for count in (int(n) for n in args.nodes.split(",")):
        for mode in ("greedy", "backtrack"):
            measure(count, mode)  # type: ignore[arg-type]


if __name__ == "__main__":
    main()

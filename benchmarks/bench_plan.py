"""``plan capacity`` on a shared workload's cluster (default scale-5000x8: 5000 nodes x 8 GPUs).

The cluster (nodes, classes, slices, allocated claims) is simulated with the first ``--pods``
pods of the workload placed; then ``plan_capacity`` adds copies of the workload's first pod
(its claim as a template) one by one until one waits or ``--count`` copies fit.

    PYTHONPATH=src python benchmarks/bench_plan.py [--workload scale-5000x8] [--pods 0] [--count N]
        [--one-by-one]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from kubedra.planning.capacity import plan_capacity  # noqa: E402
from kubedra.planning.cluster import simulate  # noqa: E402
from shared_corpus import BENCHMARKS as DEFAULT_DIR  # noqa: E402
from shared_corpus import require_workloads  # noqa: E402

ALLOCATABLE = {"cpu": "64", "memory": "256Gi", "pods": "110"}


def _node(node: dict[str, Any]) -> dict[str, Any]:
    return node | {"status": {"capacity": ALLOCATABLE, "allocatable": ALLOCATABLE}}


def _pod(name: str, claims: list[dict[str, Any]], templates: bool) -> dict[str, Any]:
    key = "resourceClaimTemplateName" if templates else "resourceClaimName"
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "resourceClaims": [
                {"name": f"c{i}", key: c["metadata"]["name"]} for i, c in enumerate(claims)
            ],
            "containers": [{"name": "main", "image": "busybox"}],
        },
    }


def _template(claim: dict[str, Any]) -> dict[str, Any]:
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaimTemplate",
        "metadata": {"name": claim["metadata"]["name"], "namespace": "default"},
        "spec": {"spec": claim["spec"]},
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", default="scale-5000x8")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--pods", type=int, default=0, help="workload pods placed first")
    parser.add_argument("--count", type=int, default=None)
    parser.add_argument("--one-by-one", action="store_true", help="simulate every copy")
    args = parser.parse_args()
    (name,) = require_workloads("bench_plan.py", args.dir, [args.workload])
    workload = json.loads((args.dir / "workloads" / f"{name}.json").read_text())
    cluster: list[dict[str, Any]] = [
        *(_node(n) for n in workload["nodes"]),
        *workload["deviceClasses"],
        *workload["resourceSlices"],
        *workload["allocatedClaims"],
    ]
    for p in workload["pods"][: args.pods]:
        cluster += [*p["claims"], _pod(p["name"], p["claims"], templates=False)]
    first = workload["pods"][0]
    pod_objects = [*(_template(c) for c in first["claims"]), _pod("copy", first["claims"], True)]
    start = time.perf_counter()
    sim = simulate(cluster)
    loaded = time.perf_counter() - start
    result = plan_capacity(sim, pod_objects, args.count, fast=not args.one_by_one)
    print(
        json.dumps(
            {
                "workload": args.workload,
                "pods_placed_first": args.pods,
                "load_and_settle_s": round(loaded, 2),
                "plan_s": round(result.seconds, 2),
                "fit": len(result.placed),
                "counted_per_node": result.fast,
                "copies_per_s": round(len(result.placed) / result.seconds, 1),
                "runs_out": result.runs_out()[:3],
            },
            indent=2,
        )
    )


if __name__ == "__main__":
    main()

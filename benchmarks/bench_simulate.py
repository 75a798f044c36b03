"""The shared DRA workloads end to end: store, ResourceClaim controller, scheduler, kubelets.

Each workload runs in its own process (peak RSS is per workload). The cluster (nodes,
classes, slices, allocated claims) is created first, untimed; the timed part creates every
pod's claims and the pod as ``kubedra simulate`` loads them (``Simulation.load``: defaulting
and validation included) and runs the control plane to its fixed point with the
default-profile scheduler (``--scheduler`` picks first-fit). ``--curve`` measures the cost
per pod against the node count on a synthetic cluster (8 GPUs per node, single-GPU pods),
after ``--curve-warmup`` untimed pods (so that the scheduler has seen every node once) for
``--curve-pods`` timed ones.

    python benchmarks/bench_simulate.py                          # all workloads
    python benchmarks/bench_simulate.py --workload scale-5000x8 --pods 2000
    python benchmarks/bench_simulate.py --curve 500,2000,5000,20000 --curve-pods 500
    python benchmarks/bench_simulate.py --repeat 5                   # medians of 5 processes
    python benchmarks/bench_simulate.py --instructions --workload fill-500x10   # valgrind

The host's speed is printed before and after the table (``host_speed``): on a shared virtual
machine it moves by up to half between minutes, so compare tables measured at a similar
reference figure, and use ``--repeat`` for medians. ``--instructions`` counts the timed
part's instructions under valgrind instead (a run without the timed part subtracted), which
does not move with the host.
"""

from __future__ import annotations

import argparse
import gc
import json
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from host_speed import describe_host  # noqa: E402
from instructions import InstructionsUnavailable, count_instructions  # noqa: E402
from kubedra.allocator.features import Features  # noqa: E402
from kubedra.cluster.simulation import Simulation  # noqa: E402
from kubedra.scheduler import new_simulation  # noqa: E402
from shared_corpus import BENCHMARKS as DEFAULT_DIR  # noqa: E402
from shared_corpus import require_workloads  # noqa: E402

SCRIPT = "bench_simulate.py"
ALLOCATABLE = {"cpu": "64", "memory": "256Gi", "pods": "110"}


def _node(node: dict[str, Any]) -> dict[str, Any]:
    """Benchmark nodes carry no status; give them room so that only DRA decides."""
    return node | {"status": {"capacity": ALLOCATABLE, "allocatable": ALLOCATABLE}}


def _pod(name: str, claims: list[dict[str, Any]]) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Pod",
        "metadata": {"name": name, "namespace": "default"},
        "spec": {
            "resourceClaims": [
                {"name": f"c{i}", "resourceClaimName": c["metadata"]["name"]}
                for i, c in enumerate(claims)
            ],
            "containers": [{"name": "main", "image": "busybox"}],
        },
    }


def simulate(
    workload: dict[str, Any],
    pods_limit: int | None,
    policy: str,
    warmup: int = 0,
    setup_only: bool = False,
) -> dict[str, Any]:
    """Time ``pods_limit`` pods (all by default) after ``warmup`` untimed ones (none with
    ``setup_only``: then only the setup runs, for ``--instructions``)."""
    every = workload["pods"]
    warm, every = every[:warmup], every[warmup:]
    pods = every[:pods_limit] if pods_limit else every
    sim = new_simulation(policy=policy, features=Features.from_gates(workload["features"]))
    setup = time.perf_counter()
    cluster = [
        *(_node(n) for n in workload["nodes"]),
        *workload["deviceClasses"],
        *workload["resourceSlices"],
        *workload["allocatedClaims"],
    ]
    problems = sim.load(cluster)
    if problems:
        raise SystemExit(f"cluster refused: {problems[0]}")
    sim.run()
    _create_pods(sim, warm)
    sim.run()
    setup_seconds = time.perf_counter() - setup
    gc.collect()  # the setup's garbage is not the timed part's (kubedra pauses the GC itself)
    if setup_only:
        return {"pods": 0, "setupSeconds": round(setup_seconds, 2)}
    start = time.perf_counter()
    cpu_start = time.process_time()
    _create_pods(sim, pods)
    sim.run()
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    placed = sum(1 for p in sim.store.list("Pod") if p["spec"].get("nodeName"))
    return {
        "pods": len(pods),
        "placed": placed,
        "seconds": round(seconds, 3),
        "podsPerSecond": round(len(pods) / seconds, 1),
        "podsPerCpuSecond": round(len(pods) / cpu_seconds, 1),
        "setupSeconds": round(setup_seconds, 2),
        "peakRssMiB": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1),
    }


def _create_pods(sim: Simulation, pods: list[dict[str, Any]]) -> None:
    """Create the pods and their claims as ``kubedra simulate`` does (Simulation.load)."""
    objects: list[dict[str, Any]] = []
    for pod in pods:
        objects.extend(pod["claims"])
        objects.append(_pod(pod["name"], pod["claims"]))
    problems = sim.load(objects)
    if problems:
        raise SystemExit(f"pod refused: {problems[0]}")


def synthetic(nodes: int, pods: int) -> dict[str, Any]:
    devices = [
        {
            "name": f"gpu-{i}",
            "attributes": {"model": {"string": "A100"}, "index": {"int": i}},
            "capacity": {"memory": {"value": "40Gi"}},
        }
        for i in range(8)
    ]
    expression = (
        'device.attributes["gpu.example.com"].model == "A100" && '
        'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'
    )
    return {
        "features": {},
        "nodes": [
            {
                "apiVersion": "v1",
                "kind": "Node",
                "metadata": {
                    "name": f"node-{n:05d}",
                    "labels": {"kubernetes.io/hostname": f"node-{n:05d}"},
                },
            }
            for n in range(nodes)
        ],
        "deviceClasses": [
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "DeviceClass",
                "metadata": {"name": "gpu.example.com"},
                "spec": {
                    "selectors": [{"cel": {"expression": 'device.driver == "gpu.example.com"'}}]
                },
            }
        ],
        "resourceSlices": [
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceSlice",
                "metadata": {"name": f"node-{n:05d}-gpus"},
                "spec": {
                    "driver": "gpu.example.com",
                    "nodeName": f"node-{n:05d}",
                    "pool": {"name": f"node-{n:05d}", "generation": 1, "resourceSliceCount": 1},
                    "devices": devices,
                },
            }
            for n in range(nodes)
        ],
        "allocatedClaims": [],
        "pods": [
            {
                "name": f"pod-{p:05d}",
                "claims": [
                    {
                        "apiVersion": "resource.k8s.io/v1",
                        "kind": "ResourceClaim",
                        "metadata": {"name": f"pod-{p:05d}-claim", "namespace": "default"},
                        "spec": {
                            "devices": {
                                "requests": [
                                    {
                                        "name": "gpu",
                                        "exactly": {
                                            "deviceClassName": "gpu.example.com",
                                            "selectors": [{"cel": {"expression": expression}}],
                                        },
                                    }
                                ]
                            }
                        },
                    }
                ],
            }
            for p in range(pods)
        ],
    }


def _child(args: argparse.Namespace, extra: list[str]) -> dict[str, Any]:
    cmd = [sys.executable, __file__, "--child", "--scheduler", args.scheduler, *extra]
    proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
    if proc.returncode != 0:
        return {"error": proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"}
    return dict(json.loads(proc.stdout))


def _positive(text: str) -> int:
    value = int(text)
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def _medians(rows: list[dict[str, Any]]) -> dict[str, Any]:
    """One row of several runs of a workload: medians of the rates, the largest RSS; the
    placed count must not vary (the scheduler is deterministic)."""
    placed = {row["placed"] for row in rows}
    if len(placed) != 1:
        raise SystemExit(f"placed counts differ between runs: {sorted(placed)}")
    return rows[0] | {
        "podsPerSecond": round(statistics.median(r["podsPerSecond"] for r in rows), 1),
        "podsPerCpuSecond": round(statistics.median(r["podsPerCpuSecond"] for r in rows), 1),
        "setupSeconds": round(statistics.median(r["setupSeconds"] for r in rows), 2),
        "peakRssMiB": max(r["peakRssMiB"] for r in rows),
    }


def _print_instructions(args: argparse.Namespace, names: list[str]) -> int:
    """Instructions of each workload's timed part: a full run minus a setup-only run."""
    print(f"{'workload':<28} {'pods':>6} {'instructions (M)':>17} {'per pod (k)':>12}")
    for name in names:
        base = [sys.executable, __file__, "--child", "--scheduler", args.scheduler]
        base += ["--workload", name, "--dir", str(args.dir)]
        if args.pods:
            base += ["--pods", str(args.pods)]
        try:
            setup = count_instructions([*base, "--setup-only"])
            full = count_instructions(base)
        except InstructionsUnavailable as err:
            print(f"{SCRIPT}: {err}", file=sys.stderr)
            return 2
        workload = json.loads((args.dir / "workloads" / f"{name}.json").read_text())
        pods = min(args.pods, len(workload["pods"])) if args.pods else len(workload["pods"])
        timed = full - setup
        print(f"{name:<28} {pods:>6} {timed / 1e6:>17.0f} {timed / pods / 1e3:>12.0f}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR)
    parser.add_argument("--workload", action="append")
    parser.add_argument("--pods", type=int)
    parser.add_argument("--scheduler", default="default", choices=["default", "first-fit"])
    parser.add_argument("--curve", help="comma-separated node counts for the cost curve")
    parser.add_argument("--curve-pods", type=int, default=500)
    parser.add_argument(
        "--curve-warmup", type=int, default=500, help="untimed pods first (node views built)"
    )
    parser.add_argument(
        "--repeat",
        type=_positive,
        default=1,
        help="processes per workload; the table gives their medians and the pods/cpu-s range",
    )
    parser.add_argument(
        "--instructions",
        action="store_true",
        help="count the timed part's instructions under valgrind instead of timing it",
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--setup-only", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--synthetic-nodes", type=int, help=argparse.SUPPRESS)
    args = parser.parse_args()

    if args.child:
        if args.synthetic_nodes:
            workload = synthetic(args.synthetic_nodes, args.curve_warmup + args.curve_pods)
            result = simulate(workload, None, args.scheduler, args.curve_warmup)
        else:
            workload = json.loads((args.dir / "workloads" / f"{args.workload[0]}.json").read_text())
            result = simulate(workload, args.pods, args.scheduler, setup_only=args.setup_only)
        print(json.dumps(result))
        return 0

    if args.curve:
        print(
            f"{'nodes':>7} {'pods':>5} {'pods/s':>8} {'pods/cpu-s':>10} {'ms/pod':>7} "
            f"{'setup s':>8} {'RSS MiB':>8}"
        )
        for count in (int(n) for n in args.curve.split(",")):
            row = _child(
                args,
                [
                    "--synthetic-nodes",
                    str(count),
                    "--curve-pods",
                    str(args.curve_pods),
                    "--curve-warmup",
                    str(args.curve_warmup),
                ],
            )
            if "error" in row:
                print(f"{count:>7} error: {row['error']}")
                continue
            ms = 1000 * row["seconds"] / row["pods"]
            print(
                f"{count:>7} {row['pods']:>5} {row['podsPerSecond']:>8} "
                f"{row['podsPerCpuSecond']:>10} {ms:>7.2f} "
                f"{row['setupSeconds']:>8} {row['peakRssMiB']:>8}"
            )
        return 0

    names = require_workloads(
        SCRIPT,
        args.dir,
        args.workload,
        instead="Without it: --curve 500,2000 measures synthetic clusters (8 GPUs per node).",
    )
    if args.instructions:
        return _print_instructions(args, names)
    failed = False
    print(describe_host())
    print(
        f"{'workload':<28} {'pods':>6} {'placed':>6} {'pods/s':>8} {'pods/cpu-s':>10} "
        f"{'setup s':>8} {'RSS MiB':>8}" + (f" {'pods/cpu-s range':>17}" if args.repeat > 1 else "")
    )
    for name in names:
        extra = ["--workload", name, "--dir", str(args.dir)]
        if args.pods:
            extra += ["--pods", str(args.pods)]
        rows = [_child(args, extra) for _ in range(args.repeat)]
        errors = [row["error"] for row in rows if "error" in row]
        if errors:
            print(f"{name:<28} error: {errors[0]}")
            failed = True
            continue
        row = _medians(rows)
        line = (
            f"{name:<28} {row['pods']:>6} {row['placed']:>6} {row['podsPerSecond']:>8} "
            f"{row['podsPerCpuSecond']:>10} "
            f"{row['setupSeconds']:>8} {row['peakRssMiB']:>8}"
        )
        if args.repeat > 1:
            rates = [r["podsPerCpuSecond"] for r in rows]
            line += f" {f'{min(rates):.0f}-{max(rates):.0f}':>17}"
        print(line)
    print(describe_host())
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())

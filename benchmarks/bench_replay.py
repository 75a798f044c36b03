"""Replay speed and memory: the imported Alibaba trace per placement policy, given files, or a
synthetic trace on a synthetic GPU cluster.

``--alibaba [DIR]`` imports the Alibaba GPU trace's CSVs (default: ../shared/traces/
alibaba-gpu-v2023) with ``kubedra trace import`` and replays the result with ``kubedra replay
-o json`` once per ``--policy`` (a comma list, or ``all``: the default profile and the six
built-in policies of issue 21), each in a process of its own: what a user runs, start-up,
reading and the JSON report included. ``--cluster`` and ``--trace`` replay given files the same
way. Per run it prints wall and CPU seconds (user + system, from the child's rusage), pods/s
(pods of the trace per wall second), simulated seconds per wall second, peak RSS, and the load
average (the machine is shared: CPU seconds are the figure to compare).

Without them, a synthetic cluster of ``--nodes`` nodes with 8 GPUs each (one ResourceSlice per
node, one ResourceClaimTemplate per job size) and a trace of ``--pods`` pods arriving as a
Poisson process, each asking for 1, 2, 4 or 8 GPUs (60/20/10/10 %) for a log-normal duration
(median ``--median-minutes``), at a rate that keeps about ``--load`` of the GPUs busy, seeded,
is replayed in this process (``--policy`` takes one name there). It prints the wall time of
building the trace and of the replay, pods/s, simulated seconds per wall second, scheduling
cycles and peak RSS.

    python benchmarks/bench_replay.py --alibaba
    python benchmarks/bench_replay.py --alibaba --policy all
    python benchmarks/bench_replay.py --cluster DIR/cluster.yaml --trace DIR/trace.yaml
    python benchmarks/bench_replay.py --nodes 50 --pods 1000
    python benchmarks/bench_replay.py --nodes 5000 --pods 100000 --step 10m

``--inflate R`` runs the paper's experiment instead, in this process (kubedra.replay.inflate:
tasks in trace order, ``--shuffle`` in a random order, drawn again once the trace runs out,
never ending, until the arrived demand would pass R x the devices), with ``--policy NAME``
planning for the trace's shapes, and prints tasks/s, milliseconds per task and the unallocated
devices at 100% and at the end:

    python benchmarks/bench_replay.py --cluster DIR/cluster.yaml --trace DIR/trace.yaml \
        --inflate 1.3 --shuffle --policy fgd --seed 42
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import random
import resource
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from gpu_cluster import gpu_cluster_objects  # noqa: E402
from host_speed import describe_host  # noqa: E402
from kubedra.api.io import load_paths  # noqa: E402
from kubedra.replay import Replay, Trace, load_trace, parse_trace  # noqa: E402
from kubedra.replay.report import summary  # noqa: E402
from kubedra.scheduler import new_simulation  # noqa: E402

GPUS_PER_NODE = 8
SIZES = ((1, 0.6), (2, 0.2), (4, 0.1), (8, 0.1))
ALIBABA = REPO.parent / "shared" / "traces" / "alibaba-gpu-v2023"
ALIBABA_NODES = "openb_node_list_gpu_node.csv"
ALIBABA_PODS = "openb_pod_list_default.csv"
POLICIES = (
    "default",
    "best-fit",
    "dot-product",
    "gpu-packing",
    "gpu-clustering",
    "random",
    "fgd",
)
"""``--policy all``: upstream's default profile and the built-in policies of issue 21."""


def cluster(nodes: int) -> list[dict[str, Any]]:
    """The shared GPU cluster (kubedra's benchmarks) and one template per job size."""
    devices = [
        {"name": f"gpu-{d}", "attributes": {"model": {"string": "H100"}}}
        for d in range(GPUS_PER_NODE)
    ]
    objects = gpu_cluster_objects(nodes, devices, len(str(nodes - 1)))
    for size, _ in SIZES:
        request = {"name": "gpus", "exactly": {"deviceClassName": "gpu", "count": size}}
        objects.append(
            {
                "apiVersion": "resource.k8s.io/v1",
                "kind": "ResourceClaimTemplate",
                "metadata": {"name": f"gpus-{size}", "namespace": "default"},
                "spec": {"spec": {"devices": {"requests": [request]}}},
            }
        )
    return objects


def trace_entries(
    nodes: int, pods: int, median_minutes: float, load: float, seed: int
) -> list[dict[str, Any]]:
    rng = random.Random(seed)
    sigma = 1.0
    mean_duration = median_minutes * 60 * math.exp(sigma**2 / 2)
    mean_gpus = sum(size * share for size, share in SIZES)
    rate = load * nodes * GPUS_PER_NODE / (mean_gpus * mean_duration)
    entries = []
    at = 0.0
    for i in range(pods):
        at += rng.expovariate(rate)
        size = rng.choices([s for s, _ in SIZES], [w for _, w in SIZES])[0]
        duration = rng.lognormvariate(math.log(median_minutes * 60), sigma)
        pod = {
            "apiVersion": "v1",
            "kind": "Pod",
            "metadata": {"name": f"job-{i}"},
            "spec": {
                "containers": [
                    {"name": "main", "image": "train", "resources": {"claims": [{"name": "g"}]}}
                ],
                "resourceClaims": [{"name": "g", "resourceClaimTemplateName": f"gpus-{size}"}],
            },
        }
        entries.append({"at": round(at, 3), "duration": round(duration), "objects": [pod]})
    return entries


def _kubedra(*args: str, stdout: Any = None) -> tuple[float, Any]:
    """Run ``kubedra ARGS`` in a process of its own: (wall seconds, its rusage)."""
    started = time.perf_counter()
    command = [sys.executable, "-m", "kubedra", *args]
    env = {**os.environ, "PYTHONPATH": str(REPO / "src")}
    child = subprocess.Popen(command, stdout=stdout, env=env)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    child.returncode = os.waitstatus_to_exitcode(status)
    if child.returncode != 0:
        raise SystemExit(f"{' '.join(args[:2])} failed with exit status {child.returncode}")
    return wall, usage


def import_alibaba(source: Path, into: Path) -> tuple[Path, Path]:
    """``kubedra trace import alibaba-gpu-v2023`` of ``source``'s CSVs into ``into``."""
    nodes, pods = source / ALIBABA_NODES, source / ALIBABA_PODS
    missing = [path.name for path in (nodes, pods) if not path.is_file()]
    if missing:
        sys.stderr.write(
            f"bench_replay.py: needs the Alibaba GPU trace's {' and '.join(missing)} in "
            f"{source} (../shared beside the checkout, or --alibaba DIR)\n"
        )
        raise SystemExit(2)
    wall, usage = _kubedra(
        "trace", "import", "alibaba-gpu-v2023", "--nodes", str(nodes), "--pods", str(pods),
        "-o", str(into), "--force", stdout=subprocess.DEVNULL,
    )  # fmt: skip
    print(f"import: {wall:.1f} s wall, {usage.ru_utime + usage.ru_stime:.1f} s CPU")
    return into / "cluster.yaml", into / "trace.yaml"


def replay_processes(cluster: Path, trace: Path, policies: list[str], out: Path) -> None:
    """``kubedra replay CLUSTER --trace TRACE -o json`` once per policy, each measured."""
    print(describe_host())
    print(f"{'policy':<15} {'wall s':>7} {'CPU s':>6} {'pods/s':>7} {'sim s/wall s':>13} "
          f"{'RSS MiB':>8} {'load':>5}  result")  # fmt: skip
    for policy in policies:
        flags = [] if policy == "default" else ["--policy", policy]
        report = out / f"replay-{policy}.json"
        load = os.getloadavg()[0]
        with report.open("w") as handle:
            wall, usage = _kubedra(
                "replay", str(cluster), "--trace", str(trace), *flags, "-o", "json",
                stdout=handle,
            )  # fmt: skip
        document = json.loads(report.read_text())
        summary = document["summary"]
        times = document["series"]["time"]
        simulated = times[-1] if times else 0.0
        cpu = usage.ru_utime + usage.ru_stime
        rss = usage.ru_maxrss / 1024
        waits = summary["waitSeconds"]
        print(
            f"{policy:<15} {wall:>7.1f} {cpu:>6.1f} {summary['pods'] / wall:>7.0f} "
            f"{simulated / wall:>13,.0f} {rss:>8.0f} {load:>5.1f}  {summary['placed']} placed, "
            f"{summary['neverPlaced']} never, wait p50 {waits['p50']} s p99 {waits['p99']} s"
        )
    print(describe_host())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--alibaba",
        type=Path,
        nargs="?",
        const=ALIBABA,
        help=f"import and replay the Alibaba GPU trace (default DIR: {ALIBABA})",
    )
    parser.add_argument(
        "--policy",
        default="default",
        help="placement policy, a comma list, or 'all' (default: upstream's profile)",
    )
    parser.add_argument("--keep", type=Path, help="write the import and reports here")
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--pods", type=int, default=1000)
    parser.add_argument("--median-minutes", type=float, default=60.0)
    parser.add_argument("--load", type=float, default=0.8, help="share of the GPUs kept busy")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--step", default=None, help="series step (e.g. 10m); default: changes")
    parser.add_argument("--cluster", type=Path, help="a cluster's manifests instead")
    parser.add_argument("--trace", type=Path, help="a trace file instead")
    parser.add_argument("--inflate", type=float, metavar="R", help="the paper's experiment")
    parser.add_argument("--shuffle", action="store_true", help="--inflate: a random order")
    args = parser.parse_args()
    policies = list(POLICIES) if args.policy == "all" else args.policy.split(",")
    if args.inflate is not None and args.alibaba is not None:
        raise SystemExit("--inflate: give --cluster and --trace (--alibaba --keep DIR writes them)")
    if args.inflate is None and (
        args.alibaba is not None or (args.trace is not None and args.cluster is not None)
    ):
        with tempfile.TemporaryDirectory(prefix="bench-replay-") as scratch:
            out = args.keep or Path(scratch)
            out.mkdir(parents=True, exist_ok=True)
            if args.alibaba is not None:
                cluster_file, trace_file = import_alibaba(args.alibaba, out)
            else:
                cluster_file, trace_file = args.cluster, args.trace
            replay_processes(cluster_file, trace_file, policies, out)
        return
    if len(policies) != 1:
        raise SystemExit("--policy: one policy for the synthetic, --inflate or a --trace-only run")
    policy = None if policies[0] == "default" else policies[0]

    from kubedra.cluster.timeline import parse_duration
    from kubedra.scheduler import SchedulerConfig

    step = parse_duration(args.step, "--step") if args.step else None
    started = time.perf_counter()
    trace: Trace
    if args.trace is not None:
        objects = [o.wire for o in load_paths([args.cluster]).objects] if args.cluster else []
        trace = load_trace(args.trace)
    else:
        objects = cluster(args.nodes)
        entries = trace_entries(args.nodes, args.pods, args.median_minutes, args.load, args.seed)
        trace = parse_trace(entries, "synthetic")
        del entries
    read_seconds = time.perf_counter() - started
    workload = None
    if policy is not None:
        from kubedra.replay.shapes import trace_workload

        workload = trace_workload(trace, objects)
    sim = new_simulation(SchedulerConfig(placement=policy, workload=workload), seed=args.seed)
    problems = sim.load(objects)
    if problems:
        raise SystemExit(f"cluster refused: {problems[0].object}: {problems[0].message}")
    del objects
    gc.collect()
    if args.inflate is not None:
        inflate(sim, trace, args, read_seconds)
        return
    nodes = sim.store.count("Node")
    started = time.perf_counter()
    cpu_started = time.process_time()
    source, entry_count = trace.source, len(trace.entries)
    run = Replay(sim, trace, step=step)
    del trace  # as kubedra replay does: entries go once created
    state = run.run()
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    s = summary(state)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    gpu_hours = s["deviceHours"]["byDeviceClass"]
    utilization = next(iter(gpu_hours.values()))["utilization"] if gpu_hours else None
    print(
        f"trace {source}: {entry_count} entries, {s['pods']} pods on {nodes} nodes; "
        f"read in {read_seconds:.1f} s"
    )
    print(
        f"replay: {wall:.1f} s wall ({cpu:.1f} s CPU), {s['pods'] / wall:.0f} pods/s, "
        f"{state.end / wall:.0f} simulated s per wall s ({state.end / 3600:.1f} h simulated), "
        f"{sim.cycles} scheduling cycles, peak RSS {rss_mib:.0f} MiB"
    )
    waits = s["waitSeconds"]
    print(
        f"result: {s['placed']} placed, {s['neverPlaced']} never placed, {s['finished']} "
        f"finished; wait p50 {waits['p50']} s, p99 {waits['p99']} s; makespan "
        f"{s['makespanSeconds']} s; GPU utilization {utilization:.0%}"
        if utilization is not None
        else f"result: {s['placed']} placed, {s['neverPlaced']} never placed"
    )


def inflate(sim: Any, trace: Trace, args: argparse.Namespace, read_seconds: float) -> None:
    """The paper's experiment on ``sim``: the figures of ``--inflate``."""
    from kubedra.replay.inflate import InflateOptions, Inflation
    from kubedra.replay.inflate_report import at_demand
    from kubedra.replay.inflate_report import summary as inflate_summary

    options = InflateOptions(until_demand=args.inflate, seed=args.seed, shuffle=args.shuffle)
    started = time.perf_counter()
    cpu_started = time.process_time()
    state = Inflation(sim, trace, options).run()
    wall = time.perf_counter() - started
    cpu = time.process_time() - cpu_started
    s = inflate_summary(state)
    rss_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    tasks = s["tasks"]
    print(
        f"trace {trace.source}: {len(trace.entries)} entries on {s['nodes']} nodes with "
        f"{s['totalDevices']} devices; read in {read_seconds:.1f} s; policy "
        f"{args.policy or 'default profile'}, seed {args.seed}"
    )
    print(
        f"inflate to {args.inflate:g}: {wall:.1f} s wall ({cpu:.1f} s CPU), {tasks} tasks, "
        f"{tasks / wall:.0f} tasks/s, {1000 * wall / max(tasks, 1):.1f} ms/task, "
        f"{sim.cycles} scheduling cycles, peak RSS {rss_mib:.0f} MiB"
    )
    at_full = at_demand(state, 1.0)["unallocatedDevices"] if args.inflate >= 1 else None
    print(
        f"result: {s['placed']} placed, {s['failed']} failed; unallocated devices "
        + (f"{at_full:.2f} at 100%, " if at_full is not None else "")
        + f"{s['unallocatedDevices']:.2f} at the end ({100 * s['arrivedDemand']:.2f}% arrived)"
    )


if __name__ == "__main__":
    main()

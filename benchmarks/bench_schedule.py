"""Run the shared DRA scheduling workloads with kubedra's allocator and compare with upstream.

Each workload runs in its own process (so peak RSS is per workload). The timed part is the
pod loop, including building the allocator (indexing slices, the allocated state); reading
and decoding the workload file are not timed, as in the reference harness.

The second table is the whole process, as a user runs it: each workload wrapped as a schedule
case and evaluated by ``kubedra conformance eval CASE`` (start-up, reading, the pod loop and
printing the result), its median wall and CPU seconds over ``--process-runs`` runs beside the
Go harness's whole process (``processSeconds`` / ``processCpuSeconds`` of reference.json);
``x`` is how many times faster kubedra is. Its placements are checked against expected too.

    python benchmarks/bench_schedule.py                       # all workloads
    python benchmarks/bench_schedule.py --workload fill-500x10 --pods 500
    python benchmarks/bench_schedule.py --process-runs 5      # median of 5 processes each
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from kubedra.allocator.engine import Allocator  # noqa: E402
from kubedra.allocator.features import Features  # noqa: E402
from kubedra.allocator.schedule import FirstFitScheduler  # noqa: E402
from kubedra.conformance.compare import compare_schedule  # noqa: E402
from shared_corpus import BENCHMARKS as DEFAULT_DIR  # noqa: E402
from shared_corpus import require_file, require_workloads  # noqa: E402

SCRIPT = "bench_schedule.py"


def _strip_share_ids(value: Any) -> Any:
    if isinstance(value, dict):
        return {k: _strip_share_ids(v) for k, v in value.items() if k != "shareID"}
    if isinstance(value, list):
        return [_strip_share_ids(v) for v in value]
    return value


def run_one(bench_dir: Path, name: str, pods_limit: int | None, memo: bool) -> dict[str, Any]:
    """Run one workload in this process and return its measurements."""
    workload = json.loads((bench_dir / "workloads" / f"{name}.json").read_text())
    expected = json.loads((bench_dir / "expected" / f"{name}.json").read_text())["placements"]
    pods = workload["pods"][:pods_limit] if pods_limit else workload["pods"]
    start = time.perf_counter()
    cpu_start = time.process_time()
    allocator = Allocator(
        Features.from_gates(workload["features"]),
        workload["deviceClasses"],
        workload["resourceSlices"],
        workload["allocatedClaims"],
    )
    scheduler = FirstFitScheduler(allocator, workload["nodes"], memo=memo)
    placements = [scheduler.schedule(pod["name"], pod["claims"]) for pod in pods]
    seconds = time.perf_counter() - start
    cpu_seconds = time.process_time() - cpu_start
    mismatches = []
    for got, want in zip(placements, expected, strict=False):
        mine = {"pod": got.pod, "node": got.node, "nodesTried": got.nodes_tried}
        if got.allocations is not None:
            mine["allocations"] = _strip_share_ids(got.allocations)
        if mine != want:
            mismatches.append(got.pod)
    return {
        "workload": name,
        "pods": len(pods),
        "placed": sum(1 for p in placements if p.node is not None),
        "seconds": seconds,
        "cpuSeconds": cpu_seconds,
        "podsPerSecond": len(pods) / seconds if seconds else float("inf"),
        "allocateCalls": scheduler.allocate_calls,
        "peakRssMiB": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,
        "mismatches": len(mismatches),
        "firstMismatch": mismatches[0] if mismatches else None,
    }


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--workload", action="append", help="workload name (repeatable)")
    parser.add_argument("--pods", type=int, help="run only the first N pods")
    parser.add_argument("--dir", type=Path, default=DEFAULT_DIR, help="shared/benchmarks dir")
    parser.add_argument("--no-memo", action="store_true", help="disable the per-node memo")
    parser.add_argument(
        "--process-runs",
        type=int,
        default=3,
        help="kubedra conformance eval processes per workload for the whole-process table "
        "(0: skip it; it is skipped with --pods too)",
    )
    parser.add_argument("--one", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.one:
        print(json.dumps(run_one(args.dir, args.one, args.pods, not args.no_memo)))
        return 0
    names = require_workloads(SCRIPT, args.dir, args.workload)
    reference_file = require_file(SCRIPT, args.dir / "reference.json", "upstream's figures")
    reference = json.loads(reference_file.read_text())["workloads"]
    header = (
        f"{'workload':<28}{'pods':>7}{'placed':>8}{'pods/s':>10}{'reference':>11}{'ratio':>8}"
        f"{'CPU s':>8}{'Allocate calls':>16}{'peak RSS MiB':>14}  placements"
    )
    print(header)
    failed = False
    for name in names:
        cmd = [sys.executable, __file__, "--one", name, "--dir", str(args.dir)]
        if args.pods:
            cmd += ["--pods", str(args.pods)]
        if args.no_memo:
            cmd.append("--no-memo")
        proc = subprocess.run(cmd, capture_output=True, text=True, check=False)
        if proc.returncode != 0:
            print(f"{name:<28} FAILED\n{proc.stderr}")
            failed = True
            continue
        r = json.loads(proc.stdout.strip().splitlines()[-1])
        ref = reference[name]["podsPerSecond"]["median"]
        ok = (
            "identical"
            if r["mismatches"] == 0
            else f"{r['mismatches']} differ ({r['firstMismatch']})"
        )
        failed = failed or r["mismatches"] > 0
        rate = r["podsPerSecond"]
        print(
            f"{name:<28}{r['pods']:>7}{r['placed']:>8}{rate:>10.1f}{ref:>11.1f}"
            f"{rate / ref:>8.2f}{r['cpuSeconds']:>8.2f}{r['allocateCalls']:>16,}"
            f"{r['peakRssMiB']:>14.1f}  {ok}"
        )
    if args.pods or args.process_runs <= 0:
        return 1 if failed else 0
    print(
        f"\n{'whole process':<28}{'kubedra s':>10}{'Go s':>8}{'x':>7}"
        f"{'kubedra CPU s':>15}{'Go CPU s':>10}{'x':>7}  placements"
    )
    for name in names:
        p = whole_process(args.dir, name, args.process_runs)
        go = reference[name]
        go_wall = go["processSeconds"]["median"]
        go_cpu = go["processCpuSeconds"]["median"]
        failed = failed or p["placements"] != "identical"
        print(
            f"{name:<28}{p['seconds']:>10.2f}{go_wall:>8.2f}{go_wall / p['seconds']:>7.1f}"
            f"{p['cpuSeconds']:>15.2f}{go_cpu:>10.2f}{go_cpu / p['cpuSeconds']:>7.1f}"
            f"  {p['placements']}"
        )
    return 1 if failed else 0


def whole_process(bench_dir: Path, name: str, runs: int) -> dict[str, Any]:
    """Median wall and CPU seconds of ``kubedra conformance eval`` on the workload as a case."""
    workload = json.loads((bench_dir / "workloads" / f"{name}.json").read_text())
    expected = json.loads((bench_dir / "expected" / f"{name}.json").read_text())
    case = {
        "name": name,
        "description": f"shared benchmark workload {name}",
        "mode": "schedule",
        "features": workload["features"],
        "input": {
            key: workload[key]
            for key in ("nodes", "deviceClasses", "resourceSlices", "allocatedClaims", "pods")
        },
    }
    env = os.environ | {"PYTHONPATH": str(REPO / "src")}
    walls: list[float] = []
    cpus: list[float] = []
    problems: list[str] = []
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / f"{name}.json"
        path.write_text(json.dumps(case))
        command = [sys.executable, "-m", "kubedra", "conformance", "eval", str(path)]
        for _ in range(runs):
            before = resource.getrusage(resource.RUSAGE_CHILDREN)
            start = time.perf_counter()
            proc = subprocess.run(command, capture_output=True, text=True, env=env, check=False)
            walls.append(time.perf_counter() - start)
            after = resource.getrusage(resource.RUSAGE_CHILDREN)
            cpus.append(after.ru_utime - before.ru_utime + after.ru_stime - before.ru_stime)
            if proc.returncode != 0:
                problems = [proc.stderr.strip().splitlines()[-1] if proc.stderr else "failed"]
                break
            # Expected results carry no shareID (random in Kubernetes): drop ours too.
            problems = compare_schedule(expected, _strip_share_ids(json.loads(proc.stdout)))
    return {
        "seconds": statistics.median(walls),
        "cpuSeconds": statistics.median(cpus),
        "placements": "identical" if not problems else f"{len(problems)} differ ({problems[0]})",
    }


if __name__ == "__main__":
    sys.exit(main())

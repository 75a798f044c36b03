"""Traces (kubedra.traces): import the Alibaba default trace, generate a synthetic one.

For each: seconds to build the objects, to write DIR/cluster.yaml and DIR/trace.yaml, and for
kubedra's YAML reader (the fast path) to read trace.yaml back; entries per second over build
and write; file sizes; peak RSS of the process at the end. The Alibaba part reads
../shared/traces/alibaba-gpu-v2023 (or --alibaba DIR) and is skipped when it is absent.

    python benchmarks/bench_traces.py
    python benchmarks/bench_traces.py --pods 100000 --nodes 5000 --gpus-per-node 8
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO / "src"))

from kubedra.api.gcpause import paused_gc  # noqa: E402
from kubedra.api.io import parse_yaml  # noqa: E402
from kubedra.traces import (  # noqa: E402
    SyntheticOptions,
    Trace,
    generate,
    import_alibaba,
    write_trace,
)

ALIBABA = REPO.parent / "shared" / "traces" / "alibaba-gpu-v2023"


def measure(build: Callable[[], Trace], directory: Path) -> dict[str, Any]:
    started = time.perf_counter()
    trace = build()
    built = time.perf_counter()
    cluster_file, trace_file = write_trace(trace, directory, force=True)
    written = time.perf_counter()
    text = trace_file.read_text()
    read_started = time.perf_counter()
    with paused_gc():
        documents = list(parse_yaml(text, str(trace_file)))
    read = time.perf_counter() - read_started
    assert len(documents) == 1 and len(documents[0].content) == len(trace.entries)
    return {
        "entries": len(trace.entries),
        "buildSeconds": round(built - started, 2),
        "writeSeconds": round(written - built, 2),
        "readBackSeconds": round(read, 2),
        "entriesPerSecond": round(len(trace.entries) / (written - started)),
        "clusterMiB": round(cluster_file.stat().st_size / 2**20, 1),
        "traceMiB": round(trace_file.stat().st_size / 2**20, 1),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--alibaba", type=Path, default=ALIBABA, help="the CSV directory")
    parser.add_argument("--pods", type=int, default=100_000)
    parser.add_argument("--nodes", type=int, default=5000)
    parser.add_argument("--gpus-per-node", type=int, default=8)
    args = parser.parse_args()
    report: dict[str, Any] = {}
    with tempfile.TemporaryDirectory(prefix="bench-traces-") as scratch:
        nodes_csv = args.alibaba / "openb_node_list_gpu_node.csv"
        tasks_csv = args.alibaba / "openb_pod_list_default.csv"
        if tasks_csv.is_file():
            report["alibabaDefault"] = measure(
                lambda: import_alibaba(nodes_csv, tasks_csv), Path(scratch) / "alibaba"
            )
        else:
            report["alibabaDefault"] = f"skipped: {tasks_csv} is absent"
        options = SyntheticOptions(
            pods=args.pods, nodes=args.nodes, gpus_per_node=args.gpus_per_node
        )
        report["synthetic"] = measure(lambda: generate(options), Path(scratch) / "synthetic")
    report["peakRssMiB"] = round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""Load, convert, default and validate a 5000-slice cluster (8 devices each) from YAML.

Run as ``python benchmarks/bench_load.py [--slices N] [--devices N]``. Prints the seconds each
stage took and the process's peak resident memory. Target: under 5 s for the default size.
"""

from __future__ import annotations

import argparse
import resource
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

from kubedra.api.checking import check_loaded
from kubedra.api.io import load_paths

DRIVER = "gpu.example.com"


def make_slice(node: int, devices: int) -> dict[str, Any]:
    """One node's ResourceSlice with ``devices`` GPUs, shaped like a real driver's."""
    name = f"node-{node:05d}"
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"{name}-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": name,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": f"gpu-{index}",
                    "attributes": {
                        "model": {"string": "LATEST-GPU-MODEL"},
                        "index": {"int": index},
                        "uuid": {"string": f"gpu-{node:05d}-{index}"},
                        "driverVersion": {"version": "1.2.3"},
                        "numaNode": {"int": index // 4},
                    },
                    "capacity": {
                        "memory": {"value": "80Gi"},
                        "cores": {"value": "132"},
                    },
                }
                for index in range(devices)
            ],
        },
    }


def write_cluster(directory: Path, slices: int, devices: int) -> Path:
    path = directory / "cluster.yaml"
    documents = (make_slice(node, devices) for node in range(slices))
    with path.open("w") as out:
        yaml.dump_all(
            documents, out, Dumper=getattr(yaml, "CSafeDumper", yaml.SafeDumper), sort_keys=False
        )
    return path


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--slices", type=int, default=5000)
    parser.add_argument("--devices", type=int, default=8)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        path = write_cluster(Path(directory), args.slices, args.devices)
        size_mb = path.stat().st_size / 1e6
        start, cpu_start = time.perf_counter(), time.process_time()
        loaded = load_paths([path])
        loaded_at, cpu_loaded = time.perf_counter(), time.process_time()
        report = check_loaded(loaded)
        done, cpu_done = time.perf_counter(), time.process_time()
    peak_mib = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"{args.slices} slices x {args.devices} devices ({size_mb:.1f} MB of YAML)")
    print("stage                        wall      cpu")
    print(
        f"load + convert + type-check: {loaded_at - start:5.2f} s {cpu_loaded - cpu_start:5.2f} s"
    )
    print(f"default + validate:          {done - loaded_at:5.2f} s {cpu_done - cpu_loaded:5.2f} s")
    print(f"total:                       {done - start:5.2f} s {cpu_done - cpu_start:5.2f} s")
    print(f"peak RSS:                    {peak_mib:.0f} MiB")
    print(
        f"objects: {len(report.verdicts)}, invalid: {len(report.invalid)}, "
        f"errors: {len(report.load_errors)}"
    )
    return 0 if report.ok else 1


if __name__ == "__main__":
    sys.exit(main())

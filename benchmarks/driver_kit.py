"""Driver-kit throughput and latency: ResourceSlice publishing into a cluster directory, and
NodePrepareResources/NodeUnprepareResources over the real Unix sockets.

    PYTHONPATH=src python benchmarks/driver_kit.py [--devices 12800] [--claims 200]

Prints one JSON object. Publishing counts slices written per second (create, update, no-op
resync), and ``checkSeconds`` the apiserver validation of the desired slices that ``update``
does before anything is published; prepare latency is measured end to end from a gRPC client:
claim lookup in the cluster directory, checkpoint, CDI spec write, response.
"""

from __future__ import annotations

import argparse
import json
import shutil
import statistics
import tempfile
import time
from pathlib import Path
from typing import Any

import grpc

from kubedra.driver.helper import PluginHelper
from kubedra.driver.proto import kubedra_dra_v1_pb2 as pb2
from kubedra.driver.proto import kubedra_dra_v1_pb2_grpc as pb2_grpc
from kubedra.driver.publisher import Pool, ResourceSlicePublisher
from kubedra.driver.server import PluginPaths, PluginServer
from kubedra.driver.store_dir import ClusterDirectory
from kubedra.drivers.example_gpu import DRIVER_NAME, ExampleGpuDriver


def device(i: int, memory: str) -> dict[str, Any]:
    return {
        "name": f"dev-{i}",
        "attributes": {"index": {"int": i}, "model": {"string": "BENCH"}},
        "capacity": {"memory": {"value": memory}},
    }


def bench_publish(root: Path, devices: int) -> dict[str, Any]:
    cluster = ClusterDirectory(root / "cluster")
    cluster.register_node("node-1")
    publisher = ResourceSlicePublisher(cluster, "bench.example.com", "node-1")
    result: dict[str, Any] = {"devices": devices}
    for phase, memory in (("create", "1Gi"), ("update", "2Gi"), ("noop", "2Gi")):
        start = time.perf_counter()
        publisher.update({"node-1": Pool(devices=[device(i, memory) for i in range(devices)])})
        checked = time.perf_counter()
        stats = publisher.sync()
        elapsed = time.perf_counter() - checked
        written = stats.creates + stats.updates
        result[phase] = {
            "checkSeconds": round(checked - start, 4),
            "seconds": round(elapsed, 4),
            "slicesWritten": written,
            "slicesPerSecond": round(written / elapsed, 1) if written else None,
        }
    result["slices"] = len(cluster.list_resource_slices("bench.example.com", "node-1"))
    return result


def claim(i: int) -> dict[str, Any]:
    return {
        "kind": "ResourceClaim",
        "metadata": {"name": f"c-{i}", "namespace": "default", "uid": f"uid-{i}"},
        "spec": {"devices": {"requests": [{"name": "gpu"}]}},
        "status": {
            "allocation": {
                "devices": {
                    "results": [
                        {
                            "request": "gpu",
                            "driver": DRIVER_NAME,
                            "pool": "node-1",
                            "device": f"gpu-{i % 8}",
                        }
                    ]
                }
            }
        },
    }


def percentiles(values: list[float]) -> dict[str, float]:
    ordered = sorted(values)
    return {
        "p50": round(statistics.median(ordered), 3),
        "p99": round(ordered[min(len(ordered) - 1, int(len(ordered) * 0.99))], 3),
        "mean": round(statistics.fmean(ordered), 3),
    }


def bench_prepare(root: Path, claims: int) -> dict[str, Any]:
    cluster = ClusterDirectory(root / "cluster")
    for i in range(claims):
        cluster.put(claim(i))
    paths = PluginPaths.for_driver(DRIVER_NAME, root / "reg", root / "plugins")
    driver = ExampleGpuDriver("node-1", root / "cdi", gpus=8)
    server = PluginServer(PluginHelper(driver, DRIVER_NAME, cluster, paths.data_dir), paths)
    server.start()
    timings: dict[str, list[float]] = {"prepare": [], "prepareAgain": [], "unprepare": []}
    try:
        with grpc.insecure_channel(f"unix:{paths.dra_socket}") as channel:
            stub = pb2_grpc.DRAPluginStub(channel)
            for i in range(claims):
                ref = pb2.Claim(namespace="default", name=f"c-{i}", uid=f"uid-{i}")
                for kind, call, request in (
                    ("prepare", stub.NodePrepareResources, pb2.NodePrepareResourcesRequest),
                    ("prepareAgain", stub.NodePrepareResources, pb2.NodePrepareResourcesRequest),
                    ("unprepare", stub.NodeUnprepareResources, pb2.NodeUnprepareResourcesRequest),
                ):
                    start = time.perf_counter()
                    response = call(request(claims=[ref]), timeout=10)
                    timings[kind].append((time.perf_counter() - start) * 1000)
                    assert not response.claims[ref.uid].error, response.claims[ref.uid].error
    finally:
        server.stop()
    return {"claims": claims, "latencyMs": {k: percentiles(v) for k, v in timings.items()}}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--devices", type=int, default=12800)
    parser.add_argument("--claims", type=int, default=200)
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="kd-bench-", dir="/tmp"))
    try:
        report = {
            "publish": bench_publish(root / "publish", args.devices),
            "prepare": bench_prepare(root / "prepare", args.claims),
        }
    finally:
        shutil.rmtree(root, ignore_errors=True)
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()

"""End to end: driver publishes, kubedra's allocator allocates, kubelet-sim prepares over gRPC.

1. start ``kubedra driver example-gpu`` on temp-dir sockets;
2. it publishes its GPUs into a cluster directory;
3. kubedra's allocator allocates the pods' claims against those slices; they are written back;
4. ``kubedra kubelet-sim`` prepares them over gRPC;
5. valid CDI specs appear with the expected environment;
6. the pods end, unprepare runs, and the specs are gone.
"""

from __future__ import annotations

import json
import signal
import subprocess
from pathlib import Path
from typing import Any

import yaml

from conftest import REPO, build_pod, kubedra_command, subprocess_env, wait_for
from kubedra.allocator.engine import Allocator
from kubedra.allocator.features import Features
from kubedra.api.defaults import apply_defaults
from kubedra.driver.cdi import validate_spec
from kubedra.driver.store_dir import ClusterDirectory

CONFIG_API = "gpu.resource.example.com/v1alpha1"


def claim(name: str, count: int, sharing: dict[str, Any] | None = None) -> dict[str, Any]:
    spec: dict[str, Any] = {
        "devices": {
            "requests": [
                {"name": "gpu", "exactly": {"deviceClassName": "gpu.example.com", "count": count}}
            ]
        }
    }
    if sharing:
        spec["devices"]["config"] = [
            {
                "requests": ["gpu"],
                "opaque": {
                    "driver": "gpu.example.com",
                    "parameters": {
                        "apiVersion": CONFIG_API,
                        "kind": "GpuConfig",
                        "sharing": sharing,
                    },
                },
            }
        ]
    return {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": name, "namespace": "default"},
        "spec": spec,
    }


def allocate(cluster: ClusterDirectory, pod: dict[str, Any], names: list[str]) -> None:
    """Step 3: the allocator picks devices on node-1; claims get allocation and reservedFor."""
    classes = [apply_defaults(c) for c in cluster.list_objects("DeviceClass")]
    slices = [apply_defaults(s) for s in cluster.list_objects("ResourceSlice")]
    claims_in_cluster = cluster.list_objects("ResourceClaim")
    allocated = [c for c in claims_in_cluster if (c.get("status") or {}).get("allocation")]
    allocator = Allocator(Features(), classes, slices, [apply_defaults(c) for c in allocated])
    claims = [apply_defaults(cluster.get("ResourceClaim", n, "default")) for n in names]
    node = cluster.get("Node", "node-1")
    outcome = allocator.allocate(node, claims)
    assert outcome.ok, outcome.error or "unschedulable"
    meta = pod["metadata"]
    for obj, allocation in zip(claims, outcome.allocations, strict=True):
        obj["status"] = {
            "allocation": allocation,
            "reservedFor": [{"resource": "pods", "name": meta["name"], "uid": meta["uid"]}],
        }
        cluster.put(obj)


def environment(cdi_dir: Path) -> dict[str, list[str]]:
    envs = {}
    for path in sorted(cdi_dir.glob("*.json")):
        spec = json.loads(path.read_text())
        assert validate_spec(spec) == [], path
        for device in spec["devices"]:
            envs[device["name"]] = device["containerEdits"]["env"]
    return envs


def test_driver_allocator_kubelet_sim(drivers, driver_dirs, short_tmp):
    cluster = ClusterDirectory(driver_dirs.cluster)
    cluster.register_node("node-1")
    cluster.put(yaml.safe_load((REPO / "deploy/example-gpu/deviceclass.yaml").read_text()))
    drivers.start()  # 1
    wait_for(  # 2
        lambda: cluster.list_resource_slices("gpu.example.com", "node-1"), what="published slices"
    )
    cluster.put(
        claim("train", 2, {"strategy": "TimeSlicing", "timeSlicingConfig": {"interval": "Long"}})
    )
    cluster.put(claim("infer", 1))
    trainer = build_pod("trainer", "pod-train", ["train"])
    server = build_pod("server", "pod-infer", ["infer"])
    cluster.put(trainer)
    cluster.put(server)
    allocate(cluster, trainer, ["train"])  # 3
    allocate(cluster, server, ["infer"])
    train_uid = cluster.get("ResourceClaim", "train", "default")["metadata"]["uid"]
    report_path = short_tmp / "kubelet-sim.json"
    sim = subprocess.Popen(  # 4
        kubedra_command(
            "kubelet-sim",
            "--node-name=node-1",
            f"--registry-dir={driver_dirs.registry}",
            f"--cdi-dir={driver_dirs.cdi}",
            f"--cluster-dir={driver_dirs.cluster}",
            "--interval=0.1",
            f"--report={report_path}",
        ),
        env=subprocess_env(),
        stdout=subprocess.DEVNULL,
    )
    try:
        envs = wait_for(
            lambda: len(environment(driver_dirs.cdi)) == 3 and environment(driver_dirs.cdi),
            what="three prepared devices",
        )
        train_devices = sorted(name for name in envs if name.startswith(train_uid))  # 5
        assert len(train_devices) == 2
        for name in train_devices:
            index = name.rsplit("-", 1)[-1]
            assert f"GPU_DEVICE_{index}_SHARING_STRATEGY=TimeSlicing" in envs[name]
            assert f"GPU_DEVICE_{index}_TIMESLICE_INTERVAL=Long" in envs[name]
            assert f"GPU_DEVICE_{index}_RESOURCE_CLAIM={train_uid}" in envs[name]
        for pod in (trainer, server):  # 6
            pod["status"]["phase"] = "Succeeded"
            cluster.put(pod)
        wait_for(lambda: not list(driver_dirs.cdi.glob("*.json")), what="CDI specs removed")
    finally:
        sim.send_signal(signal.SIGTERM)
        code = sim.wait(timeout=30)
    report = json.loads(report_path.read_text())
    assert report["violations"] == [] and report["failures"] == []
    assert code == 0
    assert report["prepared"] == {}
    assert report["latencyMs"]["prepare"]["count"] >= 1

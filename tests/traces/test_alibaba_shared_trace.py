"""The import of the shared Alibaba default trace (../shared/traces/alibaba-gpu-v2023),
checked against rows read by hand from the CSVs; skipped where ../shared is absent."""

from __future__ import annotations

import csv
import json
from pathlib import Path
from typing import Any

import pytest
from traces_fixtures import by_kind, kubedra, pods_file, read_entries, read_yaml

from kubedra.api.checking import check_paths
from kubedra.api.io.reading import _parse_fast
from kubedra.traces import import_alibaba, write_trace

NODES_CSV = "openb_node_list_gpu_node.csv"
TASKS_CSV = "openb_pod_list_default.csv"
DRIVER = "gpu.alibaba.example.com"
LABELS = "alibaba.example.com/"


@pytest.fixture(scope="module")
def data(shared_dir: Path) -> Path:
    directory = shared_dir / "traces" / "alibaba-gpu-v2023"
    if not (directory / TASKS_CSV).is_file():
        pytest.skip(f"{directory / TASKS_CSV} is absent: the shared Alibaba trace is not here")
    return directory


@pytest.fixture(scope="module")
def out(data: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    directory = tmp_path_factory.mktemp("alibaba") / "out"
    write_trace(import_alibaba(data / NODES_CSV, data / TASKS_CSV), directory)
    return directory


@pytest.fixture(scope="module")
def entries(out: Path) -> dict[str, dict[str, Any]]:
    return {entry["objects"][0]["metadata"]["name"]: entry for entry in read_entries(out)}


@pytest.fixture(scope="module")
def cluster(out: Path) -> list[dict[str, Any]]:
    return read_yaml(out / "cluster.yaml")


def _pod(name: str, qos: str, phase: str, cpu: str, memory: str, template: str | None) -> dict:
    resources: dict[str, Any] = {"requests": {"cpu": cpu, "memory": memory}}
    spec: dict[str, Any] = {
        "containers": [
            {"name": "main", "image": "registry.k8s.io/pause:3.10", "resources": resources}
        ]
    }
    if template is not None:
        resources["claims"] = [{"name": "gpu"}]
        spec["resourceClaims"] = [{"name": "gpu", "resourceClaimTemplateName": template}]
    labels = {LABELS + "qos": qos, LABELS + "phase": phase}
    metadata = {"name": name, "namespace": "default", "labels": labels}
    return {"apiVersion": "v1", "kind": "Pod", "metadata": metadata, "spec": spec}


# The rows as they are in openb_pod_list_default.csv, and what each must become:
#   name,cpu_milli,memory_mib,num_gpu,gpu_milli,gpu_spec,qos,pod_phase,creation,deletion,scheduled
HAND_CHECKED = {
    # openb-pod-0000,12000,16384,1,1000,,LS,Running,0,12537496,0: runs 12537496 - 0
    "openb-pod-0000": (0, 12537496, ("LS", "Running", "12000m", "16384Mi", "gpu-1")),
    # openb-pod-0001,6000,12288,1,460,,LS,Running,427061,12902960,427061: 460/1000 of a GPU
    "openb-pod-0001": (427061, 12475899, ("LS", "Running", "6000m", "12288Mi", "gpu-milli-460")),
    # openb-pod-0005,20000,65536,0,0,,LS,Running,2759674,12902960,2759676: no GPU, no claim
    "openb-pod-0005": (2759674, 10143284, ("LS", "Running", "20000m", "65536Mi", None)),
    # openb-pod-0017,88000,327680,8,1000,,Burstable,Succeeded,9437497,10769854,9437497
    "openb-pod-0017": (9437497, 1332357, ("Burstable", "Succeeded", "88000m", "327680Mi", "gpu-8")),
    # openb-pod-0044,3152,5600,1,1000,,BE,Failed,9983856,9984198,9983857: 9984198 - 9983857
    "openb-pod-0044": (9983856, 341, ("BE", "Failed", "3152m", "5600Mi", "gpu-1")),
    # openb-pod-0061,11908,47104,1,1000,,BE,Pending,10001278,10001403,: never scheduled, so
    # it runs its life in production, 10001403 - 10001278
    "openb-pod-0061": (10001278, 125, ("BE", "Pending", "11908m", "47104Mi", "gpu-1")),
}


@pytest.mark.parametrize("name", sorted(HAND_CHECKED))
def test_hand_checked_tasks(entries: dict[str, dict[str, Any]], name: str) -> None:
    at, duration, pod = HAND_CHECKED[name]
    assert entries[name] == {"at": at, "duration": duration, "objects": [_pod(name, *pod)]}


def _device(index: int, model: str, memory: str | None) -> dict[str, Any]:
    capacity: dict[str, Any] = {"gpu_milli": {"value": "1000"}}
    if memory is not None:
        capacity["memory"] = {"value": memory, "requestPolicy": {"default": "0"}}
    return {
        "name": f"gpu-{index}",
        "allowMultipleAllocations": True,
        "attributes": {"model": {"string": model}},
        "capacity": capacity,
    }


# openb_node_list_gpu_node.csv: sn,cpu_milli,memory_mib,gpu,model
HAND_CHECKED_NODES = {
    "openb-node-0000": ("64000m", "262144Mi", 2, "P100", "16Gi"),  # 64000,262144,2,P100
    "openb-node-0022": ("128000m", "786432Mi", 8, "G3", None),  # 128000,786432,8,G3
    "openb-node-0023": ("96000m", "786432Mi", 8, "V100M32", "32Gi"),  # 96000,786432,8,V100M32
}


@pytest.mark.parametrize("name", sorted(HAND_CHECKED_NODES))
def test_hand_checked_nodes(cluster: list[dict[str, Any]], name: str) -> None:
    cpu, memory, gpus, model, gpu_memory = HAND_CHECKED_NODES[name]
    node = by_kind(cluster, "Node")[name]
    assert node["status"]["allocatable"] == {"cpu": cpu, "memory": memory, "pods": "110"}
    spec = by_kind(cluster, "ResourceSlice")[f"{name}-{DRIVER}"]["spec"]
    assert (spec["nodeName"], spec["pool"]["name"]) == (name, name)
    assert spec["devices"] == [_device(index, model, gpu_memory) for index in range(gpus)]


def test_counts_match_the_readme(cluster: list[dict[str, Any]], entries: dict) -> None:
    """../shared/traces/README.md: 1,213 GPU nodes, 6,212 GPUs in all, 8,152 tasks."""
    slices = by_kind(cluster, "ResourceSlice").values()
    assert len(by_kind(cluster, "Node")) == len(slices) == 1213
    assert sum(len(item["spec"]["devices"]) for item in slices) == 6212
    assert len(entries) == 8152
    # The request shapes of the file (num_gpu 2, 4 and 8 are whole; no task names a model).
    shares = [50, 110, 140, 160, 220, 230, 270, 290, 320, 330, 350, 370, 440, 460, 470, 480]
    shares += [550, 590, 650, 810]
    assert sorted(by_kind(cluster, "ResourceClaimTemplate")) == sorted(
        [f"gpu-milli-{milli}" for milli in shares] + ["gpu-1", "gpu-2", "gpu-4", "gpu-8"]
    )


def test_every_row_arrives_at_its_creation_time(data: Path, out: Path) -> None:
    """The documented rule over all rows: at = creation_time; duration = deletion_time minus
    scheduled_time (creation_time when never scheduled); entries in the file's order, which is
    creation order."""
    with (data / TASKS_CSV).open(newline="") as handle:
        rows = list(csv.DictReader(handle))
    expected = [
        (
            row["name"],
            int(row["creation_time"]),
            int(row["deletion_time"]) - int(row["scheduled_time"] or row["creation_time"]),
        )
        for row in rows
    ]
    got = [(e["objects"][0]["metadata"]["name"], e["at"], e["duration"]) for e in read_entries(out)]
    assert got == expected


def test_every_object_is_valid_and_the_trace_reads_fast(out: Path, tmp_path: Path) -> None:
    assert _parse_fast((out / "trace.yaml").read_text()) is not None
    pods = pods_file(read_entries(out), tmp_path / "pods.yaml")
    report = check_paths([out / "cluster.yaml", pods])
    assert report.ok
    assert len(report.verdicts) == 1 + 2 * 1213 + 24 + 8152


def test_simulate_places_a_handful_of_tasks(out: Path, tmp_path: Path) -> None:
    """On the whole cluster: each task of HAND_CHECKED but the never-scheduled one is placed;
    openb-pod-0017 (88 cpus, 320 GiB, 8 GPUs) fits only an 8-GPU node with 88 cpus or more,
    which are the G2, G3 and the 96-cpu V100M32 nodes (the 8-GPU V100M16 ones have 64 or 82);
    openb-pod-0001's claim consumes 460 thousandths of its GPU."""
    names = ["openb-pod-0000", "openb-pod-0001", "openb-pod-0005", "openb-pod-0017"]
    chosen = [
        entry for entry in read_entries(out) if entry["objects"][0]["metadata"]["name"] in names
    ]
    pods = pods_file(chosen, tmp_path / "few.yaml")
    result = kubedra("simulate", str(out / "cluster.yaml"), str(pods), "-o", "json")
    assert result.code == 0, result.stdout[-2000:] + result.stderr
    items = json.loads(result.stdout)["items"]
    nodes = {i["metadata"]["name"]: i["spec"].get("nodeName") for i in items if i["kind"] == "Pod"}
    assert sorted(nodes) == names and all(nodes.values())
    slices = {
        i["spec"]["nodeName"]: i["spec"]["devices"] for i in items if i["kind"] == "ResourceSlice"
    }
    big = slices[nodes["openb-pod-0017"]]
    assert len(big) == 8 and big[0]["attributes"]["model"]["string"] in ("G2", "G3", "V100M32")
    claims = {
        i["metadata"]["ownerReferences"][0]["name"]: i["status"]["allocation"]["devices"]["results"]
        for i in items
        if i["kind"] == "ResourceClaim"
    }
    assert sorted(claims) == ["openb-pod-0000", "openb-pod-0001", "openb-pod-0017"]
    assert [r["pool"] for r in claims["openb-pod-0017"]] == [nodes["openb-pod-0017"]] * 8
    [share] = claims["openb-pod-0001"]
    assert share["consumedCapacity"]["gpu_milli"] == "460"

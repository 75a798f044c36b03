"""``trace import alibaba-gpu-v2023`` on small CSVs written here: every expected object is
worked out by hand from the rows. (tests/examples/test_examples.py::test_alibaba_trace runs the
same rows, shipped as examples/alibaba-trace/, through the simulated control plane.)"""

from __future__ import annotations

from pathlib import Path

import pytest
from traces_fixtures import by_kind, pods_file, read_entries, read_yaml, write_csvs

from kubedra.api.checking import check_paths
from kubedra.api.io.reading import _parse_fast
from kubedra.traces import (
    AlibabaOptions,
    PendingTasks,
    TraceInputError,
    import_alibaba,
    write_trace,
)

NODES = [
    "node-a,32000,131072,1,T4",
    "node-b,32000,131072,2,V100M32",
]
TASKS = [
    "whole-t4,4000,8192,1,1000,T4,LS,Running,0,3600,0",
    "share-a,2000,4096,1,600,V100M32,BE,Running,10,100,12",
    "share-b,2000,4096,1,400,V100M32,BE,Running,20,200,20",
    "share-c,2000,4096,1,500,V100M32,BE,Running,30,300,30",
    "pair,4000,8192,2,1000,,LS,Running,40,400,40",
    "share-d,1000,1024,1,100,T4,BE,Running,45,400,45",
    "cpu,1000,1024,0,0,,LS,Running,50,,50",
]
DRIVER = "gpu.alibaba.example.com"
MODEL = f'device.attributes["{DRIVER}"].model'


def _import(tmp_path: Path, nodes=NODES, tasks=TASKS, **options) -> Path:
    node_file, task_file = write_csvs(tmp_path, nodes, tasks)
    out = tmp_path / "out"
    write_trace(import_alibaba(node_file, task_file, AlibabaOptions(**options)), out)
    return out


def test_nodes_become_a_node_and_a_slice_of_shareable_gpus(tmp_path: Path) -> None:
    """node-b row: 32000 cpu_milli, 131072 MiB, 2 GPUs of model V100M32 (32 GiB each)."""
    cluster = read_yaml(_import(tmp_path) / "cluster.yaml")
    resources = {"cpu": "32000m", "memory": "131072Mi", "pods": "110"}
    assert by_kind(cluster, "Node")["node-b"] == {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": "node-b", "labels": {"kubernetes.io/hostname": "node-b"}},
        "status": {"capacity": resources, "allocatable": resources},
    }
    device = {
        "allowMultipleAllocations": True,
        "attributes": {"model": {"string": "V100M32"}},
        "capacity": {
            "gpu_milli": {"value": "1000"},
            "memory": {"value": "32Gi", "requestPolicy": {"default": "0"}},
        },
    }
    assert by_kind(cluster, "ResourceSlice")[f"node-b-{DRIVER}"] == {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceSlice",
        "metadata": {"name": f"node-b-{DRIVER}"},
        "spec": {
            "driver": DRIVER,
            "nodeName": "node-b",
            "pool": {"name": "node-b", "generation": 1, "resourceSliceCount": 1},
            "devices": [{"name": "gpu-0", **device}, {"name": "gpu-1", **device}],
        },
    }
    assert by_kind(cluster, "DeviceClass") == {
        DRIVER: {
            "apiVersion": "resource.k8s.io/v1",
            "kind": "DeviceClass",
            "metadata": {"name": DRIVER},
            "spec": {"selectors": [{"cel": {"expression": f'device.driver == "{DRIVER}"'}}]},
        }
    }


def test_undisclosed_models_have_no_memory_capacity(tmp_path: Path) -> None:
    cluster = read_yaml(
        _import(tmp_path, nodes=["g-node,96000,393216,1,G2"], tasks=[]) / "cluster.yaml"
    )
    [device] = by_kind(cluster, "ResourceSlice")[f"g-node-{DRIVER}"]["spec"]["devices"]
    assert device["capacity"] == {"gpu_milli": {"value": "1000"}}


def test_one_template_per_request_shape(tmp_path: Path) -> None:
    """Six GPU shapes in TASKS: whole T4, shares 600/400/500 of a V100M32, two whole GPUs of
    any model, a 100 share of a T4; the CPU task has none."""
    templates = by_kind(read_yaml(_import(tmp_path) / "cluster.yaml"), "ResourceClaimTemplate")
    assert sorted(templates) == [
        "gpu-1-t4",
        "gpu-2",
        "gpu-milli-100-t4",
        "gpu-milli-400-v100m32",
        "gpu-milli-500-v100m32",
        "gpu-milli-600-v100m32",
    ]
    assert templates["gpu-milli-600-v100m32"]["spec"] == {
        "spec": {
            "devices": {
                "requests": [
                    {
                        "name": "gpu",
                        "exactly": {
                            "deviceClassName": DRIVER,
                            "allocationMode": "ExactCount",
                            "count": 1,
                            "selectors": [{"cel": {"expression": f'{MODEL} == "V100M32"'}}],
                            "capacity": {"requests": {"gpu_milli": "600"}},
                        },
                    }
                ]
            }
        }
    }
    # Whole GPUs ask for no capacity: without a requestPolicy they consume all of gpu_milli.
    assert templates["gpu-2"]["spec"]["spec"]["devices"]["requests"][0]["exactly"] == {
        "deviceClassName": DRIVER,
        "allocationMode": "ExactCount",
        "count": 2,
    }
    assert templates["gpu-2"]["metadata"] == {"name": "gpu-2", "namespace": "default"}


def test_a_spec_of_several_models_is_one_in_selector(tmp_path: Path) -> None:
    out = _import(tmp_path, tasks=["multi,1000,1024,1,1000,V100M32|T4|V100M32,LS,Running,0,5,0"])
    templates = by_kind(read_yaml(out / "cluster.yaml"), "ResourceClaimTemplate")
    [selector] = templates["gpu-1-t4-v100m32"]["spec"]["spec"]["devices"]["requests"][0]["exactly"][
        "selectors"
    ]
    assert selector["cel"]["expression"] == (
        f'device.attributes["{DRIVER}"].model in ["T4", "V100M32"]'
    )


def test_tasks_become_entries(tmp_path: Path) -> None:
    """share-a: created 10, scheduled 12, deleted 100 -> at 10, runs 100 - 12 = 88 s."""
    entries = {
        entry["objects"][0]["metadata"]["name"]: entry for entry in read_entries(_import(tmp_path))
    }
    assert list(entries) == ["whole-t4", "share-a", "share-b", "share-c", "pair", "share-d", "cpu"]
    assert entries["share-a"] == {
        "at": 10,
        "duration": 88,
        "objects": [
            {
                "apiVersion": "v1",
                "kind": "Pod",
                "metadata": {
                    "name": "share-a",
                    "namespace": "default",
                    "labels": {
                        "alibaba.example.com/qos": "BE",
                        "alibaba.example.com/phase": "Running",
                    },
                },
                "spec": {
                    "containers": [
                        {
                            "name": "main",
                            "image": "registry.k8s.io/pause:3.10",
                            "resources": {
                                "requests": {"cpu": "2000m", "memory": "4096Mi"},
                                "claims": [{"name": "gpu"}],
                            },
                        }
                    ],
                    "resourceClaims": [
                        {"name": "gpu", "resourceClaimTemplateName": "gpu-milli-600-v100m32"}
                    ],
                },
            }
        ],
    }
    # No deletion time: the pod runs until the end (no duration); no GPU: no claim.
    cpu = entries["cpu"]
    assert cpu["at"] == 50 and "duration" not in cpu
    assert "resourceClaims" not in cpu["objects"][0]["spec"]
    assert cpu["objects"][0]["spec"]["containers"][0]["resources"] == {
        "requests": {"cpu": "1000m", "memory": "1024Mi"}
    }
    assert [entries[name]["duration"] for name in ("whole-t4", "share-b", "pair")] == [
        3600,
        180,
        360,
    ]


def test_entries_follow_creation_time(tmp_path: Path) -> None:
    tasks = [
        "late,1000,1024,0,0,,LS,Running,90,100,95",
        "early,1000,1024,0,0,,LS,Running,5,10,5",
        "tie,1000,1024,0,0,,LS,Running,90,100,90",
    ]
    entries = read_entries(_import(tmp_path, tasks=tasks))
    names = [entry["objects"][0]["metadata"]["name"] for entry in entries]
    assert names == ["early", "late", "tie"]
    entries = read_entries(_import(tmp_path / "limited", tasks=tasks, limit=2))
    assert [entry["objects"][0]["metadata"]["name"] for entry in entries] == ["early", "late"]


PENDING = "waiting,1000,1024,1,1000,,BE,Pending,100,160,"


def test_a_never_scheduled_task_runs_for_its_life_in_production(tmp_path: Path) -> None:
    """Created 100, deleted 160, never scheduled: it arrives at 100 and runs 60 s."""
    [entry] = read_entries(_import(tmp_path, tasks=[PENDING]))
    assert (entry["at"], entry["duration"]) == (100, 60)
    assert entry["objects"][0]["metadata"]["labels"]["alibaba.example.com/phase"] == "Pending"


def test_a_task_deleted_in_the_second_it_came_runs_zero_seconds(tmp_path: Path) -> None:
    """openb-pod-7285 of the default trace: Pending, created and deleted at 12774042."""
    [entry] = read_entries(_import(tmp_path, tasks=["gone,1000,1024,1,1000,,BE,Pending,7,7,"]))
    assert (entry["at"], entry["duration"]) == (7, 0)


def test_never_scheduled_tasks_can_be_left_out(tmp_path: Path) -> None:
    tasks = [PENDING, "ran,1000,1024,0,0,,LS,Failed,0,30,1"]
    entries = read_entries(_import(tmp_path, tasks=tasks, pending=PendingTasks.SKIP))
    assert [(entry["objects"][0]["metadata"]["name"], entry["duration"]) for entry in entries] == [
        ("ran", 29)
    ]


def test_qos_priority_is_opt_in(tmp_path: Path) -> None:
    plain = _import(tmp_path / "plain", tasks=TASKS[:2])
    assert not by_kind(read_yaml(plain / "cluster.yaml"), "PriorityClass")
    assert all("priorityClassName" not in e["objects"][0]["spec"] for e in read_entries(plain))
    ranked = _import(tmp_path / "ranked", tasks=TASKS[:2], qos_priority=True)
    classes = by_kind(read_yaml(ranked / "cluster.yaml"), "PriorityClass")
    assert {name: obj["value"] for name, obj in classes.items()} == {
        "alibaba-qos-ls": 2000,
        "alibaba-qos-be": 0,
    }
    assert [e["objects"][0]["spec"]["priorityClassName"] for e in read_entries(ranked)] == [
        "alibaba-qos-ls",
        "alibaba-qos-be",
    ]


def test_every_object_is_valid(tmp_path: Path) -> None:
    out = _import(tmp_path, tasks=[*TASKS, PENDING], qos_priority=True)
    pods = pods_file(read_entries(out), tmp_path / "pods.yaml")
    report = check_paths([out / "cluster.yaml", pods])
    assert report.ok, [str(error) for error in report.load_errors] + [
        str(verdict.errors) for verdict in report.invalid
    ]
    # the class, 2 nodes and 2 slices, 6 templates + gpu-1 (PENDING), 2 priorities, 8 pods
    assert len(report.verdicts) == 1 + 2 * 2 + 7 + 2 + 8


def test_trace_takes_the_fast_yaml_path(tmp_path: Path) -> None:
    text = (_import(tmp_path) / "trace.yaml").read_text()
    assert _parse_fast(text) is not None


def test_same_input_same_bytes(tmp_path: Path) -> None:
    first = _import(tmp_path / "one")
    second = _import(tmp_path / "two")
    for name in ("cluster.yaml", "trace.yaml"):
        assert (first / name).read_bytes() == (second / name).read_bytes()


def test_import_raises_for_missing_files(tmp_path: Path) -> None:
    missing = r"no-such\.csv: cannot read: No such file or directory$"
    with pytest.raises(TraceInputError, match=missing):
        import_alibaba(tmp_path / "no-such.csv", tmp_path / "pods.csv")

"""``plan utilization``: per node, pool and class counts, counters, fragmentation, plots."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path
from typing import Any

import yaml
from cli_helper import invoke

from kubedra.planning import simulate
from kubedra.planning.scenarios import mixed_sizes, pod, template
from kubedra.planning.usage import pod_requests, usage
from kubedra.planning.utilization import groups, plot

GIB = 1024**3 * 10**9


def _write(tmp_path: Path, name: str, objects: list[dict[str, Any]]) -> Path:
    path = tmp_path / name
    path.write_text(yaml.safe_dump_all(objects))
    return path


def _by(rows: list[Any]) -> dict[tuple[str, str], Any]:
    return {(g.scope, g.name): g for g in rows}


def test_counts_and_capacity_per_node_pool_and_class() -> None:
    # 2 nodes x (80, 40, 24, 8) GiB; first-fit puts the 72 GiB pod on node-0's 80 GiB GPU and
    # the 8 GiB pod on node-0's 40 GiB GPU (the default scores tie, the first node wins).
    sim = simulate(mixed_sizes(2, queue=(72, 8)))
    rows = _by(groups(usage(sim)))
    node0, node1 = rows[("node", "node-0")], rows[("node", "node-1")]
    assert (node0.devices, node0.used, node0.free) == (4, 2, 2)
    assert (node1.devices, node1.used, node1.free) == (4, 0, 4)
    assert node0.capacity_used == {"memory": 120 * GIB}
    assert node0.capacity == {"memory": 152 * GIB}
    cls = rows[("class", "gpu.example.com")]
    assert (cls.devices, cls.used) == (8, 2)
    assert rows[("pool", "gpu.example.com/node-0")].used == 2
    assert node0.fragmentation() is None  # no pending pod and no given shape


def test_fragmentation_is_free_capacity_no_shape_can_use() -> None:
    sim = simulate(mixed_sizes(2, queue=(72, 8)))
    allocator = sim.scheduler.dra.ensure_allocator()  # type: ignore[attr-defined]
    shape = [template("t20", 20), pod("p", "t20")]
    rows = _by(groups(usage(sim, pod_requests(allocator, shape, sim))))
    # node-0 has 24 + 8 GiB free; only the 8 GiB GPU cannot hold 20 GiB: 8 / 32.
    assert rows[("node", "node-0")].fragmentation() == 8 / 32
    # node-1: 8 of 152 GiB.
    assert rows[("node", "node-1")].fragmentation() == 8 / 152


def _partitionable() -> list[dict[str, Any]]:
    base = {"apiVersion": "resource.k8s.io/v1", "kind": "ResourceSlice"}
    pool = {"name": "n", "generation": 1, "resourceSliceCount": 2}
    parts = [
        {
            "name": f"part-{p}",
            "capacity": {"memory": {"value": "10Gi"}},
            "consumesCounters": [{"counterSet": "gpu", "counters": {"memory": {"value": "10Gi"}}}],
        }
        for p in range(4)
    ]
    return [
        base
        | {
            "metadata": {"name": "n-counters"},
            "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": pool}
            | {"sharedCounters": [{"name": "gpu", "counters": {"memory": {"value": "40Gi"}}}]},
        },
        base
        | {
            "metadata": {"name": "n-parts"},
            "spec": {"driver": "gpu.example.com", "nodeName": "n", "pool": pool}
            | {"devices": parts},
        },
    ]


def test_counters_used_per_pool(tmp_path: Path) -> None:
    objects = mixed_sizes(0, queue=(8,))[:1]  # the device class
    objects += [
        {
            "apiVersion": "v1",
            "kind": "Node",
            "metadata": {"name": "n"},
            "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}},
        },
        *_partitionable(),
        template("t1", 1),
        pod("a", "t1"),
        pod("b", "t1"),
    ]
    result = invoke("plan", "utilization", str(_write(tmp_path, "c.yaml", objects)), "-o", "json")
    assert result.exit_code == 0, result.output
    pool = next(r for r in json.loads(result.output) if r["name"] == "gpu.example.com/n")
    assert pool["counters"] == [
        {"counterSet": "gpu", "counter": "memory", "used": "20Gi", "total": "40Gi"}
    ]
    assert (pool["used"], pool["free"]) == (2, 2)


def test_plot_svg_has_a_bar_per_group_and_state(tmp_path: Path) -> None:
    sim = simulate(mixed_sizes(3, queue=(8,)))
    rows = groups(usage(sim))
    path = tmp_path / "u.svg"
    assert plot(rows, path) == 2 * (1 + 3)  # used + free, for 1 class and 3 nodes
    root = ET.parse(path).getroot()
    assert root.tag.endswith("svg")
    ids = [e.get("id") for e in root.iter() if (e.get("id") or "").startswith("bar-")]
    assert sorted(ids) == sorted(
        f"bar-{scope}-{name}-{kind}"
        for scope, name in [("class", "gpu.example.com")]
        + [("node", f"node-{i}") for i in range(3)]
        for kind in ("used", "free")
    )


def test_plot_png_from_the_cli(tmp_path: Path) -> None:
    cluster = _write(tmp_path, "c.yaml", mixed_sizes(2, queue=(8, 72)))
    out = tmp_path / "u.png"
    result = invoke("plan", "utilization", str(cluster), "--plot", str(out))
    assert result.exit_code == 0, result.output
    data = out.read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = int.from_bytes(data[16:20], "big"), int.from_bytes(data[20:24], "big")
    assert (width, height) == (1200, 450)
    assert re.search(r"wrote .*u\.png \(6 bars\)", result.output)
    bad = invoke("plan", "utilization", str(cluster), "--plot", str(tmp_path / "u.jpg"))
    assert bad.exit_code == 1
    assert "must end in .png or .svg" in bad.output


def _profiled_pool() -> list[dict[str, Any]]:
    """``_partitionable`` with a profile attribute on each part and a whole-GPU device last."""
    counters, devices = _partitionable()
    for part in devices["spec"]["devices"]:
        part["attributes"] = {"profile": {"string": "10g"}}
    devices["spec"]["devices"].append(
        {
            "name": "whole",
            "attributes": {"profile": {"string": "40g"}},
            "capacity": {"memory": {"value": "40Gi"}},
            "consumesCounters": [{"counterSet": "gpu", "counters": {"memory": {"value": "40Gi"}}}],
        }
    )
    return [counters, devices]


def _node(name: str) -> dict[str, Any]:
    return {
        "apiVersion": "v1",
        "kind": "Node",
        "metadata": {"name": name},
        "status": {"allocatable": {"cpu": "8", "memory": "8Gi", "pods": "10"}},
    }


def test_pool_status_summaries_in_yaml_and_the_table(tmp_path: Path) -> None:
    """Each pool carries what a ResourcePoolStatusRequest reports for it (KEP-5677,
    k8s.io/api resource/v1alpha3 PoolStatus; kubernetes/kubernetes
    pkg/controller/resourcepoolstatusrequest/views.go): with the partition type attribute
    given, two 10g parts allocated leave 2 of 4 allocatable and the whole GPU, whose counters
    they use, none; an unqualified attribute name counts as the driver's own."""
    objects = mixed_sizes(0, queue=(8,))[:1]
    objects += [_node("n"), *_profiled_pool(), template("t1", 1), pod("a", "t1"), pod("b", "t1")]
    cluster = str(_write(tmp_path, "c.yaml", objects))
    result = invoke(
        "plan", "utilization", cluster, "-o", "yaml",
        "--partition-type-attribute", "gpu.example.com/profile",
    )  # fmt: skip
    assert result.exit_code == 0, result.output
    pool = next(r for r in yaml.safe_load(result.output) if r["name"] == "gpu.example.com/n")
    status = pool["poolStatus"]
    assert (status["totalDevices"], status["allocatedDevices"]) == (5, 2)
    assert (status["availableDevices"], status["nodeName"]) == (3, "n")
    assert status["partitionSummary"] == [
        {"attribute": "gpu.example.com/profile", "type": "10g", "total": 4, "allocatable": 2},
        {"attribute": "gpu.example.com/profile", "type": "40g", "total": 1, "allocatable": 0},
    ]
    table = invoke(
        "plan", "utilization", cluster, "--partition-type-attribute", "gpu.example.com/profile"
    )
    line = next(x for x in table.output.splitlines() if x.startswith("pool "))
    assert "10g 2/4, 40g 0/1" in line
    # Without the attribute there is no partition summary (no slice names one).
    plain = json.loads(invoke("plan", "utilization", cluster, "-o", "json").output)
    assert "partitionSummary" not in next(r for r in plain if r["scope"] == "pool")["poolStatus"]


def test_partition_type_attribute_must_be_fully_qualified(tmp_path: Path) -> None:
    cluster = str(_write(tmp_path, "c.yaml", [_node("n"), *_profiled_pool()]))
    result = invoke("plan", "utilization", cluster, "--partition-type-attribute", "profile")
    assert result.exit_code == 1
    assert "--partition-type-attribute" in result.output
    assert "fully qualified name" in result.output

"""``plan capacity`` counts against a brute-force simulation that adds the copies up front."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_helper import invoke

from kubedra.planning import simulate
from kubedra.planning.capacity import copy_of, plan_capacity
from kubedra.planning.scenarios import mixed_sizes, pod, template


def _pod_objects(ask: int, count: int = 1) -> list[dict[str, Any]]:
    tmpl = template(f"job-{ask}gi", ask)
    if count != 1:
        tmpl["spec"]["spec"]["devices"]["requests"][0]["exactly"]["count"] = count
    return [tmpl, pod("job", f"job-{ask}gi")]


def _brute_force(cluster: list[dict[str, Any]], pod_objects: list[dict[str, Any]]) -> int:
    """The largest k for which a fresh simulation of the cluster plus k copies places all."""
    template_obj, the_pod = pod_objects
    k = 0
    while True:
        copies = [copy_of(the_pod, f"job-{i}") for i in range(1, k + 2)]
        sim = simulate([*cluster, template_obj, *copies])
        placed = [
            bool(
                (sim.store.get("Pod", c["metadata"]["name"], "default") or {})
                .get("spec", {})
                .get("nodeName")
            )
            for c in copies
        ]
        if not all(placed):
            return k
        k += 1


CASES = [
    (mixed_sizes(2, queue=()), 8, 1),
    (mixed_sizes(3, queue=(8, 8, 36)), 20, 1),
    (mixed_sizes(3, queue=(72,)), 36, 1),
    (mixed_sizes(2, queue=(8,)), 8, 2),
    (mixed_sizes(4, sizes_gib=(40, 8, 24, 80, 8), queue=(22, 8)), 7, 1),
]


@pytest.mark.parametrize(("cluster", "ask", "count"), CASES)
def test_capacity_matches_brute_force(cluster: list[dict[str, Any]], ask: int, count: int) -> None:
    pod_objects = _pod_objects(ask, count)
    expected = _brute_force(cluster, pod_objects)
    result = plan_capacity(simulate(cluster), pod_objects)
    assert len(result.placed) == expected
    assert result.pending_message is not None


def test_capacity_count_stops_early_and_says_what_is_left() -> None:
    cluster = mixed_sizes(3, queue=(8, 8, 36))
    result = plan_capacity(simulate(cluster), _pod_objects(20), count=2)
    assert len(result.placed) == 2
    assert result.pending_message is None
    assert result.runs_out() == []
    [left] = result.left
    assert (left.device_class, left.needs) == ("gpu.example.com", 1)
    full = plan_capacity(simulate(cluster), _pod_objects(20))
    assert left.free_devices == len(full.placed) - 2


def test_runs_out_names_the_device_class() -> None:
    result = plan_capacity(simulate(mixed_sizes(2, queue=())), _pod_objects(72))
    assert result.placed == []
    assert result.runs_out() == [
        "device class gpu.example.com (claim job-1-gpu-"
        + result.left[0].claim.rsplit("-", 1)[1]
        + ", request gpu): 0 free matching device(s), 1 needed"
    ]


def test_plan_capacity_cli(tmp_path: Path) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(mixed_sizes(3, queue=(8, 8, 36))))
    pod_file = tmp_path / "pod.yaml"
    pod_file.write_text(yaml.safe_dump_all(_pod_objects(20)))
    result = invoke("plan", "capacity", str(pod_file), str(cluster), "-o", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["fit"] == _brute_force(mixed_sizes(3, queue=(8, 8, 36)), _pod_objects(20))
    assert sum(data["perNode"].values()) == data["fit"]
    text = invoke("plan", "capacity", str(pod_file), str(cluster), "--count", "1")
    assert text.exit_code == 0
    assert text.output.startswith("1 more copy of default/job fit.")
    bad = invoke("plan", "capacity", str(cluster), str(cluster))
    assert bad.exit_code == 1
    assert "exactly one Pod, found 3" in bad.output


@pytest.mark.parametrize(("cluster", "ask", "count"), CASES)
def test_per_node_count_equals_one_by_one(
    cluster: list[dict[str, Any]], ask: int, count: int
) -> None:
    pod_objects = _pod_objects(ask, count)
    fast = plan_capacity(simulate(cluster), pod_objects)
    slow = plan_capacity(simulate(cluster), pod_objects, fast=False)
    assert fast.fast and not slow.fast
    assert fast.per_node == slow.per_node
    assert fast.pending_message == slow.pending_message.split(" still not schedulable")[0]
    assert [(r.free_devices, r.free_by_pool) for r in fast.left] == [
        (r.free_devices, r.free_by_pool) for r in slow.left
    ]


def test_per_node_count_respects_node_resources_and_leaves_state_as_it_was() -> None:
    cluster = mixed_sizes(2, queue=(8,))  # 7 GPUs free, but 3 CPUs per node
    for obj in cluster:
        if obj["kind"] == "Node":
            obj["status"]["allocatable"] = {"cpu": "3", "memory": "8Gi", "pods": "110"}
    pod_objects = _pod_objects(8)
    pod_objects[1]["spec"]["containers"][0]["resources"]["requests"] = {"cpu": "1"}
    sim = simulate(cluster)
    before = set(sim.scheduler.dra.ensure_allocator().state.in_use)  # type: ignore[attr-defined]
    result = plan_capacity(sim, pod_objects)
    assert result.fast
    assert result.per_node == {"node-0": 3, "node-1": 3}
    assert result.pending_message == "0/2 nodes are available: 2 Insufficient cpu."
    slow = plan_capacity(simulate(cluster), pod_objects, fast=False)
    assert slow.per_node == result.per_node
    # Only the first copy (really created) stays allocated.
    after = sim.scheduler.dra.ensure_allocator().state.in_use  # type: ignore[attr-defined]
    assert len(after) == len(before) + 1


def test_shared_claims_take_the_one_by_one_path() -> None:
    cluster = mixed_sizes(2, queue=())
    claim = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "ResourceClaim",
        "metadata": {"name": "shared", "namespace": "default"},
        "spec": template("x", 8)["spec"]["spec"],
    }
    the_pod = pod("job", "unused")
    the_pod["spec"]["resourceClaims"] = [{"name": "gpu", "resourceClaimName": "shared"}]
    result = plan_capacity(simulate(cluster), [claim, the_pod], count=3)
    assert not result.fast
    assert len(result.placed) == 3
    assert len(set(result.per_node)) == 1  # all users of one claim share its node


def test_copies_that_could_preempt_take_the_one_by_one_path() -> None:
    cluster = mixed_sizes(1, queue=(8, 22, 36, 72))  # every GPU taken
    priority = {
        "apiVersion": "scheduling.k8s.io/v1",
        "kind": "PriorityClass",
        "metadata": {"name": "high"},
        "value": 1000,
    }
    pod_objects = [priority, *_pod_objects(8)]
    pod_objects[-1]["spec"]["priorityClassName"] = "high"
    result = plan_capacity(simulate(cluster), pod_objects, count=2)
    assert not result.fast
    assert len(result.placed) == 2  # by preempting two of the existing pods

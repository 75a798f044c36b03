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

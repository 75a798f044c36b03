"""``plan nodes`` on scenarios whose answer is known by construction."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import yaml
from cli_helper import invoke

from kubedra.planning import simulate
from kubedra.planning.nodes import plan_nodes
from kubedra.planning.scenarios import gpu_slice, mixed_sizes, node, pod, template


def _cluster() -> list[dict[str, Any]]:
    """One node whose four GPUs (80/40/24/8 GiB) are all taken, then five pods for 30 GiB
    and one for 72 GiB that wait."""
    objects = mixed_sizes(1, queue=(72, 36, 22, 8))
    objects += [template("t30", 30), template("t72x", 72)]
    objects += [pod(f"wait-{i}", "t30") for i in range(5)]
    objects.append(pod("huge", "t72x"))
    return objects


def _template() -> list[dict[str, Any]]:
    """A node with two 40 GiB GPUs: each takes two 30 GiB pods, never the 72 GiB one."""
    return [node("gpu-node"), gpu_slice("gpu-node", [40, 40])]


def test_three_nodes_for_five_pods_of_two_per_node() -> None:
    sim = simulate(_cluster())
    result = plan_nodes(sim, _template())
    assert [n for n, _ in result.added] == ["gpu-node-1", "gpu-node-2", "gpu-node-3"]
    assert [len(p) for _, p in result.added] == [2, 2, 1]
    taken = sorted(p for _, pods in result.added for p in pods)
    assert taken == [f"default/wait-{i}" for i in range(5)]
    assert result.unplaceable == ["default/huge"]
    assert not result.limit_reached
    # The node tried for "huge" took nothing and was removed again.
    assert sim.store.get("Node", "gpu-node-4") is None


def test_no_pending_pods_need_no_nodes() -> None:
    sim = simulate(mixed_sizes(1, queue=(8,)))
    assert plan_nodes(sim, _template()).added == []


def test_max_nodes() -> None:
    result = plan_nodes(simulate(_cluster()), _template(), max_nodes=1)
    assert len(result.added) == 1
    assert result.limit_reached
    assert len(result.unplaceable) == 4


def test_plan_nodes_cli(tmp_path: Path) -> None:
    cluster = tmp_path / "cluster.yaml"
    cluster.write_text(yaml.safe_dump_all(_cluster()))
    tmpl = tmp_path / "template.yaml"
    tmpl.write_text(yaml.safe_dump_all(_template()))
    result = invoke("plan", "nodes", "--template", str(tmpl), str(cluster), "-o", "json")
    assert result.exit_code == 0, result.output
    data = json.loads(result.output)
    assert data["nodes"] == 3
    assert data["unplaceable"] == ["default/huge"]
    text = invoke("plan", "nodes", "--template", str(tmpl), str(cluster))
    assert text.output.splitlines()[0] == f"Add 3 node(s) of {tmpl}."
    bad = invoke("plan", "nodes", "--template", str(cluster), str(cluster))
    assert bad.exit_code == 1
    assert "may hold only a Node and ResourceSlices, not DeviceClass" in bad.output

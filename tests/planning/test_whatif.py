"""``plan what-if``: drain, remove and add nodes, plus simulate's steps, as diffs."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import yaml
from cli_helper import invoke

from kubedra.cluster.timeline import TimelineError
from kubedra.planning import simulate
from kubedra.planning.scenarios import gpu_slice, mixed_sizes, node
from kubedra.planning.whatif import parse_steps, what_if


def test_drain_moves_pods_and_remove_node_leaves_one_pending(tmp_path: Path) -> None:
    # Both pods land on node-0 (tied scores: the first node); node-1 is empty.
    sim = simulate(mixed_sizes(2, queue=(72, 8)))
    steps = parse_steps([{"drain": "node-0"}, {"remove-node": "node-1"}], "t", tmp_path)
    drained, removed = what_if(sim, steps)
    assert drained.moved == [
        ("default/pod-0000-72gi", "node-0", "node-1"),
        ("default/pod-0001-8gi", "node-0", "node-1"),
    ]
    assert drained.pending == []
    assert len(drained.claims) == 4  # two released, two new ones allocated on node-1
    # node-0 is cordoned: removing node-1 leaves both pods without a node.
    assert sorted(p for p, _ in removed.evicted) == [
        "default/pod-0000-72gi",
        "default/pod-0001-8gi",
    ]
    assert sorted(removed.pending) == ["default/pod-0000-72gi", "default/pod-0001-8gi"]
    assert sim.store.get("Node", "node-1") is None
    assert not [s for s in sim.store.list("ResourceSlice") if s["spec"]["nodeName"] == "node-1"]


def test_add_nodes_places_the_pending_pods(tmp_path: Path) -> None:
    template = tmp_path / "t.yaml"
    template.write_text(yaml.safe_dump_all([node("big"), gpu_slice("big", [80])]))
    sim = simulate(mixed_sizes(1, queue=(72, 72, 72)))
    [added] = what_if(
        sim, parse_steps([{"add-nodes": {"template": "t.yaml", "count": 2}}], "t", tmp_path)
    )
    assert sorted(added.placed) == [
        ("default/pod-0001-72gi", "big-1"),
        ("default/pod-0002-72gi", "big-2"),
    ]


def test_bad_steps_are_named(tmp_path: Path) -> None:
    with pytest.raises(TimelineError, match=r"step 1\.add-nodes\.count: a whole number"):
        parse_steps([{"add-nodes": {"template": "t.yaml", "count": 0}}], "s.yaml", tmp_path)
    with pytest.raises(TimelineError, match="unknown field 'extra'"):
        parse_steps([{"drain": "n", "extra": 1}], "s.yaml", tmp_path)
    sim = simulate(mixed_sizes(1, queue=(8,)))
    with pytest.raises(TimelineError, match='nodes "nope" not found'):
        what_if(sim, parse_steps([{"drain": "nope"}], "s.yaml", tmp_path))


def test_what_if_cli_with_a_simulate_step(tmp_path: Path) -> None:
    cluster = tmp_path / "c.yaml"
    cluster.write_text(yaml.safe_dump_all(mixed_sizes(1, queue=(8,))))
    steps = tmp_path / "s.yaml"
    taint = {"driver": "gpu.example.com", "pool": "node-0", "device": "gpu-0"}
    taint |= {"key": "example.com/ecc", "value": "true", "effect": "NoExecute"}
    steps.write_text(yaml.safe_dump([{"taint": taint}]))
    result = invoke("plan", "what-if", str(steps), str(cluster), "-o", "json")
    assert result.exit_code == 0, result.output
    [step] = json.loads(result.output)
    assert step["evicted"] == [{"pod": "default/pod-0000-8gi", "node": "node-0"}]
    bad = invoke("plan", "what-if", str(tmp_path / "missing.yaml"), str(cluster))
    assert bad.exit_code == 1
    assert "missing.yaml" in bad.output

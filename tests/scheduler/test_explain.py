"""kubedra explain: causes with counts for Pending pods, scores and devices for placed ones."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import typer
import yaml
from sched_builders import claim, cluster, device_class, gpu, node, pod, run, slice_
from typer.testing import CliRunner

from kubedra.cli import explain_cmd
from kubedra.scheduler.explain import explain_pod

NEED_32 = 'device.capacity["gpu.example.com"].memory.compareTo(quantity("32Gi")) >= 0'


def _objects() -> list[dict[str, Any]]:
    return [
        node("n1", taints=[{"key": "infra", "value": "x", "effect": "NoSchedule"}]),
        node("n2", cpu="1"),
        node("n3"),
        node("n4"),
        device_class(),
        slice_("n2", [gpu("g9", "80Gi")]),
        slice_("n3", [gpu("g0", "8Gi")]),
        slice_("n4", [gpu("g1", "12Gi"), gpu("g2", "24Gi")]),
        claim("big", NEED_32),
        pod("trainer", cpu="2", claims=["big"]),
    ]


def test_pending_pod_causes_and_counts() -> None:
    _, scheduler = cluster(*_objects())
    run(scheduler)
    result = explain_pod(scheduler, "default", "trainer")
    assert result["phase"] == "Pending"
    groups = {(g["plugin"], g["reason"]): g["count"] for g in result["nodes"]}
    assert groups == {
        ("DynamicResources", "cannot allocate all claims"): 2,
        ("TaintToleration", "node(s) had untolerated taint(s)"): 1,
        ("NodeResourcesFit", "Insufficient cpu"): 1,
    }
    (detail,) = result["claims"]
    assert (detail["claim"], detail["request"]) == ("default/big", "gpu")
    assert detail["candidates"] == 3
    assert detail["eliminated"]["request selector false"]["count"] == 3
    assert detail["selectors"] == [NEED_32]
    # g9 (80Gi) sits on n2, which NodeResourcesFit rejected first: it is not a near miss.
    assert detail["nearestMiss"] == "no device has memory >= 32Gi; the largest is 24Gi, g2 on n4"
    summary = "\n".join(result["summary"])
    assert "2 nodes: cannot allocate all claims" in summary
    assert "3 eliminated: request selector false" in summary


def test_placed_pod_scores_and_devices() -> None:
    _, scheduler = cluster(
        node("n1"),
        node("n2", cpu="4"),
        device_class(),
        slice_("n1", [gpu("g0", "24Gi")]),
        slice_("n2", [gpu("g1", "24Gi")]),
        claim("c", 'device.capacity["gpu.example.com"].memory.compareTo(quantity("16Gi")) >= 0'),
        pod("p", cpu="1", claims=["c"]),
    )
    run(scheduler)
    result = explain_pod(scheduler, "default", "p")
    assert result["phase"] == "Scheduled" and result["node"] == "n1"
    assert [s["node"] for s in result["scores"]] == ["n1", "n2"]
    assert result["scores"][0]["total"] > result["scores"][1]["total"]
    (entry,) = result["claims"]
    assert entry["devices"][0]["device"] == "gpu.example.com/n1/g0"
    assert entry["devices"][0]["capacity"] == {"memory": "24Gi"}


def test_explain_cli_text_and_json(tmp_path: Path) -> None:
    manifest = tmp_path / "cluster.yaml"
    manifest.write_text(yaml.safe_dump_all(_objects()))
    app = typer.Typer()
    app.command("version")(lambda: None)
    explain_cmd.register(app)
    runner = CliRunner()
    text = runner.invoke(app, ["explain", "pod", "trainer", str(manifest)])
    assert text.exit_code == 0, text.output
    assert text.output.startswith("pod default/trainer is Pending: 0/4 nodes are available:")
    assert "nearest miss: no device has memory >= 32Gi" in text.output
    out = runner.invoke(app, ["explain", "pod", "trainer", str(manifest), "-o", "json"])
    assert out.exit_code == 0
    data = json.loads(out.output)
    assert data["claims"][0]["eliminated"]["request selector false"]["count"] == 3
    missing = runner.invoke(app, ["explain", "pod", "nobody", str(manifest)])
    assert missing.exit_code == 1
    assert "pod default/nobody not found" in missing.output

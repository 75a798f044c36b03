"""What-if steps on slices, class selectors and device taints, each asserted as a diff; and
``kubedra simulate --what-if`` / ``--events`` reading the same steps as ``plan what-if``."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pytest
import yaml
from cli_helper import invoke

from kubedra.cluster.timeline import TimelineError
from kubedra.planning import simulate
from kubedra.planning.scenarios import DRIVER, gpu_slice, mixed_sizes, pod
from kubedra.planning.scenarios import node as scenario_node
from kubedra.planning.whatif import parse_steps, what_if

G80 = f'device.attributes["{DRIVER}"].model == "g80"'
G8 = f'device.attributes["{DRIVER}"].model == "g8"'


def run(objects: list[dict[str, Any]], steps: list[dict[str, Any]], tmp: Path) -> list[Any]:
    return what_if(simulate(objects), parse_steps(steps, "s.yaml", tmp))


def extra_slice(name: str, node: str, size_gib: int) -> dict[str, Any]:
    return {
        "metadata": {"name": name},
        "spec": {
            "driver": DRIVER,
            "nodeName": node,
            "pool": {"name": name, "generation": 1, "resourceSliceCount": 1},
            "devices": [
                {
                    "name": "gpu-0",
                    "attributes": {"model": {"string": f"g{size_gib}"}},
                    "capacity": {"memory": {"value": f"{size_gib}Gi"}},
                }
            ],
        },
    }


def selector(expression: str) -> list[dict[str, Any]]:
    return [{"cel": {"expression": expression}}]


def test_add_slice_places_the_pending_pod(tmp_path: Path) -> None:
    # One node, one 80 GiB GPU: the second 72 GiB pod waits until a slice brings another.
    [added] = run(
        mixed_sizes(1, queue=(72, 72)), [{"add-slice": extra_slice("more", "node-0", 80)}], tmp_path
    )
    assert added.description == "add-slice more"
    assert added.placed == [("default/pod-0001-72gi", "node-0")]
    [(claim, before, after)] = added.claims
    assert claim.startswith("default/pod-0001-72gi-gpu-")
    assert (before, after) == ([], [f"{DRIVER}/more/gpu-0"])
    assert added.moved == added.evicted == added.pending == []


def test_remove_slice_keeps_allocations_and_new_pods_wait(tmp_path: Path) -> None:
    # Upstream deallocates nothing when a slice goes: the running pod keeps its GPU; a new pod
    # that only that node's slice could serve stays Pending.
    removed, created = run(
        mixed_sizes(1, queue=(72,)),
        [{"remove-slice": "node-0-gpus"}, {"create": pod("late", "gpu-8gi")}],
        tmp_path,
    )
    assert removed.lines() == ["nothing changed"]
    assert created.pending == ["default/late"]
    assert created.claims == []  # late's claim exists but stays unallocated


def test_set_class_selector_keeps_allocations_and_reevaluates_pending_pods(
    tmp_path: Path,
) -> None:
    objects = mixed_sizes(2, queue=(72,))  # the 72 GiB pod takes node-0's 80 GiB GPU
    narrowed, created, widened = run(
        objects,
        [
            {"set-class-selector": {"class": DRIVER, "selectors": selector(G8)}},
            {"create": pod("late", "gpu-72gi")},
            {"set-class-selector": {"class": DRIVER, "selectors": selector(G80)}},
        ],
        tmp_path,
    )
    assert narrowed.description == f"set-class-selector {DRIVER}"
    assert narrowed.lines() == ["nothing changed"]  # the allocated claim keeps gpu-0
    assert created.pending == ["default/late"]  # no 8 GiB GPU has 72 GiB
    assert widened.placed == [("default/late", "node-1")]
    [(_, before, after)] = widened.claims
    assert (before, after) == ([], [f"{DRIVER}/node-1/gpu-0"])


def test_taint_noschedule_keeps_pods_and_noexecute_evicts(tmp_path: Path) -> None:
    no_schedule = {"device": "gpu-0", "key": "example.com/ecc", "effect": "NoSchedule"}
    no_execute = {"pool": "node-0", "device": "gpu-0", "key": "example.com/ecc"}
    tainted, created, evicting = run(
        mixed_sizes(2, queue=(72,)),
        [
            {"taint": no_schedule},  # every pool's gpu-0: the only GPUs with 72 GiB
            {"create": pod("late", "gpu-72gi")},
            {"taint": no_execute | {"effect": "NoExecute"}},
        ],
        tmp_path,
    )
    assert tainted.description == "taint */*/gpu-0 example.com/ecc:NoSchedule"
    assert tainted.lines() == ["nothing changed"]
    assert created.pending == ["default/late"]
    assert evicting.evicted == [("default/pod-0000-72gi", "node-0")]
    [(claim, before, after)] = evicting.claims
    assert claim.startswith("default/pod-0000-72gi-gpu-")
    assert (before, after) == ([f"{DRIVER}/node-0/gpu-0"], [])


@pytest.mark.parametrize(
    ("steps", "message"),
    [
        ([{"cordon": "node-0"}, {"explode": 1}], "s.yaml: step 2: unknown step 'explode'"),
        (
            [{"set-class-selector": {"class": DRIVER, "selectors": selector("device.driver ==")}}],
            "s.yaml: step 1.set-class-selector.selectors[0].cel.expression: Invalid value: "
            '"device.driver ==": compilation failed',
        ),
        (
            [{"set-class-selector": {"selectors": selector(G8)}}],
            "s.yaml: step 1.set-class-selector.class: required",
        ),
        (
            [{"set-class-selector": {"class": DRIVER}}],
            "s.yaml: step 1.set-class-selector.selectors: required",
        ),
        (
            [{"add-slice": {"kind": "Pod", "metadata": {"name": "x"}}}],
            "s.yaml: step 1.add-slice.kind: must be ResourceSlice, not 'Pod'",
        ),
        (
            [{"add-slice": {"metadata": {"name": "x"}, "spec": {"driver": DRIVER}}}],
            "s.yaml: step 1.add-slice.spec.pool.name: Required value",
        ),
        ([{"remove-slice": 3}], "s.yaml: step 1.remove-slice: the ResourceSlice's name"),
        (
            [{"taint": {"device": "gpu-0", "key": "k", "effect": "Sometimes"}}],
            's.yaml: step 1.taint.effect: Unsupported value: "Sometimes"',
        ),
        ([{"wait": "1m"}, {"cordon": ""}], "s.yaml: step 2.cordon: the node's name"),
    ],
)
def test_bad_steps_name_step_and_field(steps: list[Any], message: str, tmp_path: Path) -> None:
    with pytest.raises(TimelineError, match=re.escape(message)):
        parse_steps(steps, "s.yaml", tmp_path)


@pytest.mark.parametrize(
    ("step", "message"),
    [
        (
            {"set-class-selector": {"class": "nope", "selectors": []}},
            's.yaml: step 1.set-class-selector.class: deviceclasses.resource.k8s.io "nope" '
            "not found",
        ),
        ({"remove-slice": "nope"}, "s.yaml: step 1.remove-slice: resourceslices"),
        (
            {"add-slice": extra_slice("node-0-gpus", "node-0", 8)},
            'step 1 (add-slice node-0-gpus): resourceslices.resource.k8s.io "node-0-gpus" '
            "already exists",
        ),
    ],
)
def test_steps_that_fail_on_the_cluster_name_the_step(
    step: dict[str, Any], message: str, tmp_path: Path
) -> None:
    with pytest.raises(TimelineError, match=re.escape(message)):
        run(mixed_sizes(1, queue=(8,)), [step], tmp_path)


def write_inputs(tmp_path: Path) -> tuple[Path, Path]:
    cluster = tmp_path / "c.yaml"
    cluster.write_text(yaml.safe_dump_all(mixed_sizes(2, queue=(72, 72, 72))))
    steps = tmp_path / "s.yaml"
    steps.write_text(
        yaml.safe_dump(
            [
                {"add-slice": extra_slice("more", "node-1", 80)},
                {"set-class-selector": {"class": DRIVER, "selectors": selector(G8)}},
                {"drain": "node-0"},
            ]
        )
    )
    return cluster, steps


def test_simulate_what_if_prints_plan_what_ifs_diff(tmp_path: Path) -> None:
    cluster, steps = write_inputs(tmp_path)
    plan = invoke("plan", "what-if", str(steps), str(cluster))
    assert plan.exit_code == 0, plan.output
    report = plan.output.strip().splitlines()
    assert report[:2] == ["Step 1: add-slice more", "  pod default/pod-0002-72gi placed on node-1"]
    # The narrowed class leaves allocations alone; the drained pod finds no 8 GiB GPU big enough.
    assert "Step 2: set-class-selector gpu.example.com\n  nothing changed" in plan.output
    assert "  pod default/pod-0000-72gi evicted from node-0" in report
    assert "  pod default/pod-0000-72gi Pending" in report
    simulated = invoke("simulate", str(cluster), "--what-if", str(steps))
    assert simulated.exit_code == 2, simulated.output  # a pod stays Pending
    text = simulated.output
    assert "\nWhat if\n" + "\n".join(report) + "\n\nAfter the what-if steps\n" in text
    after = text.split("\nAfter the what-if steps\n")[1]
    assert after.startswith("3 pod(s) on 2 node(s): 2 placed, 1 pending")
    assert "\nPending\n  default/pod-0000-72gi: 0/2 nodes are available: " in after


def test_simulate_events_read_the_what_if_steps(tmp_path: Path) -> None:
    cluster, steps = write_inputs(tmp_path)
    result = invoke("simulate", str(cluster), "--events", str(steps))
    assert result.exit_code == 2, result.output
    assert "Step 1 (t=+0s): add-slice more" in result.output
    assert "pod default/pod-0002-72gi bound to node-1" in result.output


def test_simulate_what_if_bad_input_is_exit_1(tmp_path: Path) -> None:
    cluster, _ = write_inputs(tmp_path)
    steps = tmp_path / "bad.yaml"
    steps.write_text(yaml.safe_dump([{"set-class-selector": {"class": "nope", "selectors": []}}]))
    result = invoke("simulate", str(cluster), "--what-if", str(steps))
    assert result.exit_code == 1
    assert result.exception is None or isinstance(result.exception, SystemExit)
    assert 'step 1.set-class-selector.class: deviceclasses.resource.k8s.io "nope" not found' in (
        result.output
    )
    steps.write_text("- explode: 1\n")
    result = invoke("simulate", str(cluster), "--what-if", str(steps))
    assert result.exit_code == 1
    assert "bad.yaml: step 1: unknown step 'explode'" in result.output


def tolerating_cluster(tmp_path: Path) -> Path:
    """One 72 GiB pod whose claim tolerates the taint ``k`` (NoExecute) for 60 s."""
    objects = mixed_sizes(1, queue=(72,))
    toleration = {"key": "k", "operator": "Exists", "effect": "NoExecute", "tolerationSeconds": 60}
    for obj in objects:
        if obj["kind"] == "ResourceClaimTemplate":
            obj["spec"]["spec"]["devices"]["requests"][0]["exactly"]["tolerations"] = [toleration]
    cluster = tmp_path / "c.yaml"
    cluster.write_text(yaml.safe_dump_all(objects))
    return cluster


def test_simulate_events_stop_the_clock_at_the_next_step(tmp_path: Path) -> None:
    # A 60 s toleration, untainted 30 s later: the pod must never be evicted. Before the fix
    # simulate ran each step to its fixed point, past the next step's time.
    cluster = tolerating_cluster(tmp_path)
    events = tmp_path / "e.yaml"
    taint = {"name": "ecc", "device": "gpu-0", "key": "k"}
    events.write_text(yaml.safe_dump([{"taint": taint}, {"after": "30s", "untaint": "ecc"}]))
    result = invoke("simulate", str(cluster), "--events", str(events))
    assert result.exit_code == 0, result.output
    assert "evicted" not in result.output
    assert "1 pod(s) on 1 node(s): 1 placed, 0 pending" in result.output.split("After the")[1]


def test_plan_what_if_runs_the_cluster_only_until_the_first_step(tmp_path: Path) -> None:
    # The cluster already holds the taint rule; the first step (30 s in) removes it, before
    # the 60 s toleration ends, so the drain still finds the pod on node-0. Before the fix
    # plan what-if ran the cluster to its fixed point first: the pod was evicted at 60 s.
    cluster = tolerating_cluster(tmp_path)
    rule = {
        "apiVersion": "resource.k8s.io/v1",
        "kind": "DeviceTaintRule",
        "metadata": {"name": "ecc"},
        "spec": {
            "deviceSelector": {"device": "gpu-0"},
            "taint": {"key": "k", "effect": "NoExecute"},
        },
    }
    cluster.write_text(cluster.read_text() + "---\n" + yaml.safe_dump(rule))
    steps = tmp_path / "s.yaml"
    steps.write_text(yaml.safe_dump([{"after": "30s", "untaint": "ecc"}, {"drain": "node-0"}]))
    plan = invoke("plan", "what-if", str(steps), str(cluster))
    assert plan.exit_code == 0, plan.output
    assert "Step 2: drain node-0\n  pod default/pod-0000-72gi evicted from node-0\n" in plan.output
    simulated = invoke("simulate", str(cluster), "--what-if", str(steps))
    assert "\n".join(plan.output.splitlines()) in simulated.output


@pytest.mark.parametrize(
    "command",
    [
        ["plan", "what-if", "{steps}", "{cluster}"],
        ["simulate", "{cluster}", "--what-if", "{steps}"],
        ["simulate", "{cluster}", "--events", "{steps}"],
    ],
)
def test_bad_cel_in_a_step_is_exit_1_in_every_command(command: list[str], tmp_path: Path) -> None:
    cluster, steps = write_inputs(tmp_path)
    bad = {"class": DRIVER, "selectors": selector("device.nope")}
    steps.write_text(yaml.safe_dump([{"cordon": "node-0"}, {"set-class-selector": bad}]))
    result = invoke(*[a.format(steps=steps, cluster=cluster) for a in command])
    assert result.exit_code == 1, result.output
    assert result.exception is None or isinstance(result.exception, SystemExit)
    expected = f"{steps}: step 2.set-class-selector.selectors[0].cel.expression: Invalid value"
    assert expected in result.output
    assert "undefined field 'nope'" in result.output
    assert "Traceback" not in result.output


def test_add_nodes_count_is_bounded_as_plan_nodes_max_nodes(tmp_path: Path) -> None:
    """A count of 10**9 never ended: at most --max-nodes (100 unless raised) per step, the
    step and field named."""
    steps = [{"add-nodes": {"template": "node.yaml", "count": 10**9}}]
    with pytest.raises(
        TimelineError,
        match=re.escape(
            "s.yaml: step 1.add-nodes.count: 1000000000 nodes, more than the 100 a step may "
            "add (raise the bound with --max-nodes)"
        ),
    ):
        parse_steps(steps, "s.yaml", tmp_path)
    with pytest.raises(TimelineError, match=re.escape("count: 101 nodes, more than the 100")):
        parse_steps([{"add-nodes": {"template": "n.yaml", "count": 101}}], "s.yaml", tmp_path)
    cluster, _ = write_inputs(tmp_path)
    (tmp_path / "n.yaml").write_text(
        yaml.safe_dump_all([scenario_node("extra"), gpu_slice("extra", [80])])
    )
    many = tmp_path / "many.yaml"
    many.write_text(yaml.safe_dump([{"add-nodes": {"template": "n.yaml", "count": 150}}]))
    refused = invoke("simulate", str(cluster), "--what-if", str(many))
    assert refused.exit_code == 1
    assert "many.yaml: step 1.add-nodes.count: 150 nodes, more than the 100" in refused.output
    raised = invoke("plan", "what-if", str(many), str(cluster), "--max-nodes", "150")
    assert raised.exit_code == 0, raised.output
    assert "add 150 node(s) from n.yaml" in raised.output

"""examples/preemption (`--feature-gates DRAPreemption=true`) and examples/gang (`--gang`)."""

from __future__ import annotations

from example_cli import EXAMPLES, invoke, simulate_timeline

from kubedra.cli import simulate_cmd


def simulate(*extra: str) -> tuple[int, str]:
    return simulate_timeline("preemption", *extra)


def test_training_preempts_the_batch_pod_with_the_gate_on() -> None:
    code, out = simulate("--feature-gates", "DRAPreemption=true")
    assert code == 0, out
    step = out[out.index("Step 1") : out.index("After the timeline")]
    assert (
        "pod default/batch-inference evicted: default-scheduler: preempting to accommodate a "
        "higher priority pod"
    ) in step
    assert "pod default/batch-inference deleted" in step
    assert "claim default/training-gpu-" in step
    assert "allocated: gpu.example.com/worker-1/gpu-0" in step
    assert "pod default/training bound to worker-1" in step
    assert step.index("batch-inference deleted") < step.index("training bound")


def test_gate_off_training_stays_pending() -> None:
    code, out = simulate()
    step = out[out.index("Step 1") : out.index("After the timeline")]
    assert "evicted" not in step
    assert (
        "pod default/training unschedulable: 0/2 nodes are available: 2 cannot allocate all "
        "claims. still not schedulable, preemption: 0/2 nodes are available: 2 Preemption is "
        "not helpful for scheduling."
    ) in step
    assert code in (0, 2)


def test_unknown_gate_is_a_usage_error() -> None:
    code, out = simulate("--feature-gates", "Nope=true")
    assert code == 2
    assert "unrecognized feature gate: Nope" in out


def simulate_gang(*extra: str) -> tuple[int, str]:
    return invoke(simulate_cmd.register, "simulate", str(EXAMPLES / "gang"), *extra)


def test_gang_upstream_order_leaves_the_gang_pending() -> None:
    code, out = simulate_gang()
    assert code == 2
    assert (
        "default/trainer-1: gang default/trainers: fewer than minCount 2 of 2 pods can be "
        "placed; pod default/trainer-1: 0/2 nodes are available: 2 cannot allocate all claims."
    ) in out


def test_gang_backtrack_places_the_gang() -> None:
    code, out = simulate_gang("--gang", "backtrack")
    assert code == 0, out
    assert "default/trainer-0  worker-2  Running" in out
    assert "default/trainer-1  worker-1  Running" in out


def test_gang_steps_bound_is_reported() -> None:
    code, out = simulate_gang("--gang", "backtrack", "--gang-steps", "1")
    assert code == 2
    assert (
        "gang default/trainers: search stopped after 1 steps without placing 2 of 2 pods "
        "(the --gang-steps bound)"
    ) in out

"""examples/network-preemption: a network-attached GPU is freed only with --preemption extended."""

from __future__ import annotations

from example_cli import EXAMPLES, invoke, simulate_timeline

from kubedra.cli import explain_cmd

EXAMPLE = EXAMPLES / "network-preemption"


def simulate(*extra: str) -> tuple[int, str]:
    return simulate_timeline("network-preemption", *extra)


def test_extended_preemption_frees_the_fabric_gpu() -> None:
    code, out = simulate("--preemption", "extended")
    assert code == 0, out
    step = out[out.index("Step 1") : out.index("After the timeline")]
    assert (
        "pod default/batch-inference evicted: default-scheduler: preempting to accommodate a "
        "higher priority pod"
    ) in step
    assert "allocated: gpu.example.com/fabric/gpu-0" in step
    assert "pod default/training bound to worker-1" in step


def test_upstream_with_the_gate_on_does_not_preempt_for_a_network_device() -> None:
    code, out = simulate("--feature-gates", "DRAPreemption=true")
    step = out[out.index("Step 1") : out.index("After the timeline")]
    assert "evicted" not in step
    assert (
        "pod default/training unschedulable: 0/2 nodes are available: 2 cannot allocate all "
        "claims. still not schedulable, preemption: 0/2 nodes are available: 1 No preemption "
        "victims found for incoming pod, 1 cannot allocate all claims."
    ) in step
    assert code in (0, 2)


def explain(*extra: str) -> tuple[int, str]:
    return invoke(explain_cmd.register, "explain", "pod", "batch-inference", str(EXAMPLE), *extra)


def test_explain_takes_the_preemption_flag() -> None:
    code, out = explain("--preemption", "extended")
    assert code == 0, out
    assert "batch-inference" in out
    code, out = explain("--preemption", "sideways")
    assert code == 2
    assert "sideways" in out


def test_preemption_sets_bound_from_the_command_line() -> None:
    # One set is enough here (a single victim); zero is refused by the option itself.
    code, out = simulate("--preemption", "extended", "--preemption-sets", "1")
    assert code == 0, out
    assert "pod default/training bound to worker-1" in out
    code, out = simulate("--preemption", "extended", "--preemption-sets", "0")
    assert code == 2
    assert "--preemption-sets" in out

"""examples/preemption: `kubedra simulate --feature-gates DRAPreemption=true` preempts."""

from __future__ import annotations

from pathlib import Path

import typer
from typer.testing import CliRunner

from kubedra.cli import simulate_cmd

EXAMPLE = Path(__file__).resolve().parent.parent.parent / "examples" / "preemption"


def simulate(*extra: str) -> tuple[int, str]:
    app = typer.Typer()
    app.command("version")(lambda: None)
    simulate_cmd.register(app)
    args = ["simulate", str(EXAMPLE), "--events", str(EXAMPLE / "training.events"), *extra]
    result = CliRunner().invoke(app, args)
    return result.exit_code, result.output


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

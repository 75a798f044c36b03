"""``kubedra trace``: traces for ``kubedra replay``, imported from production data
(``trace import alibaba-gpu-v2023``) or generated from stated distributions (``trace generate``).

Both write DIR/cluster.yaml and DIR/trace.yaml and nothing else. Exit status: 0 when written,
1 for bad input (the message names the file, line and column, or the flag), 2 for bad usage.
The trace builders (kubedra.traces, which loads the object model) are imported inside the
commands, so that other commands start without them.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kubedra.cli.options import CONTEXT_SETTINGS

if TYPE_CHECKING:
    from kubedra.traces import Trace

EXIT_BAD_INPUT = 1

trace_app = typer.Typer(
    name="trace",
    help="Make traces for kubedra replay: import production data or generate synthetic ones.",
    no_args_is_help=True,
    context_settings=CONTEXT_SETTINGS,
)


class ImportFormat(enum.StrEnum):
    ALIBABA_GPU_V2023 = "alibaba-gpu-v2023"


class Pending(enum.StrEnum):
    """The values of kubedra.traces.PendingTasks (kept here so the CLI loads without it)."""

    INCLUDE = "include"
    SKIP = "skip"


OutputDir = Annotated[
    Path,
    typer.Option(
        "--output",
        "-o",
        help="Directory for cluster.yaml and trace.yaml (created if missing).",
        show_default=False,
    ),
]
Force = Annotated[
    bool, typer.Option("--force", help="Replace cluster.yaml and trace.yaml if DIR has them.")
]
PodsPerNode = Annotated[
    int, typer.Option("--pods-per-node", min=1, help="Each node's pods capacity.")
]


def _fail(message: str) -> typer.Exit:
    typer.echo(f"error: {message}", err=True)
    return typer.Exit(EXIT_BAD_INPUT)


def _build_and_write(
    build: Callable[[], Trace], directory: Path, force: bool
) -> tuple[Trace, Path, Path]:
    """The trace ``build`` makes, written into ``directory``; bad input ends the command."""
    from kubedra.traces import TraceInputError, write_trace

    try:
        trace = build()
        cluster_file, trace_file = write_trace(trace, directory, force=force)
    except TraceInputError as error:
        raise _fail(str(error)) from None
    return trace, cluster_file, trace_file


def _report(cluster_line: str, trace_line: str, cluster_file: Path, trace_file: Path) -> None:
    typer.echo(f"wrote {cluster_file}: {cluster_line}")
    typer.echo(f"wrote {trace_file}: {trace_line}")
    typer.echo(f"replay: kubedra replay {cluster_file} --trace {trace_file}")


@trace_app.command("import", context_settings=CONTEXT_SETTINGS)
def import_trace(
    trace_format: Annotated[
        ImportFormat,
        typer.Argument(
            metavar="FORMAT",
            help="alibaba-gpu-v2023: alibaba/clusterdata cluster-trace-gpu-v2023 (USENIX ATC '23).",
        ),
    ],
    nodes: Annotated[
        Path,
        typer.Option(
            "--nodes", help="The node list (openb_node_list_gpu_node.csv).", show_default=False
        ),
    ],
    pods: Annotated[
        Path,
        typer.Option("--pods", help="The task list (openb_pod_list_*.csv).", show_default=False),
    ],
    output: OutputDir,
    force: Force = False,
    pending: Annotated[
        Pending,
        typer.Option(
            "--pending",
            help="Tasks never scheduled in production: include (run for their life there) or skip.",
        ),
    ] = Pending.INCLUDE,
    qos_priority: Annotated[
        bool,
        typer.Option(
            "--qos-priority",
            help="Give tasks PriorityClasses by qos (Guaranteed > LS > Burstable > BE); the "
            "paper has no priorities.",
        ),
    ] = False,
    pods_per_node: PodsPerNode = 110,
    limit: Annotated[
        int | None,
        typer.Option(
            "--limit", min=0, help="Only the first N tasks by creation time.", show_default=False
        ),
    ] = None,
) -> None:
    """Convert a production trace into DIR/cluster.yaml and DIR/trace.yaml.

    kubedra replay runs them as they are; every mapping choice is in docs/guides/traces.md.
    """
    from kubedra.traces import AlibabaOptions, PendingTasks, import_alibaba

    options = AlibabaOptions(
        pending=PendingTasks(pending.value),
        qos_priority=qos_priority,
        pods_per_node=pods_per_node,
        limit=limit,
    )
    trace, cluster_file, trace_file = _build_and_write(
        lambda: import_alibaba(nodes, pods, options), output, force
    )
    summary = trace.summary
    models = ", ".join(f"{model} {count}" for model, count in summary["gpusByModel"].items())
    skipped = summary["pendingSkipped"]
    _report(
        f"{summary['nodes']} nodes with {summary['gpus']} GPUs ({models or 'none'}), "
        f"{len(summary['templates'])} claim templates",
        f"{summary['entries']} tasks: {summary['wholeGpu']} whole-GPU, "
        f"{summary['sharedGpu']} GPU-sharing, {summary['cpuOnly']} CPU-only "
        f"({summary['gpusRequested']:g} GPUs requested)"
        + (f"; {skipped} never-scheduled tasks left out" if skipped else ""),
        cluster_file,
        trace_file,
    )


@trace_app.command("generate", context_settings=CONTEXT_SETTINGS)
def generate_trace(
    output: OutputDir,
    force: Force = False,
    pods: Annotated[int, typer.Option("--pods", min=1, help="Pods in the trace.")] = 1000,
    nodes: Annotated[int, typer.Option("--nodes", min=1, help="Nodes in the cluster.")] = 16,
    gpus_per_node: Annotated[
        int, typer.Option("--gpus-per-node", min=0, max=128, help="GPUs on each node.")
    ] = 8,
    gpu_model: Annotated[
        str, typer.Option("--gpu-model", help="The GPUs' model attribute.")
    ] = "A100",
    gpu_memory: Annotated[
        str, typer.Option("--gpu-memory", help="Each GPU's memory capacity.")
    ] = "80Gi",
    node_cpu: Annotated[
        str, typer.Option("--node-cpu", help="Each node's allocatable cpu.")
    ] = "128",
    node_memory: Annotated[
        str, typer.Option("--node-memory", help="Each node's allocatable memory.")
    ] = "1Ti",
    pods_per_node: PodsPerNode = 110,
    cpu_per_gpu: Annotated[
        str, typer.Option("--cpu-per-gpu", help="A pod's cpu request per GPU it takes.")
    ] = "8",
    memory_per_gpu: Annotated[
        str, typer.Option("--memory-per-gpu", help="A pod's memory request per GPU it takes.")
    ] = "64Gi",
    mix: Annotated[
        str | None,
        typer.Option(
            "--mix",
            help="Request shapes by weight: cpu, gpu:N (whole GPUs), share:M (thousandths of "
            "one GPU). Default: cpu=10,share:250=10,share:500=20,gpu:1=45,gpu:2=8,gpu:4=4,gpu:8=3.",
            show_default=False,
        ),
    ] = None,
    duration_median: Annotated[
        str, typer.Option("--duration-median", help="Median run time (log-normal).")
    ] = "1h",
    duration_sigma: Annotated[
        float, typer.Option("--duration-sigma", help="Sigma of the log-normal run time.")
    ] = 1.0,
    mean_interarrival: Annotated[
        str | None,
        typer.Option(
            "--mean-interarrival",
            help="Mean gap between arrivals (Poisson); default: the gap that offers --load.",
            show_default=False,
        ),
    ] = None,
    load: Annotated[
        float,
        typer.Option("--load", help="Offered GPU load (busy fraction) that sets the arrival rate."),
    ] = 0.8,
    seed: Annotated[int, typer.Option("--seed", min=0, help="Random seed.")] = 0,
) -> None:
    """Generate a seeded synthetic trace and its GPU cluster into DIR.

    Poisson arrivals, log-normal durations and a mix of request shapes; the same flags and
    seed write the same bytes. The distributions are in docs/guides/traces.md.
    """
    from kubedra.traces import SyntheticOptions, generate, parse_mix, units

    def build() -> Trace:
        return generate(
            SyntheticOptions(
                pods=pods,
                nodes=nodes,
                gpus_per_node=gpus_per_node,
                gpu_model=gpu_model,
                gpu_memory=units.memory(gpu_memory, "--gpu-memory"),
                node_cpu_milli=units.millicores(node_cpu, "--node-cpu"),
                node_memory_mib=units.mebibytes(node_memory, "--node-memory"),
                pods_per_node=pods_per_node,
                cpu_milli_per_gpu=units.millicores(cpu_per_gpu, "--cpu-per-gpu"),
                memory_mib_per_gpu=units.mebibytes(memory_per_gpu, "--memory-per-gpu"),
                mix=parse_mix(mix) if mix is not None else (),
                duration_median=units.seconds(duration_median, "--duration-median"),
                duration_sigma=duration_sigma,
                mean_interarrival=(
                    units.seconds(mean_interarrival, "--mean-interarrival")
                    if mean_interarrival is not None
                    else None
                ),
                load=load,
                seed=seed,
            )
        )

    trace, cluster_file, trace_file = _build_and_write(build, output, force)
    summary = trace.summary
    shapes = ", ".join(f"{shape} {count}" for shape, count in summary["podsByShape"].items())
    _report(
        f"{summary['nodes']} nodes with {summary['gpus']} GPUs, "
        f"{len(summary['templates'])} claim templates",
        f"{summary['pods']} pods arriving until {summary['lastArrivalSeconds']}s "
        f"(mean gap {summary['meanInterarrivalSeconds']:g}s): {shapes}",
        cluster_file,
        trace_file,
    )


def register(app: typer.Typer) -> None:
    app.add_typer(trace_app)

"""``kubedra serve-api``: the simulated cluster as a Kubernetes API for kubectl and clients."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from kubedra.api.limits import DEFAULT_MAX_PODS
from kubedra.cli import options

if TYPE_CHECKING:
    from kubedra.api.io import LoadResult

EXIT_BAD_INPUT = 2


def _example(name: str) -> LoadResult | None:
    """A built-in scenario, loaded (``kubedra serve --example`` reads it too)."""
    from kubedra.api.io import load_text
    from kubedra.cluster.examples import example_text

    text = example_text(name)
    return None if text is None else load_text(text, f"example {name}")


def serve_api(
    paths: options.Paths = None,
    filename: options.Filename = None,
    recursive: options.Recursive = False,
    example: Annotated[
        str | None, typer.Option("--example", help="Start from a built-in scenario.")
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port).")] = 0,
    kubeconfig_out: Annotated[
        Path | None, typer.Option("--kubeconfig-out", help="Write a kubeconfig for it here.")
    ] = None,
    namespace: options.Namespace = None,
    kubeconfig: options.Kubeconfig = None,
    context: options.Context = None,
    kubernetes_version: options.KubernetesVersion = None,
    feature_gates: options.FeatureGatesOption = None,
    start_time: options.StartTime = None,
    max_pods: options.MaxPods = DEFAULT_MAX_PODS,
) -> None:
    """Serve the simulated cluster as a Kubernetes API on 127.0.0.1 until interrupted.

    Each write runs the scheduler and controllers before it is answered. Workloads become
    their controllers' pods, as in kubedra simulate. --kubeconfig/--context start it from a
    live cluster's snapshot (read once; the live cluster is never written to).
    --kubernetes-version picks the release whose feature gates apply and that /version
    reports.

    --kubeconfig-out writes a kubeconfig for kubectl and client libraries.

    The simulated clock starts now and follows the wall clock (ages and events read as
    kubectl expects); --start-time starts it at a fixed time and moves it only as the
    simulation does, so that a run is reproducible. Nodes report Ready, with heartbeats and
    Leases, as healthy kubelets do.
    """
    from kubedra.apiserver import ApiServer, write_kubeconfig
    from kubedra.cli.sim_input import InputFlags, gather_shown, stop_if_unreadable
    from kubedra.scheduler import new_simulation

    namespace = namespace or "default"
    fixed_start = options.start_time(start_time)
    flags = InputFlags(
        paths,
        filename,
        recursive,
        example,
        kubeconfig,
        context,
        namespace,
        kubernetes_version,
        feature_gates,
        max_pods=max_pods,
    )
    read = gather_shown(flags, _err, EXIT_BAD_INPUT, require=False, prefix_errors=True)
    stop_if_unreadable(read, _err, EXIT_BAD_INPUT, [*read.skipped, *read.usage])
    simulation = new_simulation(
        namespace=namespace,
        features=read.features,
        admission=read.admission,
        start=fixed_start or options.wall_clock_now(),
    )
    problems = simulation.load(read.objects, read.sources)
    for problem in problems:
        typer.echo(f"warning: {problem.source}: {problem.object}: {problem.message}", err=True)
    try:
        server = ApiServer(
            simulation,
            port=port,
            release=read.gates.release,
            follow_wall_clock=fixed_start is None,
            gate_enabled=read.gates.enabled,
        )
    except OSError as error:
        typer.echo(f"error: cannot listen on 127.0.0.1:{port}: {error.strerror}", err=True)
        raise typer.Exit(EXIT_BAD_INPUT) from error
    if kubeconfig_out is not None:
        write_kubeconfig(kubeconfig_out, server.url, namespace)
        typer.echo(f"kubeconfig written to {kubeconfig_out}", err=True)
    typer.echo(f"serving the simulated cluster on {server.url}", err=True)
    server.serve_forever()


def _err(line: str) -> None:
    typer.echo(line, err=True)


def register(app: typer.Typer) -> None:
    app.command("serve-api", context_settings=options.CONTEXT_SETTINGS)(serve_api)

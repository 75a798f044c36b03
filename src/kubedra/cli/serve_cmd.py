"""``kubedra serve``: the web page over the simulated cluster, with its Kubernetes API."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from kubedra.cli import options


def serve(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(
            help="Manifest files or directories to start the cluster from.", metavar="PATH..."
        ),
    ] = None,
    example: Annotated[
        str | None, typer.Option("--example", help="Start from a built-in scenario (gpu-demo).")
    ] = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="Port (0: any free port).")] = 8080,
    kubeconfig_out: Annotated[
        Path | None,
        typer.Option("--kubeconfig-out", help="Write a kubeconfig for the served API here."),
    ] = None,
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="Namespace of objects that name none.")
    ] = "default",
    start_time: options.StartTime = None,
) -> None:
    """Serve the page on http://HOST:PORT/ and the Kubernetes API under /k8s until
    interrupted; only the given paths are read.

    The simulated clock starts now and follows the wall clock; --start-time fixes where it
    starts and moves it only as the simulation does (reproducible runs)."""
    from kubedra.api.io import LoadResult, load_paths
    from kubedra.apiserver import write_kubeconfig
    from kubedra.cli.serve_api_cmd import _example
    from kubedra.scheduler import new_simulation
    from kubedra.web import WebServer

    result = LoadResult()
    if example is not None:
        loaded = _example(example)
        if loaded is None:
            from kubedra.cluster.examples import UnknownExample

            typer.echo(f"error: {UnknownExample(example)}", err=True)
            raise typer.Exit(2)
        result = loaded
    if paths:
        result.entries.extend(load_paths(paths).entries)
    for error in result.errors:
        typer.echo(f"error: {error}", err=True)
    if result.errors:
        raise typer.Exit(2)
    fixed_start = options.start_time(start_time)
    simulation = new_simulation(namespace=namespace, start=fixed_start or options.wall_clock_now())
    objects = result.objects
    problems = simulation.load([o.wire for o in objects], [o.location() for o in objects])
    for problem in problems:
        typer.echo(f"warning: {problem.source}: {problem.object}: {problem.message}", err=True)
    try:
        server = WebServer(
            simulation,
            port=port,
            host=host,
            namespace=namespace,
            follow_wall_clock=fixed_start is None,
        )
    except OSError as error:
        reason = error.strerror or str(error)
        hint = " (is another server using it? try --port 0)" if error.errno == 98 else ""
        typer.echo(f"error: cannot listen on {host}:{port}: {reason}{hint}", err=True)
        raise typer.Exit(2) from error
    if kubeconfig_out is not None:
        write_kubeconfig(kubeconfig_out, server.api_url, namespace)
        typer.echo(f"kubeconfig written to {kubeconfig_out}", err=True)
    typer.echo(f"kubedra web page on {server.url}/ (Kubernetes API: {server.api_url})", err=True)
    server.serve_forever()


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)

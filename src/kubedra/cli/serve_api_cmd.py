"""``kubedra serve-api``: the simulated cluster as a Kubernetes API for kubectl and clients."""

from __future__ import annotations

from importlib import resources
from pathlib import Path
from typing import Annotated

import typer

from kubedra.api.io import LoadResult, load_paths, load_text


def _example(name: str) -> LoadResult | None:
    path = resources.files("kubedra.cluster") / "examples" / f"{name}.yaml"
    if not path.is_file():
        return None
    return load_text(path.read_text(), f"example {name}")


def serve_api(
    paths: Annotated[
        list[Path] | None,
        typer.Argument(help="Manifest files or directories to start the cluster from."),
    ] = None,
    files: Annotated[
        list[Path] | None, typer.Option("--filename", "-f", help="A manifest file (repeatable).")
    ] = None,
    example: Annotated[
        str | None, typer.Option("--example", help="Start from a built-in scenario.")
    ] = None,
    port: Annotated[int, typer.Option(help="Port on 127.0.0.1 (0: any free port).")] = 0,
    kubeconfig_out: Annotated[
        Path | None, typer.Option("--kubeconfig-out", help="Write a kubeconfig for it here.")
    ] = None,
    namespace: Annotated[
        str, typer.Option("--namespace", "-n", help="Namespace of objects that name none.")
    ] = "default",
) -> None:
    """Serve the simulated cluster as a Kubernetes API on 127.0.0.1 until interrupted.

    Each write runs the scheduler and controllers before it is answered.

    --kubeconfig-out writes a kubeconfig for kubectl and client libraries.
    """
    from kubedra.apiserver import ApiServer, write_kubeconfig
    from kubedra.cluster.simulation import Simulation

    sources = [*(paths or []), *(files or [])]
    result = LoadResult()
    if example is not None:
        loaded = _example(example)
        if loaded is None:
            from kubedra.cli.simulate_cmd import example_names

            known = ", ".join(example_names())
            typer.echo(f"error: no example named {example!r} (known: {known})", err=True)
            raise typer.Exit(2)
        result = loaded
    if sources:
        more = load_paths(sources)
        result.entries.extend(more.entries)
    for error in result.errors:
        typer.echo(f"error: {error}", err=True)
    if result.errors:
        raise typer.Exit(2)
    simulation = Simulation(namespace=namespace)
    objects = result.objects
    problems = simulation.load([o.wire for o in objects], [o.location() for o in objects])
    for problem in problems:
        typer.echo(f"warning: {problem.source}: {problem.object}: {problem.message}", err=True)
    try:
        server = ApiServer(simulation, port=port)
    except OSError as error:
        typer.echo(f"error: cannot listen on 127.0.0.1:{port}: {error.strerror}", err=True)
        raise typer.Exit(2) from error
    if kubeconfig_out is not None:
        write_kubeconfig(kubeconfig_out, server.url, namespace)
        typer.echo(f"kubeconfig written to {kubeconfig_out}", err=True)
    typer.echo(f"serving the simulated cluster on {server.url}", err=True)
    server.serve_forever()


def register(app: typer.Typer) -> None:
    app.command("serve-api")(serve_api)
